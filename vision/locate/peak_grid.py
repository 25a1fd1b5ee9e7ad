"""From the cell-centre network's peaks to 4x4 lattice hypotheses.

The peaks (``vision.locate.board_net``) are points, not ellipses: unlike a ring candidate a
point says nothing about the local lattice. Three peaks do: a seed and two of its nearest
peaks, in two different directions, span an affine lattice. It is grown one step at a time
(perspective bends it away from the seed's affine guess) by taking the peak nearest each
predicted node and refitting, and scored by the peaks inside its best 4x4 window. A board's 16
centres give one lattice with 16 peaks; a sheared basis of the same points or a lattice of
every other row holds fewer of them in a 4x4 window, so the count ranks the right one first.

The lattice fixes the cell centres, not the cell outlines: ``size_outlines`` picks the ring
radius on the image, then the finder fits and judges the grid like any other guess, counting
the peaks on it (``peaks_on_grid``) as its independent evidence and refusing a fit that left
the lattice (``drift_pitch``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.locate.board_net import cell_peaks, default_board_net
from vision.locate.config import LocateConfig
from vision.locate.fit import EdgeConfig
from vision.locate.lattice import (
    LatticeHypothesis,
    apply_h,
    best_window_mask,
    refit_lattice,
    usable_h,
    window_nodes_near,
)
from vision.locate.verify import ring_support_radii

FloatArray = NDArray[np.float64]

_SPAN = 4
#: The 16 nodes of a 4x4 window, and the 36 of the window with one ring of nodes around it.
_NODES = np.mgrid[0:_SPAN, 0:_SPAN].reshape(2, -1).T.astype(np.float64)
_AROUND = np.mgrid[-1:_SPAN + 1, -1:_SPAN + 1].reshape(2, -1).T.astype(np.float64)
#: The nodes within 1, 2 and 3 steps of a lattice's seed node, as ``_grow`` matches them.
_REACH_NODES = {reach: np.mgrid[-reach:reach + 1, -reach:reach + 1].reshape(2, -1).T
                .astype(np.float64) for reach in (1, 2, 3)}


def frame_peaks(frame: NDArray[np.uint8], scale: float, config: LocateConfig,
                ) -> tuple[FloatArray, FloatArray]:
    """The cell-centre network's peaks in a frame, in work pixels (the frame scaled by
    ``scale``), and their scores; none without the network (``use_board_net`` off, or no
    readable model file)."""
    net = default_board_net() if config.use_board_net else None
    if net is None:
        return np.zeros((0, 2)), np.zeros(0)
    peaks = cell_peaks(frame, net, min_score=config.peak_min_score,
                       max_peaks=config.peak_max_peaks, engine=config.board_net_engine,
                       input_width=config.board_net_input_width)
    return (peaks.points + 0.5) * scale - 0.5, peaks.scores


def peaks_on_grid(peaks: FloatArray, H: FloatArray, config: LocateConfig) -> int:
    """How many cells of the grid ``H`` hold a cell-centre peak (work pixels), with the
    tolerance a ring candidate has (``inlier_tol_pitch``): a peak counts like a ring found
    there."""
    _, nodes = window_nodes_near(peaks, H, config.inlier_tol_pitch)
    return len({(int(m), int(n)) for m, n in nodes})


def drift_pitch(H: FloatArray, H_ref: FloatArray) -> float:
    """Largest distance, in cells of ``H_ref``, between a cell centre of grid ``H`` and the
    same cell of ``H_ref`` (cell for cell: a grid moved by a whole row has drifted by one)."""
    if not usable_h(H_ref):
        return math.inf
    g = apply_h(np.linalg.inv(H_ref), apply_h(H, _NODES))
    return float(np.hypot(*(g - _NODES).T).max())


def size_outlines(hyps: list[LatticeHypothesis], gray_work: NDArray[np.float32],
                  edge: EdgeConfig, config: LocateConfig) -> list[LatticeHypothesis]:
    """Peak lattices place the cells, not their outlines: for each lattice and cell shape,
    the ring radius (of ``peak_radius_steps`` over ``ring_radius_range``) whose outlines
    meet the most image edges. One hypothesis per lattice and shape, carrying that support
    (2 px tolerance) for the finder's ranking."""
    out = []
    radii = np.linspace(*config.ring_radius_range, config.peak_radius_steps)
    for hyp in hyps:
        for shape in ("circle", "square"):
            e = replace(edge, shape=shape)
            support = ring_support_radii(gray_work, hyp.H, radii, e, tol_px=2.0)
            k = int(np.argmax(support))
            out.append(replace(hyp, radius=float(radii[k]), shape=shape,
                               support=float(support[k])))
    return out


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


