"""Board outline candidates: large convex quadrilateral regions.

The board's top face is a big region bounded by strong edges (board against table, the top
against its side face). Pieces standing on it make holes and dents, not breaks, so the convex
hull of a region cut out by the edge map, simplified to four vertices, is a good first guess
of the board's outline even when its cell rings are too faint to be ring candidates. Each
outline then seeds grid hypotheses for both layouts, which the ring-edge fit refines and
verifies like any other hypothesis.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate.config import LocateConfig
from vision.locate.lattice import LatticeHypothesis
from vision.locate.layout import board_to_grid

FloatArray = NDArray[np.float64]

_UNIT_SQUARE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


def board_quads(gray: NDArray[np.uint8], config: LocateConfig) -> list[FloatArray]:
    """Convex quadrilaterals (4, 2) in ``gray``'s pixels that may be the board's top face.

    Parameters
    ----------
    gray : (H, W) uint8
        Grey image (any size; a few hundred pixels wide is enough).
    config : LocateConfig
        Area and shape limits.

    Returns
    -------
    list of (4, 2) float arrays, largest first.
    """
    if gray.ndim != 2 or gray.dtype != np.uint8:
        raise ValueError(f"gray must be a 2-D uint8 image, got {gray.dtype} {gray.shape}")
    found: list[tuple[float, FloatArray]] = []
    for mask in _region_masks(gray, config):
        found.extend(_quads_in(mask, config))
    found = _dedupe(found, config.quad_same_tol)
    return [q for _, q in found[: config.max_quads]]


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


def _quads_in(mask: NDArray[np.uint8], config: LocateConfig) -> list[tuple[float, FloatArray]]:
    """Quadrilateral outlines of the blobs of a binary image, with their hull areas."""
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
        # Solidity of the outline: pieces standing on the board and the big circle leave
        # holes inside it, not dents in it.
        if hull_area <= 0 or area / hull_area < config.quad_min_solidity:
            continue
        qf = _four_sides(hull, config)
        if qf is None:
            continue
        qa = float(cv2.contourArea(qf.astype(np.float32)))
        if not config.quad_min_fill * hull_area <= qa <= hull_area / config.quad_min_fill:
            continue
        # Outlines running along the image border are the table or the frame, not a board.
        on_border = (qf[:, 0] <= 2) | (qf[:, 0] >= w - 3) | (qf[:, 1] <= 2) | (qf[:, 1] >= h - 3)
        if on_border.sum() > 1:
            continue
        out.append((hull_area, qf))
    return out


def _four_sides(hull: NDArray[np.int32], config: LocateConfig) -> FloatArray | None:
    """The quadrilateral of a convex outline's four longest sides.

    Corners cut off by a hand, rounded board corners or a piece standing on a corner make
    short extra sides; the four long ones, extended, meet at the board's corners.
    """
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, config.quad_eps[0] * peri, True).reshape(-1, 2)
    poly = poly.astype(np.float64)
    if len(poly) < 4:
        return None
    seg = np.roll(poly, -1, axis=0) - poly
    length = np.hypot(seg[:, 0], seg[:, 1])
    keep = np.sort(np.argsort(-length)[:4])
    if length[keep].min() < config.quad_min_side * peri:
        return None
    corners = []
    for i in range(4):
        a, b = keep[i], keep[(i + 1) % 4]
        p, r = poly[a], seg[a]
        q, t = poly[b], seg[b]
        den = r[0] * t[1] - r[1] * t[0]
        if abs(den) < 1e-9 * (np.hypot(*r) * np.hypot(*t) + 1e-12):
            return None
        u = ((q[0] - p[0]) * t[1] - (q[1] - p[1]) * t[0]) / den
        corners.append(p + u * r)
    quad = np.array(corners)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def _dedupe(quads: list[tuple[float, FloatArray]], tol: float) -> list[tuple[float, FloatArray]]:
    kept: list[tuple[float, FloatArray]] = []
    for a, q in sorted(quads, key=lambda f: -f[0]):
        size = np.sqrt(a)
        if all(_quad_distance(q, k) > tol * size for _, k in kept):
            kept.append((a, q))
    return kept


def _quad_distance(a: FloatArray, b: FloatArray) -> float:
    """Largest corner distance between two quads, over the cyclic orders of b."""
    best = np.inf
    for r in range(4):
        for bb in (np.roll(b, r, axis=0), np.roll(b[::-1], r, axis=0)):
            best = min(best, float(np.max(np.hypot(*(a - bb).T))))
    return float(best)


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
        out.append(LatticeHypothesis(H, grid, 0, radius, shape))
    return out
