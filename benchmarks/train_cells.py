"""Reproduce the learned cell classifier from seeds: render (cached), extract features, train,
calibrate, save.

    python benchmarks/train_cells.py --images 2500 --data /tmp/learn-data/train \
        --out vision/learn/cells_model.npz

Training images are seeds 100000.. (100000 + images - 1) of ``vision.render.render_still`` with
3-16 pieces; missing ones are rendered into ``--data`` first (about 1 s each, one process).
The last ``--val-share`` of the images (by seed) are held out: they fit the output temperatures
and give the validation figures printed at the end. Nothing here reads photoreal_dev or real
photos.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

from vision.evaluation.labels import load_label
from vision.learn.config import SamplingConfig
from vision.learn.context import context_for_blocks
from vision.learn.dataset import OUTPUTS, build_examples
from vision.learn.mlp import TrainOptions, calibrate, train_mlp, weighted_bce
from vision.learn.model import DEFAULT_MODEL_PATH, CellModel

FIRST_SEED = 100000
LAST_SEED = 199999


def render_missing(folder: Path, seeds: range) -> None:
    """Render every seed whose image or label is missing in ``folder``."""
    import cv2

    from vision.render import SceneOptions, render_still, write_still

    cv2.setNumThreads(1)
    options = SceneOptions(n_pieces=(3, 16))
    todo = [s for s in seeds if not (folder / f"{s}.json").exists()]
    for k, seed in enumerate(todo):
        image, label = render_still(seed, options=options)
        write_still(folder / f"{seed}.jpg", image, label)
        if k % 50 == 0:
            print(f"rendered {k + 1}/{len(todo)} (seed {seed})", flush=True)


def figures(name: str, p: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
    """Per-output accuracy and cross-entropy, and the share of pieces with any attribute wrong."""
    parts = []
    for k, out in enumerate(OUTPUTS[:5]):
        m = w[:, k] > 0
        acc = float(((p[m, k] >= 0.5) == (y[m, k] >= 0.5)).mean()) if m.any() else float("nan")
        parts.append(f"{out} err={100 * (1 - acc):.2f}% (n={int(m.sum())})")
    occ = (y[:, 0] > 0.5) & (w[:, 1] > 0)
    wrong = np.zeros(int(occ.sum()), bool)
    for k in range(1, 5):
        m = w[occ, k] > 0
        wrong |= m & ((p[occ, k] >= 0.5) != (y[occ, k] >= 0.5))
    loss = weighted_bce(p[:, :5], y[:, :5], w[:, :5])
    print(f"{name}: loss {loss:.4f}; " + "; ".join(parts)
          + f"; pieces any attribute wrong {100 * wrong.mean():.2f}% (independent, no decoding)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/tmp/learn-data/train"))
    ap.add_argument("--images", type=int, default=2500, help="training seeds from 100000")
    ap.add_argument("--no-render", action="store_true", help="use only the cached images")
    ap.add_argument("--jitters", type=int, default=2, help="jittered poses per image")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", type=str, default="256,64")
    ap.add_argument("--val-share", type=float, default=0.1)
    ap.add_argument("--stages", type=int, choices=(1, 2), default=2,
                    help="2: add the occlusion-context second stage")
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.images < 10 or FIRST_SEED + args.images - 1 > LAST_SEED:
        print("--images must be within 10..100000", file=sys.stderr)
        return 2
    seeds = range(FIRST_SEED, FIRST_SEED + args.images)
    args.data.mkdir(parents=True, exist_ok=True)
    if not args.no_render:
        render_missing(args.data, seeds)
    paths = [args.data / f"{s}.json" for s in seeds if (args.data / f"{s}.json").exists()]
    n_val = max(1, round(args.val_share * len(paths)))
    train_paths, val_paths = paths[:-n_val], paths[-n_val:]
    print(f"{len(train_paths)} training images, {len(val_paths)} validation images")

    sampling = SamplingConfig()
    t0 = time.perf_counter()
    ex = build_examples((load_label(p) for p in train_paths), seed=1,
                        jitters=args.jitters, sampling=sampling, mirror=True)
    exv = build_examples((load_label(p) for p in val_paths), seed=2, jitters=1,
                         sampling=sampling)
    print(f"features: {ex.x.shape} train, {exv.x.shape} validation "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)

    hidden = tuple(int(h) for h in args.hidden.split(","))
    options = TrainOptions(hidden=hidden, epochs=args.epochs)
    occ, tall = OUTPUTS.index("occupied"), OUTPUTS.index("height")
    t0 = time.perf_counter()
    if args.stages == 1:
        nets = [train_mlp(ex.x, ex.y, ex.w, options=options, x_val=exv.x, y_val=exv.y,
                          w_val=exv.w)]
        nets[0] = calibrate(nets[0], exv.x, exv.y, exv.w)
        stage2 = None
        p_val = nets[0].predict_proba(exv.x)
    else:
        # Cross-fitting: each half's first-stage odds come from the network trained on the
        # other half, so the second stage learns from odds as good as on unseen boards.
        fold = ex.image % 2
        nets = []
        p1 = np.zeros_like(ex.y)
        for f in (0, 1):
            print(f"stage 1, fold {f}", flush=True)
            train = fold != f
            net = train_mlp(ex.x[train], ex.y[train], ex.w[train], options=options,
                            x_val=exv.x, y_val=exv.y, w_val=exv.w)
            p1[~train] = net.predict_proba(ex.x[~train])
            nets.append(net)
        figures("stage 1 cross-fitted (train)", p1, ex.y, ex.w)
        ctx = context_for_blocks(ex.covers, p1[:, occ], p1[:, tall])
        p1v = np.mean([n.predict_proba(exv.x) for n in nets], axis=0)
        figures("stage 1 ensemble (validation)", p1v, exv.y, exv.w)
        ctxv = context_for_blocks(exv.covers, p1v[:, occ], p1v[:, tall])
        x2v = np.concatenate([exv.x, ctxv], axis=1)
        print("stage 2", flush=True)
        stage2 = train_mlp(np.concatenate([ex.x, ctx], axis=1), ex.y, ex.w, options=options,
                           x_val=x2v, y_val=exv.y, w_val=exv.w)
        stage2 = calibrate(stage2, x2v, exv.y, exv.w)
        p_val = stage2.predict_proba(x2v)
    print(f"trained in {time.perf_counter() - t0:.0f} s")
    final = stage2 if stage2 is not None else nets[0]
    print("temperatures: " + ", ".join(
        f"{o}={t:.2f}" for o, t in zip(OUTPUTS, final.temperature, strict=True)))
    figures("validation (final, calibrated)", p_val, exv.y, exv.w)
    info = {
        "train_seeds": [FIRST_SEED, FIRST_SEED + len(train_paths) - 1],
        "images": len(train_paths), "jitters": args.jitters, "epochs": args.epochs,
        "hidden": list(hidden), "stages": args.stages,
    }
    model = CellModel(tuple(nets), stage2, sampling, OUTPUTS, info)
    model.save(args.out)
    print(f"saved {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
