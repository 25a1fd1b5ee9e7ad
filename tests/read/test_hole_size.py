"""The bores' sizes near straight above (``vision.learn.hole_size``, session 34) on synthetic
renders: a tall bore measures larger than a short one by the perspective of its height, and
the board's bores tell a cell's height."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.read.synth import F_FRAC, make_view, paint
from vision.learn.dataset import apparent_top_log_size
from vision.learn.hole_size import (
    HoleSizeConfig,
    hole_height_evidence,
    hole_log_sizes,
    hole_size_evidence,
)
from vision.rules.board import Cell
from vision.rules.pieces import Piece

SHORT_F, TALL_F = 1.1, 2.1


def _board(elevation_deg: float = 86.0):
    view = make_view(elevation_deg=elevation_deg, azimuth_deg=15.0, distance_m=0.55)
    cells = [Cell(0, 0), Cell(0, 2), Cell(1, 1), Cell(2, 0), Cell(2, 2), Cell(3, 1)]
    tall = [True, False, True, False, True, False]
    pieces = {c: Piece.from_attributes(dict(color="light", shape="round",
                                   height="tall" if t else "short", top="hollow"))
              for c, t in zip(cells, tall, strict=True)}
    return view, cells, tall, paint(view, pieces, short_f=SHORT_F, tall_f=TALL_F)


def _expected(view, tall: bool) -> float:
    f = F_FRAC * view.spec.cell_diameter_m
    cam_z = float(view.camera.pose.camera_center[2])
    return apparent_top_log_size(0.6 * f, (TALL_F if tall else SHORT_F) * f, cam_z,
                                 view.spec.cell_diameter_m)


def _readings(view, cells, tall):
    """Each cell's index, and sure readings (odds, P(occupied)) of the painted pieces: light
    round hollow, tall or short as painted; the other cells empty."""
    index = {c: i for i, c in enumerate(view.cells)}
    odds: list[dict[str, float | None]] = [
        dict.fromkeys(("color", "shape", "height", "top")) for _ in range(16)]
    occ = [0.0] * 16
    for c, t in zip(cells, tall, strict=True):
        odds[index[c]] = {"color": 0.1, "shape": 0.1, "height": 0.9 if t else 0.1, "top": 0.9}
        occ[index[c]] = 0.99
    return index, odds, occ


def test_bore_sizes_follow_the_height() -> None:
    view, cells, tall, img = _board()
    sizes = hole_log_sizes(img, view, cells)
    assert np.isfinite(sizes).all()
    # The painter's anti-aliased bore polygon reads about half a pixel wide (2-3 %): the
    # absolute size is loose, the tall/short difference (which the board compares) is not.
    for s, t in zip(sizes, tall, strict=True):
        assert s == pytest.approx(_expected(view, t), abs=0.04)
    gap = _expected(view, True) - _expected(view, False)
    assert gap > 0.05
    measured = np.mean(sizes[np.array(tall)]) - np.mean(sizes[~np.array(tall)])
    assert measured == pytest.approx(gap, abs=0.015)


def test_board_evidence_tells_an_unsure_cell() -> None:
    view, cells, tall, img = _board()
    index, odds, occ = _readings(view, cells, tall)
    visible = [1.0] * 16
    # The first tall and the first short piece are read as a coin toss.
    odds[index[cells[0]]]["height"] = 0.5
    odds[index[cells[1]]]["height"] = 0.5
    ev = hole_height_evidence(img, view, odds, occ, visible, HoleSizeConfig(weight=1.0))
    assert ev[index[cells[0]]] > 1.0
    assert ev[index[cells[1]]] < -1.0
    # Cells without a piece get nothing.
    assert ev[index[Cell(3, 3)]] == 0.0


def test_no_evidence_below_the_elevation_gate() -> None:
    view, cells, tall, img = _board(elevation_deg=60.0)
    _, odds, occ = _readings(view, cells, tall)
    ev = hole_height_evidence(img, view, odds, occ, [1.0] * 16, HoleSizeConfig(weight=1.0))
    assert not ev.any()


def test_config_is_checked() -> None:
    with pytest.raises(ValueError):
        HoleSizeConfig(weight=-1.0)
    with pytest.raises(ValueError):
        HoleSizeConfig(radius_range_rings=(0.3, 0.2))
    with pytest.raises(ValueError):
        HoleSizeConfig(square_ratio_steps=0)
    assert math.isclose(HoleSizeConfig().weight, 1.0)


def test_fused_odds_take_the_evidence_at_its_weight() -> None:
    from vision.learn.fuse import with_hole_sizes

    view, cells, tall, img = _board()
    index, odds, occ = _readings(view, cells, tall)
    odds[index[cells[0]]]["height"] = 0.5
    out = with_hole_sizes(odds, occ, [1.0] * 16, img, view, HoleSizeConfig(weight=1.0))
    assert out[index[cells[0]]]["height"] > 0.75
    assert out[index[Cell(3, 3)]] == odds[index[Cell(3, 3)]]


def _lone_square_evidence(config: HoleSizeConfig) -> list[float]:
    """Evidence for a lone square bore (P(tall) 0.5) beside two tall and two short round ones
    read surely, over square/round ratios 0.86-0.93 of the set (inside the model's 0.80-1.0
    by more than the 4 % a tall top's perspective adds), the square tall and short."""
    cam_z, ring, short_m, tall_m = 0.6, 0.045, 0.035, 0.06

    def size(ratio: float, tall: bool) -> float:
        return math.log(0.61 * 0.75 * ratio * cam_z / (cam_z - (tall_m if tall else short_m)))

    out = []
    for ratio in np.linspace(0.86, 0.93, 15):
        for tall in (True, False):
            sizes = np.array([size(1.0, True), size(1.0, False), size(1.0, False),
                              size(1.0, True), size(ratio, tall)])
            ev = hole_size_evidence(sizes, np.array([False] * 4 + [True]),
                                    np.array([0.9, 0.1, 0.1, 0.9, 0.5]), camera_height_m=cam_z,
                                    ring_diameter_m=ring, config=config)
            assert ev[0] > 2.0 and ev[1] < -2.0  # the round bores still tell each other
            out.append(float(ev[-1]))
    return out


def test_a_lone_square_bore_says_nothing_of_its_height() -> None:
    # The square/round ratio is free: one square bore has nothing to be compared with. A
    # ratio grid coarser than the bores' noise (the packaged 5 steps, kept: see
    # HoleSizeConfig.square_ratio_steps) makes whichever height lands nearer a grid point
    # likelier (session 34, game 3034950: -0.37 nats on a tall square read short); 9 steps
    # do not.
    assert max(abs(e) for e in _lone_square_evidence(HoleSizeConfig(square_ratio_steps=9))) < 0.1
    assert max(abs(e) for e in _lone_square_evidence(HoleSizeConfig())) > 0.2


def test_the_lightness_is_converted_on_the_part_the_planes_read() -> None:
    """The bores' planes are resampled from the Lab lightness of only the part of the frame
    their points read (``_lightness``): the same values, to the last bit, as from the whole
    frame, for points inside the frame, on its edges and past them (OpenCV's replicated
    border reads the frame's edge either way)."""
    import cv2

    from vision.learn.hole_size import _lightness, _rectified

    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    whole = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)[:, :, 0].astype(np.float32) / 2.55
    for lo, hi in (((40.3, 30.7), (90.2, 70.9)), ((-7.5, -3.2), (20.1, 15.0)),
                   ((140.0, 100.0), (171.3, 130.6)), ((165.0, 50.0), (180.0, 60.0))):
        xs = rng.uniform(lo[0], hi[0], (2, 21, 21))
        ys = rng.uniform(lo[1], hi[1], (2, 21, 21))
        maps = [np.stack([x, y], axis=-1).astype(np.float32) for x, y in zip(xs, ys)]
        light, corner = _lightness(frame, maps)
        assert light.size < whole.size or lo[0] < 0
        for m in maps:
            ref = cv2.remap(whole, np.ascontiguousarray(m[:, :, 0]),
                            np.ascontiguousarray(m[:, :, 1]), cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
            np.testing.assert_array_equal(_rectified(light, corner, m), ref)


def test_the_plane_grid_is_the_meshgrid_of_its_axes_projected() -> None:
    """``_plane_points`` writes the grid's points in place: the pixels of the meshgrid of
    its two axes at the plane's height, exactly."""
    from vision.learn.hole_size import PLANE_HEIGHT_M, _plane_points

    view = make_view(elevation_deg=80.0, azimuth_deg=25.0, distance_m=0.55)
    centre = np.array([0.011, -0.027])
    points, origin = _plane_points(view, centre, 0.004, 0.00015)
    n = round(2 * 0.004 / 0.00015) + 1
    gx = centre[0] - 0.004 + 0.00015 * np.arange(n)
    gy = centre[1] - 0.004 + 0.00015 * np.arange(n)
    xx, yy = np.meshgrid(gx, gy)
    want = view.project(np.column_stack([xx.ravel(), yy.ravel(),
                                         np.full(xx.size, PLANE_HEIGHT_M)]))
    assert points.shape == (n, n, 2) and points.dtype == np.float32
    np.testing.assert_array_equal(points.reshape(-1, 2), want.astype(np.float32))
    np.testing.assert_array_equal(origin, [gx[0], gy[0]])
