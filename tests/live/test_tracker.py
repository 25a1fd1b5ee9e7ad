"""Frame-sequence tests: feed observations, compare the events and the frame they fire on."""

import numpy as np
import pytest

from tests.helpers import line_free_full_board
from vision.live.tracker import StateTracker, TrackerConfig, readings_from_pieces
from vision.read.observation import Observation
from vision.rules import Cell, Piece
from vision.rules.lines import Rules

FPS = 10.0
DT = 1.0 / FPS


class Feed:
    """Drives a tracker through a scripted scene at FPS frames per second."""

    def __init__(self, tracker=None):
        self.tracker = tracker or StateTracker()
        self.t = 0.0
        self.pieces = {}
        self.events = []

    def frames(self, seconds, *, busy=False, obs=None, change=None, covered=None,
               change_map=None, **kw):
        out = []
        for _ in range(round(seconds * FPS)):
            o = obs if obs is not None else readings_from_pieces(self.pieces, **kw)
            new = self.tracker.update(o, self.t, busy=busy, change=change, covered=covered,
                                      change_map=change_map)
            for e in new:
                e["_frame_t"] = self.t
            out += new
            self.t = round(self.t + DT, 6)
        self.events += out
        return out

    def place(self, name, symbol, *, hand_s=1.0, settle_s=1.0, **kw):
        self.frames(hand_s, busy=True)
        self.pieces[Cell.from_name(name)] = Piece.from_symbol(symbol)
        t_left = self.t
        return t_left, self.frames(settle_s, **kw)


def types(events):
    return [e["type"] for e in events]


def test_game_starts_on_empty_board_and_moves_commit_after_hand_leaves():
    feed = Feed()
    start = feed.frames(1.0)
    assert types(start) == ["game_start"]
    assert start[0]["_frame_t"] == pytest.approx(0.3)  # 0.25 s and 2 frames after the first
    assert len(start[0]["cells"]) == 16
    t_left, events = feed.place("b3", "DSSS")
    assert types(events) == ["move"]
    assert events[0]["name"] == "b3" and events[0]["index"] == 1
    assert events[0]["piece"] == {
        "color": "dark",
        "shape": "square",
        "height": "short",
        "top": "solid",
    }
    assert 0.2 <= events[0]["_frame_t"] - t_left <= 0.5


def test_busy_frames_never_commit_even_with_a_new_reading():
    feed = Feed()
    feed.frames(1.0)
    feed.pieces[Cell(0, 0)] = Piece(3)
    assert feed.frames(5.0, busy=True) == []
    assert types(feed.frames(1.0)) == ["move"]


def test_quarto_alert_latency_and_missed_line():
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS")]:
        feed.place(name, sym)
    t_left, events = feed.place("d1", "DSSS")
    assert types(events) == ["move", "quarto"]
    assert events[1]["after_move"] == 4
    assert events[1]["_frame_t"] - t_left <= 0.5
    _, events = feed.place("a4", "LRTH")
    assert types(events) == ["quarto_missed", "move"]


def test_hover_without_placing_and_nudge_give_no_event():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    before = len(feed.events)
    feed.frames(2.0, busy=True)  # hand hovers, leaves
    feed.frames(2.0)
    feed.frames(0.5, busy=True)  # hand nudges a1
    feed.frames(2.0)
    assert feed.events[before:] == []


def test_exclusion_decides_between_pieces_already_placed():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "DSTH")
    # c3 reads clearly dark, square, tall and weakly hollow: DSTH is on the board already, so
    # the only consistent unplayed piece is DSTS
    feed.frames(1.0, busy=True)
    c3 = Cell.from_name("c3")
    feed.pieces[c3] = Piece.from_symbol("DSTS")
    events = feed.frames(1.0, odds={c3: {"top": 0.6}})
    assert types(events) == ["move"]
    assert events[0]["piece"] == Piece.from_symbol("DSTS").attributes


def test_hidden_new_piece_is_recorded_by_elimination_with_a_warning_naming_the_cell():
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LSSS"), ("b3", "LSSH"), ("d4", "LSTS")]:
        feed.place(name, sym)
    # c2's top and height are out of sight: of the light square pieces only LSTH is left
    t_left, events = feed.place(
        "c2", "LSTH", settle_s=2.0, unknown={Cell.from_name("c2"): ["top", "height"]}
    )
    assert types(events) == ["warning", "move"]
    assert "c2" in events[0]["message"] and "height and top not seen" in events[0]["message"]
    assert events[1]["piece"] == {"color": "light", "shape": "square", "height": "tall",
                                  "top": "hollow"}
    assert events[1]["_frame_t"] - t_left <= 1.0


def test_changed_reading_of_recorded_piece_is_a_warning_not_a_change():
    # With corrections off, the record is kept (see tests/live/test_repair.py for the default)
    feed = Feed(StateTracker(config=TrackerConfig(repair_confidence=1.0)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.pieces[Cell.from_name("a1")] = Piece.from_symbol("DRSS")  # reader now says dark
    events = feed.frames(3.0)
    assert types(events) == ["warning"]
    assert "a1" in events[0]["message"] and "kept the recorded" in events[0]["message"]
    assert feed.tracker.game.board[Cell(0, 0)] == Piece.from_symbol("LRSS")


def test_missing_piece_warns_unless_hidden():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b2", "DRSS")
    del feed.pieces[Cell.from_name("a1")]
    hidden = feed.frames(3.0, visible={Cell.from_name("a1"): 0.1})
    assert hidden == []
    events = feed.frames(3.0)
    assert types(events) == ["warning"] and "a1" in events[0]["message"]


def test_board_cleared_ends_game_and_starts_a_new_one():
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS")]:
        feed.place(name, sym)
    feed.frames(2.0, busy=True)
    feed.pieces.clear()
    events = feed.frames(1.0)
    assert types(events) == ["game_end", "game_start"]
    assert events[0]["result"] == "quarto"
    _, events = feed.place("d4", "DSTH")
    assert types(events) == ["move"] and events[0]["index"] == 1


def test_full_board_without_line_is_a_draw():
    rules = Rules()
    board = line_free_full_board(11, rules)
    feed = Feed(StateTracker(rules))
    feed.frames(1.0)
    for cell, piece in board.items():
        feed.place(cell.name, piece.symbol)
    assert feed.events[-1]["type"] == "game_end" and feed.events[-1]["result"] == "draw"
    assert types(feed.events).count("move") == 16
    assert "quarto" not in types(feed.events)


def test_watching_begins_mid_game_takes_the_pieces_over_without_alerts():
    feed = Feed()
    # a full row of short pieces already stands there: a line, but no Quarto is raised for it
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS")]:
        feed.pieces[Cell.from_name(name)] = Piece.from_symbol(sym)
    assert feed.frames(1.0, obs=Observation.empty()) == []  # no board seen: time goes on
    assert feed.tracker.waiting_for_empty
    events = feed.frames(1.0)
    assert types(events) == ["game_start", "warning", "move", "move", "move", "move"]
    assert "4 piece(s)" in events[1]["message"]
    assert all(e["adopted"] for e in events[2:])
    assert not feed.tracker.waiting_for_empty
    _, events = feed.place("a2", "LSTH")
    assert types(events) == ["move"] and events[0]["index"] == 5


def test_after_a_game_the_next_starts_only_on_an_empty_board():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.tracker.finish(feed.t)  # e.g. the game was closed
    assert feed.frames(2.0) == []
    feed.pieces.clear()
    assert types(feed.frames(1.0)) == ["game_start"]


def test_finish_closes_game():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    (end,) = feed.tracker.finish(feed.t)
    assert end["result"] == "abandoned"
    assert feed.tracker.finish(feed.t) == []


@pytest.mark.parametrize("knob", ["min_stable_s", "missing_warn_s"])
def test_config_rejects_negative(knob):
    with pytest.raises(ValueError, match=knob):
        TrackerConfig(**{knob: -1.0})


def test_hidden_piece_is_committed_before_the_next_one_in_order():
    feed = Feed()
    feed.frames(1.0)
    feed.frames(1.0, busy=True)
    d4 = Cell.from_name("d4")
    feed.pieces[d4] = Piece.from_symbol("LSTH")
    hidden = {d4: ["top", "height"]}
    events = feed.frames(2.0, unknown=hidden)
    assert types(events) == ["warning", "move"] and events[1]["name"] == "d4"
    assert any("partly read" in e.get("message", "") or "not seen" in e.get("message", "")
               for e in events)
    _, events = feed.place("a1", "DRSS", unknown=hidden)
    assert [e["name"] for e in events if e["type"] == "move"] == ["a1"]
    assert not any("at once" in e.get("message", "") for e in events)


def _with_occupancy(obs, cell, p):
    """``obs`` with ``cell`` read as occupied with probability ``p`` (attributes kept)."""
    import dataclasses

    cells = list(obs.cells)
    cells[cell.index] = dataclasses.replace(cells[cell.index], occupied_probability=p)
    return Observation(tuple(cells), obs.board_view)


def test_half_seen_cell_arriving_with_a_clear_piece_is_no_move():
    # A tall piece placed on b2 half covers b3 behind it, which then reads ~0.6 occupied:
    # one piece arrives per turn, so b2 is the move and b3 stays doubtful while it reads so.
    feed = Feed()
    feed.frames(1.0)
    b2, b3 = Cell.from_name("b2"), Cell.from_name("b3")
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("LRTH")
    phantom = _with_occupancy(readings_from_pieces(feed.pieces), b3, 0.6)
    events = feed.frames(3.0, obs=phantom)
    assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]
    assert not any("b3" in e.get("message", "") for e in events)
    # the recorded piece on b2, now read at 0.6, is still there: no warning, no new game
    dim = _with_occupancy(readings_from_pieces(feed.pieces), b2, 0.6)
    assert types(feed.frames(3.0, obs=dim)) == []
    # a weakly read piece that arrives alone is taken (nothing is lost)
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("c1")] = Piece.from_symbol("DSSS")
    alone = _with_occupancy(readings_from_pieces(feed.pieces), Cell.from_name("c1"), 0.6)
    assert types(feed.frames(2.0, obs=alone)) == ["move"]
    with pytest.raises(ValueError, match="new_piece_probability"):
        TrackerConfig(new_piece_probability=0.3)
    with pytest.raises(ValueError, match="sure_piece_probability"):
        TrackerConfig(sure_piece_probability=0.6)  # below new_piece_probability


def test_weakly_read_piece_is_committed_soon_and_its_line_announced():
    # d1's top is read weakly (every attribute seen): waiting in a still scene would not
    # help, and the line a1-d1 (all dark) does not depend on the top.
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "DRSS"), ("b1", "DRTH"), ("c1", "DSSH")]:
        feed.place(name, sym)
    weak = {Cell.from_name("d1"): {"top": 0.6}}
    t_left, events = feed.place("d1", "DSTH", settle_s=2.0, odds=weak)
    assert types(events) == ["warning", "move", "quarto"]
    assert "only partly read" in events[0]["message"]
    assert events[2]["_frame_t"] - t_left <= 1.0
    assert events[1]["piece"]["color"] == "dark"


@pytest.mark.parametrize("p_occupied, moves", [(0.97, ["c3", "d4"]), (0.77, ["d4"])])
def test_a_cell_that_turns_occupied_without_a_hand_is_a_flicker_not_a_move(p_occupied, moves):
    # On a still scene a re-read sees c3 occupied (a reading crossing 0.5): no move. After
    # the next hand it is taken with the hand's own piece only if it reads surely (a piece
    # put there), not at 0.77 (the top of a tall piece in front, say).
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    c3 = Cell.from_name("c3")
    feed.pieces[c3] = Piece.from_symbol("DSTH")

    def reading():
        return _with_occupancy(readings_from_pieces(feed.pieces), c3, p_occupied)

    assert types(feed.frames(3.0, obs=reading())) == []
    feed.tracker.view_moved()  # (a steady view would hold c3 back as a second arrival)
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d4")] = Piece.from_symbol("DRSS")
    events = feed.frames(2.0, obs=reading())
    assert sorted(e["name"] for e in events if e["type"] == "move") == moves


def test_flicker_threshold_is_validated():
    with pytest.raises(ValueError, match="flicker_piece_probability"):
        TrackerConfig(flicker_piece_probability=0.2)


def _echo_of(feed, cell, source, p_occupied=0.93, board_view=None):
    """The readings of ``feed.pieces`` plus ``cell`` read as the piece on ``source`` (a
    neighbour that sees its body), less surely occupied (but as surely as a piece of its
    own could be: ``sure_piece_probability``)."""
    pieces = dict(feed.pieces)
    pieces[cell] = feed.pieces[source]
    obs = readings_from_pieces(pieces, board_view=board_view)
    return _with_occupancy(obs, cell, p_occupied)


def test_a_cell_that_reads_like_the_arriving_piece_is_its_echo_not_a_move():
    # A tall piece placed on b2 is seen again from b3 (its body fills b3's view): b3 reads
    # occupied and like the same piece. One piece arrives per turn: b2 is the move, b3 is
    # held back with a warning. A later hand that brings nothing else puts a piece on b3,
    # which is then taken with its own reading.
    feed = Feed()
    feed.frames(1.0)
    b2, b3 = Cell.from_name("b2"), Cell.from_name("b3")
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    events = feed.frames(2.0, obs=_echo_of(feed, b3, b2))
    assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]
    assert any("b3" in e.get("message", "") and "not taken" in e.get("message", "")
               for e in events)
    assert types(feed.frames(2.0, obs=_echo_of(feed, b3, b2))) == []  # still held
    # the next hand brings a piece to c1: b3 stays held
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("c1")] = Piece.from_symbol("LSSS")
    events = feed.frames(2.0, obs=_echo_of(feed, b3, b2))
    assert [e["name"] for e in events if e["type"] == "move"] == ["c1"]
    # a hand puts a piece on b3 itself and nothing else is new: b3 is taken
    _, events = feed.place("b3", "LRSH")
    moves = [e for e in events if e["type"] == "move"]
    assert [e["name"] for e in moves] == ["b3"] and moves[0]["piece"]["top"] == "hollow"


def test_a_line_completed_where_an_echo_stood_is_judged_on_the_new_piece():
    # d1 first shows the echo of a tall hollow piece placed on c2, for a few seconds. Then
    # the last piece of a row of short solid pieces lands on d1 itself. What d1 showed
    # before was not this piece, so it must not make the new line look doubtful.
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS")]:
        feed.place(name, sym)
    c2, d1 = Cell.from_name("c2"), Cell.from_name("d1")
    feed.frames(1.0, busy=True)
    feed.pieces[c2] = Piece.from_symbol("DSTH")
    events = []
    for _ in range(20):  # a settled scene is re-read every 0.5 s, as the session does
        events += feed.frames(0.5, obs=_echo_of(feed, d1, c2))
    assert [e["name"] for e in events if e["type"] == "move"] == ["c2"]
    feed.frames(1.0, busy=True, obs=_echo_of(feed, d1, c2))  # the echo stays till the hand
    feed.pieces[d1] = Piece.from_symbol("DSSS")
    t_left = feed.t
    events = feed.frames(1.0)
    assert types(events)[:2] == ["move", "quarto"], events
    assert events[1]["_frame_t"] - t_left <= 0.5


def test_two_unlike_pieces_arriving_together_after_the_view_moved_are_both_taken():
    # A settle missed (the camera was bumped, or covered for two turns): two different pieces
    # appear at once. Neither is an echo of the other, so both are moves (order a guess).
    feed = Feed()
    feed.frames(1.0)
    feed.tracker.view_moved()
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("b2")] = Piece.from_symbol("DSTS")
    feed.pieces[Cell.from_name("b3")] = Piece.from_symbol("LRSH")
    events = feed.frames(2.0)
    assert sorted(e["name"] for e in events if e["type"] == "move") == ["b2", "b3"]
    assert any("at once" in e.get("message", "") for e in events)


def test_two_pieces_one_attribute_apart_arriving_together_are_both_taken():
    # After a camera bump a settle was missed and two real pieces that differ only in shape
    # appeared at once (fresh game 955017): no piece stands twice, so neither is an echo.
    feed = Feed()
    feed.frames(1.0)
    feed.tracker.view_moved()
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("b2")] = Piece.from_symbol("LSSH")
    feed.pieces[Cell.from_name("d4")] = Piece.from_symbol("LRSH")
    events = feed.frames(2.0)
    assert sorted(e["name"] for e in events if e["type"] == "move") == ["b2", "d4"]


