"""Board outline candidates: large convex quadrilateral regions.

The board's top face is a big region bounded by strong edges (board against table, the top
against its side face). Pieces standing on it make holes and dents, not breaks, so the convex
hull of a region cut out by the edge map, simplified to four vertices, is a good first guess
of the board's outline even when its cell rings are too faint to be ring candidates. Each
outline then seeds grid hypotheses for both layouts, which the ring-edge fit refines and
verifies like any other hypothesis.

Two refinements make the outline robust to what the photoreal boards showed:

- a painted board often differs from its table by hue more than by lightness (a green
  board on a white table, a purple one on a red and white cloth), so regions are also cut
  from the chroma channels (CIELAB a* and b*) of a colour image;
- tall pieces near the far edge stick out of the board's outline and a convex hull bridges
  over them; the board's sides are still long straight runs of the region's own contour on
  both sides of a piece, so a second quadrilateral is fitted to the four best-supported
  straight runs of the contour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate.config import LocateConfig
from vision.locate.fit import sample
from vision.locate.lattice import LatticeHypothesis
from vision.locate.layout import board_to_grid

FloatArray = NDArray[np.float64]

_UNIT_SQUARE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


def board_quads(gray: NDArray[np.uint8], config: LocateConfig,
                colour: NDArray[np.uint8] | None = None) -> list[FloatArray]:
    """Convex quadrilaterals (4, 2) in ``gray``'s pixels that may be the board's top face.

    Parameters
    ----------
    gray : (H, W) uint8
        Grey image (any size; a few hundred pixels wide is enough).
    config : LocateConfig
        Area and shape limits.
    colour : (H, W, 3) uint8, optional
        The same image in BGR: its chroma channels cut out boards that differ from the
        table by hue.

    Returns
    -------
    list of (4, 2) float arrays, largest first.
    """
    if gray.ndim != 2 or gray.dtype != np.uint8:
        raise ValueError(f"gray must be a 2-D uint8 image, got {gray.dtype} {gray.shape}")
    if colour is not None and (colour.shape != (*gray.shape, 3) or colour.dtype != np.uint8):
        raise ValueError(f"colour must be (H, W, 3) uint8 like gray {gray.shape}, got "
                         f"{colour.dtype} {colour.shape}")
    masks = _region_masks(gray, config)
    if colour is not None:
        masks.extend(_chroma_masks(colour, config))
    found: list[tuple[float, FloatArray]] = []
    for mask in masks:
        found.extend(_quads_in(mask, config))
    found = _dedupe(found, config.quad_same_tol, config.max_quads)
    return [q for _, q in found]


def _region_masks(gray: NDArray[np.uint8], config: LocateConfig) -> list[NDArray[np.uint8]]:
    """Binary images in which the board's top face may be one blob.

    Two kinds: regions cut out by edges (board and table alike in brightness but separated by
    a crisp outline), and regions darker / brighter than a wide neighbourhood (a dark board
    on a light table and the reverse), opened so that pieces sticking out of the outline and
    thin ring lines do not change its shape.
    """
    g = cv2.GaussianBlur(gray, (0, 0), config.quad_smooth_px)
    edges = cv2.Canny(g, config.quad_canny[0], config.quad_canny[1])
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    masks = [cv2.bitwise_not(edges)]
    w = gray.shape[1]
    k = max(3, int(config.quad_open_frac * w) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    block = max(3, int(config.quad_block_frac * w) | 1)
    for inv in (False, True):
        mode = cv2.THRESH_BINARY_INV if inv else cv2.THRESH_BINARY
        _, otsu = cv2.threshold(g, 0, 255, mode | cv2.THRESH_OTSU)
        local = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, mode, block, 0)
        for m in (otsu, local):
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            masks.append(cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel))
    return masks


def _chroma_masks(colour: NDArray[np.uint8], config: LocateConfig) -> list[NDArray[np.uint8]]:
    """Regions of one hue: Otsu thresholds of the CIELAB a* (green-red) and b* (blue-yellow)
    channels, opened like the brightness regions. A channel whose spread over the image is
    below ``config.quad_min_chroma_std`` holds no hue difference, only noise, and gives
    no mask."""
    lab = cv2.cvtColor(cv2.GaussianBlur(colour, (0, 0), config.quad_smooth_px),
                       cv2.COLOR_BGR2LAB)
    k = max(3, int(config.quad_open_frac * colour.shape[1]) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    out = []
    for ch in (1, 2):
        c = np.ascontiguousarray(lab[:, :, ch])
        _, std = cv2.meanStdDev(c)
        if float(std[0, 0]) < config.quad_min_chroma_std:
            continue
        for mode in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV):
            _, m = cv2.threshold(c, 0, 255, mode | cv2.THRESH_OTSU)
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            out.append(cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel))
    return out


def _quads_in(mask: NDArray[np.uint8], config: LocateConfig) -> list[tuple[float, FloatArray]]:
    """Quadrilateral outlines of the blobs of a binary image, with their areas: the four
    longest sides of the convex hull, and the four best-supported straight runs of the
    contour itself."""
    h, w = mask.shape
    out: list[tuple[float, FloatArray]] = []
    cnts, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_area = config.quad_min_area * h * w
    for outer in cnts:
        area = float(cv2.contourArea(outer))
        if area < min_area or area > config.quad_max_area * h * w:
            continue
        hull = cv2.convexHull(outer)
        hull_area = float(cv2.contourArea(hull))
        quads = []
        # Solidity of the outline: pieces standing on the board and the big circle leave
        # holes inside it, not dents in it.
        if hull_area > 0 and area / hull_area >= config.quad_min_solidity:
            qf = _four_sides(hull, config)
            if qf is not None:
                qa = float(cv2.contourArea(qf.astype(np.float32)))
                if config.quad_min_fill * hull_area <= qa <= hull_area / config.quad_min_fill:
                    quads.append((hull_area, qf))
        ql = _four_runs(outer, config)
        if ql is not None:
            qa = float(cv2.contourArea(ql.astype(np.float32)))
            if config.quad_run_min_fill * area <= qa <= area / config.quad_run_min_fill:
                quads.append((qa, ql))
        for qa, q in quads:
            # Outlines along the image border are the table or the frame, not a board.
            on_border = (q[:, 0] <= 2) | (q[:, 0] >= w - 3) | (q[:, 1] <= 2) | (q[:, 1] >= h - 3)
            if on_border.sum() <= 1:
                out.append((qa, q))
    return out


@dataclass
class _Side:
    """Straight runs of a contour on one line: outward normal (angle and unit vector),
    offset along it, the runs' end points and lengths."""

    angle: float
    normal: FloatArray
    offset: float
    ends: list[FloatArray] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)

    @property
    def length(self) -> float:
        return float(sum(self.weights))

    def add(self, p0: FloatArray, p1: FloatArray, length: float) -> None:
        self.ends.extend([p0, p1])
        self.weights.append(length)


