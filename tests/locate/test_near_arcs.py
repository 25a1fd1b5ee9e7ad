"""The grid refitted to the near sides of the cell outlines (``fit.NearArcs``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.evaluation.labels import load_label
from vision.locate import LocateConfig, find_board
from vision.locate.fit import GRID_NODES, NearArcs, ring_model_points


def test_near_arcs_keep_the_side_facing_the_foot():
    pts, radial = ring_model_points(0.45, 24)
    centres = np.repeat(GRID_NODES, 24, axis=0)
    # The camera's foot far beyond the grid's +x side: every cell keeps the samples whose
    # outward normal points towards +x (within about 100 degrees), and no other.
    keep = NearArcs(np.array([50.0, 1.5]), -0.2).mask(pts, radial, centres)
    direction = np.array([50.0, 1.5]) - centres
    cos = (radial * direction).sum(axis=1) / np.hypot(*direction.T)
    assert np.array_equal(keep, cos >= -0.2)
    assert 0.5 < keep.mean() < 0.6
    # A cell right below the camera keeps its whole outline; the others do not.
    keep = NearArcs(np.array([1.0, 1.0]), -0.2).mask(pts, radial, centres)
    per_cell = keep.reshape(16, 24).all(axis=1)
    assert per_cell[1 * 4 + 1] and per_cell.sum() == 1


@pytest.mark.slow
def test_near_arcs_refit_steep_crowded_boards(tmp_path):
    # Seen from 70-90 degrees, the round tops of a crowded board draw ring-sized circles
    # just beyond the far side of their rings. Over 24 such renders the refit on the near
    # arcs must leave the cells closer to the truth (session 23: median of each board's
    # largest cell error 0.018 -> 0.009 pitch, boards with a cell off by 5% 7 -> 4).
    from vision.render import SceneOptions, render_still
    from vision.render.still import write_still

    worst = {True: [], False: []}
    for seed in range(1346000, 1346024):
        image, raw = render_still(seed, options=SceneOptions(elevation_deg=(70.0, 90.0),
                                                              n_pieces=(12, 16)))
        path = write_still(tmp_path / f"{seed}.jpg", image, raw)
        frame = cv2.imread(str(path))
        label = load_label(path.with_suffix(".json"))
        true = np.array([c.center_px for c in label.cells])
        for refit in (False, True):
            view = find_board(frame, config=LocateConfig(near_arc_refit=refit))
            assert view, (seed, view)
            d = np.linalg.norm(view.cell_centers_px()[:, None] - true[None], axis=2).min(axis=1)
            worst[refit].append(float(d.max()) / label.cell_spacing_px)
    off, on = np.array(worst[False]), np.array(worst[True])
    assert np.median(on) < 0.8 * np.median(off)
    assert (on > 0.05).sum() < (off > 0.05).sum()


def test_low_views_are_refitted_with_the_radius_held(monkeypatch):
    # From high up the near-arc refit fits the ring radius too; from low down (when
    # ``near_arc_low_views`` asks for it) the near arcs are thin and all on one side of
    # their rings, so it holds the radius the whole outlines gave (an empty radius range:
    # the fit keeps the radius it starts from).
    from tests.locate.synth import draw_board, make_view
    from vision.locate import finder

    calls = []
    real = finder.fit_rings

    def spy(*args, **kwargs):
        if kwargs.get("arcs") is not None:
            calls.append(args[4].radius_range)
        return real(*args, **kwargs)

    monkeypatch.setattr(finder, "fit_rings", spy)
    assert find_board(draw_board(make_view(35.0, 20.0)),
                      config=LocateConfig(near_arc_low_views=True))
    assert len(calls) == 1 and calls[0][0] == calls[0][1]
    calls.clear()
    assert find_board(draw_board(make_view(35.0, 20.0)))  # the default: low views left
    assert not calls
    assert find_board(draw_board(make_view(80.0, 20.0)))
    assert len(calls) == 1 and calls[0][0] < calls[0][1]


@pytest.mark.slow
def test_near_arcs_place_a_crowded_low_view_whose_far_arcs_are_hidden(tmp_path):
    # Fresh render 1351342: a black Gigamic board with 12 pieces seen from 38 degrees. The
    # tall pieces of the far row hide their rings' far arcs and their silhouettes stand
    # where those arcs would be, so the whole-outline fit put the far row 0.09 pitch off.
    # The near arcs are neither hidden nor imitated by a piece standing on its cell; with
    # the radius held they place every cell within 1% of the pitch (session 29; the knob
    # is off by default, see design.md).
    from tests.locate.synth import max_cell_error, render_labelled

    frame, label = render_labelled(1351342, tmp_path)
    before = find_board(frame)
    after = find_board(frame, config=LocateConfig(near_arc_low_views=True))
    assert before and after
    assert max_cell_error(before, label) > 0.05
    assert max_cell_error(after, label) < 0.02
