"""Pinhole camera in OpenCV conventions.

World frame = board frame: origin at the centre of the board's top surface, +z up, metres.
Camera: ``x_cam = R @ X + t``; x right, y down, z forward; the centre of the top-left pixel is
(0, 0). Points are ``(N, 3)`` or ``(N, 2)`` float arrays; pixels come back as ``(N, 2)`` (x, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
        if self.intrinsics.has_distortion:
            px, _ = cv2.projectPoints(
                pts.reshape(-1, 1, 3),
                self.pose.rvec,
                self.pose.t,
                self.intrinsics.matrix,
                self.intrinsics.dist,
            )
            return np.asarray(px, dtype=np.float64).reshape(-1, 2)
        cam = self.pose.to_camera(pts)
        z = cam[:, 2:3]
        uv = cam[:, :2] / np.where(np.abs(z) < 1e-12, 1e-12, z)
        K = self.intrinsics
        return np.column_stack([uv[:, 0] * K.fx + K.cx, uv[:, 1] * K.fy + K.cy])

    def depth(self, points_xyz: FloatArray) -> FloatArray:
        """Distance along the optical axis of each world point (positive in front)."""
        return self.pose.to_camera(_as_xyz(points_xyz))[:, 2]

    def board_homography(self) -> FloatArray:
        """3x3 homography from board-plane (x, y) metres at z = 0 to (undistorted) pixels."""
        H = self.intrinsics.matrix @ np.column_stack(
            [self.pose.R[:, 0], self.pose.R[:, 1], self.pose.t]
        )
        return H / H[2, 2]


def _as_xyz(points: FloatArray) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 1:
        pts = pts.reshape(1, -1)
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        raise ValueError(f"points must have shape (N, 2) or (N, 3), got {pts.shape}")
    if pts.shape[1] == 2:
        pts = np.column_stack([pts, np.zeros(len(pts))])
    return pts