def _four_runs(contour: NDArray[np.int32], config: LocateConfig) -> FloatArray | None:
    """The quadrilateral of the four best-supported straight runs of a region's contour.

    The contour is simplified to a polygon; its sides of at least ``quad_run_min_side`` of
    the perimeter are grouped into lines (nearly parallel and on one line: one board side
    broken by a piece standing in front of it), each line weighted by its total length.
    The four heaviest lines, each at least ``quad_min_side`` of the perimeter long in all,
    in the order of their outward normals, must turn by roughly a right angle from one to
    the next (a square seen in perspective); their crossings are the corners.
    """
    sides_of = _polygon(contour, config)
    if sides_of is None:
        return None
    poly, seg, length, peri = sides_of
    mom = cv2.moments(contour)
    if mom["m00"] <= 0:
        return None
    centre = np.array([mom["m10"], mom["m01"]]) / mom["m00"]
    max_turn = math.radians(config.quad_run_parallel_deg)
    max_off = config.quad_run_offset * peri
    sides: list[_Side] = []
    for i in np.argsort(-length):
        if length[i] < config.quad_run_min_side * peri:
            break
        p0, p1 = poly[i], poly[(i + 1) % len(poly)]
        d = seg[i] / length[i]
        nrm = np.array([d[1], -d[0]])
        if nrm @ (centre - p0) > 0:
            nrm = -nrm  # outward
        ang = math.atan2(nrm[1], nrm[0])
        mid = 0.5 * (p0 + p1)
        for side in sides:
            turn = abs((ang - side.angle + math.pi) % (2 * math.pi) - math.pi)
            if turn < max_turn and abs(side.normal @ mid - side.offset) < max_off:
                side.add(p0, p1, float(length[i]))
                break
        else:
            side = _Side(ang, nrm, float(nrm @ p0))
            side.add(p0, p1, float(length[i]))
            sides.append(side)
    heavy = sorted(sides, key=lambda sd: -sd.length)[:4]
    # Each side, all its runs together, as long as a side of the hull's quadrilateral must
    # be (the short wiggles of a ragged region make no side).
    if len(heavy) < 4 or heavy[-1].length < config.quad_min_side * peri:
        return None
    lines = []
    for side in heavy:
        pts, wts = np.array(side.ends), np.repeat(side.weights, 2)
        m = (pts * wts[:, None]).sum(axis=0) / wts.sum()
        x = pts - m
        _, vecs = np.linalg.eigh((x * wts[:, None]).T @ x)
        lines.append((side.angle, m, vecs[:, 1]))  # direction of the largest spread
    lines.sort(key=lambda ln: ln[0])
    lo, hi = (math.radians(a) for a in config.quad_run_turn_deg)
    corners = []
    for i in range(4):
        a1, m1, d1 = lines[i]
        a2, m2, d2 = lines[(i + 1) % 4]
        if not lo < (a2 - a1) % (2 * math.pi) < hi:
            return None
        corners.append(_crossing(m1, d1, m2, d2))
    return _convex_quad(corners)


