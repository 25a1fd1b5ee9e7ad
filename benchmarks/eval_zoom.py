"""The finder on listed images, with and without the enlarged search (``zoom_fallback``).

Usage::

    python benchmarks/eval_zoom.py LIST [LIST ...] [--set KEY=VALUE ...]

Each LIST is a text file of labelled image paths, one a line (for instance the images that
``eval_board.py FOLDER --failures`` reports ``found=False``, plus no-board renders). Per
image: found or not, the largest cell error over the label's cell spacing (``misplaced``
when over half a pitch) or ``FALSE`` for a board found where the label has none, and the
CPU time; per list, the totals for both settings. ``--set`` changes a ``LocateConfig``
field (numbers, or a comma-separated tuple of numbers) for both.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.evaluation.board import cell_errors
from vision.evaluation.labels import load_label
from vision.geometry.board_view import BoardView
from vision.locate.config import LocateConfig
from vision.locate.finder import find_board


@dataclass
class _Totals:
    found: int = 0
    misplaced: int = 0
    false: int = 0
    ms: list[float] = field(default_factory=list)


def _value(default: Any, text: str) -> Any:
    if isinstance(default, tuple):
        return tuple(float(v) for v in text.split(","))
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    return type(default)(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lists", nargs="+")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    base = LocateConfig()
    for kv in args.set:
        key, text = kv.split("=", 1)
        base = replace(base, **{key: _value(getattr(base, key), text)})
    configs = {"off": replace(base, zoom_fallback=False), "on": replace(base, zoom_fallback=True)}
    for lst in args.lists:
        paths = [line.strip() for line in Path(lst).read_text().splitlines() if line.strip()]
        totals = {name: _Totals() for name in configs}
        for path in paths:
            label = load_label(path.rsplit(".", 1)[0] + ".json")
            frame = cv2.imread(path)
            if frame is None:
                raise SystemExit(f"{path}: cannot read as an image")
            row = [path.rsplit("/", 1)[-1]]
            for name, config in configs.items():
                t0 = time.process_time()
                view = find_board(frame, config=config)
                ms = (time.process_time() - t0) * 1000.0
                tot = totals[name]
                tot.ms.append(ms)
                if isinstance(view, BoardView) and label.has_board:
                    true = np.array([c.center_px for c in label.cells])
                    err = cell_errors(view.cell_centers_px(), true).max() / label.cell_spacing_px
                    tot.found += 1
                    tot.misplaced += int(err > 0.5)
                    row.append(f"{name}: found {err:.3f} pitch {ms:.0f} ms")
                elif view:
                    tot.false += 1
                    row.append(f"{name}: FALSE {ms:.0f} ms")
                else:
                    row.append(f"{name}: - {ms:.0f} ms")
            print("  ".join(row), flush=True)
        for name, tot in totals.items():
            ms_all = np.array(tot.ms)
            print(f"== {lst} {name}: {len(paths)} images, found {tot.found}, misplaced "
                  f"{tot.misplaced}, false {tot.false}, CPU median "
                  f"{np.median(ms_all):.0f} ms, mean {ms_all.mean():.0f} ms", flush=True)


if __name__ == "__main__":
    main()
