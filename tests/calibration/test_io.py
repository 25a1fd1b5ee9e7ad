"""Calibration JSON: round trip and clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.io import (
    BoardLock,
    Calibration,
    CalibrationError,
    load_calibration,
    save_calibration,
)
from vision.geometry.camera import Intrinsics


def _intr() -> Intrinsics:
    return Intrinsics(900.0, 905.0, 640.5, 359.0, (1280, 720), (0.1, -0.05, 0.001, 0.0, 0.01))


def test_round_trip_intrinsics_and_lock(tmp_path):
    lock = BoardLock(np.array([[10.0, 20.0], [300.0, 25.0], [310.0, 280.0], [5.0, 270.0]]), "axis")
    path = save_calibration(tmp_path / "c.json", Calibration(_intr(), lock, {"rms_px": 0.3}))
    raw = json.loads(path.read_text())
    assert raw["version"] == 1 and raw["image_size"] == [1280, 720]
    assert raw["camera_matrix"][0] == [900.0, 0.0, 640.5]
    back = load_calibration(path)
    assert back.intrinsics == _intr()
    assert back.board_lock is not None and back.board_lock.layout == "axis"
    np.testing.assert_allclose(back.board_lock.corners_px, lock.corners_px)
    assert back.extra["rms_px"] == 0.3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"camera_matrix": [[1,0,0],[0,1,0],[0,0,1]], "image_size": [2, 2]}', "version"),
        ('{"version": 7, "camera_matrix": [[1,0,0],[0,1,0],[0,0,1]], "image_size": [2,2]}',
         "unsupported version"),
        ('{"version": 1}', "neither"),
        ('{"version": 1, "camera_matrix": [[1,0],[0,1]], "image_size": [2, 2]}', "3x3"),
        ('{"version": 1, "camera_matrix": [[1,0,0],[0,1,0],[0,0,1]]}', "bad camera fields"),
        ('{"version": 1, "board_lock": {"corners_px": [[0, 0]]}}', "bad board_lock"),
        ('{"version": 1, "format": "other", "board_lock": null}', "format"),
    ],
)
def test_malformed_files_name_the_problem(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message) as info:
        load_calibration(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "nope.json")


def test_board_lock_validates():
    with pytest.raises(ValueError):
        BoardLock(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        BoardLock(np.zeros((4, 2)), "hex")