def _two_new_at_once(feed):
    """After a1, one hand visit leaves b2 (DSTS) and b3 (LRSH, read 0.9 occupied) new at
    once on a steady view; the events of that settle."""
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    b2, b3 = Cell.from_name("b2"), Cell.from_name("b3")
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    feed.pieces[b3] = Piece.from_symbol("LRSH")
    return feed.frames(2.0, obs=_with_occupancy(readings_from_pieces(feed.pieces), b3, 0.9))


def test_with_a_steady_view_one_hand_brings_one_piece():
    # No bump since the last settle: one hand brought one piece, so a second new cell is held
    # back whatever it reads as (a neighbour seeing part of the new piece can read as
    # another piece), and taken after a hand that brings nothing else.
    feed = Feed()
    events = _two_new_at_once(feed)
    assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]
    assert any("b3" in e.get("message", "") and "not taken" in e.get("message", "")
               for e in events)
    feed.frames(1.0, busy=True)  # a hand that brings nothing else
    events = feed.frames(2.0)
    assert [e["name"] for e in events if e["type"] == "move"] == ["b3"]


def test_a_held_cell_can_be_asked_to_read_otherwise_before_it_is_taken():
    # With min_release_differences=1, a hand that only nudges or hovers (the held cell reads
    # as before) does not make it a move; a piece put there (read otherwise) does.
    feed = Feed(StateTracker(config=TrackerConfig(min_release_differences=1)))
    _two_new_at_once(feed)
    b3 = Cell.from_name("b3")
    feed.frames(1.0, busy=True)  # a nudge: b3 reads as before
    assert [e for e in feed.frames(2.0) if e["type"] == "move"] == []
    feed.frames(1.0, busy=True)  # a piece put on b3: it reads otherwise
    feed.pieces[b3] = Piece.from_symbol("DRTH")
    moves = [e for e in feed.frames(2.0) if e["type"] == "move"]
    assert [e["name"] for e in moves] == ["b3"] and moves[0]["piece"]["color"] == "dark"


def test_a_held_back_cell_seen_empty_is_forgotten():
    feed = Feed()
    feed.frames(1.0)
    b2, b3 = Cell.from_name("b2"), Cell.from_name("b3")
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    feed.frames(2.0, obs=_echo_of(feed, b3, b2))
    feed.frames(1.0)  # the echo goes (the light changed): b3 seen empty
    # a hover (a hand that brings nothing) must not now make a move of b3
    feed.frames(1.0, busy=True)
    feed.frames(2.0)
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["b2"]


def _view(elevation=35.0, azimuth=20.0):
    from tests.locate.synth import make_view

    return make_view(elevation, azimuth)


def _behind(view, cell, sign=1.0):
    """The neighbour of ``cell`` farthest from the camera (its view crosses the piece), or
    with ``sign`` -1 the nearest (the piece cannot cover it; its shadow can fall there)."""
    import numpy as np

    foot = np.asarray(view.camera.pose.camera_center)[:2]
    here = view.spec.cell_center(cell)
    away = here - foot
    near = [Cell(cell.row + dr, cell.col + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= cell.row + dr < 4 and 0 <= cell.col + dc < 4]
    return max(near, key=lambda c: sign * float(np.dot(view.spec.cell_center(c) - here, away)))


def _a_cell_and_the_one_behind(name):
    """A view, the cell ``name`` and its neighbour behind it, which can see a piece on the
    cell while the cell cannot see one behind it (:func:`can_echo`)."""
    from vision.live.arrivals import can_echo

    view = _view()
    cell = Cell.from_name(name)
    behind = _behind(view, cell)
    config = TrackerConfig()
    assert can_echo(view, behind, cell, config) and not can_echo(view, cell, behind, config)
    return view, cell, behind


@pytest.mark.parametrize("p_front, moves", [(0.84, 1), (0.95, 2)])
def test_beside_a_surely_read_piece_a_new_cell_must_read_as_surely(p_front, moves):
    # Fresh game 1017001: the first piece, read 0.99 occupied, cast its shadow on the cell in
    # front of it, which read 0.84 occupied as a dark piece. That cell cannot see the piece,
    # so it is no echo, and it was taken as a second move. One hand brings one piece, and a
    # second piece (a missed settle) reads as surely as the first: at 0.84 the cell waits.
    view = _view()
    c2 = Cell.from_name("c2")
    front = _behind(view, c2, sign=-1.0)
    feed = Feed()
    feed.frames(1.0, board_view=view)
    feed.frames(1.0, busy=True)
    feed.pieces[c2] = Piece.from_symbol("LSTH")
    feed.pieces[front] = Piece.from_symbol("DSTS")
    obs = _with_occupancy(readings_from_pieces(feed.pieces, board_view=view), front, p_front)
    obs = _with_occupancy(obs, c2, 0.99)
    events = feed.frames(2.0, obs=obs)
    taken = [e["name"] for e in events if e["type"] == "move"]
    assert len(taken) == moves and c2.name in taken


def test_only_a_cell_that_can_see_the_piece_can_echo_it():
    from vision.live.arrivals import can_echo

    view, config = _view(), TrackerConfig()
    b2 = Cell.from_name("b2")
    assert can_echo(view, _behind(view, b2), b2, config)
    corners = [Cell.from_name(n) for n in ("a1", "d1", "a4", "d4")]
    pairs = [(a, b) for a in corners for b in corners if a != b]
    # from 35 degrees a tall piece reaches over a cell or two behind it, not across the board
    assert sum(can_echo(view, a, b, config) for a, b in pairs) <= 2
    # seen from straight above, a piece covers only its own cell's surroundings
    top = _view(89.0, 0.0)
    assert not any(can_echo(top, a, b, config) for a, b in pairs)


def test_two_turns_without_a_settle_between_them_are_both_taken():
    # Two hands came and went with no settled frame between them (a quick player, a lamp
    # switched on): d4 and then b2, across the board, are new in one settle on a steady view.
    # Neither can be an echo of the other (a cell's footprint does not meet the other's piece
    # in the image), so both are moves; a cell right behind a new piece is still held back
    # as its echo.
    view = _view()
    feed = Feed()
    feed.frames(1.0, board_view=view)
    feed.place("a1", "LRSS", board_view=view)
    b2, d4, c1 = Cell.from_name("b2"), Cell.from_name("d4"), Cell.from_name("c1")
    feed.frames(1.0, busy=True)
    feed.pieces[d4] = Piece.from_symbol("LRSH")
    feed.frames(0.2, board_view=view)  # a calm moment too short to settle
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    events = feed.frames(2.0, board_view=view)
    # both taken, in the order they were first seen standing (d4 in the calm moment)
    assert [e["name"] for e in events if e["type"] == "move"] == ["d4", "b2"]
    behind = _behind(view, c1)
    assert behind not in feed.pieces
    feed.frames(1.0, busy=True)
    feed.pieces[c1] = Piece.from_symbol("DRTS")
    events = feed.frames(2.0, obs=_echo_of(feed, behind, c1, board_view=view))
    assert [e["name"] for e in events if e["type"] == "move"] == ["c1"]
    assert any(behind.name in e.get("message", "") and "not taken" in e.get("message", "")
               for e in events)


def test_the_arrival_is_the_cell_no_other_new_piece_explains():
    # A tall piece placed on c1 is also seen from the cell behind it, read at least as
    # surely occupied (fresh game 1002017: both at the top of the scale, and the echo was
    # taken as the move). The cell behind can be an echo of c1's piece, c1 cannot be an echo
    # of anything standing behind it: c1 is the move, the cell behind is held back.
    view, c1, behind = _a_cell_and_the_one_behind("c1")
    feed = Feed()
    feed.frames(1.0, board_view=view)
    feed.frames(1.0, busy=True)
    feed.pieces[c1] = Piece.from_symbol("DRTS")
    events = feed.frames(2.0, obs=_echo_of(feed, behind, c1, p_occupied=0.999,
                                            board_view=view))
    assert [e["name"] for e in events if e["type"] == "move"] == ["c1"]
    assert any(behind.name in e.get("message", "") and "not taken" in e.get("message", "")
               for e in events)


def test_two_unalike_pieces_in_one_settle_are_both_taken_though_one_stands_behind():
    # A settle was missed (fresh game 1003009): a piece on c1 and another on the cell behind
    # it arrive in one settle and read as pieces four attributes apart, the one behind more
    # surely occupied. Neither reads like an echo of the other, so both are moves.
    view = _view()
    c1 = Cell.from_name("c1")
    behind = _behind(view, c1)
    feed = Feed()
    feed.frames(1.0, board_view=view)
    feed.frames(1.0, busy=True)
    feed.pieces[c1] = Piece.from_symbol("DRTS")
    feed.pieces[behind] = Piece.from_symbol("LSSH")
    obs = _with_occupancy(readings_from_pieces(feed.pieces, board_view=view), behind, 0.999)
    events = feed.frames(2.0, obs=obs)
    assert sorted(e["name"] for e in events if e["type"] == "move") == sorted([c1.name,
                                                                              behind.name])


def _phantom_then_piece(knob, scores, p_after=0.85):
    """c1, mostly hidden (0.05 in view), reads 0.62 occupied with no hand (a phantom of a
    nearer piece, set aside as a flicker); then a hand puts a tall piece on c1: c1 reads
    ``p_after`` and the cell behind it, which sees the new piece, turns occupied reading it
    (0.94), and the image changed by ``scores`` (c1, behind). Returns the moves taken and
    the events of that settle."""
    view, c1, behind = _a_cell_and_the_one_behind("c1")
    feed = Feed(StateTracker(config=TrackerConfig(phantom_arrival_in_front=knob)))
    feed.frames(1.0, board_view=view)
    feed.place("a4", "LRSS", board_view=view)
    hidden = {c1: 0.05}
    phantom = readings_from_pieces({**feed.pieces, c1: Piece.from_symbol("LRSS")},
                                   visible=hidden, board_view=view)
    assert not [e for e in feed.frames(2.0, obs=_with_occupancy(phantom, c1, 0.62))
                if e["type"] == "move"]
    feed.frames(1.0, busy=True)
    feed.pieces[c1] = Piece.from_symbol("DRTS")
    seen = readings_from_pieces({**feed.pieces, behind: feed.pieces[c1]}, visible=hidden,
                                board_view=view)
    obs = _with_occupancy(_with_occupancy(seen, behind, 0.94), c1, p_after)
    change = {c1: scores[0], behind: scores[1]}
    events = feed.frames(2.0, obs=obs, change=change)
    return [e["name"] for e in events if e["type"] == "move"], events, c1, behind


@pytest.mark.parametrize("knob, scores, p_after, arrival", [
    (True, (0.79, 0.70), 0.85, "front"),  # the phantom rose and the change fits it best
    (False, (0.79, 0.70), 0.85, "behind"),  # knob off: the phantom stays a flicker
    (True, (0.60, 0.75), 0.85, "behind"),  # the change fits the cell behind better
    (True, (0.20, 0.15), 0.85, "behind"),  # a sliver changed: no whole piece on c1
    (True, (0.79, 0.70), 0.64, "behind"),  # c1's reading did not rise: its phantom as before
])
def test_a_phantom_in_front_of_a_fresh_cell_is_the_move_when_it_rose_and_fits_the_change(
        knob, scores, p_after, arrival):
    # Low-angle dev game 3028010 (35 degrees) move 8: c2, mostly hidden, had read 0.6
    # occupied for turns (a phantom of the tall piece in front of it, set aside). A tall
    # piece put on c2 took it to 0.85 (0.05 in view), while d2 behind it, which sees that
    # piece, went 0.02 -> 0.94; the image changed on c2 at 0.79 and on d2 at 0.70. Only
    # d2 was fresh, so d2 was taken, and its own piece three turns later was lost.
    moves, events, c1, behind = _phantom_then_piece(knob, scores, p_after)
    assert moves == [c1.name if arrival == "front" else behind.name]
    if arrival == "front":
        assert any(behind.name in e.get("message", "") and "not taken" in e.get("message", "")
                   for e in events)


@pytest.mark.parametrize("knob, score, moved", [
    (True, 0.03, False),  # in view, read weakly, the image unchanged there: no piece
    (False, 0.03, True),  # knob off: taken once it has waited (a weak piece)
    (True, 0.5, True),  # the image changed there as a piece would: the move
    (True, None, True),  # the change not measured: as before
])
def test_a_weak_cell_in_view_where_the_image_did_not_change_is_no_move(knob, score, moved):
    # Fresh game 1029009 (35 degrees) move 3: a short piece put wholly behind a tall one;
    # b2 beside it, 83% in view, went 0.31 -> 0.66 occupied (its shadow), the image's
    # change on b2 0.03, and b2 was taken: the right piece on the wrong cell, and b2's own
    # piece five turns later was lost.
    feed = Feed(StateTracker(config=TrackerConfig(weak_in_view_needs_change=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    b2 = Cell.from_name("b2")
    feed.frames(1.0, busy=True)
    obs = readings_from_pieces({**feed.pieces, b2: Piece.from_symbol("DRSS")},
                               visible={b2: 0.83})
    change = None if score is None else {b2: score, Cell.from_name("c3"): 0.0}
    events = feed.frames(6.0, obs=_with_occupancy(obs, b2, 0.66), change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == (["b2"] if moved else [])
    if not moved:
        # b2's own piece comes later, read surely: taken then
        feed.frames(1.0, busy=True)
        feed.pieces[b2] = Piece.from_symbol("DSTS")
        events = feed.frames(2.0, change={b2: 0.7})
        assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]


@pytest.mark.parametrize("knob, scores, moves", [
    (True, (0.6, 0.0), ["d4"]),  # the image changed on d4 alone: b2 is no second piece
    (False, (0.6, 0.0), ["b2", "d4"]),  # knob off: taken as a missed settle's piece
    (True, (0.6, 0.4), ["b2", "d4"]),  # the image changed on both: two pieces
    (True, None, ["b2", "d4"]),  # not measured: as before
])
def test_a_cell_new_beside_the_arrival_where_the_image_did_not_change_is_no_second_piece(
        knob, scores, moves):
    # Five settles of 195 recorded games (1023017, 1024008, 1026017, 1029009, 3028030): a
    # cell set aside as a phantom, or standing unrecorded, read surely occupied in the
    # settle where the hand's piece showed across the board; the image changed on it at
    # 0.00-0.04 (on the arrival 0.49-0.84), and it was taken as a second move. In all five
    # the hand brought one piece.
    view = _view()
    feed = Feed(StateTracker(config=TrackerConfig(unchanged_co_arrival_is_echo=knob)))
    feed.frames(1.0, board_view=view)
    feed.place("a1", "LRSS", board_view=view)
    b2, d4 = Cell.from_name("b2"), Cell.from_name("d4")
    phantom = readings_from_pieces({**feed.pieces, b2: Piece.from_symbol("DSTS")},
                                   board_view=view)
    feed.frames(1.0, obs=_with_occupancy(phantom, b2, 0.8))  # a flicker, set aside
    feed.frames(1.0, busy=True)
    feed.pieces[d4] = Piece.from_symbol("LRSH")
    obs = readings_from_pieces({**feed.pieces, b2: Piece.from_symbol("DSTS")}, board_view=view)
    change = None if scores is None else {d4: scores[0], b2: scores[1]}
    events = feed.frames(2.0, obs=_with_occupancy(obs, b2, 0.95), change=change)
    assert sorted(e["name"] for e in events if e["type"] == "move") == moves



@pytest.mark.parametrize("knob, scores, moves", [
    (True, (0.0, 0.67), ["a4", "d1", "d4"]),  # the two sure cells did not change: missed turns
    (False, (0.0, 0.67), ["a4", "d1"]),  # knob off: d4 set aside beside them, and lost
    (True, (0.6, 0.3), ["a4", "d1"]),  # a sure cell changed: this hand's piece, d4 beside it
    (True, None, ["a4", "d1"]),  # not measured: as before
])
def test_a_weak_cell_the_image_changed_on_beside_unchanged_sure_ones_is_the_move(
        knob, scores, moves):
    # Fresh game 1031018 (45 degrees, a lamp switched on): the motion gate stayed busy over
    # two turns, then rebased during a third. In the settle after it, the two missed pieces
    # read 0.99+ occupied with no change over the turn (they stood there before the hand),
    # and the third, a4 behind a tall piece, 0.86 with change 0.67 (no other cell over 0.0):
    # set aside as doubtful beside the surer ones, it was lost and its line not announced.
    view = _view()
    feed = Feed(StateTracker(config=TrackerConfig(changed_beside_unchanged=knob)))
    feed.frames(1.0, board_view=view)
    feed.place("a1", "LRSS", board_view=view)
    feed.frames(1.0, busy=True)
    a4, d1, d4 = Cell.from_name("a4"), Cell.from_name("d1"), Cell.from_name("d4")
    feed.pieces[a4] = Piece.from_symbol("DRTS")
    feed.pieces[d1] = Piece.from_symbol("LSTH")
    feed.pieces[d4] = Piece.from_symbol("DSSS")
    obs = _with_occupancy(readings_from_pieces(feed.pieces, board_view=view), d4, 0.86)
    change = None if scores is None else {a4: scores[0], d1: 0.0, d4: scores[1]}
    events = feed.frames(2.0, obs=obs, change=change)
    assert sorted(e["name"] for e in events if e["type"] == "move") == moves


def _hidden_feed():
    """a1 and b2 recorded; then a hand puts a piece on c1, mostly hidden: c1 reads 0.2
    occupied where it read 0.03 before the hand, seen a third."""
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b2", "DSTH")
    c1 = Cell.from_name("c1")
    feed.frames(1.0, visible={c1: 0.3})
    feed.frames(1.0, busy=True)
    return feed, c1


def test_a_turn_that_shows_no_new_piece_takes_the_one_hidden_cell_that_changed():
    feed, c1 = _hidden_feed()
    obs = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, 0.2)
    events = feed.frames(1.0, obs=obs)
    moves = [e for e in events if e["type"] == "move"]
    assert [m["name"] for m in moves] == ["c1"]
    assert any("only c1 changed" in e.get("message", "") for e in events)
    # The piece recorded for c1 is a guess. A later piece that reads clearly as that very
    # piece takes it, and c1's guess gives way (a correction, with a warning).
    guess = Piece.from_attributes(moves[0]["piece"])
    _, later = feed.place("d4", guess.symbol, visible={c1: 0.3})  # c1 still hidden
    assert [e["name"] for e in later if e["type"] == "move"] == ["d4"]
    assert next(e for e in later if e["type"] == "move")["piece"] == moves[0]["piece"]
    fixes = [e for e in later if e["type"] == "correction"]
    assert [e["name"] for e in fixes] == ["c1"] and fixes[0]["was"] == moves[0]["piece"]


@pytest.mark.parametrize("earlier_square, later_square, traded", [
    (0.45, 0.25, True),  # a coin toss on a1, a fair lean on d4: the two trade
    (0.30, 0.40, False),  # a1 leans round more than d4 does: a1 keeps its piece
])
def test_a_weak_guess_trades_with_a_later_piece_that_reads_more_like_it(
        earlier_square, later_square, traded):
    # Fresh game 1016016: a1's piece, light square short solid, read nearly as round as
    # square and was recorded as the round one. The round one came later to d4 and read
    # round, though not by the decision margin; with the round piece taken it was recorded
    # square, and the two stayed swapped. Decided by both cells' readings together, d4 takes
    # the round piece and a1 the square one (a correction, with a warning).
    feed = Feed()
    feed.frames(1.0)
    a1, d4 = Cell.from_name("a1"), Cell.from_name("d4")
    _, first = feed.place("a1", "LSSS", odds={a1: {"shape": earlier_square}})
    assert [e["piece"]["shape"] for e in first if e["type"] == "move"] == ["round"]
    _, later = feed.place("d4", "LRSS", settle_s=2.0,
                          odds={a1: {"shape": earlier_square}, d4: {"shape": later_square}})
    board = feed.tracker.game.board
    fixes = [e for e in later if e["type"] == "correction"]
    if traded:
        assert [e["name"] for e in fixes] == ["a1"]
        assert (board[a1], board[d4]) == (Piece.from_symbol("LSSS"), Piece.from_symbol("LRSS"))
        assert any("trade places" in e.get("message", "") for e in later)
    else:
        assert fixes == []
        assert (board[a1], board[d4]) == (Piece.from_symbol("LRSS"), Piece.from_symbol("LSSS"))


@pytest.mark.parametrize("knob", [True, False])
def test_a_guess_gives_way_to_its_own_likeliest_piece_when_a_later_one_reads_as_it(knob):
    # Held-out game 1037001 (30.7 degrees): c3's dark square short solid, a third in view,
    # read nearly as round as square and was recorded dark round. That piece came later
    # to b4 and read so in full view, but with it taken b4 was recorded as the light one
    # (its colour the least sure attribute). The plain trade would give c3 the light piece,
    # against its sure dark reading, so none was made; c3's own likeliest unplayed piece,
    # its true one, was free (``trade_guess_own_best``).
    feed = Feed(StateTracker(config=TrackerConfig(trade_guess_own_best=knob)))
    feed.frames(1.0)
    a1, d4 = Cell.from_name("a1"), Cell.from_name("d4")
    seen = {a1: 0.3}  # under min_visible_fraction: no repair re-reads a1
    _, first = feed.place("a1", "DSSS", odds={a1: {"shape": 0.45}}, visible=seen)
    assert [e["piece"]["shape"] for e in first if e["type"] == "move"] == ["round"]
    _, later = feed.place("d4", "DRSS", settle_s=2.0, visible=seen,
                          odds={a1: {"shape": 0.45}, d4: {"color": 0.9}})
    board = feed.tracker.game.board
    fixes = [e for e in later if e["type"] == "correction"]
    if knob:
        assert [e["name"] for e in fixes] == ["a1"]
        assert (board[a1], board[d4]) == (Piece.from_symbol("DSSS"), Piece.from_symbol("DRSS"))
    else:
        assert fixes == []
        assert (board[a1], board[d4]) == (Piece.from_symbol("DRSS"), Piece.from_symbol("LRSS"))


@pytest.mark.parametrize("rise, moved", [(1.5, True), (2.0, False)])
def test_a_hidden_cell_that_already_read_partly_occupied_can_still_be_the_move(rise, moved):
    # Fresh game 1014017: the cell behind a tall piece read 0.14 occupied (part of it seen
    # past the piece); a tall piece put there read 0.49, a rise of 1.8 nats, and no other
    # free cell changed.
    feed = Feed(StateTracker(config=TrackerConfig(hidden_arrival_min_rise=rise)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b2", "DSTH")
    c1 = Cell.from_name("c1")
    before = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, 0.14)
    feed.frames(1.0, obs=before)
    feed.frames(1.0, busy=True)
    after = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, 0.49)
    events = feed.frames(1.0, obs=after)
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])


@pytest.mark.parametrize("case", ["visible", "two", "small"])
def test_no_hidden_move_when_the_change_is_seen_shared_or_small(case):
    feed, c1 = _hidden_feed()
    c2 = Cell.from_name("c2")
    visible = {c1: 0.9 if case == "visible" else 0.3, c2: 0.3}
    obs = readings_from_pieces(feed.pieces, visible=visible)
    obs = _with_occupancy(obs, c1, 0.08 if case == "small" else 0.2)
    if case == "two":
        obs = _with_occupancy(obs, c2, 0.2)
    events = feed.frames(1.0, obs=obs)
    assert [e for e in events if e["type"] == "move"] == []


@pytest.mark.parametrize("scores, moved", [
    ({"c1": 0.6, "c2": 0.05}, True),  # the image's change is c1's piece alone
    ({"c1": 0.6, "c2": 0.4}, False),  # c2 would explain it nearly as well
    ({"c1": 0.05}, False),  # next to nothing changed: a hand that hovered
    (None, False),  # not measured
])
def test_a_piece_seen_unsurely_is_the_move_when_the_image_changed_there_alone(scores, moved):
    # Game 1016002: a short piece put behind a tall one, its top showing, read 0.10
    # occupied (0.01 before the hand) at 0.6 in view: too much in view for a hidden piece,
    # too unsure for a new one. What changed in the image tells the move.
    feed, c1 = _hidden_feed()
    c2 = Cell.from_name("c2")
    obs = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.6}), c1, 0.2)
    change = None if scores is None else {Cell.from_name(k): v for k, v in scores.items()}
    if change is not None:
        change.setdefault(c2, 0.0)
    events = feed.frames(1.0, obs=obs, change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])
    if moved:
        assert any("only c1 changed" in e.get("message", "") for e in events)