def _four_sides(hull: NDArray[np.int32], config: LocateConfig) -> FloatArray | None:
    """The quadrilateral of a convex outline's four longest sides.

    Corners cut off by a hand, rounded board corners or a piece standing on a corner make
    short extra sides; the four long ones, extended, meet at the board's corners.
    """
    sides_of = _polygon(hull, config)
    if sides_of is None:
        return None
    poly, seg, length, peri = sides_of
    keep = np.sort(np.argsort(-length)[:4])
    if length[keep].min() < config.quad_min_side * peri:
        return None
    corners = []
    for i in range(4):
        a, b = keep[i], keep[(i + 1) % 4]
        corners.append(_crossing(poly[a], seg[a], poly[b], seg[b]))
    return _convex_quad(corners)


def _polygon(contour: NDArray[np.int32], config: LocateConfig,
             ) -> tuple[FloatArray, FloatArray, FloatArray, float] | None:
    """A contour simplified to a polygon (``quad_eps[0]`` of its perimeter): its (K, 2)
    vertices, side vectors and side lengths, and the contour's perimeter; ``None`` below 4
    vertices."""
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, config.quad_eps[0] * peri, True).reshape(-1, 2)
    poly = poly.astype(np.float64)
    if len(poly) < 4:
        return None
    seg = np.roll(poly, -1, axis=0) - poly
    return poly, seg, np.hypot(seg[:, 0], seg[:, 1]), peri


def _crossing(p: FloatArray, r: FloatArray, q: FloatArray, t: FloatArray) -> FloatArray | None:
    """Where the line through ``p`` along ``r`` meets the line through ``q`` along ``t``
    (``None`` when they are parallel)."""
    den = r[0] * t[1] - r[1] * t[0]
    if abs(den) < 1e-9 * (np.hypot(*r) * np.hypot(*t) + 1e-12):
        return None
    u = ((q[0] - p[0]) * t[1] - (q[1] - p[1]) * t[0]) / den
    return np.asarray(p + u * r, dtype=np.float64)


