"""Correcting the record when the board, read again, contradicts it."""

import math

import pytest

from tests.live.test_tracker import Feed, types
from vision.live.evidence import CellEvidence
from vision.live.repair import propose_repair
from vision.live.tracker import StateTracker, TrackerConfig, readings_from_pieces
from vision.rules import Cell, Piece

A1, B2, C3 = Cell.from_name("a1"), Cell.from_name("b2"), Cell.from_name("c3")
SURE = math.log(0.9 / 0.1)


def _evidence(symbol, confidence=0.95, **odds):
    ev = CellEvidence(6)
    obs = readings_from_pieces({A1: Piece.from_symbol(symbol)}, confidence=confidence,
                               odds={A1: odds})
    for _ in range(3):
        ev.add(obs.reading(A1), 0.02)
    return ev


def test_a_misread_and_the_piece_it_pushed_aside_are_swapped():
    # a1 holds LSTS, misread short when it came (recorded LSSS); the real LSSS came later on
    # b2 and was recorded LSTS. Now b2 reads short surely and a1 is unsure of its height.
    record = {A1: Piece.from_symbol("LSSS"), B2: Piece.from_symbol("LSTS"),
              C3: Piece.from_symbol("DRTH")}
    evidence = {A1: _evidence("LSSS", height=0.45), B2: _evidence("LSSS"),
                C3: _evidence("DRTH")}
    repair = propose_repair(record, evidence, min_gain=SURE, max_cells=2)
    assert repair is not None
    assert repair.changes == {A1: Piece.from_symbol("LSTS"), B2: Piece.from_symbol("LSSS")}
    assert repair.gain > SURE
    # the same readings do not clear a stricter confidence, nor a one-cell limit
    assert propose_repair(record, evidence, min_gain=repair.gain + 0.1, max_cells=2) is None
    assert propose_repair(record, evidence, min_gain=SURE, max_cells=1) is None


def test_a_record_the_readings_agree_with_stands():
    record = {A1: Piece.from_symbol("LSSS"), B2: Piece.from_symbol("DRTH")}
    evidence = {A1: _evidence("LSSS", height=0.45), B2: _evidence("DRTH")}
    assert propose_repair(record, evidence, min_gain=SURE, max_cells=2) is None
    assert propose_repair(record, {}, min_gain=SURE, max_cells=2) is None


def test_a_cell_not_read_now_keeps_its_piece_and_that_piece_is_not_free():
    # b2 is hidden now (no evidence): its recorded LSSS stays, so a1, reading LSSS, cannot
    # take it; the next best free piece for a1 is its recorded one.
    record = {A1: Piece.from_symbol("LSTS"), B2: Piece.from_symbol("LSSS")}
    evidence = {A1: _evidence("LSSS", height=0.3)}
    assert propose_repair(record, evidence, min_gain=SURE, max_cells=2) is None
    # ...while a free piece it reads surely replaces it
    evidence = {A1: _evidence("DSSS", height=0.1)}
    repair = propose_repair(record, evidence, min_gain=SURE, max_cells=2)
    assert repair is not None and repair.changes == {A1: Piece.from_symbol("DSSS")}



def test_a_present_reading_must_outweigh_the_one_that_recorded_the_piece():
    # a1 was recorded LSTS from a sure reading; under a lamp it now reads round (LRTS) at
    # 0.97. Scored on the present alone that is a correction; beside the recording view it
    # is a disagreement, and the record stands.
    record = {A1: Piece.from_symbol("LSTS"), B2: Piece.from_symbol("DRTH")}
    now = {A1: _evidence("LRTS", shape=0.03), B2: _evidence("DRTH")}
    recorded_by = {A1: _evidence("LSTS", shape=0.97), B2: _evidence("DRTH")}
    assert propose_repair(record, now, min_gain=SURE, max_cells=2) is not None
    assert propose_repair(record, now, min_gain=SURE, max_cells=2, recorded_by=recorded_by,
                          recorded_weight=1.0) is None
    # a piece recorded from a weak reading (a guess) is still corrected
    recorded_by[A1] = _evidence("LSTS", shape=0.6)
    repair = propose_repair(record, now, min_gain=SURE, max_cells=2, recorded_by=recorded_by,
                            recorded_weight=1.0)
    assert repair is not None and repair.changes == {A1: Piece.from_symbol("LRTS")}


