"""Before / after figures for ``LocateConfig.radius_search_steps`` (session 33) on labelled
folders, in one pass.

Usage::

    python benchmarks/radius_search_eval.py FOLDER [--steps 5] [--no-board FOLDER ...]

Every image is run with the search off (the default finder); only the images it misses are
run again with the search on (the search runs only when every other search found nothing,
so a board found without it is found the same, bit for bit). Prints each image that
changes, each board still missed, and ``eval_board.py``'s figures for both. With
``--no-board``, the search alone (as ``find_board`` runs it after every other search found
nothing) on no-board folders, its bar at 0: every grid it judges, and those at
``min_peak_board_score`` or more (false boards).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.board import evaluate_image, format_summary, summarize
from vision.evaluation.labels import iter_labelled_images
from vision.locate import finder as fnd
from vision.locate.config import LocateConfig
from vision.locate.peak_grid import frame_peaks


def boards(folder: Path, steps: int) -> None:
    off = replace(LocateConfig(), radius_search_steps=0)
    on = replace(LocateConfig(), radius_search_steps=steps)
    before, after = [], []
    for lab in iter_labelled_images(folder):
        r0 = evaluate_image(lab, lambda im: fnd.find_board(im, config=off))
        r1 = r0 if r0.found else evaluate_image(lab, lambda im: fnd.find_board(im, config=on))
        before.append(r0)
        after.append(r1)
        if r1.found != r0.found:
            worst = float(r1.errors.max()) if r1.errors is not None else float("nan")
            print(f"CHANGED {r0.name} band={r0.band} el={r0.elevation_deg} style={r0.style} "
                  f"board={r0.has_board} found {r0.found}->{r1.found} worst={worst:.3f}",
                  flush=True)
        elif not r0.found and r0.has_board:
            print(f"MISS {r0.name} band={r0.band} el={r0.elevation_deg}", flush=True)
    print(f"== {folder} off")
    print(format_summary(summarize(before)))
    print(f"== {folder} on")
    print(format_summary(summarize(after)))


def no_board(folders: list[Path], steps: int) -> None:
    config = replace(LocateConfig(), radius_search_steps=steps)
    low = replace(config, min_peak_board_score=0.0)
    n = false = 0
    scores: list[float] = []
    cpu: list[float] = []
    for folder in folders:
        for path in sorted(folder.glob("*.jpg")):
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            scale = min(1.0, config.work_width_px / gray.shape[1])
            work = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            work_f, edge = fnd._work_edges(work, config)
            peaks = frame_peaks(frame, scale, config)
            t0 = time.process_time()
            fitted = fnd._radius_search(work_f, edge, peaks, low)
            cpu.append(time.process_time() - t0)
            n += 1
            if fitted is not None:
                scores.append(fitted[2])
                if fitted[2] >= config.min_peak_board_score:
                    false += 1
                    print(f"FALSE {path} {fitted[2]:.2f}", flush=True)
        print(f"{folder}: images {n}, grids judged {len(scores)}, false boards {false}, "
              f"top scores {sorted(scores)[-5:]}, CPU median {np.median(cpu):.3f} s "
              f"max {max(cpu):.3f} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--no-board", nargs="*", default=[])
    args = ap.parse_args()
    cv2.setNumThreads(1)
    for folder in args.folders:
        boards(Path(folder), args.steps)
    if args.no_board:
        no_board([Path(f) for f in args.no_board], args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