def _turn_beside_phantom(feed, name, symbol, phantom, **frames):
    """A hand puts ``symbol`` on ``name``; ``phantom`` (0.4 in view) reads 0.8 occupied."""
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name(name)] = Piece.from_symbol(symbol)
    obs = _with_occupancy(readings_from_pieces(feed.pieces, visible={phantom: 0.4}), phantom, 0.8)
    return feed.frames(frames.pop("seconds", 1.0), obs=obs, **frames)


@pytest.mark.parametrize("scores, knob, moved", [
    ({"c1": 0.6, "d4": 0.0}, True, True),  # the image changed on c1 alone: its piece
    ({"c1": 0.6, "d4": 0.0}, False, False),  # knob off: c1 is still a doubtful cell
    ({"c1": 0.6, "d4": 0.4}, True, False),  # d4 would explain the change nearly as well
    ({"c1": 0.2, "d4": 0.0}, True, False),  # a sliver: a neighbour nudged, not a piece
    ({"c1": 0.05, "d4": 0.0}, True, False),  # next to nothing changed: a hand that hovered
    (None, True, False),  # not measured
])
def test_a_doubtful_cell_is_the_move_when_the_image_changed_there_alone(scores, knob, moved):
    # Fresh game 1028002 (41 degrees): when a tall piece came to b2, c1 behind it read 0.8
    # occupied (part of b2 seen above c1's footprint) and was set aside as doubtful beside
    # the clear new piece. Turns later a short piece was put on c1: c1 still read 0.8 (it
    # could not rise), no cell read occupied anew, and the move was lost; the game ended
    # "abandoned" with 15 moves. The image changed over that turn on c1 alone (0.62, every
    # other cell 0.00).
    feed = Feed(StateTracker(config=TrackerConfig(change_arrival_weak=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    c1 = Cell.from_name("c1")
    events = _turn_beside_phantom(feed, "b2", "DSTH", c1)
    assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]
    # another turn: c1 stays doubtful, reading as it did
    events = _turn_beside_phantom(feed, "d3", "LRTH", c1)
    assert [e["name"] for e in events if e["type"] == "move"] == ["d3"]
    change = None if scores is None else {Cell.from_name(k): v for k, v in scores.items()}
    events = _turn_beside_phantom(feed, "c1", "LSSS", c1, change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])
    if moved:
        assert any("read occupied before the hand" in e.get("message", "") for e in events)


@pytest.mark.parametrize("before, after, seen, score, weak, moved", [
    (0.17, 0.28, 0.25, 0.52, True, True),  # 0.64 nats: the reading agrees with the image
    (0.17, 0.28, 0.25, 0.52, False, False),  # knob off: 1.5 nats asked, as until session 29
    (0.17, 0.21, 0.25, 0.52, True, False),  # 0.26 nats: no more than a re-read's jitter
    (0.17, 0.12, 0.25, 0.52, True, False),  # fell: the reading does not agree
    (0.17, 0.28, 0.25, 0.2, True, False),  # a sliver changed, not a whole piece
    (0.17, 0.28, 0.9, 0.52, True, False),  # in full view and read empty: empty
])
def test_a_hidden_piece_that_barely_reads_is_the_move_when_the_image_changed_there_alone(
        before, after, seen, score, weak, moved):
    # Fresh game 1028017 (34 degrees, after a camera bump): a short piece put on a cell
    # behind three pieces, a quarter in view, read 0.28 occupied where it had read 0.17
    # (a rise of 0.66 nats), and the image changed over the turn there alone (0.52, every
    # other free cell 0.00). Low-angle game 3028006: 0.23 -> 0.31 (0.86 nats), 0.43 alone.
    feed = Feed(StateTracker(config=TrackerConfig(change_arrival_weak=weak)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b2", "DSTH")
    c1, c2 = Cell.from_name("c1"), Cell.from_name("c2")
    view = {"visible": {c1: seen}}
    feed.frames(1.0, obs=_with_occupancy(readings_from_pieces(feed.pieces, **view), c1, before))
    feed.frames(1.0, busy=True)
    obs = _with_occupancy(readings_from_pieces(feed.pieces, **view), c1, after)
    events = feed.frames(1.0, obs=obs, change={c1: score, c2: 0.0})
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])


@pytest.mark.parametrize("front, knob, view, moved", [
    ("tall", True, True, True),  # a piece of either height on b3 is all but hidden: the move
    ("tall", False, True, False),  # knob off: the reader's share, 0.79, refuses it
    ("short", True, True, False),  # short pieces in front: a piece on b3 would show
    ("tall", True, False, False),  # no board to measure on: the reader's share
])
def test_a_free_cell_behind_recorded_tall_pieces_counts_as_hidden(front, knob, view, moved):
    # Fresh game 1031020 (helper-31h, helper-32b): the last piece, short, went on a cell
    # behind two recorded tall pieces that the reader itself read under 0.5 occupied, so its
    # occlusion mask left them out and gave the free cell 0.79 in view. The image changed
    # on the cell alone (0.74) and its occupancy rose 0.66 nats (0.17 -> 0.28 here), but
    # the weak change arrival asks for a mostly hidden cell and the move was lost. Behind
    # the recorded pieces a short piece there shows 0.17 of itself, a tall one 0.46.
    from tests.read.synth import make_view

    board = make_view(elevation_deg=32.0, azimuth_deg=0.0, distance_m=0.45)
    kw = {"board_view": board if view else None}
    feed = Feed(StateTracker(config=TrackerConfig(hidden_arrival_least_visible=knob)))
    feed.frames(1.0, **kw)
    tall = front == "tall"
    feed.place("a4", "DSTH" if tall else "DSSH", **kw)
    feed.place("a3", "LRTS" if tall else "LRSS", **kw)
    b3, d1 = Cell.from_name("b3"), Cell.from_name("d1")

    def seen(p):
        obs = readings_from_pieces(feed.pieces, visible={b3: 0.79}, **kw)
        return _with_occupancy(obs, b3, p)

    feed.frames(1.0, obs=seen(0.17))
    feed.frames(1.0, busy=True)
    events = feed.frames(1.0, obs=seen(0.28), change={b3: 0.74, d1: 0.0})
    assert [e["name"] for e in events if e["type"] == "move"] == (["b3"] if moved else [])


@pytest.mark.parametrize("change, moved", [
    ({"b3": 0.12, "c3": 0.37}, False),  # the change is elsewhere: a hand, not a piece
    ({"b3": 0.74, "c3": 0.0}, True),  # the change is the cell's alone: a hidden piece
])
def test_a_rise_behind_recorded_pieces_with_no_change_of_its_own_is_no_move(change, moved):
    # Fresh game 1032005 (helper-32h): a hand hovered off the far edge of the board, still in
    # the frame at the settle; a free cell behind recorded pieces, 1.00 in view by the
    # reader, drifted from 0.011 to 0.086 occupied under the hand's faint shadow (a rise of
    # 2.1 nats) while its image did not change (Dice 0.12, other cells higher). The plain
    # hidden arrival tests the reader's share, so the recorded pieces' share
    # (``hidden_arrival_least_visible``) does not make that drift a move; the weak change
    # arrival, which asks the image to have changed on the cell alone, uses it.
    from tests.read.synth import make_view

    board = make_view(elevation_deg=32.0, azimuth_deg=0.0, distance_m=0.45)
    feed = Feed(StateTracker(config=TrackerConfig(hidden_arrival_least_visible=True)))
    feed.frames(1.0, board_view=board)
    feed.place("a4", "DSTH", board_view=board)
    feed.place("a3", "LRTS", board_view=board)
    b3 = Cell.from_name("b3")

    def seen(p):
        obs = readings_from_pieces(feed.pieces, visible={b3: 1.0}, board_view=board)
        return _with_occupancy(obs, b3, p)

    feed.frames(1.0, obs=seen(0.011))
    feed.frames(1.0, busy=True)
    events = feed.frames(1.0, obs=seen(0.086),
                         change={Cell.from_name(k): v for k, v in change.items()})
    assert [e["name"] for e in events if e["type"] == "move"] == (["b3"] if moved else [])


def test_a_line_through_a_piece_taken_from_the_change_alone_is_not_announced():
    # Low-angle dev game 3028030: a piece went on a cell set aside as a neighbour's phantom,
    # and was taken from the image's change; its readings were the tall piece's in front,
    # and the row it completed was "all tall" by them, a false Quarto. The piece was never
    # seen: a line through it is held with a warning, never shouted.
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b1", "LSTH")
    c1 = Cell.from_name("c1")
    events = _turn_beside_phantom(feed, "d1", "LRTH", c1)
    assert [e["name"] for e in events if e["type"] == "move"] == ["d1"]
    events = _turn_beside_phantom(feed, "c1", "LSSS", c1, seconds=2.0,
                                  change={c1: 0.6, Cell.from_name("d4"): 0.0})
    assert [e["name"] for e in events if e["type"] == "move"] == ["c1"]
    assert feed.tracker.game.board[c1] == Piece.from_symbol("LSSS")  # the line is in the record
    assert "quarto" not in types(events)
    assert any("a1-b1-c1-d1" in e.get("message", "") or "held" in e.get("message", "")
               for e in events if e["type"] == "warning")


def test_a_move_taken_from_the_change_alone_is_not_withdrawn_for_still_reading_empty():
    # The cell read nearly empty when its move was taken; reading so after the next hand
    # says nothing new (a withdrawn move here lost game 1016002's move 14 again).
    feed, c1 = _hidden_feed()
    d4 = Cell.from_name("d4")
    unsure = {"visible": {c1: 0.6}}
    obs = _with_occupancy(readings_from_pieces(feed.pieces, **unsure), c1, 0.2)
    events = feed.frames(1.0, obs=obs, change={c1: 0.6, d4: 0.0})
    assert [e["name"] for e in events if e["type"] == "move"] == ["c1"]
    feed.frames(1.0, busy=True)
    feed.pieces[d4] = Piece.from_symbol("DRTS")
    obs = _with_occupancy(readings_from_pieces(feed.pieces, **unsure), c1, 0.2)
    events = feed.frames(1.0, obs=obs)
    assert "undo" not in types(events)
    assert [(e["name"], e["index"]) for e in events if e["type"] == "move"] == [("d4", 4)]


def test_a_recorded_piece_gone_after_a_hand_is_withdrawn_and_the_turn_goes_on():
    # A hand stood still over c3 long enough to settle and was read as a piece (a hover);
    # then it left, and c3 reads empty in full view: placed pieces never move, so the move
    # is withdrawn (undo, with a warning), and the turn's real move takes its index.
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    _, events = feed.place("c3", "LSTH")  # the still hand, read as a piece
    assert [e["index"] for e in events if e["type"] == "move"] == [2]
    feed.frames(1.0, busy=True)
    del feed.pieces[Cell.from_name("c3")]
    events = feed.frames(1.0)
    assert "undo" in types(events)
    assert any("c3" in e.get("message", "") and "withdrawn" in e["message"] for e in events)
    assert feed.tracker.game.board[Cell.from_name("c3")] is None
    _, events = feed.place("d4", "DRSS")
    assert [(e["name"], e["index"]) for e in events if e["type"] == "move"] == [("d4", 2)]


@pytest.mark.parametrize("case", ["hidden", "earlier", "no_hand"])
def test_a_recorded_piece_is_not_withdrawn_when_not_seen_or_not_last_or_no_hand(case):
    feed = Feed()
    feed.frames(1.0)
    c3 = Cell.from_name("c3")
    feed.place("b2", "DRSS")  # (a board with no piece left would end the game)
    feed.place("c3", "LSTH")
    if case == "earlier":
        feed.place("a1", "LRSS")  # c3 is no longer the last move
    if case != "no_hand":
        feed.frames(1.0, busy=True)
    del feed.pieces[c3]
    events = feed.frames(3.0, visible={c3: 0.2} if case == "hidden" else None)
    assert "undo" not in types(events)
    assert feed.tracker.game.board[c3] is not None


@pytest.mark.parametrize("band, committed", [(0.05, True), (0.0, False)])
def test_a_cell_read_at_the_threshold_does_not_hold_the_scene_unsettled(band, committed):
    # c3, half behind a piece, reads 0.49 and 0.51 in turn on a still scene: noise at the
    # threshold, not a piece coming and going, so the new piece on d4 is taken in time.
    feed = Feed(StateTracker(config=TrackerConfig(occupancy_hysteresis=band)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d4")] = Piece.from_symbol("DRSS")
    t_left = feed.t
    c3 = Cell.from_name("c3")
    for k in range(10):
        obs = _with_occupancy(readings_from_pieces(feed.pieces), c3, 0.49 if k % 2 else 0.51)
        feed.frames(DT, obs=obs)
    moves = [e for e in feed.events if e["type"] == "move" and e["name"] == "d4"]
    assert bool(moves) == committed
    if committed:
        assert moves[0]["_frame_t"] - t_left <= 0.5


def test_occupancy_hysteresis_is_validated():
    with pytest.raises(ValueError, match="occupancy_hysteresis"):
        TrackerConfig(occupancy_hysteresis=0.5)


# -- corrections by hand (live-window keys) -------------------------------------------------


def test_a_misread_corrected_by_hand_stays_corrected_while_it_reads_the_same():
    feed = Feed()
    feed.frames(1.0)
    a1 = Cell.from_name("a1")
    feed.place("b2", "LRSS")
    # a1 holds DSTH but reads clearly light
    _, events = feed.place("a1", "DSTH", odds={a1: {"color": 0.02}})
    assert [e["piece"]["color"] for e in events if e["type"] == "move"] == ["light"]
    fixed = feed.tracker.correct_by_hand("color", feed.t)
    assert types(fixed) == ["correction"]
    assert fixed[0]["name"] == "a1" and fixed[0]["piece"]["color"] == "dark"
    # the same misreading for a long time: a repair would set it back to light
    assert [e for e in feed.frames(6.0, odds={a1: {"color": 0.02}})
            if e["type"] in ("correction", "warning")] == []
    assert feed.tracker.game.board[a1] == Piece.from_symbol("DSTH")


def test_a_correction_by_hand_to_a_piece_on_the_board_trades_the_two():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "DSTH")
    feed.place("b2", "DSTS")
    # the user says b2's piece is hollow: DSTH, which is recorded on a1, so a1 gets DSTS
    fixed = feed.tracker.correct_by_hand("top", feed.t)
    assert sorted((e["name"], Piece.from_attributes(e["piece"]).code) for e in fixed) == [
        ("a1", Piece.from_symbol("DSTS").code), ("b2", Piece.from_symbol("DSTH").code)]
    board = feed.tracker.game.board
    assert board[Cell.from_name("b2")] == Piece.from_symbol("DSTH")
    assert board[Cell.from_name("a1")] == Piece.from_symbol("DSTS")


def test_a_correction_by_hand_that_completes_a_line_raises_it():
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS")]:
        feed.place(name, sym)
    # d1 holds DSSH (a line of short pieces) but reads tall and hollow: no line
    d1 = Cell.from_name("d1")
    _, events = feed.place("d1", "DSSH", odds={d1: {"height": 0.98}})
    assert "quarto" not in types(events)
    fixed = feed.tracker.correct_by_hand("height", feed.t)
    assert types(fixed) == ["correction", "quarto"]
    assert fixed[1]["shared"] == {"height": "short"}


def test_a_move_taken_back_by_hand_is_not_recorded_again():
    # A neighbour's echo on b3 is recorded as the move; the real piece went to c1.
    feed = Feed()
    feed.frames(1.0)
    b3, c1 = Cell.from_name("b3"), Cell.from_name("c1")
    feed.frames(1.0, busy=True)
    echo = {b3: Piece.from_symbol("LRTH")}
    events = feed.frames(2.0, obs=readings_from_pieces(echo))
    assert [e["name"] for e in events if e["type"] == "move"] == ["b3"]
    assert types(feed.tracker.undo_by_hand(feed.t)) == ["undo"]
    assert feed.frames(3.0, obs=readings_from_pieces(echo)) == []
    feed.frames(1.0, busy=True)
    both = {**echo, c1: Piece.from_symbol("DSSS")}
    events = feed.frames(2.0, obs=readings_from_pieces(both))
    assert [(e["name"], e["index"]) for e in events if e["type"] == "move"] == [("c1", 1)]
    # seen empty once, b3 is an ordinary cell again
    feed.frames(1.0, obs=readings_from_pieces({c1: both[c1]}))
    feed.frames(1.0, busy=True)
    events = feed.frames(2.0, obs=readings_from_pieces(both))
    assert [e["name"] for e in events if e["type"] == "move"] == ["b3"]


def test_a_piece_put_on_a_refused_cell_is_taken_when_nothing_else_shows_the_turn():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b3", "DRTH")
    feed.tracker.undo_by_hand(feed.t)  # the user took b3 back by mistake
    assert feed.frames(2.0) == []
    # the next hand puts nothing anywhere else: b3 is that turn's move
    feed.frames(1.0, busy=True)
    events = feed.frames(2.0)
    assert [(e["name"], e["index"]) for e in events if e["type"] == "move"] == [("b3", 2)]


def test_two_refused_cells_give_one_move_per_turn():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b3", "DRTH")
    feed.place("c2", "LSTS")
    feed.tracker.undo_by_hand(feed.t)
    feed.tracker.undo_by_hand(feed.t)  # both taken back; both still read occupied
    assert feed.frames(2.0) == []
    feed.frames(1.0, busy=True)  # a hand that shows no other piece
    events = feed.frames(2.0)
    assert [e["index"] for e in events if e["type"] == "move"] == [2]


@pytest.mark.parametrize("p_dark, warned", [(0.4, True), (0.1, False)])
def test_a_line_the_readings_lean_to_but_the_record_misses_is_named_in_a_warning(
        p_dark, warned):
    # Fresh game 1016015 and the demo: a piece read unsurely is recorded as its likeliest
    # unplayed reading, light, where the readings of the whole board give some chance that it
    # is dark and completes a dark row. The record decides what is shouted, so no Quarto;
    # but when the chance is one in four or more, a warning names the line and the cell.
    feed = Feed()
    feed.frames(1.0)
    for name, symbol in (("a1", "DRTH"), ("b1", "DSSS"), ("c1", "DRSS")):
        feed.place(name, symbol)
    d1 = Cell.from_name("d1")
    _, events = feed.place("d1", "DSTS", odds={d1: {"color": p_dark}})
    moves = [e for e in events if e["type"] == "move"]
    assert [(e["name"], e["piece"]["color"]) for e in moves] == [("d1", "light")]
    assert "quarto" not in types(events)
    possible = [e["message"] for e in events
                if e["type"] == "warning" and e["message"].startswith("possible Quarto")]
    if warned:
        assert len(possible) == 1
        assert "a1-b1-c1-d1 (all dark)" in possible[0] and "check d1" in possible[0]
    else:
        assert possible == []


def test_the_possible_line_warning_can_be_switched_off():
    feed = Feed(StateTracker(config=TrackerConfig(possible_line_warning=0.0)))
    feed.frames(1.0)
    for name, symbol in (("a1", "DRTH"), ("b1", "DSSS"), ("c1", "DRSS")):
        feed.place(name, symbol)
    d1 = Cell.from_name("d1")
    _, events = feed.place("d1", "DSTS", odds={d1: {"color": 0.4}})
    assert not any(e["message"].startswith("possible Quarto")
                   for e in events if e["type"] == "warning")
    with pytest.raises(ValueError, match="possible_line_warning"):
        TrackerConfig(possible_line_warning=1.5)


def test_no_possible_line_warning_among_pieces_taken_over_mid_game():
    # Pieces standing when watching begins are adopted in an unknown order and make no
    # Quarto among them; a line they might make is not named either.
    feed = Feed()
    d1 = Cell.from_name("d1")
    for name, symbol in (("a1", "DRTH"), ("b1", "DSSS"), ("c1", "DRSS"), ("d1", "DSTS")):
        feed.pieces[Cell.from_name(name)] = Piece.from_symbol(symbol)
    events = feed.frames(2.0, odds={d1: {"color": 0.4}})
    assert any(e.get("adopted") for e in events if e["type"] == "move")
    assert not any(e["message"].startswith("possible Quarto")
                   for e in events if e["type"] == "warning")


def test_an_echo_released_for_a_hand_whose_piece_shows_late_is_held_again():
    # Fresh game 1024008: an echo held behind a tall piece was released by the next hand,
    # whose own piece, on a far cell, was not yet read in the first settle after it; the
    # echo, read weakly, waited to be committed, and when the hand's piece showed a settle
    # later both were taken: two moves for one hand. The echo is held again; the hand's
    # piece is the move.
    from vision.live.arrivals import can_echo

    view = _view()
    config = TrackerConfig()
    feed = Feed()
    b2 = Cell.from_name("b2")
    echo_cell = _behind(view, b2)
    far = next(c for c in (Cell.from_name(n) for n in ("d4", "a4", "d1", "a1"))
               if c not in (b2, echo_cell) and not can_echo(view, echo_cell, c, config))
    weak = {echo_cell: {"height": 0.55, "top": 0.5}}

    def echo():
        pieces = dict(feed.pieces)
        pieces[echo_cell] = feed.pieces[b2]
        obs = readings_from_pieces(pieces, odds=weak, board_view=view)
        return _with_occupancy(obs, echo_cell, 0.93)

    feed.frames(1.0, obs=readings_from_pieces({}, board_view=view))
    feed.frames(1.0, busy=True, obs=readings_from_pieces({}, board_view=view))
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    feed.frames(2.0, obs=echo())
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["b2"]
    feed.frames(1.0, busy=True, obs=echo())  # the hand brings a piece to a far cell ...
    early = feed.frames(0.5, obs=echo())  # ... not read in the first settle after it
    assert [e for e in early if e["type"] == "move"] == []
    feed.frames(0.1, busy=True, obs=echo())  # the hand's last motion
    feed.pieces[far] = Piece.from_symbol("LSSS")
    events = feed.frames(2.0, obs=echo())
    assert [e["name"] for e in events if e["type"] == "move"] == [far.name]
    # still held: a later hand that brings nothing else puts a piece there
    feed.frames(1.0, busy=True, obs=echo())
    feed.pieces[echo_cell] = Piece.from_symbol("LRTH")
    moves = [e for e in feed.frames(2.0, obs=readings_from_pieces(feed.pieces, board_view=view))
             if e["type"] == "move"]
    assert [e["name"] for e in moves] == [echo_cell.name]
    assert moves[0]["piece"]["color"] == "light"


def test_a_cell_set_aside_before_the_hand_is_taken_beside_a_new_one():
    # A cell read 0.8-0.9 occupied and set aside (doubtful) for three turns, then reading
    # 0.95 in the settle where the next hand's piece shows on a far cell, is taken too: it
    # cannot be told from an earlier turn's piece that showed late (game 1023017, where
    # holding it back, session 25's hold_standing_when_steady in 92fbc4f, lost a real move),
    # though in game 1024008 it was a phantom in front of a tall piece.
    from vision.live.arrivals import can_echo

    view = _view()
    config = TrackerConfig()
    feed = Feed(StateTracker(config=config))
    c2 = Cell.from_name("c2")
    front = _behind(view, c2, sign=-1.0)
    far = next(c for c in (Cell.from_name(n) for n in ("a1", "d1", "a4", "d4"))
               if c not in (c2, front) and not can_echo(view, front, c, config))
    phantom = {front: 0.84}

    def scene():
        obs = readings_from_pieces({**feed.pieces, front: feed.pieces[c2]}, board_view=view)
        for cell, p in phantom.items():
            obs = _with_occupancy(obs, cell, p)
        return _with_occupancy(obs, c2, 0.99)

    feed.frames(1.0, board_view=view)
    feed.frames(1.0, busy=True)
    feed.pieces[c2] = Piece.from_symbol("DSTS")
    feed.frames(2.0, obs=scene())
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["c2"]
    feed.frames(1.0, busy=True)  # the next hand: a piece on a far cell ...
    feed.pieces[far] = Piece.from_symbol("LRTH")
    phantom[front] = 0.95  # ... and the phantom now reads as surely
    events = feed.frames(2.0, obs=scene())
    taken = [e["name"] for e in events if e["type"] == "move"]
    assert taken == [front.name, far.name]


@pytest.mark.parametrize("case", ["elsewhere", "on the echo", "knob off"])
def test_a_held_echo_is_not_released_when_the_image_changed_elsewhere_alone(case):
    # Fresh game 1024016: a cell behind a tall piece was held as its echo. A later hand put
    # a short piece behind others; it read 0.31 occupied (0.19 before: too little to be
    # a move), so the hand seemed to bring nothing and released the echo, 12 s old and read
    # as before, as its move: the piece that later stood there was then a move too many.
    # The image changed over that turn on the hidden piece's cell alone, not on the echo:
    # the echo stays held and the changed cell, whose reading rose, is the move. A piece
    # put on the held cell changes the image there, and the echo is taken as before.
    from vision.live.arrivals import can_echo

    view = _view()
    config = TrackerConfig(release_needs_change=case != "knob off")
    feed = Feed(StateTracker(config=config))
    b2 = Cell.from_name("b2")
    echo_cell = _behind(view, b2)
    hidden = next(c for c in (Cell.from_name(n) for n in ("d4", "a4", "d1", "a1"))
                  if c not in (b2, echo_cell) and not can_echo(view, echo_cell, c, config))
    occupancy = {hidden: 0.19}

    def scene():
        obs = readings_from_pieces({**feed.pieces, echo_cell: feed.pieces[b2]}, board_view=view)
        obs = _with_occupancy(obs, echo_cell, 0.93)
        for cell, p in occupancy.items():
            obs = _with_occupancy(obs, cell, p)
        return obs

    feed.frames(1.0, obs=readings_from_pieces({}, board_view=view))
    feed.frames(1.0, busy=True, obs=readings_from_pieces({}, board_view=view))
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    feed.frames(2.0, obs=scene())
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["b2"]
    feed.frames(1.0, busy=True, obs=scene())
    occupancy[hidden] = 0.31
    change = {echo_cell: 0.29} if case == "on the echo" else {hidden: 0.2, echo_cell: 0.0}
    events = feed.frames(2.0, obs=scene(), change=change)
    taken = [e["name"] for e in events if e["type"] == "move"]
    assert taken == [hidden.name if case == "elsewhere" else echo_cell.name]


@pytest.mark.parametrize("busy_s, phantom_taken", [(0.1, False), (0.5, True)])
def test_a_busy_spell_too_brief_for_a_hand_brings_no_move(busy_s, phantom_taken):
    # Fresh game 1025011: a lamp switched on moved every pixel for one frame (busy), and
    # under the new light a cell behind two pieces read 0.54 occupied; taken as the turn's
    # move, it was a phantom, and the real hand came 0.6 s later. No hand brings a piece and
    # leaves in a tenth of a second: the cell is a flicker, and the next hand's piece is the
    # move. A busy spell long enough for a hand still brings the cell in as a move.
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    c3, d4 = Cell.from_name("c3"), Cell.from_name("d4")
    feed.frames(busy_s, busy=True)
    lit = _with_occupancy(readings_from_pieces(feed.pieces, unknown={c3: ["top"]}), c3, 0.54)
    events = feed.frames(2.0, obs=lit)
    assert [e["name"] for e in events if e["type"] == "move"] == ([c3.name] if phantom_taken
                                                                   else [])
    if phantom_taken:
        return
    feed.frames(1.0, busy=True)
    feed.pieces[d4] = Piece.from_symbol("DSTH")
    after = _with_occupancy(readings_from_pieces(feed.pieces), c3, 0.3)
    events = feed.frames(2.0, obs=after)
    assert [(e["name"], e["index"]) for e in events if e["type"] == "move"] == [("d4", 2)]


@pytest.mark.parametrize("measured", [True, False])
def test_the_arrival_is_where_the_image_changed_though_a_cell_in_front_reads_it(measured):
    # Fresh game 1025003 (33 degrees): a short piece went behind a cell whose own footprint a
    # tall piece in front hid. That front cell read the new piece above its footprint
    # (0.94 occupied, the same piece but tall) and, since a cell in front cannot be an echo
    # of a piece behind it, it was taken as the move, the real piece held as its echo and
    # every later move shifted. The change over the turn matched the real cell best (0.82
    # against 0.67): the new piece stands there, and the front cell, reading it, is held.
    # Without the change measured, the cell no other new piece explains is the arrival, as
    # before (fresh game 1002017).
    view, front, back = _a_cell_and_the_one_behind("b2")
    feed = Feed()
    feed.frames(1.0, board_view=view)
    feed.frames(1.0, busy=True)
    feed.pieces[back] = Piece.from_symbol("LSSH")
    seen = dict(feed.pieces)
    seen[front] = Piece.from_symbol("LSTH")  # the front cell reads it, taller
    # The front cell's footprint half hidden (1025003's c4: 0.58 in view, helper-34d's scan;
    # in full view it would read its own floor, ``full_view_arrival``).
    obs = _with_occupancy(readings_from_pieces(seen, board_view=view, visible={front: 0.58}),
                          front, 0.94)
    change = {back: 0.82, front: 0.67} if measured else None
    events = feed.frames(2.0, obs=obs, change=change)
    taken = [e["name"] for e in events if e["type"] == "move"]
    assert taken == ([back.name] if measured else [front.name])
    if measured:
        assert any(front.name in e.get("message", "") and "not taken" in e.get("message", "")
                   for e in events)


@pytest.mark.parametrize("knob", [True, False])
def test_a_hidden_guess_whose_cell_reads_occupied_anew_later_is_retaken_as_that_turn(knob):
    # Low-angle game 3028014: a nudge's change behind tall pieces took c4 as a hidden move
    # (read 0.29, seen 58%); the real piece came to c4 a turn after the next move, and c4
    # then read 0.99 (5.5 nats up), a turn that showed no new cell. The record's order was
    # off from the guess on. With ``retake_rising_guess`` the guess's move and the moves
    # after it are placed again in order, the guessed cell last.
    feed = Feed(StateTracker(config=TrackerConfig(retake_rising_guess=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b2", "DSTH")
    c1 = Cell.from_name("c1")
    feed.frames(1.0, visible={c1: 0.3})
    feed.frames(1.0, busy=True)  # a hand that only nudged: c1 reads 0.2 behind b2
    nudged = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, 0.2)
    events = feed.frames(1.0, obs=nudged)
    guess = next(e for e in events if e["type"] == "move")
    assert guess["name"] == "c1"
    guessed = Piece.from_attributes(guess["piece"])
    later = next(p for p in ("DRTS", "LSTH", "DSSS") if Piece.from_symbol(p) != guessed)
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d4")] = Piece.from_symbol(later)
    feed.frames(1.0, obs=_with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}),
                                         c1, 0.2))
    feed.frames(1.0, busy=True)  # the piece goes to c1: it reads 0.95 though half hidden
    came = _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, 0.95)
    events = feed.frames(1.0, obs=came)
    moves = [m.cell.name for m in feed.tracker.game.moves]
    if knob:
        assert [(e["type"], e["name"]) for e in events if e["type"] in ("undo", "move")] == [
            ("undo", "d4"), ("undo", "c1"), ("move", "d4"), ("move", "c1")]
        assert moves == ["a1", "b2", "d4", "c1"]
    else:
        assert [e for e in events if e["type"] in ("undo", "move")] == []
        assert moves == ["a1", "b2", "c1", "d4"]
    assert "quarto" not in types(feed.events)


