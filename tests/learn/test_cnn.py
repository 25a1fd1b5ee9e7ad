"""Rectified patches and the numpy convolutional network (no trained model needed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.learn.test_sampling import make_view
from vision.learn.cnn import (
    CnnModelError,
    ConvCellModel,
    ConvNet,
    conv3x3,
    conv3x3_rows,
    default_cnn,
    load_cnn,
    max_pool2,
)
from vision.learn.dataset import OUTPUTS
from vision.learn.patches import (
    PATCH_CHANNELS,
    PATCH_SCALARS,
    PatchConfig,
    cell_patches,
    mirror_patches,
    patch_points_m,
)
from vision.learn.sampling import cell_frames


def naive_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Textbook 'same' cross-correlation, channel-last, loops over the kernel taps."""
    n, h, wd, _ = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((n, h, wd, w.shape[0]))
    for o in range(w.shape[0]):
        for dy in range(3):
            for dx in range(3):
                window = p[:, dy:dy + h, dx:dx + wd]
                out[..., o] += np.einsum("nhwc,c->nhw", window, w[o, :, dy, dx])
        out[..., o] += b[o]
    return out


def test_conv_matches_the_textbook_definition() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 8, 3)).astype(np.float32)
    w = rng.normal(size=(5, 3, 3, 3)).astype(np.float32)
    b = rng.normal(size=5).astype(np.float32)
    assert np.allclose(conv3x3(x, w, b), naive_conv(x, w, b), atol=1e-4)
    with pytest.raises(ValueError, match="input channels"):
        conv3x3(x, w[:, :2], b)


def test_row_shifted_conv_matches_the_textbook_definition() -> None:
    """The three-product convolution (the board network's) against the definition, over
    batches (an image's padding rows must not leak into the next) and odd sizes."""
    rng = np.random.default_rng(1)
    for n, h, wd, c in ((1, 6, 8, 3), (3, 5, 7, 4), (2, 1, 1, 2)):
        x = rng.normal(size=(n, h, wd, c)).astype(np.float32)
        w = rng.normal(size=(5, c, 3, 3)).astype(np.float32)
        b = rng.normal(size=5).astype(np.float32)
        got = conv3x3_rows(x, w, b)
        assert got.shape == (n, h, wd, 5)
        assert np.allclose(got, naive_conv(x, w, b), atol=1e-4)
    with pytest.raises(ValueError, match="input channels"):
        conv3x3_rows(x, w[:, :1], b)


def test_max_pool_takes_the_largest_of_each_block() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    assert max_pool2(x)[0, :, :, 0].tolist() == [[5, 7], [13, 15]]


