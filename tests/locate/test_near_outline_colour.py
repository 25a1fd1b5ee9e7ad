"""The near-side search's edges in colour (``LocateConfig.near_outline_chroma``) and its
check taking the line nearest the grid's square (``near_outline_check_nearest``)."""

from __future__ import annotations

import cv2
import numpy as np

from tests.locate.synth import make_view
from vision.locate import LocateConfig
from vision.locate.finder import _work_edges
from vision.locate.quad import chroma_channels, far_side, near_sides

CONFIG = LocateConfig()


def _corners() -> np.ndarray:
    """The working-image corners (480x270) of a 0.3 m board seen from 28 degrees."""
    view = make_view(elevation_deg=28.0, azimuth_deg=20.0, distance_m=0.7, hfov_deg=65.0)
    half = 0.15
    square = np.array([[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0],
                       [-half, half, 0.0]])
    return np.asarray(view.project(square), dtype=np.float64) * 0.375


def _grey_of(bgr: tuple[int, int, int]) -> int:
    return int(cv2.cvtColor(np.array([[bgr]], np.uint8), cv2.COLOR_BGR2GRAY)[0, 0])


def test_a_board_of_the_tables_grey_shows_its_sides_in_colour():
    # An orange board on a blue-grey table of the same grey level: no edge in grey.
    board, table = (60, 120, 200), (200, 130, 127)
    assert abs(_grey_of(board) - _grey_of(table)) <= 1
    corners = _corners()
    img = np.empty((270, 480, 3), np.uint8)
    img[:] = table
    cv2.fillPoly(img, [np.round(corners * 16).astype(np.int32)], board, cv2.LINE_AA, 4)
    noise = np.random.default_rng(0).normal(0.0, 1.5, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    work_f, edge = _work_edges(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), CONFIG)
    chroma = chroma_channels(img, (480, 270), CONFIG.smooth_sigma_px)
    start = corners + np.array([[-4.0, 3.0], [5.0, -2.0], [3.0, 4.0], [-3.0, -4.0]])
    k = far_side(corners)
    b, c = corners[(k + 3) % 4], corners[(k + 2) % 4]

    def worst(found: list) -> float:
        return min((max(np.hypot(*(fb - b)), np.hypot(*(fc - c))) for fb, fc, _, _ in found),
                   default=np.inf)

    assert worst(near_sides(work_f, start, edge.min_edge, CONFIG)) > 3.0
    assert worst(near_sides(work_f, start, edge.min_edge, CONFIG, chroma=chroma)) < 1.5


def test_the_check_takes_the_line_nearest_the_square_not_the_first_row_of_rings():
    # A light board with a dark side face below its near side, a dark ring line parallel
    # to the near side a little inside it (the first row of cells), on a lighter table.
    corners = _corners()
    k = far_side(corners)
    a, d, c, b = (corners[(k + j) % 4] for j in range(4))
    img = np.full((270, 480), 210, np.uint8)
    down = np.array([0.0, 7.0])
    face = np.array([b, c, c + down, b + down])
    cv2.fillPoly(img, [np.round(face * 16).astype(np.int32)], 70, cv2.LINE_AA, 4)
    cv2.fillPoly(img, [np.round(corners * 16).astype(np.int32)], 150, cv2.LINE_AA, 4)
    inward = (a + d) / 2.0 - (b + c) / 2.0
    inward /= np.hypot(*inward)
    p, q = b + 12.0 * inward + 0.15 * (c - b), c + 12.0 * inward - 0.15 * (c - b)
    cv2.line(img, tuple(np.round(p * 16).astype(int)), tuple(np.round(q * 16).astype(int)),
             60, 2, cv2.LINE_AA, 4)
    noise = np.random.default_rng(1).normal(0.0, 1.5, img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    work_f, edge = _work_edges(img, CONFIG)

    def near_gap(face_top: bool) -> float:
        found = near_sides(work_f, corners, edge.min_edge, CONFIG, nearest=True,
                           face_top=face_top)
        assert found
        return min(max(np.hypot(*(fb - b)), np.hypot(*(fc - c))) for fb, fc, _, _ in found)

    # (The corners' distances from the drawn ones: the line is 12 px inside.)
    assert near_gap(face_top=False) < 3.0
    assert near_gap(face_top=True) > 8.0
