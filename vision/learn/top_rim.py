"""Tall or short from steep views by testing each height's top outline on the image.

From 60-90 degrees a piece's side is barely seen, so its height must come from its top face.
The top of a piece of height ``h`` lies on the plane ``z = h``: seen from a camera at height
``C`` it is ``C / (C - h)`` times larger than at the board and displaced away from the camera's
foot by ``h / (C - h)`` of its horizontal distance from it. Its rim (and a hollow piece's bore,
a sharp circle at the same height) is a closed edge of a known shape there. For each of the
set's two fitted heights (``HeightFit``) this module predicts that outline through the camera
model and measures the image contrast across it, on every cell seen steeply enough; a piece
behind, or the board, may lend an edge to part of a wrong outline but not to all of it.

Nuisances, shared by the two hypotheses (each hypothesis gets its best fit over them):

- the piece's offset from its cell centre (a hand puts it down a few millimetres off), with a
  Gaussian prior ``offset_sigma_m`` over a grid of ``offset_step_m``;
- the top's width (the set's footprint is known only to about 10 %; a square is 0.8-1.0 of a
  round piece's width): a grid of scales of the reader's footprint width. Per board each
  shape's pieces share one width: with ``board_scale``, a cell's width is the one the *other*
  pieces of its shape fit best (both heights allowed), so the 3-6 % by which a tall top
  looks larger than a short one counts, and the cell cannot pick its own width;
- a square's yaw (a grid over 90 degrees) and a bore's share of the width: the one that
  fits best on the cell's axis at either height and any width, then kept for both.

Each (hypothesis, nuisance) gets the mean Lab contrast across its outline, divided by the
best over everything for that cell (so dim and bright scenes behave alike); the
log-likelihood of a hypothesis is the log-sum-exp over the nuisances of that share over
``temperature`` plus the offset prior; the evidence is the tall minus the short
log-likelihood times ``slope``, clipped to ``max_nats``.

Session 38 (helper-38c); off by default (``LearnedReaderConfig.top_rim``).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.board_heights import logsumexp
from vision.learn.config import TopRimConfig
from vision.read.geometry import CellFrames

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def _lab_image(frame_bgr: NDArray[np.uint8], box: tuple[int, int, int, int]) -> NDArray[np.float32]:
    """Lab (L 0-100) of the frame inside ``box`` (x0, y0, x1, y1), float32."""
    x0, y0, x1, y1 = box
    crop = frame_bgr[y0:y1, x0:x1].astype(np.float32) / 255.0
    return np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2Lab), np.float32)


def _sample(lab: NDArray[np.float32], pts: FloatArray) -> NDArray[np.float32]:
    """Bilinear Lab samples at (..., 2) pixel points of the crop (border: replicated)."""
    flat = pts.reshape(-1, 2).astype(np.float32)
    mx = np.ascontiguousarray(flat[:, 0]).reshape(-1, 1)
    my = np.ascontiguousarray(flat[:, 1]).reshape(-1, 1)
    out = np.empty((len(flat), 3), np.float32)
    # cv2.remap takes at most 32767 points along one axis.
    step = 32000
    for s in range(0, len(flat), step):
        out[s:s + step] = cv2.remap(lab, mx[s:s + step], my[s:s + step], cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3)
    return out.reshape(*pts.shape[:-1], 3)


def _local_maps(view: BoardView, centres: FloatArray, heights: FloatArray
                ) -> tuple[FloatArray, FloatArray]:
    """Per cell and height: the image point of the cell axis at that height (16, H, 2) and the
    2x2 Jacobian of the projection of that plane there, pixels per metre (16, H, 2, 2). Within
    a piece's few centimetres the projection is affine to a twentieth of a pixel."""
    d = 1e-3
    n, nh = len(centres), len(heights)
    base = np.repeat(centres[:, None, :], nh, axis=1).copy()
    base[..., 2] = heights[None, :]
    pts = np.stack([base, base + np.array([d, 0.0, 0.0]), base + np.array([0.0, d, 0.0])],
                   axis=2)
    px = view.project(pts.reshape(-1, 3)).reshape(n, nh, 3, 2)
    jac = np.stack([(px[:, :, 1] - px[:, :, 0]) / d, (px[:, :, 2] - px[:, :, 0]) / d], axis=-1)
    return px[:, :, 0], jac