def _convex_quad(corners: list[FloatArray | None]) -> FloatArray | None:
    """The four corners as a (4, 2) quadrilateral, if all exist and it is convex."""
    if any(c is None for c in corners):
        return None
    quad = np.array(corners, dtype=np.float64)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def _dedupe(quads: list[tuple[float, FloatArray]], tol: float,
            limit: int | None = None) -> list[tuple[float, FloatArray]]:
    """The largest quads, each unlike every larger one kept, at most ``limit`` of them."""
    kept: list[tuple[float, FloatArray]] = []
    for a, q in sorted(quads, key=lambda f: -f[0]):
        size = np.sqrt(a)
        if all(quad_distance(q, k) > tol * size for _, k in kept):
            kept.append((a, q))
            if limit is not None and len(kept) >= limit:
                break
    return kept


#: Corner orders of a quadrilateral: the 4 rotations of both directions of travel.
_QUAD_ORDERS = np.array([np.roll(np.arange(4), r) for r in range(4)]
                        + [np.roll(np.arange(4)[::-1], r) for r in range(4)])


def quad_distance(a: FloatArray, b: FloatArray) -> float:
    """Largest corner distance between two quads, over the cyclic orders of b."""
    d = a[None, :, :] - b[_QUAD_ORDERS]
    return float(np.hypot(d[..., 0], d[..., 1]).max(axis=1).min())


def refine_quad(gray_f: NDArray[np.float32], quad: FloatArray, min_edge: float,
                config: LocateConfig) -> list[FloatArray]:
    """``quad`` (pixels of ``gray_f``) with each side moved onto the straight edge that runs
    along it, and the corners where those lines meet: up to two outlines (none when a side
    finds no such edge).

    A quad comes from a region cut at a threshold, and its outline bends where pieces stand
    out of the board: a tall piece near a corner takes the corner's place, pieces along the
    far side lift it. The board's sides are straight and long, and seen between the pieces.
    So along each side's normal, every edge step of at least ``min_edge`` is a candidate
    (from ``quad_refine_reach[0]`` of the side's length outside the side to
    ``quad_refine_reach[1]`` inside it: pieces only ever push the outline out), at
    ``quad_refine_samples`` places along the side; the side's line is the one that passes
    within ``quad_refine_tol_px`` of a candidate at the most places. Where a piece hides part
    of a side the line still follows the rest, so a hidden corner is extrapolated.

    A side facing the camera shows the board's side face: two parallel lines, the top's
    edge and the foot's, and the foot's (against the table) is often the stronger. Where a
    second line parallel to the best one is seen inside a near side (one that runs below
    the board's top in the image), a second outline takes it.
    """
    t = np.linspace(0.05, 0.95, config.quad_refine_samples)
    min_rows = config.quad_refine_min_share * len(t)
    centre = quad.mean(axis=0)
    best: list[tuple[FloatArray, FloatArray]] = []
    inner: list[tuple[FloatArray, FloatArray]] = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 8.0:
            return []
        normal = np.array([-d[1], d[0]]) / length
        if float(np.dot(centre - a, normal)) < 0:
            normal = -normal  # pointing into the quad
        outside, inside = (r * length for r in config.quad_refine_reach)
        pts, rows = _edge_candidates(gray_f, a + t[:, None] * d, normal, -outside, inside,
                                     min_edge)
        lines = _supported_lines(pts, rows, config.quad_refine_tol_px, min_rows)
        if not lines:
            return []
        best.append(lines[0])
        # On a side whose face the camera can see (a near side: it runs below the top in
        # the image, so the inward normal points up), the next line inside the best one
        # and parallel to it, if any: the top's edge, where the best is the face's foot.
        p0, v0 = lines[0]
        if normal[1] > -0.3:
            inner.append(lines[0])
            continue
        depth = [float(np.dot(p - p0, normal)) for p, _ in lines]
        par = [k for k, (_, v) in enumerate(lines)
               if abs(float(np.dot(v, v0))) > math.cos(math.radians(3.0)) and depth[k] > 2.0]
        inner.append(lines[min(par, key=lambda k: depth[k])] if par else lines[0])
    out: list[FloatArray] = []
    size = math.sqrt(abs(cv2.contourArea(quad.astype(np.float32))))
    for sides in (best, inner):
        refined = _quad_from_lines(sides)
        # A refined corner stays near the outline it refines: a line that swung onto
        # another edge (a piece's side, the table's) is not the board's.
        if (refined is not None
                and np.hypot(*(refined - quad).T).max() <= config.quad_refine_max_move * size
                and not any(np.allclose(refined, q) for q in out)):
            out.append(refined)
    return out