def _guessed_top(obs, cell):
    """``obs`` with ``cell``'s top odds marked guessed (the reader reckons it out of view)."""
    import dataclasses

    cells = tuple(dataclasses.replace(r, guessed=frozenset({"top"})) if r.cell == cell else r
                  for r in obs.cells)
    return Observation(cells, obs.board_view)


@pytest.mark.parametrize("how", ["unknown", "guessed"])
@pytest.mark.parametrize("rule, forced, sure, announced", [
    (False, 0.0, 0.95, True), (True, 0.0, 0.95, False), (True, 0.0, 0.99, False),
    # the top is forced if d1 is the light round tall piece: the solid one is read on a2...
    (True, 0.9, 0.99, True),
    # ...but with d1's colour, shape and height read at 0.95 only, 0.86: not certain
    (True, 0.9, 0.95, False),
])
def test_a_line_through_a_value_nobody_saw_is_named_not_shouted(
        how, rule, forced, sure, announced):
    # d1's top is hidden in every reading: the reader reports it unknown (the joint decoding
    # fills d1 in as hollow: the light round tall solid piece already stands on a2), or
    # gives its guess, hollow, marked ``guessed``. a1-d1 is "all hollow" in the record. With
    # ``gate_unseen_values`` the line rests on a value nobody saw on d1: a warning, no
    # "Quarto!". Unless the other cells' readings force it (``gate_forced_values``): d1's
    # other attributes read surely (``sure``) as light round tall, and a2 reads as the solid
    # one of those two pieces.
    feed = Feed(StateTracker(config=TrackerConfig(gate_unseen_values=rule,
                                                  gate_forced_values=forced)))
    feed.frames(1.0)
    for name, sym in [("a2", "LRTS"), ("a1", "DRSH"), ("b1", "LSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    feed.frames(1.0, busy=True)
    feed.pieces[d1] = Piece.from_symbol("LRTH")
    if how == "unknown":
        obs = readings_from_pieces(feed.pieces, confidence=sure, unknown={d1: ["top"]})
    else:
        obs = _guessed_top(readings_from_pieces(feed.pieces, confidence=sure), d1)
    events = feed.frames(3.0, obs=obs)
    moves = [e for e in events if e["type"] == "move"]
    assert moves and moves[0]["piece"]["top"] == "hollow"
    assert ("quarto" in types(events)) == announced
    if not announced:
        # The warning names the line and what of it was never seen.
        assert any("a1-b1-c1-d1" in e.get("message", "")
                   and "the top of the piece on d1 was never in view" in e["message"]
                   for e in events if e["type"] == "warning")


@pytest.mark.parametrize("forced", [0.0, 0.9])
def test_a_value_nobody_saw_is_not_forced_while_its_other_piece_is_unplayed(forced):
    # As above, d1's top guessed hollow, but the light round tall solid piece is unplayed
    # (a2 holds another): d1 may be either piece, and the line is held whatever the knob.
    feed = Feed(StateTracker(config=TrackerConfig(gate_forced_values=forced)))
    feed.frames(1.0)
    for name, sym in [("a2", "DRTS"), ("a1", "DRSH"), ("b1", "LSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    feed.frames(1.0, busy=True)
    feed.pieces[d1] = Piece.from_symbol("LRTH")
    events = feed.frames(3.0, obs=_guessed_top(readings_from_pieces(feed.pieces), d1))
    assert [e["piece"]["top"] for e in events if e["type"] == "move"] == ["hollow"]
    assert "quarto" not in types(events)
    assert any("the top of the piece on d1 was never in view" in e.get("message", "")
               for e in events if e["type"] == "warning")


#: A full board whose one line, column d "all hollow", runs through d1 (found by search
#: with the rules core): placed without d1, no line.
_LAST_PIECE_BOARD = {
    "a1": "LSTH", "b1": "LSSS", "c1": "DSTH", "d1": "LRSH",
    "a2": "DSTS", "b2": "DRTH", "c2": "LRTS", "d2": "DRSH",
    "a3": "LRSS", "b3": "DSSH", "c3": "DRSS", "d3": "LRTH",
    "a4": "DRTS", "b4": "DSSS", "c4": "LSTS", "d4": "LSSH",
}


def _hidden_turn(feed, name):
    """A hand puts the board's piece on ``name``, a quarter in view behind the pieces in
    front: it reads 0.28 occupied where it read 0.17 before the hand, its attributes read
    as the tall dark square solid piece in front, and the image changed there alone: taken
    from the change alone (``change_arrival_weak``), its piece the likeliest unplayed."""
    cell = Cell.from_name(name)
    view = {"visible": {cell: 0.25}}
    feed.frames(1.0, obs=_with_occupancy(readings_from_pieces(feed.pieces, **view), cell, 0.17))
    feed.frames(1.0, busy=True)
    feed.pieces[cell] = Piece.from_symbol(_LAST_PIECE_BOARD[name])
    front = {cell: {"color": 0.95, "shape": 0.95, "height": 0.95, "top": 0.05}}
    obs = _with_occupancy(readings_from_pieces(feed.pieces, odds=front, **view), cell, 0.28)
    return feed.frames(2.0, obs=obs, change={cell: 0.52})


@pytest.mark.parametrize("forced, unread_before, announced", [
    (0.0, None, False),  # a piece never in view: held, as before
    (0.9, None, True),  # the last piece: every other piece read elsewhere, it is LRSH
    (0.9, "a4", False),  # a4 was taken unread too: d1 may hold a4's solid piece
])
def test_a_line_through_a_piece_never_seen_stands_when_the_others_leave_its_value(
        forced, unread_before, announced):
    # Fresh game 1031020: the last piece went behind two tall pieces, unread; it made
    # column a "all round", and the line was held ("the piece on d1 was never in view").
    # The 16 pieces are distinct: with the 15 others read on their cells, the hidden one is
    # what they leave, whatever it looks like (``gate_forced_values``). The rule leans on
    # readings, never the record: a piece the record holds that no reading showed (a4,
    # taken from the change too) claims nothing, and d1 may then be either piece.
    feed = Feed(StateTracker(config=TrackerConfig(gate_forced_values=forced)))
    feed.frames(1.0)
    for name, symbol in _LAST_PIECE_BOARD.items():
        if name not in ("d1", unread_before):
            feed.place(name, symbol)
    if unread_before:
        events = _hidden_turn(feed, unread_before)
        assert [e["name"] for e in events if e["type"] == "move"] == [unread_before]
    events = _hidden_turn(feed, "d1")
    moves = [e for e in events if e["type"] == "move"]
    assert [(e["name"], Piece.from_attributes(e["piece"]).symbol) for e in moves] == [
        ("d1", "LRSH")]  # the record holds the line either way
    assert ("quarto" in types(events)) == announced
    if not announced:
        assert any("possible Quarto d1-d2-d3-d4 (all hollow) not announced" in e.get(
            "message", "") for e in events if e["type"] == "warning")


@pytest.mark.parametrize("guard", [True, False])
def test_a_piece_taken_unread_turns_before_is_not_presumed_by_the_elimination(guard):
    # Fresh low-angle game 1030102: a nudge's change gave b1, an empty cell, a move (taken
    # from the change, never read). Turns later b2's piece made column b "all dark" in the
    # record; the two unplayed pieces were dark, so b1's colour, never seen, was dark by
    # elimination, and the line was shouted 2.4 s before b1's real piece came. An
    # elimination presumes the cell holds a piece: only a cell read occupied in view, or
    # the move that made the line, is presumed to (``_holds_a_piece``). Here d1 is taken
    # from the change one turn before d4 completes column d, and never read: held.
    # (``gate_guess_elimination`` off: it would hold this line too, d1 being a guess.)
    feed = Feed(StateTracker(config=TrackerConfig(gate_forced_values=0.9,
                                                  gate_guess_elimination=False)))
    if not guard:  # without the check the elimination would shout the line
        feed.tracker._holds_a_piece = lambda cell, event: True
    feed.frames(1.0)
    for name, symbol in _LAST_PIECE_BOARD.items():
        if name not in ("d1", "d4"):
            feed.place(name, symbol)
    events = _hidden_turn(feed, "d1")
    assert [e["name"] for e in events if e["type"] == "move"] == ["d1"]
    _, events = feed.place("d4", "LSSH", settle_s=2.0)
    assert [e["name"] for e in events if e["type"] == "move"] == ["d4"]
    assert feed.tracker.game.board[Cell.from_name("d1")] == Piece.from_symbol("LRSH")
    assert ("quarto" in types(events)) != guard


def test_a_line_that_shares_a_seen_value_too_is_still_announced():
    # As above, but a1-d1 is also "all dark", and d1's colour is seen: announced on it.
    feed = Feed(StateTracker(config=TrackerConfig(gate_unseen_values=True)))
    feed.frames(1.0)
    for name, sym in [("a2", "DRTS"), ("a1", "DRSH"), ("b1", "DSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    _, events = feed.place("d1", "DRTH", settle_s=3.0, unknown={d1: ["top"]})
    quartos = [e for e in events if e["type"] == "quarto"]
    assert quartos and quartos[0]["shared"]["color"] == "dark"


def test_a_piece_recorded_before_a_restart_counts_as_seen():
    # ``watch`` restarted mid-game: c1's top is hidden from now on (filled in as hollow: the
    # dark square tall solid piece stands on a3), but c1 was recorded, and so seen, before
    # the restart; the line d1 completes is announced.
    from vision.game.model import Game

    game = Game(Rules())
    game.start(0.0)
    pieces = {Cell.from_name(n): Piece.from_symbol(s)
              for n, s in [("a2", "LRTS"), ("a3", "DSTS"), ("a1", "DRSH"), ("b1", "LSSH"),
                           ("c1", "DSTH")]}
    for k, (cell, piece) in enumerate(pieces.items()):
        game.place(cell, piece, 1.0 + k)
    feed = Feed(StateTracker(config=TrackerConfig(gate_unseen_values=True), game=game))
    feed.t = 10.0
    feed.pieces = dict(pieces)
    c1 = Cell.from_name("c1")
    feed.frames(1.0, unknown={c1: ["top"]})
    _, events = feed.place("d1", "LRTH", settle_s=3.0, unknown={c1: ["top"]})
    assert "quarto" in types(events)


@pytest.mark.parametrize("knob", [False, True])
def test_a_piece_guessed_where_nothing_was_read_gives_way_to_a_clear_reading(knob):
    """A piece recorded on a cell where no attribute could be read (the likeliest unplayed
    piece, a guess from nothing) is no evidence against a later piece that reads clearly as
    it: with ``take_back_unread_guess`` the later cell takes it and the unread cell is
    corrected (fresh game 1030016: a hidden a1 held the last piece, light round tall solid,
    read clearly on b3, which took the remaining piece's second best and traded with a
    third cell)."""
    feed = Feed(StateTracker(config=TrackerConfig(take_back_unread_guess=knob)))
    feed.frames(1.0)
    for name, sym in [("a1", "LSSS"), ("b3", "DSSH"), ("d4", "LSTS")]:
        feed.place(name, sym)
    c2 = Cell.from_name("c2")
    hidden = {c2: ["color", "shape", "height", "top"]}
    _, events = feed.place("c2", "DRTH", settle_s=2.0, unknown=hidden)
    move = next(e for e in events if e["type"] == "move")
    assert any("not seen" in e.get("message", "") for e in events)
    guess = Piece.from_attributes(move["piece"])
    assert guess != Piece.from_symbol("DRTH")  # nothing read: the guess is not the piece
    _, later = feed.place("a4", guess.symbol, settle_s=2.0, unknown=hidden)
    placed = next(e for e in later if e["type"] == "move")
    fixes = [e for e in later if e["type"] == "correction"]
    if knob:
        assert placed["piece"] == move["piece"]
        assert [e["name"] for e in fixes] == ["c2"]
        assert any("reads clearly as" in e.get("message", "") for e in later)
    else:
        assert placed["piece"] != move["piece"] and not fixes


def _assert_guess_gate(events: list[dict], cell: str, line: str, attribute: str,
                       announced: bool) -> None:
    """``cell`` was recorded as a guess; ``line`` through it was announced, or else held
    with the warning naming the guess's unread ``attribute``."""
    assert any(f"{cell} only partly read" in e.get("message", "") for e in events)
    assert ("quarto" in types(events)) == announced
    if not announced:
        assert any(line in e.get("message", "")
                   and f"the piece on {cell} was recorded as a guess and its {attribute} "
                       "never read clearly" in e["message"]
                   for e in events if e["type"] == "warning")


@pytest.mark.parametrize("top, visible, rule, announced", [
    (0.6, 0.4, 0.0, True), (0.6, 0.4, 0.5, False),  # the top read unsurely from 40% of it
    (0.95, 0.4, 0.5, True),  # read clearly (2.9 nats): the guess is on the shape only
    (0.6, 1.0, 0.5, True),  # seen whole: its odds are what they say
])
def test_a_line_through_a_guessed_part_view_needs_its_value_read_clearly(
        top, visible, rule, announced):
    # d1's piece is read unsurely (shape 0.5: light round or light square tall, both
    # unplayed) and recorded as a guess ("only partly read"). a1-d1 is then "all hollow"
    # in the record, and only that. With its top read hollow at 0.6 from under half the
    # piece (fresh game 1031006's d4, 0.37 in view, truly solid), the joint decoding gives
    # the line about 0.6: shouted without ``gate_guess_part_view``; with it, the line rests
    # on a value the guessed, mostly hidden piece never showed clearly, and is named in a
    # warning instead.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_part_view=rule)))
    feed.frames(1.0)
    for name, sym in [("a1", "DRSH"), ("b1", "LSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": 0.5, "top": top}}
    _, events = feed.place("d1", "LRTH", settle_s=3.0, odds=weak, visible={d1: visible})
    _assert_guess_gate(events, "d1", "a1-b1-c1-d1", "top", announced)


@pytest.mark.parametrize("clear_after_next_move", [False, True])
def test_a_line_held_on_a_guess_is_announced_late_when_a_later_view_reads_it_clearly(
        clear_after_next_move):
    # As above, d1's top read hollow at 0.6 from 40% of it: the line a1-d1 "all hollow" is
    # held. More still frames of the same view add nothing (session 34, helper-34c: the
    # real lines so held in the cached games kept their share in view, 0.05-0.36, to the
    # next move or the end). When a later view shows d1 whole and reads its top clearly
    # (the camera moved), the held line is announced then, late, while it still counts;
    # once the next piece is placed it has lapsed and a clear reading no longer raises it.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_part_view=0.5)))
    feed.frames(1.0)
    for name, sym in [("a1", "DRSH"), ("b1", "LSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": 0.5, "top": 0.6}}
    t_left, events = feed.place("d1", "LRTH", settle_s=3.0, odds=weak, visible={d1: 0.4})
    assert "quarto" not in types(events)
    assert any("possible Quarto a1-b1-c1-d1" in e.get("message", "") for e in events)
    assert "quarto" not in types(feed.frames(2.0, odds=weak, visible={d1: 0.4}))
    if clear_after_next_move:
        _, events = feed.place("a4", "DSSS", settle_s=2.0, odds=weak, visible={d1: 0.4})
        assert any("lapsed unconfirmed" in e.get("message", "") for e in events)
    clear = {d1: {"shape": 0.5, "top": 0.95}}
    events = feed.frames(2.0, odds=clear, visible={d1: 1.0})
    quartos = [e for e in events if e["type"] == "quarto"]
    if clear_after_next_move:
        assert not quartos
    else:
        (quarto,) = quartos
        assert quarto["after_move"] == 4 and quarto["shared"] == {"top": "hollow"}
        assert quarto["t"] == pytest.approx(t_left + 5.0)  # the clear view's first frame


@pytest.mark.parametrize("forced, announced", [(0.0, False), (0.9, True)])
def test_a_guessed_part_view_carries_a_line_on_a_value_the_other_pieces_leave_it(
        forced, announced):
    # Fresh game 1031018: d4, 31-38% in view, its shape undecided, was recorded as a guess,
    # and the real "all square" line it was in was held. But its colour, height and top
    # were read, and the round piece with them was read on another cell: d4 can only be the
    # square one (``gate_forced_values``). Here d1 reads light tall hollow surely, its shape
    # 0.55 from 40% of it, and the light round tall hollow piece comes to a2 after it.
    feed = Feed(StateTracker(config=TrackerConfig(gate_forced_values=forced)))
    feed.frames(1.0)
    for name, sym in [("a1", "DSSS"), ("b1", "LSSH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"color": 0.01, "shape": 0.55, "height": 0.99, "top": 0.99}}
    _, events = feed.place("d1", "LSTH", odds=weak, visible={d1: 0.4})
    assert any("d1 only partly read" in e.get("message", "") for e in events)
    feed.place("a2", "LRTH", odds=weak, visible={d1: 0.4})
    _, events = feed.place("c1", "DSTS", settle_s=2.0, odds=weak, visible={d1: 0.4})
    assert feed.tracker.game.board[d1] == Piece.from_symbol("LSTH")
    assert ("quarto" in types(events)) == announced
    if not announced:
        assert any("a1-b1-c1-d1" in e.get("message", "")
                   and "its shape never read clearly" in e["message"]
                   for e in events if e["type"] == "warning")


def test_a_guessed_part_view_carries_a_line_on_its_colour():
    # As above, the line "all light" only, d1's colour read 0.8 (1.4 nats) from 40% of the
    # piece: colour shows on any part of a piece, so the line is judged on the readings'
    # odds once they lean to the value by ``gate_guess_colour_lean`` (low-angle dev game
    # 3028001's real "all light": b3 read light 0.81 from 0.15 of it).
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_part_view=0.5)))
    feed.frames(1.0)
    for name, sym in [("a1", "LRSH"), ("b1", "LSTS"), ("c1", "LSSH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": 0.5, "color": 0.2}}
    _, events = feed.place("d1", "LRTS", settle_s=3.0, odds=weak, visible={d1: 0.4})
    assert any("d1 only partly read" in e.get("message", "") for e in events)
    quartos = [e for e in events if e["type"] == "quarto"]
    assert quartos and quartos[0]["shared"] == {"color": "light"}


@pytest.mark.parametrize("knob, square, announced", [
    (False, 0.2, False),  # shape read round 0.8 (1.4 nats) from 30%: under decision_margin
    (True, 0.2, True),  # the colour's lean (1 nat) is enough for a shape
    (True, 0.4, False),  # round only 0.6 (0.4 nats): still held
])
def test_a_guessed_part_views_shape_needs_the_colours_lean_with_the_knob(
        knob, square, announced):
    # Low-angle fresh game 1033111: c2, 0.34 in view, recorded as a guess, its shape read
    # round 1.51 nats when recorded and 1.45 since (one view); the real "all round" line it
    # completed was held to the end of the game. With ``gate_guess_shape_as_colour`` a
    # guess's shape, shown on any band of the piece as its colour is, needs the colour's
    # lean, not ``decision_margin``. Here a1-d1 is "all round" only.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_shape_as_colour=knob)))
    feed.frames(1.0)
    for name, sym in [("a1", "DRSH"), ("b1", "LRTS"), ("c1", "DRTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": square}}
    _, events = feed.place("d1", "LRSS", settle_s=3.0, odds=weak, visible={d1: 0.3})
    assert any("d1 only partly read" in e.get("message", "") for e in events)
    assert ("quarto" in types(events)) == announced
    if not announced:
        assert any("the piece on d1 was recorded as a guess and its shape never read clearly"
                   in e.get("message", "") for e in events if e["type"] == "warning")


@pytest.mark.parametrize("view, announced", [(0.0, True), (0.5, False)])
def test_a_guessed_part_view_with_its_colour_undecided_holds_a_colour_line(view, announced):
    # As above, d1's colour read 0.67 light (0.71 nats) from 30% of the piece, one unchanged
    # part view (low-angle fresh game 1031100's d2, 0.42 in view behind a light tall piece,
    # read 0.57 light in the recording settle and after, 0.63 nats together, truly dark):
    # the joint decoding gives "all light" about 0.67. With ``gate_guess_colour_view`` the
    # guess's colour must lean to the value by ``gate_guess_colour_lean`` (1 nat), and the
    # line is named in a warning instead.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_part_view=0.5,
                                                  gate_guess_colour_view=view)))
    feed.frames(1.0)
    for name, sym in [("a1", "LRSH"), ("b1", "LSTS"), ("c1", "LSSH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": 0.5, "color": 0.33}}
    _, events = feed.place("d1", "LRTS", settle_s=3.0, odds=weak, visible={d1: 0.3})
    assert any("d1 only partly read" in e.get("message", "") for e in events)
    assert ("quarto" in types(events)) == announced
    if not announced:
        assert any("a1-b1-c1-d1" in e.get("message", "")
                   and "the piece on d1 was recorded as a guess and its color never read "
                       "clearly" in e["message"] for e in events if e["type"] == "warning")


@pytest.mark.parametrize("elevation, tilt, part_view, announced", [
    (85.0, 0.0, 0.5, True),  # the rule off: b3's guess is taken at its odds, seen whole
    (85.0, 0.1, 0.5, False),  # b3 at the camera's foot (a point a pitch up moves 0.04 pitch)
    (85.0, 0.1, 0.0, False),  # whether or not part views are asked for clear values
    (35.0, 0.1, 0.5, True),  # seen from the side (1.0 pitch): its height reading measures it
])
def test_a_guess_at_the_cameras_foot_carries_no_line_on_its_height(
        elevation, tilt, part_view, announced):
    # Steep dev game 3034951 (84 degrees): b2, seen whole, read tall at 0.66 (its short
    # twin unplayed too) and recorded as a guess; "all tall" was shouted at 0.59, and b2
    # was short. Near the camera's foot a short and a tall top lie on one spot of the image
    # and the readings measure next to nothing of height (3034969: a1 read short at 0.90
    # nats, later 1.8 nats more so, truly tall). With ``gate_guess_foot_tilt`` the
    # guess's height counts as unread there unless its recording readings leaned to it by
    # ``decision_margin``: the line is named in a warning instead.
    from vision.live.tracker import foot_tilt

    view = _view(elevation=elevation, azimuth=20.0)
    b3 = Cell.from_name("b3")
    assert (foot_tilt(view, b3) < 0.1) == (elevation > 80)
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_foot_tilt=tilt,
                                                  gate_guess_part_view=part_view)))
    feed.frames(1.0, board_view=view)
    for name, sym in [("b1", "DRTH"), ("b2", "LSTS"), ("b4", "DSTS")]:
        feed.place(name, sym, board_view=view)
    weak = {b3: {"height": 0.65}}
    _, events = feed.place("b3", "LRTH", settle_s=3.0, odds=weak, board_view=view)
    _assert_guess_gate(events, "b3", "b1-b2-b3-b4", "height", announced)


