"""Board-finding figures over labelled image folders (renders, photoreal_dev).

Usage::

    python benchmarks/eval_board.py FOLDER [FOLDER ...] [--render N --seed S --out DIR]
        [--no-board N] [--json FILE] [--failures]

``--render N --seed S`` first renders N seeded stills (and ``--no-board M`` stills without a
board, seeds S+N..) into ``--out`` (default /tmp/board_eval), then evaluates that folder too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.evaluation.board import evaluate_folder, format_summary, summarize
from vision.evaluation.labels import iter_labelled_images
from vision.locate.finder import find_board


def render_set(out: Path, n: int, seed: int, no_board: int) -> None:
    import dataclasses

    from vision.render.scene import SceneOptions
    from vision.render.still import render_still, write_still

    out.mkdir(parents=True, exist_ok=True)
    for k in range(n + no_board):
        s = seed + k
        path = out / f"{s}.jpg"
        if path.exists() and path.with_suffix(".json").exists():
            continue
        opts = SceneOptions()
        if k >= n:
            opts = dataclasses.replace(opts, board=False)
        img, label = render_still(s, options=opts)
        write_still(path, img, label)
        if (k + 1) % 50 == 0:
            print(f"rendered {k + 1}/{n + no_board}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--render", type=int, default=0, help="render this many stills first")
    ap.add_argument("--no-board", type=int, default=0, help="... plus this many without a board")
    ap.add_argument("--seed", type=int, default=900000)
    ap.add_argument("--out", default="/tmp/board_eval")
    ap.add_argument("--json", help="write the figures as JSON here")
    ap.add_argument("--failures", action="store_true", help="list images not found / worst")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    folders = [Path(f) for f in args.folders]
    if args.render or args.no_board:
        render_set(Path(args.out), args.render, args.seed, args.no_board)
        folders.append(Path(args.out))
    if not folders:
        ap.error("give a FOLDER or --render N")
    all_figures = {}
    for folder in folders:
        records = evaluate_folder(iter_labelled_images(folder), find_board)
        figures = summarize(records)
        all_figures[str(folder)] = figures
        print(f"== {folder}")
        print(format_summary(figures))
        if args.failures:
            for r in records:
                bad = r.has_board != r.found
                worst = float(r.errors.max()) if r.errors is not None else 0.0
                if bad or worst > 0.05:
                    print(f"  {r.name:14s} {r.style:14s} {r.band:6s} board={r.has_board} "
                          f"found={r.found} max_err={worst:.3f} {r.reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(all_figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
