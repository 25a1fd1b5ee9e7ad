"""The live loop end to end on synthetic frames, with a fake board locator and a fake reader
that decodes pieces drawn as grey discs (grey level encodes the piece), so the real motion
gate, state tracker, scheduler and recorder run on real images."""

import numpy as np
import pytest

from vision.game.record import find_unfinished, read_record
from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardNotFound, BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.live.alerts import AlertPolicy
from vision.live.session import WatchSession, align_view, rotate_view
from vision.live.sources import Frame
from vision.live.tracker import readings_from_pieces
from vision.rules import ALL_CELLS, Cell, Piece

W, H = 640, 480
FPS = 10.0


def make_view():
    intr = Intrinsics.from_fov((W, H), 60.0)
    pose = Pose.look_at(np.array([0.0, -0.35, 0.45]), np.zeros(3))
    return BoardView(Camera(intr, pose), BoardSpec.gigamic())


VIEW = make_view()
CENTERS = VIEW.cell_centers_px()


def draw(pieces, *, hand=None, gain=0):
    img = np.full((H, W, 3), 90 + gain, np.uint8)
    for cell, piece in pieces.items():
        x, y = CENTERS[cell.index]
        yy, xx = np.ogrid[:H, :W]
        img[(xx - x) ** 2 + (yy - y) ** 2 <= 8**2] = 100 + 8 * piece.code + gain
    if hand is not None:  # an arm from the bottom edge to (x, y)
        x, y = hand
        img[int(y) :, int(x) - 30 : int(x) + 30] = (60, 110, 190)
    return img


def fake_reader(image, view, known=None):
    found = {}
    for cell in ALL_CELLS:
        x, y = view.cell_centers_px()[cell.index]
        # decode relative to the background level, so a global gain (a lamp) is tolerated
        g = int(image[round(y), round(x), 0]) - int(image[0, 0, 0]) + 90
        code = (g - 100) / 8.0
        if g != 90 and 0 <= code <= 15.5:
            found[cell] = Piece(round(code))
    return readings_from_pieces(found)


class Scene:
    def __init__(self, session):
        self.session = session
        self.t = 0.0
        self.index = 0
        self.pieces = {}
        self.events = []

    def run(self, seconds, **kw):
        for _ in range(round(seconds * FPS)):
            frame = Frame(draw(self.pieces, **kw), self.t, self.index)
            self.events += self.session.process(frame).events
            self.t = round(self.t + 1 / FPS, 6)
            self.index += 1

    def place(self, name, symbol):
        cell = Cell.from_name(name)
        x, y = CENTERS[cell.index]
        for k in range(6):  # the hand comes in ...
            self.run(0.1, hand=(x + 5 * k, y + 20))
        self.pieces[cell] = Piece.from_symbol(symbol)
        for k in range(6):  # ... and goes away
            self.run(0.1, hand=(x + 5 * k, y + 40 + 60 * k))
        t_left = self.t
        self.run(1.0)
        return t_left


def session_for(tmp_path, **kw):
    return WatchSession(lambda frame, t: VIEW, fake_reader, log_dir=tmp_path, **kw)


def types(events):
    return [e["type"] for e in events]