@pytest.mark.parametrize("rule, elimination, announced",
                         [(False, False, True), (True, False, False), (False, True, False)])
def test_a_record_whose_margin_rests_on_a_guess_counts_as_a_guess(rule, elimination, announced):
    # c3's piece was never read (all of it hidden): recorded as the likeliest unplayed
    # piece, light round short solid, a guess. d1's light round short hollow piece then
    # reads hollow only at 0.7 from 40% of it; its one rival differing in the top is the
    # piece given to c3, so d1 is recorded without a "partly read" warning, its margin
    # resting on c3's guess (low-angle fresh game 1031105: a phantom recorded as a guess
    # was given d4's true piece, and d4's misread top looked sure). With
    # ``gate_guess_rival_on_guess`` d1 counts as a guess for ``gate_guess_part_view``, and
    # "all hollow" is named in a warning instead of shouted; so it is with the narrower
    # ``gate_guess_elimination`` (on by default since session 37), for the top it shares.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_part_view=0.5,
                                                  gate_guess_rival_on_guess=rule,
                                                  gate_guess_elimination=elimination)))
    feed.frames(1.0)
    for name, sym in [("a1", "DRSH"), ("b1", "LSSH"), ("c1", "DSTH")]:
        feed.place(name, sym)
    c3 = Cell.from_name("c3")
    _, events = feed.place("c3", "DSTS", settle_s=2.0,
                           unknown={c3: ["color", "shape", "height", "top"]})
    guess = next(e for e in events if e["type"] == "move")
    assert guess["piece"] == Piece.from_symbol("LRSS").attributes
    d1 = Cell.from_name("d1")
    _, events = feed.place("d1", "LRSH", settle_s=3.0, odds={d1: {"top": 0.7}},
                           visible={d1: 0.4}, unknown={c3: ["color", "shape", "height", "top"]})
    move = next(e for e in events if e["type"] == "move")
    assert move["piece"] == Piece.from_symbol("LRSH").attributes
    assert not any("d1 only partly read" in e.get("message", "") for e in events)
    assert ("quarto" in types(events)) == announced
    if not announced:
        why = ("the piece on d1 reads hollow only by elimination through the guess on c3"
               if elimination else
               "the piece on d1 was recorded as a guess and its top never read clearly")
        assert any("a1-b1-c1-d1" in e.get("message", "") and why in e["message"]
                   for e in events if e["type"] == "warning")


