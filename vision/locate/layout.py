"""Which layout is it, and how big is the board around its grid?

The 16 rings fix the grid but not the board around it: a Gigamic board's square is turned 45
degrees to the grid and holds a big circle; a home-made board's square runs along the grid.
Both hypotheses, over a range of side/pitch ratios, are scored by how many points of the
predicted outline (and big circle) lie on image edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL
from vision.locate.candidates import median
from vision.locate.config import LocateConfig
from vision.locate.fit import EdgeConfig, EdgeMatches, edge_search, image_normals
from vision.locate.lattice import apply_h

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class LayoutFit:
    """The chosen layout, its board side and big-circle radius (both over the pitch)."""

    layout: str
    side: float
    big_circle: float  # 0 when the board has none
    outline_score: float
    circle_score: float

    @property
    def frame_score(self) -> float:
        """How well the board around the grid is seen: its outline or its big circle."""
        if self.layout == LAYOUT_DIAGONAL:
            return max(self.outline_score, self.circle_score)
        return self.outline_score

    @property
    def rotation_deg(self) -> float:
        return 45.0 if self.layout == LAYOUT_DIAGONAL else 0.0


def board_to_grid(rotation_deg: float) -> FloatArray:
    """3x3 map from board (x, y) in pitch units to grid (m, n) coordinates."""
    a = math.radians(rotation_deg)
    c, s = math.cos(a), math.sin(a)
    # (m, n) = Rot(-a) (x, y) + 1.5
    return np.array([[c, s, 1.5], [-s, c, 1.5], [0.0, 0.0, 1.0]])


def _support_many(gray_f: NDArray[np.float32], H_grid: FloatArray, pts_b: FloatArray,
                  nrm_b: FloatArray, rotation_deg: float, edge: EdgeConfig,
                  tol_px: float) -> FloatArray:
    """Edge support of several outlines at once: ``pts_b`` (K, N, 2) board points (pitch
    units) with outward normals ``nrm_b``; returns (K,) shares of points on edges (points
    outside the image count as missing; an outline mostly outside scores 0)."""
    k, n, _ = pts_b.shape
    B = board_to_grid(rotation_deg)
    pts = apply_h(B, pts_b.reshape(-1, 2))
    rad = nrm_b.reshape(-1, 2) @ B[:2, :2].T
    px = apply_h(H_grid, pts)
    h, w = gray_f.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    nrm = image_normals(H_grid, pts, rad, pts_px=px)
    hit = np.zeros(len(px), dtype=bool)
    if inside.any():
        off, _ = edge_search(gray_f, px[inside], nrm[inside], tol_px, edge)
        hit[inside] = np.isfinite(off)
    score = hit.reshape(k, n).mean(axis=1)
    score[inside.reshape(k, n).mean(axis=1) < 0.5] = 0.0
    return np.asarray(score, dtype=np.float64)


def _square_points(side: float, n: int, span: float) -> tuple[FloatArray, FloatArray]:
    """Points along the middle ``span`` of a square's edges (corners left out)."""
    h = side / 2.0
    t = np.linspace(-span * h, span * h, n)
    pts, nrm = [], []
    for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if nx:
            pts.append(np.column_stack([np.full(n, nx * h), t]))
        else:
            pts.append(np.column_stack([t, np.full(n, ny * h)]))
        nrm.append(np.tile([nx, ny], (n, 1)).astype(np.float64))
    return np.vstack(pts), np.vstack(nrm)


def _circle_points(radius: float, n: int) -> tuple[FloatArray, FloatArray]:
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    u = np.column_stack([np.cos(a), np.sin(a)])
    return radius * u, u


