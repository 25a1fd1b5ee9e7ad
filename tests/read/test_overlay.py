"""The piece overlay draws on a copy and shows each reading."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import make_view, paint
from vision.overlay.pieces import draw_pieces, reading_code
from vision.read import Observation, read_cells
from vision.rules.board import Cell
from vision.rules.pieces import Piece


def test_overlay_draws_on_a_copy() -> None:
    view = make_view()
    image = paint(view, {Cell(1, 1): Piece.from_symbol("LRTH")}, seed=5)
    before = image.copy()
    obs = read_cells(image, view)
    out = draw_pieces(image, obs)
    assert np.array_equal(image, before)
    assert out.shape == image.shape and out.dtype == np.uint8
    changed = np.any(out != image, axis=2)
    # Something is drawn near the piece and near the empty cells' crosses.
    x, y = view.cell_center_px(Cell(1, 1), 0.05).astype(int)
    assert changed[max(0, y - 60): y + 60, max(0, x - 60): x + 60].any()
    assert changed.sum() > 200
    assert reading_code(obs.reading(Cell(1, 1))) == "LRTH"
    assert reading_code(obs.reading(Cell(0, 0))) == ""


def test_overlay_of_nothing_and_bad_image() -> None:
    image = np.zeros((50, 60, 3), np.uint8)
    assert np.array_equal(draw_pieces(image, Observation.empty()), image)
    with pytest.raises(ValueError, match="uint8"):
        draw_pieces(np.zeros((50, 60), np.uint8), Observation.empty())