class _Fits:
    """``_match`` and ``refit_lattice`` over one set of ``points``, each result kept by its
    exact inputs: lattices grown from different seeds (or one seed's successive reaches)
    often come to the same matches, and the same inputs give the same grid."""

    def __init__(self, points: FloatArray, tol: float) -> None:
        self.points, self.tol = points, tol
        self._matches: dict[tuple[bytes, bytes], tuple[NDArray[np.int64],
                                                       NDArray[np.int64]]] = {}
        self._refits: dict[tuple[bytes, bytes], FloatArray | None] = {}

    def match(self, H: FloatArray, nodes: FloatArray,
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        key = (np.ascontiguousarray(H).tobytes(), nodes.tobytes())
        if key not in self._matches:
            self._matches[key] = _match(H, nodes, self.points, self.tol)
        idx, matched = self._matches[key]
        return idx.copy(), matched.copy()

    def refit(self, nodes: NDArray[np.int64], idx: NDArray[np.int64]) -> FloatArray | None:
        key = (np.ascontiguousarray(nodes, dtype=np.int64).tobytes(),
               np.ascontiguousarray(idx, dtype=np.int64).tobytes())
        if key not in self._refits:
            self._refits[key] = refit_lattice(nodes, self.points[idx])
        H = self._refits[key]
        return None if H is None else H.copy()


def _grow(H: FloatArray, points: FloatArray, tol: float, fits: _Fits | None = None,
          ) -> tuple[FloatArray, NDArray[np.int64], NDArray[np.int64], int]:
    """Grow the lattice ``H`` (grid -> pixels) over ``points``: the nodes within 1, 2 and 3
    steps of the seed node (0, 0) are matched and the lattice refitted after each ring of
    nodes; then the 4x4 window holding most matches is matched and refitted alone (a point
    beyond it would pull the fit away from the board). Returns H with the window's first node
    at (0, 0), the matched point indices and their nodes (0..3), and how many points lie on
    the ring of nodes just outside the window (a board has none: its lattice ends).
    ``fits``: the matches and refits of earlier calls on the same points and tolerance."""
    fits = fits if fits is not None else _Fits(points, tol)
    idx = np.zeros(0, np.int64)
    nodes = np.zeros((0, 2), np.int64)
    for reach in (1, 2, 3):
        idx, nodes = fits.match(H, _REACH_NODES[reach])
        Hn = fits.refit(nodes, idx)
        if Hn is None:
            return H, idx[:0], nodes[:0], 0
        H = Hn
    inside = best_window_mask(nodes)
    lo = nodes[inside].min(axis=0)
    H = H @ np.array([[1.0, 0.0, lo[0]], [0.0, 1.0, lo[1]], [0.0, 0.0, 1.0]])
    fitted: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    for _ in range(2):
        fit_nodes, fit_idx = nodes[inside] - lo, idx[inside]
        if (fitted is not None and np.array_equal(fit_nodes, fitted[0])
                and np.array_equal(fit_idx, fitted[1])):
            break  # the same points again: the same grid and the same matches
        Hn = fits.refit(fit_nodes, fit_idx)
        if Hn is None:
            return H, idx[:0], nodes[:0], 0
        H, lo = Hn, np.zeros(2, np.int64)
        fitted = (fit_nodes, fit_idx)
        idx, nodes = fits.match(H, _AROUND)
        inside = np.all((nodes >= 0) & (nodes < _SPAN), axis=1)
    return H, idx[inside], nodes[inside], int((~inside).sum())


def _seed_lattices(points: FloatArray, explained: set[int], config: LocateConfig,
                   ) -> Iterator[FloatArray]:
    """Affine lattices (grid -> pixels) spanned by a seed peak and two of its nearest peaks
    in clearly different directions, strongest seeds first. ``explained`` is read as the
    search goes: a seed on a known lattice, or a pair both on one, is not tried."""
    d = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    for i in range(min(len(points), config.peak_seeds)):
        if i in explained:
            continue
        near = np.argsort(d[i])[: min(config.peak_neighbours, len(points) - 1)]
        for a_pos, j in enumerate(near):
            for k in near[a_pos + 1:]:
                if j in explained and k in explained:
                    continue  # the seed's lattice through them is known
                a, b = points[j] - points[i], points[k] - points[i]
                la, lb = math.hypot(*a), math.hypot(*b)
                sin = abs(a[0] * b[1] - a[1] * b[0]) / max(la * lb, 1e-9)
                ratio = la / max(lb, 1e-9)
                if (sin >= config.peak_min_sin
                        and 1.0 / config.peak_max_step_ratio < ratio < config.peak_max_step_ratio):
                    yield np.array([[a[0], b[0], points[i][0]], [a[1], b[1], points[i][1]],
                                    [0.0, 0.0, 1.0]])


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
    if len(points) < 3:
        return []
    found: list[tuple[float, int, FloatArray, NDArray[np.int64]]] = []
    explained: set[int] = set()
    fits = _Fits(points, config.peak_tol_pitch)
    for H0 in _seed_lattices(points, explained, config):
        H, idx, nodes, outside = _grow(H0, points, config.peak_tol_pitch, fits)
        if len(idx) < config.peak_min_inliers or not usable_h(H):
            continue
        if outside > config.max_outside_inliers:
            continue  # a lattice going on beyond 4x4: tiles or cloth, not a board
        found.append((float(scores[idx].sum()), len(idx), H, nodes))
        if len(idx) == _SPAN * _SPAN:
            break  # every cell has its peak: no lattice can hold more
        if len(idx) >= config.peak_full_lattice:
            explained.update(int(v) for v in idx)
    found.sort(key=lambda f: (-f[1], -f[0]))  # most peaks, then the surest
    distinct: list[tuple[float, int, FloatArray, NDArray[np.int64]]] = []
    for f in found:
        if any(_same_cells(f[2], g[2]) for g in distinct):
            continue  # the same 16 cells, numbered another way
        distinct.append(f)
        if len(distinct) >= config.peak_max_lattices:
            break
    radius = float(np.mean(config.ring_radius_range))
    return [LatticeHypothesis(H, grid, inliers, radius, "circle", source="peaks")
            for _, inliers, H, grid in distinct]


def _same_cells(Ha: FloatArray, Hb: FloatArray, tol: float = 0.25) -> bool:
    """Whether two 4x4 grids cover the same cells (numbered in any order): every cell of
    ``Ha`` within ``tol`` cells of a node of ``Hb``'s window."""
    g = apply_h(np.linalg.inv(Hb), apply_h(Ha, _NODES))
    node = np.rint(g)
    return bool(np.all(np.hypot(*(g - node).T) < tol)
                and np.all((node >= 0) & (node <= _SPAN - 1)))
