"""How sharply the bores of hollow pieces measure a top's size, against the network's top_size.

    python benchmarks/hole_sizes.py DIR [DIR ...] [--min-elevation 60]

Session 34 (helper-34e; docs/design.md, "Session 34, top size from the rim"). For every
hollow piece at least 0.9 in view on labelled renders seen from ``--min-elevation`` and up,
with the label's board: the bore's log size (``vision.learn.hole_size.hole_log_sizes``, the
board's bores searched together) and the network's ``top_size``, each against the truth
(the label's set: bore = ``hole_diameter_frac`` of the width, at the piece's height). Printed
by elevation band: the spread (MAD) of each around the truth, its spread within a board (each
piece against the median of the other hollow pieces of its shape, so the set's width
cancels), the share of gross misses (over 10 %), and how many heights the nearer of the
label's two heights gets wrong after that board offset (an oracle of the set: it shows the
measurement's power, not a reader's).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import cv2
import numpy as np

from vision.evaluation.labels import iter_labelled_images
from vision.learn.cnn import default_cnn
from vision.learn.config import LearnedReaderConfig
from vision.learn.dataset import apparent_top_log_size, decode_top_size
from vision.learn.hole_size import hole_log_sizes

BANDS = ((60.0, 70.0), (70.0, 80.0), (80.0, 90.1))


def measure(folders: list[str], min_elevation: float, limit: int = 0) -> list[dict]:
    model = default_cnn()
    engine = LearnedReaderConfig().cnn_engine
    col = {name: model.column(name) for name in model.outputs}
    rows: list[dict] = []
    boards = 0
    for folder in folders:
        for label in iter_labelled_images(folder):
            if (label.board_view is None or label.elevation_deg is None
                    or label.elevation_deg < min_elevation):
                continue
            boards += 1
            if limit and boards > limit:
                return rows
            view = label.board_view
            frame = cv2.imread(str(label.image_path))
            if frame is None:
                continue
            pset = label.raw["pieces_set"]
            cam_z = float(view.camera.pose.camera_center[2])
            ring = view.spec.cell_diameter_m
            hollow = [(i, c) for i, c in enumerate(label.cells)
                      if c.piece is not None and c.piece.value("top") == "hollow"
                      and c.top_visible_fraction >= 0.9]
            if len(hollow) < 2:
                continue
            raw, _ = model.predict_frame(frame, view, engine)
            sizes = hole_log_sizes(frame, view, [c.cell for _, c in hollow])
            for (i, c), size in zip(hollow, sizes, strict=True):
                assert c.piece is not None
                shape = c.piece.value("shape")
                width = pset["round_diameter_m" if shape == "round" else "square_side_m"]
                tall = c.piece.value("height") == "tall"
                h, other = ((pset["tall_height_m"], pset["short_height_m"]) if tall
                            else (pset["short_height_m"], pset["tall_height_m"]))
                true_top = apparent_top_log_size(width, h, cam_z, ring)
                rows.append(dict(
                    board=(folder, label.image_path.stem, shape), elevation=label.elevation_deg,
                    # both as errors of the top's log width (the bore's share of the set)
                    hole=float(size) - np.log(pset["hole_diameter_frac"]) - true_top,
                    net=float(decode_top_size(float(raw[i, col["top_size"]]))) - true_top,
                    gap=true_top - apparent_top_log_size(width, other, cam_z, ring)))
    return rows


def report(rows: list[dict], key: str, lo: float, hi: float) -> str:
    sel = [r for r in rows if lo <= r["elevation"] < hi and np.isfinite(r["hole"])]
    by = defaultdict(list)
    for r in sel:
        by[r["board"]].append(r)
    err = np.array([r[key] for r in sel])
    within, wrong = [], 0
    for group in by.values():
        if len(group) < 2:
            continue
        for r in group:
            offset = float(np.median([o[key] for o in group if o is not r]))
            e = r[key] - offset
            within.append(e)
            # nearer the other height than its own (the other lies at -gap)
            wrong += abs(e) >= abs(e + r["gap"])
    w = np.array(within)

    def mad(x: np.ndarray) -> float:
        return float(1.4826 * np.median(np.abs(x - np.median(x)))) if len(x) else float("nan")

    return (f"{key:4s} vs truth MAD {mad(err):.4f}, over 10% {np.mean(np.abs(err) > 0.1):.3f}; "
            f"within board MAD {mad(w):.4f}, p90 {np.percentile(np.abs(w), 90):.4f}; "
            f"oracle heights wrong {wrong} of {len(w)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--min-elevation", type=float, default=60.0)
    parser.add_argument("--limit", type=int, default=0, help="at most N boards (0: all)")
    args = parser.parse_args()
    rows = measure(args.folders, args.min_elevation, args.limit)
    print(f"hollow pieces at least 0.9 in view: {len(rows)}, a bore found on "
          f"{sum(np.isfinite(r['hole']) for r in rows)}")
    for lo, hi in BANDS:
        n = sum(lo <= r["elevation"] < hi for r in rows)
        gaps = [abs(r["gap"]) for r in rows if lo <= r["elevation"] < hi]
        print(f"{lo:.0f}-{min(hi, 90):.0f} degrees: {n} pieces, tall/short gap median "
              f"{np.median(gaps) if gaps else float('nan'):.4f}")
        for key in ("hole", "net"):
            print("  " + report(rows, key, lo, hi))


if __name__ == "__main__":
    main()
