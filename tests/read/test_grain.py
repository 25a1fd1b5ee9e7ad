"""Blurring a frame's chroma around the board (``vision.read.grain``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.learn.test_sampling import make_view
from vision.read.grain import GrainConfig, smooth_chroma


def grainy_frame() -> np.ndarray:
    """A grey frame with a brightness edge and blotchy colour grain everywhere."""
    rng = np.random.default_rng(5)
    img = np.full((360, 640, 3), 90.0, np.float32)
    img[:, 320:] = 150.0
    blotches = cv2.GaussianBlur(rng.standard_normal((360, 640, 3)).astype(np.float32), (0, 0), 1)
    img += 25.0 * (blotches - blotches.mean(axis=2, keepdims=True))
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _chroma_std(img: np.ndarray) -> float:
    return float(cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)[:, :, 1:].astype(float).std())


def _luma(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)[:, :, 0].astype(float)


def test_off_by_default() -> None:
    img = grainy_frame()
    assert smooth_chroma(img, make_view()) is img
    assert smooth_chroma(img, make_view(), GrainConfig(chroma_sigma_px=0.0)) is img


def test_the_board_region_loses_its_colour_grain_and_keeps_its_brightness() -> None:
    view = make_view()
    img = grainy_frame()
    out = smooth_chroma(img, view, GrainConfig(chroma_sigma_px=3.0))
    c = view.project(np.zeros((1, 3)))[0].astype(int)
    box = (slice(c[1] - 20, c[1] + 20), slice(c[0] - 20, c[0] + 20))
    assert _chroma_std(out[box]) < 0.4 * _chroma_std(img[box])
    assert np.abs(_luma(out[box]) - _luma(img[box])).max() <= 3.0
    # The brightness edge (x = 320) stays as sharp as it was.
    row = c[1]
    assert _luma(out)[row, 322] - _luma(out)[row, 317] == pytest.approx(
        _luma(img)[row, 322] - _luma(img)[row, 317], abs=8.0)


def test_far_from_the_board_nothing_changes() -> None:
    view = make_view(elevation_deg=80.0)
    img = grainy_frame()
    out = smooth_chroma(img, view, GrainConfig(chroma_sigma_px=3.0))
    changed = np.any(out != img, axis=2)
    _, xs = np.nonzero(changed)
    corners = view.corners_px()
    # Only pixels near the board (its outline, the tallest pieces above it, the blur's reach).
    assert xs.min() >= corners[:, 0].min() - 60 and xs.max() <= corners[:, 0].max() + 60
    assert changed.any() and not changed[:, :20].any() and not changed[:, -20:].any()


def test_bad_knobs_are_rejected() -> None:
    with pytest.raises(ValueError, match="chroma_sigma_px"):
        GrainConfig(chroma_sigma_px=-1.0)
    with pytest.raises(ValueError, match="reach_m"):
        GrainConfig(reach_m=float("nan"))


def test_the_fused_reader_config_takes_the_knob() -> None:
    from vision.learn.config import LearnedReaderConfig

    assert LearnedReaderConfig().grain.chroma_sigma_px == 0.0
    cfg = LearnedReaderConfig(grain=GrainConfig(chroma_sigma_px=3.0))
    assert cfg.grain.chroma_sigma_px == 3.0
