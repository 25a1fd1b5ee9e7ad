"""Small helpers shared by tests."""

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from vision.rules import Board
from vision.rules.lines import Rules
from vision.rules.pieces import ATTRIBUTES


def line_free_full_board(seed: int, rules: Rules | None = None) -> Board:
    """A full board with no Quarto line, found by seeded random search with the rules core."""
    rules = rules or Rules()
    rng = random.Random(seed)
    while True:
        codes = list(range(16))
        rng.shuffle(codes)
        board = Board.from_codes(codes)
        if not rules.quarto_lines(board):
            return board


def check_ratchet(expected_path: Path, name: str, got: dict[str, Any]) -> None:
    """Fail when the scores ``got`` are worse than the committed ones for ``name`` in any count
    (occupancy errors, pieces wrong, boards fully right, errors per attribute). With
    ``QV_UPDATE_RATCHET=1`` the committed scores are replaced by ``got`` instead."""
    expected = json.loads(expected_path.read_text()) if expected_path.exists() else {}
    if os.environ.get("QV_UPDATE_RATCHET"):
        expected[name] = got
        expected_path.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
        return
    if name not in expected:
        pytest.fail(f"no expected scores for {name!r}; run with QV_UPDATE_RATCHET=1")
    exp = expected[name]
    worse = [f"{k}: {got[k]} > {exp[k]}" for k in ("occupancy_errors", "pieces_wrong")
             if got[k] > exp[k]]
    if got["boards_fully_right"] < exp["boards_fully_right"]:
        worse.append(f"boards_fully_right: {got['boards_fully_right']} < "
                     f"{exp['boards_fully_right']}")
    worse += [f"{a} errors: {got['attribute_errors'][a]} > {exp['attribute_errors'][a]}"
              for a in ATTRIBUTES
              if got["attribute_errors"][a] > exp["attribute_errors"][a]]
    assert not worse, f"{name}: accuracy dropped: " + "; ".join(worse)