def _edge_candidates(gray_f: NDArray[np.float32], pts: FloatArray, normal: FloatArray,
                     lo: float, hi: float, min_edge: float, step: float = 0.5,
                     per_profile: int = 4) -> tuple[FloatArray, NDArray[np.int64]]:
    """Edge points along ``normal`` from each of ``pts`` (offsets ``lo``..``hi`` pixels):
    the up to ``per_profile`` strongest local maxima of the profile's gradient of at least
    ``min_edge`` grey levels per pixel. Returns the points and the index of their profile."""
    offs = np.arange(lo, hi + 1e-9, step)
    xs = pts[:, 0:1] + normal[0] * offs[None, :]
    ys = pts[:, 1:2] + normal[1] * offs[None, :]
    prof = sample(gray_f, xs, ys)
    g = np.abs(np.diff(prof, axis=1)) / step  # between samples k and k + 1
    peak = np.zeros_like(g, dtype=bool)
    peak[:, 1:-1] = (g[:, 1:-1] >= g[:, :-2]) & (g[:, 1:-1] > g[:, 2:]) & (g[:, 1:-1] >= min_edge)
    strength = np.where(peak, g, 0.0)
    order = np.argsort(-strength, axis=1)[:, :per_profile]
    rows = np.repeat(np.arange(len(pts)), order.shape[1])
    cols = order.ravel()
    keep = strength[rows, cols] > 0
    rows, cols = rows[keep], cols[keep]
    where = offs[cols] + step / 2.0
    return pts[rows] + where[:, None] * normal, rows


def _supported_lines(points: FloatArray, rows: NDArray[np.int64], tol_px: float,
                     min_rows: float, n_pairs: int = 400,
                     ) -> list[tuple[FloatArray, FloatArray]]:
    """Straight lines through candidate edge points, best supported first, as (point, unit
    direction): a line's support is the number of profiles (``rows``) with a point within
    ``tol_px`` of it; lines with fewer than ``min_rows`` are dropped, and each line's points
    are taken before the next is sought. Lines are proposed by pairs of points from profiles
    at least 5 apart (a fixed, seeded choice), and refitted to their points by total least
    squares."""
    out: list[tuple[FloatArray, FloatArray]] = []
    rng = np.random.default_rng(0)
    free = np.ones(len(points), dtype=bool)
    while free.sum() >= 2 and len(out) < 4:
        idx = np.flatnonzero(free)
        i = idx[rng.integers(0, len(idx), n_pairs)]
        j = idx[rng.integers(0, len(idx), n_pairs)]
        ok = np.abs(rows[i] - rows[j]) >= 5
        i, j = i[ok], j[ok]
        if not len(i):
            break
        d = points[j] - points[i]
        nrm = np.column_stack([-d[:, 1], d[:, 0]]) / np.hypot(d[:, 0], d[:, 1])[:, None]
        dist = np.abs(np.einsum("pkc,pc->pk", points[None, idx, :] - points[i][:, None, :],
                                nrm))
        near = dist <= tol_px
        # Distinct profiles among each line's near points.
        hit = np.zeros((len(i), int(rows.max()) + 1), dtype=bool)
        pi, ki = np.nonzero(near)
        hit[pi, rows[idx[ki]]] = True
        support = hit.sum(axis=1)
        k = int(np.argmax(support))
        if support[k] < min_rows:
            break
        members = idx[near[k]]
        centre = points[members].mean(axis=0)
        _, _, vt = np.linalg.svd(points[members] - centre)
        v = vt[0]
        n = np.array([-v[1], v[0]])
        # Refitted: its points are those within the tolerance of the refined line.
        close = np.abs((points[idx] - centre) @ n) <= tol_px
        if len(np.unique(rows[idx[close]])) < min_rows:
            break
        out.append((centre, v))
        free[idx[close]] = False
    return out


