"""Result types: the analyze JSON cell entry and the empty observation."""

from __future__ import annotations

import json

import pytest

from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ATTRIBUTES, Piece


def _cells(piece_at: Cell | None = None, known: frozenset[str] = frozenset(ATTRIBUTES)):
    out = []
    for cell in ALL_CELLS:
        if cell == piece_at:
            out.append(CellReading(cell, (10.0, 20.0), 0.9, dict.fromkeys(ATTRIBUTES, 0.8),
                                   0.7, Piece.from_symbol("DSTH"), known, 0.66))
        else:
            out.append(CellReading(cell, (1.0, 2.0), 0.1))
    return tuple(out)


def test_empty_observation_is_falsy_container() -> None:
    obs = Observation.empty()
    assert not obs and len(obs) == 0 and obs.pieces == {}
    with pytest.raises(KeyError):
        obs.reading(Cell(0, 0))


def test_cell_json_follows_the_contract() -> None:
    obs = Observation(_cells(Cell(1, 2)))
    entry = obs.reading(Cell(1, 2)).as_dict()
    assert set(entry) == {"row", "col", "name", "center_px", "occupied", "piece",
                          "visible_fraction"}
    assert entry["name"] == "c2" and entry["occupied"] is True
    assert entry["piece"] == {"color": "dark", "shape": "square", "height": "tall",
                              "top": "hollow", "confidence": 0.66}
    empty = obs.reading(Cell(0, 0)).as_dict()
    assert empty["piece"] is None and empty["occupied"] is False
    json.dumps([c.as_dict() for c in obs.cells])


def test_unknown_attribute_is_null() -> None:
    obs = Observation(_cells(Cell(3, 3), frozenset({"color", "shape", "height"})))
    entry = obs.reading(Cell(3, 3)).as_dict()
    assert entry["piece"]["top"] is None
    assert entry["piece"]["color"] == "dark"
    assert "top: " not in obs.describe() and "?" in obs.describe()


def test_cells_must_be_in_order() -> None:
    cells = list(_cells())
    cells[0], cells[1] = cells[1], cells[0]
    with pytest.raises(ValueError, match="ALL_CELLS"):
        Observation(tuple(cells))
