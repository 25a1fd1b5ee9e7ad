"""Occlusion prediction: which part of each piece (or cell) the nearer pieces hide.

Pieces are drawn as filled convex silhouettes (the projected hull of their bottom and top
outlines) into a small mask, nearest first. A piece's visible fraction is the share of its own
silhouette not already covered; a sample point is usable only where no nearer piece stands in
front of it. The reader walks the cells from the camera outwards, so every decision about a
cell can take the nearer cells' pieces into account.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, silhouette_polygon

FloatArray = NDArray[np.float64]

#: Silhouettes are rasterised at this share of the frame resolution (enough for fractions).
_MASK_SCALE = 0.25


class OcclusionMask:
    """Union of the silhouettes of the pieces placed so far (nearest first).

    Parameters
    ----------
    view, frames : the board and its cell frames.
    width_factor : silhouette width in nominal footprints (1.1 covers square pieces' corners
        in most orientations without swallowing the neighbours).
    """

    def __init__(self, view: BoardView, frames: CellFrames, width_factor: float = 1.1) -> None:
        w, h = view.camera.intrinsics.size_wh
        self._size = (max(1, int(h * _MASK_SCALE) + 1), max(1, int(w * _MASK_SCALE) + 1))
        self._union = np.zeros(self._size, dtype=np.uint8)
        self._view = view
        self._frames = frames
        self._width = width_factor * frames.footprint_m
        self._last: tuple[int, float, NDArray[np.uint8]] | None = None

    def silhouette(self, cell_index: int, height_m: float) -> NDArray[np.uint8]:
        """The (small) mask of one piece's silhouette (the last one is kept for reuse)."""
        if self._last is not None and self._last[:2] == (cell_index, height_m):
            return self._last[2]
        poly = silhouette_polygon(self._view, self._frames, cell_index, self._width, height_m)
        own = np.zeros(self._size, dtype=np.uint8)
        cv2.fillConvexPoly(own, np.round(poly * _MASK_SCALE).astype(np.int32), 1)
        self._last = (cell_index, height_m, own)
        return own

    def visible_fraction(self, cell_index: int, height_m: float) -> float:
        """Share of a piece's silhouette not hidden by the pieces added so far."""
        own = self.silhouette(cell_index, height_m)
        area = int(own.sum())
        if area == 0:
            return 0.0
        return 1.0 - float(np.count_nonzero(own & self._union)) / area

    def uncovered(self, points_xy: FloatArray) -> NDArray[np.bool_]:
        """(...) True where an (..., 2) image point is inside the frame and not covered."""
        p = np.round(np.asarray(points_xy) * _MASK_SCALE).astype(np.int64)
        inside = (p[..., 0] >= 0) & (p[..., 1] >= 0) & (p[..., 0] < self._size[1]) & (
            p[..., 1] < self._size[0]
        )
        out = np.zeros(p.shape[:-1], dtype=bool)
        q = p[inside]
        out[inside] = self._union[q[:, 1], q[:, 0]] == 0
        return out

    def add(self, cell_index: int, height_m: float) -> None:
        """Add a piece standing on a cell."""
        self._union |= self.silhouette(cell_index, height_m)
