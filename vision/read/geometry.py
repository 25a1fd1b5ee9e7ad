"""Where a piece hypothesis must appear in the image: the camera model applied to pieces.

For every cell the reader builds a small local frame on the board: ``away`` is the horizontal
direction from the camera towards the cell, ``side`` is perpendicular to it. A piece standing on
the cell is a vertical prism (cylinder or square box) of footprint width ``F`` and height ``h``.
Its top rim on the far side (``away``) is the top of its silhouette from any camera above the
board, its base footprint is always hidden by the piece itself, and its top face is a horizontal
plane at ``z = h``. Everything here is pure projection through the ``BoardView``; no pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class CellFrames:
    """Per-cell local frames, arrays over the 16 cells in ``ALL_CELLS`` order.

    Attributes
    ----------
    centers_m : (16, 3) cell centres on the board surface.
    away, side : (16, 3) horizontal unit vectors: away from the camera, and to its right.
    top_sine : (16,) sine of the viewing elevation at each cell (1 = seen from straight above).
    depth_m : (16,) distance of each cell centre along the optical axis.
    footprint_m : nominal footprint width F.
    px_per_m : (16,) image scale at each cell centre (pixels per metre on the board).
    """

    centers_m: FloatArray
    away: FloatArray
    side: FloatArray
    top_sine: FloatArray
    depth_m: FloatArray
    footprint_m: float
    px_per_m: FloatArray

    @property
    def footprint_px(self) -> FloatArray:
        """(16,) nominal footprint width in pixels at each cell."""
        return self.footprint_m * self.px_per_m


def cell_frames(view: BoardView, footprint_frac_of_ring: float) -> CellFrames:
    """Build the local frame of every cell of ``view``."""
    spec = view.spec
    xy = spec.cell_centers()
    centers = np.column_stack([xy, np.zeros(len(xy))])
    eye = view.camera.pose.camera_center
    horiz = centers[:, :2] - eye[None, :2]
    norm = np.linalg.norm(horiz, axis=1, keepdims=True)
    # Straight above a cell the away direction is undefined; any direction serves there.
    fallback = np.array([[0.0, 1.0]])
    away2 = np.where(norm > 1e-6, horiz / np.maximum(norm, 1e-12), fallback)
    away = np.column_stack([away2, np.zeros(len(xy))])
    side = np.column_stack([-away2[:, 1], away2[:, 0], np.zeros(len(xy))])
    rays = centers - eye[None, :]
    top_sine = np.abs(rays[:, 2]) / np.linalg.norm(rays, axis=1)
    depth = view.camera.depth(centers)
    # Local scale: image length of a short board-plane segment at the cell, both directions.
    step = 0.01
    p0 = view.project(centers)
    px = view.project(centers + np.array([step, 0.0, 0.0]))
    py = view.project(centers + np.array([0.0, step, 0.0]))
    scale = np.sqrt(np.linalg.norm(px - p0, axis=1) * np.linalg.norm(py - p0, axis=1)) / step
    footprint = footprint_frac_of_ring * spec.cell_diameter_m
    return CellFrames(centers, away, side, top_sine, depth, footprint, scale)


def circle_points(
    frames: CellFrames, radius_m: float | FloatArray, heights_m: FloatArray,
    angles_rad: FloatArray,
) -> FloatArray:
    """World points on horizontal circles around each cell's vertical axis.

    Parameters
    ----------
    radius_m : circle radius, or (J,) one radius per angle (several circles at once).
    heights_m : (K,) heights above the board, or (16, K) per cell.
    angles_rad : (J,) angles measured from ``away`` towards ``side``.

    Returns
    -------
    (16, K, J, 3) float array.
    """
    h = np.asarray(heights_m, dtype=np.float64)
    if h.ndim == 1:
        h = np.broadcast_to(h, (len(frames.centers_m), len(h)))
    a = np.asarray(angles_rad, dtype=np.float64)
    radial = (
        np.cos(a)[None, :, None] * frames.away[:, None, :]
        + np.sin(a)[None, :, None] * frames.side[:, None, :]
    )  # (16, J, 3)
    r = radius_m if np.ndim(radius_m) == 0 else np.asarray(radius_m, np.float64)[:, None]
    pts = frames.centers_m[:, None, None, :] + r * radial[:, None, :, :]
    pts = pts + np.zeros((1, 1, 1, 3))
    if not np.all(np.isfinite(h)):
        return pts + h[:, :, None, None] * np.array([0.0, 0.0, 1.0])
    # Lifted to every height: adding h * (0, 0, 1) adds zeros to x and y (which the line
    # above already did) and h to z, so only z is computed again.
    out = np.empty((*h.shape, pts.shape[2], 3))
    out[:] = pts
    out[..., 2] += h[:, :, None]
    return out


def project_grid(view: BoardView, points_m: FloatArray) -> FloatArray:
    """Project an (..., 3) array of world points to an (..., 2) array of pixels."""
    shape = points_m.shape[:-1]
    return view.project(points_m.reshape(-1, 3)).reshape(*shape, 2)


def piece_outline(
    frames: CellFrames, cell_index: int, width_m: float, height_m: float, n: int = 16
) -> FloatArray:
    """(2n, 3) world points on the bottom and top circles of a piece; their projected convex
    hull is the piece's silhouette (a circumscribed cylinder also covers a square piece)."""
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    pts = circle_points(frames, width_m / 2.0, np.array([0.0, height_m]), a)[cell_index]
    return pts.reshape(-1, 3)


