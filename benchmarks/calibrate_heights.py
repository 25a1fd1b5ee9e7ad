"""Measure the knobs of the board-level height evidence on the validation renders.

    python benchmarks/calibrate_heights.py --data /tmp/learn-data/train

Reads the validation seeds of ``benchmarks/train_cnn.py`` (102250-102499, never trained on)
with the packaged network (or ``--model``), then prints

- the spread of the network's apparent top size (``top_size``) between the pieces of one board
  (the ``size_noise`` of ``vision.learn.config.BoardHeightConfig``), and
- the pieces whose height is read wrong, by camera elevation, for a range of evidence weights
  (``BoardHeightConfig.weight``) and noise levels, for the network alone and fused with the
  hand-crafted reader as ``vision.learn.fuse`` does.

Nothing here reads the evaluation sets (seeds 870000.., photoreal_dev, real photos).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.labels import load_label
from vision.learn.board_heights import board_height_evidence
from vision.learn.cnn import default_cnn, load_cnn
from vision.learn.config import BoardHeightConfig, LearnedReaderConfig
from vision.learn.dataset import cell_targets, decode_top_size
from vision.learn.fuse import HAND_LEARNED_WEIGHTS
from vision.read import read_cells

VAL_SEEDS = range(102250, 102500)


def collect(data: Path, model_path: Path | None, *, hand: bool) -> dict[str, np.ndarray]:
    """Per image: the network's 16 raw outputs, targets, weights, camera height, ring
    diameter, cell elevations and (``hand``) the hand-crafted P(tall)."""
    model = default_cnn() if model_path is None else load_cnn(model_path)
    if "top_size" not in model.outputs:
        raise SystemExit("the model has no top_size output")
    rows: dict[str, list[np.ndarray]] = {k: [] for k in
                                         ("raw", "y", "w", "cz", "ring", "elev", "hand")}
    for seed in VAL_SEEDS:
        path = data / f"{seed}.json"
        if not path.exists():
            continue
        label = load_label(path)
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        view = label.board_view
        if frame is None or view is None:
            continue
        raw, _ = model.predict(frame, view)
        y, w = cell_targets(label)
        cam = view.camera.pose.camera_center
        xy = view.spec.cell_centers()
        elev = np.degrees(np.arctan2(cam[2], np.hypot(xy[:, 0] - cam[0], xy[:, 1] - cam[1])))
        h = np.full(16, np.nan)
        if hand:
            obs = read_cells(frame, view)
            h = np.array([np.nan if c.attribute_probability.get("height") is None
                          else c.attribute_probability["height"] for c in obs.cells], float)
        for k, v in (("raw", raw), ("y", y), ("w", w), ("cz", np.array([cam[2]])),
                     ("ring", np.array([view.spec.cell_diameter_m])), ("elev", elev),
                     ("hand", h)):
            rows[k].append(np.asarray(v, np.float64))
    return {k: np.stack(v) for k, v in rows.items()}


def size_spread(d: dict[str, np.ndarray], col: int) -> float:
    """Robust standard deviation of (predicted - true) log size around each board's median."""
    res = []
    for raw, y, w in zip(d["raw"], d["y"], d["w"], strict=True):
        m = w[:, col] > 0
        if m.sum() < 2:
            continue
        r = decode_top_size(raw[m, col]) - decode_top_size(y[m, col])
        res.append(r - np.median(r))
    r = np.concatenate(res)
    print(f"top_size error around each board's median: MAD-sigma "
          f"{1.4826 * np.median(np.abs(r)):.4f}, std {r.std():.4f} ({len(r)} tops)")
    return float(1.4826 * np.median(np.abs(r)))


def logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(q / (1 - q)))


def height_errors(d: dict[str, np.ndarray], cols: dict[str, int], cfg: BoardHeightConfig,
                  reader: LearnedReaderConfig) -> dict[str, tuple[int, int, int, int]]:
    """Height errors (alone, fused) over all judged pieces and at 60-90 degrees, with the
    board evidence added at ``cfg.weight``."""
    out = {"all": [0, 0, 0, 0], "60-90": [0, 0, 0, 0]}
    c_h = cols["height"]
    for raw, y, w, cz, ring, elev, hand in zip(d["raw"], d["y"], d["w"], d["cz"], d["ring"],
                                               d["elev"], d["hand"], strict=True):
        prob = np.clip(raw, reader.p_floor, 1 - reader.p_floor)
        usable = ((prob[:, cols["occupied"]] >= reader.occupied_threshold)
                  & (prob[:, cols["top_visible"]] >= cfg.min_top_visible)
                  & (prob[:, cols["visible"]] >= reader.min_visible))
        ev = board_height_evidence(decode_top_size(raw[:, cols["top_size"]]),
                                   prob[:, cols["shape"]] >= 0.5, prob[:, c_h], usable,
                                   camera_height_m=float(cz[0]), ring_diameter_m=float(ring[0]),
                                   config=cfg)
        z = logit(prob[:, c_h]) + cfg.weight * ev
        zf = z if np.all(np.isnan(hand)) else (
            HAND_LEARNED_WEIGHTS[0] * np.where(np.isnan(hand), 0.0, logit(hand))
            + HAND_LEARNED_WEIGHTS[1] * z)
        judged = (w[:, c_h] > 0) & (y[:, 0] > 0.5)
        truth = y[:, c_h] > 0.5
        for band, m in (("all", judged), ("60-90", judged & (elev >= 60))):
            out[band][0] += int(((z > 0) != truth)[m].sum())
            out[band][1] += int(((zf > 0) != truth)[m].sum())
            out[band][2] += int(m.sum())
    return {k: (v[0], v[1], v[2], 0) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/tmp/learn-data/train"))
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--no-hand", action="store_true", help="skip the hand-crafted reader")
    ap.add_argument("--weights", type=str, default="0,0.25,0.5,0.75,1,1.5")
    ap.add_argument("--noise", type=str, default="", help="size_noise values (default: measured)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    d = collect(args.data, args.model, hand=not args.no_hand)
    if not len(d["raw"]):
        print(f"no validation renders in {args.data}", file=sys.stderr)
        return 2
    model = default_cnn() if args.model is None else load_cnn(args.model)
    cols = {name: model.column(name) for name in model.outputs}
    sigma = size_spread(d, cols["top_size"])
    noises = [float(v) for v in args.noise.split(",")] if args.noise else [
        round(sigma * f, 4) for f in (0.75, 1.0, 1.5)]
    reader = LearnedReaderConfig()
    print("height errors: weight, size_noise -> alone / fused (all pieces; 60-90 degrees)")
    for noise in noises:
        for weight in (float(v) for v in args.weights.split(",")):
            cfg = dataclasses.replace(BoardHeightConfig(), weight=weight, size_noise=noise)
            e = height_errors(d, cols, cfg, reader)
            print(f"  w={weight:<5} noise={noise:<7} all {e['all'][0]:>4} / {e['all'][1]:>4} "
                  f"of {e['all'][2]}; 60-90 {e['60-90'][0]:>4} / {e['60-90'][1]:>4} "
                  f"of {e['60-90'][2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
