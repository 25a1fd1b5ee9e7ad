"""The 4x4 board: cells, their names, the 8 symmetries of the square, and positions.

A :class:`Board` may hold an impossible position (the same piece twice): a camera will see such
boards. :meth:`Board.status` reports it; nothing here raises on it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from vision.rules.pieces import Piece, PieceParseError

SIZE = 4
_COL_LETTERS = "abcd"


class CellParseError(ValueError):
    """A cell description could not be understood; the message quotes the input."""


@dataclass(frozen=True, order=True)
class Cell:
    """A board cell; ``row`` and ``col`` in 0..3. Its name is col letter + row number (``b3``)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        for label, v in (("row", self.row), ("col", self.col)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < SIZE:
                raise CellParseError(f"cell {label} must be an int in 0..3, got {v!r}")

    @classmethod
    def from_name(cls, name: str) -> Cell:
        """Parse ``"a1"``..``"d4"`` (col letter a-d, row number 1-4)."""
        if not isinstance(name, str) or len(name) != 2:
            raise CellParseError(f"cell name must look like 'b3', got {name!r}")
        letter, digit = name[0].lower(), name[1]
        if letter not in _COL_LETTERS or digit not in "1234":
            raise CellParseError(f"cell name must be a1..d4, got {name!r}")
        return cls(int(digit) - 1, _COL_LETTERS.index(letter))

    @property
    def name(self) -> str:
        return f"{_COL_LETTERS[self.col]}{self.row + 1}"

    @property
    def index(self) -> int:
        """Position 0..15 in row-major order."""
        return self.row * SIZE + self.col

    def __repr__(self) -> str:
        return f"Cell.from_name({self.name!r})"

    def __str__(self) -> str:
        return self.name


ALL_CELLS: tuple[Cell, ...] = tuple(Cell(r, c) for r in range(SIZE) for c in range(SIZE))

_N = SIZE - 1

#: The 8 symmetries of the square as maps of (row, col), identity first.
SYMMETRIES: tuple[Callable[[int, int], tuple[int, int]], ...] = (
    lambda r, c: (r, c),
    lambda r, c: (c, _N - r),  # quarter turn
    lambda r, c: (_N - r, _N - c),  # half turn
    lambda r, c: (_N - c, r),  # three-quarter turn
    lambda r, c: (r, _N - c),  # mirror left-right
    lambda r, c: (_N - r, c),  # mirror top-bottom
    lambda r, c: (c, r),  # main diagonal
    lambda r, c: (_N - c, _N - r),  # anti-diagonal
)


class Status(enum.IntFlag):
    """Problems a position can have. ``VALID`` (0) means none."""

    VALID = 0
    DUPLICATE_PIECE = 1  # the same piece stands on two cells


class Board:
    """Which piece stands on each of the 16 cells (``None`` for empty). Mutable; copy with
    :meth:`copy`."""

    __slots__ = ("_cells",)

    def __init__(self, pieces: Mapping[Cell, Piece] | None = None) -> None:
        self._cells: list[Piece | None] = [None] * (SIZE * SIZE)
        for cell, piece in (pieces or {}).items():
            self[cell] = piece

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_codes(cls, codes: Iterable[int | None]) -> Board:
        """16 entries in row-major order, each a piece code 0..15 or None."""
        codes = list(codes)
        if len(codes) != SIZE * SIZE:
            raise ValueError(f"codes must have 16 entries, got {len(codes)}")
        board = cls()
        board._cells = [None if c is None else Piece(c) for c in codes]
        return board

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Parse 16 whitespace-separated tokens, row 0 first: a piece symbol or ``.``."""
        tokens = text.split()
        if len(tokens) != SIZE * SIZE:
            raise PieceParseError(f"board text must have 16 tokens, got {len(tokens)}: {text!r}")
        return cls.from_codes(None if t == "." else Piece.from_symbol(t).code for t in tokens)

    def copy(self) -> Board:
        board = Board()
        board._cells = list(self._cells)
        return board

    # -- access -------------------------------------------------------------------------------
    def __getitem__(self, cell: Cell) -> Piece | None:
        return self._cells[cell.index]

    def __setitem__(self, cell: Cell, piece: Piece | None) -> None:
        if piece is not None and not isinstance(piece, Piece):
            raise TypeError(f"a board holds Piece or None, got {piece!r}")
        self._cells[cell.index] = piece

    def items(self) -> Iterator[tuple[Cell, Piece]]:
        """The occupied cells with their pieces, row-major."""
        for cell in ALL_CELLS:
            piece = self._cells[cell.index]
            if piece is not None:
                yield cell, piece

    def codes(self) -> tuple[int | None, ...]:
        return tuple(None if p is None else p.code for p in self._cells)

    def empty_cells(self) -> list[Cell]:
        return [cell for cell in ALL_CELLS if self._cells[cell.index] is None]

    def pieces(self) -> list[Piece]:
        return [p for p in self._cells if p is not None]

    def unplayed(self) -> list[Piece]:
        """Pieces not on the board."""
        used = {p.code for p in self.pieces()}
        return [Piece(c) for c in range(16) if c not in used]

    def __len__(self) -> int:
        return sum(p is not None for p in self._cells)

    def is_full(self) -> bool:
        return all(p is not None for p in self._cells)

    def status(self) -> Status:
        codes = [p.code for p in self._cells if p is not None]
        return Status.DUPLICATE_PIECE if len(set(codes)) != len(codes) else Status.VALID

    def is_valid(self) -> bool:
        return self.status() == Status.VALID

    def transform(self, symmetry: Callable[[int, int], tuple[int, int]]) -> Board:
        """A new board with every piece moved by ``symmetry`` (one of :data:`SYMMETRIES`)."""
        board = Board()
        for cell, piece in self.items():
            board[Cell(*symmetry(cell.row, cell.col))] = piece
        return board

    # -- comparison and display ---------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._cells == other._cells

    def __hash__(self) -> int:
        return hash(self.codes())

    def text(self) -> str:
        """Four lines, row 0 first, each piece as its symbol or ``....`` for an empty cell."""
        rows = []
        for r in range(SIZE):
            row = [self._cells[r * SIZE + c] for c in range(SIZE)]
            rows.append(" ".join("...." if p is None else p.symbol for p in row))
        return "\n".join(rows)

    def __repr__(self) -> str:
        tokens = " ".join("." if p is None else p.symbol for p in self._cells)
        return f"Board.from_text({tokens!r})"
