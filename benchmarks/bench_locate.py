"""Speed of board finding and tracking on one core.

Usage::

    python benchmarks/bench_locate.py [FOLDER] [--limit N] [--repeat R]

FOLDER holds labelled 1280x720 images (default ../shared/photoreal_dev). Prints the time of
``find_board`` from scratch per frame, and of ``BoardTracker.update`` on a still camera (the
same frame with fresh sensor noise each time), median and 90th percentile, in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.locate.finder import find_board
from vision.locate.tracker import BoardTracker


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default="../shared/photoreal_dev")
    ap.add_argument("--limit", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--track-frames", type=int, default=100)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    paths = sorted(Path(args.folder).glob("*.jpg"))[: args.limit]
    if not paths:
        print(f"no images in {args.folder}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(0)
    find_ms: list[float] = []
    track_ms: list[float] = []
    found = 0
    for p in paths:
        img = cv2.imread(str(p))
        if img is None:
            continue
        if img.shape[:2] != (720, 1280):
            img = cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA)
        best = float("inf")
        view = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            view = find_board(img)
            best = min(best, (time.perf_counter() - t0) * 1000.0)
        find_ms.append(best)
        if not view:
            continue
        found += 1
        tracker = BoardTracker()
        tracker.update(img, 0.0)
        noise = [np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255)
                 .astype(np.uint8) for _ in range(4)]
        for k in range(args.track_frames):
            frame = noise[k % 4]
            t0 = time.perf_counter()
            tracker.update(frame, (k + 1) / 30.0)
            track_ms.append((time.perf_counter() - t0) * 1000.0)
    f, t = np.array(find_ms), np.array(track_ms)
    print(f"frames: {len(f)} from {args.folder} (1280x720, one core), board found in {found}")
    print(f"find_board from scratch: median {np.median(f):.1f} ms, p90 "
          f"{np.percentile(f, 90):.1f} ms, max {f.max():.1f} ms")
    if len(t):
        print(f"tracker update (still camera): median {np.median(t):.2f} ms, p90 "
              f"{np.percentile(t, 90):.2f} ms over {len(t)} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