def fit_layout(gray_f: NDArray[np.float32], H_grid: FloatArray, config: LocateConfig,
               edge: EdgeConfig, tol_px: float = 1.5) -> LayoutFit:
    """Score both layouts and a range of board sizes around a fitted grid.

    Parameters
    ----------
    gray_f : (H, W) float32
        Smoothed grey image in the frame of ``H_grid``.
    H_grid : (3, 3) float
        Grid (m, n) -> pixel homography, rings at integer nodes 0..3.
    config : LocateConfig
        Side and big-circle ranges.
    edge : EdgeConfig
    tol_px : float
        How far from a predicted point an edge may be.

    Returns
    -------
    LayoutFit
    """
    n = config.outline_samples
    best: dict[str, tuple[float, float]] = {}
    for layout, rng, rot in (
        (LAYOUT_DIAGONAL, config.diagonal_side_range, 45.0),
        (LAYOUT_AXIS, config.axis_side_range, 0.0),
    ):
        sides = np.arange(rng[0], rng[1] + 1e-9, config.side_step)
        unit_pts, unit_nrm = _square_points(1.0, n, config.outline_span)
        pts = sides[:, None, None] * unit_pts[None]
        nrm = np.broadcast_to(unit_nrm, pts.shape)
        scores = _support_many(gray_f, H_grid, pts, nrm, rot, edge, tol_px)
        k = int(np.argmax(scores))
        best[layout] = (float(scores[k]), float(sides[k]))
    # The big circle does not depend on the grid's rotation; its size is tied to the side.
    lo, hi = config.big_circle_range
    radii = np.arange(lo * config.diagonal_side_range[0], hi * config.diagonal_side_range[1],
                      config.side_step / 2)
    unit_pts, unit_nrm = _circle_points(1.0, 4 * n)
    pts = radii[:, None, None] * unit_pts[None]
    scores = _support_many(gray_f, H_grid, pts, np.broadcast_to(unit_nrm, pts.shape), 0.0,
                           edge, tol_px)
    k = int(np.argmax(scores))
    circle = (float(scores[k]), float(radii[k]))
    diag_score = max(best[LAYOUT_DIAGONAL][0], circle[0])
    if diag_score >= best[LAYOUT_AXIS][0]:
        side = best[LAYOUT_DIAGONAL][1]
        if best[LAYOUT_DIAGONAL][0] < circle[0]:
            side = circle[1] / config.circle_over_side  # outline hidden: the circle sets it
        return LayoutFit(LAYOUT_DIAGONAL, side, circle[1], best[LAYOUT_DIAGONAL][0], circle[0])
    return LayoutFit(LAYOUT_AXIS, best[LAYOUT_AXIS][1], 0.0, best[LAYOUT_AXIS][0], circle[0])


