"""A Quarto is announced only when the readings are sure of the line: line confidence, the
gate that holds unconfirmed lines, and the tracker using it frame by frame."""

import itertools
import math

import pytest

from tests.live.test_tracker import Feed, types
from vision.live.evidence import (
    CellEvidence,
    FlatIn,
    SummedEvidence,
    joint_posteriors,
    line_confidence,
    own_view_cap,
    piece_posterior,
)
from vision.live.linegate import LineGate
from vision.live.tracker import StateTracker, TrackerConfig, readings_from_pieces
from vision.rules import Cell, Piece
from vision.rules.pieces import ALL_PIECES

A1 = Cell.from_name("a1")


def _evidence(symbol, confidence=0.95, frames=3, **odds):
    ev = CellEvidence(6)
    obs = readings_from_pieces(
        {A1: Piece.from_symbol(symbol)}, confidence=confidence, odds={A1: odds}
    )
    for _ in range(frames):
        ev.add(obs.reading(A1), 0.02)
    return ev


def test_posterior_sums_to_one_and_follows_the_readings():
    post = piece_posterior(_evidence("DSTH"), [Piece(c) for c in range(16)])
    assert sum(post.values()) == pytest.approx(1.0)
    assert max(post, key=post.get) == Piece.from_symbol("DSTH")
    assert piece_posterior(_evidence("DSTH"), []) == {}


def test_exclusion_makes_a_weak_attribute_sure():
    weak = _evidence("DSTH", top=0.6)
    both = [Piece.from_symbol("DSTH"), Piece.from_symbol("DSTS")]
    assert piece_posterior(weak, both)[Piece.from_symbol("DSTH")] < 0.7
    assert piece_posterior(weak, both[:1])[Piece.from_symbol("DSTH")] == pytest.approx(1.0)


def test_joint_posteriors_keep_a_piece_read_surely_elsewhere_off_an_ambiguous_cell():
    sure = _evidence("DSTH", confidence=0.99)
    ambiguous = _evidence("DSTH", top=0.5)  # DSTH or DSTS, by its own readings
    alone = piece_posterior(ambiguous, [Piece(c) for c in range(16)])
    first, second = joint_posteriors([sure, ambiguous])
    assert sum(second.values()) == pytest.approx(1.0)
    assert max(first, key=first.get) == Piece.from_symbol("DSTH")
    assert max(second, key=second.get) == Piece.from_symbol("DSTS")
    assert second[Piece.from_symbol("DSTS")] > alone[Piece.from_symbol("DSTS")] + 0.15
    # no piece is spread over more than one cell in total
    assert all(first[p] + second[p] <= 1.0 + 1e-4 for p in first)
    # one cell alone is just its own posterior
    (single,) = joint_posteriors([ambiguous])
    assert single[Piece.from_symbol("DSTS")] == pytest.approx(alone[Piece.from_symbol("DSTS")])
    assert joint_posteriors([]) == []
    with pytest.raises(ValueError):
        joint_posteriors([sure] * 17)


def test_an_evidence_flat_in_an_attribute_scores_as_if_it_were_never_read():
    # Setting an attribute's readings aside is the same as never having read it, for one
    # view and for separate views summed; the other attributes score as before.
    read = _evidence("DSTH", top=0.8, height=0.3)
    unread = _evidence("DSTH", top=None, height=0.3)
    both = _evidence("DSTH", top=None, height=None)
    for piece in ALL_PIECES:
        assert FlatIn(read, ["top"]).score(piece) == pytest.approx(unread.score(piece))
        assert FlatIn(read, ["top", "height"]).score(piece) == pytest.approx(both.score(piece))
    summed = SummedEvidence(read, _evidence("LSTS", top=0.9), weights=[1.0, 0.5])
    flat = SummedEvidence(unread, _evidence("LSTS", top=None), weights=[1.0, 0.5])
    assert [FlatIn(summed, ["top"]).score(p) for p in ALL_PIECES] == pytest.approx(
        [flat.score(p) for p in ALL_PIECES])


def _brute_force_marginals(evidences):
    """Marginals of every distinct assignment of pieces to the cells, enumerated."""
    weights = [[math.exp(e.score(p)) for p in ALL_PIECES] for e in evidences]
    out = [[0.0] * len(ALL_PIECES) for _ in evidences]
    for pieces in itertools.permutations(range(len(ALL_PIECES)), len(evidences)):
        w = math.prod(weights[i][j] for i, j in enumerate(pieces))
        for i, j in enumerate(pieces):
            out[i][j] += w
    return [[v / sum(row) for v in row] for row in out]