def _quad_from_lines(lines: list[tuple[FloatArray, FloatArray]]) -> FloatArray | None:
    """The convex quad whose sides lie on four lines (point, direction), or None."""
    return _convex_quad([_crossing(lines[i - 1][0], lines[i - 1][1], lines[i][0], lines[i][1])
                         for i in range(4)])


def quad_grids(quad: FloatArray, sides: FloatArray, rotation_deg: float) -> list[FloatArray]:
    """Grid (m, n) -> pixel homographies of a board whose outline is ``quad`` (pixels,
    corners in order around it), one per board side over pitch in ``sides``: the grid is
    centred in the square and turned ``rotation_deg`` to its sides.

    :func:`quad_hypotheses` makes the same map for one side, fitting the scaled square
    instead; the two agree to rounding, but the rounding alone moved boards found from
    outlines by up to 5 px (photoreal_dev 0022: 0.97 px), so each keeps its own."""
    Hb, _ = cv2.findHomography(_UNIT_SQUARE, quad, 0)
    if Hb is None:
        return []
    from_grid = np.linalg.inv(board_to_grid(rotation_deg))
    return [Hb @ np.diag([1.0 / s, 1.0 / s, 1.0]) @ from_grid for s in sides]


def quad_hypotheses(quad: FloatArray, config: LocateConfig) -> list[LatticeHypothesis]:
    """Grid hypotheses implied by a board outline, one per known board family.

    The outline's corners are taken as a square of the family's nominal side (in pitch units);
    the grid inside follows from the layout's rotation.
    """
    out = []
    for rotation, side, radius, shape in config.board_families:
        src = _UNIT_SQUARE * side  # board (x, y) in pitch units
        Hb, _ = cv2.findHomography(src, quad, 0)
        if Hb is None:
            continue
        H = Hb @ np.linalg.inv(board_to_grid(rotation))
        grid = np.array([[0, 0], [3, 3]], dtype=np.int64)
        out.append(LatticeHypothesis(H, grid, 0, radius, shape, source="outline"))
    return out


def _side_lines(gray_f: NDArray[np.float32], quad: FloatArray, i: int, min_edge: float,
                config: LocateConfig, chroma: Sequence[NDArray[np.float32]] = (),
                ) -> list[tuple[FloatArray, FloatArray]]:
    """The straight edges along side ``i`` (corner ``i`` to ``i + 1``) of ``quad``, best
    supported first, searched as :func:`refine_quad` searches each side. ``chroma``: more
    images of the same pixels (smoothed chroma channels, :func:`chroma_channels`) whose
    edge steps of ``min_edge`` are candidates too, on the same profiles: a step in hue
    where the grey level does not change (a dark blue top over a dark red face) counts
    like one in grey."""
    t = np.linspace(0.05, 0.95, config.quad_refine_samples)
    a, b = quad[i % 4], quad[(i + 1) % 4]
    d = b - a
    length = float(np.hypot(*d))
    if length < 8.0:
        return []
    normal = np.array([-d[1], d[0]]) / length
    if float(np.dot(quad.mean(axis=0) - a, normal)) < 0:
        normal = -normal
    outside, inside = (r * length for r in config.quad_refine_reach)
    pts, rows = _edge_candidates(gray_f, a + t[:, None] * d, normal, -outside, inside, min_edge)
    if chroma:
        found = [(pts, rows)] + [
            _edge_candidates(c, a + t[:, None] * d, normal, -outside, inside, min_edge)
            for c in chroma]
        pts = np.vstack([p for p, _ in found])
        rows = np.concatenate([r for _, r in found])
        if not len(rows):
            return []
    return _supported_lines(pts, rows, config.quad_refine_tol_px,
                            config.quad_refine_min_share * len(t))


