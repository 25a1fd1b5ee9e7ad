"""Tall or short from steep views by each height's top outline (``vision.learn.top_rim``,
session 38) on synthetic renders: the outline predicted at a piece's own height fits the
image better than the other height's, and the fused odds move towards it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.read.synth import F_FRAC, make_view, paint
from vision.learn.config import TopRimConfig
from vision.learn.fuse import with_top_rims
from vision.learn.top_rim import top_rim_evidence, top_rim_scores
from vision.read.geometry import cell_frames
from vision.rules.board import Cell
from vision.rules.pieces import Piece

SHORT_F, TALL_F = 1.1, 2.1
CELLS = [Cell(0, 0), Cell(0, 2), Cell(1, 1), Cell(2, 0), Cell(2, 2), Cell(3, 1), Cell(3, 3)]
TALL = np.array([True, False, True, False, True, False, False])


def _board(top: str, shape: str = "round", elevation_deg: float = 72.0):
    view = make_view(elevation_deg=elevation_deg, azimuth_deg=15.0, distance_m=0.55)
    pieces = {c: Piece.from_attributes(dict(color="light", shape=shape,
                                   height="tall" if t else "short", top=top))
              for c, t in zip(CELLS, TALL, strict=True)}
    img = paint(view, pieces, short_f=SHORT_F, tall_f=TALL_F)
    frames = cell_frames(view, F_FRAC)
    index = {c: i for i, c in enumerate(view.cells)}
    cells = np.array([index[c] for c in CELLS])
    mask = np.zeros(16, bool)
    mask[cells] = True
    f = frames.footprint_m
    return view, img, frames, cells, mask, (SHORT_F * f, TALL_F * f)


@pytest.mark.parametrize(("top", "shape"), [("solid", "round"), ("hollow", "round"),
                                            ("solid", "square")])
def test_each_piece_fits_its_own_height(top: str, shape: str) -> None:
    view, img, frames, cells, mask, heights = _board(top, shape)
    cfg = TopRimConfig(weight=1.0, slope=1.0)
    square = mask & (shape == "square")
    scores, scales = top_rim_scores(img, view, frames, heights, mask, square,
                                    mask & (top == "hollow"), cfg)
    assert scores.shape == (16, 2, len(scales))
    assert np.isnan(scores[~mask]).all() and np.isfinite(scores[mask]).all()
    llr = top_rim_evidence(scores, square, cfg)
    assert np.all(llr[~mask] == 0.0)
    # every piece's own height wins, with or without the board's shared width
    assert np.all((llr[cells] > 0) == TALL)
    alone = top_rim_evidence(scores, square, TopRimConfig(board_scale=False, slope=1.0))
    assert np.all((alone[cells] > 0) == TALL)
    assert np.all(np.abs(llr) <= cfg.max_nats)


def test_the_fused_heights_move_towards_the_outlines_and_only_on_steep_cells() -> None:
    view, img, frames, cells, mask, heights = _board("solid")
    feats = SimpleNamespace(frames=frames,
                            heights=SimpleNamespace(short_m=heights[0], tall_m=heights[1]))
    odds: list[dict[str, float | None]] = [
        {"color": 0.5, "shape": 0.1, "height": 0.5 if m else None, "top": 0.1} for m in mask]
    occ = [1.0 if m else 0.0 for m in mask]
    visible = [1.0] * 16
    out = with_top_rims(odds, occ, visible, img, view, feats,  # type: ignore[arg-type]
                        TopRimConfig(weight=1.0))
    got = np.array([o["height"] for o in out])[cells].astype(float)
    assert np.all((got > 0.5) == TALL)
    assert all(o["height"] is None for o, m in zip(out, mask, strict=True) if not m)
    # above every cell's elevation: nothing measured, nothing moves
    same = with_top_rims(odds, occ, visible, img, view, feats,  # type: ignore[arg-type]
                         TopRimConfig(weight=1.0, min_elevation_deg=89.0))
    assert same == odds


def test_a_wrong_pair_is_scaled_back_to_the_tops_displacement() -> None:
    """``TopRimConfig.pair_scales``: the hand's pair 0.75 / 1.2 times the painted heights
    (off in scale and in ratio) is taken back to within one step of the painted ones, and
    kept as it is where no piece is seen from below ``pair_max_elevation_deg``."""
    from vision.learn.fuse import top_rim_scaled_pair

    view, img, frames, cells, mask, heights = _board("solid", elevation_deg=68.0)
    wrong = (heights[0] * 0.75, heights[1] * 1.2)
    p_tall = np.where(mask, np.where(np.isin(np.arange(16), cells[TALL]), 0.8, 0.2), 0.5)
    ks = tuple(np.geomspace(0.5, 2.0, 13))
    cfg = TopRimConfig(pair_scales=ks)
    none = np.zeros(16, bool)
    scores, factors = top_rim_scaled_pair(img, view, frames, wrong, mask, none, none, p_tall,
                                          cfg)
    got = (wrong[0] * factors[0], wrong[1] * factors[1])
    step = ks[1] / ks[0]
    assert abs(np.log(got[0] / heights[0])) <= np.log(step) * 1.01
    assert abs(np.log(got[1] / heights[1])) <= np.log(step) * 1.01
    assert factors != (1.0, 1.0)
    # the evidence is then measured at the chosen pair: every piece's own height wins
    assert np.all((top_rim_evidence(scores, none, cfg)[cells] > 0) == TALL)
    # no piece below the voting elevation: the pair stays
    high = TopRimConfig(pair_scales=ks, pair_max_elevation_deg=60.0)
    _, kept = top_rim_scaled_pair(img, view, frames, wrong, mask, none, none, p_tall, high)
    assert kept == (1.0, 1.0)