def test_joint_posteriors_are_the_exact_marginals_of_distinct_assignments():
    evidences = [
        _evidence("DSTH", top=0.55),
        _evidence("DSTS", height=0.4, color=0.7),
        _evidence("LRTH", confidence=0.8),
        _evidence("DSTH", confidence=0.6),
    ]
    want = _brute_force_marginals(evidences)
    got = joint_posteriors(evidences)
    for row, expected in zip(got, want, strict=True):
        assert [row[p] for p in ALL_PIECES] == pytest.approx(expected, abs=1e-9)


def test_on_a_full_board_a_piece_nobody_can_see_is_what_the_others_leave():
    hidden = Piece.from_symbol("DRSS")
    others = [p for p in ALL_PIECES if p != hidden]
    evidences = [_evidence(p.symbol, confidence=0.99) for p in others]
    unread = CellEvidence(6)  # not one reading
    (*_, last) = joint_posteriors([*evidences, unread])
    assert last[hidden] > 0.9
    # with one cell fewer, the unread cell may hold either piece left
    (*_, last) = joint_posteriors([*evidences[1:], unread])
    assert last[hidden] == pytest.approx(last[others[0]], rel=0.2)
    assert last[hidden] < 0.6


def test_line_confidence_is_the_best_shared_value():
    sure = piece_posterior(_evidence("DSTH"), [Piece(c) for c in range(16)])
    weak = piece_posterior(_evidence("DSTH", height=0.6), [Piece(c) for c in range(16)])
    four_sure = line_confidence([sure] * 4, {"color": "dark"})
    assert 0.7 < four_sure < 1.0
    assert line_confidence([sure] * 3 + [weak], {"height": "tall"}) < 0.6
    # dark is sure in all four, so a second shared value read weakly does not lower it
    assert line_confidence([sure] * 3 + [weak], {"height": "tall", "color": "dark"}) == (
        pytest.approx(four_sure)
    )
    with pytest.raises(ValueError):
        line_confidence([sure], {"color": "purple"})


def _quarto(after_move=4, t=1.0):
    return {"type": "quarto", "t": t, "after_move": after_move,
            "cells": [[0, 0], [0, 1], [0, 2], [0, 3]], "shared": {"height": "short"}}


def test_gate_holds_then_releases_or_drops():
    gate = LineGate(0.5)
    out, warnings = gate.filter([{"type": "move"}, _quarto()], lambda e: 0.2)
    assert types(out) == ["move"] and len(warnings) == 1 and "a1-b1-c1-d1" in warnings[0]
    assert gate.release(lambda e: 0.3, 2.0) == []
    (late,) = gate.release(lambda e: 0.9, 2.5)
    assert late["type"] == "quarto" and late["t"] == 2.5 and late["after_move"] == 4
    # a held line that lapses gives a warning, not a quarto_missed
    gate.filter([{"type": "move"}, _quarto(after_move=6)], lambda e: 0.1)
    missed = dict(_quarto(after_move=6), type="quarto_missed")
    out, warnings = gate.filter([missed, {"type": "move"}], lambda e: 0.1)
    assert types(out) == ["move"] and "lapsed" in warnings[0]
    assert gate.held == []
    with pytest.raises(ValueError):
        LineGate(1.5)


def test_a_line_heard_once_is_not_announced_again_after_a_correction():
    # Fresh game 1022011: a correction a moment after the row was announced changed what
    # its pieces share; the record raised the row again, and "Quarto!" was heard twice.
    gate = LineGate(0.5)
    out, _ = gate.filter([{"type": "move"}, _quarto()], lambda e: 0.9)
    assert types(out) == ["move", "quarto"]
    again = dict(_quarto(), shared={"height": "short", "top": "solid"})
    out, warnings = gate.filter([{"type": "correction"}, again], lambda e: 0.9)
    assert types(out) == ["correction"] and warnings == []
    # A correction that took the line from the record, then one that gives it back: news.
    gate.keep_only([])
    out, _ = gate.filter([{"type": "correction"}, again], lambda e: 0.9)
    assert types(out) == ["correction", "quarto"]
    # So is the line made again by the move after an undo.
    out, _ = gate.filter([{"type": "undo"}, {"type": "move"}, _quarto(t=3.0)], lambda e: 0.9)
    assert types(out) == ["undo", "move", "quarto"]
    # A line held back and raised again with other shared values is held as raised last.
    gate = LineGate(0.5)
    gate.filter([{"type": "move"}, _quarto()], lambda e: 0.2)
    gate.filter([{"type": "correction"}, again], lambda e: 0.2)
    assert [e["shared"] for e in gate.held] == [again["shared"]]


