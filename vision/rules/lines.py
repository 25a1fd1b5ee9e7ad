"""Lines and Quarto detection: the only place that decides what a Quarto is.

Four pieces share an attribute value when the AND of their codes (shared "second" values:
dark, square, tall, hollow) or the AND of their complements (shared "first" values: light,
round, short, solid) has that attribute's bit set. The bit tricks stay here; callers get
attribute names and values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from vision.rules.board import SIZE, Board, Cell
from vision.rules.pieces import ALL_BITS, ATTRIBUTES, VALUES, Piece, attributes_mask

_COL = "abcd"


@dataclass(frozen=True)
class Line:
    """Four cells that can form a Quarto: a row, column, diagonal or (advanced) 2x2 square."""

    name: str
    cells: tuple[Cell, Cell, Cell, Cell]

    def __repr__(self) -> str:
        return f"Line({self.name!r})"


def _rows() -> list[Line]:
    return [
        Line(f"row {r + 1}", (Cell(r, 0), Cell(r, 1), Cell(r, 2), Cell(r, 3))) for r in range(SIZE)
    ]


def _cols() -> list[Line]:
    return [
        Line(f"column {_COL[c]}", (Cell(0, c), Cell(1, c), Cell(2, c), Cell(3, c)))
        for c in range(SIZE)
    ]


def _diagonals() -> list[Line]:
    return [
        Line("diagonal a1-d4", (Cell(0, 0), Cell(1, 1), Cell(2, 2), Cell(3, 3))),
        Line("diagonal a4-d1", (Cell(3, 0), Cell(2, 1), Cell(1, 2), Cell(0, 3))),
    ]


def _squares() -> list[Line]:
    return [
        Line(
            f"square {Cell(r, c).name}-{Cell(r + 1, c + 1).name}",
            (Cell(r, c), Cell(r, c + 1), Cell(r + 1, c), Cell(r + 1, c + 1)),
        )
        for r in range(SIZE - 1)
        for c in range(SIZE - 1)
    ]


#: 4 rows, 4 columns, 2 diagonals.
CLASSIC_LINES: tuple[Line, ...] = tuple(_rows() + _cols() + _diagonals())
#: The 9 2x2 squares of the advanced variant.
SQUARE_LINES: tuple[Line, ...] = tuple(_squares())


class RulesError(ValueError):
    """Rules options that make no sense; the message quotes them."""


@dataclass(frozen=True)
class QuartoLine:
    """A line whose four pieces share at least one counted attribute value."""

    line: Line
    shared_items: tuple[tuple[str, str], ...]

    @property
    def cells(self) -> tuple[Cell, Cell, Cell, Cell]:
        return self.line.cells

    @property
    def shared(self) -> dict[str, str]:
        """Shared attribute values, e.g. ``{"color": "light", "top": "hollow"}``."""
        return dict(self.shared_items)

    def describe(self) -> str:
        values = " and ".join(f"all {v}" for _, v in self.shared_items)
        return f"{self.line.name}: {values}"


@dataclass(frozen=True)
class Outcome:
    """Game end as data: ``kind`` is ``"quarto"`` or ``"draw"``."""

    kind: str
    lines: tuple[QuartoLine, ...] = ()


@dataclass(frozen=True)
class Rules:
    """Which lines count and which attributes count.

    ``advanced`` adds the nine 2x2 squares; ``attributes`` lists the counted attributes (all
    four normally; a subset for the beginner variant).
    """

    advanced: bool = False
    attributes: tuple[str, ...] = ATTRIBUTES
    _mask: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        attrs = tuple(self.attributes)
        if not attrs:
            raise RulesError("rules must count at least one attribute")
        if len(set(attrs)) != len(attrs):
            raise RulesError(f"attributes repeat: {attrs!r}")
        unknown = [a for a in attrs if a not in ATTRIBUTES]
        if unknown:
            raise RulesError(
                f"unknown attribute(s) {', '.join(map(repr, unknown))}; "
                f"expected some of {', '.join(ATTRIBUTES)}"
            )
        # keep the canonical order so equal rules compare equal
        object.__setattr__(self, "attributes", tuple(a for a in ATTRIBUTES if a in attrs))
        object.__setattr__(self, "_mask", attributes_mask(attrs))

    @classmethod
    def classic(cls) -> Rules:
        return cls()

    @classmethod
    def from_options(
        cls, lines: str = "classic", attributes: str | Iterable[str] | None = None
    ) -> Rules:
        """Build from CLI-style options: ``lines`` classic|advanced, ``attributes``
        ``"color,shape"`` (or an iterable), None for all four."""
        if lines not in ("classic", "advanced"):
            raise RulesError(f"rules must be 'classic' or 'advanced', got {lines!r}")
        if attributes is None:
            attrs: tuple[str, ...] = ATTRIBUTES
        elif isinstance(attributes, str):
            attrs = tuple(a.strip() for a in attributes.split(",") if a.strip())
        else:
            attrs = tuple(attributes)
        return cls(advanced=lines == "advanced", attributes=attrs)

    @property
    def lines_name(self) -> str:
        return "advanced" if self.advanced else "classic"

    @property
    def lines(self) -> tuple[Line, ...]:
        return CLASSIC_LINES + SQUARE_LINES if self.advanced else CLASSIC_LINES

    def lines_through(self, cell: Cell) -> list[Line]:
        return [line for line in self.lines if cell in line.cells]

    # -- detection ----------------------------------------------------------------------------
    def shared_values(self, pieces: Iterable[Piece]) -> dict[str, str]:
        """Counted attribute values shared by all ``pieces`` (empty dict when none)."""
        both = ALL_BITS
        neither = ALL_BITS
        for piece in pieces:
            both &= piece.code
            neither &= ~piece.code
        shared: dict[str, str] = {}
        for i, name in enumerate(ATTRIBUTES):
            bit = 1 << i
            if not self._mask & bit:
                continue
            if both & bit:
                shared[name] = VALUES[name][1]
            elif neither & bit:
                shared[name] = VALUES[name][0]
        return shared

    def check_line(self, board: Board, line: Line) -> QuartoLine | None:
        """The line as a Quarto line if it is full and its pieces share a counted value."""
        pieces = [board[cell] for cell in line.cells]
        if any(p is None for p in pieces):
            return None
        shared = self.shared_values(p for p in pieces if p is not None)
        return QuartoLine(line, tuple(shared.items())) if shared else None

    def quarto_lines(self, board: Board) -> list[QuartoLine]:
        """Every Quarto line on the board now."""
        found = (self.check_line(board, line) for line in self.lines)
        return [q for q in found if q is not None]

    def lines_created(self, board: Board, cell: Cell) -> list[QuartoLine]:
        """The Quarto lines through ``cell`` (the lines a piece just placed there created)."""
        found = (self.check_line(board, line) for line in self.lines_through(cell))
        return [q for q in found if q is not None]

    def quarto_lines_partial(
        self, readings: Mapping[Cell, Mapping[str, str | None]]
    ) -> list[QuartoLine]:
        """Quarto lines among partly read pieces: ``readings`` maps occupied cells to their
        attribute values, ``None`` where an attribute could not be read.

        An attribute counts as shared only when all four pieces have it read and equal, so an
        unreadable attribute can hide a line but never invent one (no false "Quarto!").
        """
        found = []
        for line in self.lines:
            if any(cell not in readings for cell in line.cells):
                continue
            shared: list[tuple[str, str]] = []
            for name in self.attributes:
                values = {readings[cell].get(name) for cell in line.cells}
                value = values.pop() if len(values) == 1 else None
                if value is not None:
                    shared.append((name, value))
            if shared:
                found.append(QuartoLine(line, tuple(shared)))
        return found

    def is_quarto(self, board: Board) -> bool:
        return any(self.check_line(board, line) is not None for line in self.lines)

    def legal_placements(self, board: Board) -> list[tuple[Cell, Piece]]:
        """Every (empty cell, unplayed piece) pair."""
        pieces = board.unplayed()
        return [(cell, piece) for cell in board.empty_cells() for piece in pieces]

    def outcome(self, board: Board) -> Outcome | None:
        """``Outcome("quarto", lines)`` when a line exists, ``Outcome("draw")`` when the board
        is full without one, ``None`` while the game goes on.

        This looks at the position only; the claim rule (a line lapses when the next piece is
        placed) lives in :class:`vision.game.model.Game`.
        """
        lines = self.quarto_lines(board)
        if lines:
            return Outcome("quarto", tuple(lines))
        if board.is_full():
            return Outcome("draw")
        return None

    def to_json(self) -> dict[str, object]:
        return {"lines": self.lines_name, "attributes": list(self.attributes)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Rules:
        attrs = data.get("attributes")
        if attrs is not None and not isinstance(attrs, list):
            raise RulesError(f"rules attributes must be a list, got {attrs!r}")
        return cls.from_options(
            str(data.get("lines", "classic")), None if attrs is None else [str(a) for a in attrs]
        )
