"""Camera rigs: where the camera is, how it is framed, and how a knock moves it.

All poses use :mod:`vision.geometry.camera` (OpenCV conventions, world = board frame), so the
labels agree with what the board finder and the reader assume.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry.camera import Camera, Intrinsics, Pose


@dataclass(frozen=True)
class CameraSample:
    camera: Camera
    elevation_deg: float
    azimuth_deg: float
    distance_m: float
    roll_deg: float


def sample_camera(
    rng: np.random.Generator,
    size_wh: tuple[int, int],
    side_m: float,
    *,
    elevation_deg: tuple[float, float],
    hfov_deg: tuple[float, float],
    board_fill: tuple[float, float],
    distortion_prob: float,
) -> CameraSample:
    """Camera on a sphere around the board, framed so the board fills the requested width.

    The distance is solved so that the projected board spans ``board_fill`` of the image width;
    then the camera pans and tilts a little (its centre fixed) so the board is not always
    centred, while all four corners stay inside the image.
    """
    w, h = size_wh
    el = float(rng.uniform(*elevation_deg))
    az = float(rng.uniform(0.0, 360.0))
    hfov = float(rng.uniform(*hfov_deg))
    fill = float(rng.uniform(*board_fill))
    roll = float(rng.normal(0.0, 2.0))
    intr = Intrinsics.from_fov((w, h), hfov)
    if rng.random() < distortion_prob:
        k1 = float(rng.uniform(-0.25, 0.08))
        intr = Intrinsics(
            intr.fx,
            intr.fy,
            intr.cx,
            intr.cy,
            intr.size_wh,
            (k1, float(rng.uniform(-0.02, 0.06)) * abs(k1) * 4, 0.0, 0.0, 0.0),
        )
    corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], float) * side_m / 2.0
    ea, aa = math.radians(el), math.radians(az)
    direction = np.array([math.cos(ea) * math.cos(aa), math.cos(ea) * math.sin(aa), math.sin(ea)])
    far = -np.array([math.cos(aa), math.sin(aa), 0.0])
    dist = intr.fx * side_m * 1.2 / (fill * w)
    pin = Intrinsics(intr.fx, intr.fy, intr.cx, intr.cy, intr.size_wh)
    for _ in range(4):
        pose = Pose.look_at(
            direction * dist, np.zeros(3), up=far + np.array([0, 0, 0.05]), roll_deg=roll
        )
        px = Camera(pin, pose).project(corners)
        dist *= (px[:, 0].max() - px[:, 0].min()) / (fill * w)
    for _ in range(20):
        pose = Pose.look_at(
            direction * dist, np.zeros(3), up=far + np.array([0, 0, 0.05]), roll_deg=roll
        )
        px = Camera(pin, pose).project(corners)
        lo, hi = px.min(axis=0), px.max(axis=0)
        margin = 0.03 * w
        if lo[0] > margin and lo[1] > margin and hi[0] < w - margin and hi[1] < h - margin:
            break
        dist *= 1.06
    slack = np.array([min(lo[0], w - hi[0]), min(lo[1], h - hi[1])]) - margin
    shift = rng.uniform(-1.0, 1.0, 2) * np.maximum(slack, 0.0) * 0.8
    pan, tilt = math.atan2(shift[0], intr.fx), math.atan2(shift[1], intr.fy)
    # Rotating the camera about its own centre: x_cam' = Q x_cam, so R' = Q R and t' = Q t.
    qy = np.array(
        [[math.cos(pan), 0, -math.sin(pan)], [0, 1, 0], [math.sin(pan), 0, math.cos(pan)]]
    )
    qx = np.array(
        [[1, 0, 0], [0, math.cos(tilt), math.sin(tilt)], [0, -math.sin(tilt), math.cos(tilt)]]
    )
    q = qx @ qy
    pose = Pose(q @ pose.R, q @ pose.t)
    return CameraSample(Camera(intr, pose), el, az % 360.0, float(dist), roll)


def camera_sample_from(camera: Camera, roll_deg: float) -> CameraSample:
    c = camera.pose.camera_center
    dist = float(np.linalg.norm(c))
    el = math.degrees(math.asin(max(-1.0, min(1.0, c[2] / dist))))
    az = math.degrees(math.atan2(c[1], c[0])) % 360.0
    return CameraSample(camera, el, az, dist, roll_deg)


def bump_camera(
    camera: Camera,
    rng: np.random.Generator,
    rotation_deg: tuple[float, float],
    shift_m: tuple[float, float],
) -> Camera:
    """The camera after a knock: turned by ``rotation_deg`` about a random axis through its
    centre and moved by ``shift_m``."""
    axis = rng.normal(0, 1, 3)
    axis /= np.linalg.norm(axis)
    ang = math.radians(float(rng.uniform(*rotation_deg)))
    rot, _ = cv2.Rodrigues(axis * ang)
    shift = rng.normal(0, 1, 3)
    shift = shift / np.linalg.norm(shift) * float(rng.uniform(*shift_m))
    R = rot @ camera.pose.R
    centre = camera.pose.camera_center + shift
    return Camera(camera.intrinsics, Pose(R, -R @ centre))


def blend_cameras(a: Camera, b: Camera, s: float) -> Camera:
    """A camera ``s`` (0..1) of the way from ``a`` to ``b`` (rotation and centre)."""
    rel = b.pose.R @ a.pose.R.T
    rvec, _ = cv2.Rodrigues(rel)
    part, _ = cv2.Rodrigues(rvec * s)
    R = part @ a.pose.R
    centre = (1 - s) * a.pose.camera_center + s * b.pose.camera_center
    return Camera(a.intrinsics, Pose(R, -R @ centre))
