"""Board lock, the analyze JSON board part, and the overlay."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.io import BoardLock, Calibration
from tests.locate.synth import draw_board, make_view
from vision.evaluation.board import cell_errors
from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardNotFound
from vision.locate import view_from_corners
from vision.locate.report import board_json, cells_json, image_result, locate
from vision.overlay.board import draw_board as overlay


def test_view_from_true_corners_reproduces_the_cells():
    truth = make_view(40.0, 20.0, spec=BoardSpec.gigamic(0.27 * 0.0486 / (0.18 * 0.27)))
    view = view_from_corners(truth.corners_px(), (1280, 720), "diagonal")
    err = cell_errors(view.cell_centers_px(), truth.cell_centers_px())
    assert err.max() < 1.0
    assert view.camera.pose.camera_center[2] > 0


def test_view_from_corners_in_either_direction():
    truth = make_view(40.0, 20.0)
    a = view_from_corners(truth.corners_px(), (1280, 720), "diagonal")
    b = view_from_corners(truth.corners_px()[::-1], (1280, 720), "diagonal")
    assert np.allclose(np.sort(a.cell_centers_px(), axis=0), np.sort(b.cell_centers_px(), axis=0),
                       atol=1e-6)
    assert b.camera.pose.camera_center[2] > 0


def test_degenerate_corners_are_refused():
    with pytest.raises(ValueError):
        view_from_corners(np.zeros((3, 2)), (640, 480), "axis")


def test_json_of_a_found_board_follows_the_contract():
    truth = make_view(50.0, 30.0)
    img = draw_board(truth)
    res = image_result("x.jpg", img, locate(img))
    assert res["image"] == "x.jpg" and (res["width"], res["height"]) == (1280, 720)
    assert res["board"]["found"] is True
    assert res["board"]["layout"] == "diagonal"
    assert np.array(res["board"]["corners_px"]).shape == (4, 2)
    assert len(res["cells"]) == 16
    names = {c["name"] for c in res["cells"]}
    assert names == {f"{c}{r}" for c in "abcd" for r in "1234"}
    assert all(len(c["center_px"]) == 2 for c in res["cells"])
    assert res["elapsed_ms"] >= 0


def test_json_of_no_board():
    assert board_json(BoardNotFound("dark")) == {"found": False, "reason": "dark"}
    assert cells_json(BoardNotFound("dark")) == []


def test_a_board_lock_bypasses_the_search():
    truth = make_view(50.0, 30.0)
    blank = np.zeros((720, 1280, 3), np.uint8)
    res = locate(blank, Calibration(None, BoardLock(truth.corners_px(), "diagonal")))
    assert res.view


def test_overlay_returns_a_new_image():
    truth = make_view(50.0, 30.0)
    img = draw_board(truth)
    before = img.copy()
    out = overlay(img, truth)
    assert out is not img and out.shape == img.shape
    assert np.array_equal(img, before)
    assert np.any(out != img)
    out2 = overlay(img, BoardNotFound("no board"))
    assert np.any(out2 != img)


def test_overlay_rejects_bad_images():
    with pytest.raises(ValueError):
        overlay(np.zeros((10, 10), np.uint8), BoardNotFound("x"))
