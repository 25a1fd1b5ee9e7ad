"""The judged grid lowered onto the board's plane (``lift_correction``, default off)."""

from __future__ import annotations

import cv2
import numpy as np

from tests.locate.synth import draw_board, make_view
from vision.geometry.camera import Intrinsics
from vision.locate import LocateConfig
from vision.locate.fit import GRID_NODES, EdgeConfig
from vision.locate.lattice import apply_h
from vision.locate.layout import fit_layout

SCALE = 0.75  # 1280 px frames, a 960 px working image


def _plane_grid(view, height_m: float) -> np.ndarray:
    """Grid (m, n) -> work pixels of the board's cell centres raised by ``height_m``."""
    xy = view.spec.cell_centers()
    px = view.project(np.column_stack([xy, np.full(len(xy), height_m)])) * SCALE
    H, _ = cv2.findHomography(GRID_NODES, px)
    return np.asarray(H / H[2, 2], dtype=np.float64)


def test_a_raised_plane_lowered_by_its_height_is_the_board():
    from vision.locate.finder import lowered_grids

    view = make_view(50.0, 30.0)
    K = view.camera.intrinsics.matrix
    pitch = view.spec.cell_pitch_m
    raised = _plane_grid(view, 0.6 * pitch)
    board = apply_h(_plane_grid(view, 0.0), GRID_NODES)
    H0, H6 = lowered_grids(raised, SCALE, K, np.array([0.0, 0.6]))
    # Height 0 is the grid itself; 0.6 pitch down, the board's cells (under the true K).
    assert np.abs(apply_h(H0, GRID_NODES) - apply_h(raised, GRID_NODES)).max() < 1e-6
    moved = np.abs(apply_h(raised, GRID_NODES) - board).max()
    assert moved > 10.0
    assert np.abs(apply_h(H6, GRID_NODES) - board).max() < 0.01 * moved
    # A wrong focal length still leaves height 0 alone.
    wrong = Intrinsics.from_fov(view.camera.intrinsics.size_wh, 45.0).matrix
    (H0w,) = lowered_grids(raised, SCALE, wrong, np.array([0.0]))
    assert np.abs(apply_h(H0w, GRID_NODES) - apply_h(raised, GRID_NODES)).max() < 1e-6


def _inputs(view, H_work):
    from vision.locate import finder

    frame = draw_board(view, pieces=(1, 2, 5, 6, 9, 10, 13))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    work = cv2.resize(gray, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
    config = LocateConfig(lift_correction=True)
    work_f = finder.smoothed(work, config.smooth_sigma_px)
    edge = EdgeConfig(min_edge=2.0)
    lay = fit_layout(work_f, H_work, config, edge)
    return work_f, edge, lay, config


def test_a_lifted_grid_is_lowered_onto_the_board_and_a_right_one_stays():
    from vision.locate.finder import _lower_grid

    view = make_view(45.0, 20.0)
    pitch = view.spec.cell_pitch_m
    board = apply_h(_plane_grid(view, 0.0), GRID_NODES)
    radius = view.spec.cell_diameter_m / 2.0 / pitch
    for lift, moves in ((0.3, True), (0.0, False)):
        H_work = _plane_grid(view, lift * pitch)
        work_f, edge, lay, config = _inputs(view, H_work)
        H, r, _ = _lower_grid(work_f, H_work, radius, edge, lay, SCALE, None, (1280, 720),
                              config)
        if moves:
            before = np.abs(apply_h(H_work, GRID_NODES) - board).max()
            after = np.abs(apply_h(H, GRID_NODES) - board).max()
            assert after < 0.4 * before, (before, after)
        else:
            assert H is H_work and r == radius


def test_off_by_default():
    assert not LocateConfig().lift_correction
