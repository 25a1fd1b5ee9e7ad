"""Sampling geometry and feature layout of the learned reader (no model needed)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.learn.config import SamplingConfig
from vision.learn.features import cell_features, mirror_features, n_features
from vision.learn.rings import RING_STATS, edge_statistics, ring_statistics
from vision.learn.sampling import cell_frames, reference_points_m, sample_points_m


def make_view(elevation_deg: float = 45.0, azimuth_deg: float = 30.0,
              rotation_deg: float = 45.0) -> BoardView:
    intr = Intrinsics.from_fov((640, 360), 60.0)
    e, a = np.radians(elevation_deg), np.radians(azimuth_deg)
    dist = 0.6
    eye = dist * np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    spec = BoardSpec(side_m=0.27, cell_pitch_m=0.049, cell_diameter_m=0.044,
                     grid_rotation_deg=rotation_deg, big_circle_radius_m=0.13)
    return BoardView(Camera(intr, Pose.look_at(eye, np.zeros(3))), spec, calibrated=True)


def test_frames_face_the_camera() -> None:
    view = make_view()
    f = cell_frames(view)
    cam = view.camera.pose.camera_center
    horiz = (cam - f.centers)[:, :2]
    horiz /= np.linalg.norm(horiz, axis=1, keepdims=True)
    assert np.allclose(f.toward[:, :2], horiz)
    assert np.allclose(np.einsum("ij,ij->i", f.toward, f.lateral), 0.0)
    # Lateral points to the image right at every cell.
    a = view.project(f.centers)
    b = view.project(f.centers + 0.01 * f.lateral)
    assert np.all(b[:, 0] > a[:, 0])
    assert np.all((f.elevation_rad > np.radians(30)) & (f.elevation_rad < np.radians(60)))


def test_straight_above_has_a_defined_frame() -> None:
    view = make_view(elevation_deg=90.0)
    f = cell_frames(view)
    assert np.all(np.isfinite(f.lateral)) and np.allclose(np.linalg.norm(f.lateral, axis=1), 1)


def test_tall_rows_land_on_the_same_rows_whatever_the_view() -> None:
    cfg = SamplingConfig()
    for elev in (30.0, 60.0):
        view = make_view(elevation_deg=elev)
        pts = sample_points_m(cell_frames(view), cfg)
        bill = pts[:, : cfg.billboard_rows * cfg.billboard_cols].reshape(
            16, cfg.billboard_rows, cfg.billboard_cols, 3)
        assert np.allclose(bill[:, 0, :, 2], cfg.billboard_top_m)
        assert np.allclose(bill[:, -1, :, 2], 0.0)


def test_reference_points_lie_on_the_board() -> None:
    for rot in (0.0, 45.0):
        view = make_view(rotation_deg=rot)
        pts, corners = reference_points_m(view)
        assert np.all(np.abs(pts[:, :2]) < view.spec.side_m / 2)
        assert corners.shape == (16, 4) and corners.max() == len(pts) - 1
    # Axis-aligned grid: all 25 lattice corners are on the board; 45 degrees drops 4.
    assert len(reference_points_m(make_view(rotation_deg=0.0))[0]) == 25


def test_feature_shape_and_determinism() -> None:
    view = make_view()
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (360, 640, 3), dtype=np.uint8)
    f1 = cell_features(image, view)
    f2 = cell_features(image.copy(), view)
    assert f1.x.shape == (16, n_features(SamplingConfig()))
    assert f1.x.dtype == np.float32 and np.all(np.isfinite(f1.x))
    assert np.array_equal(f1.x, f2.x)


def test_uniform_image_gives_zero_colour_differences() -> None:
    view = make_view()
    image = np.full((360, 640, 3), 120, np.uint8)
    x = cell_features(image, view).x
    cfg = SamplingConfig()
    n_colour = 3 * cfg.billboard_rows * cfg.billboard_cols
    assert np.allclose(x[:, :n_colour], 0.0, atol=1e-5)


def test_ring_statistics_are_rotation_invariant_and_see_squares() -> None:
    theta = 2 * np.pi * np.arange(16) / 16
    square = np.zeros((1, 16, 3))
    square[0, :, 0] = np.cos(4 * theta)
    rotated = np.roll(square, 3, axis=1)
    valid = np.ones((1, 16), bool)
    a = ring_statistics(square, valid)
    b = ring_statistics(rotated, valid)
    assert a.shape == (1, RING_STATS)
    assert np.allclose(a, b)
    assert a[0, -1] == pytest.approx(1.0) and abs(a[0, 4]) < 1e-9


def test_mirror_is_an_involution() -> None:
    m, sign = mirror_features(SamplingConfig())
    assert sorted(m) == list(range(len(m)))
    assert np.array_equal(m[m], np.arange(len(m)))
    x = np.random.default_rng(0).normal(size=(2, len(m)))
    assert np.allclose((x[:, m] * sign)[:, m] * sign, x)


def test_mirrored_image_gives_mirrored_features() -> None:
    # A left-right symmetric view of a mirrored image: the camera straight in front of the
    # board (azimuth -90: looking along +y), axis-aligned grid, so mirroring the image maps
    # cell (r, c) to (r, 3 - c).
    view = make_view(elevation_deg=40.0, azimuth_deg=-90.0, rotation_deg=0.0)
    rng = np.random.default_rng(7)
    image = cv2.GaussianBlur(rng.integers(0, 256, (360, 640, 3), dtype=np.uint8), (0, 0), 6)
    image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX)
    a = cell_features(image, view).x
    b = cell_features(np.ascontiguousarray(image[:, ::-1]), view).x
    m, sign = mirror_features(SamplingConfig())
    order = [r * 4 + (3 - c) for r in range(4) for c in range(4)]
    # The pyramid is not exactly mirror-symmetric (pixel parity), so compare error sizes: the
    # mirrored features match far better than the unmirrored ones.
    mirrored = np.abs(b[order][:, m] * sign - a).mean()
    unmirrored = np.abs(b[order] - a).mean()
    assert mirrored < 0.3 * unmirrored


@pytest.mark.parametrize(
    "image",
    [np.zeros((360, 640), np.uint8), np.zeros((360, 640, 3), np.float32),
     np.zeros((360, 640, 4), np.uint8)],
)
def test_bad_frames_raise(image: np.ndarray) -> None:
    with pytest.raises(ValueError, match="frame_bgr"):
        cell_features(image, make_view())


def test_bad_view_raises() -> None:
    with pytest.raises(ValueError, match="view"):
        cell_features(np.zeros((360, 640, 3), np.uint8), "board")  # type: ignore[arg-type]


def test_bad_sampling_config_raises() -> None:
    with pytest.raises(ValueError, match="billboard_top_m"):
        SamplingConfig(billboard_top_m=0.0)


def _disc_profile(
    radii: np.ndarray, n_angles: int, inside: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    theta = 2 * np.pi * np.arange(n_angles) / n_angles
    x = radii[:, None] * np.cos(theta)[None, :]
    y = radii[:, None] * np.sin(theta)[None, :]
    rel = np.zeros((len(radii), n_angles, 3))
    rel[..., 0] = inside(x, y).astype(float)
    return rel


def test_outline_statistics_tell_square_from_round_at_any_yaw_and_offset() -> None:
    cfg = SamplingConfig()
    radii = np.asarray(cfg.polar_radii_m)
    valid = np.ones((len(radii), cfg.polar_angles), bool)

    def square(yaw: float, dx: float) -> np.ndarray:
        c, s = np.cos(yaw), np.sin(yaw)
        return _disc_profile(radii, cfg.polar_angles, lambda x, y: np.maximum(
            np.abs(c * (x - dx) + s * y), np.abs(-s * (x - dx) + c * y)) < 0.0145)

    def disc(dx: float) -> np.ndarray:
        return _disc_profile(radii, cfg.polar_angles, lambda x, y: np.hypot(x - dx, y) < 0.016)

    h4 = {name: edge_statistics(rel, valid, radii)[6] for name, rel in {
        "square": square(0.0, 0.0), "square_yaw": square(0.5, 0.0),
        "square_off": square(0.3, 0.002), "disc": disc(0.0), "disc_off": disc(0.002)}.items()}
    assert min(h4["square"], h4["square_yaw"], h4["square_off"]) > 2 * max(
        h4["disc"], h4["disc_off"])
    # The outline radius follows the disc's size (radii in units of 15 mm).
    small = _disc_profile(radii, cfg.polar_angles, lambda x, y: np.hypot(x, y) < 0.012)
    large = _disc_profile(radii, cfg.polar_angles, lambda x, y: np.hypot(x, y) < 0.020)
    assert edge_statistics(small, valid, radii)[0] < edge_statistics(large, valid, radii)[0]
