"""The temperatures of the fused attribute odds by visible fraction."""

from __future__ import annotations

import math

import pytest

from vision.learn.odds_calibration import FITTED_TEMPERATURES, VISIBLE_EDGES, OddsCalibration
from vision.rules.pieces import ATTRIBUTES


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_identity_changes_nothing() -> None:
    odds = [{"color": 0.97, "shape": None, "height": 0.2, "top": 0.5}]
    assert OddsCalibration.identity().apply(odds, [0.4]) == odds


def test_each_band_takes_its_own_temperature() -> None:
    cal = OddsCalibration(visible_edges=(0.5,), temperatures={"shape": (2.0, 0.5)})
    odds = [{"color": 0.9, "shape": 0.9, "height": None, "top": 0.1}] * 2
    low, high = cal.apply(odds, [0.3, 0.8])
    # a hidden piece's shape is softened, a well seen one's sharpened; log-odds scale exactly
    assert _logit(low["shape"]) == pytest.approx(_logit(0.9) / 2.0)
    assert _logit(high["shape"]) == pytest.approx(_logit(0.9) / 0.5)
    # sides never flip; other attributes and unknowns are untouched
    assert 0.5 < low["shape"] < 0.9 < high["shape"] < 1.0
    assert low["color"] == 0.9 and low["height"] is None and low["top"] == 0.1


def test_band_edges_belong_to_the_upper_band_and_nan_counts_as_fully_visible() -> None:
    cal = OddsCalibration(visible_edges=(0.3, 0.7), temperatures={"top": (1.0, 2.0, 3.0)})
    assert [cal.band(v) for v in (0.0, 0.29, 0.3, 0.69, 0.7, 1.0)] == [0, 0, 1, 1, 2, 2]
    assert cal.temperature("top", float("nan")) == 3.0
    assert cal.temperature("color", 0.1) == 1.0


@pytest.mark.parametrize("kwargs", [
    {"visible_edges": (0.5, 0.3), "temperatures": {}},
    {"visible_edges": (0.0, 0.5), "temperatures": {}},
    {"visible_edges": (0.5,), "temperatures": {"shape": (1.0,)}},
    {"visible_edges": (0.5,), "temperatures": {"shape": (1.0, 0.0)}},
    {"visible_edges": (0.5,), "temperatures": {"size": (1.0, 1.0)}},
])
def test_bad_settings_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        OddsCalibration(**kwargs)


def test_the_packaged_fit_covers_every_attribute_and_band() -> None:
    cal = OddsCalibration()
    assert set(FITTED_TEMPERATURES) == set(ATTRIBUTES)
    assert all(len(t) == len(VISIBLE_EDGES) + 1 for t in cal.temperatures.values())


def test_low_view_odds_temper_only_cells_seen_from_low_enough() -> None:
    from vision.learn.odds_calibration import LowViewOdds

    cal = OddsCalibration(visible_edges=(0.5,), temperatures={"shape": (2.0, 1.0)})
    low_view = LowViewOdds(max_elevation_deg=45.0, calibration=cal)
    odds = [{"color": 0.9, "shape": 0.9, "height": None, "top": 0.2}] * 3
    low_hidden, low_seen, steep_hidden = low_view.apply(odds, [0.3, 0.8, 0.3],
                                                         [30.0, 30.0, 60.0])
    assert _logit(low_hidden["shape"]) == pytest.approx(_logit(0.9) / 2.0)
    assert low_seen == odds[1]
    assert steep_hidden == odds[2]
    assert low_hidden["color"] == 0.9 and low_hidden["height"] is None
    # off (the default) changes nothing, whatever the elevation
    assert LowViewOdds(calibration=cal).apply(odds, [0.3] * 3, [10.0] * 3) == odds


def test_low_view_odds_refuse_an_elevation_outside_0_90() -> None:
    from vision.learn.odds_calibration import LowViewOdds

    with pytest.raises(ValueError, match="max_elevation_deg"):
        LowViewOdds(max_elevation_deg=120.0)
