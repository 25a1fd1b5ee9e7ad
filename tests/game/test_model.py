import pytest

from tests.helpers import line_free_full_board
from vision.game.model import Game, IllegalMoveError
from vision.rules import ALL_CELLS, Cell, Piece
from vision.rules.lines import Rules

ROW1 = [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS")]


def play(game, moves, t0=0.0, dt=10.0):
    events = []
    for i, (name, sym) in enumerate(moves):
        events += game.place(Cell.from_name(name), Piece.from_symbol(sym), t0 + i * dt)
    return events


def types(events):
    return [e["type"] for e in events]


def test_quarto_announced_for_the_creating_move():
    game = Game()
    game.start(0.0)
    events = play(game, ROW1)
    assert types(events) == ["move"] * 4 + ["quarto"]
    quarto = events[-1]
    assert quarto["after_move"] == 4
    assert quarto["cells"] == [[0, 0], [0, 1], [0, 2], [0, 3]]
    assert quarto["shared"] == {"height": "short", "top": "solid"}
    assert quarto["t"] == 30.0
    assert game.claimable_lines and game.claimable_lines[0].line.name == "row 1"


def test_unclaimed_line_lapses_when_next_piece_is_placed_and_play_goes_on():
    game = Game()
    play(game, ROW1)
    events = game.place(Cell.from_name("a2"), Piece.from_symbol("LSTS"), 50.0)
    assert types(events) == ["quarto_missed", "move"]
    assert events[0]["after_move"] == 4
    assert events[1]["index"] == 5
    assert not game.claimable_lines
    # the old line is not re-announced by later moves that do not create it
    events = game.place(Cell.from_name("d4"), Piece.from_symbol("DSTH"), 60.0)
    assert types(events) == ["move"]
    assert game.end(70.0)[0]["result"] == "abandoned"


def test_new_line_later_is_a_new_event_and_two_lines_at_once():
    game = Game()
    play(game, [("a1", "LRSS"), ("b1", "LRTS"), ("c1", "LRSH"), ("a2", "LSSS"), ("a3", "LSTS")])
    events = game.place(Cell.from_name("a4"), Piece.from_symbol("LSTH"), 100.0)
    assert types(events) == ["move", "quarto"]  # column a: all light
    assert events[1]["after_move"] == 6
    # d1 completes row 1 (all light, all round): column a lapses, row 1 is a new Quarto
    events = game.place(Cell.from_name("d1"), Piece.from_symbol("LRTH"), 110.0)
    assert types(events) == ["quarto_missed", "move", "quarto"]
    assert events[0]["after_move"] == 6 and events[0]["cells"][0] == [0, 0]
    assert events[2]["after_move"] == 7 and events[2]["shared"] == {
        "color": "light",
        "shape": "round",
    }
    events = game.place(Cell.from_name("d4"), Piece.from_symbol("DSSH"), 120.0)
    assert types(events) == ["quarto_missed", "move"]


def test_one_move_creating_two_lines_gives_two_events():
    game = Game()
    play(
        game,
        [
            ("a1", "DRSS"),
            ("b1", "DRTS"),
            ("c1", "DRSH"),
            ("d2", "DSSS"),
            ("d3", "DSTS"),
            ("d4", "DSTH"),
        ],
    )
    events = game.place(Cell.from_name("d1"), Piece.from_symbol("DRTH"), 70.0)
    assert types(events) == ["move", "quarto", "quarto"]
    assert {tuple(e["cells"][0]) for e in events[1:]} == {(0, 0), (0, 3)}


def test_end_after_quarto_and_after_nothing():
    game = Game()
    play(game, ROW1)
    (end,) = game.end(45.0)
    assert end == {"type": "game_end", "t": 45.0, "result": "quarto", "moves": 4}
    assert game.over
    with pytest.raises(IllegalMoveError):
        game.place(Cell(3, 3), Piece(15), 50.0)
    assert game.end(50.0) == []


def test_draw_when_full_without_line():
    rules = Rules()
    board = line_free_full_board(3, rules)
    game = Game(rules)
    events = []
    for i, cell in enumerate(ALL_CELLS):
        events += game.place(cell, board[cell], float(i))
    assert types(events)[-1] == "game_end"
    assert events[-1]["result"] == "draw"
    assert "quarto" not in types(events)


def test_occupied_cell_is_refused_duplicate_piece_is_warned():
    game = Game()
    game.place(Cell(0, 0), Piece(1), 1.0)
    with pytest.raises(IllegalMoveError, match="a1 is already occupied"):
        game.place(Cell(0, 0), Piece(2), 2.0)
    events = game.place(Cell(1, 1), Piece(1), 3.0)
    assert types(events) == ["move", "warning"]
    assert game.status() != 0


def test_game_start_carries_cells():
    game = Game()
    (event,) = game.start(0.0, [(i, 2 * i) for i in range(16)])
    assert event["cells"][5] == {"row": 1, "col": 1, "name": "b2", "center_px": [5.0, 10.0]}
    with pytest.raises(ValueError):
        Game().start(0.0, [(0, 0)])


def test_undo_restores_claimable_lines():
    game = Game()
    play(game, ROW1)
    game.place(Cell.from_name("a2"), Piece.from_symbol("LSTS"), 50.0)
    (undo,) = game.undo(55.0)
    assert undo["type"] == "undo" and undo["index"] == 5
    assert len(game.moves) == 4
    assert game.claimable_lines
    with pytest.raises(IllegalMoveError):
        Game().undo(0.0)


def test_replay_gives_same_game():
    game = Game(Rules(advanced=True))
    game.start(0.0)
    play(game, [*ROW1, ("b2", "LSTS")])
    game.warn(60.0, "piece at c2 changed; kept the recorded piece")
    game.end(70.0)
    again = Game.replay(game.events, Rules(advanced=True))
    assert again.events == game.events
    assert again.board == game.board
    assert again.result == "abandoned"
    assert [m.piece for m in again.moves] == [m.piece for m in game.moves]


def test_adopted_pieces_raise_no_quarto_and_replay_the_same():
    game = Game()
    pieces = [(Cell.from_name(n), Piece.from_symbol(s)) for n, s in ROW1]
    events = game.adopt(pieces, 1.0)
    assert types(events) == ["game_start"] + ["move"] * 4
    assert not game.claimable_lines
    events = game.place(Cell.from_name("a2"), Piece.from_symbol("LSTS"), 2.0)
    assert types(events) == ["move"]  # the old row is not "missed": it was never claimable
    again = Game.replay(game.events)
    assert again.board == game.board and again.events == game.events
    assert not again.claimable_lines


def test_correction_swaps_pieces_raises_a_new_line_and_replays():
    game = Game()
    game.start(0.0)
    # c1 was misread as DRTH (tall); the real DRTH, placed later on a2, was pushed to DRSH
    play(game, [("a1", "LRSS"), ("b1", "DSSH"), ("c1", "DRTH"), ("a2", "DRSH"), ("d1", "LSSS")])
    assert not game.claimable_lines  # a1-d1 is not "all short" by the record
    with pytest.raises(IllegalMoveError):  # one cell alone would hold a piece twice
        game.correct({Cell.from_name("c1"): Piece.from_symbol("DRSH")}, 60.0, "re-read")
    events = game.correct(
        {Cell.from_name("c1"): Piece.from_symbol("DRSH"),
         Cell.from_name("a2"): Piece.from_symbol("DRTH")}, 60.0, "re-read")
    assert types(events) == ["correction", "correction", "quarto"]
    assert [e["index"] for e in events[:2]] == [3, 4]
    assert events[0]["was"] == Piece.from_symbol("DRTH").attributes
    assert events[2]["after_move"] == 5 and events[2]["t"] == 60.0
    assert events[2]["shared"] == {"height": "short"}
    assert [m.piece.symbol for m in game.moves] == ["LRSS", "DSSH", "DRSH", "DRTH", "LSSS"]
    assert game.correct({Cell.from_name("a1"): Piece.from_symbol("LRSS")}, 61.0, "x") == []
    with pytest.raises(IllegalMoveError):
        game.correct({Cell.from_name("d4"): Piece.from_symbol("DRTH")}, 62.0, "no move there")
    game.end(70.0)
    assert game.result == "quarto"
    again = Game.replay(game.events)
    assert again.board == game.board and again.events == game.events
    assert [m.piece for m in again.moves] == [m.piece for m in game.moves]
    with pytest.raises(IllegalMoveError):
        game.correct({Cell.from_name("a1"): Piece.from_symbol("DSTH")}, 71.0, "game over")