@pytest.mark.parametrize("knob, moves", [(False, ["b2", "b3"]), (True, ["b2", "d4"])])
def test_a_held_echo_does_not_make_a_new_cell_beside_it_doubtful(knob, moves):
    # Fresh game 1032019 (41 degrees) move 7: a short piece put behind a tall one read 0.86
    # occupied (clearly, not surely), with c2 beside it, an echo held back two turns
    # before, still read 0.92. The echo counted as a surely read piece, so the new cell
    # was set aside as doubtful (a shadow beside a sure piece) and the hand, seeming to bring
    # nothing else, released the echo as the move. The echo stood there before the hand:
    # only new cells set that bar (``held_echo_sets_no_bar``).
    feed = Feed(StateTracker(config=TrackerConfig(held_echo_sets_no_bar=knob)))
    feed.frames(1.0)
    b2, b3, d4 = Cell.from_name("b2"), Cell.from_name("b3"), Cell.from_name("d4")
    feed.frames(1.0, busy=True)
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    feed.frames(2.0, obs=_echo_of(feed, b3, b2, p_occupied=0.93))
    assert list(feed.tracker._arrivals.held_back) == [b3]
    feed.frames(1.0, busy=True)
    feed.pieces[d4] = Piece.from_symbol("LSSH")
    obs = _with_occupancy(_echo_of(feed, b3, b2, p_occupied=0.93), d4, 0.86)
    feed.frames(2.0, obs=obs)
    assert [e["name"] for e in feed.events if e["type"] == "move"] == moves


