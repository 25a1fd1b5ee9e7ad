"""The board evaluation helpers (vision/evaluation/board.py)."""

from __future__ import annotations

import numpy as np

from tests.locate.synth import make_view
from vision.evaluation.board import SYMMETRIES, ImageRecord, cell_errors, summarize


def test_eight_distinct_symmetries():
    assert len({tuple(p) for p in SYMMETRIES}) == 8


def test_cell_errors_ignore_the_labelling_symmetry():
    c = make_view(50.0, 30.0).cell_centers_px()
    for perm in SYMMETRIES:
        assert cell_errors(c[perm], c).max() < 1e-9


def test_cell_errors_see_a_shifted_grid():
    c = make_view(50.0, 30.0).cell_centers_px()
    assert np.median(cell_errors(c + 5.0, c)) > 4.9


def test_summary_counts():
    recs = [
        ImageRecord("a", True, True, "s", "25-40", 30.0, np.full(16, 0.01), 0.02),
        ImageRecord("b", True, False, "s", "25-40", 30.0),
        ImageRecord("c", False, True, "none", "unknown", None),
    ]
    s = summarize(recs)
    assert s["all"]["found_rate"] == 0.5
    assert s["all"]["false_boards"] == 1
    assert abs(s["all"]["cell_err_median"] - 0.01) < 1e-12
    assert s["band:25-40"]["with_board"] == 2
