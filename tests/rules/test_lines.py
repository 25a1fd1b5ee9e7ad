"""Line detection against a naive, independent implementation, and symmetry properties."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.rules import ALL_CELLS, ATTRIBUTES, SYMMETRIES, Board, Cell, Piece
from vision.rules.lines import CLASSIC_LINES, SQUARE_LINES, Rules, RulesError


def naive_lines(advanced):
    """Lines built from coordinates, independently of vision.rules.lines."""
    lines = []
    for r in range(4):
        lines.append([(r, c) for c in range(4)])
    for c in range(4):
        lines.append([(r, c) for r in range(4)])
    lines.append([(i, i) for i in range(4)])
    lines.append([(i, 3 - i) for i in range(4)])
    if advanced:
        for r in range(3):
            for c in range(3):
                lines.append([(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)])
    return lines


def naive_quartos(position, advanced, attributes):
    """position: dict (row, col) -> attribute dict. Returns {frozenset(cells): shared}."""
    found = {}
    for line in naive_lines(advanced):
        if not all(cell in position for cell in line):
            continue
        shared = {}
        for attr in attributes:
            values = {position[cell][attr] for cell in line}
            if len(values) == 1:
                shared[attr] = values.pop()
        if shared:
            found[frozenset(line)] = shared
    return found


def random_position(rng):
    n = rng.randint(0, 16)
    cells = rng.sample(range(16), n)
    codes = rng.sample(range(16), n)
    board = Board()
    for cell, code in zip(cells, codes):
        board[ALL_CELLS[cell]] = Piece(code)
    return board


def to_naive(board):
    return {(c.row, c.col): p.attributes for c, p in board.items()}


def ours(board, rules):
    return {frozenset((c.row, c.col) for c in q.cells): q.shared for q in rules.quarto_lines(board)}


def test_line_counts():
    assert len(CLASSIC_LINES) == 10
    assert len(SQUARE_LINES) == 9
    assert len(Rules(advanced=True).lines) == 19


def test_agrees_with_naive_implementation_on_100k_positions():
    rng = random.Random(20261121)
    subsets = [c for k in (1, 2, 3) for c in itertools.combinations(ATTRIBUTES, k)]
    checked = 0
    quartos = 0
    for _ in range(100_000):
        board = random_position(rng)
        naive_pos = to_naive(board)
        beginner_attrs = rng.choice(subsets)
        variants = [
            (Rules(), False, ATTRIBUTES),
            (Rules(advanced=True), True, ATTRIBUTES),
            (Rules(advanced=rng.random() < 0.5, attributes=beginner_attrs), None, beginner_attrs),
        ]
        for rules, advanced, attrs in variants:
            advanced = rules.advanced if advanced is None else advanced
            expected = naive_quartos(naive_pos, advanced, attrs)
            got = ours(board, rules)
            assert got == expected, (board, rules)
            assert rules.is_quarto(board) == bool(expected)
            checked += 1
            quartos += bool(expected)
    assert checked == 300_000
    assert quartos > 10_000  # the sample really exercises positive cases


def test_lines_created_are_the_quarto_lines_through_the_cell():
    rng = random.Random(7)
    rules = Rules(advanced=True)
    for _ in range(3000):
        board = random_position(rng)
        if not len(board):
            continue
        cell = rng.choice([c for c, _ in board.items()])
        created = {q.line for q in rules.lines_created(board, cell)}
        expected = {q.line for q in rules.quarto_lines(board) if cell in q.cells}
        assert created == expected


boards = st.lists(st.one_of(st.none(), st.integers(0, 15)), min_size=16, max_size=16).map(
    Board.from_codes
)


@settings(max_examples=400, deadline=None)
@given(board=boards, sym=st.sampled_from(SYMMETRIES), advanced=st.booleans())
def test_quarto_detection_invariant_under_symmetries(board, sym, advanced):
    rules = Rules(advanced=advanced)
    moved = board.transform(sym)
    assert rules.is_quarto(moved) == rules.is_quarto(board)
    before = {
        frozenset(sym(c.row, c.col) for c in q.cells): q.shared for q in rules.quarto_lines(board)
    }
    after = {
        frozenset((c.row, c.col) for c in q.cells): q.shared for q in rules.quarto_lines(moved)
    }
    assert before == after


def test_shared_values_both_polarities_and_beginner_subset():
    board = Board.from_text("LRSS LSSS LRTS LSTS " + ". " * 12)
    (q,) = Rules().quarto_lines(board)
    assert q.shared == {"color": "light", "top": "solid"}
    assert q.line.name == "row 1"
    assert Rules(attributes=("shape",)).quarto_lines(board) == []
    (q2,) = Rules(attributes=("top", "color")).quarto_lines(board)
    assert q2.shared == {"color": "light", "top": "solid"}
    assert "all light" in q2.describe()


def test_square_only_counts_in_advanced():
    board = Board()
    for cell, sym in zip(
        [Cell(1, 1), Cell(1, 2), Cell(2, 1), Cell(2, 2)], ["DRSS", "DSTH", "DRTS", "DSSH"]
    ):
        board[cell] = Piece.from_symbol(sym)
    assert not Rules().is_quarto(board)
    (q,) = Rules(advanced=True).quarto_lines(board)
    assert q.shared == {"color": "dark"}
    assert q.line.name == "square b2-c3"


def test_outcome():
    rules = Rules()
    assert rules.outcome(Board()) is None
    full_draw = Board.from_text(
        "LRSS DSTH LRTH DSSS  DRTS LSSH DRSH LSTS  LRTS DSSH LRSH DSTS  DRSS LSTH DRTH LSSS"
    )
    out = rules.outcome(full_draw)
    naive = naive_quartos(to_naive(full_draw), False, ATTRIBUTES)
    assert (out.kind == "draw") == (not naive)
    assert len(rules.legal_placements(Board())) == 256
    assert rules.legal_placements(full_draw) == []


@pytest.mark.parametrize(
    "lines, attrs",
    [("diagonal", None), ("classic", "colour"), ("classic", ""), ("classic", "color,color")],
)
def test_bad_rule_options(lines, attrs):
    with pytest.raises(RulesError):
        Rules.from_options(lines, attrs)


def test_rules_json_round_trip():
    for rules in (Rules(), Rules(advanced=True), Rules(attributes=("top", "color"))):
        assert Rules.from_json(rules.to_json()) == rules


def test_partial_readings_never_invent_a_line():
    rng = random.Random(5)
    rules = Rules(advanced=True)
    for _ in range(2000):
        board = random_position(rng)
        readings = {}
        for cell, piece in board.items():
            values = dict(piece.attributes)
            for name in ATTRIBUTES:
                if rng.random() < 0.15:
                    values[name] = None
            readings[cell] = values
        partial = {q.line: q.shared for q in rules.quarto_lines_partial(readings)}
        full = {q.line: q.shared for q in rules.quarto_lines(board)}
        for line, shared in partial.items():
            assert line in full
            assert shared.items() <= full[line].items()
        complete = {c: {k: v for k, v in p.attributes.items()} for c, p in board.items()}
        assert {q.line: q.shared for q in rules.quarto_lines_partial(complete)} == full
