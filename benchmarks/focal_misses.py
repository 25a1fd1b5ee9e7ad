"""The boards whose uncalibrated focal length is off, one line each, sorted into groups.

    python benchmarks/focal_misses.py DIR [DIR ...] [--tol 0.05] [--max-elevation 70]
        [--names FILE] [--jsonl OUT] [--locate KEY=VALUE ...]

Session 39 (helper-39h). For every labelled board seen from under ``--max-elevation``
degrees (the band ``eval_board.py`` scores the focal length on) the finder runs once; a board
found with its focal length more than ``--tol`` off (relative) is listed with its elevation,
style, focal error, worst and median cell-centre error (share of the cell spacing), and the
lens distortion fitted against the label's (``k1``). The groups:

- ``grid-off``: the worst cell more than ``--tol`` of a pitch off. The camera is fitted to
  the grid's own edges, so the focal length follows a wrong grid: the fix is the grid's.
- ``+k1``: the fitted ``k1`` differs from the label's by more than 0.05 (a distortion fitted
  where there is none, or a real one missed): focal length and ``k1`` trade.
- ``grid-ok``: the cells are right and the focal length is off anyway (the board does not
  fix the focal length: small or far boards, few edges).

Then counts by group, elevation band and style. ``--names FILE`` (names or seeds, any
whitespace) runs only those images; ``--jsonl OUT`` writes one record per board for
comparing two codes or knobs. Each image's CPU time is in the records (``ms``).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.evaluation.board import FOCAL_MAX_ELEVATION_DEG, cell_errors
from vision.evaluation.knobs import replaced
from vision.evaluation.labels import iter_labelled_images
from vision.geometry.board_view import BoardView
from vision.locate.config import LocateConfig
from vision.locate.finder import find_board


def band(elevation: float) -> str:
    return "25-40" if elevation < 40 else "40-60" if elevation < 60 else "60-70"


def group(r: dict[str, Any], tol: float) -> str:
    g = "grid-off" if r["maxerr"] > tol else "grid-ok"
    return g + ("+k1" if abs(r["k1"] - r["k1_true"]) > 0.05 else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--tol", type=float, default=0.05)
    ap.add_argument("--max-elevation", type=float, default=FOCAL_MAX_ELEVATION_DEG)
    ap.add_argument("--names", help="a file of image names (or seeds) to run only")
    ap.add_argument("--jsonl", help="write one record per board here")
    ap.add_argument("--locate", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    try:
        config = replaced(LocateConfig(), args.locate)
    except ValueError as e:
        ap.error(str(e))
    cv2.setNumThreads(1)
    only = set(Path(args.names).read_text().split()) if args.names else None
    records: list[dict[str, Any]] = []
    for folder in args.folders:
        for lab in iter_labelled_images(folder):
            if (not lab.has_board or lab.elevation_deg is None
                    or lab.elevation_deg >= args.max_elevation or len(lab.cells) != 16):
                continue
            if only is not None and lab.image_path.stem not in only:
                continue
            image = cv2.imread(str(lab.image_path), cv2.IMREAD_COLOR)
            if image is None:
                raise SystemExit(f"{lab.image_path}: cannot read as an image")
            t0 = time.process_time()
            view = find_board(image, config=config)
            cam = lab.raw["camera"]
            r: dict[str, Any] = dict(
                name=lab.image_path.stem, elev=float(lab.elevation_deg),
                style=lab.board_style or "none", fx_true=float(cam["fx"]),
                k1_true=float(cam.get("dist_coeffs", [0.0])[0]), found=bool(view),
                ms=(time.process_time() - t0) * 1e3)
            if isinstance(view, BoardView) and not view.calibrated:
                true = np.array([c.center_px for c in lab.cells])
                err = cell_errors(view.cell_centers_px(), true) / lab.cell_spacing_px
                intr = view.camera.intrinsics
                r.update(fx=float(intr.fx), ferr=float(intr.fx / r["fx_true"] - 1.0),
                         maxerr=float(err.max()), mederr=float(np.median(err)),
                         k1=float(intr.dist_coeffs[0]))
            records.append(r)
    if args.jsonl:
        with open(args.jsonl, "w") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in records)
    found = [r for r in records if "ferr" in r]
    misses = [r for r in found if abs(r["ferr"]) > args.tol]
    print(f"boards under {args.max_elevation:g} degrees {len(records)}, found {len(found)}, "
          f"focal within {args.tol:.0%} {1 - len(misses) / max(1, len(found)):.3f} "
          f"({len(found) - len(misses)}), CPU median "
          f"{np.median([r['ms'] for r in records]) if records else 0:.0f} ms")
    for r in sorted(misses, key=lambda r: (group(r, args.tol), r["elev"])):
        print(f"  {r['name']} {band(r['elev'])} {r['elev']:4.1f} {r['style']:13s} "
              f"focal {r['ferr']:+.3f} worst cell {r['maxerr']:.3f} median {r['mederr']:.3f} "
              f"k1 {r['k1']:+.3f} (true {r['k1_true']:+.3f}) {group(r, args.tol)}")
    for key, fn in (("group", lambda r: group(r, args.tol)), ("band", lambda r: band(r["elev"])),
                    ("style", lambda r: r["style"])):
        miss = collections.Counter(fn(r) for r in misses)
        every = collections.Counter(fn(r) for r in found)
        print(f"by {key}: " + ", ".join(f"{k} {miss[k]}/{every[k]}" for k in sorted(every)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
