"""``quarto-vision calibrate camera|board``: camera intrinsics and the board lock.

``calibrate camera IMAGES... --out FILE`` (or ``--camera INDEX``) solves the intrinsics from
views of a printed chessboard; ``calibrate board IMAGE --out FILE`` locks the board's four
corners, clicked in a window or given with ``--corners``. Both write versioned JSON in OpenCV
conventions, read back by every command through ``--calibration FILE``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2

from calibration.board_lock import click_corners, order_corners, parse_corners
from calibration.intrinsics import ChessboardCalibrator, ChessboardConfig
from calibration.io import (
    BoardLock,
    Calibration,
    CalibrationError,
    load_calibration,
    save_calibration,
)
from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL
from vision.live.sources import DEFAULT_CAMERA_SIZE, SourceError, open_camera, parse_size


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("calibrate", help="camera intrinsics or board lock",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    cam = sub.add_parser("camera", help="intrinsics from a printed chessboard")
    cam.add_argument("images", nargs="*", metavar="IMAGE", help="chessboard photos")
    cam.add_argument("--camera", type=int, metavar="INDEX", help="collect from a live camera")
    cam.add_argument("--pattern", default="9x6", help="inner corners COLSxROWS (default 9x6)")
    cam.add_argument("--square-mm", type=float, default=25.0, help="square side (default 25)")
    cam.add_argument("--views", type=int, default=15, help="views to collect live (default 15)")
    cam.add_argument("--camera-size", metavar="WxH",
                     default=f"{DEFAULT_CAMERA_SIZE[0]}x{DEFAULT_CAMERA_SIZE[1]}",
                     help="frame size to ask the camera for; watch asks for the calibration's "
                     "size (default %(default)s)")
    cam.add_argument("--out", required=True, metavar="FILE", help="calibration JSON to write")
    cam.set_defaults(func=run_camera)
    board = sub.add_parser("board", help="lock the board's four corners")
    board.add_argument("image", metavar="IMAGE", help="a frame from the fixed camera")
    board.add_argument("--corners", metavar="'x,y x,y x,y x,y'",
                       help="the four top corners; without it, click them in a window")
    board.add_argument("--layout", choices=(LAYOUT_DIAGONAL, LAYOUT_AXIS),
                       default=LAYOUT_DIAGONAL, help="grid layout (default diagonal)")
    board.add_argument("--calibration", metavar="FILE",
                       help="existing intrinsics to keep in the output")
    board.add_argument("--out", required=True, metavar="FILE", help="calibration JSON to write")
    board.set_defaults(func=run_board)


def _pattern(text: str) -> tuple[int, int]:
    try:
        c, r = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise ValueError(f"--pattern must look like 9x6, got {text!r}") from exc
    return c, r


def run_camera(args: argparse.Namespace) -> int:
    try:
        cols, rows = _pattern(args.pattern)
        cfg = ChessboardConfig(cols, rows, args.square_mm / 1000.0)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cal = ChessboardCalibrator(cfg)
    if args.camera is not None:
        try:
            size = parse_size(args.camera_size)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        status = _collect_live(cal, args.camera, args.views, size)
        if status:
            return status
    else:
        if not args.images:
            print("error: give chessboard IMAGEs or --camera INDEX", file=sys.stderr)
            return 2
        for i, path in enumerate(args.images, 1):
            img = cv2.imread(path)
            if img is None:
                print(f"error: {path}: cannot read as an image", file=sys.stderr)
                continue
            try:
                ok = cal.add(img)
            except ValueError as exc:
                print(f"error: {path}: {exc}", file=sys.stderr)
                continue
            print(f"[{i}/{len(args.images)}] {path}: "
                  f"{'chessboard found' if ok else 'no chessboard'}; "
                  f"{cal.views} views, coverage {cal.coverage():.0%}", file=sys.stderr)
    try:
        res = cal.solve()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    extra = {"rms_px": round(res.rms_px, 4), "views": res.views,
             "coverage": round(res.coverage, 3)}
    save_calibration(args.out, Calibration(res.intrinsics, None, extra))
    k = res.intrinsics
    print(f"wrote {args.out}: fx {k.fx:.1f} fy {k.fy:.1f} cx {k.cx:.1f} cy {k.cy:.1f}, "
          f"rms {res.rms_px:.3f} px from {res.views} views, coverage {res.coverage:.0%}")
    if res.coverage < 0.6:
        print("warning: the views cover little of the image; add some near the edges",
              file=sys.stderr)
    return 0


def _collect_live(cal: ChessboardCalibrator, index: int, wanted: int,
                  size_wh: tuple[int, int]) -> int:
    try:
        cap, actual = open_camera(index, size_wh)
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if actual is not None and actual != size_wh:
        print(f"warning: camera {index} gives {actual[0]}x{actual[1]} frames, not "
              f"{size_wh[0]}x{size_wh[1]}; the calibration will be for its size",
              file=sys.stderr)
    win = "quarto-vision calibrate: show the chessboard (Esc to stop)"
    try:
        while cal.views < wanted:
            ok, frame = cap.read()
            if not ok:
                print(f"error: camera {index} stopped delivering frames", file=sys.stderr)
                return 2
            added = cal.add(frame, require_novel=True)
            shown = frame.copy()
            cv2.putText(shown, f"views {cal.views}/{wanted}  coverage {cal.coverage():.0%}",
                        (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                        (0, 255, 0) if added else (0, 200, 255), 2)
            cv2.imshow(win, shown)
            if added:
                print(f"view {cal.views}/{wanted}, coverage {cal.coverage():.0%}",
                      file=sys.stderr)
            if cv2.waitKey(1) & 0xFF == 27:
                break
    finally:
        cap.release()
        cv2.destroyAllWindows()
    return 0


def run_board(args: argparse.Namespace) -> int:
    img = cv2.imread(args.image)
    if img is None:
        print(f"error: {args.image}: cannot read as an image", file=sys.stderr)
        return 2
    intr = None
    if args.calibration:
        try:
            intr = load_calibration(args.calibration).intrinsics
        except CalibrationError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.corners:
        try:
            lock: BoardLock | None = BoardLock(order_corners(parse_corners(args.corners)),
                                               args.layout)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        lock = click_corners(img, args.layout)
        if lock is None:
            print("cancelled", file=sys.stderr)
            return 1
    assert lock is not None
    h, w = img.shape[:2]
    extra = {"board_image": str(Path(args.image)), "board_image_size": [w, h]}
    save_calibration(args.out, Calibration(intr, lock, extra))
    print(f"wrote {args.out}: board corners locked ({lock.layout})")
    return 0