@pytest.mark.parametrize("before, after, seen, other, change, knob, moved", [
    (0.23, 0.47, 0.0, 0.03, {"c2": 0.05}, True, True),  # 1032106: 1.09 nats, the rest still
    (0.23, 0.47, 0.0, 0.03, {"c2": 0.05}, False, False),  # knob off: under 1.5, no change
    (0.20, 0.38, 0.1, 0.0364, {"c1": 0.24}, True, True),  # 1032109: 0.88, next 0.20
    (0.20, 0.38, 0.1, 0.06, {"c1": 0.24}, True, False),  # c2 rose 0.72 too: not unique
    (0.05, 0.11, 0.0, 0.03, {}, True, False),  # 0.85 nats but still reads empty
    (0.23, 0.33, 0.0, 0.03, {}, True, False),  # 0.50 nats: a re-read's drift
    (0.23, 0.47, 0.9, 0.03, {}, True, False),  # in view and read unsurely: no hidden piece
    # the image changed on a free cell in view that reads empty: the new piece behind it
    # seen over that cell's silhouette, as on low-angle dev game 3033900 (0.36), not a veto
    (0.23, 0.47, 0.0, 0.03, {"c2": 0.36}, True, True),
])
def test_a_hidden_cell_whose_rise_alone_stands_out_is_the_move(
        before, after, seen, other, change, knob, moved):
    # Fresh low-angle games 1032106 and 1032109 (33-37 degrees, helper-32j): a short piece
    # put straight behind a recorded tall one showed nothing (or a sliver); its cell read
    # 0.23 -> 0.47 (0.20 -> 0.38) occupied, every other free cell within 0.04 (0.20 nats),
    # and the image's change fell on the new piece's shadow, outside any modelled
    # silhouette (0.00), or on a sliver too small for a whole piece (0.24). Both moves were
    # lost. With ``hidden_arrival_unique_rise`` the rise's uniqueness tells the move.
    feed = Feed(StateTracker(config=TrackerConfig(hidden_arrival_unique_rise=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b1", "LSTS")
    c1, c2 = Cell.from_name("c1"), Cell.from_name("c2")

    def reading(p_c1, p_c2):
        obs = readings_from_pieces(feed.pieces, visible={c1: seen})
        return _with_occupancy(_with_occupancy(obs, c1, p_c1), c2, p_c2)

    feed.frames(1.0, obs=reading(before, 0.03))
    feed.frames(1.0, busy=True)
    scores = {c: 0.0 for c in (c1, c2)} | {Cell.from_name(k): v for k, v in change.items()}
    events = feed.frames(1.0, obs=reading(after, other), change=scores)
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])
    if moved:
        assert any("reads more occupied than before" in e.get("message", "") for e in events)
        assert feed.tracker._hidden_guess[c1] is True  # never read: no line rests on it


def _b2_and_behind(elevation_deg: float, other_name: str, config: TrackerConfig):
    """A board seen from ``elevation_deg`` straight along the columns, with d1 placed: b2
    and ``other_name`` (which can see a piece on b2 exactly when it is c2, behind it)."""
    from tests.read.synth import make_view
    from vision.live.arrivals import can_echo

    board = make_view(elevation_deg=elevation_deg, azimuth_deg=0.0, distance_m=0.45)
    b2, other = Cell.from_name("b2"), Cell.from_name(other_name)
    assert can_echo(board, other, b2, config) == (other_name == "c2")
    feed = Feed(StateTracker(config=config))
    feed.frames(1.0, board_view=board)
    feed.place("d1", "LRSS", board_view=board)
    return board, b2, other, feed


@pytest.mark.parametrize("knob, rival, rival_seen, rival_after, score, moved", [
    (True, "c2", 0.75, 0.012, 0.44, True),  # c2 sees b2's piece, reads its floor bare: b2
    (False, "c2", 0.75, 0.012, 0.44, False),  # knob off: c2's share of the change vetoes b2
    (True, "c2", 0.4, 0.012, 0.44, False),  # c2 mostly hidden: a piece there could read empty
    (True, "c2", 0.75, 0.3, 0.44, False),  # c2 rose 4.0 nats: it may hold the piece
    (True, "b4", 0.75, 0.012, 0.44, False),  # b4 cannot see b2's piece: its change is other
    (True, "c2", 0.75, 0.012, 0.2, False),  # b2's change a sliver, not a whole piece's
])
def test_an_empty_cell_in_view_is_no_rival_for_the_change_of_a_hidden_one(
        knob, rival, rival_seen, rival_after, score, moved):
    # Fresh game 1033009 (47 degrees, helper-33h) move 6: b2 stands behind a tall piece on
    # a2 and read 0.66 occupied since that piece came, 0.30 in view (set aside as doubtful).
    # A short piece put on b2 read 0.877 (1.31 nats up) and the image changed on it by
    # 0.44; c2 behind it, empty and 0.75 in view, read 0.012 (0.008 before, up 0.42 nats)
    # with a change of 0.47 (the new piece seen above its footprint). No cell explained
    # the change alone, and the move was lost.
    board, b2, other, feed = _b2_and_behind(38.0, rival,
                                            TrackerConfig(change_arrival_skip_seen_empty=knob))

    def seen(p_back, p_rival):
        obs = readings_from_pieces(feed.pieces, visible={b2: 0.3, other: rival_seen},
                                   board_view=board)
        return _with_occupancy(_with_occupancy(obs, b2, p_back), other, p_rival)

    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("a2")] = Piece.from_symbol("LSTS")
    events = feed.frames(1.0, obs=seen(0.66, 0.008))
    assert [e["name"] for e in events if e["type"] == "move"] == ["a2"]
    feed.frames(1.0, busy=True)
    events = feed.frames(1.0, obs=seen(0.877, rival_after), change={b2: score, other: 0.47})
    assert [e["name"] for e in events if e["type"] == "move"] == (["b2"] if moved else [])


