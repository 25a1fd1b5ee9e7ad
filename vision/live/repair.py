"""Repairing a record that the board contradicts.

A piece misread when it arrived stays wrong in the record, and because each piece exists once
the error spreads: the piece it was taken for is no longer free, so when that piece really
arrives it is recorded as the next likeliest one. Later settled views often read both cells
right (a hand gone, the other colour now on the board to compare with, a shadow moved).

:func:`propose_repair` decodes the recorded cells again *together*, from their present
readings: the distinct pieces that explain those readings best (an assignment, as the reader
decodes a whole board). Where that differs from the record by a clear margin it proposes the
changed cells; the tracker then corrects the record with a ``correction`` event and a warning,
never silently. Cells not read now (hidden) keep their recorded pieces, which are then not
free for the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from vision.live.evidence import CellEvidence
from vision.read.decode import hungarian
from vision.rules.board import Cell
from vision.rules.pieces import ALL_PIECES, Piece


@dataclass(frozen=True)
class Repair:
    """Cells whose recorded piece the present readings replace, and by how much they prefer
    the repaired board (``gain``: log-likelihood ratio against the record, nats)."""

    changes: dict[Cell, Piece]
    gain: float


def recorded_cell_score(present: CellEvidence, piece: Piece,
                        recorded: CellEvidence | None = None, weight: float = 0.0) -> float:
    """A recorded cell's log-likelihood of ``piece``: its present readings plus, weighted
    by ``weight``, the readings that recorded its piece (two views of one piece)."""
    score = present.score(piece)
    if weight and recorded is not None:
        score += weight * recorded.score(piece)
    return score


def propose_repair(
    record: Mapping[Cell, Piece],
    evidence: Mapping[Cell, CellEvidence],
    *,
    min_gain: float,
    max_cells: int,
    recorded_by: Mapping[Cell, CellEvidence] | None = None,
    recorded_weight: float = 0.0,
) -> Repair | None:
    """The repair the present readings ask for, or None when the record stands.

    Parameters
    ----------
    record : the recorded piece of every occupied cell.
    evidence : present readings of the recorded cells that are read now (visible); a cell
        missing here, or with an attribute never read, keeps its recorded piece.
    min_gain : log-likelihood ratio (nats) by which the repaired board must explain the
        readings better than the record (``log(p / (1 - p))`` for a confidence ``p``).
    max_cells : most cells one repair may change (a misread and the piece it pushed aside is
        two; a board read much worse than that now is a bad view, not a bad record).
    recorded_by : the readings that recorded each cell's piece (its arrival), where kept.
    recorded_weight : weight of ``recorded_by`` in each cell's score beside the present
        readings: the view that recorded a piece is evidence too, so a present reading must
        outweigh it, not merely disagree with it. 0 scores the present alone.

    Returns
    -------
    Repair or None
    """
    read = [
        cell
        for cell in sorted(record)
        if cell in evidence and evidence[cell].read_fully
    ]
    if not read:
        return None
    fixed = {record[cell] for cell in record if cell not in read}
    free = [piece for piece in ALL_PIECES if piece not in fixed]
    earlier = recorded_by or {}

    def cell_score(cell: Cell, piece: Piece) -> float:
        return recorded_cell_score(evidence[cell], piece, earlier.get(cell), recorded_weight)

    score = np.array([[cell_score(cell, piece) for piece in free] for cell in read])
    choice = hungarian(-score)
    changes: dict[Cell, Piece] = {}
    gain = 0.0
    for i, cell in enumerate(read):
        best = free[int(choice[i])]
        if best != record[cell]:
            changes[cell] = best
            gain += float(score[i, int(choice[i])]) - cell_score(cell, record[cell])
    if not changes or len(changes) > max_cells or gain < min_gain:
        return None
    return Repair(changes, gain)