def frame_correspondences(
    gray_f: NDArray[np.float32], H_grid: FloatArray, lay: LayoutFit, edge: EdgeConfig,
    reach_px: float, *, min_share: float, tol_pitch: float, n: int, span: float,
) -> EdgeMatches:
    """Points of the board's outline and big circle (grid units) matched to image edge
    points, for fitting the camera with a wider base than the rings alone.

    The 16 rings span three pitches; the board's edges and big circle span five or more, so
    they measure the perspective (the camera's tilt and focal length) better. Their exact
    size relative to the grid is not known beforehand (``lay.side`` is a step of a search,
    and the edge found may be the top's or the side face's), so each side and the circle
    is a group whose offset the camera fit adjusts (``EdgeMatches.groups``), and each point
    counts across its outline only: the matches carry the outline's directions and shape,
    not a guessed size. A side (or the circle) with fewer than ``min_share`` of its points
    on edges is left out; points farther than ``tol_pitch`` from their side's median line
    (pieces, hands and shadows crossing the outline) too. Opposite sides are not tied to
    one offset: on renders that made the fit worse (the near side's edge is often the
    bottom of the board's side face).
    """
    B = board_to_grid(lay.rotation_deg)
    B_inv = np.linalg.inv(B)
    H_inv = np.linalg.inv(H_grid)
    outlines: list[tuple[FloatArray, FloatArray, str]] = []
    if lay.outline_score >= min_share:
        pts, nrm = _square_points(lay.side, n, span)
        for k in range(4):
            outlines.append((pts[k * n:(k + 1) * n], nrm[k * n:(k + 1) * n], "line"))
    if lay.layout == LAYOUT_DIAGONAL and lay.big_circle > 0 and lay.circle_score >= min_share:
        pts, nrm = _circle_points(lay.big_circle, 4 * n)
        outlines.append((pts, nrm, "circle"))
    flat = replace(edge, mode="edge", polarity=0)
    h, w = gray_f.shape
    board_out: list[FloatArray] = []
    image_out: list[FloatArray] = []
    normal_out: list[FloatArray] = []
    group_out: list[NDArray[np.int64]] = []
    dir_out: list[FloatArray] = []
    for pts_b, nrm_b, kind in outlines:
        g = apply_h(B, pts_b)
        px = apply_h(H_grid, g)
        inside = (px[:, 0] >= 1) & (px[:, 0] < w - 1) & (px[:, 1] >= 1) & (px[:, 1] < h - 1)
        if inside.mean() < min_share:
            continue
        nrm = image_normals(H_grid, g, nrm_b @ B[:2, :2].T, pts_px=px)
        off = np.full(len(px), np.nan)
        off[inside], _ = edge_search(gray_f, px[inside], nrm[inside], reach_px, flat)
        found = np.isfinite(off)
        if found.mean() < min_share:
            continue
        img = px[found] + nrm[found] * off[found, None]
        on_board = apply_h(B_inv, apply_h(H_inv, img))
        # Distance from the board centre across the outline: along the side's normal, or
        # the radius of the circle.
        line = kind == "line"
        d = on_board @ nrm_b[0] if line else np.hypot(on_board[:, 0], on_board[:, 1])
        c = median(d)
        keep = np.abs(d - c) <= tol_pitch
        if keep.sum() < min_share * len(pts_b):
            continue
        if line:
            direction = np.broadcast_to(nrm_b[0], on_board.shape)
            matched = on_board + (c - d)[:, None] * direction
        else:
            direction = on_board / np.maximum(d, 1e-9)[:, None]
            matched = direction * c
        board_out.append(apply_h(B, matched[keep]))
        image_out.append(img[keep])
        normal_out.append(nrm[found][keep])
        group_out.append(np.full(int(keep.sum()), len(group_out), np.int64))
        dir_out.append(direction[keep] @ B[:2, :2].T)
    if not board_out:
        return EdgeMatches(np.zeros((0, 2)), np.zeros((0, 2)))
    return EdgeMatches(np.vstack(board_out), np.vstack(image_out), np.vstack(normal_out),
                       np.concatenate(group_out), np.vstack(dir_out))


def near_frame_score(gray_f: NDArray[np.float32], H_grid: FloatArray, lay: LayoutFit,
                     foot: FloatArray, min_cos: float, config: LocateConfig,
                     edge: EdgeConfig, tol_px: float = 1.5) -> float:
    """``lay.frame_score`` read on the board's near side only: the points of its square
    outline (and, for the diagonal layout, of its big circle) whose outward normal makes at
    least ``min_cos`` with the direction to the camera's ``foot`` (grid units), at the
    layout's own side and circle radius.

    Seen from low down, the pieces stand in front of the board's far side and the far half
    of its big circle; the near side and the near half stay in view (a piece standing on a
    cell never hides the board's edge nearest the camera). The side and circle radius are
    the ones ``fit_layout`` chose on the whole outline."""
    rot = lay.rotation_deg
    to_board = np.asarray(np.linalg.inv(board_to_grid(rot)), dtype=np.float64)
    foot_b = apply_h(to_board, foot[None, :])[0]
    n = config.outline_samples

    def near(pts: FloatArray, nrm: FloatArray, rotation: float) -> float:
        d = foot_b[None, :] - pts
        cos = (nrm * d).sum(axis=1) / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)
        keep = cos >= min_cos
        if not keep.any():
            return 0.0
        return float(_support_many(gray_f, H_grid, pts[keep][None], nrm[keep][None],
                                   rotation, edge, tol_px)[0])

    unit_pts, unit_nrm = _square_points(1.0, n, config.outline_span)
    outline = near(lay.side * unit_pts, unit_nrm, rot)
    if lay.layout != LAYOUT_DIAGONAL or lay.big_circle <= 0:
        return outline
    c_pts, c_nrm = _circle_points(1.0, 4 * n)
    # The circle is round: the same in board and grid axes (``fit_layout`` scores it at 0).
    return max(outline, near(lay.big_circle * c_pts, c_nrm, rot))
