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


def _one_plane_contrast(lab, origin, jac, radii_m, offsets_m, unit, normal, edge_m,
                        spread_weight=0.0):
    """The reference: one outline set on one plane sampled alone, as ``top_rim`` did before
    session 39 sampled every set on every plane in one pass (``_contrasts``). Returns
    (R, O)."""
    from vision.learn.top_rim import _sample

    inner = radii_m[:, None, None, None] * unit[None, None] - edge_m * normal[None, None]
    outer = radii_m[:, None, None, None] * unit[None, None] + edge_m * normal[None, None]
    both = np.stack([inner, outer]) + offsets_m[None, None, :, None, :]  # (2, R, O, P, 2)
    px = (origin + both @ jac.T).astype(np.float32)
    vals = _sample(lab, px)
    diff = vals[0] - vals[1]
    contrast = np.sqrt((diff ** 2).sum(axis=-1)).mean(axis=-1)
    if spread_weight > 0:
        inside = vals[0]
        mid = np.median(inside, axis=-2, keepdims=True)
        spread = np.sqrt(((inside - mid) ** 2).sum(axis=-1)).mean(axis=-1)
        contrast = contrast - spread_weight * spread
    return np.asarray(contrast, np.float64)


@pytest.mark.parametrize("spread_weight", [0.0, 0.5])
def test_outlines_sampled_together_equal_each_sampled_alone_bit_for_bit(
        spread_weight: float) -> None:
    """``top_rim._contrasts`` (every outline set on every height's plane sampled in one
    pass, session 39) gives each plane's and set's contrast exactly as each sampled alone
    does (``_one_plane_contrast``): the scores, and so the readings, do not move."""
    from vision.learn.top_rim import _contrasts, _outline, _outline_offsets

    rng = np.random.default_rng(39)
    lab = rng.uniform(0.0, 100.0, (120, 140, 3)).astype(np.float32)
    g = np.arange(-2, 3) * 0.0015
    offsets = np.array([(a, b) for a in g for b in g])
    centre = np.zeros((1, 2))
    for _ in range(5):
        planes = [(rng.uniform(50.0, 90.0, 2), rng.normal(0.0, 1500.0, (2, 2)))
                  for _ in range(2)]
        edge_m = float(rng.uniform(3e-4, 8e-4))
        radii_a = rng.uniform(0.008, 0.012, 11)
        radii_b = 0.6 * radii_a
        square = _outline(True, float(rng.uniform(0.0, 1.5)), 24)
        circle = _outline(False, 0.0, 24)
        sets = [(radii_a, offsets, square), (radii_b, offsets, circle), (radii_a, centre, circle)]
        both = [_outline_offsets(r, o, *u, edge_m) for r, o, u in sets]
        got = _contrasts(lab, planes, both, spread_weight)
        for k, (r, o, u) in enumerate(sets):
            for h, (origin, jac) in enumerate(planes):
                alone = _one_plane_contrast(lab, origin, jac, r, o, *u, edge_m, spread_weight)
                assert got[k][h].shape == alone.shape
                assert np.array_equal(got[k][h], alone)
