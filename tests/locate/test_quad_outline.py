"""Board outlines: straight runs past pieces sticking out, and boards that differ by hue."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate.config import LocateConfig
from vision.locate.quad import _four_runs, _four_sides, board_quads, quad_distance

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
    assert quad_distance(runs, BOARD) < 3.0
    # The convex hull goes over the pieces: its far side is many pixels off.
    hull = _four_sides(cv2.convexHull(contour), CONFIG)
    assert hull is None or quad_distance(hull, BOARD) > 10.0


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
    near = [q for q in board_quads(gray, CONFIG, colour) if quad_distance(q, BOARD) < 8.0]
    assert near
    # Lightness alone does not see it.
    assert not [q for q in board_quads(gray, CONFIG) if quad_distance(q, BOARD) < 8.0]


def test_a_grey_scene_adds_no_chroma_regions():
    rng = np.random.default_rng(3)
    grey = np.clip(rng.normal(128.0, 3.0, (270, 480)), 0, 255).astype(np.uint8)
    colour = cv2.merge([grey, grey, grey])
    assert board_quads(grey, CONFIG, colour) == []


def test_colour_of_another_size_is_refused():
    gray = np.zeros((270, 480), np.uint8)
    with pytest.raises(ValueError, match="colour"):
        board_quads(gray, CONFIG, np.zeros((100, 100, 3), np.uint8))


def _board_with_side_face_and_corner_piece(seed: int) -> np.ndarray:
    """A dark board top on a light table (960x540 working image), its near side face shown
    as a mid-grey band below the near edge (the foot's edge against the table is the
    stronger one), and a tall light piece hiding the far right corner, with noise."""
    rng = np.random.default_rng(seed)
    top = BOARD * 2.0
    img = np.full((540, 960), 200.0)
    face = np.array([top[3], top[2], top[2] + [0.0, 22.0], top[3] + [0.0, 22.0]])
    m = np.zeros((540, 960), np.uint8)
    cv2.fillPoly(m, [face.astype(np.int32)], 255)
    img[m > 0] = 35.0
    m[:] = 0
    cv2.fillPoly(m, [top.astype(np.int32)], 255)
    img[m > 0] = 70.0
    cv2.rectangle(img, (625, 120), (690, 230), 215.0, -1)  # the piece over the corner
    img += rng.normal(0.0, 2.0, img.shape)
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 1.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_refined_outline_extrapolates_a_hidden_corner_and_finds_the_top_edge(seed):
    from vision.locate.quad import refine_quad

    gray = _board_with_side_face_and_corner_piece(seed)
    top = BOARD * 2.0
    # The region's outline as a threshold cuts it: the piece's top for the far right
    # corner, the face's foot for the near side.
    rough = top.copy()
    rough[1] = [690.0, 150.0]
    rough[2:] += [0.0, 20.0]
    assert quad_distance(rough, top) > 20.0
    out = refine_quad(gray, rough, 4.0, CONFIG)
    assert out, "no outline refined"
    # Every side lies on the board's straight edges: the hidden corner is where the two
    # sides meet, and one outline takes the top's near edge rather than the face's foot.
    assert min(quad_distance(q, top) for q in out) < 3.0
    assert max(quad_distance(q, top) for q in out) < 30.0


def test_refine_gives_nothing_where_no_straight_edge_runs():
    from vision.locate.quad import refine_quad

    rng = np.random.default_rng(3)
    gray = cv2.GaussianBlur(rng.normal(128.0, 20.0, (540, 960)).astype(np.float32),
                            (0, 0), 1.0)
    assert refine_quad(gray, BOARD * 2.0, 4.0, CONFIG) == []