def _outline(shape_square: bool, yaw: float, n: int) -> tuple[FloatArray, FloatArray]:
    """Unit outline points (n, 2) and outward normals (n, 2) on the board's axes: a circle of
    radius 1, or a square of half-side 1 turned by ``yaw`` (its corners left out: real tops
    round them)."""
    if not shape_square:
        a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
        u = np.column_stack([np.cos(a), np.sin(a)])
        return u, u
    per = n // 4
    t = np.linspace(-0.75, 0.75, per)
    pts, nor = [], []
    for ax, ay in ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)):
        normal = np.array([ax, ay])
        along = np.array([-ay, ax])
        pts.append(normal[None, :] + t[:, None] * along[None, :])
        nor.append(np.repeat(normal[None, :], per, axis=0))
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.array([[c, -s], [s, c]])
    return np.vstack(pts) @ rot.T, np.vstack(nor) @ rot.T


def _outline_offsets(radii_m: FloatArray, offsets_m: FloatArray, unit: FloatArray,
                     normal: FloatArray, edge_m: float) -> FloatArray:
    """The inside and outside sample points (2, R, O, P, 2), metres on the board's axes from
    the cell's axis, of the outlines ``unit`` / ``normal`` (P, 2) scaled by each of ``radii_m``
    (R,) around each of ``offsets_m`` (O, 2); the same on every height's plane."""
    inner = radii_m[:, None, None, None] * unit[None, None] - edge_m * normal[None, None]
    outer = radii_m[:, None, None, None] * unit[None, None] + edge_m * normal[None, None]
    return np.asarray(np.stack([inner, outer]) + offsets_m[None, None, :, None, :])


