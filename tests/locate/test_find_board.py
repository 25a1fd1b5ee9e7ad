"""find_board on synthetic boards drawn with the camera model."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import cv2
import numpy as np
import pytest

from tests.locate.synth import draw_board, draw_empty_table, make_view
from vision.evaluation.board import cell_errors
from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL, BoardSpec
from vision.geometry.board_view import BoardNotFound, BoardView
from vision.geometry.camera import Intrinsics
from vision.locate import LocateConfig, find_board
from vision.locate.finder import edge_threshold


def _spacing(view: BoardView) -> float:
    c = view.cell_centers_px()
    return float(np.mean([np.linalg.norm(c[i] - c[i + 1]) for i in (0, 1, 4, 5)]))


def _rel_errors(found: BoardView, truth: BoardView) -> np.ndarray:
    return cell_errors(found.cell_centers_px(), truth.cell_centers_px()) / _spacing(truth)


@pytest.mark.parametrize(
    ("elevation", "azimuth", "spec", "layout"),
    [
        (50.0, 30.0, BoardSpec.gigamic(), LAYOUT_DIAGONAL),
        (30.0, 160.0, BoardSpec.gigamic(0.25), LAYOUT_DIAGONAL),
        (85.0, 290.0, BoardSpec.gigamic(), LAYOUT_DIAGONAL),
        (40.0, 10.0, BoardSpec.axis_aligned(), LAYOUT_AXIS),
        (70.0, 225.0, BoardSpec.axis_aligned(), LAYOUT_AXIS),
    ],
)
def test_finds_empty_board_to_a_fraction_of_a_cell(elevation, azimuth, spec, layout):
    truth = make_view(elevation, azimuth, spec=spec)
    found = find_board(draw_board(truth, seed=int(elevation)))
    assert found, found
    assert found.layout == layout
    err = _rel_errors(found, truth)
    assert np.median(err) < 0.02
    assert err.max() < 0.05


@pytest.mark.parametrize(
    ("spec", "layout"),
    [(BoardSpec.gigamic(), LAYOUT_DIAGONAL), (BoardSpec.axis_aligned(), LAYOUT_AXIS)],
)
def test_scale_follows_the_layout(spec, layout):
    """The pose's scale is the nominal pitch of the board's layout, so on a board of nominal
    size a point 60 mm above a cell (a tall piece's top) lands where the true camera puts it:
    a home-made board taken at the Gigamic pitch would shrink every piece by a sixth."""
    truth = make_view(45.0, 60.0, spec=spec)
    found = find_board(draw_board(truth, seed=5), intrinsics=truth.camera.intrinsics)
    assert found and found.layout == layout
    assert found.spec.cell_pitch_m == pytest.approx(LocateConfig().nominal_pitch_for(layout))
    lifted = found.cell_centers_px(0.06)
    expected = truth.cell_centers_px(0.06)
    assert np.median(np.hypot(*(np.sort(lifted, 0) - np.sort(expected, 0)).T)) < 3


@pytest.mark.parametrize("use_net", [True, False])
def test_found_with_and_without_the_cell_centre_network(use_net):
    """The network is a shortcut, not a requirement: the ring search alone still finds the
    board, and both ways agree to a fraction of a cell."""
    truth = make_view(40.0, 75.0)
    img = draw_board(truth, pieces=(0, 6, 9, 15), seed=11)
    found = find_board(img, config=LocateConfig(use_board_net=use_net))
    assert found, found
    assert np.median(_rel_errors(found, truth)) < 0.02


def test_occupied_cells_and_a_hand_over_a_corner():
    truth = make_view(35.0, 100.0)
    img = draw_board(truth, pieces=(1, 5, 6, 10, 15), hand=True, seed=3)
    found = find_board(img)
    assert found, found
    assert np.median(_rel_errors(found, truth)) < 0.03


def test_focal_length_estimated_without_calibration():
    truth = make_view(45.0, 60.0, hfov_deg=70.0)
    found = find_board(draw_board(truth))
    assert found and not found.calibrated
    assert abs(found.camera.intrinsics.fx / truth.camera.intrinsics.fx - 1.0) < 0.05


@pytest.mark.parametrize(("elevation", "hfov"), [(80.0, 50.0), (84.0, 50.0), (78.0, 80.0)])
def test_focal_length_estimated_from_high_views(elevation, hfov):
    """Above 72 degrees the focal length used to be the default field of view (65 degrees);
    the fit to the ring edges still measures the perspective of a board seen at a slant of a
    few degrees, and beats that default by far."""
    truth = make_view(elevation, 60.0, hfov_deg=hfov)
    found = find_board(draw_board(truth, seed=4))
    assert found and not found.calibrated
    fx = truth.camera.intrinsics.fx
    default = Intrinsics.from_fov(truth.camera.intrinsics.size_wh,
                                  LocateConfig().default_hfov_deg).fx
    err = abs(found.camera.intrinsics.fx / fx - 1.0)
    assert err < 0.1
    assert err < abs(default / fx - 1.0) / 3.0


def test_calibrated_intrinsics_are_used():
    truth = make_view(45.0, 60.0)
    found = find_board(draw_board(truth), intrinsics=truth.camera.intrinsics)
    assert found and found.calibrated
    assert found.camera.intrinsics == truth.camera.intrinsics
    # Heights follow: a point 60 mm above a cell lands near where the true camera puts it.
    lifted = found.cell_centers_px(0.06 * found.spec.cell_pitch_m / truth.spec.cell_pitch_m)
    expected = truth.cell_centers_px(0.06)
    assert np.median(np.hypot(*(np.sort(lifted, 0) - np.sort(expected, 0)).T)) < 8


def test_camera_is_above_the_board():
    found = find_board(draw_board(make_view(40.0, 300.0)))
    assert found
    assert found.camera.pose.camera_center[2] > 0
    cells = np.column_stack([found.spec.cell_centers(), np.zeros(16)])
    assert np.all(found.camera.depth(cells) > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_board_is_a_falsy_result_with_a_reason(seed):
    res = find_board(draw_empty_table(seed))
    assert not res
    assert isinstance(res, BoardNotFound)
    assert res.reason


def test_blank_image_is_not_a_board():
    assert not find_board(np.zeros((720, 1280, 3), np.uint8))


@pytest.mark.parametrize(
    "bad",
    [np.zeros((720, 1280), np.uint8), np.zeros((720, 1280, 3), np.float32),
     np.zeros((10, 10, 3), np.uint8), [[1, 2, 3]]],
)
def test_bad_frames_raise_value_error(bad):
    with pytest.raises(ValueError):
        find_board(bad)


def test_calibration_for_another_size_is_refused():
    truth = make_view(45.0, 60.0)
    other = make_view(45.0, 60.0, size_wh=(640, 480)).camera.intrinsics
    with pytest.raises(ValueError, match="calibration"):
        find_board(draw_board(truth), intrinsics=other)


def test_faint_engraved_rings_in_a_clean_image_are_found():
    # Rings 7 grey levels above the board, as engraved on dark wood, in an image with little
    # noise (a compressed video's flat areas): under the fixed 2-level edge step of a noisy
    # image, no cell shows its outline.
    truth = make_view(70.0, 30.0)
    img = draw_board(truth, board_bgr=(40, 52, 70), ring_bgr=(47, 59, 77), noise=0.5)
    found = find_board(img)
    assert found, found
    err = _rel_errors(found, truth)
    assert np.median(err) < 0.02 and err.max() < 0.05
    fixed = replace(LocateConfig(), min_edge_step_floor=LocateConfig().min_edge_step)
    assert not find_board(img, config=fixed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_clean_empty_table_is_not_a_board(seed):
    # The noise-free version of the empty tables: the edge step falls to its floor, and
    # still no grid is taken for a board.
    clean = cv2.GaussianBlur(draw_empty_table(seed), (0, 0), 2.0)
    assert not find_board(clean)


def test_edge_threshold_follows_the_noise():
    cfg = LocateConfig()
    rng = np.random.default_rng(0)
    flat = np.full((360, 640), 90.0, np.float32)
    steps = [edge_threshold(cv2.GaussianBlur(flat + rng.normal(0, s, flat.shape).astype(
        np.float32), (0, 0), cfg.smooth_sigma_px), cfg) for s in (0.0, 1.0, 2.0, 3.0, 8.0)]
    assert steps[0] == cfg.min_edge_step_floor
    assert steps[-1] == cfg.min_edge_step
    assert all(a <= b for a, b in pairwise(steps))
    assert cfg.min_edge_step_floor < steps[3] < cfg.min_edge_step
