"""Renderer speed on one core: seconds per 1280x720 still (and per game video with --game).

    python benchmarks/bench_render.py [--n 10] [--game] [--contact-sheet DIR]

Prints figures; asserts nothing (budgets: a still under 1 s, a 40 s game under 2 minutes).
``--contact-sheet DIR`` also writes the look test: ``DIR/renders.png`` (24 seeded stills as
thumbnails) and ``DIR/mixed.png`` (those thumbnails shuffled with the photos of
``../shared/real_photos``, all centre-cropped to 4:3; the real ones' positions are printed).
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
import numpy as np

from vision.render.still import render_still


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10, help="stills to time")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--game", action="store_true", help="also time a 40-second game video")
    parser.add_argument("--contact-sheet", metavar="DIR", help="write the look-test sheets here")
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
    if args.contact_sheet:
        contact_sheet(Path(args.contact_sheet), args.seed)
    return 0


def _thumb(image: np.ndarray, height: int = 150) -> np.ndarray:
    h, w = image.shape[:2]
    tw = int(h * 4 / 3)
    if w > tw:
        image = image[:, (w - tw) // 2 : (w - tw) // 2 + tw]
    else:
        th = int(w * 3 / 4)
        image = image[(h - th) // 2 : (h - th) // 2 + th]
    return cv2.resize(image, (height * 4 // 3, height), interpolation=cv2.INTER_AREA)


def _grid(thumbs: list[np.ndarray], per_row: int) -> np.ndarray:
    thumbs = thumbs + [np.zeros_like(thumbs[0])] * (-len(thumbs) % per_row)
    return np.vstack([np.hstack(thumbs[i : i + per_row]) for i in range(0, len(thumbs), per_row)])


def contact_sheet(out: Path, seed: int) -> None:
    """The look test: 24 seeded stills, alone and shuffled among the real photos."""
    out.mkdir(parents=True, exist_ok=True)
    renders = [_thumb(render_still(seed + i)[0]) for i in range(24)]
    cv2.imwrite(str(out / "renders.png"), _grid(renders, 6))
    real_dir = Path(__file__).resolve().parent.parent.parent / "shared" / "real_photos"
    reals = [
        _thumb(im)
        for im in (cv2.imread(str(p)) for p in sorted(real_dir.glob("*.jpg")))
        if im is not None
    ]
    if not reals:
        print(f"no real photos in {real_dir}; wrote {out / 'renders.png'} only")
        return
    order = np.random.default_rng(seed).permutation(len(reals) + len(renders))
    mixed = [(reals + renders)[i] for i in order]
    cv2.imwrite(str(out / "mixed.png"), _grid(mixed, 8))
    where = sorted(int(np.nonzero(order == k)[0][0]) for k in range(len(reals)))
    print(
        f"look test: {out / 'renders.png'}, {out / 'mixed.png'} "
        f"(real photos at positions {where}, row-major from 0, 8 per row)"
    )


if __name__ == "__main__":
    sys.exit(main())
