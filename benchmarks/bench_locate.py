"""Speed of board finding and tracking on one core.

Usage::

    python benchmarks/bench_locate.py [FOLDER] [--limit N] [--repeat R]
    python benchmarks/bench_locate.py --video GAME.mp4
    python benchmarks/bench_locate.py [FOLDER] --stages
    python benchmarks/bench_locate.py ... --set line_marking_recheck=True [--set ...]

FOLDER holds labelled 1280x720 images (default ../shared/photoreal_dev). Prints the time of
``find_board`` from scratch per frame, and of ``BoardTracker.update`` on a still camera (the
same frame with fresh sensor noise each time), median and 90th percentile, in milliseconds.
Times are CPU time of this process (``time.process_time``) with OpenCV on one thread, so a
busy machine does not inflate them; wall-clock medians are printed beside them.

``--stages`` splits ``find_board``'s CPU time by step (network peaks, peak lattices with
their sizing, ring candidates, lattices, board outlines, grid fitting and judging, the
full-resolution refit and camera) and counts the
grids refined per frame: frames that end at the first grid ("sure") cost the fixed steps
only, the others refine up to ``max_refined_hypotheses`` grids.

``--video`` runs the tracker over a rendered game video (``quarto-vision render`` with the
``bump`` script) and its sidecar label, and prints, for every camera bump, how long after
it (source time) the tracked cell centres are back within 5% of the cell spacing, plus the
per-frame tracking time.

``--set NAME=VALUE`` (repeatable) sets a ``LocateConfig`` field (a Python literal) for every
mode: ``find_board``, the tracker and its re-finds. ``--tracker NAME=VALUE`` sets a field of
the tracker's ``TrackerConfig`` (``vision.locate.config``), ``--bump NAME=VALUE`` one of its
``BumpConfig``, e.g. ``--tracker carry_over_bump=True``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.knobs import replaced
from vision.locate.config import BumpConfig, LocateConfig, TrackerConfig
from vision.locate.finder import find_board
from vision.locate.tracker import BoardTracker

CONFIG = LocateConfig()
TRACKER = TrackerConfig()
BUMP = BumpConfig()




def run_video(path: Path) -> int:
    """Bump recovery on a labelled game video; see the module docstring."""
    import json

    from vision.evaluation.board import cell_errors

    label = json.loads(path.with_suffix(".json").read_text())
    segments = label["segments"]
    bumps = label.get("camera_bumps", [])
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        print(f"cannot open {path}", file=sys.stderr)
        return 2
    fps = float(label["fps"])
    tracker = BoardTracker(TRACKER, locate_config=CONFIG, bump_config=BUMP)
    ok_at: list[tuple[float, bool]] = []
    errs: list[tuple[float, float]] = []
    times: list[float] = []
    k = 0
    while True:
        got, frame = cap.read()
        if not got:
            break
        t = k / fps
        k += 1
        t0 = time.process_time()
        view = tracker.update(frame, t)
        times.append((time.process_time() - t0) * 1000.0)
        seg = [sg for sg in segments if sg["t_start"] <= t + 1e-9][-1]
        true = np.array([c["center_px"] for c in seg["cells"]])
        spacing = float(np.mean(np.linalg.norm(true[1:4] - true[0:3], axis=1)))
        err = (float(np.median(cell_errors(view.cell_centers_px(), true))) / spacing
               if view else math.inf)  # type: ignore[union-attr]
        good = err < 0.05
        ok_at.append((t, good))
        errs.append((t, err))
    tt = np.array(times)
    print(f"{path.name}: {k} frames, tracker median {np.median(tt):.2f} ms, p90 "
          f"{np.percentile(tt, 90):.2f} ms, max {tt.max():.1f} ms, full searches "
          f"{tracker.searches}, poses carried over a bump {tracker.carried}")
    before = [g for t, g in ok_at if t < (bumps[0] if bumps else 1e9)]
    print(f"frames right before any bump: {np.mean(before):.1%}")
    for b in bumps:
        after = [(t, g) for t, g in ok_at if t >= b]
        # Recovered: the first frame from which every later frame (until the next bump) is right.
        nxt = min([x for x in bumps if x > b], default=1e9)
        window = [(t, g) for t, g in after if t < nxt]
        rec = None
        for i, (t, _) in enumerate(window):
            if all(g for _, g in window[i:]):
                rec = t
                break
        # The pose error once the camera has settled: the median cell error per frame
        # (pitches; inf when no board), from 1 s after the bump to the next one.
        late = np.array([e for t, e in errs if b + 1.0 <= t < nxt])
        after_s = (f"; error from {b + 1.0:.1f} s: median {np.median(late):.3f}, max "
                   f"{late.max():.3f} pitch" if len(late) else "")
        if rec is None:
            print(f"bump at {b:.2f} s: not recovered{after_s}")
        else:
            print(f"bump at {b:.2f} s: recovered at {rec:.2f} s ({rec - b:.2f} s after the "
                  f"bump began){after_s}")
    return 0


def run_stages(paths: list[Path]) -> int:
    """Per-step CPU time of ``find_board`` (see the module docstring)."""
    from collections import Counter, defaultdict
    from collections.abc import Callable
    from typing import Any

    import vision.locate.finder as fnd

    spent: defaultdict[str, float] = defaultdict(float)
    step_names = {"frame_peaks": "network peaks", "peak_hypotheses": "peak lattices",
                  "size_outlines": "peak lattices",
                  "find_ellipses": "ring candidates", "lattice_hypotheses": "lattices",
                  "board_quads": "board outlines", "fit_grid": "grid fit + judge",
                  "fit_rings": "full-res refit", "edge_correspondences": "camera",
                  "build_view": "camera"}
    originals = {name: getattr(fnd, name) for name in [*step_names, "_judge"]}
    refined = [0]

    depth = [0]

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def call(*a: Any, **k: Any) -> Any:
            # Steps called inside another (the grid fit's own refits) count as the outer.
            depth[0] += 1
            t0 = time.process_time()
            try:
                return func(*a, **k)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    spent[step_names[name]] += time.process_time() - t0
        return call

    def judge(*a: Any, **k: Any) -> Any:
        refined[0] += 1
        return originals["_judge"](*a, **k)

    for name in step_names:
        setattr(fnd, name, timed(name, originals[name]))
    fnd._judge = judge  # type: ignore[assignment]
    totals: list[float] = []
    per_frame: list[dict[str, float]] = []
    counts: Counter[int] = Counter()
    try:
        for img in _frames(paths):
            spent.clear()
            refined[0] = 0
            t0 = time.process_time()
            find_board(img, config=CONFIG)
            totals.append((time.process_time() - t0) * 1000.0)
            per_frame.append({k: v * 1000.0 for k, v in spent.items()})
            counts[refined[0]] += 1
    finally:
        for name, func in originals.items():
            setattr(fnd, name, func)
    t = np.array(totals)
    print(f"frames: {len(t)}, find_board CPU median {np.median(t):.1f} ms, mean {t.mean():.1f}")
    names = sorted({k for f in per_frame for k in f})
    for k in names:
        v = np.array([f.get(k, 0.0) for f in per_frame])
        print(f"  {k:18s} median {np.median(v):6.1f} ms, mean {v.mean():6.1f} ms "
              f"({v.sum() / t.sum():.0%} of the total)")
    hist = ", ".join(f"{n}: {c}" for n, c in sorted(counts.items()))
    print(f"grids refined per frame (frames): {hist}")
    return 0


def _frames(paths: list[Path]) -> Iterator[np.ndarray]:
    """The readable images of ``paths``, resized to 1280x720 when they are not."""
    for p in paths:
        img = cv2.imread(str(p))
        if img is None:
            continue
        if img.shape[:2] != (720, 1280):
            img = cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA)
        yield img


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default="../shared/photoreal_dev")
    ap.add_argument("--limit", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--track-frames", type=int, default=100)
    ap.add_argument("--video", help="a labelled game video: measure bump recovery")
    ap.add_argument("--stages", action="store_true", help="CPU time per step of find_board")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a LocateConfig field for every mode (repeatable)")
    ap.add_argument("--tracker", action="append", default=[], metavar="NAME=VALUE",
                    help="a locate TrackerConfig field (repeatable)")
    ap.add_argument("--bump", action="append", default=[], metavar="NAME=VALUE",
                    help="a BumpConfig field (repeatable)")
    args = ap.parse_args()
    global CONFIG, TRACKER, BUMP
    CONFIG = replaced(LocateConfig(), args.set)
    TRACKER = replaced(TrackerConfig(), args.tracker)
    BUMP = replaced(BumpConfig(), args.bump)
    cv2.setNumThreads(1)
    if args.video:
        return run_video(Path(args.video))
    paths = sorted(Path(args.folder).glob("*.jpg"))[: args.limit]
    if not paths:
        print(f"no images in {args.folder}", file=sys.stderr)
        return 2
    if args.stages:
        return run_stages(paths)
    rng = np.random.default_rng(0)
    find_ms: list[float] = []
    find_wall: list[float] = []
    track_ms: list[float] = []
    found = 0
    for img in _frames(paths):
        best = float("inf")
        wall = float("inf")
        view = None
        for _ in range(args.repeat):
            t0, w0 = time.process_time(), time.perf_counter()
            view = find_board(img, config=CONFIG)
            best = min(best, (time.process_time() - t0) * 1000.0)
            wall = min(wall, (time.perf_counter() - w0) * 1000.0)
        find_ms.append(best)
        find_wall.append(wall)
        if not view:
            continue
        found += 1
        tracker = BoardTracker(TRACKER, locate_config=CONFIG, bump_config=BUMP)
        tracker.update(img, 0.0)
        noise = [np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255)
                 .astype(np.uint8) for _ in range(4)]
        for k in range(args.track_frames):
            frame = noise[k % 4]
            t0 = time.process_time()
            tracker.update(frame, (k + 1) / 30.0)
            track_ms.append((time.process_time() - t0) * 1000.0)
    f, t = np.array(find_ms), np.array(track_ms)
    print(f"frames: {len(f)} from {args.folder} (1280x720, one core), board found in {found}")
    print(f"find_board from scratch (CPU): median {np.median(f):.1f} ms, p90 "
          f"{np.percentile(f, 90):.1f} ms, max {f.max():.1f} ms; wall median "
          f"{np.median(find_wall):.1f} ms")
    if len(t):
        print(f"tracker update (still camera, CPU): median {np.median(t):.2f} ms, p90 "
              f"{np.percentile(t, 90):.2f} ms over {len(t)} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
