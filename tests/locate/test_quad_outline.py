"""Board outlines: straight runs past pieces sticking out, and boards that differ by hue."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate.config import LocateConfig
from vision.locate.quad import _four_runs, _four_sides, _quad_distance, board_quads

CONFIG = LocateConfig()
# A board's top face seen in perspective (pixels of a 480x270 outline image; its cell pitch
# is about 50 px, so 8 px is a sixth of a cell, well inside what the grid fit corrects).
BOARD = np.array([[150.0, 90.0], [330.0, 95.0], [370.0, 220.0], [110.0, 215.0]])


def _mask_with_pieces() -> np.ndarray:
    """The board's region with two tall pieces standing out over its far side."""
    mask = np.zeros((270, 480), np.uint8)
    cv2.fillPoly(mask, [BOARD.astype(np.int32)], 255)
    for x in (190, 270):
        cv2.rectangle(mask, (x, 45), (x + 26, 120), 255, -1)
    return mask


def test_straight_runs_recover_the_outline_that_the_hull_bridges():
    mask = _mask_with_pieces()
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(cnts, key=cv2.contourArea)
    runs = _four_runs(contour, CONFIG)
    assert runs is not None
    assert _quad_distance(runs, BOARD) < 3.0
    # The convex hull goes over the pieces: its far side is many pixels off.
    hull = _four_sides(cv2.convexHull(contour), CONFIG)
    assert hull is None or _quad_distance(hull, BOARD) > 10.0


def test_a_region_with_three_sides_gives_none():
    mask = np.zeros((270, 480), np.uint8)
    cv2.fillPoly(mask, [np.array([[240, 40], [380, 230], [100, 230]], np.int32)], 255)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    assert _four_runs(cnts[0], CONFIG) is None


def _isoluminant_scene(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A green board on a red-grey table of the same luma (BT.601: 125), under shading
    bands that vary the lightness of both far more than they differ, with sensor noise."""
    rng = np.random.default_rng(seed)
    table = np.array([110, 110, 160], np.float64)  # BGR
    board = np.array([90, 165, 60], np.float64)  # BGR
    img = np.empty((270, 480, 3), np.float64)
    img[:] = table
    m = np.zeros((270, 480), np.uint8)
    cv2.fillPoly(m, [BOARD.astype(np.int32)], 255)
    img[m > 0] = board
    yy, xx = np.mgrid[0:270, 0:480]
    img += (25.0 * np.sin(xx / 23.0 + yy / 31.0))[..., None]
    img += rng.normal(0.0, 3.0, img.shape)
    colour = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), colour


@pytest.mark.parametrize("seed", [0, 1])
def test_a_board_that_differs_by_hue_is_outlined_from_its_chroma(seed):
    gray, colour = _isoluminant_scene(seed)
    near = [q for q in board_quads(gray, CONFIG, colour) if _quad_distance(q, BOARD) < 8.0]
    assert near
    # Lightness alone does not see it.
    assert not [q for q in board_quads(gray, CONFIG) if _quad_distance(q, BOARD) < 8.0]


def test_a_grey_scene_adds_no_chroma_regions():
    rng = np.random.default_rng(3)
    grey = np.clip(rng.normal(128.0, 3.0, (270, 480)), 0, 255).astype(np.uint8)
    colour = cv2.merge([grey, grey, grey])
    assert board_quads(grey, CONFIG, colour) == []


def test_colour_of_another_size_is_refused():
    gray = np.zeros((270, 480), np.uint8)
    with pytest.raises(ValueError, match="colour"):
        board_quads(gray, CONFIG, np.zeros((100, 100, 3), np.uint8))
