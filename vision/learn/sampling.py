"""Geometry-normalised sampling: the camera-facing frame of each cell, the board's own colour,
and Lab values at sub-pixel points.

Sample points are fixed in *board metres* on frames attached to each cell and turned towards
the camera (``vision.learn.patches`` lays its grids on them), so a tall piece always lands on
the same rows whatever the view.

The frame is sampled on an image pyramid: each cell uses the level where neighbouring samples
are about ``min_step_px`` apart, so the pyramid's smoothing is the anti-alias filter and a
distant board gives the same kind of values as a close one.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.io import check_frame
from vision.read.stats import nanmedian

FloatArray = NDArray[np.float64]

#: remap maps are limited to 32767 columns: long point lists are folded into rows of this size.
_REMAP_COLS = 4096


@dataclass(frozen=True)
class CellFrames:
    """Per-cell frames in board metres, all (16, 3) except ``elevation_rad`` (16,).

    ``lateral`` is horizontal and points to the image right; ``toward`` is horizontal and
    points from the cell towards the camera; ``elevation_rad`` is the camera's elevation seen
    from the cell centre (90 degrees when the camera is straight above it).
    """

    centers: FloatArray
    lateral: FloatArray
    toward: FloatArray
    elevation_rad: FloatArray


def cell_frames(view: BoardView) -> CellFrames:
    """The camera-facing frame of every cell (``ALL_CELLS`` order)."""
    xy = view.spec.cell_centers()
    centers = np.column_stack([xy, np.zeros(len(xy))])
    cam = view.camera.pose.camera_center
    d = cam[None, :] - centers
    horiz = np.hypot(d[:, 0], d[:, 1])
    elevation = np.arctan2(d[:, 2], horiz)
    toward = np.zeros_like(centers)
    # Straight above a cell the horizontal direction is undefined: use the image's "down"
    # direction mapped to the board (where the camera would be after a tiny tilt).
    down_board = view.camera.pose.R.T @ np.array([0.0, 1.0, 0.0])
    fallback = np.array([down_board[0], down_board[1], 0.0])
    if np.linalg.norm(fallback) < 1e-9:
        fallback = np.array([1.0, 0.0, 0.0])
    fallback /= np.linalg.norm(fallback)
    ok = horiz > 1e-4
    toward[ok, :2] = d[ok, :2] / horiz[ok, None]
    toward[~ok] = fallback
    lateral = np.column_stack([-toward[:, 1], toward[:, 0], np.zeros(len(xy))])
    # Orient "lateral" to the image right at each cell.
    a = view.project(centers)
    b = view.project(centers + 0.01 * lateral)
    flip = (b[:, 0] - a[:, 0]) < 0
    lateral[flip] *= -1.0
    return CellFrames(centers, lateral, toward, elevation)


def reference_points_m(view: BoardView) -> tuple[FloatArray, NDArray[np.int64]]:
    """Board-surface points between the cells, where the bare board shows.

    Returns
    -------
    points : (K, 3) board metres: the 5 x 5 lattice of cell-grid corners that lies on the board
        (corners of the 45-degree grid's outer ring fall off it and are dropped).
    cell_corners : (16, 4) index into ``points`` of the four corners around each cell, or -1.
    """
    spec = view.spec
    p = spec.cell_pitch_m
    k = (np.arange(5) - 2.0) * p
    gu, gv = np.meshgrid(k, -k)  # v grows towards row 0, like BoardSpec.cell_center
    a = np.radians(spec.grid_rotation_deg)
    ca, sa = np.cos(a), np.sin(a)
    x = ca * gu - sa * gv
    y = sa * gu + ca * gv
    # Sanity: the lattice must surround the cell centres given by the spec.
    half = spec.side_m / 2.0 - 0.25 * p
    on_board = (np.abs(x) < half) & (np.abs(y) < half)
    index = -np.ones((5, 5), dtype=np.int64)
    index[on_board] = np.arange(int(on_board.sum()))
    points = np.column_stack([x[on_board], y[on_board], np.zeros(int(on_board.sum()))])
    corners = np.zeros((16, 4), dtype=np.int64)
    for r in range(4):
        for col in range(4):
            corners[r * 4 + col] = [
                index[r, col], index[r, col + 1], index[r + 1, col], index[r + 1, col + 1]
            ]
    return points, corners


def board_colours(
    ref_lab: NDArray[np.float32],
    ref_valid: NDArray[np.bool_],
    corners: NDArray[np.int64],
    cell_lab: NDArray[np.float32],
    cell_valid: NDArray[np.bool_],
) -> tuple[NDArray[np.float32], FloatArray]:
    """The board's own colour, overall and around each cell, from the between-cell points.

    Parameters
    ----------
    ref_lab, ref_valid : (K, 3) Lab values of ``reference_points_m`` and their in-frame mask.
    corners : (16, 4) indices of the reference points around each cell (-1: none).
    cell_lab, cell_valid : (16, P, 3) and (16, P) the cells' own samples, the fallback when no
        reference point is in the frame.

    Returns
    -------
    board : (3,) float32, the median Lab colour of the bare board (a median, so pieces
        covering a few reference points do not move it).
    local : (16, 3) the median of the (up to) four reference points around each cell, or the
        board's colour where none is in view.
    """
    if ref_valid.any():
        board = np.median(ref_lab[ref_valid], axis=0)
    elif cell_valid.any():  # board edges all outside the frame: fall back on everything seen
        board = np.median(cell_lab[cell_valid], axis=0)
    else:
        board = np.array([50.0, 0.0, 0.0], dtype=np.float32)
    # The reference points around each cell, NaN where there is none or it is out of frame.
    seen = (corners >= 0) & ref_valid[np.maximum(corners, 0)]
    around = np.where(seen[..., None], ref_lab[np.maximum(corners, 0)], np.nan)
    local = np.tile(board, (len(corners), 1)).astype(np.float64)
    has = seen.any(axis=1)
    local[has] = nanmedian(around[has], axis=1)
    return board, local


def lateral_step_px(view: BoardView, frames: CellFrames, step_m: float) -> FloatArray:
    """(16,) image length in pixels of a ``step_m`` lateral step at each cell centre."""
    a = view.project(frames.centers)
    b = view.project(frames.centers + step_m * frames.lateral)
    return np.asarray(np.linalg.norm(b - a, axis=1), dtype=np.float64)


#: Pixels kept around a window (level-0 pixels): a level-3 pixel depends on level-0 pixels up
#: to 14 away, its bilinear neighbour 8 further.
_WINDOW_MARGIN = 32


class Pyramid:
    """An image pyramid of a BGR frame that samples Lab values at sub-pixel points.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    levels : number of halvings kept (0 keeps the frame only).
    window_xyxy : optional part of the frame that holds every point that will be sampled:
        only it (with a margin, aligned to the coarsest level) is kept, and every pyramid
        value read in it is the one the whole frame's pyramid has. A point inside the frame
        but outside the window reads the window's edge instead.
    """

    def __init__(self, frame_bgr: NDArray[np.uint8], levels: int,
                 window_xyxy: tuple[float, float, float, float] | None = None) -> None:
        check_frame(frame_bgr)
        self.size_wh = (frame_bgr.shape[1], frame_bgr.shape[0])
        self.origin_xy = (0, 0)
        self._levels_asked = levels
        image = frame_bgr
        if window_xyxy is not None:
            image = self._window(frame_bgr, levels, window_xyxy)
        oy, ox = self.origin_xy[1], self.origin_xy[0]
        self._crop_xyxy = (ox, oy, ox + image.shape[1], oy + image.shape[0])
        self.levels: list[NDArray[np.uint8]] = [image]
        for _ in range(levels):
            prev = self.levels[-1]
            if min(prev.shape[:2]) < 8:
                break
            self.levels.append(cv2.pyrDown(prev))

    def _window(self, frame_bgr: NDArray[np.uint8], levels: int,
                window_xyxy: tuple[float, float, float, float]) -> NDArray[np.uint8]:
        """The aligned crop kept for ``window_xyxy`` (the whole frame when cropping would
        change the number of levels built)."""
        w, h = self.size_wh
        x0, y0, x1, y1 = _crop_xyxy(w, h, levels, window_xyxy)
        if _n_levels(x1 - x0, y1 - y0, levels) != _n_levels(w, h, levels):
            return frame_bgr
        self.origin_xy = (x0, y0)
        return frame_bgr[y0:y1, x0:x1]

    def covers(self, frame_bgr: NDArray[np.uint8], levels: int,
               window_xyxy: tuple[float, float, float, float] | None) -> bool:
        """Whether this pyramid, built from ``frame_bgr`` (the caller's to ensure), reads
        every point of ``window_xyxy`` as ``Pyramid(frame_bgr, levels, window_xyxy)`` would.

        It does when it holds the crop that one would keep: both read the whole frame's
        pyramid values there (the crop's margin keeps its edges out of reach), so the
        learned reader's further patches of one frame (other plane heights) reuse it.
        """
        w, h = self.size_wh
        if levels != self._levels_asked or (frame_bgr.shape[1], frame_bgr.shape[0]) != (w, h):
            return False
        want = (0, 0, w, h) if window_xyxy is None else _crop_xyxy(w, h, levels, window_xyxy)
        have = self._crop_xyxy
        return (have[0] <= want[0] and have[1] <= want[1] and want[2] <= have[2]
                and want[3] <= have[3])

    def sample_lab(
        self, points_xy: FloatArray, level: NDArray[np.int64]
    ) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
        """Lab values (L 0..100) at (N, 2) frame pixels, each read at its pyramid ``level``.

        Returns the (N, 3) float32 values and an (N,) mask, False where a point lies outside
        the frame (its value is then that of some border pixel).
        """
        pts = np.asarray(points_xy, dtype=np.float64).reshape(-1, 2)
        lvl = np.clip(np.asarray(level, dtype=np.int64).reshape(-1), 0, len(self.levels) - 1)
        w, h = self.size_wh
        valid = (
            np.isfinite(pts[:, 0]) & np.isfinite(pts[:, 1])  # not .all(axis=1): 10x slower
            & (pts[:, 0] >= -0.5) & (pts[:, 1] >= -0.5)
            & (pts[:, 0] <= w - 0.5) & (pts[:, 1] <= h - 0.5)
        )
        # Column by column (numpy's loops over rows of two cost more than the work).
        px = np.where(valid, pts[:, 0], 0.0)
        py = np.where(valid, pts[:, 1], 0.0)
        out = np.zeros((len(pts), 3), dtype=np.float32)
        ox, oy = self.origin_xy
        # The levels present, in order (as ``np.unique``, without sorting the points).
        counts = np.bincount(lvl, minlength=1)
        for k in np.flatnonzero(counts):
            # One level for every point (the usual case): no selection to gather or scatter.
            every = bool(counts[k] == len(pts))
            sel = np.flatnonzero(lvl == k) if not every else None
            scale = 0.5 ** int(k)
            x = (((px if every else px[sel]) + 0.5) * scale - 0.5).astype(np.float32)
            y = (((py if every else py[sel]) + 0.5) * scale - 0.5).astype(np.float32)
            if ox or oy:
                # Whole pixels of this level, subtracted in float32: exact for every point in
                # the window, so the bilinear weights are those of the whole frame.
                x -= np.float32(ox * scale)
                y -= np.float32(oy * scale)
            if every:
                out[:] = _remap_points(self.levels[int(k)], x, y)
            else:
                out[sel] = _remap_points(self.levels[int(k)], x, y)
        lab = cv2.cvtColor((out / 255.0).reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)
        return lab, valid


def _crop_xyxy(w: int, h: int, levels: int,
               window_xyxy: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """The part of a (w, h) frame :class:`Pyramid` keeps for a window: the window with a
    margin, clipped to the frame, its top-left corner aligned to the coarsest level."""
    align = 2 ** max(levels, 0)
    wx0, wy0, wx1, wy1 = window_xyxy
    x0 = int(min(max(np.floor((wx0 - _WINDOW_MARGIN) / align) * align, 0), w - 1))
    y0 = int(min(max(np.floor((wy0 - _WINDOW_MARGIN) / align) * align, 0), h - 1))
    x1 = int(min(max(np.ceil(wx1 + _WINDOW_MARGIN), x0 + 1), w))
    y1 = int(min(max(np.ceil(wy1 + _WINDOW_MARGIN), y0 + 1), h))
    x0 -= x0 % align
    y0 -= y0 % align
    return x0, y0, x1, y1


def _n_levels(w: int, h: int, levels: int) -> int:
    """How many halvings :class:`Pyramid` makes of a (w, h) image."""
    n = 0
    while n < levels and min(w, h) >= 8:
        w, h = (w + 1) // 2, (h + 1) // 2
        n += 1
    return n


def _remap_points(
    image: NDArray[np.uint8], x: NDArray[np.float32], y: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Bilinear BGR values of ``image`` at float pixel coordinates (N,) -> (N, 3)."""
    n = len(x)
    rows = max(1, -(-n // _REMAP_COLS))
    cols = min(n, _REMAP_COLS) if n else 1
    pad = rows * cols - n
    mx = np.concatenate([x, np.zeros(pad, np.float32)]).reshape(rows, cols)
    my = np.concatenate([y, np.zeros(pad, np.float32)]).reshape(rows, cols)
    res = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return res.reshape(-1, 3)[:n].astype(np.float32)
