import pytest

from vision.rules import ALL_CELLS, SYMMETRIES, Board, Cell, CellParseError, Piece, Status


def test_cell_names():
    assert Cell(0, 0).name == "a1"
    assert Cell(2, 1).name == "b3"
    assert Cell(3, 3).name == "d4"
    assert [Cell.from_name(c.name) for c in ALL_CELLS] == list(ALL_CELLS)
    assert Cell.from_name("C2") == Cell(1, 2)
    assert [c.index for c in ALL_CELLS] == list(range(16))


@pytest.mark.parametrize("bad", ["", "a", "e1", "a0", "a5", "a10", "11"])
def test_bad_cell_names(bad):
    with pytest.raises(CellParseError):
        Cell.from_name(bad)


@pytest.mark.parametrize("rc", [(-1, 0), (0, 4), (4, 0), (0.0, 1)])
def test_bad_cell_coordinates(rc):
    with pytest.raises(CellParseError):
        Cell(*rc)


def test_symmetries_are_eight_distinct_permutations_forming_a_group():
    perms = []
    for sym in SYMMETRIES:
        image = [sym(c.row, c.col) for c in ALL_CELLS]
        assert sorted(image) == [(c.row, c.col) for c in ALL_CELLS]
        perms.append(tuple(image))
    assert len(set(perms)) == 8
    assert perms[0] == tuple((c.row, c.col) for c in ALL_CELLS)
    as_set = set(perms)
    for a in SYMMETRIES:
        for b in SYMMETRIES:
            composed = tuple(a(*b(c.row, c.col)) for c in ALL_CELLS)
            assert composed in as_set


def test_board_basics_and_text_round_trip():
    board = Board({Cell(0, 0): Piece.from_symbol("DRTH"), Cell(3, 2): Piece(0)})
    assert len(board) == 2
    assert board[Cell(0, 0)] == Piece.from_symbol("DRTH")
    assert board[Cell(1, 1)] is None
    assert len(board.empty_cells()) == 14
    assert len(board.unplayed()) == 14
    assert (
        Board.from_text(
            " ".join("." if p is None else p.symbol for p in (board[c] for c in ALL_CELLS))
        )
        == board
    )
    assert eval(repr(board), {"Board": Board}) == board
    copy = board.copy()
    copy[Cell(1, 1)] = Piece(5)
    assert board[Cell(1, 1)] is None


def test_impossible_position_is_reported_not_raised():
    board = Board()
    board[Cell(0, 0)] = Piece(3)
    board[Cell(1, 1)] = Piece(3)
    assert board.status() == Status.DUPLICATE_PIECE
    assert not board.is_valid()
    assert Board().status() == Status.VALID


def test_board_rejects_non_pieces():
    with pytest.raises(TypeError):
        Board()[Cell(0, 0)] = 3  # type: ignore[assignment]
    with pytest.raises(ValueError):
        Board.from_codes([None] * 15)
