"""The game scorer on hand-made truths: relabelled boards, misses, false alarms, latency."""

from vision.evaluation.games import score_game, summarize
from vision.game.model import Game
from vision.rules import ALL_CELLS, SYMMETRIES, Cell, Piece

MOVES = [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS"), ("a2", "LSTS")]


def centre(row, col):
    return [100.0 + 40 * col, 300.0 - 40 * row]


def truth():
    game = Game()
    game.start(0.0)
    moves = []
    for i, (name, sym) in enumerate(MOVES):
        cell = Cell.from_name(name)
        game.place(cell, Piece.from_symbol(sym), 5.0 * (i + 1))
        moves.append(
            {
                "index": i + 1,
                "row": cell.row,
                "col": cell.col,
                "name": name,
                "piece": Piece.from_symbol(sym).attributes,
                "t_hand_left": 5.0 * (i + 1),
            }
        )
    game.end(40.0)
    cells = [{"row": c.row, "col": c.col, "center_px": centre(c.row, c.col)} for c in ALL_CELLS]
    return {"cells": cells, "moves": moves, "events": game.events}


def watched(sym_index=0, delay=0.3, drop_quarto=False, extra_quarto=False, wrong_piece=False):
    """Events as the program would raise them, in its own (relabelled) cell names."""
    sym = SYMMETRIES[sym_index]
    game = Game()
    # our cell (r, c) is the truth's cell sym(r, c): its centre is where the truth's is
    cells = []
    for c in ALL_CELLS:
        tr, tc = sym(c.row, c.col)
        cells.append((c.row, c.col, centre(tr, tc)))
    inverse = {sym(c.row, c.col): (c.row, c.col) for c in ALL_CELLS}
    game.start(0.0, [p for _, _, p in cells])
    for i, (name, s) in enumerate(MOVES):
        t = Cell.from_name(name)
        ours = Cell(*inverse[(t.row, t.col)])
        piece = Piece.from_symbol(s)
        if wrong_piece and i == 2:
            piece = Piece(piece.code ^ 8)
        game.place(ours, piece, 5.0 * (i + 1) + delay)
    events = [e for e in game.events if not (drop_quarto and e["type"] == "quarto")]
    if extra_quarto:
        events.append(
            {
                "type": "quarto",
                "t": 33.0,
                "after_move": 5,
                "cells": [[1, 0], [1, 1], [1, 2], [1, 3]],
                "shared": {"color": "light"},
            }
        )
    return events + game.end(40.0)


def test_exact_game_under_relabelling():
    for k in range(4):  # the four rotations a camera can produce
        s = score_game(watched(sym_index=k), truth())
        assert s.moves_right, s.notes
        assert s.announced == [(4, True)]
        assert s.false_quartos == 0
        assert abs(s.latencies[0] - 0.3) < 1e-9
        assert s.result_right


def test_missed_line_false_alarm_and_wrong_piece_are_caught():
    s = score_game(watched(drop_quarto=True, extra_quarto=True, wrong_piece=True), truth())
    assert not s.moves_right and "move 3" in s.notes[0]
    assert s.announced == [(4, False)]
    assert s.false_quartos == 1
    total = summarize([s, score_game(watched(), truth())])
    assert total["moves_exact_rate"] == 0.5
    assert total["lines_announced_rate"] == 0.5
    assert total["false_quartos"] == 1


def test_a_corrected_move_counts_as_corrected():
    events = watched(wrong_piece=True)
    assert not score_game(events, truth()).moves_right
    wrong = next(e for e in events if e["type"] == "move" and e["index"] == 3)
    fix = {"type": "correction", "t": 20.0, "index": 3, "row": wrong["row"], "col": wrong["col"],
           "name": wrong["name"], "piece": Piece.from_symbol("LSSS").attributes,
           "was": wrong["piece"], "reason": "re-read"}
    assert score_game([*events, fix], truth()).moves_right


def test_an_undone_move_is_not_in_the_record():
    # A phantom recorded as move 3, withdrawn (undo), then the real moves from 3 on.
    real = watched()
    phantom = {"type": "move", "t": 14.0, "index": 3, "row": 3, "col": 3, "name": "d4",
               "piece": Piece.from_symbol("DRTH").attributes}
    undo = {"type": "undo", "t": 14.5, "index": 3, "name": "d4", "reason": "gone"}
    cut = next(i for i, e in enumerate(real) if e["type"] == "move" and e["index"] == 3)
    events = [*real[:cut], phantom, undo, *real[cut:]]
    assert score_game(events, truth()).moves_right
    assert not score_game([*real[:cut], phantom, *real[cut:]], truth()).moves_right