def silhouette_polygon(
    view: BoardView, frames: CellFrames, cell_index: int, width_m: float, height_m: float
) -> NDArray[np.int32]:
    """Convex image polygon (M, 2) int32 covered by a piece of that size on that cell."""
    px = view.project(piece_outline(frames, cell_index, width_m, height_m))
    return _hull_polygon(px)


def silhouette_polygons(
    view: BoardView, frames: CellFrames, width_m: float, heights_m: FloatArray, n: int = 16
) -> list[NDArray[np.int32]]:
    """:func:`silhouette_polygon` of every cell, cell ``i`` with a piece ``heights_m[i]`` tall,
    from one projection of all the outlines (the same polygons, for a fraction of the time).
    """
    h = np.asarray(heights_m, dtype=np.float64)
    if h.shape != (len(frames.centers_m),):
        raise ValueError(f"heights_m must have one height per cell, got shape {h.shape}")
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    levels = np.column_stack([np.zeros_like(h), h])  # (16, 2): bottom and top circles
    pts = circle_points(frames, width_m / 2.0, levels, a)  # (16, 2, n, 3)
    px = project_grid(view, pts).reshape(len(h), 2 * n, 2)
    return [_hull_polygon(p) for p in px]


def _hull_polygon(px: FloatArray) -> NDArray[np.int32]:
    hull = cv2.convexHull(px.astype(np.float32))
    return np.round(hull.reshape(-1, 2)).astype(np.int32)


def top_plane_grid(
    frames: CellFrames, heights_m: FloatArray, half_extent_m: float, n: int
) -> FloatArray:
    """(16, n, n, 3) metric grid on each cell's top plane ``z = heights_m[i]``.

    Axis 1 runs along ``away`` (far side last), axis 2 along ``side``; the grid spans
    ``[-half_extent_m, half_extent_m]`` in both directions, so it shows the top face undistorted
    whatever the viewing angle.
    """
    u = np.linspace(-half_extent_m, half_extent_m, n)
    base = frames.centers_m.copy()
    base[:, 2] = heights_m
    # base + u away + u' side, one coordinate at a time (the same sums as on (..., 3)
    # points, whose broadcasts run numpy's loops three values at a time).
    out = np.empty((len(base), n, n, 3))
    for k in range(3):
        g_away = u[None, :, None] * frames.away[:, k, None, None]
        g_side = u[None, None, :] * frames.side[:, k, None, None]
        out[..., k] = base[:, k, None, None] + g_away + g_side
    return out