def _line_with_misread_first_piece(feed):
    """a1, b1, c1 placed; a1 was recorded short (read so unsurely) but now reads tall for
    seconds on end."""
    feed.frames(1.0)
    feed.place("a1", "LRSS", odds={A1: {"height": 0.3}})
    for name, sym in [("b1", "DRSH"), ("c1", "LSSH")]:
        feed.place(name, sym)
    feed.pieces[A1] = Piece.from_symbol("LRTS")
    feed.frames(3.0)


def _no_repair():
    """A tracker that keeps the record whatever the board reads (the gate alone at work)."""
    return Feed(StateTracker(config=TrackerConfig(repair_confidence=1.0)))


def test_line_whose_earlier_piece_reads_otherwise_is_not_announced():
    feed = _no_repair()
    _line_with_misread_first_piece(feed)
    # d1 completes a1-d1 "all short" by the record, but a1 reads tall: no Quarto
    _, events = feed.place("d1", "DSSS")
    assert "quarto" not in types(events)
    assert any("possible Quarto a1-b1-c1-d1" in e.get("message", "") for e in events)
    _, events = feed.place("a4", "DRTH")
    assert "quarto_missed" not in types(events)
    assert any("lapsed unconfirmed" in e.get("message", "") for e in events)


def test_held_line_is_announced_once_the_readings_confirm_it():
    feed = _no_repair()
    _line_with_misread_first_piece(feed)
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d1")] = Piece.from_symbol("DSSS")
    feed.pieces[A1] = Piece.from_symbol("LRSS")  # a1 reads short again (a shadow gone)
    events = feed.frames(3.0)
    assert types(events)[:2] == ["move", "warning"]
    (quarto,) = [e for e in events if e["type"] == "quarto"]
    assert quarto["after_move"] == 4 and quarto["t"] > events[0]["t"]


def test_sure_line_is_announced_on_the_move():
    feed = Feed(StateTracker(config=TrackerConfig(quarto_confidence=0.5)))
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSH"), ("c1", "LSSH")]:
        feed.place(name, sym)
    _, events = feed.place("d1", "DSSS")
    assert types(events) == ["move", "quarto"]


@pytest.mark.parametrize("kwargs", [{"quarto_confidence": 1.5}, {"history_frames": 0}])
def test_config_rejects_bad_line_knobs(kwargs):
    with pytest.raises(ValueError):
        TrackerConfig(**kwargs)


def test_a_piece_read_surely_when_it_came_keeps_its_line_when_read_unsurely_now():
    # a1 was read short surely when it came; now (a lamp, a shadow) it reads short only at
    # 0.55. The line a1-d1 "all short" counts both views and is announced; the present
    # readings alone would hold it.
    for counts_recorded, announced in ((True, True), (False, False)):
        feed = Feed(StateTracker(config=TrackerConfig(gate_counts_recorded=counts_recorded,
                                                      repair_confidence=1.0)))
        feed.frames(1.0)
        feed.place("a1", "LRSS")
        unsure = {A1: {"height": 0.45}}
        for name, sym in [("b1", "DRSH"), ("c1", "LSSH")]:
            feed.place(name, sym, odds=unsure)
        feed.frames(3.0, odds=unsure)
        _, events = feed.place("d1", "DSSS", odds=unsure)
        assert ("quarto" in types(events)) == announced


def test_line_through_a_piece_that_appeared_with_another_is_not_announced():
    # One piece arrives per turn: when two appear in one settle, either may be a phantom of
    # the reader, so a line through one of them is held.
    feed = Feed()
    feed.frames(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSH"), ("c1", "LSSH")]:
        feed.place(name, sym)
    feed.tracker.view_moved()  # a bump: two moves may have come in one settle
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("d1")] = Piece.from_symbol("DSSS")
    feed.pieces[Cell.from_name("b3")] = Piece.from_symbol("LRTH")
    events = feed.frames(2.0)
    assert types(events).count("move") == 2
    assert "quarto" not in types(events)
    assert any("possible Quarto a1-b1-c1-d1" in e.get("message", "") for e in events)


