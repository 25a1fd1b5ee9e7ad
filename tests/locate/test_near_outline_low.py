"""Session 39's additions to the near-side search for crowded boards seen from 25-40 degrees
(all off by default): starts from the network's peaks (``peak_box_starts``), the near side
taken on the face's top edge only within the face's thickness
(``near_outline_face_max_share``), and the board's frame read on its near side
(``layout.near_frame_score``)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from tests.locate.synth import draw_board, make_view
from vision.locate import LocateConfig
from vision.locate.finder import _camera_foot, _work_edges, peak_box_starts
from vision.locate.fit import GRID_NODES
from vision.locate.layout import fit_layout, near_frame_score
from vision.locate.quad import far_side, near_sides

CONFIG = LocateConfig()


def test_peak_box_starts_grow_the_peaks_rectangle_about_its_centre():
    # Peaks on a 4x4 lattice 30 px apart, turned 20 degrees: their rectangle is 90 px wide.
    a = np.radians(20.0)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    peaks = (GRID_NODES * 30.0) @ R.T + np.array([300.0, 200.0])
    centre = peaks.mean(axis=0)
    starts = peak_box_starts(peaks, (1.0, 2.0))
    assert len(starts) == 2
    for s, grow in zip(starts, (1.0, 2.0)):
        assert s.shape == (4, 2)
        assert np.allclose(s.mean(axis=0), centre, atol=1e-3)
        sides = np.hypot(*(s - np.roll(s, 1, axis=0)).T)
        assert np.allclose(sides, 90.0 * grow, atol=0.05 * grow)
    # Off: no scale, or too few peaks to cover the cells.
    assert peak_box_starts(peaks, ()) == []
    assert peak_box_starts(peaks[:3], (2.0,)) == []


def _board_with_inner_line() -> tuple[np.ndarray, np.ndarray]:
    """A grey board on a light table (480x270) seen as a trapezoid, with a dark line
    parallel to its near side about a pitch inside it (a row of rings, the pieces' feet),
    and its corners (far side first)."""
    corners = np.array([[150.0, 80.0], [330.0, 80.0], [380.0, 200.0], [100.0, 200.0]])
    img = np.full((270, 480), 190, np.uint8)
    cv2.fillPoly(img, [np.round(corners * 16).astype(np.int32)], 90, cv2.LINE_AA, 4)
    cv2.line(img, (125, 170), (355, 170), 40, 2)
    noise = np.random.default_rng(0).normal(0.0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), corners


def test_the_near_side_is_not_moved_a_pitch_inside_onto_a_parallel_line():
    img, corners = _board_with_inner_line()
    work_f, edge = _work_edges(img, CONFIG)
    start = corners + np.array([[-4.0, -3.0], [5.0, -2.0], [6.0, 5.0], [-5.0, 6.0]])
    k = far_side(corners)
    near_y = corners[(k + 2) % 4][1]

    def near_rows(config: LocateConfig) -> list[float]:
        return [float((b[1] + c[1]) / 2.0)
                for b, c, _, _ in near_sides(work_f, start, edge.min_edge, config)]

    # Any parallel line inside is taken for the face's top edge: the line 30 px in.
    rows = near_rows(replace(CONFIG, near_outline_face_max_share=float("inf")))
    assert rows and all(abs(y - 170.0) < 2.0 for y in rows)
    # A face is at most its thickness deep: the board's own near side is kept.
    rows = near_rows(replace(CONFIG, near_outline_face_max_share=0.07))
    assert rows and all(abs(y - near_y) < 2.0 for y in rows)


def test_the_near_frame_keeps_what_the_pieces_leave_of_the_outline():
    view = make_view(elevation_deg=28.0, azimuth_deg=20.0, distance_m=0.55, hfov_deg=65.0)
    img = draw_board(view, pieces=tuple(range(16)))
    scale = CONFIG.work_width_px / img.shape[1]
    work = cv2.resize(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA)
    work_f, edge = _work_edges(work, CONFIG)
    centres = view.spec.cell_centers()
    px = view.project(np.column_stack([centres, np.zeros(len(centres))])) * scale
    H, _ = cv2.findHomography(GRID_NODES, px, 0)
    e = replace(edge, mode="edge", polarity=0)
    lay = fit_layout(work_f, H, CONFIG, e)
    size_wh = (work_f.shape[1], work_f.shape[0])
    foot, _ = _camera_foot(H, 1.0, None, size_wh, CONFIG)
    near = near_frame_score(work_f, H, lay, foot, CONFIG.near_arc_min_cos, CONFIG, e)
    # The near side is seen whole; the far side runs behind the pieces.
    assert near > 0.9
    assert near > lay.frame_score + 0.05
    # Facing away from the foot (the far side only), the pieces hide most of it.
    far = near_frame_score(work_f, H, lay, 2.0 * np.array([1.5, 1.5]) - foot, 0.2, CONFIG, e)
    assert far < near - 0.2
