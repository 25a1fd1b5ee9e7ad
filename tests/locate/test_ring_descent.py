"""Each cell's ring searched down the image of the vertical (``ring_descent``, default off)."""

from __future__ import annotations

import numpy as np

from tests.locate.synth import draw_board, make_view
from vision.locate import LocateConfig, finder
from vision.locate.fit import GRID_NODES, EdgeConfig
from vision.locate.lattice import apply_h
from vision.locate.layout import board_to_grid

LIGHT_BOARD = {"board_bgr": (150, 190, 215), "ring_bgr": (60, 80, 110)}


def _grids(view, lift_m: float) -> tuple[np.ndarray, np.ndarray]:
    """The board's true grid (grid units -> pixels) and the grid of the plane ``lift_m``
    above it (what a fit on the pieces' tops would give)."""
    cam, spec = view.camera, view.spec
    to_grid = board_to_grid(spec.grid_rotation_deg) @ np.diag(
        [1.0 / spec.cell_pitch_m, 1.0 / spec.cell_pitch_m, 1.0])
    K, R, t = cam.intrinsics.matrix, cam.pose.R, cam.pose.t
    out = []
    for z in (0.0, lift_m):
        H = K @ np.column_stack([R[:, 0], R[:, 1], t + z * R[:, 2]]) @ np.linalg.inv(to_grid)
        out.append(H / H[2, 2])
    return out[0], out[1]


def _worst(H: np.ndarray, H_true: np.ndarray) -> float:
    """Largest distance of a cell centre from its true place, in true pitches."""
    d = np.hypot(*(apply_h(H, GRID_NODES) - apply_h(H_true, GRID_NODES)).T)
    pitch = np.hypot(*(apply_h(H_true, np.array([[1.0, 1.5]])) -
                       apply_h(H_true, np.array([[2.0, 1.5]]))).T)[0]
    return float(d.max() / pitch)


def _setup(lift_m: float):
    view = make_view(45.0, 30.0)
    frame = draw_board(view, **LIGHT_BOARD)
    gray = frame.mean(axis=2).astype(np.uint8)
    work_f = finder.smoothed(gray, 1.0)
    H_true, H_up = _grids(view, lift_m)
    radius = view.spec.cell_diameter_m / 2.0 / view.spec.cell_pitch_m
    edge = EdgeConfig(mode="line", polarity=-1, line_halfwidth_px=2.0)
    return work_f, H_true, H_up, radius, edge


def test_a_grid_lifted_off_the_board_is_lowered_onto_its_rings():
    # The grid of a plane 8 mm above the board (the rings' judged place on a crowded board)
    # is refitted through each cell's ring found below it, towards the camera's foot.
    # (The drawn board holds no pieces, so the empty-board check is off here.)
    work_f, H_true, H_up, radius, edge = _setup(0.008)
    before = _worst(H_up, H_true)
    assert before > 0.05
    cfg = LocateConfig(ring_descent=True, ring_descent_min_occupied=0)
    H_new, _ = finder._ring_descent(work_f, H_up, radius, edge, 1.0, None, (1280, 720), cfg)
    assert H_new is not H_up
    assert _worst(H_new, H_true) < 0.3 * before


def test_a_grid_over_an_empty_board_is_not_lowered():
    # Nothing stands above an empty board to lift a grid: the same lifted grid is kept.
    work_f, _, H_up, radius, edge = _setup(0.008)
    cfg = LocateConfig(ring_descent=True)
    H_new, _ = finder._ring_descent(work_f, H_up, radius, edge, 1.0, None, (1280, 720), cfg)
    assert H_new is H_up


def test_the_lowest_ring_is_picked_and_a_grid_on_the_board_is_left_alone():
    work_f, H_true, H_up, radius, edge = _setup(0.008)
    cfg = LocateConfig(ring_descent=True)
    foot, _ = finder._camera_foot(H_up, 1.0, None, (1280, 720), cfg)
    shifts, support, toward = finder.ring_descent_support(work_f, H_up, radius, edge, foot, cfg)
    picks = finder.ring_descent_picks(shifts, support, cfg)
    # Where the true rings lie, seen on the lifted plane: each cell moved towards the foot.
    true_up = apply_h(np.linalg.inv(H_up), apply_h(H_true, GRID_NODES))
    want = ((true_up - GRID_NODES) * toward).sum(axis=1)
    ok = np.isfinite(picks)
    assert ok.sum() >= 12
    assert np.abs(picks[ok] - want[ok]).max() < 0.03
    # On the board's own grid, nothing moves.
    H_same, _ = finder._ring_descent(work_f, H_true, radius, edge, 1.0, None, (1280, 720), cfg)
    assert H_same is H_true
