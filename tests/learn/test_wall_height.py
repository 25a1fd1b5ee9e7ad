"""The near wall's height from above (``vision.learn.wall_height``, session 36) on synthetic
renders: the band between a piece's foot and its top's near rim measures the piece's height,
and the board's other walls tell a cell's height."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import F_FRAC, make_view, paint
from vision.learn.config import LearnedReaderConfig, WallHeightConfig
from vision.learn.wall_height import fit_wall, wall_height_evidence, wall_heights
from vision.rules.board import Cell
from vision.rules.pieces import Piece

SHORT_F, TALL_F = 1.1, 2.1


def _board(elevation_deg: float = 72.0, top: str = "solid"):
    view = make_view(elevation_deg=elevation_deg, azimuth_deg=15.0, distance_m=0.55)
    cells = [Cell(0, 0), Cell(0, 2), Cell(1, 1), Cell(2, 0), Cell(2, 2), Cell(3, 1)]
    tall = [True, False, True, False, True, False]
    pieces = {c: Piece.from_attributes(dict(color="light", shape="round",
                                   height="tall" if t else "short", top=top))
              for c, t in zip(cells, tall, strict=True)}
    return view, cells, np.array(tall), paint(view, pieces, short_f=SHORT_F, tall_f=TALL_F)


def _measure(view, cells):
    index = {c: i for i, c in enumerate(view.cells)}
    mask = np.zeros(16, bool)
    mask[[index[c] for c in cells]] = True
    return index, mask


def test_a_three_step_profile_is_split_at_its_steps() -> None:
    rng = np.random.default_rng(1)
    prof = np.concatenate([np.full(40, 50.0), np.full(30, 20.0), np.full(50, 80.0)])
    prof = np.column_stack([prof, prof * 0.2]) + rng.normal(0.0, 1.0, (120, 2))
    assert fit_wall(prof, 5, 60, None) == (40, 70)
    # A hollow top: a narrow ring, then the dark bore.
    ring = np.concatenate([np.full(40, 50.0), np.full(30, 20.0), np.full(8, 80.0),
                           np.full(40, 5.0)])
    ring = np.column_stack([ring, ring]) + rng.normal(0.0, 1.0, (118, 2))
    assert fit_wall(ring, 5, 60, 8) == (40, 70)
    # No wall length allowed fits in the profile.
    assert fit_wall(prof, 200, 300, None) is None


@pytest.mark.parametrize("top", ["solid", "hollow"])
def test_wall_heights_follow_the_pieces(top: str) -> None:
    view, cells, tall, img = _board(top=top)
    index, mask = _measure(view, cells)
    hollow = mask if top == "hollow" else np.zeros(16, bool)
    h = wall_heights(img, view, mask, hollow, WallHeightConfig(weight=1.0))
    got = h[[index[c] for c in cells]]
    assert np.isfinite(got).all()
    assert np.isnan(h[~mask]).all()
    f = F_FRAC * view.spec.cell_diameter_m
    truth = np.where(tall, TALL_F, SHORT_F) * f
    # A hollow top's bore and far rim follow its ring in the profile (one more constant):
    # a short hollow piece reads up to half again its height, still below the tall ones.
    assert np.all(np.abs(np.log(got / truth)) < (0.5 if top == "hollow" else 0.1))
    assert got[tall].min() > got[~tall].max()


def test_no_wall_is_measured_below_the_elevation_gate() -> None:
    view, cells, _, img = _board(elevation_deg=50.0)
    _, mask = _measure(view, cells)
    h = wall_heights(img, view, mask, np.zeros(16, bool), WallHeightConfig(weight=1.0))
    assert np.isnan(h).all()


def test_the_other_walls_tell_an_unsure_cell() -> None:
    cfg = WallHeightConfig(weight=1.0)
    ring = 0.04
    short, tall = 0.03, 0.055
    h = np.array([tall, short, tall, short, short, tall, np.nan])
    p = np.array([0.9, 0.1, 0.9, 0.1, 0.5, 0.5, 0.5])
    ev = wall_height_evidence(h, p, ring, cfg)
    assert ev[4] < -0.5 and ev[5] > 0.5
    assert ev[6] == 0.0
    # One wall alone has nothing to be compared with.
    lone = wall_height_evidence(np.array([tall, np.nan]), np.array([0.5, 0.5]), ring, cfg)
    assert not lone.any()


def test_fused_odds_take_the_evidence() -> None:
    from vision.learn.fuse import with_wall_heights

    view, cells, tall, img = _board()
    index, _ = _measure(view, cells)
    odds: list[dict[str, float | None]] = [
        dict.fromkeys(("color", "shape", "height", "top")) for _ in range(16)]
    occ = [0.0] * 16
    for c, t in zip(cells, tall, strict=True):
        odds[index[c]] = {"color": 0.1, "shape": 0.1, "height": 0.9 if t else 0.1, "top": 0.1}
        occ[index[c]] = 0.99
    odds[index[cells[0]]]["height"] = 0.5
    odds[index[cells[1]]]["height"] = 0.5
    out = with_wall_heights(odds, occ, [1.0] * 16, img, view, WallHeightConfig(weight=1.0))
    assert out[index[cells[0]]]["height"] > 0.65
    assert out[index[cells[1]]]["height"] < 0.35
    assert out[index[Cell(3, 3)]] == odds[index[Cell(3, 3)]]


def test_config_is_checked_and_off_by_default() -> None:
    assert LearnedReaderConfig().wall_height.weight == 0.0
    with pytest.raises(ValueError):
        WallHeightConfig(weight=-1.0)
    with pytest.raises(ValueError):
        WallHeightConfig(height_range_rings=(1.0, 0.5))
    with pytest.raises(ValueError):
        WallHeightConfig(outlier_rate=0.0)
