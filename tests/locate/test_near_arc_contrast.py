"""The ring contrast read on the rings' near sides (``verify.near_arc_contrast``), which the
near-side search judges with when ``LocateConfig.near_outline_arc_contrast`` is on."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.locate.synth import draw_board, make_view
from vision.locate import LocateConfig
from vision.locate.finder import _camera_foot, _work_edges
from vision.locate.fit import GRID_NODES
from vision.locate.lattice import apply_h
from vision.locate.verify import grid_contrast, near_arc_contrast

CONFIG = LocateConfig()


def _crowded_low_board() -> tuple[np.ndarray, np.ndarray, float, object]:
    """A full board seen from 28 degrees (every cell holds a cylinder hiding the far side of
    its ring and the rings behind it): the smoothed working image, the true grid (work
    pixels), the ring radius over the pitch and the edge settings."""
    view = make_view(elevation_deg=28.0, azimuth_deg=20.0, distance_m=0.55, hfov_deg=65.0)
    img = draw_board(view, pieces=tuple(range(16)))
    scale = CONFIG.work_width_px / img.shape[1]
    work = cv2.resize(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_AREA)
    work_f, edge = _work_edges(work, CONFIG)
    spec = view.spec
    centres = spec.cell_centers()
    px = view.project(np.column_stack([centres, np.zeros(len(centres))])) * scale
    H, _ = cv2.findHomography(GRID_NODES, px, 0)
    assert np.abs(apply_h(H, GRID_NODES) - px).max() < 0.01  # the cells are a lattice
    return work_f, H, spec.cell_diameter_m / 2.0 / spec.cell_pitch_m, edge


@pytest.mark.parametrize("mode", ["edge", "line"])
def test_near_arcs_keep_the_contrast_pieces_take_from_whole_rings(mode):
    work_f, H, radius, edge = _crowded_low_board()
    e = replace(edge, mode=mode, polarity=0)
    size_wh = (work_f.shape[1], work_f.shape[0])

    def near(Hx: np.ndarray) -> float:
        foot, _ = _camera_foot(Hx, 1.0, None, size_wh, CONFIG)
        return near_arc_contrast(work_f, Hx, radius, foot, CONFIG.near_arc_min_cos, e)

    on, off = grid_contrast(work_f, H, radius, e)
    whole = float(on.mean() - off.mean())
    right = near(H)
    # The pieces hide the far arcs: the right grid's whole-outline contrast is low, its
    # near arcs' contrast clearly higher.
    assert right > whole + 0.08
    # Grids off the cells (half a row, and 0.3 pitch along both axes) find no near arcs.
    for shift in ((0.0, 0.5), (0.3, 0.3)):
        moved = H @ np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
        assert near(moved) < 0.05
        assert near(moved) < right - 0.2
