"""``SceneOptions(sensor="bayer")``: noise per photosite of a colour mosaic, the rest unchanged."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.render import render_still
from vision.render.effects import develop, jpeg_round_trip
from vision.render.scene import Effects, SceneOptions, sample_scene

SMALL = SceneOptions(size_wh=(320, 180), n_pieces=(8, 8))


def _flat_patch(sensor: str, gain: float) -> np.ndarray:
    """A dark grey square in a mid-grey frame, developed under a warm light and JPEG'd;
    returns the square."""
    linear = np.full((240, 240, 3), 0.2, np.float32)
    linear[60:180, 60:180] = 0.02
    effects = Effects(exposure_bias_ev=0.0, wb_strength=0.8, iso_gain=gain, blur_sigma=0.0,
                      motion_len=0, motion_angle_deg=0.0, vignetting=0.0, jpeg_quality=85,
                      saturation=1.0, background_blur=0.0, contrast=0.4, sensor=sensor)
    img, _ = develop(linear, effects, np.array([1.0, 0.8, 0.5], np.float32),
                     np.random.default_rng(3))
    return jpeg_round_trip(img, 85)[70:170, 70:170].astype(np.float32)


def _coarse_red_green(img: np.ndarray) -> float:
    """Standard deviation of the red-green difference between 2 and 4 pixel scales."""
    rg = img[:, :, 2] - img[:, :, 1]
    return float(np.std(cv2.GaussianBlur(rg, (0, 0), 2) - cv2.GaussianBlur(rg, (0, 0), 4)))


def test_bayer_grain_is_coloured_and_blotchy_where_pixel_grain_is_not() -> None:
    pixel, bayer = _flat_patch("pixel", 9.0), _flat_patch("bayer", 9.0)
    # The same exposure and white balance: the same mean colour within a few codes.
    assert np.allclose(pixel.mean(axis=(0, 1)), bayer.mean(axis=(0, 1)), atol=4.0)
    # Per-pixel noise loses its colour in JPEG's halved chroma; the mosaic's does not.
    assert _coarse_red_green(bayer) > 3.0 * _coarse_red_green(pixel)
    # And the mosaic's grain grows with the sensor's gain.
    assert _coarse_red_green(bayer) > 2.0 * _coarse_red_green(_flat_patch("bayer", 1.0))


def test_bayer_sensor_changes_only_the_effects_sensor() -> None:
    usual = sample_scene(21, SMALL)
    bayer = sample_scene(21, dataclasses.replace(SMALL, sensor="bayer"))
    assert bayer.effects == dataclasses.replace(usual.effects, sensor="bayer")
    assert bayer.placements == usual.placements
    assert bayer.lights == usual.lights
    assert np.array_equal(bayer.camera.camera.pose.R, usual.camera.camera.pose.R)
    assert bayer.texture_seed == usual.texture_seed


def test_bayer_renders_differ_in_grain_only_and_say_so() -> None:
    img_usual, label_usual = render_still(21, options=SMALL)
    img_bayer, label = render_still(21, options=dataclasses.replace(SMALL, sensor="bayer"))
    assert "sensor" not in label_usual["postprocess"]
    assert label["postprocess"]["sensor"] == "bayer"
    assert label["cells"] == label_usual["cells"]
    assert not np.array_equal(img_bayer, img_usual)
    # Grain, not a different picture: the two agree once both are smoothed.
    diff = cv2.GaussianBlur(img_bayer, (0, 0), 3).astype(float) - cv2.GaussianBlur(
        img_usual, (0, 0), 3)
    assert np.median(np.abs(diff)) < 6.0


def test_unknown_sensor_is_rejected() -> None:
    with pytest.raises(ValueError, match="sensor"):
        SceneOptions(sensor="foveon")
