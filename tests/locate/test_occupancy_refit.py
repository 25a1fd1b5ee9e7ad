"""The final grid refitted on the cells judged empty (``occupancy_refit``, default off)."""

from __future__ import annotations

import numpy as np

from tests.locate.synth import draw_board, make_view
from vision.evaluation.board import cell_errors
from vision.locate import LocateConfig, find_board
from vision.locate.fit import GRID_NODES
from vision.locate.lattice import apply_h

LIGHT_BOARD = {"board_bgr": (150, 190, 215), "ring_bgr": (60, 80, 110)}


def _spy(monkeypatch):
    """Record each call of ``finder.occupied_cells`` (the grid's cells in the frame and
    the answer) and the nodes of each ``fit_rings`` call."""
    from vision.locate import finder

    calls: dict[str, list] = {"occupied": [], "nodes": []}
    real_occ, real_fit = finder.occupied_cells, finder.fit_rings

    def occ(work_f, H_work, foot, config):
        out = real_occ(work_f, H_work, foot, config)
        calls["occupied"].append((H_work.copy(), out))
        return out

    def fit(*args, **kwargs):
        calls["nodes"].append(kwargs.get("nodes"))
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(finder, "occupied_cells", occ)
    monkeypatch.setattr(finder, "fit_rings", fit)
    return calls


def _truth_mask(view, H_work, pieces, scale=0.75):
    """(16,) in ``GRID_NODES`` order: does the node nearest each true cell hold a piece."""
    nodes_px = apply_h(H_work, GRID_NODES) / scale  # 1280 px frames, a 960 px work image
    true = view.cell_centers_px()
    idx = np.hypot(*(nodes_px[:, None, :] - true[None]).transpose(2, 0, 1)).argmin(axis=1)
    return np.isin(idx, pieces)


def test_dark_pieces_on_a_light_board_are_judged_occupied_and_left_out(monkeypatch):
    # Four dark pieces on a light board: the grey at their cells' centres differs from
    # the board's between the cells, so those cells are left out (and a cell whose centre
    # a neighbour's 60 mm cylinder covers in the image may be too), and the grid is fitted
    # again on the other outlines.
    calls = _spy(monkeypatch)
    view = make_view(50.0, 70.0)
    pieces = (5, 6, 9, 10)
    frame = draw_board(view, pieces=pieces, **LIGHT_BOARD)
    found = find_board(frame, config=LocateConfig(occupancy_refit=True))
    assert found
    (H_work, occupied), = calls["occupied"]
    truth = _truth_mask(view, H_work, pieces)
    assert occupied[truth].all() and occupied.sum() <= truth.sum() + 2
    refits = [n for n in calls["nodes"] if n is not None and len(n) == 16 - occupied.sum()]
    assert len(refits) == 1
    assert np.array_equal(refits[0], GRID_NODES[~occupied])
    err = cell_errors(found.cell_centers_px(), view.cell_centers_px())
    d = np.diff(view.cell_centers_px().reshape(4, 4, 2), axis=1)
    assert err.max() < 0.05 * float(np.median(np.hypot(d[..., 0], d[..., 1])))


def test_few_empty_cells_and_the_default_keep_the_judged_grid(monkeypatch):
    # Four empty cells (a crowded board) cannot place a grid, nor can six in two rows:
    # the judged grid is kept as it is. By default (occupancy_refit off) the occupancy is
    # not even estimated.
    from vision.locate import finder

    frame = draw_board(make_view(50.0, 70.0), **LIGHT_BOARD)
    work_f = finder.smoothed(np.ascontiguousarray(frame[::4, ::4, 1]), 1.0)
    H = np.array([[40.0, 0.0, 60.0], [0.0, 40.0, 30.0], [0.0, 0.0, 1.0]])
    config = LocateConfig(occupancy_refit=True)
    for empty in ((0, 5, 10, 15), (0, 1, 2, 4, 5, 6)):
        mask = ~np.isin(np.arange(16), empty)
        monkeypatch.setattr(finder, "occupied_cells", lambda *_a, m=mask: m)
        out, r = finder._refit_empty_cells(work_f, H, 0.45, finder.EdgeConfig(), 0.25, None,
                                           (1280, 720), config)
        assert out is H and r == 0.45
    calls = _spy(monkeypatch)
    assert find_board(frame)
    assert not calls["occupied"]


def test_a_crowded_board_is_judged_by_the_board_nearest_the_camera(monkeypatch):
    # Twelve pieces: the board between the cells is mostly covered by them, but not the
    # board beyond the outer rings on the camera's side (pieces lean away from it), so the
    # pieces' cells are still judged occupied (all but one here, whose light top is near
    # the board's grey) and too few cells are left for a refit.
    calls = _spy(monkeypatch)
    view = make_view(40.0, 70.0)
    pieces = tuple(k for k in range(16) if k not in (0, 5, 10, 15))
    frame = draw_board(view, pieces=pieces, **LIGHT_BOARD)
    # The marking screened by edges near the grid (marking_screen_near, on by default) fits
    # this drawn board's grid farther off (worst cell 0.23 of a pitch against 0.13 with the
    # quick RANSACs), and the occupancy is judged on that grid: the quick RANSACs are kept
    # here, as the occupancy judge is under test, not the marking.
    assert find_board(frame, config=LocateConfig(occupancy_refit=True,
                                                 marking_screen_near=False))
    (H_work, occupied), = calls["occupied"]
    assert occupied[_truth_mask(view, H_work, pieces)].sum() >= 11
    assert (~occupied).sum() < 6
    assert all(n is None or len(n) >= 6 for n in calls["nodes"])