def test_a_pushed_aside_piece_is_still_swapped_when_its_arrival_read_it_right():
    # a1 (truly LSTS) was misread short and recorded LSSS, surely; the real LSSS came to b2,
    # read right but recorded LSTS (its piece was taken). Now both read right: b2's arrival
    # and present agree, and the swap goes through although a1's arrival disagrees.
    record = {A1: Piece.from_symbol("LSSS"), B2: Piece.from_symbol("LSTS")}
    now = {A1: _evidence("LSTS"), B2: _evidence("LSSS")}
    recorded_by = {A1: _evidence("LSSS"), B2: _evidence("LSSS")}
    repair = propose_repair(record, now, min_gain=SURE, max_cells=2, recorded_by=recorded_by,
                            recorded_weight=1.0)
    assert repair is not None
    assert repair.changes == {A1: Piece.from_symbol("LSTS"), B2: Piece.from_symbol("LSSS")}

def test_tracker_corrects_a_recorded_piece_the_board_contradicts():
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "LRSS", odds={A1: {"color": 0.35}})  # read light, unsurely
    feed.frames(1.0, busy=True)  # a hand passes (a shadow goes with it)
    feed.pieces[A1] = Piece.from_symbol("DRSS")  # re-read on the next settle: dark, surely
    events = feed.frames(3.0)
    assert types(events) == ["warning", "correction"]
    assert "a1 reads as dark round short solid" in events[0]["message"]
    assert "confidence 0.9" in events[0]["message"]
    assert events[1]["index"] == 1 and events[1]["was"]["color"] == "light"
    assert feed.tracker.game.board[A1] == Piece.from_symbol("DRSS")
    assert [m.piece for m in feed.tracker.game.moves] == [Piece.from_symbol("DRSS")]
    feed.frames(1.0, busy=True)
    assert feed.frames(3.0) == []  # corrected once, then the record agrees


def test_tracker_announces_a_line_that_a_correction_reveals():
    # a1 recorded tall (LRTS) but it is short: a1-d1 "all short" exists once it is corrected
    feed = Feed(StateTracker(config=TrackerConfig(quarto_confidence=0.5)))
    feed.frames(1.0)
    tallish = {A1: {"height": 0.65}}  # a1 reads tall, unsurely, until d1 comes
    feed.place("a1", "LRSS", odds=tallish)
    assert feed.tracker.game.board[A1] == Piece.from_symbol("LRTS")
    feed.place("b1", "DRSH", odds=tallish)
    feed.place("c1", "LSSH", odds=tallish)
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d1")] = Piece.from_symbol("DSSS")
    events = feed.frames(3.0)
    assert types(events)[0] == "move"
    assert "correction" in types(events) and "quarto" in types(events)
    quarto = next(e for e in events if e["type"] == "quarto")
    assert quarto["after_move"] == 4
    assert types(events).index("correction") < types(events).index("quarto")


def test_a_sure_reading_does_not_overturn_the_sure_one_that_recorded_the_piece():
    # a1 was read light surely when it came; under a lamp it reads dark as surely. Two
    # views disagree: the record is kept, with a warning, not corrected. Scoring the
    # present view alone (weight 0, sessions 5-14) corrected it.
    for weight, corrected in ((1.0, False), (0.0, True)):
        feed = Feed(StateTracker(config=TrackerConfig(repair_recorded_weight=weight)))
        feed.frames(1.0)
        feed.place("a1", "LRSS")
        feed.pieces[A1] = Piece.from_symbol("DRSS")
        events = feed.frames(3.0)
        assert ("correction" in types(events)) == corrected
        assert "warning" in types(events)
        assert feed.tracker.game.board[A1] == Piece.from_symbol("DRSS" if corrected else "LRSS")


def test_repair_confidence_is_validated():
    for bad in (0.3, 1.5):
        with pytest.raises(ValueError):
            TrackerConfig(repair_confidence=bad)


