"""The camera fitted to board points (``pose.camera_from_points``) and the board's outline
points added to that fit (``layout.frame_correspondences``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.locate.synth import draw_board, make_view
from vision.evaluation.board import cell_errors
from vision.locate import LocateConfig, find_board
from vision.locate.pose import camera_from_points


def _scene(seed: int, noise_px: float = 0.3, n: int = 400):
    rng = np.random.default_rng(seed)
    view = make_view(elevation_deg=float(rng.uniform(35, 70)),
                     azimuth_deg=float(rng.uniform(0, 360)), hfov_deg=float(rng.uniform(45, 80)))
    board = rng.uniform(-0.1, 0.1, (n, 2))
    img = view.project(board) + rng.normal(0.0, noise_px, (n, 2))
    return view, board, img


@pytest.mark.parametrize("seed", range(5))
def test_fit_recovers_focal_and_pose(seed):
    view, board, img = _scene(seed)
    K_true = view.camera.intrinsics.matrix
    K0 = K_true.copy()
    K0[0, 0] = K0[1, 1] = K_true[0, 0] * 0.85
    K, pose, rms, _ = camera_from_points(board, img, K0, fix_focal=False)
    assert K[0, 0] == pytest.approx(K_true[0, 0], rel=0.02)
    assert np.linalg.norm(pose.camera_center - view.camera.pose.camera_center) < 0.01
    assert 0.2 < rms < 0.6


@pytest.mark.parametrize("seed", range(3))
def test_fit_agrees_with_opencv_calibration(seed):
    """Same least squares as a one-view calibrateCamera with the principal point, aspect
    ratio and distortion fixed."""
    view, board, img = _scene(seed, noise_px=1.0)
    K0 = view.camera.intrinsics.matrix * np.array([[1.1, 1, 1], [1, 1.1, 1], [1, 1, 1]])
    K, pose, _, _ = camera_from_points(board, img, K0, fix_focal=False)
    obj = np.column_stack([board, np.zeros(len(board))]).astype(np.float32)
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT
             | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1
             | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    _, K_cv, _, _, tvecs = cv2.calibrateCamera([obj], [img.astype(np.float32)], (1280, 720),
                                               K0.copy(), np.zeros(5), flags=flags)
    assert K[0, 0] == pytest.approx(K_cv[0, 0], rel=1e-4)
    assert np.allclose(pose.t, np.ravel(tvecs[0]), atol=1e-5)


def test_fixed_focal_is_kept():
    view, board, img = _scene(7)
    K0 = view.camera.intrinsics.matrix * np.array([[1.2, 1, 1], [1, 1.2, 1], [1, 1, 1]])
    K, _, _, _ = camera_from_points(board, img, K0, fix_focal=True)
    assert K[0, 0] == K0[0, 0]


def test_sliding_points_count_across_their_outline_only():
    """Points of a straight edge matched to the wrong place along it must not pull the
    camera; the same points counted in both directions do."""
    view, board, img = _scene(3, noise_px=0.0, n=200)
    K = view.camera.intrinsics.matrix
    # 60 points on the line y = 0.12 (an outline), their pixels slid along the line's image.
    xs = np.linspace(-0.1, 0.1, 60)
    line = np.column_stack([xs, np.full(60, 0.12)])
    slid = view.project(line + np.array([0.02, 0.0]))
    a, b = view.project(np.array([[-0.1, 0.12], [0.1, 0.12]]))
    d = (b - a) / np.linalg.norm(b - a)
    nrm = np.tile([-d[1], d[0]], (60, 1))
    pts = np.vstack([board, line])
    pix = np.vstack([img, slid])
    normals = np.vstack([np.full((len(board), 2), np.nan), nrm])
    _, pose_slide, rms, _ = camera_from_points(pts, pix, K, fix_focal=True,
                                            normals=normals)
    _, pose_pinned, _, _ = camera_from_points(pts, pix, K, fix_focal=True)
    c_true = view.camera.pose.camera_center
    assert rms < 0.05
    assert np.linalg.norm(pose_slide.camera_center - c_true) < 1e-4
    assert np.linalg.norm(pose_pinned.camera_center - c_true) > 1e-3


@pytest.mark.parametrize("elevation", [40.0, 60.0])
def test_outline_in_the_camera_fit_keeps_the_board_and_finds_the_focal_length(elevation):
    view = make_view(elevation_deg=elevation, azimuth_deg=25.0, hfov_deg=55.0)
    img = draw_board(view, seed=1)
    with_frame = find_board(img)
    without = find_board(img, config=LocateConfig(frame_in_camera_fit=False))
    assert with_frame and without
    f_true = view.camera.intrinsics.fx
    assert with_frame.camera.intrinsics.fx != without.camera.intrinsics.fx  # outline used
    assert abs(with_frame.camera.intrinsics.fx / f_true - 1) < 0.03
    spacing = np.linalg.norm(view.cell_centers_px()[1] - view.cell_centers_px()[0])
    err = np.linalg.norm(with_frame.cell_centers_px() - without.cell_centers_px(), axis=1)
    assert err.max() < 0.05 * spacing


def test_radial_distortion_is_fitted_when_asked():
    view, board, _ = _scene(11, noise_px=0.0, n=300)
    K_true = view.camera.intrinsics.matrix
    cam = view.camera.pose
    Xc = np.column_stack([board, np.zeros(len(board))]) @ cam.R.T + cam.t
    q = Xc[:, :2] / Xc[:, 2:3]
    k1 = -0.18
    img = K_true[0, 0] * q * (1 + k1 * np.sum(q * q, axis=1, keepdims=True)) + K_true[:2, 2]
    K0 = K_true * np.array([[0.9, 1, 1], [1, 0.9, 1], [1, 1, 1]])
    K, _, rms, k1_fit = camera_from_points(board, img, K0, fix_focal=False,
                                           fit_k1=True)
    assert k1_fit == pytest.approx(k1, abs=0.01)
    assert K[0, 0] == pytest.approx(K_true[0, 0], rel=0.005)
    assert rms < 0.05
    _, _, rms_plain, k1_plain = camera_from_points(board, img, K0,
                                                   fix_focal=False)
    assert k1_plain == 0.0 and rms_plain > 5 * rms


def test_camera_fitted_once_with_the_outline_not_first_to_the_rings_alone(monkeypatch):
    """With ``camera_rings_first`` off, the camera is fitted to the rings and the outline
    together from the grid's homography, not first to the rings alone (session 33): two
    fits, without and with the distortion term; on, three."""
    import vision.locate.finder as finder

    calls: list[int] = []
    fit = finder.camera_from_points

    def counted(board_xy, *args, **kwargs):
        calls.append(len(board_xy))
        return fit(board_xy, *args, **kwargs)

    monkeypatch.setattr(finder, "camera_from_points", counted)
    view = make_view(elevation_deg=50.0, azimuth_deg=25.0, hfov_deg=55.0)
    img = draw_board(view, seed=1)
    assert find_board(img)
    assert len(calls) == 3 and calls[0] < calls[1] == calls[2]
    calls.clear()
    found = find_board(img, config=LocateConfig(camera_rings_first=False))
    assert found
    assert len(calls) == 2
    assert calls[0] == calls[1] > 0  # both with the outline's points
    f_true = view.camera.intrinsics.fx
    assert abs(found.camera.intrinsics.fx / f_true - 1) < 0.03
    spacing = np.linalg.norm(view.cell_centers_px()[1] - view.cell_centers_px()[0])
    err = cell_errors(found.cell_centers_px(), view.cell_centers_px())
    assert err.max() < 0.02 * spacing