def test_pieces_that_appeared_together_are_no_longer_in_doubt_after_a_later_move():
    # Two moves merged into one settle (a1 and b1); once c1 and d1 follow in their own
    # settles, a1 and b1 have stood through new settles: the line a1-d1 made by d1 is sure.
    feed = Feed()
    feed.frames(1.0)
    feed.tracker.view_moved()
    feed.frames(1.0, busy=True)
    feed.pieces[Cell.from_name("a1")] = Piece.from_symbol("LRSS")
    feed.pieces[Cell.from_name("b1")] = Piece.from_symbol("DRSH")
    assert types(feed.frames(2.0)).count("move") == 2
    feed.place("c1", "LSSH")
    _, events = feed.place("d1", "DSSS")
    assert types(events) == ["move", "quarto"]


def test_line_through_a_piece_that_reads_otherwise_now_is_not_announced():
    # a1 read dark for a long time (20 readings of history), then, after a hand, light: a
    # line "all dark" completed now is held, even though the history still leans dark
    feed = Feed()
    sure = {"confidence": 0.99}
    feed.frames(1.0, **sure)
    for name, sym in [("a1", "DRSS"), ("b1", "DRSH"), ("c1", "DSSH")]:
        feed.place(name, sym, settle_s=3.0, **sure)
    feed.frames(1.0, busy=True)
    feed.pieces[A1] = Piece.from_symbol("LRSS")
    feed.pieces[Cell.from_name("d1")] = Piece.from_symbol("DSTH")
    events = feed.frames(0.5, **sure)
    assert "move" in types(events) and "quarto" not in types(events)
    assert any("possible Quarto a1-b1-c1-d1" in e.get("message", "") for e in events)


def test_a_cell_whose_own_views_lean_against_the_shared_value_holds_the_line():
    # Low-angle dev game 3028009: a1 was recorded solid, read hollow (weakly) in the settles
    # since, and the joint decoding made it sure of "solid" anyway, because another cell (a2
    # here) claims the hollow piece of its kind: "all solid" was announced, falsely. The
    # joint decoding may fill in a cell nobody sees; it must not overrule a cell's own views.
    for own_views, announced in ((True, False), (False, True)):
        # (gate_reads_against, session 39, holds it on its own rule: named off)
        feed = Feed(StateTracker(config=TrackerConfig(gate_own_views=own_views,
                                                      gate_reads_against=0.0,
                                                      repair_confidence=1.0)))
        feed.frames(1.0)
        feed.place("a2", "LRTH")
        leaning = {A1: {"top": 0.6}}  # a1's top reads hollow at 0.6
        feed.place("a1", "LRTS", odds=leaning)
        for name, sym in [("b1", "DRSS"), ("c1", "LSSS")]:
            feed.place(name, sym, odds=leaning)
        _, events = feed.place("d1", "DSTS", odds=leaning)
        assert [e["name"] for e in events if e["type"] == "move"] == ["d1"]
        assert feed.tracker.game.board[A1] == Piece.from_symbol("LRTS")
        assert ("quarto" in types(events)) == announced


def test_own_view_cap_counts_only_views_that_lean_against():
    sure_solid = _evidence("LRTS")
    leaning_hollow = _evidence("LRTS", top=0.6)
    assert own_view_cap([sure_solid], "top", "solid") == 1.0
    assert own_view_cap([sure_solid, leaning_hollow], "top", "solid") == pytest.approx(0.4)
    assert own_view_cap([leaning_hollow], "top", "hollow") == 1.0
    assert own_view_cap([sure_solid, leaning_hollow], "top", "hollow") == pytest.approx(0.05)
    assert own_view_cap([CellEvidence(6)], "top", "solid") == 1.0  # never read: no cap


