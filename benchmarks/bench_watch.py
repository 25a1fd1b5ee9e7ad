"""Throughput and memory of the live loop on a rendered 1280x720 game video, one core.

    python benchmarks/bench_watch.py [--seed 920001] [--script random] [--out /tmp/qv-bench]

Frames are split by the video's ground truth into *hands* (a hand is over the scene: between
a move's hand entering and leaving) and *stable* (all other frames). Prints frames per second
for each kind (decoding included, interpreter start-up excluded) and the peak resident memory
of the live loop (a video not yet in ``--out`` is rendered first, in a child process).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--seed", type=int, default=920001)
    p.add_argument("--script", default="random")
    p.add_argument("--out", default="/tmp/qv-bench")
    a = p.parse_args()

    import cv2

    cv2.setNumThreads(1)
    from vision.live.session import default_session
    from vision.live.sources import VideoSource
    from vision.render.video import render_game

    video = Path(a.out) / f"bench-{a.seed}-{a.script}.mp4"
    video.parent.mkdir(parents=True, exist_ok=True)
    if not video.with_suffix(".json").exists():
        # Rendered in a child process: the renderer's own peak memory (about 360 MB) must
        # not count as the live loop's (resource's peak is per process).
        import multiprocessing

        child = multiprocessing.get_context("spawn").Process(
            target=render_game, args=(video, a.seed), kwargs={"script": a.script})
        child.start()
        child.join()
        if child.exitcode != 0:
            print(f"rendering {video.name} failed (exit {child.exitcode})", file=sys.stderr)
            return 1
    truth = json.loads(video.with_suffix(".json").read_text())
    spans = [(m.get("t_hand_enter", m["t_placed"] - 1.0), m["t_hand_left"]) for m in truth["moves"]]
    for gesture in truth.get("hovers", []) + truth.get("nudges", []):
        spans.append((gesture["t_start"], gesture["t_end"]))

    session = default_session(log_dir=None)
    source = VideoSource(video)
    # frames, wall seconds, CPU seconds of this process (the CPU figure does not depend on
    # what else the machine runs: one core is the target)
    totals = {"stable": [0, 0.0, 0.0], "hands": [0, 0.0, 0.0]}
    t_prev, c_prev = time.perf_counter(), time.process_time()
    last_t = 0.0
    for frame in source:  # decoding time is charged to the frame it produced
        session.process(frame)
        now, cpu = time.perf_counter(), time.process_time()
        kind = "hands" if any(a0 <= frame.t <= a1 for a0, a1 in spans) else "stable"
        totals[kind][0] += 1
        totals[kind][1] += now - t_prev
        totals[kind][2] += cpu - c_prev
        t_prev, c_prev = now, cpu
        last_t = frame.t
    session.close(last_t)
    source.close()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    for kind, (n, s, c) in totals.items():
        fps = n / s if s else float("nan")
        cps = n / c if c else float("nan")
        print(f"{kind:6s}: {n:5d} frames in {s:6.2f} s wall = {fps:6.1f} frames/s; "
              f"{c:6.2f} s CPU = {cps:6.1f} frames/s on one core")
    print(f"peak resident memory: {rss_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
