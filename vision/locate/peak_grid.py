"""From the cell-centre network's peaks to 4x4 lattice hypotheses.

The peaks (``vision.locate.board_net``) are points, not ellipses: unlike a ring candidate a
point says nothing about the local lattice. Three peaks do: a seed and two of its nearest
peaks, in two different directions, span an affine lattice. It is grown one step at a time
(perspective bends it away from the seed's affine guess) by taking the peak nearest each
predicted node and refitting, and scored by the peaks inside its best 4x4 window. A board's 16
centres give one lattice with 16 peaks; a sheared basis of the same points or a lattice of
every other row holds fewer of them in a 4x4 window, so the count ranks the right one first.

The lattice fixes the cell centres, not the cell outlines: the finder sizes the outlines on
the image (``vision.locate.finder``), then fits and judges the grid like any other guess.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from vision.locate.config import LocateConfig
from vision.locate.lattice import (
    LatticeHypothesis,
    apply_h,
    best_window_mask,
    refit_lattice,
    usable_h,
)

FloatArray = NDArray[np.float64]

_SPAN = 4
#: The 16 nodes of a 4x4 window.
_NODES = np.mgrid[0:_SPAN, 0:_SPAN].reshape(2, -1).T.astype(np.float64)


def _match(H: FloatArray, nodes: FloatArray, points: FloatArray, tol: float,
           ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Points lying within ``tol`` (grid units: a share of the local step, whatever the
    perspective) of one of ``nodes`` of the lattice ``H``, the closest one per node: point
    indices and their nodes."""
    if not usable_h(H):
        return np.zeros(0, np.int64), np.zeros((0, 2), np.int64)
    g = apply_h(np.linalg.inv(H), points)
    node = np.rint(g)
    err = np.hypot(*(g - node).T)
    lo, hi = nodes.min(axis=0), nodes.max(axis=0)
    ok = (err < tol) & np.all((node >= lo) & (node <= hi), axis=1)
    idx = np.flatnonzero(ok)
    order = idx[np.lexsort((err[idx], node[idx, 1], node[idx, 0]))]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(node[order[1:]] != node[order[:-1]], axis=1)
    sel = np.sort(order[first])
    return sel, node[sel].astype(np.int64)


def _grow(H: FloatArray, points: FloatArray, tol: float,
          ) -> tuple[FloatArray, NDArray[np.int64], NDArray[np.int64]]:
    """Grow the lattice ``H`` (grid -> pixels) over ``points``: the nodes within 1, 2 and 3
    steps of the seed node (0, 0) are matched and the lattice refitted after each ring of
    nodes; then the 4x4 window holding most matches is matched and refitted alone (a point
    beyond it would pull the fit away from the board). Returns H with the window's first node
    at (0, 0), the matched point indices and their nodes (0..3)."""
    idx = np.zeros(0, np.int64)
    nodes = np.zeros((0, 2), np.int64)
    for reach in (1, 2, 3):
        g = np.mgrid[-reach:reach + 1, -reach:reach + 1].reshape(2, -1).T.astype(np.float64)
        idx, nodes = _match(H, g, points, tol)
        Hn = refit_lattice(nodes, points[idx])
        if Hn is None:
            return H, idx[:0], nodes[:0]
        H = Hn
    inside = best_window_mask(nodes)
    lo = nodes[inside].min(axis=0)
    H = H @ np.array([[1.0, 0.0, lo[0]], [0.0, 1.0, lo[1]], [0.0, 0.0, 1.0]])
    for _ in range(2):
        Hn = refit_lattice(nodes[inside] - lo, points[idx[inside]])
        if Hn is None:
            return H, idx[:0], nodes[:0]
        H, lo = Hn, np.zeros(2, np.int64)
        idx, nodes = _match(H, _NODES, points, tol)
        inside = np.ones(len(idx), dtype=bool)
    return H, idx, nodes


def peak_hypotheses(points: FloatArray, scores: FloatArray, config: LocateConfig,
                    ) -> list[LatticeHypothesis]:
    """Lattice hypotheses through the cell-centre peaks, best first.

    Parameters
    ----------
    points : (N, 2) peak positions (work pixels), strongest first.
    scores : (N,) peak probabilities.
    config : LocateConfig
        ``peak_seeds``, ``peak_neighbours``, ``peak_tol_pitch``, ``peak_min_inliers``,
        ``peak_full_lattice``, ``peak_max_lattices``.

    Returns
    -------
    list of LatticeHypothesis
        Grids placed in their 4x4 window (nodes 0..3), one per distinct lattice; ``inliers``
        counts the peaks on it; radius and shape are placeholders (the middle of
        ``ring_radius_range``, circles).
    """
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    n = len(points)
    if n < 3:
        return []
    d = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    found: list[tuple[float, int, FloatArray, NDArray[np.int64]]] = []
    explained: set[int] = set()
    for i in range(min(n, config.peak_seeds)):
        if i in explained:
            continue
        near = np.argsort(d[i])[: min(config.peak_neighbours, n - 1)]
        for a_pos, j in enumerate(near):
            for k in near[a_pos + 1:]:
                if j in explained and k in explained:
                    continue  # the seed's lattice through them is known
                a, b = points[j] - points[i], points[k] - points[i]
                la, lb = math.hypot(*a), math.hypot(*b)
                sin = abs(a[0] * b[1] - a[1] * b[0]) / max(la * lb, 1e-9)
                if sin < config.peak_min_sin or not 1 / 3 < la / max(lb, 1e-9) < 3:
                    continue
                H0 = np.array([[a[0], b[0], points[i][0]], [a[1], b[1], points[i][1]],
                               [0.0, 0.0, 1.0]])
                H, idx, nodes = _grow(H0, points, config.peak_tol_pitch)
                if len(idx) < config.peak_min_inliers or not usable_h(H):
                    continue
                found.append((float(scores[idx].sum()), len(idx), H, nodes))
                if len(idx) >= config.peak_full_lattice:
                    explained.update(int(v) for v in idx)
            if found and max(f[1] for f in found) == _SPAN * _SPAN:
                break  # every cell has its peak: no lattice can hold more
        if found and max(f[1] for f in found) == _SPAN * _SPAN:
            break
    found.sort(key=lambda f: (-f[1], -f[0]))  # most peaks, then the surest
    distinct: list[tuple[float, int, FloatArray, NDArray[np.int64]]] = []
    for f in found:
        cells = apply_h(f[2], _NODES)
        if any(_same_cells(cells, apply_h(g[2], _NODES)) for g in distinct):
            continue  # the same 16 cells, numbered another way
        distinct.append(f)
        if len(distinct) >= config.peak_max_lattices:
            break
    radius = float(np.mean(config.ring_radius_range))
    return [LatticeHypothesis(H, grid, inliers, radius, "circle", source="peaks")
            for _, inliers, H, grid in distinct]


def _same_cells(a: FloatArray, b: FloatArray, tol_px: float = 1.5) -> bool:
    """Whether two sets of cell centres coincide (each point of ``a`` near one of ``b``)."""
    d = np.hypot(*(a[:, None, :] - b[None, :, :]).transpose(2, 0, 1))
    return bool(d.min(axis=1).max() < tol_px)