def test_game_recorded_with_quarto_and_keyframes(tmp_path):
    scene = Scene(session_for(tmp_path))
    scene.run(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS")]:
        scene.place(name, sym)
    t_left = scene.place("d1", "DSSS")
    quarto = [e for e in scene.events if e["type"] == "quarto"]
    assert len(quarto) == 1 and quarto[0]["after_move"] == 4
    assert quarto[0]["t"] - t_left <= 0.5
    scene.events += scene.session.close(scene.t)
    assert types(scene.events) == ["game_start"] + ["move"] * 4 + ["quarto", "game_end"]
    (path,) = tmp_path.glob("*.jsonl")
    record = read_record(path)
    assert record.events == scene.events
    assert len(list(path.with_suffix("").glob("move-*.jpg"))) == 4


def test_lamp_switched_on_and_hover_give_no_event(tmp_path):
    scene = Scene(session_for(tmp_path))
    scene.run(1.0)
    scene.place("b2", "DSTH")
    before = len(scene.events)
    scene.run(3.0, gain=20)  # a lamp: everything brighter, nothing moves afterwards
    x, y = CENTERS[Cell.from_name("c3").index]
    for k in range(20):  # a hand hovers over c3 and leaves without placing
        scene.run(0.1, hand=(x + (k % 3), y + 20))
    scene.run(2.0, gain=20)
    assert scene.events[before:] == []
    scene.session.close(scene.t)


def _row_on_delay(tmp_path, symbols):
    """A scene on a 2-second alert delay whose row a1-d1 gets ``symbols`` in turn; returns
    it and the time the last hand left."""
    scene = Scene(session_for(tmp_path, policy=AlertPolicy("delay", 2.0)))
    scene.run(1.0)
    t_left = 0.0
    for name, sym in zip(("a1", "b1", "c1", "d1"), symbols, strict=True):
        t_left = scene.place(name, sym)
    return scene, t_left


def test_delayed_alert(tmp_path):
    scene, t_left = _row_on_delay(tmp_path, ["LRSS", "DRSS", "LSSS", "DSSS"])
    assert "quarto" not in types(scene.events)
    scene.run(2.0)
    (quarto,) = [e for e in scene.events if e["type"] == "quarto"]
    assert 2.0 <= quarto["t"] - t_left <= 2.6
    scene.session.close(scene.t)


def test_restart_after_kill_continues_the_game(tmp_path):
    first = Scene(session_for(tmp_path))
    first.run(1.0)
    first.place("a1", "LRSS")
    first.place("b1", "DRSS")
    announced = list(first.events)
    # killed here: nothing more is written (the OS closes the file); a new process starts
    # on the rest of the scene
    first.session.recorder.close()
    assert find_unfinished(tmp_path) is not None
    second = Scene(session_for(tmp_path))
    assert second.session.resumed_from is not None
    second.t, second.index, second.pieces = first.t, first.index, dict(first.pieces)
    second.run(1.0)
    second.place("c1", "LSSS")
    second.place("d1", "DSSS")
    second.events += second.session.close(second.t)
    (path,) = tmp_path.glob("*.jsonl")
    record = read_record(path)
    assert record.events[: len(announced)] == announced
    assert [e["name"] for e in record.events if e["type"] == "move"] == ["a1", "b1", "c1", "d1"]
    assert record.events[-1]["result"] == "quarto"


def test_board_lost_is_busy(tmp_path):
    session = WatchSession(lambda f, t: BoardNotFound("no"), fake_reader, log_dir=None)
    result = session.process(Frame(draw({}), 0.0, 0))
    assert result.view is None and result.events == [] and not result.observation


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_align_view_undoes_a_relabelling(k):
    turned = rotate_view(VIEW, k)
    back = align_view(turned, VIEW)
    assert np.allclose(back.cell_centers_px(), VIEW.cell_centers_px(), atol=1e-6)
    if k:
        assert not np.allclose(turned.cell_centers_px(), VIEW.cell_centers_px())


def test_board_lost_and_found_again_keeps_the_games_labelling(tmp_path):
    # The locator loses the board (a bump) and finds it again with its cells labelled a
    # quarter turn on: the game keeps its labelling, so no piece seems to move.
    state = {"lost": False, "turned": False}

    def locator(frame, t):
        if state["lost"]:
            return BoardNotFound("bumped")
        return rotate_view(VIEW, 1) if state["turned"] else VIEW

    scene = Scene(WatchSession(locator, fake_reader, log_dir=tmp_path))
    scene.run(1.0)
    scene.place("a1", "LRSS")
    scene.place("b2", "DRSS")
    state["lost"] = True
    scene.run(0.5)
    state["lost"], state["turned"] = False, True
    scene.run(2.0)
    scene.place("c3", "LSTH")
    moves = [e["name"] for e in scene.events if e["type"] == "move"]
    assert moves == ["a1", "b2", "c3"]
    assert "warning" not in types(scene.events)
    scene.session.close(scene.t)


@pytest.mark.parametrize("lost", [False, True])
def test_two_pieces_in_one_settle_are_both_moves_only_after_the_view_moved(tmp_path, lost):
    # One hand visit brings a1 and b2 at once. With a steady view one hand brings one piece,
    # so the second is held back; if the board was lost meanwhile (a bump), a settle may have
    # been missed, and both are moves.
    state = {"lost": False}

    def locator(frame, t):
        return BoardNotFound("bumped") if state["lost"] else VIEW

    scene = Scene(WatchSession(locator, fake_reader, log_dir=tmp_path))
    scene.run(1.0)
    scene.place("c3", "LSTH")
    x, y = CENTERS[Cell.from_name("a1").index]
    scene.run(0.6, hand=(x, y + 20))
    scene.pieces[Cell.from_name("a1")] = Piece.from_symbol("LRSS")
    scene.pieces[Cell.from_name("b2")] = Piece.from_symbol("DRSS")
    state["lost"] = lost
    scene.run(0.3, hand=(x, y + 60))
    state["lost"] = False
    scene.run(1.5)
    new = sorted(e["name"] for e in scene.events if e["type"] == "move" and e["name"] != "c3")
    assert new == (["a1", "b2"] if lost else [new[0]])
    assert new[0] in ("a1", "b2")
    if not lost:
        assert any("not taken as a move" in e.get("message", "") for e in scene.events)
    scene.session.close(scene.t)


def test_a_move_taken_back_in_the_window_stays_taken_back(tmp_path):
    # The user takes back a1 (a piece they say is not a move); the next turn's piece goes
    # on d4. a1 still reads as before, and must not come back as that turn's move.
    scene = Scene(session_for(tmp_path))
    scene.run(1.0)
    scene.place("a2", "LRSS")
    scene.place("a1", "LRTH")
    scene.events += scene.session.undo_last(scene.t)
    scene.run(2.0)
    scene.place("d4", "DSSS")
    moves = [(e["type"], e["name"], e["index"]) for e in scene.events
             if e["type"] in ("move", "undo")]
    assert moves == [("move", "a2", 1), ("move", "a1", 2), ("undo", "a1", 2),
                     ("move", "d4", 2)]
    scene.events += scene.session.close(scene.t)
    (path,) = tmp_path.glob("*.jsonl")
    assert read_record(path).events == scene.events


def test_a_piece_corrected_in_the_window_is_recorded(tmp_path):
    scene = Scene(session_for(tmp_path))
    scene.run(1.0)
    scene.place("a2", "LRSS")
    scene.place("b3", "DSTS")
    fixed = scene.session.correct_last("top", scene.t)
    scene.events += fixed
    assert [(e["type"], e["name"], e["reason"]) for e in fixed] == [
        ("correction", "b3", "top corrected by hand")]
    scene.run(2.0)  # the reader still sees DSTS there
    scene.events += scene.session.close(scene.t)
    (path,) = tmp_path.glob("*.jsonl")
    record = read_record(path)
    assert record.events == scene.events
    assert [e for e in record.events if e["type"] == "correction"] == fixed


def test_a_correction_by_hand_survives_a_restart(tmp_path):
    scene = Scene(session_for(tmp_path))
    scene.run(1.0)
    scene.place("a2", "LRSS")
    scene.place("b3", "DSTS")
    scene.session.correct_last("top", scene.t)  # the reader says DSTS; the user, DSTH
    scene.session.recorder.close()  # killed here; a new session continues from the record
    again = Scene(session_for(tmp_path))
    assert again.session.resumed_from is not None
    again.t, again.index, again.pieces = scene.t, scene.index, dict(scene.pieces)
    again.run(3.0)  # still read as DSTS: a repair must not undo the user's correction
    assert [e for e in again.events if e["type"] == "correction"] == []
    assert again.session.tracker.game.board[Cell.from_name("b3")] == Piece.from_symbol("DSTH")
    again.session.close(again.t)


def test_a_delayed_quarto_corrected_away_by_hand_is_never_announced(tmp_path):
    scene, _ = _row_on_delay(tmp_path, ["LRSS", "DSTS", "DRTS", "LSSS"])  # all solid: a line
    assert "quarto" not in types(scene.events)
    # the user says d1 is hollow: no line any more, and the waiting Quarto must not sound
    scene.events += scene.session.correct_last("top", scene.t)
    scene.run(3.0)
    assert "correction" in types(scene.events) and "quarto" not in types(scene.events)
    scene.session.close(scene.t)


def lamp_lit_reader(image, view, known):
    """The fake reader, with a fused reader's colour step: under a warm lamp (the background
    brighter than 90) every dark piece's own reading says light (P(dark) 0.15), while its
    measured colour (top and side) is still the dark material's, as on the other dark pieces."""
    from vision.learn.config import BoardColourConfig
    from vision.learn.fuse import with_board_colours

    found = {c: p for c in ALL_CELLS if (p := fake_reader(image, view).reading(c).piece)}
    lamp = int(image[0, 0, 0]) > 90
    dark = {c: p.value("color") == "dark" for c, p in found.items()}
    base = readings_from_pieces(found, odds={c: {"color": 0.15} for c in found
                                             if lamp and dark[c]})
    odds = [dict(r.attribute_probability) if r.piece else {"color": None} for r in base.cells]
    rng = np.random.default_rng(0)
    lab = np.array([([45.0, 22.0, 34.0] if dark.get(c) else [78.0, 4.0, 30.0])
                    for c in ALL_CELLS]) + rng.normal(0, 1.5, (16, 3))
    known_dark = [None if (p := known.get(c)) is None else float(p.value("color") == "dark")
                  for c in ALL_CELLS]
    fused = with_board_colours(odds, [r.occupied_probability for r in base.cells], [1.0] * 16,
                               [lab, lab], BoardColourConfig(), known_dark)
    return readings_from_pieces(found, odds={c: fused[c.index] for c in found}, board_view=view)


@pytest.mark.parametrize("reads_record", [True, False])
def test_a_piece_placed_under_a_lamp_is_judged_against_the_recorded_pieces(tmp_path,
                                                                           reads_record):
    """A lamp switched on mid-game makes every dark piece read light. The recorded pieces
    (their colours settled before the lamp) show what the dark material looks like now, so
    the new dark piece is recorded dark; a reader not told the record has no dark group
    left to compare with, and records it light."""
    if reads_record:
        reader = lamp_lit_reader
    else:
        def reader(image, view, known):
            return lamp_lit_reader(image, view, {})
    scene = Scene(WatchSession(lambda frame, t: VIEW, reader, log_dir=tmp_path))
    scene.run(1.0)
    for name, sym in [("a1", "DRSS"), ("b2", "LSSS"), ("c3", "DSTH"), ("a4", "LRTS")]:
        scene.place(name, sym)
    scene.run(2.0, gain=20)  # the lamp
    x, y = CENTERS[Cell.from_name("d2").index]
    for k in range(6):
        scene.run(0.1, hand=(x + 5 * k, y + 20), gain=20)
    scene.pieces[Cell.from_name("d2")] = Piece.from_symbol("DRTH")
    for k in range(6):
        scene.run(0.1, hand=(x + 5 * k, y + 40 + 60 * k), gain=20)
    scene.run(1.5, gain=20)
    scene.session.close(scene.t)
    moves = [e for e in scene.events if e["type"] == "move"]
    assert [m["name"] for m in moves] == ["a1", "b2", "c3", "a4", "d2"]
    assert [m["piece"]["color"] for m in moves[:4]] == ["dark", "light", "dark", "light"]
    assert moves[-1]["piece"]["color"] == ("dark" if reads_record else "light")
    # The pieces read surely before the lamp are the ones the reader is told.
    assert {Cell.from_name(m["name"]) for m in moves[:4]} <= set(
        scene.session.tracker.settled_pieces)


def test_default_session_reads_with_one_set_memory(monkeypatch):
    """With ``pool_set_geometry``, ``watch``'s reader fits the set's geometry (footprint
    size, heights) on every reading of the session (``vision.read.heights.SetMemory``), not
    again on each frame: a still scene's occlusion layout does not jump between reads (fresh
    game 1030000). Off by default (session 31's measurement)."""
    import vision.learn.fuse as fuse
    from vision.live.session import SessionConfig, default_session
    from vision.read.heights import SetMemory
    from vision.read.observation import Observation

    seen = []

    def fake_read(frame, view, **kwargs):
        seen.append(kwargs.get("heights"))
        return Observation.empty()

    monkeypatch.setattr(fuse, "read_cells_fused", fake_read)
    session = default_session(log_dir=None, resume=False, locator=lambda f, t: VIEW,
                              config=SessionConfig(pool_set_geometry=True))
    image = draw({})
    session.reader(image, VIEW, {})
    session.reader(image, VIEW, {})
    assert isinstance(seen[0], SetMemory) and seen[1] is seen[0]
    seen.clear()
    off = default_session(log_dir=None, resume=False, locator=lambda f, t: VIEW)
    off.reader(image, VIEW, {})
    assert seen == [None]


def test_default_session_reads_without_bore_sizes_unless_told(monkeypatch):
    """``watch``'s reader leaves out the bore-size height evidence (on in ``analyze``): it
    cost a still scene's loop about a quarter of its speed from straight above and changed
    no game's score. ``SessionConfig.hole_sizes`` puts it back (the reader's default)."""
    import vision.learn.fuse as fuse
    from vision.live.session import SessionConfig, default_session
    from vision.read.observation import Observation

    seen = []

    def fake_read(frame, view, **kwargs):
        seen.append(kwargs.get("hole_size"))
        return Observation.empty()

    monkeypatch.setattr(fuse, "read_cells_fused", fake_read)
    image = draw({})
    default_session(log_dir=None, resume=False, locator=lambda f, t: VIEW).reader(image, VIEW, {})
    assert seen[-1] is not None and seen[-1].weight == 0.0
    on = default_session(log_dir=None, resume=False, locator=lambda f, t: VIEW,
                         config=SessionConfig(hole_sizes=True))
    on.reader(image, VIEW, {})
    assert seen[-1] is None


def _change_arguments(tmp_path, tracker_config, key):
    """The tracker's ``key`` argument on every frame whose change the session measured,
    over two pieces put on a synthetic board under ``tracker_config``."""
    from vision.live.session import SessionConfig

    config = SessionConfig(tracker=tracker_config)
    session = WatchSession(lambda frame, t: VIEW, fake_reader, log_dir=tmp_path, config=config)
    seen = []
    update = session.tracker.update

    def spy(observation, now, *, busy=False, change=None, **more):
        if change is not None:
            seen.append(more.get(key))
        return update(observation, now, busy=busy, change=change, **more)

    session.tracker.update = spy
    scene = Scene(session)
    scene.run(1.0)
    scene.place("b2", "LSTH")
    scene.place("c3", "DSSS")
    scene.session.close(scene.t)
    assert seen, "no frame measured the change"
    return seen


@pytest.mark.parametrize("knob", [False, True])
def test_the_session_measures_the_change_under_front_pieces_only_when_asked(tmp_path, knob):
    # ``TrackerConfig.hidden_arrival_covered_change`` needs the change under the recorded
    # pieces in front of each free cell (``vision.live.change.covered_change``, measured
    # with the change scores by ``measure_change``); the session measures it on the frames
    # that may settle a turn, and only when the tracker asks.
    from vision.live.tracker import TrackerConfig

    seen = _change_arguments(tmp_path, TrackerConfig(hidden_arrival_covered_change=knob),
                             "covered")
    if knob:
        assert all(isinstance(c, dict) for c in seen)
    else:
        assert all(c is None for c in seen)


@pytest.mark.parametrize("knob", [False, True])
def test_the_session_keeps_the_changed_mask_only_when_asked(tmp_path, knob):
    # ``TrackerConfig.co_arrival_own_change`` asks the changed mask itself
    # (``vision.live.change.ChangeMap``) on the frames that may settle a turn; without it
    # the tracker is called as before.
    from vision.live.change import ChangeMap
    from vision.live.tracker import TrackerConfig

    seen = _change_arguments(tmp_path, TrackerConfig(co_arrival_own_change=knob), "change_map")
    if knob:
        assert all(isinstance(m, ChangeMap) for m in seen)
        assert any(m.changed.any() for m in seen)  # the pieces put changed the image
    else:
        assert all(m is None for m in seen)
