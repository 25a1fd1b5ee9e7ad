"""Fusing two observations: log-odds pooling, unknowns, joint decoding, bad weights."""

from __future__ import annotations

import pytest

from vision.learn.fuse import fuse_observations
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES


def observation(occ: float, odds: dict[str, float | None]) -> Observation:
    return Observation(tuple(
        CellReading(cell=c, center_px=(float(c.col), float(c.row)), occupied_probability=(
            occ if c.row == 0 else 0.01), attribute_probability=dict(odds))
        for c in ALL_CELLS))


def test_agreeing_readers_reinforce_and_disagreeing_cancel() -> None:
    a = observation(0.8, {"color": 0.9, "shape": 0.9, "height": 0.2, "top": None})
    b = observation(0.8, {"color": 0.9, "shape": 0.1, "height": 0.2, "top": 0.7})
    fused = fuse_observations(a, b, weights=(1.0, 1.0))
    r = fused.cells[0]
    assert r.occupied_probability > 0.9
    assert r.attribute_probability["color"] == pytest.approx(81 / 82)
    assert r.attribute_probability["shape"] == pytest.approx(0.5)
    assert r.attribute_probability["top"] == pytest.approx(0.7)  # only b could see it
    assert len(fused.pieces) == 4 and len(set(fused.pieces.values())) == 4
    assert all(fused.cells[i].piece is None for i in range(4, 16))


def test_unknown_to_both_stays_unknown() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9) | {"top": None})
    fused = fuse_observations(a, a)
    assert fused.cells[0].attribute_probability["top"] is None


def test_empty_side_returns_the_other() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9))
    assert fuse_observations(Observation.empty(), a) is a
    assert fuse_observations(a, Observation.empty()) is a


def test_bad_weights_raise() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9))
    with pytest.raises(ValueError, match="weights"):
        fuse_observations(a, a, weights=(-1.0, 1.0))
    with pytest.raises(ValueError, match="weights"):
        fuse_observations(a, a, weights=(0.0, 0.0))


def test_fused_reader_runs_both_readers() -> None:
    import numpy as np

    from tests.learn.test_sampling import make_view
    from vision.learn import read_cells_fused

    view = make_view()
    image = np.full((360, 640, 3), 90, np.uint8)
    obs = read_cells_fused(image, view)
    assert len(obs) == 16 and obs.board_view is view
