"""The enlarged search (``finder._zoom_search``) for boards small in the frame and seen
from low down, tried only when the search at the working scale finds nothing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.locate.synth import NEAR_OUTLINE_S38, max_cell_error, render_labelled
from vision.locate import LocateConfig, find_board
from vision.locate.finder import zoom_regions

# A webcam across the table: 25-35 degrees up, the board a quarter to a third of the
# frame's width. Session 27: the finder at the working scale missed 9 of 12 such renders
# (2750000-2750011) and these two among them; the enlarged search finds them.
_LOW_SMALL = {"elevation_deg": (25.0, 35.0), "board_fill": (0.25, 0.35)}


def _render(seed, tmp_path):
    from vision.render import SceneOptions

    return render_labelled(seed, tmp_path, SceneOptions(**_LOW_SMALL))


@pytest.mark.parametrize("seed", [2750001, 2750010])
def test_a_small_board_seen_from_low_down_is_found_enlarged(seed, tmp_path):
    frame, label = _render(seed, tmp_path)
    view = find_board(frame)
    assert view, view
    assert max_cell_error(view, label) < 0.25


def test_the_enlarged_search_keeps_calibrated_intrinsics(tmp_path):
    frame, label = _render(2750010, tmp_path)
    assert label.board_view is not None
    intr = label.board_view.camera.intrinsics
    view = find_board(frame, intrinsics=intr)
    assert view, view
    assert view.calibrated
    got = view.camera.intrinsics
    assert (got.fx, got.fy, got.cx, got.cy, got.size_wh) == (
        intr.fx, intr.fy, intr.cx, intr.cy, intr.size_wh)
    assert max_cell_error(view, label) < 0.25


def test_without_the_fallback_nothing_is_enlarged(tmp_path):
    frame, _ = _render(2750010, tmp_path)
    assert not find_board(frame, config=LocateConfig(zoom_fallback=False, **NEAR_OUTLINE_S38))


def test_zoom_regions_frame_each_cluster_of_peaks():
    config = LocateConfig()
    rng = np.random.default_rng(0)
    board = np.array([[600.0, 400.0]]) + np.mgrid[0:4, 0:4].reshape(2, -1).T * [40.0, 20.0]
    stray = np.array([[100.0, 100.0], [1200.0, 650.0]])
    peaks = np.vstack([board + rng.normal(0.0, 1.0, board.shape), stray])
    boxes = zoom_regions(peaks, (1280, 720), config)
    assert len(boxes) == len(config.zoom_extents)  # one cluster, each extent
    for (x0, y0, x1, y1), extent in zip(boxes, config.zoom_extents, strict=True):
        assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
        assert (x1 - x0) / (y1 - y0) == pytest.approx(1280 / 720, rel=0.02)
        assert x0 <= board[:, 0].min() and board[:, 0].max() <= x1
        assert y0 <= board[:, 1].min() and board[:, 1].max() <= y1
        assert (x1 - x0) == pytest.approx(extent * np.ptp(peaks[:16, 0]), abs=2.0)
    # Too few peaks, or a cluster spread over the frame (nothing to enlarge): no region.
    assert zoom_regions(peaks[:5], (1280, 720), config) == []
    spread = np.mgrid[0:4, 0:4].reshape(2, -1).T * [400.0, 230.0] + 20.0
    assert zoom_regions(spread, (1280, 720), config) == []
    assert zoom_regions(board, (1280, 720), replace(config, zoom_min_peaks=17)) == []


@pytest.mark.parametrize("knobs", [{"zoom_min_peaks": 1}, {"zoom_link": 0.0},
                                   {"zoom_max_regions": 0}, {"zoom_extents": ()},
                                   {"zoom_extents": (2.0, 0.8)}, {"zoom_min_gain": 0.5}])
def test_enlarged_search_knobs_out_of_range_are_refused(knobs):
    with pytest.raises(ValueError, match="enlarged search"):
        LocateConfig(**knobs)
