"""Occlusion prediction: which part of each piece the nearer pieces hide.

Pieces are drawn as filled convex silhouettes (the projected hull of their bottom and top
outlines) into a small mask, nearest first; a piece's visible fraction is the share of its own
silhouette not already covered. Its top face is judged the same way, and is also unreadable
when the camera sees it too obliquely (``top_sine`` below the configured limit).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, circle_points, project_grid, silhouette_polygon

FloatArray = NDArray[np.float64]

#: Silhouettes are rasterised at this share of the frame resolution (enough for fractions).
_MASK_SCALE = 0.5


def visible_fractions(
    view: BoardView,
    frames: CellFrames,
    occupied: NDArray[np.bool_],
    heights_m: FloatArray,
    width_factor: float = 1.1,
) -> tuple[FloatArray, FloatArray]:
    """Visible share of each occupied piece's silhouette and of its top face.

    Parameters
    ----------
    occupied : (16,) which cells hold a piece.
    heights_m : (16,) estimated heights (ignored for empty cells).
    width_factor : silhouette width in nominal footprints (1.1 covers square pieces' corners
        in most orientations without swallowing the neighbours).

    Returns
    -------
    visible, top_visible : (16,) fractions in 0..1 (1 for empty cells).
    """
    w, h = view.camera.intrinsics.size_wh
    size = (max(1, int(h * _MASK_SCALE) + 1), max(1, int(w * _MASK_SCALE) + 1))
    union = np.zeros(size, dtype=np.uint8)
    visible = np.ones(16)
    top_visible = np.ones(16)
    order = np.argsort(frames.depth_m)
    a = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    top_pts = project_grid(view, circle_points(frames, 0.3 * frames.footprint_m, heights_m[:, None], a))
    for i in order:
        if not occupied[i]:
            continue
        poly = silhouette_polygon(view, frames, int(i), width_factor * frames.footprint_m,
                                  float(heights_m[i]))
        poly = np.round(poly * _MASK_SCALE).astype(np.int32)
        own = np.zeros(size, dtype=np.uint8)
        cv2.fillConvexPoly(own, poly, 1)
        area = int(own.sum())
        if area > 0:
            visible[i] = 1.0 - float(np.count_nonzero(own & union)) / area
        tp = np.round(top_pts[i, 0] * _MASK_SCALE).astype(np.int64)
        inside = (tp[:, 0] >= 0) & (tp[:, 1] >= 0) & (tp[:, 0] < size[1]) & (tp[:, 1] < size[0])
        covered = np.zeros(len(tp), dtype=bool)
        covered[inside] = union[tp[inside, 1], tp[inside, 0]] > 0
        top_visible[i] = float(np.mean(~covered & inside))
        union |= own
    return visible, top_visible
