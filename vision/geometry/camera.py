"""Pinhole camera in OpenCV conventions.

World frame = board frame: origin at the centre of the board's top surface, +z up, metres.
Camera: ``x_cam = R @ X + t``; x right, y down, z forward; the centre of the top-left pixel is
(0, 0). Points are ``(N, 3)`` or ``(N, 2)`` float arrays; pixels come back as ``(N, 2)`` (x, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Intrinsics:
    """Camera matrix and distortion (OpenCV order k1, k2, p1, p2, k3)."""

    fx: float
    fy: float
    cx: float
    cy: float
    size_wh: tuple[int, int]
    dist_coeffs: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)

    @classmethod
    def from_fov(cls, size_wh: tuple[int, int], hfov_deg: float) -> Intrinsics:
        """Square pixels, principal point at the image centre, given horizontal field of view."""
        w, h = size_wh
        if not 1.0 < hfov_deg < 179.0:
            raise ValueError(f"hfov_deg must be in (1, 179), got {hfov_deg!r}")
        f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        return cls(f, f, (w - 1) / 2.0, (h - 1) / 2.0, (int(w), int(h)))

    @property
    def matrix(self) -> FloatArray:
        return np.array(
            [[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]], dtype=np.float64
        )

    @property
    def dist(self) -> FloatArray:
        return np.asarray(self.dist_coeffs, dtype=np.float64)

    @property
    def has_distortion(self) -> bool:
        return any(abs(c) > 0 for c in self.dist_coeffs)

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2.0 * math.atan((self.size_wh[0] / 2.0) / self.fx))


@dataclass(frozen=True)
class Pose:
    """World-to-camera rigid transform: ``x_cam = R @ X + t``."""

    R: FloatArray = field(default_factory=lambda: np.eye(3))
    t: FloatArray = field(default_factory=lambda: np.zeros(3))

    @classmethod
    def look_at(
        cls,
        eye: FloatArray,
        target: FloatArray,
        up: FloatArray | None = None,
        roll_deg: float = 0.0,
    ) -> Pose:
        """Camera at ``eye`` looking at ``target``; image "up" towards world ``up`` (+z default)."""
        eye = np.asarray(eye, dtype=np.float64)
        target = np.asarray(target, dtype=np.float64)
        up = np.array([0.0, 0.0, 1.0]) if up is None else np.asarray(up, dtype=np.float64)
        z = target - eye
        z /= np.linalg.norm(z)
        x = np.cross(z, up)
        if np.linalg.norm(x) < 1e-9:  # looking straight along up: pick any image x
            x = np.cross(z, np.array([0.0, 1.0, 0.0]))
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        R = np.stack([x, y, z])
        if roll_deg:
            a = math.radians(roll_deg)
            Rz = np.array(
                [[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]]
            )
            R = Rz @ R
        t = -R @ eye
        return cls(R, t)

    @property
    def rvec(self) -> FloatArray:
        rvec, _ = cv2.Rodrigues(self.R)
        return np.asarray(rvec, dtype=np.float64).reshape(3)

    @property
    def camera_center(self) -> FloatArray:
        """Camera position in world coordinates."""
        return -self.R.T @ self.t

    def to_camera(self, points_xyz: FloatArray) -> FloatArray:
        return np.asarray(points_xyz, dtype=np.float64) @ self.R.T + self.t


@dataclass(frozen=True)
class Camera:
    """Intrinsics plus pose: maps world points (metres) to pixels."""

    intrinsics: Intrinsics
    pose: Pose

    def project(self, points_xyz: FloatArray) -> FloatArray:
        """Project ``(N, 3)`` world points (or ``(N, 2)``, taken at z = 0) to ``(N, 2)`` pixels."""
        pts = _as_xyz(points_xyz)
        K = self.intrinsics
        if K.has_distortion:
            if self._distortion is None:  # tilted sensor: OpenCV's own model
                px, _ = cv2.projectPoints(
                    pts.reshape(-1, 1, 3), self.pose.rvec, self.pose.t, K.matrix, K.dist
                )
                return np.asarray(px, dtype=np.float64).reshape(-1, 2)
            return _project_distorted(pts, self._rotation_cv, self.pose.t, K, self._distortion)
        # With R.T copied to C order numpy hands OpenBLAS's gemm the same product in the
        # layout it packs fastest (about 3x faster on thousands of points; each element's
        # three products summed in the same order: the same bits). One point goes through
        # gemv instead, whose sums differ: it keeps the transposed view.
        cam = pts @ (self._rotation_t if len(pts) > 1 else self.pose.R.T)
        t = self.pose.t
        # The translation added one column at a time (numpy's loop over rows of three
        # costs more than the matrix product; the same sums).
        z = cam[:, 2] + t[2]
        at_eye = np.abs(z) < 1e-12
        if at_eye.any():
            z = np.where(at_eye, 1e-12, z)
        # x / z * fx + cx, one column at a time, in place (the same operations as on arrays
        # of (x, y) pairs, without the strided temporaries).
        out = np.empty((len(pts), 2))
        u, v = out[:, 0], out[:, 1]
        np.add(cam[:, 0], t[0], out=u)
        u /= z
        u *= K.fx
        u += K.cx
        np.add(cam[:, 1], t[1], out=v)
        v /= z
        v *= K.fy
        v += K.cy
        return out

    @cached_property
    def _rotation_t(self) -> FloatArray:
        """``R.T`` in C order (see :meth:`project`)."""
        return np.ascontiguousarray(self.pose.R.T)

    @cached_property
    def _rotation_cv(self) -> FloatArray:
        """The rotation ``cv2.projectPoints`` uses: ``R`` through its rotation vector and back
        (it differs from ``R`` in the last bits; kept so projections match OpenCV's exactly)."""
        R, _ = cv2.Rodrigues(self.pose.rvec)
        return np.asarray(R, dtype=np.float64)

    @cached_property
    def _distortion(self) -> FloatArray | None:
        """The 12 coefficients (k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4) padded with
        zeros, or None for a tilted-sensor model (14 coefficients with a tilt), left to OpenCV."""
        d = np.zeros(14)
        coeffs = np.asarray(self.intrinsics.dist_coeffs, dtype=np.float64)
        if len(coeffs) not in (4, 5, 8, 12, 14):  # OpenCV raises on other lengths
            return None
        d[: len(coeffs)] = coeffs
        if d[12] != 0.0 or d[13] != 0.0:
            return None
        return d[:12]

    def depth(self, points_xyz: FloatArray) -> FloatArray:
        """Distance along the optical axis of each world point (positive in front)."""
        return self.pose.to_camera(_as_xyz(points_xyz))[:, 2]

    def board_homography(self) -> FloatArray:
        """3x3 homography from board-plane (x, y) metres at z = 0 to (undistorted) pixels."""
        H = self.intrinsics.matrix @ np.column_stack(
            [self.pose.R[:, 0], self.pose.R[:, 1], self.pose.t]
        )
        return H / H[2, 2]


def _project_distorted(
    pts: FloatArray, R: FloatArray, t: FloatArray, K: Intrinsics, k: FloatArray
) -> FloatArray:
    """``cv2.projectPoints`` without a tilt, in numpy (several times faster on thousands of
    points; the same operations in the same order, so the same bits).

    Parameters
    ----------
    pts : (N, 3) world points.
    R, t : rotation (3, 3) and translation (3,), world to camera.
    K : focal lengths and principal point.
    k : (12,) distortion coefficients k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4.
    """
    X, Y, Z = pts[:, 0], pts[:, 1], pts[:, 2]
    x = R[0, 0] * X + R[0, 1] * Y + R[0, 2] * Z + t[0]
    y = R[1, 0] * X + R[1, 1] * Y + R[1, 2] * Z + t[1]
    z = R[2, 0] * X + R[2, 1] * Y + R[2, 2] * Z + t[2]
    iz = np.ones_like(z)
    np.divide(1.0, z, out=iz, where=z != 0.0)
    x = x * iz
    y = y * iz
    r2 = x * x + y * y
    out = np.empty((len(pts), 2))
    if len(r2) and r2.max() < 1e100:
        # Every power of r2 is finite, so a term with a zero coefficient adds exactly 0.0
        # and a zero rational part divides by exactly 1.0: leaving them out gives the same
        # bits (the finder fits k1 alone, so most of the formula drops).
        xd, yd = _distort_finite(x, y, r2, k)
    else:
        xd, yd = _distort(x, y, r2, k)
    out[:, 0] = xd * K.fx + K.cx
    out[:, 1] = yd * K.fy + K.cy
    return out


def _distort(x: FloatArray, y: FloatArray, r2: FloatArray, k: FloatArray,
             ) -> tuple[FloatArray, FloatArray]:
    """OpenCV's distortion of normalised points (x, y), term by term as it computes it."""
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
    icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
    xd = x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
    yd = y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
    return xd, yd


def _distort_finite(x: FloatArray, y: FloatArray, r2: FloatArray, k: FloatArray,
                    ) -> tuple[FloatArray, FloatArray]:
    """:func:`_distort` for points whose r2, r4 and r6 are finite: the terms with a zero
    coefficient left out, the others added in the same order (the same bits)."""
    r4 = r2 * r2 if k[1] or k[6] or k[9] or k[11] or k[4] or k[7] else None
    r6 = r4 * r2 if r4 is not None and (k[4] or k[7]) else None
    cdist = 1 + k[0] * r2
    if k[1]:
        cdist = cdist + k[1] * r4
    if k[4]:
        cdist = cdist + k[4] * r6
    xd = x * cdist
    yd = y * cdist
    if k[5] or k[6] or k[7]:
        den = 1 + k[5] * r2
        if k[6]:
            den = den + k[6] * r4
        if k[7]:
            den = den + k[7] * r6
        icdist2 = 1.0 / den
        xd = xd * icdist2
        yd = yd * icdist2
    if k[2] or k[3]:
        a1 = 2 * x * y
        if k[2]:
            xd = xd + k[2] * a1
            yd = yd + k[2] * (r2 + 2 * y * y)
        if k[3]:
            xd = xd + k[3] * (r2 + 2 * x * x)
            yd = yd + k[3] * a1
    for c, term in ((k[8], r2), (k[9], r4)):
        if c:
            xd = xd + c * term
    for c, term in ((k[10], r2), (k[11], r4)):
        if c:
            yd = yd + c * term
    return xd, yd


def _as_xyz(points: FloatArray) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 1:
        pts = pts.reshape(1, -1)
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        raise ValueError(f"points must have shape (N, 2) or (N, 3), got {pts.shape}")
    if pts.shape[1] == 2:
        pts = np.column_stack([pts, np.zeros(len(pts))])
    return pts
