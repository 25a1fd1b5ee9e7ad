"""The marking's choice (session 36, helper-36g; all default off): a line that must stand out
from both of its sides (``line_both_sides``), a line marking preferred over an edge marking
with enough inliers of its own (``marking_line_share``), and the marking chosen by the cells
that agree on it (``marking_cell_share``)."""

from __future__ import annotations

import math

import numpy as np

from vision.locate import LocateConfig
from vision.locate.fit import EdgeConfig, edge_search
from vision.locate.lattice import apply_h


def test_the_knobs_are_off_by_default():
    config = LocateConfig()
    assert config.marking_line_share == 0.0
    assert config.line_both_sides is False
    assert config.marking_cell_share == 0.0


def _profile_image(row: np.ndarray) -> np.ndarray:
    """A 40-row float32 image whose every row is ``row``."""
    return np.tile(np.asarray(row, np.float32), (40, 1))


def _search(image: np.ndarray, both: bool, polarity: int) -> float:
    """The line search's offset from x = 30 along +x (NaN where no line is found)."""
    config = EdgeConfig(mode="line", polarity=polarity, min_line=3.0, line_halfwidth_px=1.5,
                        max_tangent_ratio=0.0, line_both_sides=both)
    off, _ = edge_search(image, np.array([[30.0, 20.0]]), np.array([[1.0, 0.0]]), 8.0, config)
    return float(off[0])


def test_a_step_passes_for_a_line_only_when_one_side_is_enough():
    # A step of 20 grey levels at x = 32: against the mean of its sides it is a bright
    # line of half its height just past the step (and a dark one just before); against
    # both sides it is no line of either polarity.
    step = _profile_image(np.where(np.arange(64) < 32, 100.0, 120.0))
    assert math.isfinite(_search(step, False, 1))
    assert math.isfinite(_search(step, False, -1))
    assert math.isnan(_search(step, True, 1))
    assert math.isnan(_search(step, True, -1))


def test_a_thin_line_is_a_line_either_way():
    # A dark line two pixels wide at x = 33-34 on a flat background: found within a pixel
    # of its centre by both detectors, and not as a bright line by the strict one.
    x = np.arange(64)
    line = _profile_image(np.where((x >= 33) & (x <= 34), 70.0, 120.0))
    for both in (False, True):
        off = _search(line, both, -1)
        assert abs(off - 3.5) < 1.0
    assert math.isnan(_search(line, True, 1))


def _markings(line_cells: int, line_per_cell: int, edge_cells: int):
    """``_best_marking``'s inputs for a grid whose outlines (24 samples a cell) are found
    exactly where the grid puts them: the bright line on ``line_per_cell`` samples of each
    of the first ``line_cells`` cells, the brighter-outwards edge on every sample of the
    last ``edge_cells`` cells, the other two markings nowhere."""
    from vision.locate.fit import GRID_NODES, image_normals, ring_model_points

    H = np.array([[50.0, 4.0, 80.0], [-3.0, 48.0, 70.0], [0.0, 0.0, 1.0]])
    pts, rad = ring_model_points(0.45, 24, "circle")
    cell = np.repeat(np.arange(len(GRID_NODES)), 24)
    px = apply_h(H, pts)
    nrm = image_normals(H, pts, rad, pts_px=px)
    within = np.tile(np.arange(24), len(GRID_NODES))
    none = np.full(len(pts), np.nan)
    line = np.where((cell < line_cells) & (within < line_per_cell), 0.0, np.nan)
    edge = np.where(cell >= len(GRID_NODES) - edge_cells, 0.0, np.nan)
    modes = [("line", 1), ("line", -1), ("edge", 1), ("edge", -1)]
    return pts, px, nrm, [line, none, edge, none], modes, cell


def _chosen(config: EdgeConfig, inputs) -> tuple[str, int]:
    from vision.locate.fit import _best_marking

    pts, px, nrm, found, modes, cell = inputs
    out = _best_marking(pts, px, nrm, found, modes, 2.0, config, cell)
    assert out is not None
    return out[4].mode, out[4].polarity


def test_the_marking_with_more_inliers_wins_unless_a_knob_says_otherwise():
    # The line's arcs on 10 samples of all 16 cells (160), the edge on all of 8 (192).
    inputs = _markings(16, 10, 8)
    assert _chosen(EdgeConfig(), inputs) == ("edge", 1)
    # The line has 0.83 of the edge's inliers: taken from a share of 0.5, not of 0.9.
    assert _chosen(EdgeConfig(line_share=0.5), inputs) == ("line", 1)
    assert _chosen(EdgeConfig(line_share=0.9), inputs) == ("edge", 1)
    # By cells: 16 cells hold 10 of 24 line samples (0.42), 8 all their edge samples.
    assert _chosen(EdgeConfig(cell_share=0.34), inputs) == ("line", 1)
    assert _chosen(EdgeConfig(cell_share=0.5), inputs) == ("edge", 1)


def test_the_share_and_the_cells_differ_on_a_line_seen_on_few_cells():
    # The line found on all samples of 7 cells (168) against the edge on 8 (192): more
    # than half the edge's inliers, so the share takes it, and by cells the edge wins.
    inputs = _markings(7, 24, 8)
    assert _chosen(EdgeConfig(line_share=0.5), inputs) == ("line", 1)
    assert _chosen(EdgeConfig(cell_share=0.34), inputs) == ("edge", 1)
