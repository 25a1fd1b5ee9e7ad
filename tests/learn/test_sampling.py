"""Sampling geometry and rectified patches of the learned reader (no model needed)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.learn.patches import PatchConfig, cell_patches, mirror_patches, patch_points_m
from vision.learn.sampling import Pyramid, cell_frames, reference_points_m


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
    cfg = PatchConfig()
    for elev in (30.0, 60.0):
        view = make_view(elevation_deg=elev)
        bill = patch_points_m(cell_frames(view), cfg)[:, 0]
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


def test_patch_shape_and_determinism() -> None:
    view = make_view()
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (360, 640, 3), dtype=np.uint8)
    p1 = cell_patches(image, view)
    p2 = cell_patches(image.copy(), view)
    assert p1.images.dtype == np.float32 and np.all(np.isfinite(p1.images))
    assert p1.scalars.shape == (16, 9) and np.all(np.isfinite(p1.scalars))
    assert np.array_equal(p1.images, p2.images) and np.array_equal(p1.scalars, p2.scalars)


def test_mirrored_image_gives_mirrored_patches() -> None:
    # A left-right symmetric view of a mirrored image: the camera straight in front of the
    # board (azimuth -90: looking along +y), axis-aligned grid, so mirroring the image maps
    # cell (r, c) to (r, 3 - c).
    view = make_view(elevation_deg=40.0, azimuth_deg=-90.0, rotation_deg=0.0)
    rng = np.random.default_rng(7)
    image = cv2.GaussianBlur(rng.integers(0, 256, (360, 640, 3), dtype=np.uint8), (0, 0), 6)
    image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX)
    a = cell_patches(image, view).images[:, :3]
    b = cell_patches(np.ascontiguousarray(image[:, ::-1]), view).images[:, :3]
    order = [r * 4 + (3 - c) for r in range(4) for c in range(4)]
    # The pyramid is not exactly mirror-symmetric (pixel parity), so compare error sizes: the
    # mirrored patches match far better than the unmirrored ones.
    mirrored = np.abs(mirror_patches(b[order]) - a).mean()
    unmirrored = np.abs(b[order] - a).mean()
    assert mirrored < 0.3 * unmirrored


@pytest.mark.parametrize(
    "image",
    [np.zeros((360, 640), np.uint8), np.zeros((360, 640, 3), np.float32),
     np.zeros((360, 640, 4), np.uint8)],
)
def test_bad_frames_raise(image: np.ndarray) -> None:
    with pytest.raises(ValueError, match="frame_bgr"):
        cell_patches(image, make_view())


def test_bad_view_raises() -> None:
    with pytest.raises(ValueError, match="view"):
        cell_patches(np.zeros((360, 640, 3), np.uint8), "board")  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"billboard_top_m": 0.0}, {"size": 10},
                                    {"plane_heights_m": (0.0, 0.03)}])
def test_bad_patch_config_raises(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        PatchConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("levels", [0, 1, 3])
def test_pyramid_window_reads_what_the_whole_pyramid_reads(levels: int) -> None:
    rng = np.random.default_rng(21)
    frame = cv2.GaussianBlur(rng.integers(0, 256, (360, 640, 3), dtype=np.uint8), (0, 0), 1.5)
    whole = Pyramid(frame, levels)
    for window in [(100.3, 50.7, 400.2, 300.9), (0.0, 0.0, 80.0, 60.0), (500.0, 250.0, 639.4,
                                                                            359.4)]:
        part = Pyramid(frame, levels, window_xyxy=window)
        assert len(part.levels) == len(whole.levels)
        pts = rng.uniform(window[:2], window[2:], (3000, 2))
        lv = rng.integers(0, levels + 1, 3000)
        got, ok = part.sample_lab(pts, lv)
        want, ok_want = whole.sample_lab(pts, lv)
        np.testing.assert_array_equal(ok, ok_want)
        np.testing.assert_array_equal(got[ok], want[ok])
    # Too small a window for the levels asked: the whole frame is kept.
    deep = Pyramid(frame, 5, window_xyxy=(300.0, 200.0, 301.0, 201.0))
    assert deep.origin_xy == (0, 0) and deep.levels[0].shape == frame.shape
    assert len(deep.levels) == len(Pyramid(frame, 5).levels) == 6
