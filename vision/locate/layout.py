"""Which layout is it, and how big is the board around its grid?

The 16 rings fix the grid but not the board around it: a Gigamic board's square is turned 45
degrees to the grid and holds a big circle; a home-made board's square runs along the grid.
Both hypotheses, over a range of side/pitch ratios, are scored by how many points of the
predicted outline (and big circle) lie on image edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL
from vision.locate.config import LocateConfig
from vision.locate.fit import EdgeConfig, edge_search, image_normals
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