@pytest.mark.parametrize("knob, name, moved", [
    (True, "d4", False),  # a piece on d4 would show 0.79 past c3, c4: its image changes
    (False, "d4", True),  # knob off: the reader's 0.35 counts it hidden, taken as a guess
    (True, "d3", True),  # c3, c4 leave 0.47 of a piece on d3: hidden, taken as before
])
def test_a_weak_cell_the_recorded_pieces_leave_in_view_needs_a_change_too(knob, name, moved):
    # Fresh game 1033005 (38 degrees, hover, helper-33h): a cell behind two recorded tall
    # pieces, read 0.515 as their echo and set aside as doubtful, was forgotten when a
    # hand's shadow over it at a settle inside a hover read it under 0.5. After the hand it
    # read 0.572 again, new, the reader giving it 0.35 in view (its mask of the front
    # pieces), where those pieces leave 0.61 of a piece there; the image had not changed on
    # it (0.05) and it was taken, the next piece's move on the wrong cell.
    from tests.read.synth import make_view
    from vision.live.change import least_visible_shares

    board = make_view(elevation_deg=38.0, azimuth_deg=0.0, distance_m=0.45)
    feed = Feed(StateTracker(config=TrackerConfig(weak_in_view_least_visible=knob)))
    feed.frames(1.0, board_view=board)
    feed.place("c3", "LRTS", board_view=board)
    feed.place("c4", "DSTH", board_view=board)
    cell = Cell.from_name(name)
    standing = {c: p.value("height") == "tall" for c, p in feed.pieces.items()}
    assert (least_visible_shares(board, standing)[cell] >= 0.5) == (name == "d4")
    feed.frames(1.0, busy=True)
    obs = readings_from_pieces({**feed.pieces, cell: Piece.from_symbol("LSSH")},
                               visible={cell: 0.35}, board_view=board)
    change = {cell: 0.05, Cell.from_name("a1"): 0.02}
    events = feed.frames(6.0, obs=_with_occupancy(obs, cell, 0.572), change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == ([name] if moved else [])


@pytest.mark.parametrize("knob, front_seen, front_change, moved", [
    (True, 0.99, 0.33, "c3"),  # c3 in full view reads its piece: d3 behind only sees it
    (False, 0.99, 0.33, "d3"),  # knob off: the change's near-tied pick, d3
    (True, 0.63, 0.33, "d3"),  # c3 half hidden (1026002's c4): its reading is no floor's
    (True, 0.99, 0.15, "d3"),  # d3 explains the change alone: no tie to break
])
def test_a_near_tie_of_the_change_goes_to_the_new_cell_in_full_view(
        knob, front_seen, front_change, moved):
    # Fresh game 1033009 (47 degrees, draw; 38 here) move 10: a light round tall hollow
    # piece put on c3, in full view (0.99), read 0.985; d3 behind it, empty, read 0.922
    # (0.12 in view, the new piece covering it). The change scored d3 0.36 and c3 0.33, and
    # d3 was taken, c3 held as its echo (helper-33h; helper-34d).
    from tests.read.synth import make_view
    from vision.live.arrivals import can_echo

    board = make_view(elevation_deg=38.0, azimuth_deg=0.0, distance_m=0.45)
    c3, d3 = Cell.from_name("c3"), Cell.from_name("d3")
    # hidden_pick_gives_way (session 39) would give d3's pick to c3 in front on its own rule
    config = TrackerConfig(full_view_arrival=knob, hidden_pick_gives_way=False)
    assert can_echo(board, d3, c3, config) and not can_echo(board, c3, d3, config)
    feed = Feed(StateTracker(config=config))
    feed.frames(1.0, board_view=board)
    feed.place("a1", "DRSS", board_view=board)
    feed.frames(1.0, busy=True)
    piece = Piece.from_symbol("LRTH")
    feed.pieces[c3] = piece
    obs = readings_from_pieces({**feed.pieces, d3: piece}, visible={c3: front_seen, d3: 0.12},
                               board_view=board)
    obs = _with_occupancy(_with_occupancy(obs, c3, 0.985), d3, 0.922)
    change = {c3: front_change, d3: 0.36, Cell.from_name("b3"): 0.25}
    events = feed.frames(1.0, obs=obs, change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == [moved]


@pytest.mark.parametrize("knob, back_seen, front_change, moved", [
    (True, 0.02, 0.251, "c3"),  # d3 out of view reads c3's top: c3 is the arrival
    (False, 0.02, 0.251, "d3"),  # knob off: c3 (0.896) doubtful beside d3 (0.938)
    (True, 0.52, 0.251, "d3"),  # d3 in view (1038011's move 5): its reading is its own
    (True, 0.02, 0.18, "d3"),  # no dead heat: the change tells them
])
def test_a_cell_out_of_view_gives_way_to_the_cell_in_front_in_a_dead_heat(
        knob, back_seen, front_change, moved):
    # Fresh game 1038014 (36 degrees) move 8: a light tall square put on c4 behind a
    # recorded tall piece (0.42 of it in view), read 0.896; its top over d4 behind it, read
    # 0.938 with 0.02 in view. The change scored d4 0.263 and c4 0.251; c4, under
    # ``sure_piece_probability`` beside d4, was set aside as doubtful and d4 taken
    # (here c3 and d3, as in the full-view test above).
    from tests.read.synth import make_view
    from vision.live.arrivals import can_echo

    board = make_view(elevation_deg=38.0, azimuth_deg=0.0, distance_m=0.45)
    c3, d3 = Cell.from_name("c3"), Cell.from_name("d3")
    config = TrackerConfig(hidden_pick_gives_way=knob)
    assert can_echo(board, d3, c3, config) and not can_echo(board, c3, d3, config)
    feed = Feed(StateTracker(config=config))
    feed.frames(1.0, board_view=board)
    feed.place("a1", "DRSS", board_view=board)
    feed.frames(1.0, busy=True)
    piece = Piece.from_symbol("LSTS")
    feed.pieces[c3] = piece
    obs = readings_from_pieces({**feed.pieces, d3: piece}, visible={c3: 0.42, d3: back_seen},
                               board_view=board)
    obs = _with_occupancy(_with_occupancy(obs, c3, 0.896), d3, 0.938)
    change = {c3: front_change, d3: 0.263, Cell.from_name("b3"): 0.09}
    events = feed.frames(1.0, obs=obs, change=change)
    assert [e["name"] for e in events if e["type"] == "move"] == [moved]


@pytest.mark.parametrize("knob, risen, back_after, back_change, moved", [
    (True, "c2", 0.495, 0.32, "b2"),  # the image changed most on b2: c2 behind reads its top
    (False, "c2", 0.495, 0.32, "c2"),  # knob off: the plain rise takes c2
    (True, "c2", 0.495, 0.15, "c2"),  # the image changed less on b2 than on c2 (0.18)
    (True, "c2", 0.30, 0.32, "c2"),  # b2's own reading hardly rose (0.15 nats)
    (True, "b4", 0.495, 0.32, "b4"),  # b4 cannot see a piece on b2: its rise is its own
])
def test_a_hidden_arrivals_rise_behind_the_cell_the_image_changed_on_is_its_echo(
        knob, risen, back_after, back_change, moved):
    # Fresh low-angle game 1034105 (34 degrees, helper-35c) move 6: a short piece put on b1
    # straight behind a1's recorded tall piece (0.10 of a piece there in view) read 0.27 ->
    # 0.50 (0.96 nats up) with the image's change 0.32; its top, above the front piece,
    # fell over c1 behind it in the image, which read 0.05 -> 0.38 (2.38 nats, 0.43 in view,
    # change 0.18). The plain hidden arrival took c1.
    board, b2, other, feed = _b2_and_behind(34.0, risen,
                                            TrackerConfig(hidden_arrival_echo_to_change=knob))
    feed.place("a2", "DRTH", board_view=board)

    def seen(p_back, p_other):
        obs = readings_from_pieces(feed.pieces, visible={b2: 0.3, other: 0.43},
                                   board_view=board)
        return _with_occupancy(_with_occupancy(obs, b2, p_back), other, p_other)

    feed.frames(1.0, obs=seen(0.27, 0.05))
    feed.frames(1.0, busy=True)
    events = feed.frames(1.0, obs=seen(back_after, 0.38), change={b2: back_change, other: 0.18})
    assert [e["name"] for e in events if e["type"] == "move"] == [moved]
    if moved == "b2":
        assert any("c2 behind it reads its piece" in e.get("message", "") for e in events)
        assert feed.tracker._hidden_guess[b2] is True  # no line rests on it unforced


@pytest.mark.parametrize("knob, before, after, inside, outside, visible, other, moved", [
    (True, 0.05, 0.08, 0.225, 0.02, 0.26, 0.0, True),  # 1035003's c3, read empty before
    (True, 0.81, 0.88, 0.225, 0.02, 0.26, 0.0, True),  # ...read as the front piece's phantom
    (False, 0.05, 0.08, 0.225, 0.02, 0.26, 0.0, False),  # knob off
    (True, 0.05, 0.08, 0.225, 0.30, 0.26, 0.0, False),  # more outside: the front piece nudged
    (True, 0.05, 0.08, 0.225, 0.02, 0.45, 0.0, False),  # half in view: the scores see it
    (True, 0.05, 0.08, 0.03, 0.0, 0.26, 0.0, False),  # a few pixels: no whole piece's top
    (True, 0.05, 0.08, 0.225, 0.02, 0.26, 0.15, False),  # c2 changed as much: not unique
])
def test_a_hidden_cell_whose_change_lies_under_the_front_piece_is_the_move(
        knob, before, after, inside, outside, visible, other, moved):
    # Fresh game 1035003 (42 degrees, helper-35f) move 8: a short light piece put straight
    # behind a recorded dark tall one showed its top above it, but the modelled front
    # silhouette (30 mm wide, 67 mm tall; the set's 25 mm, 60 mm) covered all of it: 93 of
    # the 101 changed pixels lay in c3's short silhouette where the model hides it, none in
    # its visible part, change score 0.00, occupancy 0.82 -> 0.88. The move was lost. With
    # ``hidden_arrival_covered_change`` the change under the front piece tells the move.
    from vision.live.change import CoveredChange
    feed = Feed(StateTracker(config=TrackerConfig(hidden_arrival_covered_change=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    feed.place("b1", "DSTS")
    c1, c2 = Cell.from_name("c1"), Cell.from_name("c2")

    def reading(p):
        return _with_occupancy(readings_from_pieces(feed.pieces, visible={c1: 0.3}), c1, p)

    feed.frames(1.0, obs=reading(before))
    feed.frames(1.0, busy=True)
    covered = {c1: CoveredChange(inside, outside, visible), c2: CoveredChange(other, 0.0, 0.2)}
    scores = {Cell(r, k): 0.0 for r in range(4) for k in range(4)
              if Cell(r, k) not in feed.pieces}
    events = feed.frames(1.0, obs=reading(after), change=scores, covered=covered)
    assert [e["name"] for e in events if e["type"] == "move"] == (["c1"] if moved else [])
    if moved:
        assert any("rise above the pieces in front" in e.get("message", "") for e in events)
        assert feed.tracker._hidden_guess[c1] is True  # never read: no line rests on it


@pytest.mark.parametrize("knob, placed, change, inside, outside, moves", [
    (True, False, 0.0, 0.0, 0.0, []),  # a lamp, nothing placed, the image unchanged on c3
    (False, False, 0.0, 0.0, 0.0, ["c3"]),  # knob off: the phantom taken as a move
    (True, True, 0.6, 0.0, 0.0, ["c3"]),  # a piece put on c3 changes the image there: the move
    (True, True, 0.0, 0.2, 0.0, ["c3"]),  # ...or where it rises above the pieces in front
    (True, False, 0.0, 0.08, 1.5, []),  # ...but not along the front outlines (a lamp)
    (True, False, None, 0.0, 0.0, ["c3"]),  # the change not measured: as before
])
def test_a_flicker_read_surely_after_a_hand_is_no_move_where_the_image_did_not_change(
        knob, placed, change, inside, outside, moves):
    # Fresh game 1035004 (30.7 degrees): d2, wholly behind a tall piece, read 0.77 as its
    # phantom; a lamp held the gate busy 0.4 s, after which d2 read 0.907 with the image
    # unchanged on it, and was taken as a move. A flicker read surely after a hand is a
    # piece put there only if the image changed where that piece would stand.
    from vision.live.change import CoveredChange

    feed = Feed(StateTracker(config=TrackerConfig(flicker_needs_change=knob)))
    feed.frames(1.0)
    feed.place("a1", "LRSS")
    c3 = Cell.from_name("c3")
    phantom = {**feed.pieces, c3: Piece.from_symbol("DSTH")}
    assert types(feed.frames(3.0, obs=_with_occupancy(readings_from_pieces(phantom), c3, 0.77))
                 ) == []
    feed.frames(0.4, busy=True)  # over min_hand_s: counts as a hand
    if placed:
        feed.pieces[c3] = Piece.from_symbol("DSTH")
    scores = None if change is None else {c3: change, Cell.from_name("d4"): 0.0}
    covered = {c3: CoveredChange(inside, outside, 0.1)} if inside else None
    events = feed.frames(3.0, obs=_with_occupancy(readings_from_pieces(phantom), c3, 0.95),
                         change=scores, covered=covered)
    assert [e["name"] for e in events if e["type"] == "move"] == moves
    if not moves:
        # c3's real piece comes later, changing the image there: taken then
        feed.frames(1.0, busy=True)
        feed.pieces[c3] = Piece.from_symbol("DSTH")
        events = feed.frames(2.0, obs=_with_occupancy(readings_from_pieces(phantom), c3, 0.97),
                             change={c3: 0.7})
        assert [e["name"] for e in events if e["type"] == "move"] == ["c3"]


@pytest.mark.parametrize("knob", [False, True])
def test_a_guess_seen_from_one_still_scene_counts_once_however_its_layout_flickers(knob):
    # Held-out low-angle game 1036209: c3's guess (truly square) read round at P(square)
    # 0.21-0.30 on every frame from 0.35-0.48 of the piece; "all round" was held at the
    # recording settle ("shape never read clearly") and released 0.13 s later, the next
    # frame's lean summed with the settle's. Here d1 reads round 0.7 (0.85 nats, under the
    # 1 nat a guessed part view's shape needs) from 40% of it, then flickers between 30%
    # and 45% in view. With ``gate_guess_still_scene`` the frames of the still scene are
    # one view: the line stays held. A hand that comes and goes, then a clear view of d1,
    # announces it late.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_still_scene=knob)))
    feed.frames(1.0)
    for name, sym in [("a1", "DRSH"), ("b1", "LRTS"), ("c1", "DRTH")]:
        feed.place(name, sym)
    d1 = Cell.from_name("d1")
    weak = {d1: {"shape": 0.3}}
    t_left, events = feed.place("d1", "LRSS", settle_s=0.9, odds=weak, visible={d1: 0.4})
    assert any("d1 only partly read" in e.get("message", "") for e in events)
    for visible in [0.3, 0.45] * 10:
        events += feed.frames(0.1, odds=weak, visible={d1: visible})
    quartos = [e for e in events if e["type"] == "quarto"]
    assert any("a1-b1-c1-d1" in e.get("message", "")
               and "its shape never read clearly" in e["message"] for e in events)
    if not knob:
        (quarto,) = quartos
        assert quarto["t"] - t_left < 1.0  # released within the still scene
        return
    assert not quartos
    feed.frames(1.0, busy=True)  # a hand comes and goes; nothing new is put down
    events = feed.frames(1.0, odds={d1: {"shape": 0.1}}, visible={d1: 0.9})
    (quarto,) = [e for e in events if e["type"] == "quarto"]
    assert quarto["shared"] == {"shape": "round"}


@pytest.mark.parametrize("knob", [False, True])
def test_a_value_read_by_elimination_through_a_guess_is_held_like_a_guess(knob):
    # Held-out low-angle game 1036209: a square piece behind a tall one read round 0.75
    # and was recorded as a guess, the light round short solid piece; d4's piece, that very
    # round piece, then read square 0.53 from 29% of it and was recorded light square short
    # solid (its round rival taken by the guess): "all square" was shouted at once, the
    # joint decoding making d4 square through the guess's readings. Here b3 is the guess
    # (shape 0.25 from 40%), d1 the piece read by elimination (shape 0.53 from 30%). With
    # ``gate_guess_elimination`` d1's shape is held like a guess's: the line is named in a
    # warning, not shouted; a clear view of d1 later announces it.
    feed = Feed(StateTracker(config=TrackerConfig(gate_guess_elimination=knob)))
    feed.frames(1.0)
    for name, sym in [("a1", "DSSH"), ("b1", "LSTS"), ("c1", "DSTH")]:
        feed.place(name, sym)
    b3, d1 = Cell.from_name("b3"), Cell.from_name("d1")
    weak = {b3: {"shape": 0.25}, d1: {"shape": 0.53}}
    visible = {b3: 0.4, d1: 0.3}
    _, events = feed.place("b3", "LSSS", settle_s=2.0, odds=weak, visible=visible)
    assert any("b3 only partly read" in e.get("message", "") for e in events)
    assert feed.tracker.game.board[b3] == Piece.from_symbol("LRSS")
    _, events = feed.place("d1", "LRSS", settle_s=2.0, odds=weak, visible=visible)
    assert feed.tracker.game.board[d1] == Piece.from_symbol("LSSS")
    assert not any("d1 only partly read" in e.get("message", "") for e in events)
    quartos = [e for e in events if e["type"] == "quarto"]
    if not knob:
        assert quartos and quartos[0]["shared"] == {"shape": "square"}
        return
    assert not quartos
    assert any("a1-b1-c1-d1" in e.get("message", "")
               and "the piece on d1 reads square only by elimination through the guess on b3"
               in e["message"] for e in events if e["type"] == "warning")
    events = feed.frames(1.0, odds={b3: {"shape": 0.25}, d1: {"shape": 0.95}},
                         visible={b3: 0.4, d1: 0.9})
    (quarto,) = [e for e in events if e["type"] == "quarto"]
    assert quarto["shared"] == {"shape": "square"}
def _steep_pair():
    """A board seen from 75 degrees and two neighbouring cells along the line of sight:
    (the cell behind, the cell in front), the front one unable to see a piece behind it
    (:func:`can_echo`), and the generic silhouettes of a tall piece on each (gate scale)."""
    import cv2

    from tests.read.synth import make_view
    from vision.live.arrivals import can_echo
    from vision.live.change import ChangeConfig, silhouette_polygon

    board = make_view(elevation_deg=75.0, azimuth_deg=0.0, distance_m=0.47)
    back, front = Cell.from_name("c3"), Cell.from_name("b3")
    config = TrackerConfig()
    assert not can_echo(board, front, back, config)
    cfg = ChangeConfig()

    def fill(cell, scale=0.25):
        mask = np.zeros((181, 321), np.uint8)
        cv2.fillConvexPoly(mask, silhouette_polygon(board, cell, cfg.piece_diameter_m,
                                                    cfg.tall_height_m, scale), 1)
        return mask.astype(bool)

    return board, back, front, fill(back), fill(front)


@pytest.mark.parametrize("knob, front_before, front_placed, mapped, moves", [
    (True, False, False, True, ["c3"]),  # the front cell read the new piece's shadow: held
    (False, False, False, True, ["c3", "b3"]),  # knob off: both taken, as main did
    (True, False, True, True, ["c3", "b3"]),  # a piece put on b3 too (a missed settle): both
    (True, True, False, True, ["c3", "b3"]),  # b3 read occupied before the hand: as before
    (True, False, False, False, ["c3", "b3"]),  # the changed mask not kept: as before
])
def test_a_second_new_cell_on_which_the_image_did_not_change_is_no_move(
        knob, front_before, front_placed, mapped, moves):
    # Fresh game 1036018 (74.5 degrees), move 1: a dark tall piece put on c1; d1 in front of
    # it, read empty before, read 0.95 occupied in full view after (a light piece, two
    # attributes apart, so no echo rule held it), with 0.10 change (the new piece's
    # shadow over a corner of it), and both were taken: every later move one index off.
    # One hand brings one piece; a cell seen empty before the hand holds a piece put since
    # only if the image changed on it as that piece would change it.
    from vision.live.change import ChangeMap

    board, back, front, back_mask, front_mask = _steep_pair()
    feed = Feed(StateTracker(config=TrackerConfig(co_arrival_own_change=knob)))
    feed.frames(1.0, board_view=board)
    if front_before:  # a piece stood there, read, but not taken (a flicker)
        feed.frames(1.0, obs=readings_from_pieces({front: Piece.from_symbol("LSTS")},
                                                  board_view=board))
    feed.frames(1.0, busy=True)
    feed.pieces[back] = Piece.from_symbol("DSTH")
    seen = {**feed.pieces, front: Piece.from_symbol("LSTS")}
    changed = back_mask.copy()
    # the new piece's shadow over a corner of the front cell
    ys, xs = np.nonzero(front_mask & ~back_mask)
    changed[ys[: len(ys) // 5], xs[: len(xs) // 5]] = True
    if front_placed:
        changed |= front_mask
    cmap = ChangeMap(changed, 0.25, board, {}) if mapped else None
    events = feed.frames(2.0, obs=readings_from_pieces(seen, board_view=board),
                         change={back: 0.55, front: 0.25 if front_placed else 0.1},
                         change_map=cmap)
    # (two cells taken in one settle are in board order: their order is a guess)
    assert sorted(e["name"] for e in events if e["type"] == "move") == sorted(moves)
    held = moves == ["c3"]
    assert any("not taken as a move" in e.get("message", "") for e in events) == held
    if held:
        # never silently dropped: held back, and taken when a later hand puts a piece
        # there (it then reads otherwise, and the image changes on it)
        assert front in feed.tracker._arrivals.held_back
        feed.frames(1.0, busy=True)
        feed.pieces[front] = Piece.from_symbol("DRSS")
        later = ChangeMap(front_mask, 0.25, board, {back: True})
        events = feed.frames(2.0, obs=readings_from_pieces(feed.pieces, board_view=board),
                             change={front: 0.8}, change_map=later)
        assert [e["name"] for e in events if e["type"] == "move"] == ["b3"]
        assert feed.tracker.game.board[front] == Piece.from_symbol("DRSS")
@pytest.mark.parametrize("knob, scores, arrival", [
    (True, (0.58, 0.49), "held"),  # the image changed most on the held cell: its piece
    (False, (0.58, 0.49), "behind"),  # knob off: the fresh cell behind it, as before
    (True, (0.40, 0.49), "behind"),  # the change fits the fresh cell better
    (True, (0.05, 0.02), "behind"),  # nothing like a piece changed on the held cell
])
def test_a_piece_put_on_a_held_echo_is_the_move_and_the_cell_behind_its_echo(
        knob, scores, arrival):
    # Fresh game 1036012 (31.5 degrees) move 9: c1, behind b1's tall piece, was held as
    # its echo since move 7. A tall piece put on c1 changed the image there most (0.58)
    # and its colour read anew; d1 behind it, seeing the new piece's top, turned occupied
    # (change 0.49). d1 was the one fresh cell and was taken: the move on the wrong cell.
    view = _view()
    b2 = Cell.from_name("b2")
    held = _behind(view, b2)
    behind = _behind(view, held)
    from vision.live.arrivals import can_echo

    config = TrackerConfig(held_echo_arrival=knob)
    assert can_echo(view, held, b2, config) and can_echo(view, behind, held, config)
    feed = Feed(StateTracker(config=config))
    feed.frames(1.0, obs=readings_from_pieces({}, board_view=view))
    feed.frames(1.0, busy=True, obs=readings_from_pieces({}, board_view=view))
    feed.pieces[b2] = Piece.from_symbol("DSTS")
    events = feed.frames(2.0, obs=_echo_of(feed, held, b2, board_view=view),
                         change={held: 0.3, b2: 0.7})
    assert [e["name"] for e in events if e["type"] == "move"] == ["b2"]
    assert any(held.name in e.get("message", "") and "not taken" in e.get("message", "")
               for e in events)
    feed.frames(1.0, busy=True, obs=readings_from_pieces({}, board_view=view))
    feed.pieces[held] = Piece.from_symbol("LSTH")
    seen = readings_from_pieces({**feed.pieces, behind: Piece.from_symbol("LSSH")},
                                board_view=view)
    obs = _with_occupancy(_with_occupancy(seen, behind, 0.97), held, 0.98)
    events = feed.frames(2.0, obs=obs, change={held: scores[0], behind: scores[1]})
    moves = [e["name"] for e in events if e["type"] == "move"]
    assert moves == [held.name if arrival == "held" else behind.name]
    if arrival == "held":
        assert any(behind.name in e.get("message", "") and "not taken" in e.get("message", "")
                   for e in events)


@pytest.mark.parametrize("knob, flicker_knob, phantom_change, moves", [
    (True, False, 0.0, ["new"]),  # the phantom stood unchanged: aside, the new cell is taken
    (True, True, 0.0, ["new"]),  # the same with ``flicker_needs_change``
    (False, True, 0.0, []),  # knob off: the phantom stays a flicker but bars the real piece
    # both off: the phantom is taken too (the real piece by ``changed_beside_unchanged``,
    # the image having changed on it alone; in 1036015 a second cell changed as much)
    (False, False, 0.0, ["phantom", "new"]),
    (True, True, 0.5, ["phantom"]),  # the image changed on the phantom: a piece there
])
def test_a_phantom_read_surely_after_a_hand_stays_aside_where_the_image_did_not_change(
        knob, flicker_knob, phantom_change, moves):
    # Fresh game 1036015 move 4: c1, behind b1's tall piece, read 0.83-0.88 for 6 s as its
    # phantom (set aside). After the next hand it read 0.905 with no change on it, while
    # d2, the real piece (0.868, change 0.30), was then doubtful beside a "sure" cell and
    # c1 was taken as the move. With the knob the phantom stays aside and sets no bar.
    view = _view()
    a4 = Cell.from_name("a4")
    phantom = _behind(view, a4)
    new = next(c for c in (Cell.from_name(n) for n in ("d1", "a1", "d4"))
               if c not in (a4, phantom))
    config = TrackerConfig(standing_phantom_stays_aside=knob,
                           flicker_needs_change=flicker_knob)
    feed = Feed(StateTracker(config=config))
    feed.frames(1.0, obs=readings_from_pieces({}, board_view=view))
    feed.place("a4", "DRTS", board_view=view)
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["a4"]
    feed.frames(2.0, obs=_echo_of(feed, phantom, a4, p_occupied=0.85, board_view=view))
    assert [e["name"] for e in feed.events if e["type"] == "move"] == ["a4"]
    feed.frames(1.0, busy=True, obs=readings_from_pieces({}, board_view=view))
    feed.pieces[new] = Piece.from_symbol("LRTS")
    obs = _with_occupancy(_echo_of(feed, phantom, a4, p_occupied=0.91, board_view=view),
                          new, 0.87)
    events = feed.frames(2.0, obs=obs, change={new: 0.3, phantom: phantom_change})
    taken = [e["name"] for e in events if e["type"] == "move"]
    assert sorted(taken) == sorted(new.name if m == "new" else phantom.name for m in moves)
