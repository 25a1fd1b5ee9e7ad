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
    h, w = gray.shape
    g = cv2.GaussianBlur(gray, (0, 0), config.quad_smooth_px)
    edges = cv2.Canny(g, config.quad_canny[0], config.quad_canny[1])
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(255 - edges, connectivity=4)
    found: list[tuple[float, FloatArray]] = []
    min_area = config.quad_min_area * h * w
    for k in range(1, n):
        area = float(stats[k, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        x, y, bw, bh = (int(v) for v in stats[k, :4])
        if bw >= w - 2 and bh >= h - 2:
            continue  # the whole background
        sub = (labels[y : y + bh, x : x + bw] == k).astype(np.uint8)
        cnts, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not cnts:
            continue
        outer = max(cnts, key=cv2.contourArea) + np.array([x, y], np.int32)
        hull = cv2.convexHull(outer)
        hull_area = float(cv2.contourArea(hull))
        # Solidity of the filled outline: pieces standing on the board and the big circle
        # (which cuts the top face into a disc and four corners) leave holes, not dents.
        if hull_area <= 0 or cv2.contourArea(outer) / hull_area < config.quad_min_solidity:
            continue
        peri = cv2.arcLength(hull, True)
        quad = None
        for eps in config.quad_eps:
            q = cv2.approxPolyDP(hull, eps * peri, True)
            if len(q) <= 4:
                quad = q
                break
        if quad is None or len(quad) != 4:
            continue
        if cv2.contourArea(quad) < config.quad_min_fill * hull_area:
            continue
        q = quad.reshape(4, 2).astype(np.float64)
        # Outlines running along the image border are the table or the frame, not a board.
        on_border = (q[:, 0] <= 2) | (q[:, 0] >= w - 3) | (q[:, 1] <= 2) | (q[:, 1] >= h - 3)
        if on_border.sum() > 1:
            continue
        found.append((hull_area, q))
    found.sort(key=lambda f: -f[0])
    return [q for _, q in found[: config.max_quads]]


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
