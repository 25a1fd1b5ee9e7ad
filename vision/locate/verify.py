"""Is a fitted grid a board? Support, contrast and plausibility measures.

Each measure reads the image only at the predicted cell outlines (a few hundred profile
samples), so judging a hypothesis costs little next to finding it:

- ``ring_support`` / ``per_cell_support``: the share of outline points on aligned edges;
- ``grid_contrast``: the same for the outlines moved half a cell (texture scores alike);
- ``contrast_clear_of_outline``: their difference away from the board's edge;
- ``best_window``: the 4x4 window with the most support in a 6x6 extension, and how much
  the ring of positions around it has (a pattern that goes on is not a board);
- ``chequer_contrast``: cell brightness alternating like a chequered cloth;
- ``diagonal_chequer``: the same cloth seen along its diagonals (cells of one colour);
- ``plausible_grid``: geometry no camera looking at a board would give.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.locate.fit import (
    GRID_NODES,
    EdgeConfig,
    NearArcs,
    edge_search,
    image_normals,
    outline_samples,
    ring_model_points,
    sample,
)
from vision.locate.lattice import apply_h

FloatArray = NDArray[np.float64]


def ring_support(gray_f: NDArray[np.float32], H: FloatArray, radius: float, config: EdgeConfig,
                 tol_px: float = 1.5) -> float:
    """Share of predicted cell-outline points with an image edge within ``tol_px`` of them."""
    return float(ring_support_radii(gray_f, H, np.array([radius]), config, tol_px)[0])


def ring_support_radii(gray_f: NDArray[np.float32], H: FloatArray, radii: FloatArray,
                       config: EdgeConfig, tol_px: float = 1.5) -> FloatArray:
    """:func:`ring_support` for several ring radii of one grid, in one edge search.

    Parameters
    ----------
    gray_f : (H, W) float32
        Smoothed grey image in the pixel frame of ``H``.
    H : (3, 3) float
        Grid (m, n) -> pixel homography.
    radii : (R,) float
        Ring radii over pitch.
    config : EdgeConfig
    tol_px : float

    Returns
    -------
    (R,) float
        The share of each radius's outline points on edges: the same numbers as
        ``ring_support`` one radius at a time (every point is searched on its own; one call
        saves the per-call work of many small ones).
    """
    model = [ring_model_points(float(r), config.samples_per_ring, config.shape) for r in radii]
    if not model:
        return np.zeros(0)
    pts = np.concatenate([m[0] for m in model])
    rad = np.concatenate([m[1] for m in model])
    px = apply_h(H, pts)
    off, _ = edge_search(gray_f, px, image_normals(H, pts, rad, pts_px=px), tol_px, config)
    return np.asarray(np.isfinite(off).reshape(len(model), -1).mean(axis=1), dtype=np.float64)


def near_arc_support(gray_f: NDArray[np.float32], Hs: list[FloatArray], radius: float,
                     arcs: NearArcs, config: EdgeConfig, tol_px: float = 1.5) -> FloatArray:
    """(len(Hs),) share of each grid's cell-outline points on the side facing the camera's
    foot (``arcs``; what pieces neither hide nor imitate) with an image edge within
    ``tol_px``; points outside the image count as missing. One edge search for all grids."""
    if not Hs:
        return np.zeros(0)
    pts, rad, _ = outline_samples(radius, config, GRID_NODES, arcs)
    px = np.concatenate([apply_h(H, pts) for H in Hs])
    nrm = np.concatenate([image_normals(H, pts, rad) for H in Hs])
    hit = _edges_in_image(gray_f, px, nrm, tol_px, config)
    return np.asarray(hit.reshape(len(Hs), -1).mean(axis=1), dtype=np.float64)


def _edges_in_image(gray_f: NDArray[np.float32], px: FloatArray, nrm: FloatArray,
                    tol_px: float, config: EdgeConfig) -> NDArray[np.bool_]:
    """Whether an image edge lies within ``tol_px`` of each point ``px`` along its normal
    ``nrm``; points outside the image count as missing."""
    h, w = gray_f.shape
    inside = (px[:, 0] >= 1) & (px[:, 0] < w - 1) & (px[:, 1] >= 1) & (px[:, 1] < h - 1)
    hit = np.zeros(len(px), dtype=bool)
    if inside.any():
        off, _ = edge_search(gray_f, px[inside], nrm[inside], tol_px, config)
        hit[inside] = np.isfinite(off)
    return hit


_HALF_CELL = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])


def near_arc_contrast(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                      foot: FloatArray, min_cos: float, config: EdgeConfig,
                      tol_px: float = 1.5) -> float:
    """``grid_contrast``'s difference (the cells' mean outline support less the same
    outlines moved half a cell) read on the near arcs only (``NearArcs(foot, min_cos)``:
    each outline's side facing the camera's ``foot``, grid units, and the moved outlines'
    sides facing the same point). Seen from low down a piece hides the far side of its own
    ring and the rings behind it, and its silhouette gives the moved outlines edges: the
    whole outlines' contrast falls on a crowded board, the near arcs' does not (the near
    side of a ring is in front of its piece's foot)."""
    shares = []
    for Hs, f in ((H, foot), (H @ _HALF_CELL, foot - 0.5)):
        pts, rad, cell = outline_samples(radius, config, GRID_NODES, NearArcs(f, min_cos))
        px = apply_h(Hs, pts)
        hit = _edges_in_image(gray_f, px, image_normals(Hs, pts, rad, pts_px=px), tol_px,
                              config)
        n = np.bincount(cell, minlength=len(GRID_NODES))
        on = np.bincount(cell, weights=hit, minlength=len(GRID_NODES))
        shares.append(float(np.mean(on[n > 0] / n[n > 0])) if (n > 0).any() else 0.0)
    return shares[0] - shares[1]


def cell_offsets(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                 config: EdgeConfig, tol_px: float = 1.5) -> FloatArray:
    """(16 * samples_per_ring,) edge offsets along the 16 cell outlines (``ring_model_points``
    order; NaN where no edge lies within ``tol_px``): what ``per_cell_support`` and
    ``contrast_clear_of_outline`` count, and what ``best_window`` finds for the window's
    own cells (``best_window``'s ``cells_out``)."""
    pts, rad = ring_model_points(radius, config.samples_per_ring, config.shape)
    px = apply_h(H, pts)
    nrm = image_normals(H, pts, rad, pts_px=px)
    off, _ = edge_search(gray_f, px, nrm, tol_px, config)
    return off


def per_cell_support(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                     config: EdgeConfig, tol_px: float = 1.5,
                     offsets: FloatArray | None = None) -> FloatArray:
    """(16,) share of each cell outline's points on aligned image edges. ``offsets``: the
    grid's ``cell_offsets`` at ``tol_px`` when the caller has them (the same numbers)."""
    off = cell_offsets(gray_f, H, radius, config, tol_px) if offsets is None else offsets
    return np.isfinite(off).reshape(len(GRID_NODES), -1).mean(axis=1)


def grid_contrast(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                  config: EdgeConfig, tol_px: float = 1.5,
                  offsets: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """Per-cell outline support of a grid and of the same outlines moved half a cell.

    On a board the first is high and the second low; on texture (wood grain, cloth, clutter)
    both are alike. ``offsets``: the grid's ``cell_offsets`` at ``tol_px``, when known.
    """
    return (per_cell_support(gray_f, H, radius, config, tol_px, offsets),
            per_cell_support(gray_f, H @ _HALF_CELL, radius, config, tol_px))


def contrast_clear_of_outline(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                              config: EdgeConfig, grid_to_board: FloatArray, half_side: float,
                              clearance: float, tol_px: float = 1.5,
                              offsets: FloatArray | None = None,
                              arcs: NearArcs | None = None) -> float:
    """Ring support minus half-cell-shifted support, over outline points clear of the board's
    edge.

    Parameters
    ----------
    grid_to_board : (3, 3) float
        Grid (m, n) -> board (x, y) map, pitch units, board centre at the origin.
    half_side : float
        Half the board's side, pitches.
    clearance : float
        Points (of the rings or of the shifted control) closer than this many pitches to
        the board's square outline are left out: an edge there is the board's, and a grid
        whose outer rings lie along any rectangle's outline (a box, a phone) would
        otherwise draw its ring evidence from that outline.
    offsets : (16 * samples_per_ring,) float, optional
        The grid's ``cell_offsets`` at ``tol_px``, when known: the rings' points are then
        not searched again (every point is searched on its own: the same numbers).
    arcs : NearArcs, optional
        Only the outlines' sides facing ``arcs.foot`` (grid units) are counted, the moved
        outlines' sides facing the same point (as in :func:`near_arc_contrast`).
    """
    pts, rad = ring_model_points(radius, config.samples_per_ring, config.shape)
    centres = GRID_NODES[np.repeat(np.arange(len(GRID_NODES)), len(pts) // len(GRID_NODES))]
    shares = []
    for shift in (0.0, 0.5):
        p = pts + shift
        q = apply_h(grid_to_board, p)
        keep = np.abs(np.abs(q).max(axis=1) - half_side) > clearance
        if arcs is not None:
            keep &= arcs.mask(p, rad, centres + shift)
        if not keep.any():
            return 0.0
        if shift == 0.0 and offsets is not None:
            off = offsets[keep]
        else:
            off, _ = edge_search(gray_f, apply_h(H, p[keep]),
                                 image_normals(H, p[keep], rad[keep]), tol_px, config)
        shares.append(float(np.isfinite(off).mean()))
    return shares[0] - shares[1]


def chequer_contrast(gray_f: NDArray[np.float32], H: FloatArray) -> float:
    """How strongly cell brightness alternates like a chessboard (t-like statistic, >= 0).

    A chequered cloth or tiled floor makes a perfect square lattice of "cells"; a Quarto
    board's cells all have the board's colour (pieces fall on no particular parity).
    """
    pts = apply_h(H, GRID_NODES)
    vals = sample(gray_f, pts[:, 0], pts[:, 1]).astype(np.float64)
    parity = (GRID_NODES.sum(axis=1) % 2).astype(bool)
    return _group_contrast(vals[parity], vals[~parity])


def _group_contrast(a: FloatArray, b: FloatArray) -> float:
    """Difference of two groups' mean brightness over their spread (+3 grey levels of
    noise): a t-like statistic, >= 0."""
    spread = math.sqrt(0.5 * (a.var() + b.var())) + 3.0
    return float(abs(a.mean() - b.mean()) / spread)


#: Between-cell points: the centres of the 3x3 squares of four neighbouring cells.
_BETWEEN = np.array([(m + 0.5, n + 0.5) for n in range(3) for m in range(3)], dtype=np.float64)


def _diamond_corner_points(k: int = 3) -> tuple[FloatArray, FloatArray]:
    """Grid points near the corners of the diamonds a chequer's squares make around each
    cell (vertices half a pitch out along the grid axes), with their outward normals. Only
    the outer thirds of each side are taken: there a ring's edge runs more than 35 degrees
    across the diamond's, so the edge search's alignment test drops it."""
    t = np.linspace(0.7, 0.9, k)
    u = np.concatenate([t, -t])[:, None] * (0.5 / math.sqrt(2.0))  # along a side, half 0.354
    offs, nrms = [], []
    for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        n = np.array([sx, sy], dtype=np.float64) / math.sqrt(2.0)
        offs.append(0.25 * np.array([sx, sy]) + u * np.array([-n[1], n[0]]))
        nrms.append(np.tile(n, (len(u), 1)))
    off, nrm = np.vstack(offs), np.vstack(nrms)
    pts = (GRID_NODES[:, None, :] + off[None]).reshape(-1, 2)
    return pts, np.tile(nrm, (len(GRID_NODES), 1))


_DIAMOND_PTS, _DIAMOND_NRM = _diamond_corner_points()


def diagonal_chequer(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                     config: EdgeConfig, max_contrast: float, tol_px: float = 1.5) -> bool:
    """True for a chequered cloth seen along its diagonals rather than a board.

    The squares of one colour of a chequer form a square lattice turned 45 degrees to the
    cloth's: every "cell" has the same colour, so :func:`chequer_contrast` sees no parity,
    and the centres between four cells are squares of the other colour. A board's cells
    hold pieces of both colours or the board's own; a board with filled discs has them
    round. So: cells that all differ alike from the points between them (the contrast, as
    in :func:`chequer_contrast`, above ``max_contrast``), outlined by straight diagonal
    edges more than by the fitted round outline.
    """
    cells = sample(gray_f, *apply_h(H, GRID_NODES).T).astype(np.float64)
    between = sample(gray_f, *apply_h(H, _BETWEEN).T).astype(np.float64)
    contrast = _group_contrast(cells, between)
    if contrast <= max_contrast:
        return False
    px = apply_h(H, _DIAMOND_PTS)
    off, _ = edge_search(gray_f, px, image_normals(H, _DIAMOND_PTS, _DIAMOND_NRM, pts_px=px),
                         tol_px, replace(config, mode="edge", polarity=0))
    diamonds = float(np.isfinite(off).mean())
    rings = ring_support(gray_f, H, radius, config, tol_px)
    # Where the two colours differ far beyond the bar, diamonds whose sides meet nearly as
    # many edges as the round outline are a chequer too: a wobbly cloth's squares fit a
    # circle about as well as a diamond.
    return diamonds > rings or (contrast > 2.0 * max_contrast and diamonds >= 0.8 * rings)


def plausible_grid(H: FloatArray, size_wh: tuple[int, int], min_pitch_px: float,
                   max_foreshortening: float) -> bool:
    """False for homographies no camera looking at a 4x4 grid would give.

    The extended grid (one ring beyond each side) must be in front of the camera, its image
    convex with a consistent orientation, the cell pitch at least ``min_pitch_px`` and the
    ratio of opposite side lengths of the 4x4 at most ``max_foreshortening``; the grid centre
    must be inside the image.
    """
    if not np.all(np.isfinite(H)):
        return False
    ext = np.array([[-1.0, -1.0], [4.0, -1.0], [4.0, 4.0], [-1.0, 4.0]])
    wz = ext @ H[2, :2] + H[2, 2]
    if not (np.all(wz > 0) or np.all(wz < 0)):
        return False
    q = apply_h(H, np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [0.0, 3.0]]))
    edges = np.roll(q, -1, axis=0) - q
    nxt = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)):
        return False
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    if lengths.min() < 3 * min_pitch_px:
        return False
    if max(lengths[0] / lengths[2], lengths[2] / lengths[0], lengths[1] / lengths[3],
           lengths[3] / lengths[1]) > max_foreshortening:
        return False
    c = apply_h(H, np.array([[1.5, 1.5]]))[0]
    return bool(0 <= c[0] < size_wh[0] and 0 <= c[1] < size_wh[1])


