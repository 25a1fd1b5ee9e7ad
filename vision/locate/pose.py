"""Camera and board pose from the board-plane homography.

With square pixels and the principal point at the image centre, a plane homography
``H ~ K [r1 r2 t]`` fixes the focal length through the orthonormality of ``r1`` and ``r2``
(Zhang's constraints). Near a top-down view the two constraints degenerate, so the estimate is
kept only when the camera is clearly oblique; otherwise a default field of view is used. The
pose then follows by decomposing ``K^-1 H``.

Where edge points of the board are matched, the camera is fitted to them directly instead
(:func:`camera_from_points`): focal length, pose, optionally the lens's first radial
distortion coefficient, and the offsets of outlines whose place on the board is not known.
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


def grid_points(half_m: float, n: int = 5) -> FloatArray:
    """An ``n`` x ``n`` grid of board (x, y) points over +-``half_m``, x running fastest."""
    v = np.linspace(-half_m, half_m, n)
    xx, yy = np.meshgrid(v, v)
    return np.column_stack([xx.ravel(), yy.ravel()])


def _apply(H: FloatArray, pts: FloatArray) -> FloatArray:
    q = pts @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def pose_from_points(board_xy: FloatArray, image_xy: FloatArray, K: FloatArray,
                     dist: FloatArray | None, init: Pose) -> Pose | None:
    """The pose putting the board points ``board_xy`` (on the board's plane) at the pixels
    ``image_xy`` (``cv2.solvePnP``, iterative, started from ``init``), or None when it
    fails."""
    obj = np.column_stack([board_xy, np.zeros(len(board_xy))])
    ok, rvec, tvec = cv2.solvePnP(obj, image_xy, K, dist, rvec=init.rvec.reshape(3, 1).copy(),
                                  tvec=init.t.reshape(3, 1).copy(), useExtrinsicGuess=True,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        return None
    R, _ = cv2.Rodrigues(rvec)
    return Pose(R, tvec.reshape(3))


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
    pts = grid_points(half_m)
    img = _apply(H, pts)
    init = pose_from_homography(H, K)
    pose = pose_from_points(pts, img, K, None, init) or init
    obj = np.column_stack([pts, np.zeros(len(pts))])
    cam = obj @ pose.R.T + pose.t
    proj = cam[:, :2] / cam[:, 2:3] * np.array([K[0, 0], K[1, 1]]) + K[:2, 2]
    return pose, float(np.sqrt(np.mean(np.sum((proj - img) ** 2, axis=1))))


def camera_from_points(
    board_xy: FloatArray, image_xy: FloatArray, K0: FloatArray,
    *, fix_focal: bool, normals: FloatArray | None = None, pose0: Pose | None = None,
    groups: NDArray[np.int64] | None = None, slide_dirs: FloatArray | None = None,
    fit_k1: bool = False,
) -> tuple[FloatArray, Pose, float, float]:
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
    normals : (N, 2) float, optional
        Where a row is finite, that point's pixel is only known across an outline: its error
        counts along this unit image direction only (a point of a straight edge or a circle
        may slide along it). NaN rows (or None) count in both directions.
    pose0 : Pose, optional
        A pose to start from (a previous fit of the same board, with ``K0``'s focal length)
        when it explains the points better than the planar pose under ``K0``.
    groups, slide_dirs : (N,) int and (N, 2) float, optional
        Outlines whose place is not known exactly: point ``i`` of group ``g >= 0`` lies at
        ``board_xy[i] + o_g * slide_dirs[i]`` with one unknown offset ``o_g`` per group,
        fitted with the camera (a board side at an unknown distance from the centre: its
        normal; a circle of unknown radius: the radial directions). -1: no group.
    fit_k1 : bool
        Also fit the first radial distortion coefficient (OpenCV's ``k1``; the others stay
        0), starting from 0.

    Returns
    -------
    K : (3, 3) float
    pose : Pose
    rms : float
        Reprojection error, pixels (root of the summed squared residuals over the points).
    k1 : float
        Radial distortion (0 unless ``fit_k1``).

    Notes
    -----
    A camera has 7 degrees of freedom here where a homography has 8; fitting the camera to
    the ring edges directly keeps the cells where the rings are, where decomposing a fitted
    homography would drift by its small non-camera part. The fit is Levenberg-Marquardt on
    a rotation increment, the translation, the focal length and the group offsets with an
    analytic Jacobian, started from the planar pose (``cv2.solvePnP``, IPPE) under ``K0``.
    Without groups and sliding points it minimises the same squared reprojection error as a
    one-view ``cv2.calibrateCamera`` with the principal point, aspect ratio and distortion
    fixed, in a fifth of its time.
    """
    board_xy = np.asarray(board_xy, np.float64)
    image_xy = np.asarray(image_xy, np.float64)
    n = len(board_xy)
    X = np.column_stack([board_xy, np.zeros(n)])
    nrm = np.full((n, 2), np.nan) if normals is None else np.asarray(normals, np.float64)
    g = np.full(n, -1, np.int64) if groups is None else np.asarray(groups, np.int64)
    D = np.zeros((n, 3))
    if slide_dirs is not None:
        D[:, :2] = np.where((g >= 0)[:, None], slide_dirs, 0.0)
    c = np.array([K0[0, 2], K0[1, 2]])
    problem = _Reprojection(X, image_xy, c, nrm, fix_focal, g, D, fit_k1)
    f = float(K0[0, 0])
    ok, rvec, tvec = cv2.solvePnP(X, image_xy, K0, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        ok, rvec, tvec = cv2.solvePnP(X, image_xy, K0, None, flags=cv2.SOLVEPNP_ITERATIVE)
    R, t = cv2.Rodrigues(rvec)[0], np.asarray(tvec, np.float64).reshape(3)
    offsets = np.zeros(problem.n_groups)
    if pose0 is not None:
        r_a = problem.residuals(f, 0.0, R, t, offsets)[0]
        r_b, Xc_b = problem.residuals(f, 0.0, pose0.R, pose0.t, offsets)
        if np.all(Xc_b[:, 2] > 0) and float(r_b @ r_b) < float(r_a @ r_a):
            R, t = pose0.R, pose0.t
    f, k1, R, t, _, r = problem.solve(f, 0.0, R, t, offsets)
    K = np.array([[f, 0.0, K0[0, 2]], [0.0, f, K0[1, 2]], [0.0, 0.0, 1.0]])
    return K, Pose(R, t), float(np.sqrt(float(r @ r) / max(1, n))), k1


class _Reprojection:
    """Levenberg-Marquardt for :func:`camera_from_points` on (rotation increment,
    translation[, focal length][, radial distortion k1], group offsets); residuals are 2-D
    for ordinary points and 1-D along the normal for sliding ones."""

    def __init__(self, X: FloatArray, image_xy: FloatArray, c: FloatArray, nrm: FloatArray,
                 fix_focal: bool, groups: NDArray[np.int64], D: FloatArray,
                 fit_k1: bool = False) -> None:
        self.X, self.image_xy, self.c, self.D = X, image_xy, c, D
        self.slide = np.all(np.isfinite(nrm), axis=1)
        self.full = ~self.slide
        self.nrm = np.where(self.slide[:, None], nrm, 0.0)
        # The same selections as index arrays, and the sliding points' normals by column
        # (gathered once: the fit reads them at every step).
        self.i_full = np.flatnonzero(self.full)
        self.i_slide = np.flatnonzero(self.slide)
        self.nrm_x = self.nrm[self.i_slide, 0]
        self.nrm_y = self.nrm[self.i_slide, 1]
        self.groups = groups
        self.n_groups = int(groups.max()) + 1 if len(groups) else 0
        self.i_f = None if fix_focal else 6
        self.i_k1 = (6 if fix_focal else 7) if fit_k1 else None
        self.n_cam = 6 + (not fix_focal) + fit_k1
        self.n_par = self.n_cam + self.n_groups
        #: Stop when a step lowers the cost by less than this share (its square root, 1e-3,
        #: bounds the relative change of the RMS: far below the points' noise). Against 1e-8
        #: the fit takes a sixth fewer steps and the found cell centres move by under 0.01 px.
        self.tol = 1e-6

    def points(self, offsets: FloatArray) -> FloatArray:
        if not self.n_groups:
            return self.X
        o = np.where(self.groups >= 0, offsets[np.maximum(self.groups, 0)], 0.0)
        return self.X + o[:, None] * self.D

    def residuals(self, f: float, k1: float, R: FloatArray, t: FloatArray, offsets: FloatArray,
                  ) -> tuple[FloatArray, FloatArray]:
        """Residuals (pixels) and the camera-frame points."""
        Xc = self.points(offsets) @ R.T + t
        q = Xc[:, :2] / Xc[:, 2:3]
        if k1:
            q = q * (1.0 + k1 * np.sum(q * q, axis=1, keepdims=True))
        d = f * q + self.c - self.image_xy
        # Along the normal: the sum of the two products (as ``np.sum`` over the pair).
        ds = d[self.i_slide]
        r = np.concatenate([d[self.i_full].ravel(),
                            ds[:, 0] * self.nrm_x + ds[:, 1] * self.nrm_y])
        return r, Xc

    def jacobian(self, f: float, k1: float, R: FloatArray, Xc: FloatArray, t: FloatArray,
                 ) -> FloatArray:
        n = len(Xc)
        iz = 1.0 / Xc[:, 2]
        x, y = Xc[:, 0] * iz, Xc[:, 1] * iz
        a = f * iz
        P = Xc - t
        # dXc = omega x P: dXc/domega_j = e_j x P; d(u, v)/dXc = f/z [[1, 0, -x], [0, 1, -y]]
        # before distortion. Row i of dXc/domega is (e_0 x P, e_1 x P, e_2 x P)_i:
        # (0, P2, -P1), (-P2, 0, P0), (P1, -P0, 0); written out column by column (the same
        # operations on the same numbers as the 3x3 products, without building them).
        P0, P1, P2 = P[:, 0], P[:, 1], P[:, 2]
        m0 = -P0
        Ju = np.zeros((n, self.n_par))
        Jv = np.zeros((n, self.n_par))
        Ju[:, 0] = a * (0.0 - x * P1)
        Ju[:, 1] = a * (P2 - x * m0)
        Ju[:, 2] = a * (-P1 - x * 0.0)
        Jv[:, 0] = a * (-P2 - y * P1)
        Jv[:, 1] = a * (0.0 - y * m0)
        Jv[:, 2] = a * (P0 - y * 0.0)
        Ju[:, 3], Ju[:, 5] = a, -a * x
        Jv[:, 4], Jv[:, 5] = a, -a * y
        if self.n_groups:
            # dXc/do_g = R D_i for the points of group g.
            RD = self.D @ R.T
            ju = a * (RD[:, 0] - x * RD[:, 2])
            jv = a * (RD[:, 1] - y * RD[:, 2])
            rows = np.flatnonzero(self.groups >= 0)
            cols = self.n_cam + self.groups[rows]
            Ju[rows, cols] = ju[rows]
            Jv[rows, cols] = jv[rows]
        r2 = x * x + y * y
        s = 1.0 + k1 * r2
        if k1:
            # (x, y) -> s (x, y): chain the undistorted derivatives through its Jacobian.
            m11, m12, m22 = s + 2 * k1 * x * x, 2 * k1 * x * y, s + 2 * k1 * y * y
            Ju, Jv = (m11[:, None] * Ju + m12[:, None] * Jv,
                      m12[:, None] * Ju + m22[:, None] * Jv)
        if self.i_f is not None:
            Ju[:, self.i_f], Jv[:, self.i_f] = x * s, y * s
        if self.i_k1 is not None:
            Ju[:, self.i_k1], Jv[:, self.i_k1] = f * x * r2, f * y * r2
        full, slide = self.i_full, self.i_slide
        # Rows: (u, v) of each full point in turn, then one row per sliding point.
        J = np.empty((2 * len(full) + len(slide), self.n_par))
        J[0:2 * len(full):2] = Ju[full]
        J[1:2 * len(full):2] = Jv[full]
        J[2 * len(full):] = (self.nrm_x[:, None] * Ju[slide]
                             + self.nrm_y[:, None] * Jv[slide])
        return J

    def solve(self, f: float, k1: float, R: FloatArray, t: FloatArray, offsets: FloatArray,
              max_iter: int = 50,
              ) -> tuple[float, float, FloatArray, FloatArray, FloatArray, FloatArray]:
        """Minimise the squared residuals from (f, k1, R, t, offsets); returns them fitted
        and the residuals."""
        r, Xc = self.residuals(f, k1, R, t, offsets)
        cost = float(r @ r)
        lam = 1e-3
        for _ in range(max_iter):
            J = self.jacobian(f, k1, R, Xc, t)
            A = J.T @ J
            grad = J.T @ r
            done = True
            for _try in range(10):
                step = np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), -grad)
                f_new = f + step[self.i_f] if self.i_f is not None else f
                k_new = k1 + step[self.i_k1] if self.i_k1 is not None else k1
                if f_new <= 0:
                    lam *= 10.0
                    continue
                R_new = cv2.Rodrigues(step[:3])[0] @ R
                t_new = t + step[3:6]
                o_new = offsets + step[self.n_cam:]
                r_new, Xc_new = self.residuals(f_new, k_new, R_new, t_new, o_new)
                c_new = float(r_new @ r_new)
                if np.all(Xc_new[:, 2] > 0) and c_new < cost:
                    done = cost - c_new < self.tol * cost + 1e-12
                    f, k1, R, t, offsets = f_new, k_new, R_new, t_new, o_new
                    r, Xc, cost = r_new, Xc_new, c_new
                    lam = max(lam / 10.0, 1e-9)
                    break
                lam *= 10.0
            if done:
                break
        return f, k1, R, t, offsets, r
