"""``quarto-vision render stills N OUTDIR --seed S`` and ``render game OUT.mp4 --seed S``.

Stills are ``OUTDIR/[PREFIX]NNNNNN.jpg`` (the 6-digit seed) with a sidecar ``.json`` label each;
image ``i`` uses seed ``S + i``, so any single image can be remade alone. A game is an MP4
with a sidecar ``.json`` holding every move, Quarto event, camera bump and lighting change.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_BAD_ARGS = 2


class ProgressBar:
    """A text progress bar on stderr: redrawn in place at most 5 times a second on a terminal;
    elsewhere (logs, CI) one plain line per tenth of the work."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total = max(1, total)
        self.label = label
        self.enabled = enabled
        self.start = time.perf_counter()
        self._tty = sys.stderr.isatty()
        self._last_draw = -1.0
        self._last_tenth = -1

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        finished = done >= self.total
        if self._tty:
            if not finished and now - self._last_draw < 0.2:
                return
            self._last_draw = now
        else:
            tenth = int(10 * done / self.total)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
        frac = min(1.0, done / self.total)
        width = 30
        fill = round(frac * width)
        elapsed = time.perf_counter() - self.start
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        start, end = ("\r", "") if self._tty else ("", "\n")
        sys.stderr.write(
            f"{start}{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} "
            f"{elapsed:5.1f}s eta {eta:5.1f}s{end}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self._tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, got {text!r}") from None
    return w, h


def register(subparsers: Any) -> None:
    from vision.render.scene import BOARD_STYLES, HOLE_LIGHTS, LIGHTINGS, PALETTES, SENSORS

    p = subparsers.add_parser(
        "render",
        help="make seeded synthetic images and game videos",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="render_command", metavar="WHAT")
    s = sub.add_parser("stills", help="N labelled still images")
    s.add_argument("n", type=int, metavar="N", help="how many images")
    s.add_argument("outdir", metavar="OUTDIR", help="output folder (created)")
    s.add_argument("--seed", type=int, default=0, help="seed of the first image (default 0)")
    s.add_argument("--style", choices=BOARD_STYLES, help="board style (default: mixed)")
    s.add_argument(
        "--elevation",
        nargs=2,
        type=float,
        metavar=("LOW", "HIGH"),
        help="camera elevation band in degrees, e.g. 25 40",
    )
    s.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    s.add_argument(
        "--pieces",
        nargs=2,
        type=int,
        metavar=("MIN", "MAX"),
        help="pieces on the board (default 0 16)",
    )
    s.add_argument("--no-board", action="store_true", help="tables without any board")
    s.add_argument(
        "--hands",
        type=float,
        default=0.0,
        metavar="P",
        help="chance of a hand over the board in each image (default 0)",
    )
    s.add_argument(
        "--palette",
        choices=(*PALETTES, "alternate"),
        default="classic",
        help="colours of boards and sets: classic (real sets), wide (any hue and lightness) or "
        "alternate (classic for even seeds, wide for odd ones)",
    )
    s.add_argument(
        "--hole-light",
        choices=HOLE_LIGHTS,
        default="dark",
        help="light inside the bores of hollow pieces (varied: per set, for training data)",
    )
    s.add_argument(
        "--lighting",
        choices=LIGHTINGS,
        default="usual",
        help="usual (sampled) or dim: a dim room the camera underexposes (training data)",
    )
    s.add_argument(
        "--sensor",
        choices=SENSORS,
        default="pixel",
        help="sensor noise: pixel (independent at each pixel; every seed as before) or bayer "
        "(per photosite of a colour mosaic, white-balanced and demosaiced: coloured grain)",
    )
    s.add_argument("--prefix", default="", help="file name prefix (names: PREFIX + 6-digit seed)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=run_stills)
    g = sub.add_parser("game", help="a whole game as an MP4 with its ground truth")
    g.add_argument("out", metavar="OUT.mp4", help="output video (sidecar .json beside it)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument(
        "--script",
        default="random",
        help="random|missed|draw|bump|light|hover|nudge (default random)",
    )
    g.add_argument("--style", choices=BOARD_STYLES, help="board style (default: sampled)")
    g.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    g.add_argument(
        "--fps",
        type=float,
        default=15.0,
        help="frames per second (default 15; 10-30 is typical of webcams; 5-60 accepted)",
    )
    g.add_argument(
        "--max-moves",
        type=int,
        default=16,
        help="prefer a game whose Quarto comes within this many moves (short videos)",
    )
    g.add_argument(
        "--pieces-beside",
        action="store_true",
        help="unplayed pieces stand beside the board and are fetched from there",
    )
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=run_game)
    p.set_defaults(func=lambda args: (p.print_help(), EXIT_BAD_ARGS)[1])


def run_stills(args: argparse.Namespace) -> int:
    from vision.render.scene import SceneOptions
    from vision.render.still import render_still, write_still

    if args.n < 1:
        print(f"render stills: N must be at least 1, got {args.n}", file=sys.stderr)
        return EXIT_BAD_ARGS
    try:
        opts = SceneOptions(
            size_wh=args.size,
            style=args.style,
            board=not args.no_board,
            elevation_deg=tuple(args.elevation) if args.elevation else (25.0, 90.0),
            n_pieces=tuple(args.pieces) if args.pieces else (0, 16),
            hand_prob=args.hands,
            palette="classic" if args.palette == "alternate" else args.palette,
            hole_light=args.hole_light,
            lighting=args.lighting,
            sensor=args.sensor,
        )
    except ValueError as exc:
        print(f"render stills: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGS
    wide = dataclasses.replace(opts, palette="wide")
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    bar = ProgressBar(args.n, "stills", not args.quiet)
    for i in range(args.n):
        seed = args.seed + i
        odd = args.palette == "alternate" and seed % 2 == 1
        image, label = render_still(seed, options=wide if odd else opts)
        write_still(out / f"{args.prefix}{seed:06d}.jpg", image, label)
        bar.update(i + 1)
    bar.close()
    return EXIT_OK


def run_game(args: argparse.Namespace) -> int:
    from vision.render.games import SCRIPTS
    from vision.render.video import render_game

    if args.script not in SCRIPTS:
        print(
            f"render game: unknown script {args.script!r}; choose from {', '.join(SCRIPTS)}",
            file=sys.stderr,
        )
        return EXIT_BAD_ARGS
    if not 5.0 <= args.fps <= 60.0:
        print(f"render game: --fps must be in 5..60, got {args.fps}", file=sys.stderr)
        return EXIT_BAD_ARGS
    bar = ProgressBar(1, f"game {args.script}", not args.quiet)

    def progress(done: int, total: int) -> None:
        bar.total = max(1, total)
        bar.update(done)

    if not 4 <= args.max_moves <= 16:
        print(f"render game: --max-moves must be in 4..16, got {args.max_moves}", file=sys.stderr)
        return EXIT_BAD_ARGS
    if not args.out.lower().endswith(".mp4"):
        print(f"render game: OUT must end in .mp4, got {args.out!r}", file=sys.stderr)
        return EXIT_BAD_ARGS
    label = render_game(
        args.out,
        args.seed,
        args.script,
        size_wh=args.size,
        fps=args.fps,
        style=args.style,
        max_moves=args.max_moves,
        pieces_beside=args.pieces_beside,
        progress=progress,
    )
    bar.close()
    if not args.quiet:
        print(
            f"{args.out}: {label['frame_count']} frames, {len(label['moves'])} moves, "
            f"{sum(e['type'] == 'quarto' for e in label['events'])} quarto event(s)",
            file=sys.stderr,
        )
    return EXIT_OK
