"""Occlusion prediction: which part of each piece (or cell) the nearer pieces hide.

Pieces are drawn as filled convex silhouettes (the projected hull of their bottom and top
outlines) into a small mask, nearest first. A piece's visible fraction is the share of its own
silhouette not already covered; a sample point is usable only where no nearer piece stands in
front of it. The reader walks the cells from the camera outwards, so every decision about a
cell can take the nearer cells' pieces into account.

Each silhouette is rasterised only within its own bounding box (clipped to the mask): the
pixels are those of the polygon drawn into the whole mask, at a small share of the work.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, silhouette_polygon, silhouette_polygons

FloatArray = NDArray[np.float64]

#: Silhouettes are rasterised at this share of the frame resolution (enough for fractions).
_MASK_SCALE = 0.25

#: A silhouette: its (rows, cols) slices in the mask and its pixels there (uint8 0/1).
_Patch = tuple[tuple[slice, slice], NDArray[np.uint8]]


class OcclusionMask:
    """Union of the silhouettes of the pieces placed so far (nearest first).

    Parameters
    ----------
    view, frames : the board and its cell frames.
    width_factor : silhouette width in nominal footprints (1.1 covers square pieces' corners
        in most orientations without swallowing the neighbours).
    heights_m : optional (16,) height of the piece on each cell: those 16 silhouettes are
        then projected at once (others are still projected when asked for).
    polygons : optional :attr:`polygons` of another mask made with the same ``view``,
        ``frames``, ``width_factor`` and ``heights_m``: taken instead of projecting them again
        (the same polygons).
    """

    def __init__(self, view: BoardView, frames: CellFrames, width_factor: float = 1.1,
                 heights_m: FloatArray | None = None,
                 polygons: Mapping[tuple[int, float], NDArray[np.int32]] | None = None,
                 ) -> None:
        w, h = view.camera.intrinsics.size_wh
        self._size = (max(1, int(h * _MASK_SCALE) + 1), max(1, int(w * _MASK_SCALE) + 1))
        self._union = np.zeros(self._size, dtype=np.uint8)
        self._view = view
        self._frames = frames
        self._width = width_factor * frames.footprint_m
        self._last: tuple[int, float, _Patch] | None = None
        self._polygons: dict[tuple[int, float], NDArray[np.int32]] = {}
        if polygons is not None:
            self._polygons = dict(polygons)
        elif heights_m is not None:
            hs = np.asarray(heights_m, dtype=np.float64)
            polys = silhouette_polygons(view, frames, self._width, hs)
            self._polygons = {(i, float(hs[i])): poly for i, poly in enumerate(polys)}

    @property
    def polygons(self) -> Mapping[tuple[int, float], NDArray[np.int32]]:
        """The silhouettes projected at construction, by (cell index, height)."""
        return self._polygons

    def _patch(self, cell_index: int, height_m: float) -> _Patch:
        """One piece's silhouette within its bounding box (the last one is kept for reuse)."""
        if self._last is not None and self._last[:2] == (cell_index, height_m):
            return self._last[2]
        poly = self._polygons.get((cell_index, height_m))
        if poly is None:
            poly = silhouette_polygon(self._view, self._frames, cell_index, self._width,
                                      height_m)
        small = np.round(poly * _MASK_SCALE).astype(np.int32)
        # Column by column (a reduction over an axis of length 2 costs several times more).
        sx, sy = small[:, 0], small[:, 1]
        x0, y0 = max(int(sx.min()), 0), max(int(sy.min()), 0)
        x1 = min(int(sx.max()), self._size[1] - 1)
        y1 = min(int(sy.max()), self._size[0] - 1)
        own = np.zeros((max(y1 - y0 + 1, 0), max(x1 - x0 + 1, 0)), dtype=np.uint8)
        if own.size:
            cv2.fillConvexPoly(own, (small - np.array([x0, y0], np.int32)).astype(np.int32), 1)
        patch = ((slice(y0, y0 + own.shape[0]), slice(x0, x0 + own.shape[1])), own)
        self._last = (cell_index, height_m, patch)
        return patch

    def silhouette(self, cell_index: int, height_m: float) -> NDArray[np.uint8]:
        """The (small) mask of one piece's silhouette."""
        window, own = self._patch(cell_index, height_m)
        out = np.zeros(self._size, dtype=np.uint8)
        out[window] = own
        return out

    def visible_fraction(self, cell_index: int, height_m: float) -> float:
        """Share of a piece's silhouette not hidden by the pieces added so far."""
        window, own = self._patch(cell_index, height_m)
        area = int(own.sum())
        if area == 0:
            return 0.0
        return 1.0 - float(np.count_nonzero(own & self._union[window])) / area

    def uncovered(self, points_xy: FloatArray) -> NDArray[np.bool_]:
        """(...) True where an (..., 2) image point is inside the frame and not covered."""
        return self.uncovered_pixels(*self.mask_pixels(points_xy))

    def mask_pixels(self, points_xy: FloatArray) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The mask pixels (..., 2) of (..., 2) image points and whether each is inside the
        mask (...): rounded once for points looked up again as pieces are added
        (:meth:`uncovered_pixels`)."""
        p = np.round(np.asarray(points_xy) * _MASK_SCALE).astype(np.int64)
        inside = (p[..., 0] >= 0) & (p[..., 1] >= 0) & (p[..., 0] < self._size[1]) & (
            p[..., 1] < self._size[0]
        )
        return p, inside

    def uncovered_pixels(self, p: NDArray[np.int64], inside: NDArray[np.bool_]
                         ) -> NDArray[np.bool_]:
        """:meth:`uncovered` of points already turned into mask pixels (:meth:`mask_pixels`)."""
        out = np.zeros(p.shape[:-1], dtype=bool)
        q = p[inside]
        out[inside] = self._union[q[:, 1], q[:, 0]] == 0
        return out

    def add(self, cell_index: int, height_m: float) -> None:
        """Add a piece standing on a cell."""
        window, own = self._patch(cell_index, height_m)
        self._union[window] |= own
