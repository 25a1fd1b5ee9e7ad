"""Why the finder misses the boards it misses: one line per missed board, and counts.

Usage::

    python benchmarks/board_misses.py FOLDER [FOLDER ...] [--names 1350188 1352200 ...]

For every labelled image with a board that ``find_board`` does not find (or only the
``--names`` given, which skips the search), it prints the scene (elevation, style, pieces
on the board, the cell centres' span in pixels, off-board pieces standing on or just in
front of the board's outline), the finder's reason, and two measurements (work pixels,
default config):

* ``truth``: the score the network's path (``fit_grid`` with the network's peaks counted)
  gives the grid fitted from the label's own grid, ``-`` when a check refuses it. Under
  ``min_board_score`` (1.1) the evidence is not there even with the answer known; from 1.1
  to ``min_peak_board_score`` (1.4) only the peaks lift it over the ring search's bar and
  the network's own bar refuses it; from 1.4 the network's path would have taken it.
* ``lattice``: the network's peak lattices (peaks on each, and the largest distance of a
  true cell centre from the lattice's nearest node, in pitches), and what ``fit_grid``
  makes of those with ``peak_full_lattice`` peaks or more (score, largest distance).

Classes (session 30, helper-30b): ``A`` truth under 1.1, ``B`` truth 1.1-1.4, ``C`` truth
1.4 or more (the guess or the fit lost a board the judge would take).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.labels import Label, iter_labelled_images
from vision.locate import finder as fnd
from vision.locate.config import LocateConfig
from vision.locate.lattice import LatticeHypothesis, apply_h
from vision.locate.peak_grid import frame_peaks, peak_hypotheses, size_outlines


def _worst(H: np.ndarray, centres: np.ndarray) -> float:
    """Largest distance (pitches of ``H``) of a true centre from its nearest node of the
    4x4 window of ``H``."""
    g = apply_h(np.linalg.inv(H), centres)
    return float(np.hypot(*(g - np.clip(np.rint(g), 0, 3)).T).max())


def explain(label: Label, config: LocateConfig) -> tuple[str, str]:
    """(class, one line) for the board of ``label``."""
    frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, config.work_width_px / gray.shape[1])
    work = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    work_f, edge = fnd._work_edges(work, config)
    centres = np.array([c.center_px for c in label.cells], dtype=np.float64) * scale
    nodes = np.array([(c.cell.col, c.cell.row) for c in label.cells], dtype=np.float64)
    H_true, _ = cv2.findHomography(nodes, centres, 0)
    peaks, scores = frame_peaks(frame, scale, config)
    radius = float(np.mean(config.ring_radius_range))
    truth_hyp = LatticeHypothesis(H_true, nodes.astype(np.int64), 16, radius, "circle",
                                  source="peaks")
    truth = fnd.fit_grid(work_f, size_outlines([truth_hyp], work_f, edge, config), config,
                         edge, peaks=peaks)
    score = None if truth is None else truth[2]
    lattices = peak_hypotheses(peaks, scores, config)
    lat = " ".join(f"{h.inliers}@{_worst(h.H, centres):.2f}" for h in lattices)
    full = [h for h in lattices if h.inliers >= config.peak_full_lattice]
    fitted = (fnd.fit_grid(work_f, size_outlines(full, work_f, edge, config), config, edge,
                           peaks=peaks) if full else None)
    fit = "-" if fitted is None else f"{fitted[2]:.2f}@{_worst(fitted[0], centres):.2f}"
    if score is None or score < config.min_board_score:
        cls = "A"
    elif score < config.min_peak_board_score:
        cls = "B"
    else:
        cls = "C"
    span = float(np.max(np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1))))
    quad = np.asarray(label.raw["board_corners_px"], dtype=np.float32)
    near = sum(1 for p in label.raw.get("off_board_detail") or []
               if cv2.pointPolygonTest(quad, tuple(float(v) for v in p["base_center_px"]),
                                       True) > -20.0)
    pieces = sum(1 for c in label.cells if c.piece is not None)
    line = (f"{label.image_path.name:14s} class={cls} el={label.elevation_deg or 0:5.1f} "
            f"{label.raw['board_style']:13s} pieces={pieces:2d} span={span / scale:4.0f}px "
            f"spares_near={near} truth={'-' if score is None else f'{score:.2f}'} "
            f"lattices={lat or '-'} fit={fit}")
    return cls, line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--names", nargs="*", help="image stems to explain (skips the search)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    config = LocateConfig()
    counts: Counter[str] = Counter()
    for folder in args.folders:
        for label in iter_labelled_images(Path(folder)):
            if not label.cells:
                continue
            if args.names is not None:
                if label.image_path.stem not in args.names:
                    continue
            else:
                frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
                if fnd.find_board(frame, config=config):
                    continue
            cls, line = explain(label, config)
            counts[cls] += 1
            print(line, flush=True)
    print("classes:", dict(sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
