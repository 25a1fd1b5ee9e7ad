"""Replay games recorded by ``eval_watch.py --record`` through the state tracker under other knobs.

    python benchmarks/replay_watch.py DIR [DIR ...] [--tracker NAME=VALUE ...] [--oracle]
        [--out DIR] [--check]

For every ``*.calls.pkl`` in the folders (``*.oracle.calls.pkl`` with --oracle), the session's
calls to its ``StateTracker`` (the reader's observations, the image change, the hand state,
the view's moves) are made again on a fresh tracker built with the ``--tracker`` knobs, and
its events go through the session's own alert scheduling, as ``watch`` does. Prints the
same per-game lines and totals as ``eval_watch.py`` (the seconds are the replay's CPU time).
Exact while a change is in the tracker alone: the reader, the board tracker and the motion
gate are not run again, so knobs of theirs (or a session knob such as
``pool_set_geometry``) need a new recording.

--out writes each game's events there as ``*.events.jsonl`` (for ``held_lines.py DIR
--truth RECORDED_DIR``); --check appends ``same`` or ``DIFF`` to each line: whether the
replayed events are those the recording run wrote beside the video, byte for byte (with the
recording's own knobs they must be).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_watch import CALLS_FORMAT, _session_config, game_line


def load_calls(path: Path) -> tuple[list[tuple], list[str]]:
    """A recording's tracker calls and the knobs it was recorded under."""
    with open(path, "rb") as f:
        data = pickle.load(f)
    if not isinstance(data, dict) or data.get("format") != CALLS_FORMAT:
        raise SystemExit(f"{path}: not a tracker recording of format {CALLS_FORMAT}")
    return data["calls"], data["knobs"]


def replay(calls: list[tuple], config) -> list[dict]:
    """The events ``watch`` raises when its tracker (built with ``config``, a
    ``SessionConfig``) receives ``calls`` (``eval_watch.record_calls``), then the source ends."""
    from vision.live.session import WatchSession

    def nothing(*args):
        raise AssertionError("a replay neither locates nor reads")

    session = WatchSession(nothing, nothing, log_dir=None, config=config, resume=False)
    tracker = session.tracker
    events: list[dict] = []
    t = 0.0
    for call in calls:
        if call[0] == "view_moved":
            tracker.view_moved()
            continue
        _, observation, t, busy, change, covered = call
        events += session._output(
            tracker.update(observation, t, busy=busy, change=change, covered=covered), t, None)
    return events + session.close(t)


def events_text(events: list[dict]) -> str:
    """The ``*.events.jsonl`` text of ``events``, as ``eval_watch.py`` writes it."""
    return "".join(json.dumps(e) + "\n" for e in events)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", type=Path, help="folders recorded with eval_watch --record")
    p.add_argument("--tracker", action="append", default=[], metavar="NAME=VALUE",
                   help="set a TrackerConfig knob (repeatable), as eval_watch.py does")
    p.add_argument("--oracle", action="store_true",
                   help="replay the --oracle-reader recordings (*.oracle.calls.pkl)")
    p.add_argument("--out", type=Path, help="write the replayed events here")
    p.add_argument("--check", action="store_true",
                   help="say whether each game's events are the recorded run's, byte for byte")
    a = p.parse_args()
    config = _session_config(a.tracker)
    from vision.evaluation.games import score_game, summarize

    tag = ".oracle" if a.oracle else ""
    if a.out is not None:
        a.out.mkdir(parents=True, exist_ok=True)
    scores = []
    for folder in a.dirs:
        for path in sorted(folder.glob(f"game-*{tag}.calls.pkl")):
            name = path.name[: -len(f"{tag}.calls.pkl")]
            if not a.oracle and name.endswith(".oracle"):
                continue
            truth = json.loads((folder / f"{name}.json").read_text())
            calls, _ = load_calls(path)
            t0 = time.process_time()
            events = replay(calls, config)
            seconds = time.process_time() - t0
            text = events_text(events)
            if a.out is not None:
                (a.out / f"{name}{tag}.events.jsonl").write_text(text)
            s = score_game(events, truth)
            scores.append(s)
            _, seed, script = name.split("-", 2)
            line = game_line(seed, script, s, seconds, truth["duration_s"])
            if a.check:
                recorded = folder / f"{name}{tag}.events.jsonl"
                same = recorded.exists() and recorded.read_text() == text
                line += "  same" if same else "  DIFF"
            print(line, flush=True)
    print(json.dumps(summarize(scores), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
