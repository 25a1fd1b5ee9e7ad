"""From candidate ellipses to 4x4 lattice hypotheses.

The 16 cell rings sit on a square lattice. Locally, perspective is an affine map, and a ring's
ellipse *is* that affine map applied to a circle: "whitening" the image with the ellipse's
shape turns the neighbourhood into a top-down view up to a rotation and a scale. Two
neighbouring rings therefore give the whole local lattice: the step to the neighbour, and the
same step turned by 90 degrees in the whitened frame. Other candidates that fall on the
predicted lattice are counted, and a homography is fitted to the best-supported hypotheses.

Grid coordinates: ring (m, n) has its centre at (m, n), m and n in 0..3 once a 4x4 window is
chosen; the homography ``H`` maps grid coordinates to work-image pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate.candidates import Ellipse
from vision.locate.config import LocateConfig

FloatArray = NDArray[np.float64]

_SPAN = 4  # rings per side
_SQRT2 = math.sqrt(2.0)
#: Full-grid (u, v) -> half-density diagonal lattice (m, n): node (m, n) of the diagonal
#: lattice is cell (m - n, m + n) of the grid.
_HALF_TO_FULL = np.array([[0.5, 0.5, 0.0], [-0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class LatticeHypothesis:
    """A grid homography supported by ``inliers`` candidate rings at integer ``grid`` nodes."""

    H: FloatArray
    grid: NDArray[np.int64]
    inliers: int
    radius: float  # ring radius (square cells: half-side) over pitch
    shape: str = "circle"
    #: What guessed it: ``rings`` (candidates on the lattice), ``outline`` (a board outline:
    #: rough, no cell seen) or ``peaks`` (the cell-centre network: every cell placed, each
    #: within a fraction of a pitch).
    source: str = "rings"
    #: Share of the outline points on edges within 2 px (``ring_support`` at ``tol_px=2``)
    #: of the grid as it stands, when already measured (the sizing of a peak lattice
    #: measures it); None when not.
    support: float | None = None


def usable_h(H: NDArray[Any] | None) -> bool:
    """A finite, invertible homography (fits from degenerate point sets are neither)."""
    if H is None or not np.all(np.isfinite(H)):
        return False
    return bool(abs(np.linalg.det(H)) > 1e-12 * max(1.0, float(np.abs(H).max()) ** 3))


def apply_h(H: NDArray[Any], pts: NDArray[Any]) -> FloatArray:
    """Map (N, 2) points through a 3x3 homography."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if len(p) < 64:
        q = p @ H[:, :2].T + H[:, 2]
        return q[:, :2] / _off_horizon(q[:, 2:3])
    # Many points: the same operations one column at a time (numpy's loops over rows of
    # three cost more than the matrix product).
    q = p @ H[:, :2].T
    wz = _off_horizon(q[:, 2] + H[2, 2])
    out = np.empty((len(p), 2))
    np.add(q[:, 0], H[0, 2], out=out[:, 0])
    np.add(q[:, 1], H[1, 2], out=out[:, 1])
    out /= wz[:, None]
    return out


def _off_horizon(w: FloatArray) -> FloatArray:
    """Homogeneous scales ``w`` kept at least 1e-12 from zero: points on the horizon of the
    plane stay finite (far away) instead of inf/nan."""
    if len(w) and not np.abs(w).min() >= 1e-12:
        near = np.abs(w) < 1e-12
        w = np.where(near, np.where(w < 0, -1e-12, 1e-12), w)
    return w


