"""A BoardView from four board corners given by hand (the board lock)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import LAYOUT_AXIS, BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics
from vision.locate.config import LocateConfig
from vision.locate.pose import intrinsics_for, pose_from_homography


def view_from_corners(
    corners_px: NDArray[np.float64], size_wh: tuple[int, int], layout: str, *,
    intrinsics: Intrinsics | None = None, config: LocateConfig | None = None,
) -> BoardView:
    """The board view implied by its four top corners.

    Parameters
    ----------
    corners_px : (4, 2) float
        Board top corners in pixels, order (-x,-y), (+x,-y), (+x,+y), (-x,+y) (any starting
        corner works for a square board; the order must go round the board).
    size_wh : (int, int)
        Image size.
    layout : {'diagonal', 'axis'}
        Grid layout; the nominal Gigamic or home-made proportions are used.
    intrinsics : Intrinsics, optional
        Calibrated camera; else the focal length is estimated from the corners.
    config : LocateConfig, optional

    Returns
    -------
    BoardView
    """
    config = config or LocateConfig()
    corners = np.asarray(corners_px, dtype=np.float64)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        raise ValueError(f"corners_px must be (4, 2) finite, got {corners.shape}")
    p = config.nominal_pitch_for(layout)
    spec = (BoardSpec.axis_aligned(p / 0.22) if layout == LAYOUT_AXIS
            else BoardSpec.gigamic(p / 0.18))
    src = spec.corners()
    if intrinsics is not None and intrinsics.has_distortion:
        corners = cv2.undistortPoints(corners.reshape(-1, 1, 2), intrinsics.matrix,
                                      intrinsics.dist, P=intrinsics.matrix).reshape(-1, 2)
    H, _ = cv2.findHomography(src, corners, 0)
    if H is None:
        raise ValueError("the four corners are degenerate (three on a line?)")
    if intrinsics is None:
        intr, _ = intrinsics_for(H, size_wh, config.default_hfov_deg, config.hfov_range_deg,
                                 config.max_focal_elevation_deg)
    else:
        intr = intrinsics
    pose = pose_from_homography(H, intr.matrix)
    if pose.camera_center[2] < 0:
        # Corners given clockwise in the board frame: walk them the other way round.
        H, _ = cv2.findHomography(src, corners[[0, 3, 2, 1]], 0)
        pose = pose_from_homography(H, intr.matrix)
    return BoardView(Camera(intr, pose), spec, calibrated=intrinsics is not None, score=1.0)
