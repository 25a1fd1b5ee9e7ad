"""The near-face colour samples the piece's own top hides (``ReaderConfig.side_below_top``,
session 34): seen steeply, the points where the reader samples a piece's near side lie behind
its top, and the colour found there is the top's."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import F_FRAC, make_view, paint
from vision.read.appearance import body_colour, body_colour_points, near_face_seen
from vision.read.config import ReaderConfig
from vision.read.geometry import cell_frames
from vision.read.reader import measure_cells, observe_cells
from vision.rules.board import Cell
from vision.rules.pieces import Piece


def _exit_height(view, frames, heights_m):  # type: ignore[no-untyped-def]
    """Height at which each sample's line of sight to the camera leaves a round piece's wall
    (radius half a footprint), found by marching along it in steps of 0.05 mm."""
    from vision.read.appearance import _BODY_ANGLES, _BODY_FRACS, _BODY_RADIUS_F
    from vision.read.geometry import circle_points

    f = frames.footprint_m
    pts = circle_points(frames, _BODY_RADIUS_F * f, heights_m[:, None] * _BODY_FRACS[None, :],
                        np.pi + _BODY_ANGLES).reshape(16, -1, 3)
    eye = view.camera.pose.camera_center
    out = np.full(pts.shape[:2], np.nan)
    for i in range(16):
        for k, q in enumerate(pts[i]):
            step = (eye - q) / np.linalg.norm(eye - q) * 5e-5
            x = q.copy()
            while np.linalg.norm(x[:2] - frames.centers_m[i, :2]) < 0.5 * f:
                x += step
            out[i, k] = x[2]
    return out


@pytest.mark.parametrize("elevation", [30.0, 60.0, 75.0, 85.0])
def test_seen_samples_are_those_whose_line_of_sight_leaves_through_the_wall(
        elevation: float) -> None:
    view = make_view(elevation_deg=elevation)
    frames = cell_frames(view, F_FRAC)
    heights = np.full(16, 1.4 * frames.footprint_m)
    seen = near_face_seen(view, frames, heights)
    exit_z = _exit_height(view, frames, heights)
    margin = exit_z - heights[:, None]
    clear = np.abs(margin) > 1e-4  # away from the top's edge (0.1 mm, two steps)
    assert clear.mean() > 0.95
    np.testing.assert_array_equal(seen[clear], (margin < 0)[clear])


def test_from_low_every_sample_is_on_the_side_from_above_none() -> None:
    low_view = make_view(elevation_deg=30.0)
    high_view = make_view(elevation_deg=89.5, distance_m=0.9)
    low, high = cell_frames(low_view, F_FRAC), cell_frames(high_view, F_FRAC)
    h = 1.1 * low.footprint_m
    assert near_face_seen(low_view, low, np.full(16, h)).all()
    # Straight above the board's centre every cell is seen at 74 degrees or more: a short
    # piece's side shows at most its lowest samples, and the cells nearest the foot none.
    top = near_face_seen(high_view, high, np.full(16, h))
    assert top.mean() < 0.25
    assert not top[int(np.argmax(high.top_sine))].any()
    # A lower sample is seen whenever a higher one at the same angle is.
    grid = top.reshape(16, 5, 5)
    assert (grid[:, :-1, :] >= grid[:, 1:, :]).all()


def _scene(elevation: float) -> tuple[object, np.ndarray]:
    view = make_view(elevation_deg=elevation, distance_m=0.9 if elevation > 80 else 0.55)
    pieces = {Cell(1, 1): Piece(0), Cell(2, 2): Piece(15),
              Cell(1, 2): Piece(5), Cell(2, 1): Piece(10)}
    return view, paint(view, pieces)


def test_body_colour_without_a_seen_side_is_nan() -> None:
    view, img = _scene(45.0)
    config = ReaderConfig()
    feats = measure_cells(img, view, config)
    frames, heights = feats.frames, feats.height_m
    none_seen = np.zeros((16, 25), bool)
    all_seen = np.ones((16, 25), bool)
    assert np.isnan(body_colour(view, frames, feats.patch, heights, seen=none_seen)).all()
    np.testing.assert_array_equal(
        body_colour(view, frames, feats.patch, heights, seen=all_seen),
        body_colour(view, frames, feats.patch, heights))
    assert body_colour_points(view, frames, heights).shape == (16, 25, 2)


def test_from_above_the_reader_takes_no_side_colour_off_the_top() -> None:
    view, img = _scene(89.5)
    off = measure_cells(img, view, ReaderConfig())
    on = measure_cells(img, view, ReaderConfig(side_below_top=True))
    assert on.side_below_top and not off.side_below_top
    centre = [Cell(1, 1).index, Cell(2, 2).index, Cell(1, 2).index, Cell(2, 1).index]
    # Off: the "side" samples of the pieces under the camera are the top's colour.
    assert np.isfinite(off.side_lab[centre]).all()
    np.testing.assert_allclose(off.side_lab[centre, 0], off.top.top_lab[centre, 0], atol=6.0)
    # On: those pieces have no side colour, and light/dark is still read from the tops.
    assert np.isnan(on.side_lab[centre]).all()
    obs = observe_cells(on, view)
    read = {r.cell: r.piece for r in obs.cells if r.piece is not None}
    truth = {Cell(1, 1): 0, Cell(2, 2): 15, Cell(1, 2): 5, Cell(2, 1): 10}
    assert len(read) >= 3 and set(read) <= set(truth)
    for cell, piece in read.items():
        assert piece.value("color") == Piece(truth[cell]).value("color")
    # Everything but the near-face colours is measured as before.
    np.testing.assert_array_equal(on.height_m, off.height_m)
    np.testing.assert_array_equal(on.top.top_lab, off.top.top_lab)


def test_from_a_low_view_nothing_changes() -> None:
    view, img = _scene(35.0)
    off = measure_cells(img, view, ReaderConfig())
    on = measure_cells(img, view, ReaderConfig(side_below_top=True))
    occupied = off.occupied_probability >= 0.5
    np.testing.assert_array_equal(on.side_lab[occupied], off.side_lab[occupied])
