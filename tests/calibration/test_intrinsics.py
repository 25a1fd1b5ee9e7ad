"""Chessboard calibration on synthetic views of a known camera."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.intrinsics import ChessboardCalibrator, ChessboardConfig
from vision.geometry.camera import Camera, Intrinsics, Pose

SIZE = (960, 540)


def _chessboard_view(cam: Camera, cfg: ChessboardConfig) -> np.ndarray:
    """Draw the printed chessboard (squares of ``square_m``) as seen by ``cam``."""
    w, h = cam.intrinsics.size_wh
    img = np.full((h, w, 3), 200, np.uint8)
    s = cfg.square_m
    # Inner corners at (i s, j s); squares span one more in each direction, plus a margin.
    for i in range(-1, cfg.pattern_cols):
        for j in range(-1, cfg.pattern_rows):
            sq = np.array([[i, j], [i + 1, j], [i + 1, j + 1], [i, j + 1]], np.float64) * s
            px = cam.project(np.column_stack([sq, np.zeros(4)]))
            col = (20, 20, 20) if (i + j) % 2 == 0 else (235, 235, 235)
            cv2.fillPoly(img, [np.round(px * 16).astype(np.int32)], col, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img, (0, 0), 0.7)


def _views(n: int, cfg: ChessboardConfig, intr: Intrinsics) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    centre = np.array([(cfg.pattern_cols - 1) * cfg.square_m / 2,
                       (cfg.pattern_rows - 1) * cfg.square_m / 2, 0.0])
    out = []
    for _ in range(n):
        e = math.radians(rng.uniform(50, 85))
        a = math.radians(rng.uniform(0, 360))
        d = rng.uniform(0.35, 0.5)
        eye = centre + d * np.array([math.cos(e) * math.sin(a), -math.cos(e) * math.cos(a),
                                     math.sin(e)])
        target = centre + np.array([rng.uniform(-0.06, 0.06), rng.uniform(-0.04, 0.04), 0.0])
        pose = Pose.look_at(eye, target, up=np.array([0.0, 1.0, 0.0]))
        out.append(_chessboard_view(Camera(intr, pose), cfg))
    return out


def test_recovers_the_focal_length():
    cfg = ChessboardConfig(7, 5, 0.03, min_views=6)
    intr = Intrinsics.from_fov(SIZE, 60.0)
    cal = ChessboardCalibrator(cfg)
    added = sum(cal.add(v) for v in _views(10, cfg, intr))
    assert added >= 6
    assert 0 < cal.coverage() <= 1
    res = cal.solve()
    assert res.rms_px < 1.0
    assert abs(res.intrinsics.fx / intr.fx - 1) < 0.02
    assert abs(res.intrinsics.cx - intr.cx) < 15


def test_too_few_views_is_a_clear_error():
    cal = ChessboardCalibrator(ChessboardConfig(7, 5, 0.03, min_views=6))
    with pytest.raises(ValueError, match="at least 6"):
        cal.solve()


def test_no_chessboard_is_not_added():
    cal = ChessboardCalibrator()
    assert not cal.add(np.full((480, 640, 3), 128, np.uint8))
    assert cal.views == 0


def test_views_of_different_sizes_are_refused():
    cal = ChessboardCalibrator()
    cal.add(np.zeros((480, 640, 3), np.uint8))
    with pytest.raises(ValueError, match="one size"):
        cal.add(np.zeros((240, 320, 3), np.uint8))


@pytest.mark.parametrize("kwargs", [{"pattern_cols": 2}, {"square_m": 0.0}, {"min_views": 1}])
def test_config_validation(kwargs):
    with pytest.raises(ValueError):
        ChessboardConfig(**kwargs)


def test_calibrate_camera_command_writes_a_file_every_command_reads(tmp_path, capsys):
    import json

    from calibration.io import load_calibration
    from vision.cli.main import main

    cfg = ChessboardConfig(7, 5, 0.03, min_views=6)
    intr = Intrinsics.from_fov(SIZE, 60.0)
    paths = []
    for k, view in enumerate(_views(12, cfg, intr)):
        p = tmp_path / f"v{k}.png"
        cv2.imwrite(str(p), view)
        paths.append(str(p))
    out = tmp_path / "cam.json"
    status = main(["calibrate", "camera", *paths, "--pattern", "7x5", "--square-mm", "30",
                   "--out", str(out)])
    assert status == 0
    raw = json.loads(out.read_text())
    assert raw["version"] == 1 and raw["image_size"] == list(SIZE)
    assert len(raw["camera_matrix"]) == 3 and len(raw["dist_coeffs"]) == 5
    back = load_calibration(out).intrinsics
    assert back is not None and abs(back.fx / intr.fx - 1) < 0.02
    assert "coverage" in capsys.readouterr().err
