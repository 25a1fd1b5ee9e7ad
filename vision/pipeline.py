"""One image through the whole pipeline: find the board, read the cells, find the Quarto lines.

This is the library behind ``quarto-vision analyze``; it returns the DESIGN.md section 3
object as plain data. Cells are read by the hand-crafted and the learned reader fused
(``vision.learn.fuse``): fewer wrong pieces and half the occupancy errors of either alone on
fresh renders and on the photoreal set. The Quarto lines come from the rules core, over the
pieces as read: an attribute that could not be read is never counted as shared.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.io import Calibration
from vision.geometry.board_view import BoardNotFound, BoardView
from vision.learn.fuse import read_cells_fused
from vision.locate.report import board_json, locate
from vision.read.observation import Observation
from vision.rules.board import Cell
from vision.rules.lines import QuartoLine, Rules


@dataclass(frozen=True)
class Analysis:
    """The board (or why none), the 16 readings, the Quarto lines, and the time taken."""

    view: BoardView | BoardNotFound
    observation: Observation
    quarto: tuple[QuartoLine, ...]
    elapsed_ms: float

    def to_json(self, image: str, size_wh: tuple[int, int]) -> dict[str, Any]:
        """The ``analyze --json`` object of DESIGN.md section 3."""
        return {
            "image": image,
            "width": int(size_wh[0]),
            "height": int(size_wh[1]),
            "board": board_json(self.view),
            "cells": [reading.as_dict() for reading in self.observation.cells],
            "quarto": [
                {"cells": [[c.row, c.col] for c in q.cells], "shared": q.shared}
                for q in self.quarto
            ],
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


def quarto_lines_read(observation: Observation, rules: Rules) -> list[QuartoLine]:
    """The Quarto lines among the pieces of an observation (unknown attributes never shared)."""
    readings: dict[Cell, dict[str, str | None]] = {}
    for reading in observation.cells:
        if reading.piece is not None:
            readings[reading.cell] = {name: reading.attribute(name) for name in rules.attributes}
    return rules.quarto_lines_partial(readings)


def analyze_frame(
    frame: NDArray[np.uint8],
    *,
    calibration: Calibration | None = None,
    rules: Rules | None = None,
) -> Analysis:
    """Find the board in ``frame`` (BGR), read its cells and find the Quarto lines."""
    t0 = time.perf_counter()
    rules = rules or Rules()
    board = locate(frame, calibration)
    if not board.view:
        return Analysis(board.view, Observation.empty(), (), (time.perf_counter() - t0) * 1e3)
    assert isinstance(board.view, BoardView)
    observation = read_cells_fused(frame, board.view)
    lines = tuple(quarto_lines_read(observation, rules))
    return Analysis(board.view, observation, lines, (time.perf_counter() - t0) * 1e3)