def test_conv_and_pool_give_the_bits_of_the_plain_numpy_layout() -> None:
    """The fast im2col (pixels copied as whole elements) and the strided max-pool against the
    straightforward versions: the same bits, for every channel count the network uses."""
    rng = np.random.default_rng(4)
    for c, size in ((4, 32), (16, 16), (32, 8), (64, 4)):
        x = rng.normal(size=(3, size, size, c)).astype(np.float32)
        w = rng.normal(size=(8, c, 3, 3)).astype(np.float32)
        b = rng.normal(size=8).astype(np.float32)
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        cols = np.concatenate([padded[:, dy:dy + size, dx:dx + size, :]
                               for dy in range(3) for dx in range(3)], axis=3)
        kernel = w.transpose(2, 3, 1, 0).reshape(9 * c, 8)
        plain = (cols.reshape(-1, 9 * c) @ kernel + b).reshape(3, size, size, 8)
        np.testing.assert_array_equal(conv3x3(x, w, b), plain)
        pooled = x.reshape(3, size // 2, 2, size // 2, 2, c).max(axis=(2, 4))
        np.testing.assert_array_equal(max_pool2(x), pooled)


def random_model(cfg: PatchConfig, seed: int = 0) -> ConvCellModel:
    rng = np.random.default_rng(seed)
    widths = (PATCH_CHANNELS, 6, 8, 8)
    convs = tuple((rng.normal(0, 0.3, (widths[k + 1], widths[k], 3, 3)).astype(np.float32),
                   rng.normal(0, 0.1, widths[k + 1]).astype(np.float32)) for k in range(3))
    side = 2 * cfg.size // 4
    n_in = 8 * side * side + len(PATCH_SCALARS)
    net = ConvNet(convs, (rng.normal(0, 0.1, (10, n_in)).astype(np.float32),
                          np.zeros(10, np.float32)),
                  (rng.normal(0, 0.3, (len(OUTPUTS), 10)).astype(np.float32),
                   np.zeros(len(OUTPUTS), np.float32)),
                  np.ones(len(OUTPUTS), np.float32))
    return ConvCellModel((net,), cfg, OUTPUTS, {"test": True})


def test_model_file_round_trip(tmp_path: Path) -> None:
    cfg = PatchConfig()
    model = random_model(cfg)
    loaded = load_cnn(model.save(tmp_path / "m.npz"))
    rng = np.random.default_rng(1)
    images = rng.normal(size=(3, PATCH_CHANNELS, 2 * cfg.size, 2 * cfg.size)).astype(np.float32)
    scalars = rng.normal(size=(3, len(PATCH_SCALARS))).astype(np.float32)
    assert loaded.info == {"test": True}
    assert np.allclose(loaded.predict_patches(images, scalars),
                       model.predict_patches(images, scalars))


def test_model_file_keeps_the_mirror_flag_and_the_ensemble(tmp_path: Path) -> None:
    cfg = PatchConfig()
    a, b = random_model(cfg, seed=1), random_model(cfg, seed=2)
    both = ConvCellModel(a.nets + b.nets, cfg, OUTPUTS, {}, mirror_average=False)
    loaded = load_cnn(both.save(tmp_path / "m.npz"))
    assert not loaded.mirror_average and len(loaded.nets) == 2
    rng = np.random.default_rng(3)
    images = rng.normal(size=(2, PATCH_CHANNELS, 2 * cfg.size, 2 * cfg.size)).astype(np.float32)
    scalars = rng.normal(size=(2, len(PATCH_SCALARS))).astype(np.float32)
    mean = (a.nets[0].predict_proba(images, scalars) + b.nets[0].predict_proba(images, scalars)) / 2
    assert np.allclose(loaded.predict_patches(images, scalars), mean, atol=1e-6)


def test_the_environment_variable_names_another_default_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = random_model(PatchConfig()).save(tmp_path / "m.npz")
    default_cnn.cache_clear()
    try:
        monkeypatch.setenv("QUARTO_VISION_CNN", str(path))
        assert default_cnn().info == {"test": True}
        other = dataclasses.replace(random_model(PatchConfig()), info={"other": 1})
        monkeypatch.setenv("QUARTO_VISION_CNN", str(other.save(tmp_path / "o.npz")))
        assert default_cnn().info == {"test": True}  # loaded once per process
        default_cnn.cache_clear()
        assert default_cnn().info == {"other": 1}
    finally:
        default_cnn.cache_clear()


def test_a_model_of_another_layout_is_refused(tmp_path: Path) -> None:
    path = random_model(PatchConfig()).save(tmp_path / "m.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["meta"] = np.array(str(arrays["meta"]).replace('"size": 16', '"size": 24'))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(CnnModelError, match="hidden layer"):
        load_cnn(tmp_path / "bad.npz")
    with pytest.raises(CnnModelError, match="cannot load"):
        load_cnn(tmp_path / "missing.npz")


def test_billboard_faces_the_camera_and_planes_run_far_to_near() -> None:
    view = make_view(elevation_deg=35.0)
    frames = cell_frames(view)
    pts = patch_points_m(frames, PatchConfig())  # (16, 4, n, n, 3)
    cam = view.camera.pose.camera_center
    # Billboard: every point lies in the vertical plane through the centre across "toward".
    off = pts[:, 0] - frames.centers[:, None, None, :]
    assert np.allclose(np.einsum("kijd,kd->kij", off, frames.toward), 0.0)
    assert np.all(pts[:, 0, 0, :, 2] > pts[:, 0, -1, :, 2])  # top row highest
    # Planes: horizontal, first row farthest from the camera, columns to the image right.
    for t, h in enumerate(PatchConfig().plane_heights_m, start=1):
        assert np.allclose(pts[:, t, ..., 2], h)
        d_first = np.linalg.norm(pts[:, t, 0] - cam, axis=-1).mean()
        d_last = np.linalg.norm(pts[:, t, -1] - cam, axis=-1).mean()
        assert d_first > d_last
        px = view.project(pts[:, t, 5].reshape(-1, 3)).reshape(16, -1, 2)
        assert np.all(np.diff(px[..., 0], axis=1) > 0)


def test_patches_are_board_relative_and_masked_outside_the_frame() -> None:
    view = make_view()
    uniform = np.full((360, 640, 3), (40, 90, 160), np.uint8)
    p = cell_patches(uniform, view)
    assert p.images.shape == (16, PATCH_CHANNELS, 32, 32)
    inside = p.images[:, 3] > 0
    assert inside.mean() > 0.9
    colours = p.images[:, :3].transpose(1, 0, 2, 3)[:, inside]
    assert np.abs(colours).max() < 0.02
    # The same scene in another lamp's colour: board-relative colours barely move.
    rng = np.random.default_rng(3)
    scene = cv2.GaussianBlur(rng.integers(0, 256, (360, 640, 3), dtype=np.uint8), (0, 0), 5)
    warm = np.clip(scene.astype(np.float32) * (0.8, 1.0, 1.2), 0, 255).astype(np.uint8)
    a, b = cell_patches(scene, view).images, cell_patches(warm, view).images
    assert np.abs(a[:, 0] - b[:, 0]).mean() < 0.25 * np.abs(a[:, 0]).mean() + 0.02


def test_mirror_reverses_each_tile_and_is_an_involution() -> None:
    x = np.random.default_rng(0).normal(size=(2, PATCH_CHANNELS, 32, 32)).astype(np.float32)
    m = mirror_patches(x)
    assert np.array_equal(mirror_patches(m), x)
    assert np.array_equal(m[..., :16], x[..., 15::-1])
    assert np.array_equal(m[..., 16:], x[..., 31:15:-1])