def test_a_poorer_view_that_leans_against_does_not_hold_a_line():
    # Fresh game 1026015: d3 read dark when it came, and light, from behind the pieces put
    # later, in the settles since; the real "all dark" line must not be held by that view.
    # (Seen as fully as ever, the same readings would hold it: the test above.)
    feed = Feed(StateTracker(config=TrackerConfig(gate_own_views=True, repair_confidence=1.0)))
    feed.frames(1.0)
    feed.place("a1", "DRSS")
    feed.place("b1", "DRSH")
    behind = {"visible": {A1: 0.4}, "odds": {A1: {"color": 0.4}}}  # a1 half hidden, "light"
    feed.place("c1", "DSSH", **behind)
    _, events = feed.place("d1", "DSTH", **behind)
    assert types(events) == ["move", "quarto"]


def _echo_then_recorded(on, later="LSTS"):
    """Low-angle dev game 3028003: a piece stood on d1 through settles, held back as an echo
    of the piece that came with it (d2), reading round; after a later hand it was taken, and
    then read square (the square piece beside it seen through), completing a1-d1 "all
    square" by the record."""
    d1, d2 = Cell.from_name("d1"), Cell.from_name("d2")
    feed = Feed(StateTracker(config=TrackerConfig(gate_unrecorded_views=on,
                                                  repair_confidence=1.0)))
    feed.frames(1.0)
    for name, sym in [("a1", "LSSS"), ("b1", "DSSH"), ("c1", "LSTH")]:
        feed.place(name, sym)
    feed.frames(1.0, busy=True)
    feed.pieces[d2] = Piece.from_symbol("DRTS")
    feed.pieces[d1] = Piece.from_symbol("LRTS")
    events = feed.frames(2.0, change={d2: 0.8, d1: 0.05})  # the image changed on d2
    assert [e["name"] for e in events if e["type"] == "move"] == ["d2"]
    feed.place("a4", "DSTH")
    feed.frames(1.0, busy=True)
    feed.pieces[d1] = Piece.from_symbol(later)
    return feed.frames(2.0)


def test_a_cell_that_read_otherwise_while_it_stood_unrecorded_holds_the_line():
    # The settles a cell stood occupied unrecorded are views of its piece too (placed
    # pieces never move); those readings were dropped on recording, so nothing saw d1's
    # views disagree with the line.
    for on, announced in ((True, False), (False, True)):
        events = _echo_then_recorded(on)
        assert [e["name"] for e in events if e["type"] == "move"] == ["d1"]
        assert ("quarto" in types(events)) == announced
        if not announced:
            assert any("possible Quarto a1-b1-c1-d1" in e.get("message", "") for e in events)


def test_what_a_cell_showed_before_another_thing_stood_there_does_not_hold_the_line():
    # Low-angle dev game 3028019: d2, empty, read as a short piece (a neighbour seen there)
    # for two settles; then a tall piece was put on it and its real "all tall" line must
    # stand. A piece never changes: readings that differ in two attributes or more from the
    # settle before showed something else.
    events = _echo_then_recorded(True, later="DSTS")  # colour and shape differ
    assert [e["name"] for e in events if e["type"] == "move"] == ["d1"]
    assert "quarto" in types(events)


def test_a_part_view_read_again_from_the_same_view_counts_once():
    # Low-angle dev game 3028009: c3, seen 0.28 of its area, read hollow at 0.74 in every
    # settle; summed as two separate views (the recording settle and the readings since) it
    # was 0.85. Two looks at one unchanged part view are not independent: they count once.
    c1 = Cell.from_name("c1")
    part = {"visible": {c1: 0.3}, "odds": {c1: {"top": 0.74}}}
    for once, factor in ((True, 1.0), (False, 2.0)):
        feed = Feed(StateTracker(config=TrackerConfig(gate_part_views_once=once)))
        feed.frames(1.0)
        feed.place("c1", "LRSH", **part)
        feed.place("a1", "DSSH", settle_s=2.0, **part)
        tracker = feed.tracker
        recorded = tracker._recordings[c1].readings
        across, present = (branch[0] for branch in tracker._line_evidence([c1]))
        for evidence in (across, present):
            for piece in ALL_PIECES:
                assert evidence.score(piece) == pytest.approx(factor * recorded.score(piece))
    # a cell seen fully, or now seen otherwise than when recorded, keeps its two views
    feed = Feed(StateTracker(config=TrackerConfig(gate_part_views_once=True)))
    feed.frames(1.0)
    feed.place("c1", "LRSH", **part)
    feed.place("a1", "DSSH", visible={c1: 0.9}, odds={c1: {"top": 0.74}})
    assert not feed.tracker._one_part_view(c1, feed.tracker._recordings[c1])
