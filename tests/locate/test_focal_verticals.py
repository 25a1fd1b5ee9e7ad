"""The verticals' focal-length fit of ``benchmarks/focal_verticals.py`` (session 31): with the
board plane's image kept, the focal length that makes feet, tops and the vertical vanishing
point collinear is the camera's; a piece's top centre is measured on its top plane."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import cv2
import numpy as np

from tests.locate.synth import make_view
from vision.geometry.board_view import BoardView

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "focal_verticals.py"
_spec = importlib.util.spec_from_file_location("focal_verticals", _PATH)
assert _spec is not None and _spec.loader is not None
fv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fv)


def _pieces(view: BoardView, offsets_m: float, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Undistorted pixels of the feet, the cell centres and the tops of pieces on eight
    cells (tall and short), each ``offsets_m`` (standard deviation) off its cell centre."""
    rng = np.random.default_rng(seed)
    centres = view.spec.cell_centers()[[0, 2, 5, 7, 8, 10, 13, 15]]
    xy = centres + rng.normal(0.0, offsets_m, centres.shape)
    h = np.where(np.arange(len(xy)) % 2 == 0, 0.06, 0.03)
    feet = view.project(np.column_stack([xy, np.zeros(len(xy))]))
    cells = view.project(np.column_stack([centres, np.zeros(len(xy))]))
    tops = view.project(np.column_stack([xy, h]))
    return feet, cells, tops


def _fit(view: BoardView, f0: float, feet: np.ndarray, tops: np.ndarray) -> float:
    intr = view.camera.intrinsics
    return fv.fit_focal(view.camera.board_homography(), f0, (intr.cx, intr.cy),
                        0.45 * view.spec.side_m, feet, tops)


def test_the_verticals_restore_a_perturbed_focal_length() -> None:
    view = make_view(elevation_deg=75.0, azimuth_deg=20.0, hfov_deg=55.0)
    f = view.camera.intrinsics.fx
    feet, _, tops = _pieces(view, 0.002)
    for start in (0.9, 1.12):
        assert abs(math.log(_fit(view, start * f, feet, tops) / f)) < 1e-3


def test_the_vanishing_point_moves_with_the_focal_length() -> None:
    # With the board plane's image kept, v's offset from the principal point grows as a power
    # of f between 1 (oblique views) and 2 (straight above).
    powers = []
    for elevation in (60.0, 85.0):
        view = make_view(elevation_deg=elevation, azimuth_deg=-35.0, hfov_deg=60.0)
        intr = view.camera.intrinsics
        H, c = view.camera.board_homography(), (intr.cx, intr.cy)
        half = 0.45 * view.spec.side_m
        v1, v2 = (fv.vanishing_point(H, k * intr.fx, c, half) for k in (1.0, 1.05))
        d1 = np.linalg.norm(v1[:2] / v1[2] - c)
        d2 = np.linalg.norm(v2[:2] / v2[2] - c)
        powers.append(math.log(d2 / d1) / math.log(1.05))
    assert 1.0 < powers[0] < 1.3
    assert 1.8 < powers[1] < 2.05


def test_cell_centres_for_feet_cost_the_fit_its_precision() -> None:
    # Pieces put down 2 mm off centre (the renderer's hand): their cell centres are a few
    # pixels from their feet, while 5% of focal length moves a top sideways by under a pixel.
    view = make_view(elevation_deg=80.0, azimuth_deg=10.0, hfov_deg=55.0)
    f = view.camera.intrinsics.fx
    feet, cells, tops = _pieces(view, 0.002, seed=3)
    side = fv.lateral(view.camera.board_homography(), 1.05 * f,
                      (view.camera.intrinsics.cx, view.camera.intrinsics.cy),
                      0.45 * view.spec.side_m, feet, tops)
    assert np.median(np.abs(side)) < 1.0
    assert np.median(np.linalg.norm(feet - cells, axis=1)) > 2.0


def test_measure_top_finds_a_drawn_top_off_its_cell_centre() -> None:
    view = make_view(elevation_deg=65.0, azimuth_deg=40.0, hfov_deg=55.0, distance_m=0.55)
    img = np.full((720, 1280, 3), (60, 90, 120), np.uint8)
    centre = view.spec.cell_centers()[5] + np.array([0.003, -0.002])
    h, F = 0.05, 0.025
    a = np.linspace(0.0, 2.0 * np.pi, 90, endpoint=False)
    rim = np.column_stack([centre[0] + F / 2 * np.cos(a), centre[1] + F / 2 * np.sin(a),
                           np.full(len(a), h)])
    cv2.fillPoly(img, [np.round(view.project(rim) * 16).astype(np.int32)], (200, 215, 225),
                 lineType=cv2.LINE_AA, shift=4)
    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    found = fv.measure_top(view, lab, view.spec.cell_centers()[5], h, F)
    assert found is not None
    assert np.linalg.norm(found - centre) < 3e-4
