"""``eval_watch.py --record`` and ``replay_watch.py``: a game's tracker calls, recorded and
replayed on a fresh tracker, give the events the live session raised, byte for byte, and
under other knobs the events those knobs give."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.live.test_session import Scene, session_for
from vision.live.session import SessionConfig
from vision.live.tracker import TrackerConfig

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(_BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, _BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(_BENCH))


eval_watch = _load("eval_watch")
replay_watch = _load("replay_watch")


@pytest.fixture(scope="module")
def recorded_game(tmp_path_factory):
    """A game with a Quarto played on synthetic frames, its tracker calls recorded."""
    session = session_for(tmp_path_factory.mktemp("log"))
    calls = eval_watch.record_calls(session)
    scene = Scene(session)
    scene.run(1.0)
    for name, sym in [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS")]:
        scene.place(name, sym)
    last = calls[-1][2]  # the last frame's time, where watch_video closes the session
    scene.events += scene.session.close(last)
    return calls, scene.events


def _text(events):
    return replay_watch.events_text(json.loads(json.dumps(events)))


def test_a_recorded_game_replays_to_the_same_events(tmp_path, recorded_game):
    calls, events = recorded_game
    assert any(call[0] == "update" for call in calls)
    path = tmp_path / "game.calls.pkl"
    eval_watch.save_calls(path, calls, ["quarto_confidence=0.5"])
    loaded, knobs = replay_watch.load_calls(path)
    assert knobs == ["quarto_confidence=0.5"]
    replayed = replay_watch.replay(loaded, SessionConfig())
    assert [e["type"] for e in replayed].count("quarto") == 1
    assert _text(replayed) == _text(events)
    assert _text(replay_watch.replay(loaded, SessionConfig())) == _text(events)  # fresh tracker


def test_a_replay_follows_the_knobs(recorded_game):
    calls, events = recorded_game
    assert "quarto" in [e["type"] for e in events]
    # A gate no line can pass: the same calls give a held line, never a "Quarto!".
    strict = SessionConfig(tracker=TrackerConfig(quarto_confidence=1.0))
    held = replay_watch.replay(calls, strict)
    assert "quarto" not in [e["type"] for e in held]
    assert any("not announced" in str(e.get("message", "")) for e in held)


def test_a_file_of_another_format_is_refused(tmp_path):
    path = tmp_path / "game.calls.pkl"
    import pickle

    path.write_bytes(pickle.dumps({"format": eval_watch.CALLS_FORMAT + 1, "calls": []}))
    with pytest.raises(SystemExit):
        replay_watch.load_calls(path)


def test_the_recorder_passes_the_trackers_other_arguments_on_without_keeping_them():
    class Tracker:
        def __init__(self):
            self.got = None

        def update(self, observation, now, *, busy=False, change=None, covered=None,
                   change_map=None):
            self.got = change_map
            return []

        def view_moved(self):
            return []

    class Session:
        tracker = Tracker()

    session = Session()
    calls = eval_watch.record_calls(session)
    mask = object()
    session.tracker.update("obs", 1.5, busy=True, change={}, covered=None, change_map=mask)
    assert session.tracker.got is mask
    assert calls == [("update", "obs", 1.5, True, {}, None)]


def test_eval_watch_sets_board_tracker_knobs_by_prefix():
    """``--tracker board.NAME=VALUE`` reaches the board tracker's config (vision.locate),
    the other knobs the state tracker's or the session's, as before."""
    config = eval_watch._session_config(["board.carry_over_bump=False", "repair_max_cells=3",
                                         "pool_set_geometry=True"])
    assert config.board_tracker.carry_over_bump is False
    assert config.tracker.repair_max_cells == 3 and config.pool_set_geometry is True
    assert eval_watch._session_config([]).board_tracker.carry_over_bump is True
    with pytest.raises(SystemExit):
        eval_watch._session_config(["board.no_such_knob=1"])


def test_default_session_builds_its_board_tracker_from_the_session_config():
    from vision.live.session import default_session
    from vision.locate.config import TrackerConfig as BoardTrackerConfig

    knobs = SessionConfig(board_tracker=BoardTrackerConfig(carry_over_bump=False))
    session = default_session(log_dir=None, resume=False, config=knobs)
    assert session.locator.__self__.config.carry_over_bump is False
