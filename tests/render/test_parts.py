"""Helpers of the renderer: colours, textures, lens maps, camera pipeline, CLI."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.cli.main import main as cli_main
from vision.evaluation.labels import iter_labelled_images
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.render.effects import NoisePool, develop, distortion_maps, jpeg_round_trip
from vision.render.materials import kelvin_to_rgb, srgb_to_linear
from vision.render.meshes import piece_drawable
from vision.render.raster import Painter, alone_pixel_counts
from vision.render.scene import Effects, Placement, SceneOptions, sample_scene
from vision.render.textures import smooth_noise, wood
from vision.rules.pieces import Piece

EFFECTS = Effects(0.0, 1.0, 1.0, 0.0, 0, 0.0, 0.0, 90, 1.0, 0.0)


def test_black_body_colours() -> None:
    warm, cool = kelvin_to_rgb(2700), kelvin_to_rgb(7500)
    assert warm[1] == pytest.approx(1.0) and cool[1] == pytest.approx(1.0)
    assert warm[0] > 1.5 * warm[2]
    assert cool[2] > cool[0]
    assert srgb_to_linear((255, 255, 255)) == pytest.approx(np.ones(3))


def test_wood_texture_is_grainy_and_in_range() -> None:
    rng = np.random.default_rng(0)
    tex = wood(rng, (64, 200), np.array([0.5, 0.3, 0.1]), period_px=8.0, contrast=0.3)
    assert tex.shape == (64, 200, 3) and tex.dtype == np.float32
    assert tex.min() >= 0.0 and tex.max() <= 1.0
    across = tex[:, :, 0].mean(axis=1)  # the grain runs along x: rows differ
    assert across.std() > 0.01
    assert smooth_noise(rng, (10, 20), (3, 3)).shape == (10, 20)


def test_distortion_maps_invert_the_lens() -> None:
    intr = Intrinsics(600.0, 600.0, 319.5, 239.5, (640, 480), (-0.2, 0.03, 0.0, 0.0, 0.0))
    margin = 40
    mx, my = distortion_maps(intr, margin)
    cam = Camera(intr, Pose.look_at(np.array([0.1, -0.2, 0.5]), np.zeros(3)))
    pin = Camera(Intrinsics(600.0, 600.0, 319.5, 239.5, (640, 480)), cam.pose)
    pts = np.array([[0.05, 0.04, 0.0], [-0.08, 0.02, 0.03], [0.0, -0.1, 0.0]])
    distorted = cam.project(pts)
    undistorted = pin.project(pts) + margin
    for (xd, yd), (xu, yu) in zip(distorted, undistorted, strict=True):
        x0, y0 = round(xd), round(yd)
        # the map is smooth: evaluate at the nearest pixel and correct by the local slope
        assert mx[y0, x0] == pytest.approx(xu + (x0 - xd) * (mx[y0, x0 + 1] - mx[y0, x0]), abs=0.15)
        assert my[y0, x0] == pytest.approx(yu + (y0 - yd) * (my[y0 + 1, x0] - my[y0, x0]), abs=0.15)


def test_develop_auto_exposure_and_jpeg() -> None:
    rng = np.random.default_rng(1)
    scene = np.full((48, 64, 3), 0.05, np.float32)
    scene[10:20, 10:20] = 0.2
    dim, s_dim = develop(scene, EFFECTS, np.ones(3), rng)
    bright, s_bright = develop(scene * 8, EFFECTS, np.ones(3), rng)
    assert dim.shape == (48, 64, 3) and dim.dtype == np.uint8
    assert s_dim == pytest.approx(8 * s_bright, rel=1e-3)
    assert abs(float(dim.mean()) - float(bright.mean())) < 3.0
    same, _ = develop(scene, EFFECTS, np.ones(3), None, exposure_scale=s_dim)
    assert np.abs(same.astype(int) - dim.astype(int)).mean() < 3.0  # only noise differs
    assert jpeg_round_trip(dim, 80).shape == dim.shape


def test_noise_pool_is_seeded_and_zero_mean() -> None:
    frame = np.full((40, 50, 3), 120, np.uint8)
    a = NoisePool(np.random.default_rng(3), (50, 40), 2.0).apply(frame)
    b = NoisePool(np.random.default_rng(3), (50, 40), 2.0).apply(frame)
    assert np.array_equal(a, b)
    assert a.std() > 1.0 and abs(float(a.mean()) - 120.0) < 1.0


def test_piece_seen_from_above_shows_its_top() -> None:
    scene = sample_scene(0, SceneOptions(size_wh=(320, 240)))
    piece = Piece.from_name("light square tall hollow")
    d = piece_drawable(32, Placement(piece, (0.0, 0.0, 0.0), 10.0), scene.piece_set)
    top = Camera(
        Intrinsics.from_fov((320, 240), 60.0),
        Pose.look_at(np.array([0.0, -0.01, 0.4]), np.zeros(3)),
    )
    side = Camera(
        Intrinsics.from_fov((320, 240), 60.0),
        Pose.look_at(np.array([0.0, -0.4, 0.02]), np.array([0.0, 0.0, 0.04])),
    )
    total_top, top_top = alone_pixel_counts(d, top, (320, 240))
    total_side, top_side = alone_pixel_counts(d, side, (320, 240))
    assert total_top > 0 and top_top > 0.8 * total_top
    assert total_side > 0 and top_side < 0.05 * total_side
    assert math.isclose(d.anchor[2], scene.piece_set.tall_height_m / 2)


def test_cli_renders_stills_and_rejects_bad_arguments(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["render", "stills", "2", str(tmp_path), "--seed", "7", "--size", "320x180", "--quiet"]
    assert cli_main(argv) == 0
    labels = list(iter_labelled_images(tmp_path))
    assert [lab.image_path.name for lab in labels] == ["000007.jpg", "000008.jpg"]
    assert cv2.imread(str(labels[0].image_path)).shape == (180, 320, 3)
    assert cli_main(["render", "stills", "0", str(tmp_path)]) == 2
    assert cli_main(["render", "game", str(tmp_path / "g.mp4"), "--script", "cheat"]) == 2
    assert "unknown script" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["render", "stills", "1", str(tmp_path), "--size", "big"])


def test_cli_alternate_palette_and_varied_bores_are_the_scene_options(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from vision.render.still import render_still

    argv = ["render", "stills", "2", str(tmp_path), "--seed", "8", "--size", "320x180",
            "--pieces", "3", "16", "--palette", "alternate", "--hole-light", "varied", "--quiet"]
    assert cli_main(argv) == 0
    for seed, palette in ((8, "classic"), (9, "wide")):
        opts = SceneOptions(size_wh=(320, 180), n_pieces=(3, 16), palette=palette,
                            hole_light="varied")
        image, _ = render_still(seed, options=opts)
        written = cv2.imread(str(tmp_path / f"{seed:06d}.jpg"))
        assert written.shape == image.shape
        # the file is the JPEG of exactly this render: far closer to it than to the other palette
        other = render_still(seed, options=SceneOptions(
            size_wh=(320, 180), n_pieces=(3, 16), hole_light="varied",
            palette="wide" if palette == "classic" else "classic"))[0]
        err = np.abs(written.astype(float) - image).mean()
        assert err < 3.0 < np.abs(written.astype(float) - other).mean()


def test_piece_across_the_image_edge_counts_its_hidden_half() -> None:
    scene = sample_scene(0, SceneOptions(size_wh=(320, 240)))
    d = piece_drawable(32, Placement(Piece(0), (0.0, 0.0, 0.0), 0.0), scene.piece_set)
    pose = Pose.look_at(np.array([0.0, -0.3, 0.3]), np.zeros(3))
    centred = Camera(Intrinsics.from_fov((320, 240), 60.0), pose)
    k = centred.intrinsics
    at_edge = Camera(Intrinsics(k.fx, k.fy, 0.0, k.cy, (320, 240)), pose)  # piece centre at x = 0
    full, _ = alone_pixel_counts(d, centred, (320, 240))
    assert full > 0
    assert alone_pixel_counts(d, at_edge, (320, 240))[0] == pytest.approx(full, rel=0.05)


@pytest.mark.parametrize("behind_m", [0.0, 0.005, 0.02])
def test_a_hollow_piece_behind_the_lens_is_not_drawn_across_the_frame(behind_m) -> None:
    """A spare piece beside and behind the camera: its faces and its bore are both dropped
    by the near-plane guard, so nothing of it fills the frame (seed 1230328 drew its bore
    over the whole image)."""
    scene = sample_scene(4, SceneOptions(board=False))
    hollow = next(p for p in (Piece(c) for c in range(16)) if p.value("top") == "hollow")
    d = piece_drawable(32, Placement(hollow, (0.0, 0.0, 0.0), 0.0), scene.piece_set)
    # Camera 10 cm above the foot, over the bore or just in front of it, looking away 5 deg
    # down: the bore reaches from just behind the lens to just in front of it.
    eye = np.array([0.0, -behind_m, 0.10])
    pose = Pose.look_at(eye, eye + np.array([0.0, -1.0, -math.tan(math.radians(5))]))
    cam = Camera(Intrinsics.from_fov((320, 240), 70.0), pose)
    assert cam.depth(np.array([[0.0, 0.0, 0.06]]))[0] < 0.03  # the bore: at the lens
    ids = np.zeros((240, 320), np.uint16)
    Painter(None, ids, cam, None).draw(d)
    assert np.count_nonzero(ids) == 0