def _line_gap(line: tuple[FloatArray, FloatArray], p: FloatArray, q: FloatArray) -> float:
    """The larger distance of ``p`` and ``q`` from ``line`` (point, unit direction)."""
    (o, v) = line
    return max(abs(float(v[0] * (x - o)[1] - v[1] * (x - o)[0])) for x in (p, q))


def far_side(quad: FloatArray) -> int:
    """Index of the side (corner ``i`` to ``i + 1``) highest in the image: the side
    farthest from a camera looking down on the board."""
    return int(np.argmin([quad[i, 1] + quad[(i + 1) % 4, 1] for i in range(4)]))


def near_sides(gray_f: NDArray[np.float32], quad: FloatArray, min_edge: float,
               config: LocateConfig, nearest: bool = False,
               chroma: Sequence[NDArray[np.float32]] = (), face_top: bool = True,
               ) -> list[tuple[FloatArray, FloatArray, FloatArray, FloatArray]]:
    """The board's three sides a piece never hides from a low camera, found along ``quad``
    (pixels, corners in order around it): the near side and the two sides running away
    from the camera, each moved onto the straight edge along it as in :func:`refine_quad`
    (the far side, behind the pieces, is not searched). Returns at most one (near corner
    after the far side's end, the other near corner, a point on the first lateral line
    towards the far side, the same on the second) in the order (b, c, a2, d2) where the
    quad runs a -> d (far side) -> c -> b; the near side is its face's top edge where a
    line parallel to the best one is seen inside it (the best one is then the face's foot,
    as in :func:`refine_quad`). Empty when a side finds no edge or a
    corner moves more than ``quad_refine_max_move`` of the outline's size. ``nearest``: each
    lateral side takes the supported line nearest the quad's side instead of the best
    supported one, and so does the near side (a check that the sides lie where ``quad``
    puts them). ``chroma``: smoothed chroma channels of the same pixels whose edges are
    candidates too (:func:`_side_lines`). ``face_top`` False: the near side is the line
    taken (with ``nearest``, the one nearest the quad's side), never an inner parallel one:
    around a grid's square the line nearest its side is the top's edge where the square is
    the top, and an inner parallel line there is the first row of rings or the pieces'
    feet."""
    k = far_side(quad)
    a, d, c, b = (quad[(k + j) % 4] for j in range(4))
    lat_a = _side_lines(gray_f, quad, k - 1, min_edge, config, chroma)    # b -> a
    lat_d = _side_lines(gray_f, quad, k + 1, min_edge, config, chroma)    # d -> c
    near = _side_lines(gray_f, quad, k + 2, min_edge, config, chroma)     # c -> b
    if not (lat_a and lat_d and near):
        return []
    if nearest:
        lat_a.sort(key=lambda line: _line_gap(line, b, a))
        lat_d.sort(key=lambda line: _line_gap(line, c, d))
        near.sort(key=lambda line: _line_gap(line, c, b))
    variants = [near[0]]
    p0, v0 = near[0]
    n0 = np.array([-v0[1], v0[0]])
    if float(np.dot(quad.mean(axis=0) - p0, n0)) < 0:
        n0 = -n0
    face_max = config.near_outline_face_max_share * float(np.hypot(*(b - c)))
    par = [(float(np.dot(p - p0, n0)), (p, v)) for p, v in near[1:]
           if abs(float(np.dot(v, v0))) > math.cos(math.radians(3.0))
           and 2.0 < float(np.dot(p - p0, n0)) <= face_max]
    if par and face_top:
        # The face's top edge, not its foot: the board's top is the square the grid lies in.
        variants = [min(par, key=lambda x: x[0])[1]]
    size = math.sqrt(abs(cv2.contourArea(quad.astype(np.float32))))
    out = []
    (pa, va), (pd, vd) = lat_a[0], lat_d[0]
    for pn, vn in variants:
        b2 = _crossing(pa, va, pn, vn)
        c2 = _crossing(pd, vd, pn, vn)
        if b2 is None or c2 is None:
            continue
        if max(float(np.hypot(*(b2 - b))), float(np.hypot(*(c2 - c)))) > (
                config.quad_refine_max_move * size):
            continue
        # The far corners' places along the lateral lines (their depth is not seen).
        a2 = pa + float(np.dot(a - pa, va)) * va
        d2 = pd + float(np.dot(d - pd, vd)) * vd
        out.append((b2, c2, a2, d2))
    return out


