"""A correction undone by one settle window waits for a later one (repair_hold_reversals)."""

from tests.live.test_tracker import Feed
from vision.live.tracker import StateTracker, TrackerConfig
from vision.rules import Cell, Piece

A1 = Cell.from_name("a1")
LIGHT, DARK = Piece.from_symbol("LRSS"), Piece.from_symbol("DRSS")


def _corrected_then(hold, later):
    """a1 is recorded light (read so at 0.8), corrected to dark (read so at 0.99) on the next
    settle, then seen in one settle window per entry of ``later`` (its odds of dark), a hand
    passing before each. Returns the corrections (was -> piece colours) and a1's piece."""
    feed = Feed(StateTracker(config=TrackerConfig(repair_hold_reversals=hold)))
    feed.frames(1.0)
    feed.place("a1", "LRSS", odds={A1: {"color": 0.2}})
    assert feed.tracker.game.board[A1] == LIGHT
    feed.frames(1.0, busy=True)
    feed.pieces[A1] = DARK
    for dark in (0.99, *later):
        feed.frames(3.0, odds={A1: {"color": dark}})
        feed.frames(1.0, busy=True)
    corrections = [(e["was"]["color"], e["piece"]["color"])
                   for e in feed.events if e["type"] == "correction"]
    return corrections, feed.tracker.game.board[A1]


def test_a_reversal_proposed_in_one_window_only_is_held_back():
    # The second window reads a1 light at 0.7: with the recording's light reading (0.8),
    # which a correction never replaces, that outvotes the correction, and the third
    # (dark at 0.99 again) redoes it: the record flickers. Held back, the reversal is
    # never made, as the next window does not propose it again.
    corrections, piece = _corrected_then(False, (0.3, 0.99))
    assert corrections == [("light", "dark"), ("dark", "light"), ("light", "dark")]
    assert piece == DARK
    corrections, piece = _corrected_then(True, (0.3, 0.99))
    assert corrections == [("light", "dark")]
    assert piece == DARK


def test_a_reversal_proposed_in_two_windows_goes_ahead():
    for hold in (False, True):
        corrections, piece = _corrected_then(hold, (0.3, 0.3))
        assert corrections == [("light", "dark"), ("dark", "light")]
        assert piece == LIGHT
