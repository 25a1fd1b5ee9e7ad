"""Result types of the cell reader: one frozen container per frame.

``Observation`` holds the 16 ``CellReading``s of one frame plus the ``BoardView`` they were read
with. "Nothing seen" (no board) is ``Observation.empty()``: a container with no cells, never
``None``. Attribute odds are the probability of the attribute's *second* value in
``vision.rules.pieces.VALUES`` (dark, square, tall, hollow), or ``None`` when it cannot be seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from vision.geometry.board_view import BoardView
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ATTRIBUTES, VALUES, Piece


@dataclass(frozen=True)
class CellReading:
    """What the reader believes about one cell.

    Attributes
    ----------
    cell : the cell.
    center_px : where the cell centre on the board surface appears in the image.
    occupied_probability : probability that a piece stands on the cell.
    attribute_probability : per attribute, probability of its second value (dark, square,
        tall, hollow), or ``None`` when the attribute cannot be read (hidden, top not visible).
    visible_fraction : estimated share of the piece's silhouette not hidden by nearer pieces.
    piece : the decoded piece (joint decoding over the board), or ``None`` when empty.
    known : the attributes of ``piece`` that were read or forced by the other pieces; the
        others are reported as unknown.
    confidence : probability that every known attribute of ``piece`` is right.
    guessed : attributes given odds although the reader reckons their part of the piece
        mostly out of view (a top behind a nearer piece): the odds are the reader's best
        guess, not a sight of it (``vision.learn.fuse.read_cells_fused``); the live line
        check does not announce a Quarto resting on them (``TrackerConfig.gate_unseen_values``).
    """

    cell: Cell
    center_px: tuple[float, float]
    occupied_probability: float
    attribute_probability: Mapping[str, float | None] = field(default_factory=dict)
    visible_fraction: float = 1.0
    piece: Piece | None = None
    known: frozenset[str] = frozenset(ATTRIBUTES)
    confidence: float = 0.0
    guessed: frozenset[str] = frozenset()

    @property
    def occupied(self) -> bool:
        return self.piece is not None

    def attribute(self, name: str) -> str | None:
        """The decoded value of one attribute, or ``None`` when empty or unknown."""
        if self.piece is None or name not in self.known:
            return None
        return self.piece.value(name)

    def as_dict(self) -> dict[str, object]:
        """The cell entry of the ``analyze`` JSON contract (DESIGN.md section 3)."""
        piece: dict[str, object] | None = None
        if self.piece is not None:
            piece = {name: self.attribute(name) for name in ATTRIBUTES}
            piece["confidence"] = round(float(self.confidence), 3)
        return {
            "row": self.cell.row,
            "col": self.cell.col,
            "name": self.cell.name,
            "center_px": [round(float(self.center_px[0]), 1), round(float(self.center_px[1]), 1)],
            "occupied": self.piece is not None,
            "piece": piece,
            "visible_fraction": round(float(self.visible_fraction), 3),
        }


@dataclass(frozen=True)
class Observation:
    """The 16 cell readings of one frame (row-major, ``ALL_CELLS`` order), or none at all."""

    cells: tuple[CellReading, ...] = ()
    board_view: BoardView | None = None

    def __post_init__(self) -> None:
        if self.cells and [c.cell for c in self.cells] != list(ALL_CELLS):
            raise ValueError("Observation.cells must hold the 16 cells in ALL_CELLS order")

    @classmethod
    def empty(cls) -> Observation:
        """No board seen: no cells."""
        return cls()

    def __bool__(self) -> bool:
        return bool(self.cells)

    def __len__(self) -> int:
        return len(self.cells)

    def reading(self, cell: Cell) -> CellReading:
        """The reading of one cell."""
        if not self.cells:
            raise KeyError(f"no reading for {cell.name}: the observation is empty")
        return self.cells[cell.row * 4 + cell.col]

    @property
    def pieces(self) -> dict[Cell, Piece]:
        """Cells with a decoded piece."""
        return {c.cell: c.piece for c in self.cells if c.piece is not None}

    def describe(self) -> str:
        """One line per occupied cell, for logs and the console."""
        lines = []
        for c in self.cells:
            if c.piece is None:
                continue
            vals = [c.attribute(a) or "?" for a in ATTRIBUTES]
            lines.append(f"{c.cell.name}: {' '.join(vals)} ({c.confidence:.2f})")
        return "\n".join(lines)


def attribute_value(attribute: str, probability_second: float) -> str:
    """The more likely value of ``attribute`` given the probability of its second value."""
    return VALUES[attribute][1 if probability_second >= 0.5 else 0]
