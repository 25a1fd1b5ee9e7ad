"""Camera and board pose from the board-plane homography.

With square pixels and the principal point at the image centre, a plane homography
``H ~ K [r1 r2 t]`` fixes the focal length through the orthonormality of ``r1`` and ``r2``
(Zhang's constraints). Near a top-down view the two constraints degenerate, so the estimate is
kept only when the camera is clearly oblique; otherwise a default field of view is used. The
pose then follows by decomposing ``K^-1 H``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.camera import Intrinsics, Pose

FloatArray = NDArray[np.float64]


def estimate_focal(H: FloatArray, principal: tuple[float, float]) -> float | None:
    """Focal length (pixels) from a homography of a plane with square, orthogonal axes.

    Parameters
    ----------
    H : (3, 3) float
        Plane (x, y) -> pixel homography; the plane's axes must be orthogonal and equally
        scaled (any rotation and scale of them is fine).
    principal : (cx, cy)
        Principal point, pixels.

    Returns
    -------
    float or None
        The focal length, or None when the constraints give no positive solution.

    Notes
    -----
    Shifting the principal point to the origin, the columns ``h1, h2`` of ``H`` satisfy, with
    ``w = 1 / f**2``: ``w (a1 a2 + b1 b2) + c1 c2 = 0`` and
    ``w (a1^2 + b1^2 - a2^2 - b2^2) + c1^2 - c2^2 = 0``; ``w`` is their least-squares solution.
    """
    cx, cy = principal
    T = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    G = T @ H
    G = G / np.linalg.norm(G[:, :2])
    a1, b1, c1 = G[:, 0]
    a2, b2, c2 = G[:, 1]
    A = np.array([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2])
    C = np.array([c1 * c2, c1 * c1 - c2 * c2])
    den = float(A @ A)
    if den <= 0:
        return None
    w = -float(A @ C) / den
    if not w > 0:
        return None
    return 1.0 / math.sqrt(w)


def pose_from_homography(H: FloatArray, K: FloatArray) -> Pose:
    """Board-to-camera pose from a board-metres -> pixel homography and a camera matrix.

    The sign is chosen so the board lies in front of the camera; the rotation is the nearest
    proper rotation to ``[r1 r2 r1 x r2]``.
    """
    M = np.linalg.inv(K) @ H
    s = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    M = M * s
    if M[2, 2] < 0:
        M = -M
    r1, r2, t = M[:, 0], M[:, 1], M[:, 2]
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    if np.linalg.det(R) < 0:
        U[:, 2] *= -1
        R = U @ Vt
    return Pose(R, t)


def camera_elevation_deg(pose: Pose) -> float:
    """Angle between the board plane and the line from the board centre to the camera."""
    c = pose.camera_center
    return math.degrees(math.atan2(abs(c[2]), math.hypot(c[0], c[1])))


def intrinsics_for(
    H: FloatArray, size_wh: tuple[int, int], default_hfov_deg: float,
    hfov_range_deg: tuple[float, float], max_elevation_deg: float,
) -> tuple[Intrinsics, bool]:
    """Intrinsics estimated from the board homography, or the default field of view.

    Returns the intrinsics and whether the focal length was estimated (True) or defaulted.
    """
    w, h = size_wh
    default = Intrinsics.from_fov(size_wh, default_hfov_deg)
    f = estimate_focal(H, (default.cx, default.cy))
    if f is None:
        return default, False
    hfov = math.degrees(2.0 * math.atan(w / 2.0 / f))
    if not hfov_range_deg[0] <= hfov <= hfov_range_deg[1]:
        return default, False
    est = Intrinsics(f, f, default.cx, default.cy, (int(w), int(h)))
    # Judge the conditioning with the pose the estimate implies.
    if camera_elevation_deg(pose_from_homography(H, est.matrix)) > max_elevation_deg:
        return default, False
    return est, True


def _grid_points(half_m: float, n: int = 5) -> FloatArray:
    v = np.linspace(-half_m, half_m, n)
    xx, yy = np.meshgrid(v, v)
    return np.column_stack([xx.ravel(), yy.ravel()])


def _apply(H: FloatArray, pts: FloatArray) -> FloatArray:
    q = pts @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def refine_pose(H: FloatArray, K: FloatArray, half_m: float) -> tuple[Pose, float]:
    """The rigid pose whose projection best matches the homography, and its RMS (pixels).

    Parameters
    ----------
    H : (3, 3) float
        Board (x, y) metres -> undistorted pixels, with the camera above the board.
    K : (3, 3) float
        Camera matrix.
    half_m : float
        Half-size of the board region whose points are matched (the grid's extent).

    Notes
    -----
    Decomposing ``K^-1 H`` and orthogonalising gives a pose whose projection drifts from the
    fitted homography when ``K`` is not exactly right; matching a 5x5 grid of points of the
    board with ``cv2.solvePnP`` keeps the cell centres where the image put them.
    """
    pts = _grid_points(half_m)
    img = _apply(H, pts)
    obj = np.column_stack([pts, np.zeros(len(pts))])
    init = pose_from_homography(H, K)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, rvec=init.rvec.reshape(3, 1).copy(),
                                  tvec=init.t.reshape(3, 1).copy(), useExtrinsicGuess=True,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        pose = init
    else:
        R, _ = cv2.Rodrigues(rvec)
        pose = Pose(R, tvec.reshape(3))
    cam = obj @ pose.R.T + pose.t
    proj = cam[:, :2] / cam[:, 2:3] * np.array([K[0, 0], K[1, 1]]) + K[:2, 2]
    return pose, float(np.sqrt(np.mean(np.sum((proj - img) ** 2, axis=1))))


def camera_from_points(
    board_xy: FloatArray, image_xy: FloatArray, size_wh: tuple[int, int], K0: FloatArray,
    *, fix_focal: bool,
) -> tuple[FloatArray, Pose, float]:
    """Focal length and pose fitted to board points and their pixels by one-view calibration.

    Parameters
    ----------
    board_xy : (N, 2) float
        Points on the board plane, metres.
    image_xy : (N, 2) float
        Their (undistorted) pixels.
    K0 : (3, 3) float
        Starting camera matrix; its principal point stays fixed, pixels stay square.
    fix_focal : bool
        Keep the focal length of ``K0`` (calibrated camera, or a near top-down view where the
        focal length cannot be told apart from the distance).

    Returns
    -------
    K : (3, 3) float
    pose : Pose
    rms : float
        Reprojection error, pixels.

    Notes
    -----
    A camera has 7 degrees of freedom here where a homography has 8; fitting the camera to
    the ring edges directly keeps the cells where the rings are, where decomposing a fitted
    homography would drift by its small non-camera part.
    """
    obj = np.column_stack([board_xy, np.zeros(len(board_xy))]).astype(np.float32)
    img = np.asarray(image_xy, np.float32)
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT
             | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1
             | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    if fix_focal:
        flags |= cv2.CALIB_FIX_FOCAL_LENGTH
    rms, K, _, rvecs, tvecs = cv2.calibrateCamera(
        [obj], [img], (int(size_wh[0]), int(size_wh[1])), K0.copy(), np.zeros(5), flags=flags)
    R, _ = cv2.Rodrigues(rvecs[0])
    t = np.asarray(tvecs[0], np.float64).reshape(3)
    return np.asarray(K, np.float64), Pose(R, t), float(rms)
