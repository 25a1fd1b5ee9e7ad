"""Copies of labelled renders as a webcam in a dim room takes them: darker, grainy, sharpened.

    python benchmarks/degrade_renders.py SRC... --out DIR --count 2000 --seed 350000

Our renders rarely leave the exposure more than a stop dark or push the sensor gain above 6,
while a webcam in a dim room often does both, and most webcams sharpen what they send. The
reader fails there: on 150 fresh renders (1341000-149, true board) darkened 1.3 stops with the
noise of gain 9 added, pieces wrong went 2.0% -> 6.1% (shape errors 3 -> 30); darkness alone
cost nothing (the readers normalise the exposure), the grain did. Score such copies with
``eval_read.py --folder DIR --oracle-board`` to see how reading holds up in a dim room.
Training on 2400 of them was measured and not taken (docs/design.md, session 18): the
network learnt almost nothing from them and photoreal_dev lost pieces.

Each copy takes a render's image to linear light, scales it by ``2**ev`` (``ev`` uniform in
``--ev``), adds the sensor noise of gain ``g`` (log-uniform in ``--gain``; variance
``x * shot * g + (read * g)**2``, three quarters shared by the channels, the renderer's
``SensorConfig`` model), goes back to sRGB, sharpens half of the copies (unsharp mask, amount
uniform in 0.2-0.7) and encodes as JPEG (quality 75-92). The label is copied with the image's
name and a ``degraded`` record of the parameters; labels stay exact (nothing moves).

Copies are named ``seed, seed + 1, ...`` in the order the sources are drawn (``train_cnn.py``
uses a file's number as its jitter seed); sources are drawn without replacement from the
labelled images of SRC, seeded by ``--seed``. Validation renders must not be among SRC's
images (``--skip FIRST-LAST``, repeatable, leaves a range of numbers out).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.render.effects import SensorConfig, add_sensor_noise, linear_to_srgb
from vision.render.materials import srgb_to_linear


def degrade(image_bgr: np.ndarray, rng: np.random.Generator, ev: float, gain: float,
            sharpen: float, config: SensorConfig | None = None) -> np.ndarray:
    """``image_bgr`` exposed ``ev`` stops differently with the sensor noise of ``gain`` and an
    unsharp mask of ``sharpen`` (0: none); 8-bit BGR in and out, before JPEG."""
    cfg = config or SensorConfig()
    lin = srgb_to_linear(image_bgr).astype(np.float32) * np.float32(2.0 ** ev)
    lin = np.clip(add_sensor_noise(lin, gain, rng, cfg), 0.0, 1.0)
    out = linear_to_srgb(lin)
    if sharpen > 0:
        out = out + np.float32(sharpen) * (out - cv2.GaussianBlur(out, (0, 0), 1.0))
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", type=Path, nargs="+", help="folders of labelled renders")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, default=350000)
    ap.add_argument("--ev", type=float, nargs=2, default=(-1.8, 0.2))
    ap.add_argument("--gain", type=float, nargs=2, default=(2.0, 12.0))
    ap.add_argument("--skip", action="append", default=[],
                    help="FIRST-LAST: numbers never drawn (validation); repeatable")
    args = ap.parse_args(argv)
    skip = set()
    for text in args.skip:
        first, last = (int(v) for v in text.split("-"))
        skip.update(range(first, last + 1))
    labels = [p for folder in args.sources for p in sorted(folder.glob("*.json"))
              if not (p.stem.isdigit() and int(p.stem) in skip)]
    if args.count > len(labels):
        print(f"only {len(labels)} labelled images in {args.sources}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    picked = rng.choice(len(labels), size=args.count, replace=False)
    args.out.mkdir(parents=True, exist_ok=True)
    for n, k in enumerate(picked):
        src = labels[int(k)]
        raw = json.loads(src.read_text())
        image = cv2.imread(str(src.parent / raw.get("image", src.with_suffix(".jpg").name)))
        if image is None:
            print(f"{src}: cannot read its image; skipped", file=sys.stderr)
            continue
        r = np.random.default_rng([args.seed, n])
        params = {"source": str(src), "ev": float(r.uniform(*args.ev)),
                  "gain": float(np.exp(r.uniform(*np.log(args.gain)))),
                  "sharpen": float(r.uniform(0.2, 0.7)) if r.random() < 0.5 else 0.0,
                  "jpeg_quality": int(r.integers(75, 93))}
        out = degrade(image, r, params["ev"], params["gain"], params["sharpen"])
        name = f"{args.seed + n}"
        cv2.imwrite(str(args.out / f"{name}.jpg"), out,
                    [cv2.IMWRITE_JPEG_QUALITY, params["jpeg_quality"]])
        raw["image"] = f"{name}.jpg"
        raw["degraded"] = params
        (args.out / f"{name}.json").write_text(json.dumps(raw))
        if (n + 1) % 200 == 0 or n + 1 == args.count:
            print(f"{n + 1}/{args.count} copies", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
