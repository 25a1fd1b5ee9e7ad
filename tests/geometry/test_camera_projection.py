"""Camera.project against OpenCV's own projection, and its round trips."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.geometry.camera import Camera, Intrinsics, Pose


def _camera(dist: tuple[float, ...]) -> Camera:
    intr = dataclasses.replace(Intrinsics.from_fov((1280, 720), 62.0), dist_coeffs=dist)
    pose = Pose.look_at(np.array([0.12, -0.45, 0.38]), np.array([0.01, 0.02, 0.0]), roll_deg=3.0)
    return Camera(intr, pose)


def _opencv(camera: Camera, pts: np.ndarray) -> np.ndarray:
    px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), camera.pose.rvec, camera.pose.t,
                              camera.intrinsics.matrix, camera.intrinsics.dist)
    return np.asarray(px, np.float64).reshape(-1, 2)


@pytest.mark.parametrize("dist", [
    (-0.21, 0.03, 0.0, 0.0, 0.0),
    (0.1, 0.0, 0.0, 0.0),
    (-0.2, 0.03, 0.001, -0.002, 0.01),
    (-0.2, 0.03, 0.001, -0.002, 0.01, 0.02, -0.01, 0.003),
    (-0.2, 0.03, 0.001, -0.002, 0.01, 0.02, -0.01, 0.003, 0.001, 0.0005, -0.001, 0.0002),
])
def test_distorted_projection_matches_opencv_bit_for_bit(dist: tuple[float, ...]) -> None:
    camera = _camera(dist)
    pts = np.random.default_rng(7).uniform(-0.25, 0.25, (5000, 3))
    got = camera.project(pts)
    assert got.shape == (5000, 2)
    np.testing.assert_array_equal(got, _opencv(camera, pts))


def test_tilted_sensor_is_left_to_opencv() -> None:
    dist = (-0.2, 0.03, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, -0.02)
    camera = _camera(dist)
    pts = np.random.default_rng(3).uniform(-0.2, 0.2, (100, 3))
    np.testing.assert_array_equal(camera.project(pts), _opencv(camera, pts))


def test_undistorted_projection_is_the_pinhole() -> None:
    camera = _camera((0.0, 0.0, 0.0, 0.0, 0.0))
    pts = np.random.default_rng(5).uniform(-0.2, 0.2, (200, 3))
    np.testing.assert_allclose(camera.project(pts), _opencv(camera, pts), atol=1e-9)
    # (N, 2) points are on the board plane.
    flat = np.column_stack([pts[:, :2], np.zeros(200)])
    np.testing.assert_array_equal(camera.project(pts[:, :2]), camera.project(flat))


def test_bad_points_raise() -> None:
    with pytest.raises(ValueError, match="shape"):
        _camera((0.1, 0.0, 0.0, 0.0)).project(np.zeros((3, 4)))


def test_zero_distortion_terms_left_out_give_the_same_bits() -> None:
    """The short formula (terms with a zero coefficient dropped) against the full one, for
    coefficient sets with random zeros and points of every scale."""
    from vision.geometry.camera import _distort, _distort_finite

    rng = np.random.default_rng(3)
    for _ in range(300):
        k = rng.normal(scale=0.1, size=12)
        k[rng.random(12) < 0.6] = 0.0
        x = rng.normal(size=100) * rng.choice([0.01, 1.0, 30.0])
        y = rng.normal(size=100)
        x[:2] = (0.0, -0.0)
        r2 = x * x + y * y
        for full, short in zip(_distort(x, y, r2, k), _distort_finite(x, y, r2, k),
                               strict=True):
            np.testing.assert_array_equal(short, full)


@pytest.mark.parametrize("n", [1, 2, 3, 16, 97, 1000, 40_000])
def test_undistorted_projection_equals_the_transposed_product_bit_for_bit(n: int) -> None:
    """``project`` multiplies by a C-order copy of R.T (faster in OpenBLAS's gemm): the same
    pixels, to the last bit, as the plain ``pts @ R.T`` followed by the same steps."""
    camera = _camera((0.0, 0.0, 0.0, 0.0, 0.0))
    rng = np.random.default_rng(n)
    pts = rng.uniform(-0.25, 0.25, (n, 3))
    pts[:, 2] *= 0.3
    for p in (pts, pts[:, :2], np.asfortranarray(pts)):
        full = p if p.shape[1] == 3 else np.column_stack([p, np.zeros(n)])
        np.testing.assert_array_equal(camera.project(p), _plain(camera, full))


def _plain(camera: Camera, pts: np.ndarray) -> np.ndarray:
    cam = pts @ camera.pose.R.T
    K, t = camera.intrinsics, camera.pose.t
    z = cam[:, 2] + t[2]
    return np.column_stack([(cam[:, 0] + t[0]) / z * K.fx + K.cx,
                            (cam[:, 1] + t[1]) / z * K.fy + K.cy])
