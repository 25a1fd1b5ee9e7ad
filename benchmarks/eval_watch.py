"""Score `watch` on freshly rendered games: move lists, announced lines, false alarms, latency.

    python benchmarks/eval_watch.py --seeds 910000-910020 --out /tmp/qv-games [--jobs 2]
        [--elevation 78,88] [--scripts draw,random,nudge]

The low-angle set of the closing notes is
``--seeds A-B --elevation 30,42 --scripts draw,random,nudge``.

With --oracle-reader the cell reader is replaced by the truth (the board tracker, motion
gate, state tracker and everything else stay real), which measures the live layer alone.

With --record every call the session makes to its state tracker (``StateTracker.update``
with the reader's observation, the image change and the hand state, and ``view_moved``) is
kept beside the events as ``*.calls.pkl`` (``*.oracle.calls.pkl`` with --oracle-reader):
``benchmarks/replay_watch.py`` replays them under other ``TrackerConfig`` knobs in seconds,
exactly while a change is in the tracker alone (the reader's inputs do not change). The
file's format belongs to these two scripts (:func:`record_calls`, ``replay_watch.replay``).

Renders one game per seed (scripts cycle through random, missed, draw, bump, light, hover,
nudge), caches the videos in --out, runs each through the live session exactly as
`quarto-vision watch VIDEO --no-window` does (its events are kept beside the video as
`*.events.jsonl`), and prints per-game lines and the totals the live issue's acceptance asks
for.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SCRIPTS = ("random", "missed", "draw", "bump", "light", "hover", "nudge")


def _script(out: Path, seed: int, default: str) -> str:
    """The script of the game already rendered for ``seed`` in ``out`` (so a list of seeds
    re-runs cached games as they were made), else ``default``."""
    for script in SCRIPTS:
        if (out / f"game-{seed}-{script}.mp4").exists():
            return script
    return default


def _seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b)))
    return [int(s) for s in text.split(",")]


def _session_config(knobs: list[str]):
    """A SessionConfig whose tracker knobs (or the session's own plain knobs, e.g.
    ``pool_set_geometry``) are set from ``NAME=VALUE`` strings (``--tracker``; values Python
    literals, as ``vision.evaluation.knobs.replaced`` reads them)."""
    import dataclasses

    from vision.evaluation.knobs import replaced
    from vision.live.session import SessionConfig
    from vision.live.tracker import TrackerConfig
    from vision.locate.config import TrackerConfig as BoardTrackerConfig

    tracker_names = {f.name for f in dataclasses.fields(TrackerConfig)}
    # ``board.NAME=VALUE``: a knob of the board tracker (vision.locate.config.TrackerConfig).
    board = [k.strip()[len("board."):] for k in knobs if k.strip().startswith("board.")]
    knobs = [k for k in knobs if not k.strip().startswith("board.")]
    own = [k for k in knobs if k.partition("=")[0].strip() not in tracker_names]
    for knob in own:
        if knob.partition("=")[0].strip() in ("tracker", "motion", "board_tracker"):
            raise SystemExit(f"--tracker: {knob!r} names a config, not a knob")
    try:
        return replaced(SessionConfig(
            tracker=replaced(TrackerConfig(), [k for k in knobs if k not in own]),
            board_tracker=replaced(BoardTrackerConfig(), board)), own)
    except ValueError as e:
        raise SystemExit(f"--tracker: {e}") from None


def _oracle_session(truth: dict, config=None):
    """A session whose cell reader is exact (the video's truth at the frame's time), with the
    real board tracker and everything else as in `watch`: measures the live layer alone."""
    import numpy as np

    from vision.live.session import WatchSession
    from vision.live.tracker import readings_from_pieces
    from vision.locate.tracker import BoardTracker
    from vision.rules import Cell, Piece

    clock = {"t": 0.0}
    tracker = BoardTracker(config.board_tracker if config is not None else None)

    def locator(frame, t):
        clock["t"] = t
        return tracker.update(frame, t)

    def reader(image, view, known):
        t = clock["t"]
        segment = [s for s in truth["segments"] if s["t_start"] <= t][-1]
        theirs = np.array([c["center_px"] for c in segment["cells"]], float)
        ours = view.cell_centers_px()
        pieces = {}
        for m in truth["moves"]:
            if m["t_placed"] <= t:
                i = m["row"] * 4 + m["col"]
                j = int(np.argmin(np.linalg.norm(ours - theirs[i], axis=1)))
                pieces[Cell(j // 4, j % 4)] = Piece.from_attributes(m["piece"])
        return readings_from_pieces(pieces, centers_px=ours, board_view=view)

    return WatchSession(locator, reader, log_dir=None, config=config)


#: The version of the ``*.calls.pkl`` format (``replay_watch.py`` refuses others).
CALLS_FORMAT = 1


def record_calls(session) -> list[tuple]:
    """Wrap ``session``'s state tracker so that every ``update`` and ``view_moved`` call is
    appended, with its arguments, to the returned list (in the order made): ``("update",
    observation, now, busy, change, covered)`` and ``("view_moved",)``."""
    calls: list[tuple] = []
    tracker = session.tracker
    update, view_moved = tracker.update, tracker.view_moved

    def recorded_update(observation, now, *, busy=False, change=None, covered=None,
                        **more):
        # ``more`` (the changed mask of ``co_arrival_own_change``, a whole image per frame)
        # is passed on but not kept: a replay gives the tracker no mask, so that rule
        # cannot act in replays (its own runs need eval_watch).
        calls.append(("update", observation, now, busy, change, covered))
        return update(observation, now, busy=busy, change=change, covered=covered, **more)

    def recorded_view_moved():
        calls.append(("view_moved",))
        return view_moved()

    tracker.update = recorded_update
    tracker.view_moved = recorded_view_moved
    return calls


def save_calls(path: Path, calls: list[tuple], knobs: list[str]) -> None:
    """Write a game's recorded tracker calls (:func:`record_calls`) and the ``--tracker``
    knobs they were recorded under."""
    with open(path, "wb") as f:
        pickle.dump({"format": CALLS_FORMAT, "knobs": list(knobs), "calls": calls}, f,
                    protocol=pickle.HIGHEST_PROTOCOL)


def game_line(seed: int | str, script: str, s, seconds: float, duration_s: float) -> str:
    """The per-game line printed for a scored game (``s``: its ``GameScore``)."""
    ann = sum(ok for _, ok in s.announced)
    return (f"seed {seed} {script:7s} moves {'ok ' if s.moves_right else 'BAD'} "
            f"{s.found_moves}/{s.expected_moves}  lines {ann}/{len(s.announced)}  "
            f"false {s.false_quartos}  result {'ok' if s.result_right else 'BAD'}  "
            f"{seconds:.1f}s for {duration_s:.0f}s video  {'; '.join(s.notes)}")


def _one(args: tuple[int, str, str, int, bool, list[str], tuple[float, float] | None, bool]
         ) -> dict:
    import cv2

    cv2.setNumThreads(1)
    from vision.evaluation.games import score_game
    from vision.live.session import default_session, watch_video
    from vision.render.video import render_game

    seed, script, out, fps, oracle, knobs, elevation, record = args
    video = Path(out) / f"game-{seed}-{script}.mp4"
    if not video.with_suffix(".json").exists():
        from vision.render.film import VideoConfig

        config = None if elevation is None else VideoConfig(elevation_deg=elevation)
        render_game(video, seed, script=script, fps=fps, config=config)
    truth = json.loads(video.with_suffix(".json").read_text())
    t0 = time.perf_counter()
    config = _session_config(knobs)
    session = None
    if oracle:
        session = _oracle_session(truth, config)
    elif record:
        session = default_session(log_dir=None, config=config, resume=False)
    calls = record_calls(session) if record and session is not None else None
    events = watch_video(video, session=session, config=config)
    elapsed = time.perf_counter() - t0
    s = score_game(events, truth)
    suffix = ".oracle.events.jsonl" if oracle else ".events.jsonl"
    video.with_suffix(suffix).write_text("".join(json.dumps(e) + "\n" for e in events))
    if calls is not None:
        calls_suffix = ".oracle.calls.pkl" if oracle else ".calls.pkl"
        save_calls(video.with_suffix(calls_suffix), calls, knobs)
    return {
        "seed": seed,
        "script": script,
        "score": s.__dict__,
        "seconds": elapsed,
        "duration_s": truth["duration_s"],
    }


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--seeds", default="910000-910021")
    p.add_argument("--out", default="/tmp/qv-games")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--fps", type=int, default=15)
    p.add_argument("--elevation", metavar="LO,HI",
                   help="camera elevation range (degrees) of games rendered now (default: the "
                        "renderer's VideoConfig, 30-75); cached videos keep theirs")
    p.add_argument("--scripts", metavar="A,B,...", default=",".join(SCRIPTS),
                   help="scripts of games rendered now, taken in turn by seed order "
                        f"(default: all, {','.join(SCRIPTS)}); cached videos keep theirs")
    p.add_argument(
        "--oracle-reader",
        action="store_true",
        help="exact cell readings from the truth: measures the live layer alone",
    )
    p.add_argument("--tracker", action="append", default=[], metavar="NAME=VALUE",
                   help="set a TrackerConfig knob (repeatable), e.g. repair_max_cells=3, or a "
                        "SessionConfig one, e.g. pool_set_geometry=True, or, prefixed "
                        "'board.', one of the board tracker's (vision.locate.config."
                        "TrackerConfig), e.g. board.carry_over_bump=True")
    p.add_argument("--record", action="store_true",
                   help="keep every StateTracker call beside the events (*.calls.pkl) for "
                        "benchmarks/replay_watch.py")
    a = p.parse_args()
    _session_config(a.tracker)  # fail early on a bad knob
    Path(a.out).mkdir(parents=True, exist_ok=True)
    seeds = _seeds(a.seeds)
    elevation = None
    if a.elevation:
        lo, _, hi = a.elevation.partition(",")
        try:
            elevation = (float(lo), float(hi))
        except ValueError:
            p.error(f"--elevation: two numbers LO,HI, got {a.elevation!r}")
    scripts = [t.strip() for t in a.scripts.split(",") if t.strip()]
    unknown = sorted(set(scripts) - set(SCRIPTS))
    if unknown or not scripts:
        p.error(f"--scripts: choose from {','.join(SCRIPTS)}, got {a.scripts!r}")
    work = [
        (s, _script(Path(a.out), s, scripts[i % len(scripts)]), a.out, a.fps, a.oracle_reader,
         a.tracker, elevation, a.record)
        for i, s in enumerate(seeds)
    ]
    from vision.evaluation.games import GameScore, summarize

    scores = []
    with ProcessPoolExecutor(a.jobs) as pool:
        for r in pool.map(_one, work):
            s = GameScore(**r["score"])
            scores.append(s)
            print(game_line(r["seed"], r["script"], s, r["seconds"], r["duration_s"]),
                  flush=True)
    print(json.dumps(summarize(scores), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
