"""Reliability of the fused odds by visible fraction at low angles; fits LowViewOdds.

    python benchmarks/calibrate_low_view.py --folder DIR [--folder DIR2 ...]
        [--max-elevation 45] [--rows FILE.pkl]

Reads every labelled still of the folders with the fused reader on the label's board, as
``analyze`` does but with the low-view temperature off, and collects, for every truly occupied
cell and every attribute read, the final odds (after the calibration and the height cues, as
the joint decoding and the live tracker take them), the reader's own visible fraction, the
viewing elevation at the cell and the truth. For the cells seen from at most
``--max-elevation`` degrees it prints, per attribute and band of ``LOW_VIEW_EDGES``, the mean
predicted error, the observed error and the log-loss, then fits each band's temperature by
maximum likelihood on the stills of even seeds and reports the log-loss on the odd ones
before and after (a fit on the odd seeds is printed beside it, to show how stable it is).
The temperatures to package are printed last. Asserts nothing. ``--rows`` caches the readings.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.labels import iter_labelled_images
from vision.learn.fuse import read_cells_fused
from vision.learn.odds_calibration import LOW_VIEW_EDGES, LowViewOdds
from vision.read.config import ReaderConfig
from vision.read.geometry import cell_frames
from vision.rules.pieces import ATTRIBUTES, VALUES

GRID = np.exp(np.linspace(np.log(0.25), np.log(8.0), 241))
MIN_READINGS = 30


def collect(folders: list[Path]) -> list[dict]:
    rows = []
    off = LowViewOdds()
    for folder in folders:
        for label in iter_labelled_images(folder):
            if label.board_view is None:
                continue
            frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
            obs = read_cells_fused(frame, label.board_view, low_view_odds=off)
            frames = cell_frames(label.board_view, ReaderConfig().footprint_frac_of_ring)
            seed = int(Path(label.image_path).stem) if Path(label.image_path).stem.isdigit() \
                else len(rows)
            index = {c.cell: i for i, c in enumerate(obs.cells)}
            for truth in label.cells:
                if truth.piece is None:
                    continue
                i = index[truth.cell]
                r = obs.cells[i]
                elevation = math.degrees(math.asin(min(1.0, float(frames.top_sine[i]))))
                for name in ATTRIBUTES:
                    p = r.attribute_probability.get(name)
                    if p is None:
                        continue
                    rows.append({"seed": seed, "attr": name, "p": float(p),
                                 "visible": r.visible_fraction, "elevation": elevation,
                                 "truth": float(truth.piece.value(name) == VALUES[name][1])})
    return rows


def logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(q / (1 - q))


def nll(z: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(np.logaddexp(0.0, -np.where(y > 0.5, z, -z)))) if len(z) else math.nan


def fit(z: np.ndarray, y: np.ndarray) -> float:
    if len(z) < MIN_READINGS:
        return 1.0
    return float(GRID[int(np.argmin([nll(z / t, y) for t in GRID]))])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", type=Path, action="append", default=[])
    ap.add_argument("--max-elevation", type=float, default=45.0)
    ap.add_argument("--rows", type=Path, help="cache of the readings (read if it exists)")
    args = ap.parse_args(argv)
    if args.rows and args.rows.exists():
        rows = pickle.loads(args.rows.read_bytes())
    else:
        if not args.folder:
            ap.error("--folder is required without a cached --rows")
        rows = collect(args.folder)
        if args.rows:
            args.rows.write_bytes(pickle.dumps(rows))
    rows = [r for r in rows if r["elevation"] <= args.max_elevation]
    edges = (0.0, *LOW_VIEW_EDGES, 1.0)
    band = np.searchsorted(np.array(LOW_VIEW_EDGES), [r["visible"] for r in rows], side="right")
    attr = np.array([r["attr"] for r in rows])
    z = logit(np.array([r["p"] for r in rows]))
    y = np.array([r["truth"] for r in rows])
    even = np.array([r["seed"] % 2 == 0 for r in rows])
    print(f"{len(rows)} readings at <= {args.max_elevation:g} degrees "
          f"({int(even.sum())} on even seeds, fitted; {int((~even).sum())} odd, checked)")
    print("attribute  band       n    predicted err  observed err  log-loss | T even (T odd)"
          "  odd log-loss before -> after")
    temps: dict[str, tuple[float, ...]] = {}
    zt = z.copy()
    for name in ATTRIBUTES:
        row = []
        for b in range(len(edges) - 1):
            m = (attr == name) & (band == b)
            p = 1 / (1 + np.exp(-z[m]))
            pred = float(np.mean(np.minimum(p, 1 - p))) if m.any() else math.nan
            obs = float(np.mean((z[m] > 0) != (y[m] > 0.5))) if m.any() else math.nan
            t = fit(z[m & even], y[m & even])
            t_odd = fit(z[m & ~even], y[m & ~even])
            row.append(round(t, 2))
            h = m & ~even
            zt[m] = z[m] / t
            print(f"{name:<10} {edges[b]:.2f}-{edges[b + 1]:.2f} {int(m.sum()):>5}    "
                  f"{pred:.3f}          {obs:.3f}         {nll(z[m], y[m]):.3f}    | "
                  f"{t:.2f} ({t_odd:.2f})     {nll(z[h], y[h]):.3f} -> {nll(z[h] / t, y[h]):.3f}")
        temps[name] = tuple(row)
    print(f"all odd: log-loss {nll(z[~even], y[~even]):.4f} -> {nll(zt[~even], y[~even]):.4f}")
    print("LOW_VIEW_TEMPERATURES = {")
    for name, row in temps.items():
        print(f'    "{name}": ({", ".join(f"{t:.2f}" for t in row)}),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