def window_nodes_near(points: FloatArray, H: FloatArray, tol: float,
                      ) -> tuple[NDArray[np.int64], FloatArray]:
    """Points within ``tol`` (grid units) of a node of the 4x4 window of grid ``H``: their
    indices and nodes."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0 or not usable_h(H):
        return np.zeros(0, np.int64), np.zeros((0, 2))
    g = apply_h(np.linalg.inv(H), pts)
    node = np.rint(g)
    ok = np.hypot(*(g - node).T) < tol
    ok &= np.all((node >= 0) & (node <= _SPAN - 1), axis=1)
    idx = np.flatnonzero(ok)
    return idx, node[idx]


def _affine_h(origin: FloatArray, e1: FloatArray, e2: FloatArray) -> FloatArray:
    return np.array([[e1[0], e2[0], origin[0]], [e1[1], e2[1], origin[1]], [0.0, 0.0, 1.0]])


@dataclass(frozen=True)
class _Candidates:
    """Per-candidate arrays used over and over by the lattice search (computed once)."""

    ells: list[Ellipse]
    centers: FloatArray  # (N, 2)
    axes: FloatArray  # (N,) semi-major axes
    size: FloatArray  # (N,) geometric-mean radius sqrt(a b)
    shapes: NDArray[np.str_]  # (N,) 'circle' | 'square'
    whitening: FloatArray  # (N, 2, 2)

    @classmethod
    def of(cls, ells: list[Ellipse]) -> _Candidates:
        return cls(
            ells,
            np.array([e.center for e in ells], dtype=np.float64).reshape(-1, 2),
            np.array([e.a for e in ells], dtype=np.float64),
            np.array([math.sqrt(e.a * e.b) for e in ells], dtype=np.float64),
            np.array([e.shape for e in ells]),
            np.array([e.whitening() for e in ells], dtype=np.float64).reshape(-1, 2, 2),
        )


def _seed_pairs(cands: _Candidates, config: LocateConfig) -> list[tuple[int, int, float]]:
    """Pairs (i, j) whose distance, in i's whitened frame, is one lattice step."""
    ells, centers, axes = cands.ells, cands.centers, cands.axes
    residual = np.array([e.residual for e in ells])
    ratio = np.array([e.ratio for e in ells])
    pairs: list[tuple[int, int, float]] = []
    for i, e in enumerate(ells):
        d = (centers - e.center) @ cands.whitening[i].T
        dist = np.hypot(d[:, 0], d[:, 1])
        size = axes / e.a
        ok = (dist >= config.min_pitch_over_radius) & (dist <= config.max_pitch_over_radius)
        ok &= (size > 1.0 / config.neighbour_size_ratio) & (size < config.neighbour_size_ratio)
        ok &= cands.shapes == e.shape
        ok[i] = False
        js = np.flatnonzero(ok)
        # Better pairs first: good fits, similar shapes.
        cost = e.residual + residual[js] + np.abs(ratio[js] - e.ratio)
        pairs.extend(zip([i] * len(js), js.tolist(), cost.tolist(), strict=True))
    pairs.sort(key=lambda p: p[2])
    return pairs[: config.max_seed_pairs]


