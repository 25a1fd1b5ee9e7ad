"""The top face: hole (hollow/solid) and outline (round/square), read on the plane z = h.

Once a piece's height ``h`` is estimated, the plane ``z = h`` is mapped to the image by a
homography, so the top face can be sampled on a metric grid: it appears undistorted (a disc of
diameter F or a square of side about 0.9 F) whatever the viewing angle, only foreshortened in
resolution. On that grid:

- a hole is a darker disc in the centre (a pit about 0.25 F deep lies in its own shadow and
  shows its inner wall), compared with the top's rim band;
- a square top still covers the points at 0.6 F from the centre towards its corners, where a
  round top has already ended; square pieces stand either along the grid or at 45 degrees to it,
  so a few candidate orientations are tried.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, circle_points, project_grid
from vision.read.sampling import LabPatch, lab_distance

FloatArray = NDArray[np.float64]

#: Candidate square orientations relative to the cell's away direction, degrees (0..90).
_YAWS_DEG = np.arange(0.0, 90.0, 15.0)


@dataclass(frozen=True)
class TopFeatures:
    """Per-cell top-face measurements (16,): ``hole_darkening`` is the lightness drop of the
    centre relative to the rim band (share of the rim's lightness); ``squareness`` is how much
    more the corner points look like the top than like its surroundings (in -1..1);
    ``top_lab`` is the (16, 3) median colour of the rim band."""

    hole_darkening: FloatArray
    squareness: FloatArray
    top_lab: NDArray[np.float32]


def top_features(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray
) -> TopFeatures:
    """Measure the top face of a piece of height ``heights_m[i]`` on every cell."""
    f = frames.footprint_m
    ring = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    h2 = heights_m[:, None]
    centre = project_grid(view, circle_points(frames, 0.08 * f, h2, ring[::3]))[:, 0]
    band = project_grid(view, circle_points(frames, 0.4 * f, h2, ring))[:, 0]
    yaws = np.radians(_YAWS_DEG)
    corner_a = (yaws[:, None] + np.radians(45.0) + np.arange(4)[None, :] * np.pi / 2).ravel()
    mid_a = (yaws[:, None] + np.arange(4)[None, :] * np.pi / 2).ravel()
    corner = project_grid(view, circle_points(frames, 0.6 * f, h2, corner_a))[:, 0]
    mid = project_grid(view, circle_points(frames, 0.62 * f, h2, mid_a))[:, 0]
    n_c, n_b = centre.shape[1], band.shape[1]
    pts = np.concatenate([centre, band, corner, mid], axis=1)
    vals, _ = patch.sample(pts)
    v_centre = vals[:, :n_c]
    v_band = vals[:, n_c : n_c + n_b]
    v_corner = vals[:, n_c + n_b : n_c + n_b + len(corner_a)]
    v_mid = vals[:, n_c + n_b + len(corner_a) :]
    top = np.median(v_band, axis=1)
    l_top = np.maximum(top[:, 0], 5.0)
    hole = (l_top - np.median(v_centre[:, :, 0], axis=1)) / l_top
    d_corner = lab_distance(v_corner, top[:, None, :]).reshape(16, len(yaws), 4)
    d_mid = lab_distance(v_mid, top[:, None, :]).reshape(16, len(yaws), 4)
    # For each orientation: corners like the top and edge midpoints unlike it.
    sq = (np.mean(d_mid, axis=2) - np.mean(d_corner, axis=2)) / (
        np.mean(d_mid, axis=2) + np.mean(d_corner, axis=2) + 4.0
    )
    return TopFeatures(hole.astype(np.float64), np.max(sq, axis=1), top.astype(np.float32))
