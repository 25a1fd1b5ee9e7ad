"""The far side of a cell's marking: bare board there means no piece stands on the cell.

A piece standing on a cell hides, from any camera below about 50 degrees, the board just
behind it: the far part of the cell's marking (ring, groove, disc or square) and the bare board
around it are covered by the piece's body in the image. Empty, that strip shows the same marking
as every other empty cell of the board, at the same place relative to the cell centre. So
for each cell read occupied, the board points around it (a polar grid in board metres, radii
``FarSideConfig.radii_rings`` ring diameters) that a short piece standing there would hide and
that no nearer piece read on the board covers are compared with the same points around the
cells read surely empty (their median, taken only where no piece read on the board covers
them). When they match in colour (median Lab distance) and in pattern (correlation of the
lightness), the cell's occupancy log-odds are lowered by ``FarSideConfig.weight``.

This is evidence the readers do not use: the network's patches are centred on the cell and
its upper billboard, where a farther piece shows through, and the hand-crafted reader's
occupancy compares colours inside the footprint. It speaks only where the strip is in view,
so not for a cell hidden behind a nearer piece (a still cannot tell those, see
``vision.evaluation.score.cells_in_view``), and it never raises occupancy: a strip unlike the
empty cells' may be a shadow or a neighbour's base as well as a piece.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.config import FarSideConfig
from vision.read.geometry import CellFrames, silhouette_polygon
from vision.read.visibility import OcclusionMask

FloatArray = NDArray[np.float64]


def far_side_points(view: BoardView, config: FarSideConfig) -> FloatArray:
    """(16, P, 2) image points of the polar grid around every cell centre on the board."""
    d = view.spec.cell_diameter_m
    radii = np.asarray(config.radii_rings, np.float64) * d
    ang = np.deg2rad(np.arange(0.0, 360.0, config.angle_step_deg))
    r, a = np.meshgrid(radii, ang, indexing="ij")
    offs = np.column_stack([(r * np.cos(a)).ravel(), (r * np.sin(a)).ravel()])
    centres = view.spec.cell_centers()
    pts = (centres[:, None, :] + offs[None, :, :]).reshape(-1, 2)
    xyz = np.column_stack([pts, np.zeros(len(pts))])
    return view.project(xyz).reshape(len(centres), len(offs), 2)


def sample_lab(frame_bgr: NDArray[np.uint8], points_xy: FloatArray
               ) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Lab (L 0-100) at (..., 2) frame pixels (the nearest pixel), smoothed in Lab over its
    3x3 neighbourhood with Gaussian weights (1, 2, 1) (as ``cv2.GaussianBlur`` of the Lab
    frame with a 3x3 kernel), and whether each point is inside the frame. Full resolution: the
    marking's lines are a few pixels wide, and the readers' Lab crop, scaled down to a set
    footprint size, would average them away."""
    pts = np.asarray(points_xy, np.float64)
    shape = pts.shape[:-1]
    flat = pts.reshape(-1, 2)
    h, w = frame_bgr.shape[:2]
    inside = (flat[:, 0] >= 0) & (flat[:, 1] >= 0) & (flat[:, 0] <= w - 1) & (flat[:, 1] <= h - 1)
    x = np.clip(np.round(flat[:, 0]).astype(np.int64), 0, w - 1)
    y = np.clip(np.round(flat[:, 1]).astype(np.int64), 0, h - 1)
    near = np.stack([frame_bgr[np.clip(y + dy, 0, h - 1), np.clip(x + dx, 0, w - 1)]
                     for dy in (-1, 0, 1) for dx in (-1, 0, 1)])  # (9, N, 3)
    lab = cv2.cvtColor((near.astype(np.float32) / 255.0).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    weights = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]).ravel() / 16.0
    out = np.tensordot(weights, lab.reshape(9, -1, 3).astype(np.float64), axes=1)
    return out.reshape(*shape, 3), inside.reshape(shape)