def _collect(
    H: FloatArray, cands: _Candidates, radius: float, config: LocateConfig,
    shape: str = "circle", reach: int = 2 * _SPAN,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Candidates lying on integer nodes of the lattice ``H`` with the predicted ring size,
    at most ``reach`` steps (along either axis) from node (0, 0).

    Returns the indices of the candidates and their integer grid nodes.
    """
    if not usable_h(H):
        return np.zeros(0, np.int64), np.zeros((0, 2), np.int64)
    Hinv = np.linalg.inv(H)
    g = apply_h(Hinv, cands.centers)
    node = np.rint(g)
    err = np.hypot(*(g - node).T)
    ok = err < config.inlier_tol_pitch
    ok &= cands.shapes == shape
    ok &= np.all(np.abs(node) <= reach, axis=1)
    idx = np.flatnonzero(ok)
    if len(idx) == 0:
        return idx, np.zeros((0, 2), np.int64)
    # Expected ring size there: the image of a radius-sized step around the node.
    n0 = node[idx]
    k = len(idx)
    q = apply_h(H, np.concatenate([n0, n0 + np.array([radius, 0.0]),
                                   n0 + np.array([0.0, radius])]))
    px, py = q[k : 2 * k] - q[:k], q[2 * k :] - q[:k]
    expected = np.sqrt(np.abs(px[:, 0] * py[:, 1] - px[:, 1] * py[:, 0]))
    idx = idx[np.abs(cands.size[idx] / np.maximum(expected, 1e-9) - 1.0) < config.size_tol]
    if len(idx) == 0:
        return idx, np.zeros((0, 2), np.int64)
    # One candidate per node: the closest (the first of equals).
    nodes = node[idx]
    order = np.lexsort((idx, err[idx], nodes[:, 1], nodes[:, 0]))
    nd = nodes[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(nd[1:] != nd[:-1], axis=1)
    sel = np.sort(idx[order[first]])
    return sel, node[sel].astype(np.int64)


def lattice_hypotheses(ells: list[Ellipse], config: LocateConfig,
                       keep: int = 4) -> list[LatticeHypothesis]:
    """The best-supported lattice hypotheses, most inliers first.

    Parameters
    ----------
    ells : list of Ellipse
        Candidate rings (work pixels), best first.
    config : LocateConfig
        Lattice tolerances.
    keep : int
        How many distinct hypotheses to return.

    Returns
    -------
    list of LatticeHypothesis
        Grid nodes are not yet placed in a 4x4 window (they may be negative or exceed 3).
    """
    if len(ells) < 2:
        return []
    cands = _Candidates.of(ells)
    centers = cands.centers
    results: list[LatticeHypothesis] = []
    seen: set[tuple[frozenset[int], bool]] = set()
    # Seed pairs that are neighbours on a lattice already grown would grow it again.
    explained: set[tuple[int, int]] = set()
    for i, j, _ in _seed_pairs(cands, config):
        if (i, j) in explained:
            continue
        e = ells[i]
        W = cands.whitening[i]
        Winv = np.linalg.inv(W)
        v1 = W @ (centers[j] - e.center)
        radius = 1.0 / float(np.hypot(*v1))
        v2 = np.array([-v1[1], v1[0]])
        H = _affine_h(e.center, centers[j] - e.center, Winv @ v2)
        # Grow the lattice from the seed: perspective bends it away from the seed pair's
        # affine guess, so candidates are gathered one step further at a time and the
        # lattice refitted to them (a homography from 4 nodes on, else an affine map).
        idx, nodes = _collect(H, cands, radius, config, e.shape, reach=1)
        for reach in (1, 2, 3, 2 * _SPAN):
            if reach > 1:
                idx, nodes = _collect(H, cands, radius, config, e.shape, reach=reach)
            Hn = refit_lattice(nodes, centers[idx])
            if Hn is not None:
                H = Hn
        variants = [(H, radius)]
        if config.ring_radius_range[0] < radius * _SQRT2 < config.ring_radius_range[1]:
            # Rings this small may be every other cell of a grid seen along its diagonal
            # (the half-density lattice of a 45-degree board): the full grid has them all.
            variants.append((H @ _HALF_TO_FULL, radius * _SQRT2))
        for k, (Hv, rv) in enumerate(variants):
            if k > 0:
                for _ in range(2):
                    idx, nodes = _collect(Hv, cands, rv, config, e.shape)
                    Hn = refit_lattice(nodes, centers[idx])
                    if Hn is not None:
                        Hv = Hn
            hyp = _finish(Hv, rv, cands, config, e.shape, seen, explained, k > 0)
            if hyp is not None:
                results.append(hyp)
    results.sort(key=lambda h: -h.inliers)
    distinct: list[LatticeHypothesis] = []
    for h in results:
        c = apply_h(h.H, np.array([[1.5, 1.5]]))[0]
        if all(np.linalg.norm(c - apply_h(d.H, np.array([[1.5, 1.5]]))[0]) > 1.0 or
               d.inliers != h.inliers for d in distinct):
            distinct.append(h)
        if len(distinct) >= keep:
            break
    return distinct


def _finish(H: FloatArray, radius: float, cands: _Candidates, config: LocateConfig,
            shape: str, seen: set[tuple[frozenset[int], bool]],
            explained: set[tuple[int, int]], densified: bool) -> LatticeHypothesis | None:
    """The hypothesis of a grown lattice, or None when it is too small, already known, or
    bigger than a board. Marks the neighbouring pairs of a large lattice as ``explained``:
    along an axis (they would grow it again) and, when it is a board-sized hypothesis, along
    a diagonal (they would grow its half-density sub-lattice, whose full grid is this one).
    A densified lattice (see ``lattice_hypotheses``) may hold the same candidates as the
    lattice it came from and is still a different hypothesis."""
    idx, nodes = _collect(H, cands, radius, config, shape)
    big = len(idx) >= config.explaining_inliers
    step = np.abs(nodes[:, None, :] - nodes[None, :, :])
    if big:
        for a, b in zip(*np.nonzero(step.sum(axis=2) == 1), strict=True):
            explained.add((int(idx[a]), int(idx[b])))
    if len(idx) < config.min_lattice_inliers:
        return None
    key = (frozenset(idx.tolist()), densified)
    if key in seen:
        return None
    seen.add(key)
    inside = best_window_mask(nodes)
    if (~inside).sum() > config.max_outside_inliers:
        return None  # a lattice bigger than 4x4 (a tablecloth, tiles): not a Quarto grid
    if inside.sum() < config.min_lattice_inliers:
        return None
    if big:
        diagonal = (step[:, :, 0] == 1) & (step[:, :, 1] == 1)
        for a, b in zip(*np.nonzero(diagonal), strict=True):
            explained.add((int(idx[a]), int(idx[b])))
    return LatticeHypothesis(H, nodes[inside], len(idx), radius, shape)


def refit_lattice(nodes: NDArray[np.int64], centers: FloatArray) -> FloatArray | None:
    """Lattice homography through candidates at grid ``nodes``, or None when they do not fix
    one (fewer than 3, or all on one line).

    Projective once 5 nodes span at least 2 steps both ways; affine (least squares) before
    that: a perspective fitted to a few close nodes would extrapolate their centring noise.
    """
    g = nodes.astype(np.float64)
    if len(g) < 3 or np.linalg.matrix_rank(g - g.mean(axis=0), tol=1e-6) < 2:
        return None
    span = g.max(axis=0) - g.min(axis=0)
    if len(g) >= 5 and span.min() >= 2:
        H, _ = cv2.findHomography(g, centers, 0)
        return H if usable_h(H) else None
    X = np.column_stack([g, np.ones(len(g))])
    A, *_ = np.linalg.lstsq(X, centers, rcond=None)
    H = np.vstack([A.T, [0.0, 0.0, 1.0]])
    return H if usable_h(H) else None


def best_window_mask(nodes: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Mask of the nodes inside the 4x4 window that holds the most of them."""
    best = np.zeros(len(nodes), dtype=bool)
    lo = nodes.min(axis=0)
    hi = nodes.max(axis=0)
    for x0 in range(int(lo[0]), max(int(lo[0]), int(hi[0]) - _SPAN + 1) + 1):
        for y0 in range(int(lo[1]), max(int(lo[1]), int(hi[1]) - _SPAN + 1) + 1):
            m = ((nodes[:, 0] >= x0) & (nodes[:, 0] < x0 + _SPAN)
                 & (nodes[:, 1] >= y0) & (nodes[:, 1] < y0 + _SPAN))
            if m.sum() > best.sum():
                best = m
    return best


def window_offsets(grid: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Every shift putting all ``grid`` nodes inside 0..3 x 0..3."""
    lo, hi = grid.min(axis=0), grid.max(axis=0)
    return [
        (int(dx), int(dy))
        for dx in range(-int(lo[0]), _SPAN - int(hi[0]))
        for dy in range(-int(lo[1]), _SPAN - int(hi[1]))
    ]


def shift_h(H: FloatArray, offset: tuple[int, int]) -> FloatArray:
    """Homography for grid coordinates shifted by ``offset`` (node g becomes g + offset)."""
    T = np.array([[1.0, 0.0, -offset[0]], [0.0, 1.0, -offset[1]], [0.0, 0.0, 1.0]])
    return H @ T
