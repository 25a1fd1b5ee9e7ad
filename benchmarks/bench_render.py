"""Renderer speed on one core: seconds per 1280x720 still (and per game video with --game).

    python benchmarks/bench_render.py [--n 10] [--game]

Prints figures; asserts nothing (budgets: a still under 1 s, a 40 s game under 2 minutes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2

from vision.render.still import render_still


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10, help="stills to time")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--game", action="store_true", help="also time a 40-second game video")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    render_still(args.seed - 1)  # warm-up: imports, caches
    times, cpu = [], []
    for i in range(args.n):
        t0, c0 = time.perf_counter(), time.process_time()
        render_still(args.seed + i)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    # CPU time is what one core spends; wall time also counts other processes on a busy machine.
    print(
        f"still 1280x720, one core: CPU median {statistics.median(cpu):.3f} s, "
        f"max {max(cpu):.3f} s; wall median {statistics.median(times):.3f} s, "
        f"max {max(times):.3f} s over {args.n} seeds"
    )
    if args.game:
        from vision.render.video import render_game

        with tempfile.TemporaryDirectory() as tmp:
            t0, c0 = time.perf_counter(), time.process_time()
            label = render_game(Path(tmp) / "g.mp4", args.seed, "draw", min_duration_s=40.0)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
        dur = label["frame_count"] / label["fps"]
        print(
            f"game video {label['width']}x{label['height']} @ {label['fps']} fps, "
            f"{dur:.1f} s of video: CPU {dc:.1f} s, wall {dt:.1f} s to render"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
