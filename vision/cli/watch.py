"""``quarto-vision watch`` (a real game) and ``quarto-vision demo`` (the bundled video)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from vision.game.export import describe_event
from vision.game.model import Event
from vision.game.record import default_log_dir
from vision.live.alerts import AlertPolicy, AlertPolicyError, Announcer, quarto_phrase
from vision.live.sources import (
    DEFAULT_CAMERA_SIZE,
    FrameSource,
    SourceError,
    VideoSource,
    open_source,
    parse_size,
)
from vision.rules.lines import Rules, RulesError

#: The bundled demo video (made by ``quarto-vision render game``, see sample_images/README.md).
DEMO_VIDEO = Path(__file__).resolve().parents[2] / "sample_images" / "demo_game.mp4"

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_SOURCE_LOST = 4


def register(sub: Any) -> None:
    watch = sub.add_parser(
        "watch",
        help="watch a game: announce every Quarto, log every game",
        description="Watch a physical Quarto game from a camera, video file, image folder or "
        "stream; announce every Quarto and log every game.",
    )
    watch.add_argument(
        "source",
        nargs="?",
        default="0",
        help="camera index (default 0), video file, folder of images, or URL",
    )
    watch.add_argument(
        "--camera-size",
        metavar="WxH",
        default=None,
        help="frame size to ask a camera for (default: the calibration's image size, else "
        f"{DEFAULT_CAMERA_SIZE[0]}x{DEFAULT_CAMERA_SIZE[1]})",
    )
    _common(watch)
    watch.set_defaults(func=_watch)

    demo = sub.add_parser("demo", help="the main job on the bundled sample video (no camera)")
    _common(demo)
    demo.set_defaults(func=_demo, source=None)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-window", action="store_true", help="no live window (terminal only)")
    p.add_argument("--events", metavar="FILE|-", help="write every event as a JSON line")
    p.add_argument(
        "--log-dir",
        type=Path,
        default=None,
        help=f"folder for game records and key frames (default {default_log_dir()})",
    )
    p.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="camera calibration / board lock JSON (quarto-vision calibrate)",
    )
    p.add_argument("--rules", choices=("classic", "advanced"), default="classic")
    p.add_argument(
        "--attributes",
        default=None,
        metavar="LIST",
        help="beginner variant: only these attributes count, e.g. color,shape",
    )
    p.add_argument(
        "--alert",
        default="immediate",
        metavar="MODE",
        help="immediate (default), delay:SECONDS, or off",
    )
    p.add_argument(
        "--start",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="video files: start this many seconds in",
    )
    p.add_argument(
        "--no-resume",
        action="store_true",
        help="do not continue an unfinished game found in the log folder",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def _err(message: str) -> None:
    print(f"quarto-vision: {message}", file=sys.stderr)


def _demo(args: argparse.Namespace) -> int:
    if not DEMO_VIDEO.exists():
        _err(f"bundled demo video missing: {DEMO_VIDEO}")
        return EXIT_USAGE
    args.source = str(DEMO_VIDEO)
    if args.log_dir is None:
        # The demo must not mix its games into the user's own log.
        args.log_dir = Path(os.environ.get("TMPDIR", "/tmp")) / "quarto-vision-demo"
        args.no_resume = True
    return _watch(args)


def _unwritable(folder: Path) -> str | None:
    """Why game records cannot be written in ``folder`` (created if missing), or None."""
    if folder.exists() and not folder.is_dir():
        return "not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(folder, os.W_OK | os.X_OK):
        return "not writable"
    return None


def _calibration_size(calib: Any) -> tuple[int, int] | None:
    """The frame size a calibration holds for: its intrinsics', else the size of the image
    its board lock was clicked on (pixel corners), else None."""
    if calib.intrinsics is not None:
        return (int(calib.intrinsics.size_wh[0]), int(calib.intrinsics.size_wh[1]))
    size = calib.extra.get("board_image_size") if calib.board_lock is not None else None
    if isinstance(size, list | tuple) and len(size) == 2:
        return (int(size[0]), int(size[1]))
    return None


def _camera_size(text: str | None, fixed: tuple[int, int] | None) -> tuple[int, int]:
    """The frame size to ask a camera for: ``--camera-size``, else the calibration's
    (``fixed``), else ``DEFAULT_CAMERA_SIZE``."""
    if text is not None:
        size = parse_size(text)
        if fixed is not None and size != fixed:
            raise ValueError(f"--camera-size {text} differs from the calibration's "
                             f"{fixed[0]}x{fixed[1]}")
        return size
    return fixed or DEFAULT_CAMERA_SIZE


def _size_mismatch(image: Any, fixed: tuple[int, int] | None, path: Path | None) -> str | None:
    """Why a calibration made for ``fixed`` frames does not fit ``image`` (None when it does)."""
    h, w = image.shape[:2]
    if fixed is None or fixed == (w, h):
        return None
    return (f"{path} is for {fixed[0]}x{fixed[1]} frames, the source gives {w}x{h}; "
            "calibrate at this size (or ask a camera for that size with --camera-size)")


def _want_window(args: argparse.Namespace) -> bool:
    if args.no_window:
        return False
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    return True


def _watch(args: argparse.Namespace) -> int:
    # Imported here so that `--help` and `games` never pay for OpenCV-heavy modules.
    from vision.live.session import default_session

    try:
        rules = Rules.from_options(args.rules, args.attributes)
        policy = AlertPolicy.parse(args.alert)
    except (RulesError, AlertPolicyError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    intrinsics = None
    lock = None
    fixed_size = None
    if args.calibration is not None:
        from calibration.io import CalibrationError, load_calibration

        try:
            calib = load_calibration(args.calibration)
        except CalibrationError as exc:
            _err(str(exc))
            return EXIT_USAGE
        intrinsics, lock = calib.intrinsics, calib.board_lock
        fixed_size = _calibration_size(calib)
    # Where the record and the events go is checked before a camera is opened: a game must
    # not be watched and then lost.
    log_dir = args.log_dir or default_log_dir()
    problem = _unwritable(log_dir)
    if problem:
        _err(f"cannot keep game records in {log_dir}: {problem}")
        return EXIT_USAGE
    events_out: IO[str] | None = None
    if args.events == "-":
        events_out = sys.stdout
    elif args.events:
        try:
            events_out = open(args.events, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            _err(f"cannot write events to {args.events}: {exc.strerror or exc}")
            return EXIT_USAGE
    try:
        camera_size = _camera_size(getattr(args, "camera_size", None), fixed_size)
        source: FrameSource = open_source(args.source, camera_size=camera_size)
    except (SourceError, ValueError) as exc:
        _err(str(exc))
        if events_out is not None and events_out is not sys.stdout:
            events_out.close()
        return EXIT_USAGE
    if args.start > 0 and isinstance(source, VideoSource):
        source.seek(args.start)

    # Human lines go to stderr when stdout carries the JSON events.
    human = sys.stderr if events_out is sys.stdout else sys.stdout
    announcer = Announcer(policy)

    def sink(event: Event) -> None:
        if events_out is not None:
            events_out.write(json.dumps(event) + "\n")
            events_out.flush()
        line = describe_event(event)
        if event.get("type") == "quarto" and policy.sounds:
            line = f"*** {quarto_phrase(event)} ***  ({line})"
        print(f"[{event.get('t', 0.0):8.2f}s] {line}", file=human, flush=True)
        announcer.announce(event)

    locator = None
    if lock is not None:
        from vision.locate.lock import view_from_corners

        fixed: list[Any] = []

        def locator(frame: Any, t: float) -> Any:
            if not fixed:
                h, w = frame.shape[:2]
                fixed.append(
                    view_from_corners(lock.corners_px, (w, h), lock.layout, intrinsics=intrinsics)
                )
            return fixed[0]

    session = default_session(
        log_dir=log_dir,
        locator=locator,
        intrinsics=intrinsics,
        rules=rules,
        policy=policy,
        sink=sink,
        source=source.description,
        resume=not args.no_resume,
    )
    if session.resumed_from is not None:
        print(f"continuing the unfinished game {session.resumed_from}", file=human)
    print(
        f"watching {source.description}; games logged in {log_dir}; {announcer.capabilities}",
        file=human,
        flush=True,
    )

    window = _Window() if _want_window(args) else None
    if window is not None and window.ok:
        print(KEYS_HELP, file=human, flush=True)
    t = 0.0
    frames = 0
    wall0 = time.monotonic()
    last_progress = wall0
    quit_requested = False
    mismatch = None
    try:
        for frame in source:
            t = frame.t
            if frames == 0:
                mismatch = _size_mismatch(frame.image, fixed_size, args.calibration)
                if mismatch:
                    break
            result = session.process(frame)
            frames += 1
            if window is not None:
                action = window.show(frame.image, frame.t, session, result)
                if action == "quit":
                    quit_requested = True
                    break
                if action == "undo":
                    window.note(session.undo_last(t), t)
                elif action is not None and action in _CORRECTION_KEYS.values():
                    window.note(session.correct_last(action, t), t)
            now = time.monotonic()
            if not args.quiet and now - last_progress >= 5.0:
                last_progress = now
                rate = frames / max(now - wall0, 1e-6)
                print(
                    f"  ... t={t:.1f}s, {frames} frames, {rate:.1f} frames/s"
                    + (f", {source.dropped} dropped" if source.live else ""),
                    file=sys.stderr,
                    flush=True,
                )
    except KeyboardInterrupt:
        quit_requested = True
    finally:
        session.close(t)
        source.close()
        announcer.close()
        if window is not None:
            window.close()
        if events_out is not None and events_out is not sys.stdout:
            events_out.close()
    if mismatch:
        _err(mismatch)
        return EXIT_USAGE
    if source.error and not quit_requested:
        _err(f"{source.error}; the game record is closed")
        return EXIT_SOURCE_LOST
    if not args.quiet:
        elapsed = time.monotonic() - wall0
        print(
            f"done: {frames} frames in {elapsed:.1f}s ({frames / max(elapsed, 1e-6):.1f}/s)",
            file=sys.stderr,
        )
    return EXIT_OK


#: Live-window keys that correct the last move's piece: the attribute whose value flips.
_CORRECTION_KEYS = {"c": "color", "s": "shape", "h": "height", "t": "top"}
KEYS_HELP = ("keys: q quit, p pause, u take back the last move, "
             "c/s/h/t flip its colour/shape/height/top")


class _Window:
    """The live window: keys q (quit), p (pause), u (take back the last move), c/s/h/t
    (flip the last move's colour, shape, height or top)."""

    name = "quarto-vision"

    def __init__(self) -> None:
        import cv2

        self._cv2 = cv2
        self.paused = False
        self.warnings: list[str] = []
        self.quarto: Event | None = None
        self.quarto_until = -1.0
        try:
            cv2.namedWindow(self.name, cv2.WINDOW_NORMAL)
            self.ok = True
        except cv2.error:
            _err("no window available (headless OpenCV?); continuing without one")
            self.ok = False

    def note(self, events: list[Event], t: float) -> None:
        """Events to show: warnings are listed, a Quarto gets the banner for 4 s."""
        for event in events:
            if event.get("type") == "warning":
                self.warnings.append(str(event.get("message")))
            if event.get("type") == "quarto":
                self.quarto = event
                self.quarto_until = float(event.get("t", t)) + 4.0

    def show(self, image: Any, t: float, session: Any, result: Any) -> str | None:
        from vision.live.overlay import LiveStatus, draw_live

        if not self.ok:
            return None
        self.note(result.events, t)
        if t > self.quarto_until:
            self.quarto = None
        game = session.tracker.game
        status = (
            "waiting for an empty board"
            if session.tracker.waiting_for_empty
            else (f"move {len(game.moves)}" if game else "")
        )
        if result.gate is not None and result.gate.busy:
            status += f" - {result.gate.reason}"
        if result.view is None:
            status = "looking for the board"
        status += f"   ({KEYS_HELP})"
        drawn = draw_live(
            image,
            LiveStatus(
                result.view,
                result.observation,
                game.board if game else None,
                bool(result.gate and result.gate.busy),
                status,
                self.warnings,
                self.quarto,
            ),
        )
        self._cv2.imshow(self.name, drawn)
        while True:
            key = self._cv2.waitKey(1) & 0xFF
            if key == ord("q") or key == 27:
                return "quit"
            if key == ord("u"):
                return "undo"
            if chr(key) in _CORRECTION_KEYS:
                return _CORRECTION_KEYS[chr(key)]
            if key == ord("p"):
                self.paused = not self.paused
            if not self.paused:
                return None

    def close(self) -> None:
        with contextlib.suppress(self._cv2.error):
            self._cv2.destroyWindow(self.name)
