"""The 16 Quarto pieces.

A piece is a 4-bit code, one bit per attribute. The bit layout stays inside this module; the rest
of the program speaks in attribute names and values (``color``: light|dark, ``shape``:
round|square, ``height``: short|tall, ``top``: solid|hollow), exactly as DESIGN.md names them.

Bit ``i`` of the code is 1 when attribute ``ATTRIBUTES[i]`` has its *second* value in
``VALUES[attr]`` (dark, square, tall, hollow).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

ATTRIBUTES: tuple[str, ...] = ("color", "shape", "height", "top")

#: For each attribute, its two values: index 0 is bit value 0, index 1 is bit value 1.
VALUES: dict[str, tuple[str, str]] = {
    "color": ("light", "dark"),
    "shape": ("round", "square"),
    "height": ("short", "tall"),
    "top": ("solid", "hollow"),
}

#: One letter per value, by attribute position. Letters repeat across positions (S is square,
#: short or solid) but the position in the 4-letter symbol tells which attribute is meant.
_LETTERS: dict[str, tuple[str, str]] = {
    "color": ("L", "D"),
    "shape": ("R", "S"),
    "height": ("S", "T"),
    "top": ("S", "H"),
}

ALL_BITS = 0b1111


class PieceParseError(ValueError):
    """A piece description could not be understood; the message quotes the input."""


def attribute_bit(attribute: str) -> int:
    """The bit mask of ``attribute`` in a piece code."""
    try:
        return 1 << ATTRIBUTES.index(attribute)
    except ValueError:
        raise PieceParseError(
            f"unknown attribute {attribute!r}; expected one of {', '.join(ATTRIBUTES)}"
        ) from None


def attributes_mask(
    attributes: Iterator[str] | tuple[str, ...] | frozenset[str] | list[str],
) -> int:
    """The bit mask covering every attribute named in ``attributes``."""
    mask = 0
    for name in attributes:
        mask |= attribute_bit(name)
    return mask


@dataclass(frozen=True, order=True)
class Piece:
    """One of the 16 pieces, identified by its 4-bit ``code`` (0..15)."""

    code: int

    def __post_init__(self) -> None:
        if (
            not isinstance(self.code, int)
            or isinstance(self.code, bool)
            or not 0 <= self.code <= 15
        ):
            raise PieceParseError(f"piece code must be an int in 0..15, got {self.code!r}")

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_attributes(cls, attributes: Mapping[str, object]) -> Piece:
        """Build a piece from ``{"color": "dark", "shape": "round", ...}`` (all four needed).

        Extra keys (such as ``confidence``) are ignored.
        """
        code = 0
        for name in ATTRIBUTES:
            if name not in attributes:
                raise PieceParseError(f"piece {dict(attributes)!r} lacks attribute {name!r}")
            value = attributes[name]
            choices = VALUES[name]
            if value not in choices:
                raise PieceParseError(
                    f"piece attribute {name}={value!r} is not one of {choices[0]!r}, {choices[1]!r}"
                )
            if value == choices[1]:
                code |= attribute_bit(name)
        return cls(code)

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """Parse a 4-letter symbol such as ``"DRTH"`` (dark round tall hollow).

        Positions: color L/D, shape R/S, height S/T, top S/H. Case is ignored.
        """
        if not isinstance(symbol, str) or len(symbol) != 4:
            raise PieceParseError(f"piece symbol must be 4 letters like 'DRTH', got {symbol!r}")
        code = 0
        for i, (name, letter) in enumerate(zip(ATTRIBUTES, symbol.upper(), strict=True)):
            letters = _LETTERS[name]
            if letter not in letters:
                raise PieceParseError(
                    f"piece symbol {symbol!r}: letter {i + 1} ({name}) must be "
                    f"{letters[0]} or {letters[1]}, got {letter!r}"
                )
            if letter == letters[1]:
                code |= 1 << i
        return cls(code)

    @classmethod
    def from_name(cls, name: str) -> Piece:
        """Parse a readable name such as ``"dark round tall hollow"`` (any order)."""
        words = name.replace(",", " ").split() if isinstance(name, str) else []
        found: dict[str, str] = {}
        for word in words:
            w = word.lower()
            for attr, values in VALUES.items():
                if w in values:
                    if attr in found:
                        raise PieceParseError(f"piece name {name!r} gives {attr} twice")
                    found[attr] = w
                    break
            else:
                raise PieceParseError(f"piece name {name!r}: unknown word {word!r}")
        if len(found) != 4:
            raise PieceParseError(
                f"piece name {name!r} must give all four of {', '.join(ATTRIBUTES)}"
            )
        return cls.from_attributes(found)

    @classmethod
    def parse(cls, text: str) -> Piece:
        """Accept a symbol (``"DRTH"``), a name, or a code as decimal text."""
        text = text.strip()
        if text.isdigit():
            return cls(int(text))
        if len(text) == 4 and text.isalpha():
            return cls.from_symbol(text)
        return cls.from_name(text)

    # -- views --------------------------------------------------------------------------------
    def value(self, attribute: str) -> str:
        """The value of one attribute, e.g. ``piece.value("color") == "dark"``."""
        return VALUES[attribute][1 if self.code & attribute_bit(attribute) else 0]

    @property
    def attributes(self) -> dict[str, str]:
        """All four attributes as a dict in the DESIGN.md naming."""
        return {name: self.value(name) for name in ATTRIBUTES}

    @property
    def symbol(self) -> str:
        return "".join(_LETTERS[name][(self.code >> i) & 1] for i, name in enumerate(ATTRIBUTES))

    @property
    def name(self) -> str:
        return " ".join(self.value(a) for a in ATTRIBUTES)

    def __repr__(self) -> str:
        return f"Piece.from_symbol({self.symbol!r})"

    def __str__(self) -> str:
        return self.name


ALL_PIECES: tuple[Piece, ...] = tuple(Piece(code) for code in range(16))
