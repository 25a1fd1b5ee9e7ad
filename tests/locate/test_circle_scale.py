"""The grid's scale checked against the big circle (``finder._circle_scale``,
``LocateConfig.circle_scale_*``): the circle and the rings are printed on one board, so a
grid whose circle lies at a radius over the pitch no board has is scaled to the usual one."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from tests.locate.synth import draw_board, make_view
from vision.geometry.board_spec import BoardSpec
from vision.locate import LocateConfig
from vision.locate import finder as fnd
from vision.locate.fit import GRID_NODES, EdgeConfig
from vision.locate.lattice import apply_h
from vision.locate.layout import board_to_grid, fit_layout


def _scene(elevation_deg: float = 85.0):
    spec = BoardSpec.gigamic()
    view = make_view(elevation_deg, 20.0, spec=spec)
    gray = cv2.cvtColor(draw_board(view), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.2)
    p = spec.cell_pitch_m
    to_grid = board_to_grid(spec.grid_rotation_deg) @ np.diag([1.0 / p, 1.0 / p, 1.0])
    H = view.camera.board_homography() @ np.linalg.inv(to_grid)
    return gray, H / H[2, 2], spec.cell_diameter_m / 2.0 / p


def _worst(H_a, H_b) -> float:
    a, b = apply_h(H_a, GRID_NODES), apply_h(H_b, GRID_NODES)
    pitch = float(np.hypot(*(apply_h(H_b, np.array([[1.0, 0.0]])) -
                             apply_h(H_b, np.array([[0.0, 0.0]])))[0]))
    return float(np.hypot(*(a - b).T).max()) / pitch


def test_a_grid_too_large_for_its_big_circle_is_scaled_back():
    gray, H_true, radius = _scene()
    config = LocateConfig(circle_scale_check=True)
    edge = EdgeConfig(min_edge=4.0, mode="line", polarity=1)
    # The grid 8% too large about its centre (as on the pieces' tops seen from above).
    k = 1.08
    grow = np.array([[k, 0.0, 1.5 * (1 - k)], [0.0, k, 1.5 * (1 - k)], [0.0, 0.0, 1.0]])
    H_big = H_true @ grow
    lay = fit_layout(gray, H_big, config, edge)
    assert lay.circle_score >= config.circle_scale_min_score
    assert lay.big_circle < config.circle_scale_range[0]  # the circle at another ratio
    size = (gray.shape[1], gray.shape[0])
    H_new, r_new, lay_new = fnd._circle_scale(gray, H_big, radius / k, edge, lay, config, 1.0,
                                              None, size)
    assert H_new is not H_big
    assert _worst(H_big, H_true) > 0.15
    assert _worst(H_new, H_true) < 0.05
    lo, hi = config.circle_scale_range
    assert lo <= lay_new.big_circle <= hi
    assert abs(r_new - radius) < abs(radius / k - radius)


def test_a_grid_at_the_boards_ratio_or_with_its_circle_unseen_is_left_alone():
    gray, H_true, radius = _scene()
    config = LocateConfig(circle_scale_check=True)
    edge = EdgeConfig(min_edge=4.0, mode="line", polarity=1)
    lay = fit_layout(gray, H_true, config, edge)
    lo, hi = config.circle_scale_range
    assert lo <= lay.big_circle <= hi
    out = fnd._circle_scale(gray, H_true, radius, edge, lay, config)
    assert out[0] is H_true and out[2] is lay
    # A circle found on too few points says nothing about the scale.
    k = 1.08
    grow = np.array([[k, 0.0, 1.5 * (1 - k)], [0.0, k, 1.5 * (1 - k)], [0.0, 0.0, 1.0]])
    H_big = H_true @ grow
    faint = replace(fit_layout(gray, H_big, config, edge), circle_score=0.5)
    assert fnd._circle_scale(gray, H_big, radius, edge, faint, config)[0] is H_big
    # Nor a grid too small for its circle: pieces stand above the board and look larger.
    k = 0.93
    shrink = np.array([[k, 0.0, 1.5 * (1 - k)], [0.0, k, 1.5 * (1 - k)], [0.0, 0.0, 1.0]])
    H_small = H_true @ shrink
    lay_small = fit_layout(gray, H_small, config, edge)
    assert lay_small.big_circle > config.circle_scale_range[1]
    assert fnd._circle_scale(gray, H_small, radius, edge, lay_small, config)[0] is H_small


def test_a_grid_too_large_seen_from_low_down_is_left_alone():
    # From 40 degrees the pieces' plane is the board's shifted and enlarged about the
    # camera's foot, far from the grid's centre: scaling about the centre is no correction.
    gray, H_true, radius = _scene(40.0)
    config = LocateConfig(circle_scale_check=True)
    edge = EdgeConfig(min_edge=4.0, mode="line", polarity=1)
    k = 1.08
    grow = np.array([[k, 0.0, 1.5 * (1 - k)], [0.0, k, 1.5 * (1 - k)], [0.0, 0.0, 1.0]])
    H_big = H_true @ grow
    lay = fit_layout(gray, H_big, config, edge)
    assert lay.circle_score >= config.circle_scale_min_score
    assert lay.big_circle < config.circle_scale_range[0]
    size = (gray.shape[1], gray.shape[0])
    assert fnd._circle_scale(gray, H_big, radius, edge, lay, config, 1.0, None, size)[0] is H_big
    # ... unless the elevation gate is lifted.
    low = replace(config, circle_scale_min_elevation_deg=0.0)
    assert fnd._circle_scale(gray, H_big, radius, edge, lay, low, 1.0, None, size)[0] is not H_big