def inside_polygon(points_xy: FloatArray, polygon: NDArray[np.int32]) -> NDArray[np.bool_]:
    """(N,) whether each (N, 2) image point falls inside a convex polygon (frame pixels),
    from the polygon drawn at full resolution in its bounding box."""
    pts = np.round(np.asarray(points_xy)).astype(np.int64)
    x0, y0 = polygon.min(axis=0)
    x1, y1 = polygon.max(axis=0)
    mask = np.zeros((int(y1 - y0) + 1, int(x1 - x0) + 1), np.uint8)
    cv2.fillConvexPoly(mask, (polygon - np.array([x0, y0])).astype(np.int32), 1)
    x, y = pts[:, 0] - x0, pts[:, 1] - y0
    ok = (x >= 0) & (y >= 0) & (x < mask.shape[1]) & (y < mask.shape[0])
    out = np.zeros(len(pts), bool)
    out[ok] = mask[y[ok], x[ok]] > 0
    return out


def far_side_shift(
    view: BoardView, frames: CellFrames, frame_bgr: NDArray[np.uint8], occupied: FloatArray,
    heights_m: FloatArray, short_m: float, config: FarSideConfig,
) -> FloatArray:
    """(16,) log-odds to add to each cell's occupancy: ``-config.weight`` where the cell is
    read occupied, not so surely that the shift leaves it occupied anyway, and its far strip
    looks like the empty cells', 0 elsewhere.

    Parameters
    ----------
    view, frames : the board and the reader's cell frames.
    frame_bgr : the frame (as the readers saw it, after ``normalise_exposure``).
    occupied : (16,) fused P(occupied).
    heights_m : (16,) read height of the piece on each cell (used where it is occupied).
    short_m : the set's short height as fitted: the strip is what a short piece hides.
    """
    occ = np.asarray(occupied, np.float64)
    out = np.zeros(len(occ))
    read = occ >= 0.5
    # Only the cells the shift can turn are checked: a surer reading stays occupied anyway.
    q = np.clip(occ, 1e-6, 1.0 - 1e-6)
    check = read & (np.log(q / (1.0 - q)) < config.weight)
    empty = occ < config.template_max_occupied
    if not check.any() or not empty.any():
        return out
    px = far_side_points(view, config)
    need = check | empty
    lab = np.zeros((*px.shape[:2], 3))
    inside = np.zeros(px.shape[:2], bool)
    lab[need], inside[need] = sample_lab(frame_bgr, px[need])
    hs = np.where(read, np.asarray(heights_m, np.float64), short_m)
    # Template points: clear of every piece read on the board.
    every = OcclusionMask(view, frames, heights_m=hs)
    for j in np.flatnonzero(read):
        every.add(int(j), float(hs[j]))
    cells = np.flatnonzero(empty)
    tmpl = np.full((len(cells), *lab.shape[1:]), np.nan)
    for k, j in enumerate(cells):
        ok = every.uncovered(px[j]) & inside[j]
        tmpl[k, ok] = lab[j, ok]
    counted = np.sum(~np.isnan(tmpl[..., 0]), axis=0)
    have = counted > 0
    template = np.zeros(lab.shape[1:])
    if have.any():
        template[have] = np.nanmedian(tmpl[:, have], axis=0)
    width = config.hiding_width * frames.footprint_m
    # Cells from the camera outwards: the mask holds the pieces read nearer than each cell.
    nearer = OcclusionMask(view, frames, heights_m=hs)
    for i in np.argsort(frames.depth_m, kind="stable"):
        if not check[i]:
            if read[i]:
                nearer.add(int(i), float(hs[i]))
            continue
        behind = inside_polygon(px[i], silhouette_polygon(view, frames, int(i), width, short_m))
        usable = behind & nearer.uncovered(px[i]) & inside[i] & have
        nearer.add(int(i), float(hs[i]))
        if int(usable.sum()) < config.min_points:
            continue
        dist = float(np.median(np.linalg.norm(lab[i, usable] - template[usable], axis=1)))
        a, t = lab[i, usable, 0], template[usable, 0]
        if a.std() <= 1e-6 or t.std() <= 1e-6:
            continue
        corr = float(np.corrcoef(a, t)[0, 1])
        if dist < config.max_distance and math.isfinite(corr) and corr > config.min_correlation:
            out[i] = -config.weight
    return out
