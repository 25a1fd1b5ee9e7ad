"""Fitting the grid homography to the image's ring edges, and measuring how well it fits.

Each of the 16 predicted rings is sampled at a few angles; along the image normal of the ring
at each sample the intensity profile is read, and the strongest edge within a search distance
is taken as where the ring really is. A homography is then fitted (robustly: pieces and hands
give wrong edges) to the grid points and the found edge points, and the search distance
shrinks. This is ICP for a known planar pattern; it needs no contour detection, so rings that
were too faint or too broken to be candidates still pull the fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate.candidates import median
from vision.locate.lattice import apply_h, usable_h

FloatArray = NDArray[np.float64]

GRID_NODES = np.array([(m, n) for n in range(4) for m in range(4)], dtype=np.float64)


def sample(image: NDArray[Any], xs: NDArray[Any], ys: NDArray[Any]) -> NDArray[np.float32]:
    """Bilinear samples of ``image`` at float coordinates of any shape (grey values for a
    BGR image). ``cv2.remap`` limits map sizes, so the points go in rows of 1024."""
    shape = np.shape(xs)
    n = int(np.prod(shape))
    maps = _maps(n)
    maps[0, :n] = np.ravel(xs)
    maps[1, :n] = np.ravel(ys)
    return _remap_maps(image, maps, n).reshape(shape)


def _maps(n: int) -> NDArray[np.float32]:
    """(2, rows * 1024) float32 remap coordinates for ``n`` points, zero past the ``n``th:
    ``cv2.remap`` limits map sizes, so the points go in rows of 1024."""
    cols = 1024
    size = max(1, -(-n // cols)) * cols
    maps = np.empty((2, size), np.float32)
    maps[:, n:] = 0.0
    return maps


def _remap_maps(image: NDArray[Any], maps: NDArray[np.float32], n: int) -> NDArray[np.float32]:
    """(n,) bilinear samples of ``image`` at the first ``n`` points of ``_maps``."""
    rows = maps.shape[1] // 1024
    out = cv2.remap(image, maps[0].reshape(rows, 1024), maps[1].reshape(rows, 1024),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if out.dtype != np.float32:
        out = out.astype(np.float32)
    if out.ndim == 3:
        out = out @ np.array([0.114, 0.587, 0.299], np.float32)
    return out.ravel()[:n]


@dataclass(frozen=True)
class EdgeConfig:
    """Knobs of the edge search; set from :class:`LocateConfig` by the finder."""

    samples_per_ring: int = 24
    #: Smallest directional intensity step (grey levels per pixel) that counts as an edge.
    min_edge: float = 4.0
    #: Profile step, pixels.
    step_px: float = 0.5
    #: Largest ratio of the intensity change along the outline to the change across it at a
    #: found edge (tan 35 degrees): an edge must run along the outline. 0 disables the test.
    max_tangent_ratio: float = 0.7
    #: Cell outline: 'circle' (rings, discs) or 'square' (square cells along the grid).
    shape: str = "circle"
    #: What marks the outline: 'edge' (a step: discs, recesses) or 'line' (a thin printed
    #: or engraved line: a ridge or a valley in the profile). '' = decide from the image.
    mode: str = ""
    #: Edge: 1 brighter outwards, -1 darker; line: 1 a bright line, -1 a dark one; 0 either.
    polarity: int = 0
    #: Half-width of the line detector (pixels): the line's width up to about twice this.
    line_halfwidth_px: float = 1.5
    #: Smallest line contrast (grey levels) against both sides.
    min_line: float = 3.0
    #: Cell radius over pitch the fit may settle on; outside it the previous one is kept.
    radius_range: tuple[float, float] = (0.34, 0.53)
    #: RANSAC iterations of the quick look at each marking before the full fits (0: every
    #: marking fitted fully). RANSAC on a marking that is not the board's (texture, the
    #: other side of a line) runs all its 200 iterations; the board's converges in a few.
    marking_screen_iters: int = 40
    #: A marking is fitted fully only when its quick look found at least this share of
    #: the inliers of the best marking fitted so far (a quick look finds fewer).
    marking_screen_ratio: float = 0.7
    #: When the marking with most RANSAC inliers is an edge (a step, which a piece's foot and
    #: silhouette make too), a line marking (a thin printed or engraved ring, which no piece
    #: makes) wins instead when its own inliers are at least this share of the edge's; the
    #: line of the two polarities with more inliers. 0 disables (``LocateConfig.
    #: marking_line_share``).
    line_share: float = 0.0
    #: A line must stand out from both of its sides by ``min_line`` (a ridge or a valley):
    #: the contrast is the smaller of the two steps to either side, not the step to their
    #: mean, so a step edge (a piece's silhouette) is no line at all. False: the mean
    #: (``LocateConfig.line_both_sides``).
    line_both_sides: bool = False
    #: The quick look at each marking is the count of its edges found within the inlier
    #: distance of the grid being fitted (no fit at all) instead of ``marking_screen_iters``
    #: RANSAC iterations (``LocateConfig.marking_screen_near``).
    screen_near: bool = False
    #: Choose the marking by the cells it agrees on: the one with most cells holding at
    #: least this share of their outline samples as RANSAC inliers (then most inliers);
    #: 0: most inliers in all (``LocateConfig.marking_cell_share``).
    cell_share: float = 0.0


def cell_outline(radius: float, n: int, shape: str = "circle") -> tuple[FloatArray, FloatArray]:
    """(n, 2) offsets of one cell's outline from its centre (grid units) and outward normals.

    A circle of ``radius``, or a square of half-side ``radius`` with sides along the grid.
    """
    if shape == "square":
        k = max(1, n // 4)
        t = (np.arange(k) + 0.5) / k * 1.6 - 0.8  # leave the corners out
        offs, nrms = [], []
        for nx, ny in ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)):
            # Along the side: the normal plus t times the tangent (-ny, nx).
            offs.append(radius * np.column_stack([nx - ny * t, ny + nx * t]))
            nrms.append(np.tile([nx, ny], (k, 1)))
        return np.vstack(offs), np.vstack(nrms).astype(np.float64)
    if shape != "circle":
        raise ValueError(f"shape must be 'circle' or 'square', got {shape!r}")
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    radial = np.column_stack([np.cos(a), np.sin(a)])
    return radius * radial, radial


def ring_model_points(radius: float, n: int, shape: str = "circle",
                      nodes: FloatArray = GRID_NODES) -> tuple[FloatArray, FloatArray]:
    """Grid-plane points on the cell outlines at ``nodes`` and their outward unit normals.

    For the 16 cells (``GRID_NODES``, the default) the arrays are cached and read-only: the
    same radii come back frame after frame (the sizing steps of the network's lattices).
    """
    if nodes is GRID_NODES:
        return _grid_ring_points(float(radius), int(n), shape)
    return _ring_points(radius, n, shape, nodes)


def _ring_points(radius: float, n: int, shape: str,
                 nodes: FloatArray) -> tuple[FloatArray, FloatArray]:
    off, nrm = cell_outline(radius, n, shape)
    pts = (nodes[:, None, :] + off[None, :, :]).reshape(-1, 2)
    return pts, np.tile(nrm, (len(nodes), 1))


@lru_cache(maxsize=256)
def _grid_ring_points(radius: float, n: int, shape: str) -> tuple[FloatArray, FloatArray]:
    pts, nrm = _ring_points(radius, n, shape, GRID_NODES)
    pts.setflags(write=False)
    nrm.setflags(write=False)
    return pts, nrm


def image_normals(H: FloatArray, pts: FloatArray, radial: FloatArray,
                  eps: float = 1e-3, *, pts_px: FloatArray | None = None) -> FloatArray:
    """Unit image directions of small steps along ``radial`` from ``pts`` (grid plane).
    ``pts_px``: ``apply_h(H, pts)`` when the caller has it already (saves mapping twice)."""
    p0 = apply_h(H, pts) if pts_px is None else pts_px
    p1 = apply_h(H, pts + eps * radial)
    d = p1 - p0
    return d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)[:, None]


class NearArcs(NamedTuple):
    """Keep only the part of each cell outline that faces the camera's foot.

    A piece stands on its cell and leans, in the image, away from the point of the board
    below the camera (its foot): its body and top cover the far side of its ring, and a round
    top (about the ring's size, lifted and enlarged by perspective) draws a circle just where
    the far side of the ring would be. The near side stays in view, and no top can imitate
    it: the top's near edge lies inside the ring. ``foot`` is that point in grid units;
    an outline sample is kept when its outward normal makes at least ``min_cos`` with the
    direction to the foot (cells within half a pitch of the foot keep every sample: their
    pieces barely lean).
    """

    foot: FloatArray
    min_cos: float

    def mask(self, pts: FloatArray, radial: FloatArray, centres: FloatArray) -> NDArray[np.bool_]:
        """Which of the outline points ``pts`` (normals ``radial``, cell centres
        ``centres``, all (N, 2) grid units) to keep."""
        d = self.foot[None, :] - centres
        dist = np.hypot(d[:, 0], d[:, 1])
        cos = (radial * d).sum(axis=1) / np.maximum(dist, 1e-9)
        return np.asarray((cos >= self.min_cos) | (dist < 0.5))


def edge_search(
    gray_f: NDArray[Any], pts_px: FloatArray, normals: FloatArray, reach_px: float,
    config: EdgeConfig, polarity: int | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Strongest edge along each normal within ``reach_px``.

    Parameters
    ----------
    gray_f : (H, W) float32 or uint8, or (H, W, 3) uint8 BGR
        Smoothed grey image (a BGR frame is sampled and converted point by point).
    pts_px, normals : (N, 2) float
        Start points (pixels) and unit search directions.
    reach_px : float
        Search half-length.
    config : EdgeConfig
    polarity : {None, 0, 1, -1}
        None: the config's. 0: either; edges: 1 brighter along the normal, -1 darker;
        lines: 1 bright, -1 dark.

    Returns
    -------
    offset : (N,) float
        Signed sub-pixel offset of the edge along the normal (NaN where none).
    strength : (N,) float
        Its directional gradient magnitude (grey levels per pixel).
    """
    pol = config.polarity if polarity is None else polarity
    return edge_search_polarities(gray_f, pts_px, normals, reach_px, config, (pol,))[0]


def edge_search_polarities(
    gray_f: NDArray[Any], pts_px: FloatArray, normals: FloatArray, reach_px: float,
    config: EdgeConfig, polarities: tuple[int, ...],
) -> list[tuple[FloatArray, FloatArray]]:
    """:func:`edge_search` for several polarities of one marking (``config.mode``): the
    profiles are sampled and differentiated once, and each polarity's results are those
    ``edge_search`` gives for it."""
    s = config.step_px
    mode = config.mode or "edge"
    pad = s + (config.line_halfwidth_px if mode == "line" else 0.0)
    t = np.arange(-reach_px - pad, reach_px + pad + 1e-9, s)
    # Profiles are laid out (step, point): numpy's loops then run along the many points
    # rather than the few steps (the same numbers, computed about 10% faster). Each
    # coordinate is computed in float64 and written straight into the float32 remap map
    # (the same rounding as ``sample``'s copy, without the float64 array in between).
    n_t, n_pts = len(t), len(pts_px)
    n = n_t * n_pts
    maps = _maps(n)
    for c in range(2):
        np.add(pts_px[:, c], normals[:, c] * t[:, None],
               out=maps[c, :n].reshape(n_t, n_pts), casting="same_kind")
    prof = _remap_maps(gray_f, maps, n).reshape(n_t, n_pts)
    if mode == "line":
        k_w = max(1, round(config.line_halfwidth_px / s))
        if config.line_both_sides:
            # Signed: the smaller step for a bright line, the larger (less negative) one
            # for a dark line; each polarity below reads its own side of zero.
            up = prof[k_w:-k_w] - prof[: -2 * k_w]
            down = prof[k_w:-k_w] - prof[2 * k_w :]
            lo, hi = np.minimum(up, down), np.maximum(up, down)
            diff = np.where(lo > 0, lo, np.where(hi < 0, hi, 0.0))
        else:
            diff = prof[k_w:-k_w] - 0.5 * (prof[: -2 * k_w] + prof[2 * k_w :])
        tt = t[k_w:-k_w]
        threshold = config.min_line
    else:
        diff = (prof[2:] - prof[:-2]) / (2 * s)
        tt = t[1:-1]
        threshold = config.min_edge
    # Prefer edges near the prediction a little, so a stronger edge far away does not win
    # over the ring right where it should be.
    w = 1.0 - 0.3 * (np.abs(tt) / max(reach_px, 1e-9))
    last = diff.shape[0] - 1
    points = np.arange(n_pts)
    results = []
    for pol in polarities:
        d = np.abs(diff) if pol == 0 else np.maximum(pol * diff, 0.0)
        # The weighted profiles written point by point (C order), so the argmax runs along
        # contiguous rows instead of numpy copying the transposed product first.
        k = np.argmax(np.multiply(d.T, w, order="C"), axis=1)
        # (Values gathered from the flat array: the same numbers as d[k, points], faster.)
        flat = d.ravel()
        strength = flat[k * n_pts + points]
        offset = np.full(len(k), np.nan)
        # Only where the edge is strong enough is it placed and checked.
        ok = np.flatnonzero(strength >= threshold)
        if len(ok):
            k_ok = k[ok]
            # Parabolic sub-sample peak.
            at_k = k_ok * n_pts + ok
            y0 = flat[np.where(k_ok > 0, at_k - n_pts, at_k)]
            y2 = flat[np.where(k_ok < last, at_k + n_pts, at_k)]
            y1 = strength[ok]
            den = y0 - 2 * y1 + y2
            frac = np.where(np.abs(den) > 1e-9,
                            0.5 * (y0 - y2) / np.where(den == 0, 1, den), 0.0)
            frac = np.minimum(np.maximum(frac, -0.5), 0.5)
            off_ok = tt[k_ok] + frac * s
            if config.max_tangent_ratio > 0:
                # The edge must run along the outline: across the normal the intensity
                # hardly changes. Texture (wood grain, cloth) crosses the outline at random
                # angles. Sampled one pixel to either side along the tangent (-ny, nx).
                m = len(ok)
                nx, ny = normals[ok, 0], normals[ok, 1]
                ax = pts_px[ok, 0] + nx * off_ok
                ay = pts_px[ok, 1] + ny * off_ok
                maps = _maps(2 * m)
                maps[0, :m] = ax - ny
                maps[0, m:2 * m] = ax + ny
                maps[1, :m] = ay + nx
                maps[1, m:2 * m] = ay - nx
                side = _remap_maps(gray_f, maps, 2 * m)
                keep = np.abs(side[:m] - side[m:]) / 2.0 <= config.max_tangent_ratio * y1
                ok, off_ok = ok[keep], off_ok[keep]
            offset[ok] = off_ok
        results.append((offset, strength))
    return results


def fit_rings(
    gray_f: NDArray[np.float32], H: FloatArray, radius: float, reaches: tuple[float, ...],
    config: EdgeConfig, nodes: FloatArray = GRID_NODES, measure: bool = True,
    arcs: NearArcs | None = None,
) -> tuple[FloatArray, float, float, EdgeConfig]:
    """Refine a grid homography and ring radius against the image's ring edges.

    Parameters
    ----------
    gray_f : (H, W) float32
        Smoothed grey image in the pixel frame of ``H``.
    H : (3, 3) float
        Grid (m, n) -> pixel homography; ring (m, n) centred at (m, n).
    radius : float
        Ring radius over pitch.
    reaches : tuple of float
        Search half-lengths (pixels) of the successive rounds, decreasing.
    config : EdgeConfig
    nodes : (K, 2) float
        Grid nodes of the cells whose outlines are matched (default: all 16).
    measure : bool
        Measure the fitted outlines' support (one more profile read); without it the
        returned support is NaN (callers that only want the grid save the reads).
    arcs : NearArcs, optional
        Match only the outline samples facing the camera's foot (the support measured
        over the same samples).

    Returns
    -------
    H : (3, 3) float
    radius : float
    support : float
        Share of sample points with an edge within 1.5 px of the fitted rings (0..1).
    config : EdgeConfig
        ``config`` with the outline's marking (``mode``, ``polarity``) decided.

    Notes
    -----
    Unless the config fixes them, the first round tries edges and lines of both polarities
    and keeps the one whose matches most agree on one homography (RANSAC inliers): one
    marking for all cells (say, the outer side of every printed ring). Texture and piece
    silhouettes come in all kinds, so most of them drop out, and the fit never mixes the two
    sides of a line.
    """
    for reach in reaches:
        pts, rad, cell = outline_samples(radius, config, nodes, arcs)
        px = apply_h(H, pts)
        nrm = image_normals(H, pts, rad, pts_px=px)
        thr = max(1.0, 0.35 * reach)
        if config.mode and config.polarity:
            modes = [(config.mode, config.polarity)]
            found = [edge_search(gray_f, px, nrm, reach, config)[0]]
        else:
            # Both polarities of a marking from one sampling of the profiles.
            modes = [(m, p) for m in ("line", "edge") for p in (1, -1)]
            found = [off for m in ("line", "edge") for off, _ in edge_search_polarities(
                gray_f, px, nrm, reach, replace(config, mode=m), (1, -1))]
        best = _best_marking(pts, px, nrm, found, modes, thr, config, cell)
        if best is None:
            break
        good, target, mask, Hn, config = best
        inl = mask.ravel().astype(bool)
        # Least-squares refit on the RANSAC inliers only.
        Hn2, _ = cv2.findHomography(pts[good][inl], target[inl], 0)
        Hnew = Hn2 if usable_h(Hn2) else Hn
        if not usable_h(Hnew):
            break
        H = Hnew
        # Ring radius: median distance of the matched edges from their ring centres.
        back = apply_h(np.linalg.inv(H), target[inl])
        d = back - nodes[cell[np.flatnonzero(good)[inl]]]
        if config.shape == "square":
            r = median(np.max(np.abs(d), axis=1))
        else:
            r = median(np.hypot(d[:, 0], d[:, 1]))
        if config.radius_range[0] < r < config.radius_range[1]:
            radius = r
    if not (config.mode and config.polarity):
        config = replace(config, mode="edge", polarity=0)
    if not measure:
        return H, radius, math.nan, config
    pts, rad, _ = outline_samples(radius, config, nodes, arcs)
    px = apply_h(H, pts)
    off, _ = edge_search(gray_f, px, image_normals(H, pts, rad, pts_px=px), 1.5, config)
    return H, radius, float(np.isfinite(off).mean()), config


def outline_samples(
    radius: float, config: EdgeConfig, nodes: FloatArray, arcs: NearArcs | None,
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """The outline points :func:`fit_rings` matches (``ring_model_points``, only the near
    arcs with ``arcs``), their normals, and the index in ``nodes`` of each one's cell."""
    pts, rad = ring_model_points(radius, config.samples_per_ring, config.shape, nodes)
    # ``ring_model_points`` lists the points cell by cell.
    cell = np.repeat(np.arange(len(nodes)), len(pts) // len(nodes))
    if arcs is not None:
        keep = arcs.mask(pts, rad, nodes[cell])
        pts, rad, cell = pts[keep], rad[keep], cell[keep]
    return pts, rad, cell


def _best_marking(
    pts: FloatArray, px: FloatArray, nrm: FloatArray, found: list[FloatArray],
    modes: list[tuple[str, int]], thr: float, config: EdgeConfig,
    cell: NDArray[np.int64] | None = None,
) -> tuple[NDArray[np.bool_], FloatArray, NDArray[Any], FloatArray, EdgeConfig] | None:
    """The marking whose found edges agree best on one grid homography.

    Parameters
    ----------
    pts, px, nrm : (N, 2) float
        Outline points (grid units), their pixels and image normals.
    found : list of (N,) float
        Per marking (``modes``: (mode, polarity)), each point's edge offset along its normal
        (NaN where none was found).
    thr : float
        RANSAC inlier distance, pixels.
    config : EdgeConfig

    Returns
    -------
    (good, target, mask, H, config) or None
        The marking's points with an edge, their edge pixels, its RANSAC inlier mask and
        homography, and ``config`` with its mode and polarity; None when no marking has
        12 inliers.

    Notes
    -----
    The winner is the marking with most RANSAC inliers (the first listed among equals),
    not merely the commonest (texture has many edges). RANSAC on a marking that is not
    the board's runs all its iterations, so with several markings each first gets a
    quick look (``marking_screen_iters`` iterations); they are then fitted in the order of
    that look, and a marking is fitted fully only when it could still win: it has more
    edges than the best so far has inliers (exact), and its quick look found at least
    ``marking_screen_ratio`` of them (an estimate).
    """
    goods = [np.isfinite(off) for off in found]
    counts = [int(good.sum()) for good in goods]
    targets = [px[good] + nrm[good] * off[good, None]
               for good, off in zip(goods, found, strict=True)]
    tried = [i for i in range(len(modes)) if counts[i] >= 12]
    if config.cell_share > 0 and cell is not None and len(tried) > 1:
        return _marking_by_cells(pts, goods, targets, tried, modes, thr, config, cell)
    quick = {i: counts[i] for i in tried}
    if len(tried) > 1 and config.screen_near:
        # Where the grid being fitted is about right, the board's marking has most of its
        # edges within the inlier distance of it already.
        for i in tried:
            quick[i] = int((np.abs(found[i][goods[i]]) <= thr).sum())
    elif len(tried) > 1 and config.marking_screen_iters > 0:
        for i in tried:
            _, m = cv2.findHomography(pts[goods[i]], targets[i], cv2.RANSAC, thr,
                                      maxIters=config.marking_screen_iters)
            quick[i] = 0 if m is None else int(m.sum())
    best: tuple[int, int, NDArray[Any], FloatArray] | None = None
    for i in sorted(tried, key=lambda i: (-quick[i], i)):
        if best is not None and ((counts[i], -i) <= (best[0], -best[1])
                                 or quick[i] < config.marking_screen_ratio * best[0]):
            continue
        Hn, mask = cv2.findHomography(pts[goods[i]], targets[i], cv2.RANSAC, thr,
                                      maxIters=200)
        if Hn is None or mask is None or mask.sum() < 12:
            continue
        if best is None or (int(mask.sum()), -i) > (best[0], -best[1]):
            best = (int(mask.sum()), i, mask, Hn)
    if best is None:
        return None
    if config.line_share > 0 and modes[best[1]][0] == "edge":
        best = _line_instead(pts, goods, targets, counts, modes, thr, best, config.line_share)
    _, i, mask, Hn = best
    mode, pol = modes[i]
    return goods[i], targets[i], mask, Hn, replace(config, mode=mode, polarity=pol)


def _marking_by_cells(
    pts: FloatArray, goods: list[NDArray[np.bool_]], targets: list[FloatArray],
    tried: list[int], modes: list[tuple[str, int]], thr: float, config: EdgeConfig,
    cell: NDArray[np.int64],
) -> tuple[NDArray[np.bool_], FloatArray, NDArray[Any], FloatArray, EdgeConfig] | None:
    """``_best_marking`` by the cells that agree (``EdgeConfig.cell_share``): each marking's
    RANSAC inliers counted per cell, the winner the marking with most cells holding at
    least ``cell_share`` of their outline samples as inliers (then most inliers). A
    crowded board's silhouettes and feet pile many inliers on some cells; a ring's arcs
    spread over all of them."""
    n_cells = int(cell.max()) + 1 if len(cell) else 0
    per_cell = np.bincount(cell, minlength=n_cells)
    best: tuple[tuple[int, int], int, NDArray[Any], FloatArray] | None = None
    for i in tried:
        Hn, mask = cv2.findHomography(pts[goods[i]], targets[i], cv2.RANSAC, thr,
                                      maxIters=200)
        if Hn is None or mask is None or mask.sum() < 12:
            continue
        inl = np.bincount(cell[goods[i]][mask.ravel().astype(bool)], minlength=n_cells)
        agree = int((inl >= config.cell_share * np.maximum(per_cell, 1)).sum())
        key = (agree, int(mask.sum()))
        if best is None or key > best[0]:
            best = (key, i, mask, Hn)
    if best is None:
        return None
    _, i, mask, Hn = best
    mode, pol = modes[i]
    return goods[i], targets[i], mask, Hn, replace(config, mode=mode, polarity=pol)


def _line_instead(
    pts: FloatArray, goods: list[NDArray[np.bool_]], targets: list[FloatArray],
    counts: list[int], modes: list[tuple[str, int]], thr: float,
    best: tuple[int, int, NDArray[Any], FloatArray], share: float,
) -> tuple[int, int, NDArray[Any], FloatArray]:
    """``best`` (inliers, marking index, mask, homography), an edge marking, or the line
    marking with most RANSAC inliers when they are at least ``share`` of ``best``'s
    (``EdgeConfig.line_share``)."""
    bar = share * best[0]
    line: tuple[int, int, NDArray[Any], FloatArray] | None = None
    for i, (mode, _) in enumerate(modes):
        if mode != "line" or counts[i] < max(12.0, bar):
            continue
        Hn, mask = cv2.findHomography(pts[goods[i]], targets[i], cv2.RANSAC, thr,
                                      maxIters=200)
        if Hn is None or mask is None:
            continue
        n = int(mask.sum())
        if n >= max(12.0, bar) and (line is None or n > line[0]):
            line = (n, i, mask, Hn)
    return best if line is None else line


def grow_fit(
    gray_f: NDArray[np.float32], H: FloatArray, radius: float, reaches: tuple[float, ...],
    config: EdgeConfig, seeds: NDArray[Any], measure: bool = True,
) -> tuple[FloatArray, float, float, EdgeConfig]:
    """:func:`fit_rings` grown outwards from the cells where rings were found.

    A lattice guessed from a few rings is an affine extrapolation of them: right next to
    them, off by up to a cell at the far side of a board seen at a low angle (perspective).
    So the outlines of the cells within one step of the ``seeds`` (grid nodes, 0..3) are fitted
    first, then those within two steps, then all 16; each stage starts from a grid that is
    right where it is next matched. ``measure`` as in :func:`fit_rings`.
    """
    seeds = np.asarray(seeds, dtype=np.float64).reshape(-1, 2)
    if len(seeds):
        dist = np.abs(GRID_NODES[:, None, :] - seeds[None, :, :]).max(axis=2).min(axis=1)
        for step in (1, 2):
            near = GRID_NODES[dist <= step]
            if len(near) == len(GRID_NODES):
                break
            H, radius, _, config = fit_rings(gray_f, H, radius, reaches if step == 1
                                             else reaches[1:], config, near, measure=False)
    return fit_rings(gray_f, H, radius, reaches[1:] if len(seeds) else reaches, config,
                     measure=measure)


class EdgeMatches(NamedTuple):
    """Model points (grid units) matched to image edge points, for fitting a camera.

    ``normals`` (N, 2): where finite, the point counts across its outline only (along this
    image direction); NaN rows count in both directions. ``groups`` (N,) and ``dirs`` (N, 2,
    grid units): points of group ``g >= 0`` lie on an outline whose offset along ``dirs`` is
    fitted with the camera (-1: no group); see ``pose.camera_from_points``.
    """

    grid: FloatArray
    image: FloatArray
    normals: FloatArray | None = None
    groups: NDArray[np.int64] | None = None
    dirs: FloatArray | None = None

    def shifted(self, dxy: FloatArray) -> EdgeMatches:
        """The same matches with the image points moved by ``dxy`` (window to frame)."""
        return self._replace(image=self.image + dxy)

    def full(self) -> tuple[FloatArray, NDArray[np.int64], FloatArray]:
        """(normals, groups, dirs) with the defaults of points that neither slide nor move."""
        n = len(self.grid)
        normals = np.full((n, 2), np.nan) if self.normals is None else self.normals
        groups = np.full(n, -1, np.int64) if self.groups is None else self.groups
        dirs = np.zeros((n, 2)) if self.dirs is None else self.dirs
        return normals, groups, dirs

    @staticmethod
    def join(a: EdgeMatches, b: EdgeMatches) -> EdgeMatches:
        """Both sets of matches; ``b``'s groups numbered after ``a``'s."""
        na, ga, da = a.full()
        nb, gb, db = b.full()
        gb = np.where(gb >= 0, gb + (int(ga.max()) + 1 if len(ga) else 0), -1)
        return EdgeMatches(np.vstack([a.grid, b.grid]), np.vstack([a.image, b.image]),
                           np.vstack([na, nb]), np.concatenate([ga, gb]), np.vstack([da, db]))


def edge_correspondences(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                         reach: float, config: EdgeConfig) -> EdgeMatches:
    """Outline points (grid units) and the image edge points matched to them (RANSAC
    inliers of a homography), for fitting a camera model to the rings directly."""
    pts, rad = ring_model_points(radius, config.samples_per_ring, config.shape)
    px = apply_h(H, pts)
    nrm = image_normals(H, pts, rad, pts_px=px)
    off, _ = edge_search(gray_f, px, nrm, reach, config)
    good = np.isfinite(off)
    if good.sum() < 12:
        return EdgeMatches(pts[:0], px[:0])
    target = px[good] + nrm[good] * off[good, None]
    _, mask = cv2.findHomography(pts[good], target, cv2.RANSAC, max(1.0, reach), maxIters=200)
    if mask is None:
        return EdgeMatches(pts[good], target)
    inl = mask.ravel().astype(bool)
    return EdgeMatches(pts[good][inl], target[inl])


def coarse_align(gray_f: NDArray[np.float32], H: FloatArray, radius: float,
                 config: EdgeConfig, scales: tuple[float, ...], shifts: tuple[float, ...],
                 tol_px: float = 2.0) -> FloatArray:
    """The best of a small set of scalings and shifts of the grid, by outline support.

    A grid guessed from the board's outline can be off by a third of a cell (the nominal
    pitch/side ratio, the board's side face taken for its top); the ring-edge fit only
    converges from closer. All variants are scored in one batch of profile samples.

    Parameters
    ----------
    scales : tuple of float
        Grid scalings about its centre.
    shifts : tuple of float
        Shifts along each grid axis, in pitches.
    """
    pts, rad = ring_model_points(radius, max(8, config.samples_per_ring // 2), config.shape)
    flat = replace(config, mode="edge", polarity=0)
    best = H
    # Coarse to fine: the full set of scales and shifts, then a third of the steps around
    # the winner.
    for shrink in (1.0, 1.0 / 3.0):
        c = 1.5
        params = np.array([(1.0 + (sc - 1.0) * shrink, dx * shrink, dy * shrink)
                           for sc in scales for dx in shifts for dy in shifts])
        # Each variant scales the grid about its centre and shifts it: move the model points
        # in the grid plane (directions unchanged) and map them all at once.
        moved = ((pts[None, :, :] - c) * params[:, 0, None, None] + c
                 + params[:, None, 1:]).reshape(-1, 2)
        radial = np.tile(rad, (len(params), 1))
        off, _ = edge_search(gray_f, apply_h(best, moved),
                             image_normals(best, moved, radial), tol_px, flat)
        score = np.isfinite(off).reshape(len(params), -1).mean(axis=1)
        sc, dx, dy = params[int(np.argmax(score))]
        T = np.array([[sc, 0.0, c - sc * c + dx], [0.0, sc, c - sc * c + dy], [0.0, 0.0, 1.0]])
        best = best @ T
    return best
