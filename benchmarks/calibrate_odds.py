"""Fit the temperatures of the fused attribute odds by visible fraction (odds_calibration).

    python benchmarks/calibrate_odds.py --cache /tmp/qv-calib [--renders 450 --first-seed 1280000]

Renders calibration stills (seeds 1280000.. by default; never the evaluation sets, never the
photoreal or real photos), reads each with the fused reader on the true board with the odds
*uncalibrated*, and collects, for every truly occupied cell whose attribute is read, the
attribute's log-odds, the reader's own predicted visible fraction (what the live reader knows,
not the label's) and the truth. For every attribute and band of visible fraction it fits the
temperature that maximises the likelihood (log-odds divided by it) on the first two thirds of
the seeds and reports, on the last third (held out), the log-loss and the error rate among
readings that claim 0.9 or more, before and after. The temperatures to package are printed
last, as a Python literal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from eval_learned import render_eval

from vision.learn.fuse import read_cells_fused
from vision.learn.odds_calibration import VISIBLE_EDGES, OddsCalibration
from vision.rules.pieces import ATTRIBUTES, VALUES

#: Temperatures tried (log-spaced); a band with fewer readings than MIN_READINGS keeps 1.
GRID = np.exp(np.linspace(np.log(0.25), np.log(6.0), 241))
MIN_READINGS = 40


def collect(labels: list, progress: bool = True) -> dict[str, np.ndarray]:
    """Rows (seed index, attribute index, log-odds, visible, truth) over the labels."""
    rows = []
    identity = OddsCalibration.identity()
    for k, label in enumerate(labels):
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if frame is None or label.board_view is None:
            continue
        obs = read_cells_fused(frame, label.board_view, calibration=identity)
        read = {c.cell: c for c in obs.cells}
        for truth in label.cells:
            reading = read[truth.cell]
            if truth.piece is None:
                continue
            for a, name in enumerate(ATTRIBUTES):
                p = reading.attribute_probability.get(name)
                if p is None:
                    continue
                q = min(max(float(p), 1e-6), 1 - 1e-6)
                rows.append((k, a, np.log(q / (1 - q)), reading.visible_fraction,
                             float(truth.piece.value(name) == VALUES[name][1])))
        if progress and (k + 1) % 50 == 0:
            print(f"  read {k + 1}/{len(labels)}", file=sys.stderr)
    arr = np.array(rows, dtype=np.float64).reshape(-1, 5)
    return {"image": arr[:, 0], "attr": arr[:, 1].astype(int), "logit": arr[:, 2],
            "visible": arr[:, 3], "truth": arr[:, 4]}


def nll(logit: np.ndarray, truth: np.ndarray) -> float:
    """Mean log-loss of P = sigmoid(logit)."""
    return float(np.mean(np.logaddexp(0.0, -np.where(truth > 0.5, logit, -logit))))


def fit_temperature(logit: np.ndarray, truth: np.ndarray) -> float:
    if len(logit) < MIN_READINGS:
        return 1.0
    losses = [nll(logit / t, truth) for t in GRID]
    return float(GRID[int(np.argmin(losses))])


def sure_errors(logit: np.ndarray, truth: np.ndarray, sure: float = 0.9) -> str:
    """'e/n' of readings claiming at least ``sure`` that are wrong."""
    claimed = np.abs(logit) >= np.log(sure / (1 - sure))
    wrong = claimed & ((logit > 0) != (truth > 0.5))
    return f"{int(wrong.sum())}/{int(claimed.sum())}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--renders", type=int, default=450)
    ap.add_argument("--first-seed", type=int, default=1280000)
    args = ap.parse_args(argv)
    if args.renders < 3:
        ap.error("--renders must be at least 3")

    labels = render_eval(args.cache, args.renders, args.first_seed)
    data = collect(labels)
    cut = 2 * len(labels) // 3
    fit_rows = data["image"] < cut
    bands = np.searchsorted(np.array(VISIBLE_EDGES), data["visible"], side="right")
    edges = (0.0, *VISIBLE_EDGES, 1.0)
    temps: dict[str, tuple[float, ...]] = {}
    print(f"{len(labels)} renders from seed {args.first_seed}: fitted on the first {cut}, "
          f"checked on the other {len(labels) - cut}")
    print("attribute  band        n_fit  T      held-out n  log-loss before -> after   "
          "wrong among >=0.9 before -> after")
    for a, name in enumerate(ATTRIBUTES):
        row = []
        for b in range(len(VISIBLE_EDGES) + 1):
            m = (data["attr"] == a) & (bands == b)
            f, h = m & fit_rows, m & ~fit_rows
            t = fit_temperature(data["logit"][f], data["truth"][f])
            row.append(round(t, 2))
            lo, y = data["logit"][h], data["truth"][h]
            if len(lo):
                print(f"{name:<10} {edges[b]:.1f}-{edges[b + 1]:.1f}    {int(f.sum()):>5}  "
                      f"{t:<5.2f}  {len(lo):>10}  {nll(lo, y):.3f} -> {nll(lo / t, y):.3f}"
                      f"          {sure_errors(lo, y):>7} -> {sure_errors(lo / t, y)}")
        temps[name] = tuple(row)
    held = ~fit_rows
    calibrated = data["logit"].copy()
    for a, name in enumerate(ATTRIBUTES):
        for b, t in enumerate(temps[name]):
            m = (data["attr"] == a) & (bands == b)
            calibrated[m] /= t
    print(f"all held out: log-loss {nll(data['logit'][held], data['truth'][held]):.4f} -> "
          f"{nll(calibrated[held], data['truth'][held]):.4f}; wrong among >=0.9 "
          f"{sure_errors(data['logit'][held], data['truth'][held])} -> "
          f"{sure_errors(calibrated[held], data['truth'][held])}")
    print("FITTED_TEMPERATURES = {")
    for name, row in temps.items():
        print(f'    "{name}": ({", ".join(f"{t:.2f}" for t in row)}),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
