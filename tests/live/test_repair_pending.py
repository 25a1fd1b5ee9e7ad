"""No correction while a new piece waits to be committed (repair_waits_for_pending)."""

from tests.live.test_tracker import Feed
from vision.live.tracker import StateTracker, TrackerConfig
from vision.rules import Cell, Piece
from vision.rules.pieces import ATTRIBUTES

A1, B1 = Cell.from_name("a1"), Cell.from_name("b1")
NEW = Piece.from_symbol("DRTH")


def _reads_as(piece, p):
    """Attribute odds that name ``piece``, attribute by attribute at ``p``."""
    return {name: q if piece.code >> i & 1 else 1.0 - q
            for i, (name, q) in enumerate(zip(ATTRIBUTES, p, strict=True))}


def _run(wait):
    """Game 1033110's sequence: a1 holds a guess (its piece hidden, only its colour read:
    light); the next hand puts the dark round tall hollow piece on b1, which reads it weakly (its
    top at 0.6), so b1 waits ``weak_commit_s`` to be committed; meanwhile a1, behind or
    beside it, reads b1's new piece (an echo: colour and height clearly, shape and top
    weakly, as 1033110's c3 read d3's piece). Returns the record's a1 and b1, the last
    move and the corrected cells."""
    feed = Feed(StateTracker(config=TrackerConfig(repair_waits_for_pending=wait)))
    feed.frames(1.0)
    feed.place("a1", "LSSH", settle_s=2.0, unknown={A1: ["shape", "height", "top"]})
    guess = feed.tracker.game.board[A1]
    assert guess is not None and guess != NEW
    feed.frames(1.0, busy=True)
    feed.pieces[B1] = NEW
    odds = {A1: _reads_as(NEW, (0.99, 0.7, 0.97, 0.6)), B1: {"top": 0.6}}
    feed.frames(2.0, odds=odds)
    moves = [e for e in feed.events if e["type"] == "move"]
    corrected = [e["name"] for e in feed.events if e["type"] == "correction"]
    return feed.tracker.game.board[A1], feed.tracker.game.board[B1], moves[-1], corrected


def test_a_new_piece_waiting_to_be_committed_is_not_given_to_a_recorded_cell():
    # Without the wait, the decode gives a1 the piece still waiting on b1 (not yet played
    # for the record) and b1 then gets what is left.
    a1, b1, move, corrected = _run(False)
    assert a1 == NEW and b1 != NEW and move["name"] == "b1"
    assert corrected and corrected[0] == "a1"
    # Waiting, b1 is committed first with its own piece, which is then no longer free for a1.
    a1, b1, move, corrected = _run(True)
    assert b1 == NEW and a1 != NEW and move["name"] == "b1"
    assert move["piece"] == NEW.attributes