def _contrasts(lab: NDArray[np.float32], planes: Sequence[tuple[FloatArray, FloatArray]],
               both: Sequence[FloatArray], spread_weight: float = 0.0) -> list[FloatArray]:
    """Mean Lab contrast across the outlines of every point set of ``both`` (each
    (2, ..., P, 2), inside and outside samples from :func:`_outline_offsets`) on every plane
    (its axis point ``origin`` (2,) and Jacobian (2, 2)) of ``planes``, less
    ``spread_weight`` times the mean Lab distance of the inside samples from their median (a
    top is one surface: its samples just inside the outline are alike); all sampled in one
    pass: a list over ``both`` of (len(planes), ...) arrays. Each value equals, to the last
    bit, what one plane and one set sampled alone give (one float64 matrix product per
    plane, whose sums do not depend on how many points it holds; each sample bilinear on its
    own; the same reductions along the outline): the test keeps that reference."""
    sizes = [b.size // 2 for b in both]
    flat = np.concatenate([b.reshape(-1, 2) for b in both]) if len(both) > 1 \
        else both[0].reshape(-1, 2)
    px = np.stack([(o + flat @ j.T).astype(np.float32) for o, j in planes])
    vals = _sample(lab, px)  # (H, N, 3)
    out = []
    start = 0
    for b, n in zip(both, sizes, strict=True):
        v = vals[:, start:start + n].reshape(len(planes), *b.shape[:-1], 3)
        start += n
        diff = v[:, 0] - v[:, 1]
        contrast = np.sqrt((diff ** 2).sum(axis=-1)).mean(axis=-1)
        if spread_weight > 0:
            inside = v[:, 0]
            mid = np.median(inside, axis=-2, keepdims=True)
            spread = np.sqrt(((inside - mid) ** 2).sum(axis=-1)).mean(axis=-1)
            contrast = contrast - spread_weight * spread
        out.append(np.asarray(contrast, np.float64))
    return out


def top_rim_scores(
    frame_bgr: NDArray[np.uint8], view: BoardView, frames: CellFrames, heights_m: Sequence[float],
    measure: BoolArray, square: BoolArray, hollow: BoolArray, config: TopRimConfig,
) -> tuple[FloatArray, FloatArray]:
    """Per cell, hypothesis (height) and width scale: the log-likelihood (16, H, S) of the
    outline fits, nuisances other than the width summed out (offset prior included), NaN
    where not measured; and the scales (S,) of the footprint width."""
    heights = np.asarray(heights_m, np.float64)
    scales = np.asarray(config.scales, np.float64)
    out = np.full((16, len(heights), len(scales)), np.nan)
    idx = np.flatnonzero(measure)
    if len(idx) == 0:
        return out, scales
    f = frames.footprint_m
    origin, jac = _local_maps(view, frames.centers_m[idx], heights)
    # Crop around every outline that will be sampled.
    reach = np.abs(jac).sum(axis=-1).max(axis=-1) * (0.75 * f * scales[-1]
                                                    + 3 * config.offset_step_m)
    lo = np.floor((origin - reach[..., None]).reshape(-1, 2).min(axis=0)).astype(int) - 2
    hi = np.ceil((origin + reach[..., None]).reshape(-1, 2).max(axis=0)).astype(int) + 2
    h_img, w_img = frame_bgr.shape[:2]
    x0, y0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
    x1, y1 = min(int(hi[0]), w_img), min(int(hi[1]), h_img)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return out, scales
    lab = _lab_image(frame_bgr, (x0, y0, x1, y1))
    shift = np.array([x0, y0], np.float64)
    k = round(config.max_offset_m / config.offset_step_m)
    g = np.arange(-k, k + 1) * config.offset_step_m
    offsets = np.array([(a, b) for a in g for b in g])
    log_prior = -0.5 * (offsets ** 2).sum(axis=1) / config.offset_sigma_m ** 2
    log_prior = log_prior - logsumexp(log_prior, axis=0)
    circle = _outline(False, 0.0, config.n_points)
    squares = [_outline(True, float(y), config.n_points)
               for y in np.radians(np.arange(0.0, 90.0, config.square_yaw_step_deg))]
    centre = np.zeros((1, 2))
    for n, i in enumerate(idx):
        # the edge's inside/outside samples a fixed number of pixels from the outline
        px_per_m = float(np.sqrt(abs(np.linalg.det(jac[n, 0]))))
        edge_m = config.edge_px / max(px_per_m, 1e-9)
        planes = [(origin[n, hk] - shift, jac[n, hk]) for hk in range(len(heights))]

        def best_of(candidates: list[FloatArray],
                    planes: list[tuple[FloatArray, FloatArray]] = planes) -> int:
            """Which outline (a square's yaw, a bore's size; ``candidates`` their points
            on the axis) fits best at any height and width, shared by the hypotheses."""
            if len(candidates) == 1:
                return 0
            fit = [float(np.max(c)) for c in _contrasts(lab, planes, candidates)]
            return int(np.argmax(fit))

        width = config.square_width * f if square[i] else f
        radii = 0.5 * width * scales
        rim = squares[best_of([_outline_offsets(radii, centre, *o, edge_m)
                               for o in squares])] if square[i] else circle
        main = [_outline_offsets(radii, offsets, *rim, edge_m)]
        if hollow[i]:
            # the bore's size (a share of the width), as the yaw: its best fit on the axis
            sizes = [0.5 * q * width * scales for q in config.bore_fractions]
            bore = sizes[best_of([_outline_offsets(r, centre, *circle, edge_m)
                                  for r in sizes])]
            main.append(_outline_offsets(bore, offsets, *circle, edge_m))
        c = _contrasts(lab, planes, main, config.inside_spread_weight)
        fits = c[0] if not hollow[i] else \
            (1.0 - config.bore_share) * c[0] + config.bore_share * c[1]
        fit = np.asarray(fits)  # (H, S, O)
        best = float(np.max(fit))
        if not np.isfinite(best) or best <= 0:
            continue
        ll = (fit - best) / best / config.temperature + log_prior[None, None, :]
        out[i] = logsumexp(ll, axis=2)
    return out, scales


def top_rim_evidence(
    scores: FloatArray, square: BoolArray, config: TopRimConfig,
) -> FloatArray:
    """(16,) log-likelihood ratio tall vs short from :func:`top_rim_scores` (``scores``
    (16, 2, S): short, tall), 0 where not measured. With ``config.board_scale`` each cell is
    judged at the width its shape's other measured pieces fit best (summed over their two
    heights), else (or with no such piece) summed over the widths."""
    out = np.zeros(16)
    measured: BoolArray = np.asarray(np.isfinite(scores).all(axis=(1, 2)))
    per_width = logsumexp(np.where(measured[:, None, None], scores, 0.0), axis=1)  # (16, S)
    for i in np.flatnonzero(measured):
        mates = measured & (square == square[i])
        mates[i] = False
        if config.board_scale and mates.any():
            s = int(np.argmax(per_width[mates].sum(axis=0)))
            llr = scores[i, 1, s] - scores[i, 0, s]
        else:
            llr = float(logsumexp(scores[i, 1], axis=0) - logsumexp(scores[i, 0], axis=0))
        out[i] = float(np.clip(config.slope * llr, -config.max_nats, config.max_nats))
    return out
