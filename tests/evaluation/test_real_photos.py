"""The real-photo scorer: position matching, false pieces, either colour mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.evaluation.real_photos import score_photo, score_real_photos
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES, Piece


def _obs(pieces: dict[int, str]) -> Observation:
    cells = []
    for i, cell in enumerate(ALL_CELLS):
        centre = (100.0 + 60 * cell.col, 100.0 + 60 * cell.row)
        sym = pieces.get(i)
        piece = Piece.from_symbol(sym) if sym else None
        cells.append(CellReading(cell, centre, 0.9 if piece else 0.1, {}, 1.0, piece,
                                 frozenset(ATTRIBUTES) if piece else frozenset(), 0.9))
    return Observation(tuple(cells))


def _entry(**flags: object) -> dict[str, object]:
    return {
        "file": "x.jpg",
        "pieces": [
            {"position": "p0", "color": "light", "shape": "round", "height": "tall",
             "top": "hollow", "confident": True, "approx_xy": [103, 98]},
            {"position": "p1", "color": "dark", "shape": "square", "height": "short",
             "top": "solid", "confident": True, "approx_xy": [282, 285]},
            {"position": "p2", "color": "dark", "shape": "round", "height": "short",
             "top": "solid", "confident": False, "approx_xy": [160, 220]},
        ],
        **flags,
    }


def test_right_reading_scores_right() -> None:
    out = score_photo(_entry(all_cells_labelled=True), _obs({0: "LRTH", 15: "DSSS", 9: "DRSS"}))
    assert out["occupancy_errors"] == 0
    assert out["pieces_judged"] == 2 and out["pieces_all_right"] == 2


def test_false_piece_and_wrong_attribute() -> None:
    out = score_photo(_entry(all_cells_labelled=True),
                      _obs({0: "LSTH", 15: "DSSS", 9: "DRSS", 5: "LRSS"}))
    assert out["occupancy_errors"] == 1
    assert out["attributes"]["shape"] == {"judged": 2, "right": 1}
    assert out["pieces_all_right"] == 1


def test_colour_mapping_may_be_swapped() -> None:
    swapped = _obs({0: "DRTH", 15: "LSSS", 9: "LRSS"})
    strict = score_photo(_entry(), swapped)
    assert strict["attributes"]["color"]["right"] == 0
    metal = _entry(color_mapping_ambiguous=True)
    for piece, name in zip(metal["pieces"], ("steel", "bronze", "bronze"), strict=True):
        piece["color"] = name
    lenient = score_photo(metal, swapped)
    assert lenient["attributes"]["color"]["right"] == 2
    assert lenient["colour_mapping"] == {"bronze": "light", "steel": "dark"}


def test_unsure_label_values_are_not_judged() -> None:
    entry = _entry()
    entry["pieces"][0]["height"] = "unknown"
    out = score_photo(entry, _obs({0: "LRSH", 15: "DSSS"}))
    assert out["attributes"]["height"]["judged"] == 1


def test_empty_board_and_no_board(tmp_path: Path) -> None:
    entry = {"file": "x.jpg", "pieces": [], "empty_board": True}
    assert score_photo(entry, _obs({3: "LRTH"}))["occupancy_errors"] == 1
    assert score_photo(entry, Observation.empty())["board_found"] is False
    path = tmp_path / "labels.json"
    path.write_text(json.dumps([dict(entry, file="missing.jpg")]))
    result = score_real_photos(path, reader=lambda frame: Observation.empty())
    assert result["boards_found"] == 0
    path.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(ValueError, match="list"):
        score_real_photos(path)