def test_a_poorer_view_does_not_overturn_what_a_fuller_one_recorded():
    # a1 recorded LRSH on a full view; a tall piece put in front hides 40% of it and the
    # hole is no longer seen (read solid). That view must not correct the record; the same
    # reading seen as fully as before does. (The present view is weighed alone here, so
    # that the view rule is what decides: a sure recording outweighs a sure re-reading.)
    for visible_now, corrected in ((0.6, False), (0.95, True)):
        feed = Feed(StateTracker(config=TrackerConfig(repair_recorded_weight=0.0)))
        feed.frames(1.0)
        feed.place("a1", "LRSH", visible={A1: 1.0})
        feed.place("a2", "DRTS", visible={A1: 1.0})
        feed.pieces[A1] = Piece.from_symbol("LRSS")
        events = feed.frames(3.0, visible={A1: visible_now})
        assert ("correction" in types(events)) == corrected
        assert feed.tracker.game.board[A1] == Piece.from_symbol("LRSS" if corrected else "LRSH")


def test_after_the_view_moved_the_new_view_is_the_measure():
    # After a bump the visible fractions of the old view say nothing of the new one.
    # (The present view weighed alone, as in the test above.)
    feed = Feed(StateTracker(config=TrackerConfig(repair_recorded_weight=0.0)))
    feed.frames(1.0)
    feed.place("a1", "LRSH", visible={A1: 1.0})
    feed.tracker.view_moved()
    feed.pieces[A1] = Piece.from_symbol("LRSS")
    events = feed.frames(3.0, visible={A1: 0.6})
    assert "correction" in types(events)


def test_a_chain_of_pushed_aside_pieces_is_corrected_in_one_go():
    # a1 (DSSS) was read round on arrival (recorded DRSS); the real DRSS came on b1 and, its
    # piece taken, was recorded as the next likeliest (LRSS); the real LRSS came on c1 and
    # was recorded LRTS. Three cells wrong from one misread: one correction of three cells.
    B1, C1 = Cell.from_name("b1"), Cell.from_name("c1")
    # Re-checks wait past each placement's settle here (recheck_s), so that the chain builds
    # up before any correction: the chain, not the timing, is under test. The trade of a
    # guess for its own likeliest piece (trade_guess_own_best) would mend the chain as it
    # builds; it is off here so that the repair's chain itself is tested.
    for max_cells, corrected in ((2, False), (TrackerConfig().repair_max_cells, True)):
        feed = Feed(StateTracker(config=TrackerConfig(repair_max_cells=max_cells,
                                                      recheck_s=1.5,
                                                      trade_guess_own_best=False)))
        feed.frames(1.0)
        weak = {A1: {"shape": 0.45}, B1: {"color": 0.8}, C1: {"height": 0.2}}
        feed.place("a1", "DSSS", odds=weak)
        feed.place("b1", "DRSS", odds=weak)
        feed.place("c1", "LRSS", odds=weak)
        board = feed.tracker.game.board
        assert (board[A1], board[B1], board[C1]) == tuple(
            Piece.from_symbol(s) for s in ("DRSS", "LRSS", "LRTS"))
        events = feed.frames(3.0, odds=weak)
        assert (types(events).count("correction") == 3) == corrected
        if corrected:
            assert (board[A1], board[B1], board[C1]) == tuple(
                Piece.from_symbol(s) for s in ("DSSS", "DRSS", "LRSS"))


def test_a_guess_is_corrected_from_any_view():
    # a1 was only partly read when it came (shape unsure: recorded DRSS). Later, with a piece
    # in front, it is seen less fully but reads square surely: a guess has no fuller view
    # to protect, so it is corrected.
    feed = Feed()
    feed.frames(1.0)
    feed.place("a1", "DSSS", visible={A1: 1.0}, odds={A1: {"shape": 0.45}})
    assert feed.tracker.game.board[A1] == Piece.from_symbol("DRSS")
    feed.place("a2", "LRTH", visible={A1: 1.0}, odds={A1: {"shape": 0.45}})
    events = feed.frames(3.0, visible={A1: 0.6})
    assert "correction" in types(events)
    assert feed.tracker.game.board[A1] == Piece.from_symbol("DSSS")
