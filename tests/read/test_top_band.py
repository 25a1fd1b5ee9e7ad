"""The band between a piece's two possible tops (``vision.read.top_band``) on painted scenes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import make_view, paint
from tests.read.test_reader_synthetic import SCENE as READER_SCENE
from vision.learn.fuse import with_top_band
from vision.read.reader import CellFeatures, measure_cells
from vision.read.top_band import (
    FEATURES,
    TopBandConfig,
    band_features,
    band_log_odds,
    guided_heights,
)
from vision.rules.board import Cell
from vision.rules.pieces import Piece

# The reader's synthetic scene, with one more short piece.
SCENE = {**READER_SCENE, Cell(2, 3): Piece.from_symbol("DRSH")}
TALL = {c.index: p.value("height") == "tall" for c, p in SCENE.items()}


def _measured(elevation_deg: float) -> tuple[object, CellFeatures]:
    view = make_view(elevation_deg=elevation_deg)
    return view, measure_cells(paint(view, SCENE, seed=3), view)


@pytest.fixture(scope="module")
def low() -> tuple[object, CellFeatures]:
    return _measured(35.0)


def _truth_odds(p_wrong: dict[int, float] | None = None) -> list[dict[str, float | None]]:
    odds: list[dict[str, float | None]] = []
    for i in range(16):
        if i in TALL:
            p = (p_wrong or {}).get(i, 0.97 if TALL[i] else 0.03)
            odds.append({"color": 0.5, "shape": 0.5, "height": p, "top": 0.5})
        else:
            odds.append(dict.fromkeys(("color", "shape", "height", "top")))
    return odds


def test_band_points_to_the_true_height(low: tuple[object, CellFeatures]) -> None:
    view, feats = low
    pr = feats.profiles
    p_tall = np.array([0.97 if TALL.get(i) else 0.03 for i in range(16)])
    usable = np.array([i in TALL for i in range(16)])
    x, gap = band_features(view, feats.frames, feats.patch, feats.heights.short_m,  # type: ignore[arg-type]
                           feats.heights.tall_m, pr.rim, pr.side, pr.spread, pr.heights_m,
                           p_tall, usable)
    assert x.shape == (16, len(FEATURES))
    assert np.all(gap[list(TALL)] > 0.25)  # 35 degrees: the two tops lie well apart
    llr = band_log_odds(x, TopBandConfig(weight=1.0))
    for i, tall in TALL.items():
        assert (llr[i] > 0) == tall, (i, llr[i], x[i])


def test_a_wrong_height_is_pulled_back(low: tuple[object, CellFeatures]) -> None:
    view, feats = low
    short_cell, tall_cell = Cell(1, 2).index, Cell(3, 3).index
    odds = _truth_odds({short_cell: 0.8, tall_cell: 0.2})
    occ = [1.0 if i in TALL else 0.0 for i in range(16)]
    out = with_top_band(odds, occ, [1.0] * 16, feats, view, TopBandConfig(weight=1.0))  # type: ignore[arg-type]
    assert out[short_cell]["height"] < 0.8
    assert out[tall_cell]["height"] > 0.2
    assert out[5]["height"] is None  # an empty cell keeps its unknown height


def test_off_and_out_of_range_leave_the_odds_alone(low: tuple[object, CellFeatures]) -> None:
    view, feats = low
    odds = _truth_odds({Cell(1, 2).index: 0.8})
    occ = [1.0 if i in TALL else 0.0 for i in range(16)]
    # weight 0 is handled by the caller; a cell seen less than min_visible is left alone
    out = with_top_band(odds, occ, [0.5] * 16, feats, view, TopBandConfig(weight=1.0))  # type: ignore[arg-type]
    assert out == odds
    high_view, high = _measured(85.0)
    out = with_top_band(odds, occ, [1.0] * 16, high, high_view, TopBandConfig(weight=1.0))  # type: ignore[arg-type]
    assert out == odds  # from straight above the two tops overlap: no evidence


def test_guided_heights_follow_the_other_pieces() -> None:
    """Each cell's pair comes from the other pieces' profiles, each counted at the height the
    readers give it; the cell's own profile (here a peak at a wrong height) plays no part."""
    heights = np.linspace(0.014, 0.085, 30)
    short, tall = heights[10], heights[20]  # 38.5 and 63 mm: a possible set
    score = np.zeros((16, 30))
    p_tall = np.full(16, 0.5)
    usable = np.zeros(16, bool)
    for i in range(8):
        peak = tall if i % 2 else short
        score[i] = 10.0 * np.exp(-(((heights - peak) / 0.004) ** 2))
        p_tall[i] = 0.95 if i % 2 else 0.05
        usable[i] = True
    score[0] = 10.0 * np.exp(-(((heights - heights[4]) / 0.004) ** 2))  # misleading
    pair = guided_heights(score, heights, p_tall, usable, footprint_m=0.026)
    assert pair is not None
    step = heights[1] - heights[0]  # profiles are z-scored with one step of tolerance
    assert np.all(np.abs(pair[0][:8] - short) <= step + 1e-9)
    assert np.all(np.abs(pair[1][:8] - tall) <= step + 1e-9)
    assert guided_heights(score, heights, p_tall, usable & (np.arange(16) < 2),
                          footprint_m=0.026) is None  # too few pieces to say