#: The 6x6 extended lattice ``best_window`` searches ((m, n), n outer), and the rows of its
#: 16 inner cells in ``GRID_NODES`` order.
_EXT_NODES = np.array([(m, n) for n in range(-1, 5) for m in range(-1, 5)], dtype=np.float64)
_EXT_INNER = np.array([(int(n) + 1) * 6 + int(m) + 1 for m, n in GRID_NODES])


def best_window(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                config: EdgeConfig, margin: float = 0.0,
                cells_out: list[FloatArray] | None = None,
                ) -> tuple[tuple[int, int], float, float]:
    """Shift of the 4x4 window, within one ring, that holds the most ring support.

    A lattice found from a few rings can be placed one row or column off; rings just outside
    the true board have little support (or are not there at all), so the window with the
    largest summed support over a 6x6 extended lattice is the board.

    A shift must gain ``margin`` (in whole outlines' worth of support) over the current
    window: the big circle and the board's edge pass through the positions just outside.

    Returns the shift, the mean support of the 16 cells in the best window and of the 20
    positions around it (high for a pattern that goes on: tiles, a chequered cloth).
    ``cells_out``: a list the grid's own 16 cells' edge offsets are appended to (as
    ``cell_offsets`` at 1.5 px gives them, points outside the image included).
    """
    pts, rad = ring_model_points(radius, config.samples_per_ring, config.shape, _EXT_NODES)
    px = apply_h(H, pts)
    h, w = gray_f.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    nrm = image_normals(H, pts, rad, pts_px=px)
    off, _ = edge_search(gray_f, px, nrm, 1.5, config)
    if cells_out is not None:
        cells_out.append(off.reshape(len(_EXT_NODES), -1)[_EXT_INNER].ravel())
    hit = (np.isfinite(off) & inside).reshape(36, -1).mean(axis=1)
    sup = hit.reshape(6, 6)  # [n + 1, m + 1]
    here = float(sup[1:5, 1:5].sum())
    best, best_off = here + margin, (0, 0)
    for oy in range(3):
        for ox in range(3):
            s = float(sup[oy : oy + 4, ox : ox + 4].sum())
            if s > best + 1e-9:
                best, best_off = s, (ox - 1, oy - 1)
    if best_off == (0, 0):
        best = here
    inner = best / 16.0
    outer = (float(sup.sum()) - best) / 20.0
    return best_off, inner, outer
