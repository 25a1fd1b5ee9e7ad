"""The rules core: pieces, board, lines, outcome. Pure standard library (no cv2, no numpy)."""

from vision.rules.board import ALL_CELLS, SIZE, SYMMETRIES, Board, Cell, CellParseError, Status
from vision.rules.pieces import (
    ALL_PIECES,
    ATTRIBUTES,
    VALUES,
    Piece,
    PieceParseError,
    attribute_bit,
    attributes_mask,
)

__all__ = [
    "ALL_CELLS",
    "ALL_PIECES",
    "ATTRIBUTES",
    "SIZE",
    "SYMMETRIES",
    "VALUES",
    "Board",
    "Cell",
    "CellParseError",
    "Piece",
    "PieceParseError",
    "Status",
    "attribute_bit",
    "attributes_mask",
]
