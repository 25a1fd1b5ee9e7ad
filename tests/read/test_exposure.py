"""Brightening a frame whose board the camera left too dark (``vision.read.exposure``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.learn.test_sampling import make_view
from vision.read.exposure import (
    ExposureConfig,
    board_highlight,
    exposure_gain,
    gain_table,
    normalise_exposure,
)


def scene(board_code: int, highlight_code: int, table_code: int = 200) -> np.ndarray:
    """A light table, the board's outline filled with ``board_code`` and a bright patch (a
    light piece, 3 % of the board) of ``highlight_code``."""
    view = make_view()
    img = np.full((360, 640, 3), table_code, np.uint8)
    corners = np.round(view.corners_px()).astype(np.int32)
    cv2.fillPoly(img, [corners], (board_code,) * 3)
    c = view.project(np.zeros((1, 3)))[0].astype(int)
    cv2.circle(img, (int(c[0]), int(c[1])), 12, (highlight_code,) * 3, -1)
    return img


def test_a_dim_board_is_brightened_to_the_target_and_hues_survive() -> None:
    view = make_view()
    img = scene(10, 120)
    img[0:20, 0:20] = (40, 80, 160)  # a coloured patch outside the board
    out, gain = normalise_exposure(img, view)
    assert 1.5 < gain <= ExposureConfig().max_gain
    level = board_highlight(out, view)
    assert level == pytest.approx(ExposureConfig().target_highlight, rel=0.05)
    # Order of the channels (the hue) is kept; the board is still darker than its highlight.
    b, g, r = (int(v) for v in out[5, 5])
    assert b < g < r
    (bx, by), (cx, cy) = view.project(np.array([[0.1, 0.0, 0.0], [0.0, 0.0, 0.0]])).astype(int)
    assert int(img[by, bx, 1]) < int(out[by, bx, 1]) < int(out[cy, cx, 1])


def test_a_well_exposed_board_is_left_alone_and_nothing_is_darkened() -> None:
    view = make_view()
    img = scene(60, 230)
    out, gain = normalise_exposure(img, view)
    assert gain == 1.0 and out is img
    assert exposure_gain(scene(60, 255), view) == 1.0


def test_the_gain_is_bounded() -> None:
    view = make_view()
    _, gain = normalise_exposure(scene(2, 8), view)
    assert gain == ExposureConfig().max_gain
    _, off = normalise_exposure(scene(2, 8), view, ExposureConfig(max_gain=1.0))
    assert off == 1.0


def test_gain_table_is_monotone_and_identity_at_one() -> None:
    assert np.array_equal(gain_table(1.0), np.arange(256, dtype=np.uint8))
    t = gain_table(2.0)
    assert np.all(np.diff(t.astype(int)) >= 0) and t[0] == 0 and t[255] == 255 and t[128] > 128


def test_a_glint_on_under_one_percent_of_the_board_does_not_set_the_exposure() -> None:
    view = make_view()
    img = scene(10, 120)
    glint = exposure_gain(img, view)
    cx, cy = view.project(np.array([[0.06, 0.06, 0.0]]))[0].astype(int)
    img[cy - 2 : cy + 2, cx - 2 : cx + 2] = 255  # 16 pixels of specular glare
    assert exposure_gain(img, view) == pytest.approx(glint, rel=0.02)


def test_a_gain_under_min_gain_is_not_applied() -> None:
    view = make_view()
    img = scene(10, 120)
    gain = exposure_gain(img, view)
    out, applied = normalise_exposure(img, view, ExposureConfig(min_gain=gain + 0.01))
    assert applied == 1.0 and out is img


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match=r"frame_bgr must be an \(H, W, 3\).*\(10, 10\)"):
        normalise_exposure(np.zeros((10, 10), np.uint8), make_view())
    with pytest.raises(ValueError, match="frame_bgr must be uint8, got float32"):
        normalise_exposure(np.zeros((10, 10, 3), np.float32), make_view())
    with pytest.raises(ValueError, match="target_highlight"):
        ExposureConfig(target_highlight=0.0)
    with pytest.raises(ValueError, match="max_gain"):
        ExposureConfig(max_gain=0.5)