def complete_square(b: FloatArray, c: FloatArray, a2: FloatArray, d2: FloatArray,
                    focal_px: float, centre_px: tuple[float, float]) -> FloatArray | None:
    """The far corners (a, d) of a square seen by a camera of focal length ``focal_px`` and
    principal point ``centre_px`` (pixels), from its near corners ``b`` and ``c`` and a
    point on each side running away from the camera (``a2`` on b -> a, ``d2`` on c -> d):
    the two lateral lines meet at their vanishing point, the direction of the sides in the
    camera's frame; the near side is at right angles to it, so the near corners' rays fix
    the square's plane and side up to scale, and the far corners lie a side's length along
    that direction. Returns the (4, 2) quad (a, d, c, b), or None when the geometry has no
    square in front of the camera."""
    cx, cy = centre_px

    def hom(p: FloatArray) -> FloatArray:
        return np.array([(p[0] - cx) / focal_px, (p[1] - cy) / focal_px, 1.0])

    def proj(p: FloatArray) -> FloatArray:
        return np.array([focal_px * p[0] / p[2] + cx, focal_px * p[1] / p[2] + cy])

    vanish = np.cross(np.cross(hom(b), hom(a2)), np.cross(hom(c), hom(d2)))
    norm = float(np.linalg.norm(vanish))
    if norm < 1e-12:
        return None
    direction = vanish / norm
    B, C = hom(b), hom(c)
    if float(np.dot(proj(B + 1e-3 * direction) - b, a2 - b)) < 0:
        direction = -direction
    den = float(np.dot(C, direction))
    if abs(den) < 1e-12:
        return None
    C = C * float(np.dot(B, direction)) / den
    if C[2] <= 0:
        return None
    side = float(np.linalg.norm(C - B))
    A, D = B + side * direction, C + side * direction
    if A[2] <= 1e-6 or D[2] <= 1e-6:
        return None
    return np.array([proj(A), proj(D), c, b], dtype=np.float64)


def chroma_channels(colour: NDArray[np.uint8], size_wh: tuple[int, int],
                    sigma_px: float) -> list[NDArray[np.float32]]:
    """The CIELAB a* (green-red) and b* (blue-yellow) channels of the BGR image ``colour``
    (8-bit units, about one grey level per unit of chroma) at ``size_wh`` and smoothed as
    the grey working image is (a Gaussian of ``sigma_px``): images whose edge steps are
    changes of hue, for :func:`near_sides`."""
    small = colour if (colour.shape[1], colour.shape[0]) == size_wh else cv2.resize(
        colour, size_wh, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    ksize = int(np.rint(sigma_px * 8 + 1)) | 1
    return [np.asarray(cv2.GaussianBlur(lab[:, :, ch].astype(np.float32), (ksize, ksize),
                                        sigma_px), dtype=np.float32) for ch in (1, 2)]
