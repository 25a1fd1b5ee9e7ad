"""The scorer matches cells by image position and counts what the outside scorer counts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.evaluation.labels import load_label
from vision.evaluation.score import PredictedCell, match_cells, score_all, score_image
from vision.rules.pieces import ATTRIBUTES

PIECES = {
    (0, 0): {"color": "dark", "shape": "round", "height": "tall", "top": "hollow"},
    (1, 2): {"color": "light", "shape": "square", "height": "short", "top": "solid"},
    (3, 3): {"color": "light", "shape": "round", "height": "tall", "top": "solid"},
}


def _label(tmp_path: Path, *, hidden_top: bool = False, low_vis: bool = False) -> Path:
    cells = []
    for r in range(4):
        for c in range(4):
            piece = None
            if (r, c) in PIECES:
                piece = dict(PIECES[(r, c)], visible_fraction=1.0, top_visible_fraction=1.0)
                if (r, c) == (3, 3) and hidden_top:
                    piece["top_visible_fraction"] = 0.2
                if (r, c) == (1, 2) and low_vis:
                    piece["visible_fraction"] = 0.3
            cells.append({"row": r, "col": c, "center_px": [100.0 + 50 * c, 80.0 + 40 * r],
                          "piece": piece})
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"width": 640, "height": 480, "board_style": "gigamic_black",
                                "camera": {"elevation_deg": 50.0}, "cells": cells}))
    (tmp_path / "x.jpg").write_bytes(b"")
    return path


def _prediction(order: np.ndarray | None = None,
                change: dict[tuple[int, int], dict[str, str | None]] | None = None
                ) -> list[PredictedCell]:
    out = []
    for r in range(4):
        for c in range(4):
            p = PIECES.get((r, c))
            if p is not None and change and (r, c) in change:
                p = dict(p, **change[(r, c)])
            out.append(PredictedCell((100.0 + 50 * c + 1.5, 80.0 + 40 * r - 1.0), p))
    if order is not None:
        out = [out[i] for i in order]
    return out


def test_perfect_prediction_in_any_order_is_fully_right(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path))
    perm = np.random.default_rng(0).permutation(16)
    s = score_image(label, _prediction(perm))
    assert s.fully_right and s.occupancy_errors == 0 and s.pieces_judged == 3
    assert s.centre_error_share is not None and s.centre_error_share < 0.05


def test_wrong_and_unknown_attributes_count(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path))
    s = score_image(label, _prediction(change={(0, 0): {"shape": "square"},
                                               (3, 3): {"top": None}}))
    assert s.pieces_wrong == 2 and not s.fully_right
    assert s.attribute_errors["shape"] == 1 and s.attribute_errors["top"] == 1
    assert s.confusion["top"][("solid", "unknown")] == 1


def test_top_and_pieces_not_judged_when_hidden(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, hidden_top=True, low_vis=True))
    s = score_image(label, _prediction(change={(3, 3): {"top": "hollow"},
                                               (1, 2): {"color": "dark"}}))
    assert s.fully_right
    assert s.pieces_judged == 2 and s.attribute_judged["top"] == 1


def test_occupancy_errors_and_no_board(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path))
    pred = _prediction()
    pred[5] = PredictedCell(pred[5].center_px, dict(PIECES[(0, 0)]))  # (1, 1): a false piece
    pred[0] = PredictedCell(pred[0].center_px, None)  # (0, 0): missed
    s = score_image(label, pred)
    assert s.occupancy_errors == 2
    missing = score_image(label, None)
    assert not missing.board_found
    report = score_all([(label, pred), (label, None)])
    overall = report.as_dict()["overall"]
    assert overall["images"] == 2 and overall["boards_found"] == 1
    assert overall["occupancy_errors"] == 2
    assert "color" in report.confusion_text()


def test_match_cells_is_a_permutation() -> None:
    rng = np.random.default_rng(4)
    true = rng.random((16, 2)) * 100
    perm = rng.permutation(16)
    pred = true[perm] + rng.normal(0, 0.1, (16, 2))
    match = match_cells(pred, true)
    assert np.array_equal(perm[match], np.arange(16))
    with pytest.raises(ValueError):
        match_cells(pred[:3], true)


def test_attributes_listed() -> None:
    assert set(ATTRIBUTES) == {"color", "shape", "height", "top"}


SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _as_read(label, change: dict[str, bool]) -> list[PredictedCell]:  # type: ignore[no-untyped-def]
    """The label's own pieces as a reading, with the occupancy of the named cells flipped."""
    any_piece = {"color": "dark", "shape": "round", "height": "short", "top": "solid"}
    out = []
    for c in label.cells:
        occupied = (c.piece is not None) != change.get(c.cell.name, False)
        piece = None
        if occupied:
            piece = {a: c.piece.value(a) for a in ATTRIBUTES} if c.piece else any_piece
        out.append(PredictedCell(c.center_px, piece))
    return out


def test_occupancy_in_view_leaves_out_cells_a_still_cannot_show() -> None:
    # A low view (31.6 degrees) of 14 pieces: a3 is empty behind tall pieces (a short piece
    # there would hardly show), c2 and b4 hold short pieces 0.10 and 0.25 in view.
    label = load_label(SAMPLES / "wood_light_low_000006.json")
    from vision.evaluation.score import cells_in_view

    hidden = {c.cell.name for c, v in zip(label.cells, cells_in_view(label), strict=True)
              if not v}
    assert hidden == {"a3", "c2", "b4"}
    s = score_image(label, _as_read(label, {"a3": True, "c2": True}))
    assert s.occupancy_errors == 2 and s.occupancy_errors_in_view == 0
    assert s.cells_in_view == 13 and not s.fully_right
    assert "a3: occupancy false (hidden)" in s.errors
    # A cell in full view still counts in both.
    s = score_image(label, _as_read(label, {"a3": True, "d1": True}))
    assert (s.occupancy_errors, s.occupancy_errors_in_view) == (2, 1)
    report = score_all([(label, _as_read(label, {"a3": True, "d1": True}))])
    assert report.as_dict()["overall"]["occupancy_errors_in_view"] == 1  # type: ignore[index]


def test_occupancy_in_view_is_every_cell_without_piece_sizes(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path))
    s = score_image(label, _prediction())
    assert s.cells_in_view == 16 and s.occupancy_errors_in_view == 0
