"""``quarto-vision analyze IMAGE [IMAGE ...] [--json] [--calibration FILE] [--annotate OUT]``.

Exit status: 0 when every image had a board, 3 when some image had none, 2 when some file
could not be read (a one-line message on stderr names it; the other images still run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

from calibration.io import Calibration, CalibrationError, load_calibration
from vision.io import ImageReadError, load_image
from vision.overlay.board import draw_board
from vision.overlay.pieces import draw_pieces
from vision.pipeline import analyze_frame
from vision.rules.board import Cell
from vision.rules.lines import Rules, RulesError

EXIT_OK = 0
EXIT_UNREADABLE = 2
EXIT_NO_BOARD = 3


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("analyze", help="find the board (and read the pieces) in images",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files")
    p.add_argument("--json", action="store_true", help="one JSON object per image on stdout")
    p.add_argument("--calibration", metavar="FILE", help="camera calibration / board lock JSON")
    p.add_argument("--annotate", metavar="OUT",
                   help="write the annotated image to OUT (a folder when several images)")
    p.add_argument("--rules", choices=("classic", "advanced"), default="classic",
                   help="which lines count for the reported Quarto lines")
    p.add_argument("--attributes", default=None, metavar="LIST",
                   help="beginner variant: only these attributes count, e.g. color,shape")
    p.set_defaults(func=run)


def _annotate_path(out: str, image: str, several: bool) -> Path:
    """Where the annotated ``image`` goes: ``out`` itself when it names an image file,
    else a file in the folder ``out`` (several images, an existing folder, a trailing
    separator, or a new name without an extension)."""
    o = Path(out)
    if several or o.is_dir() or out.endswith(("/", "\\")) or not (o.suffix or o.exists()):
        o.mkdir(parents=True, exist_ok=True)
        return o / (Path(image).stem + "_annotated.png")
    o.parent.mkdir(parents=True, exist_ok=True)
    return o


def _summary(res: dict[str, Any]) -> str:
    b = res["board"]
    if not b["found"]:
        return f"{res['image']}: no board ({b['reason']})"
    lines = [f"{res['image']}: {b['layout']} board, score {b['score']:.2f}, "
             f"{res['elapsed_ms']:.0f} ms"]
    for cell in res["cells"]:
        piece = cell["piece"]
        if piece is None:
            continue
        values = " ".join(str(piece[a] or "?") for a in ("color", "shape", "height", "top"))
        lines.append(f"  {cell['name']}: {values} ({piece['confidence']:.2f})")
    for q in res["quarto"]:
        cells = "-".join(Cell(r, c).name for r, c in q["cells"])
        shared = ", ".join(f"all {v}" for v in q["shared"].values())
        lines.append(f"  QUARTO {cells}: {shared}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    calib: Calibration | None = None
    if args.calibration:
        try:
            calib = load_calibration(args.calibration)
        except CalibrationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    try:
        rules = Rules.from_options(args.rules, args.attributes)
    except RulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    status = EXIT_OK
    several = len(args.images) > 1
    for path in args.images:
        try:
            frame = load_image(path)
            analysis = analyze_frame(frame, calibration=calib, rules=rules)
        except (ImageReadError, ValueError) as exc:
            message = str(exc) if path in str(exc) else f"{path}: {exc}"
            print(f"error: {message}", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        h, w = frame.shape[:2]
        res = analysis.to_json(path, (w, h))
        if not res["board"]["found"] and status == EXIT_OK:
            status = EXIT_NO_BOARD
        if args.json:
            print(json.dumps(res), flush=True)
        else:
            print(_summary(res), flush=True)
        if args.annotate:
            drawn = draw_pieces(draw_board(frame, analysis.view), analysis.observation)
            try:
                out = _annotate_path(args.annotate, path, several)
                written = cv2.imwrite(str(out), drawn)
            except OSError:  # a file where a folder is needed, no permission
                out, written = Path(args.annotate), False
            except cv2.error:  # an extension OpenCV has no writer for
                written = False
            if not written:
                print(f"error: {out}: cannot write the annotated image (use a folder or "
                      f"a .png/.jpg name)", file=sys.stderr)
                status = EXIT_UNREADABLE
    return status
