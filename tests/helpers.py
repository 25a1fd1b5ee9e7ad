"""Small helpers shared by tests."""

import random

from vision.rules import Board
from vision.rules.lines import Rules


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
