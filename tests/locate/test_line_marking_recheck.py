"""``line_marking_recheck`` (default off; session 35, helper-35e): an edge-marked judged grid
fitted again as a thin line of either polarity, the refit taken when judged higher."""

from __future__ import annotations

from tests.locate.synth import max_cell_error, render_labelled
from vision.locate import LocateConfig, find_board


def test_the_knob_is_off_by_default():
    assert LocateConfig().line_marking_recheck is False


def test_a_grid_pulled_off_by_an_edge_marking_is_refitted_on_the_lines(tmp_path):
    # Fresh 1357102, a dark wood board at 30 degrees with 12 pieces: the ring search's
    # outline guess fitted as "edge, brighter outwards" (the pieces' silhouettes) lies 0.09
    # pitch off; refitted as a light line (the engraved rings), judged higher, 0.005.
    from vision.render import SceneOptions

    frame, label = render_labelled(1357102, tmp_path, SceneOptions())
    view = find_board(frame)
    assert view and max_cell_error(view, label) > 0.06
    view = find_board(frame, config=LocateConfig(line_marking_recheck=True))
    assert view and max_cell_error(view, label) < 0.03
