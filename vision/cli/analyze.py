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
from vision.locate.report import image_result, locate
from vision.overlay.board import draw_board

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
    p.set_defaults(func=run)


def _annotate_path(out: str, image: str, several: bool) -> Path:
    o = Path(out)
    if several or o.is_dir() or out.endswith(("/", "\\")):
        o.mkdir(parents=True, exist_ok=True)
        return o / (Path(image).stem + "_annotated.png")
    o.parent.mkdir(parents=True, exist_ok=True)
    return o


def _summary(res: dict[str, Any]) -> str:
    b = res["board"]
    if not b["found"]:
        return f"{res['image']}: no board ({b['reason']})"
    return (f"{res['image']}: {b['layout']} board, score {b['score']:.2f}, "
            f"{res['elapsed_ms']:.0f} ms")


def run(args: argparse.Namespace) -> int:
    calib: Calibration | None = None
    if args.calibration:
        try:
            calib = load_calibration(args.calibration)
        except CalibrationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    status = EXIT_OK
    several = len(args.images) > 1
    for path in args.images:
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if frame is None:
            print(f"error: {path}: cannot read as an image", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        try:
            board = locate(frame, calib)
        except ValueError as exc:
            print(f"error: {path}: {exc}", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        res = image_result(path, frame, board)
        if not res["board"]["found"] and status == EXIT_OK:
            status = EXIT_NO_BOARD
        if args.json:
            print(json.dumps(res), flush=True)
        else:
            print(_summary(res), flush=True)
        if args.annotate:
            out = _annotate_path(args.annotate, path, several)
            if not cv2.imwrite(str(out), draw_board(frame, board.view)):
                print(f"error: {out}: cannot write the annotated image", file=sys.stderr)
                status = EXIT_UNREADABLE
    return status
