"""Speed of reading a whole board and of ``analyze`` on 1280x720 images.

Prints figures, asserts nothing (DESIGN.md section 6: under 50 ms per 1280x720 image on one
core). The reader is timed with the label's own board (reader alone) and, with ``--finder``,
together with the board finder (the ``analyze`` pipeline minus interpreter start-up).
``--reader`` picks the cell reader: ``fused`` (the default, what ``analyze`` and ``watch``
use), ``learned`` or ``geometric``.

    python benchmarks/bench_read.py [FOLDER] [--n 20] [--finder] [--reader fused]

FOLDER defaults to seeded renders made on the fly in a temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2

from vision.cli.evaluate import READERS, cell_reader


def _renders(n: int, folder: Path) -> Path:
    from vision.render.still import render_still, write_still

    for seed in range(n):
        image, label = render_still(910_000 + seed)
        write_still(folder / f"{seed:04d}.jpg", image, label)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", help="labelled images (default: fresh renders)")
    parser.add_argument("--n", type=int, default=20, help="images to time")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per image")
    parser.add_argument("--finder", action="store_true", help="also time the board finder")
    parser.add_argument("--reader", choices=READERS, default="fused",
                        help="cell reader to time (default: fused, the one analyze uses)")
    parser.add_argument("--top-rim-weight", type=float, metavar="W",
                        help="the fused reader with its top-outline height evidence at weight W "
                             "(vision.learn.top_rim; default: the packaged config, on); the "
                             "reader's times only, not analyze's")
    parser.add_argument("--top-rim-pair-scales", metavar="K,K,...",
                        help="factors of the hand-crafted reader's set heights the top-outline "
                             "evidence chooses among (TopRimConfig.pair_scales; default none, "
                             "off); the reader's times only")
    args = parser.parse_args()
    cv2.setNumThreads(1)

    from vision.evaluation.labels import iter_labelled_images

    read_cells = cell_reader(args.reader)
    if args.top_rim_weight is not None or args.top_rim_pair_scales:
        if args.reader != "fused":
            parser.error("--top-rim-weight and --top-rim-pair-scales apply to the fused "
                         "reader only")
        from functools import partial

        from vision.learn.config import LearnedReaderConfig, TopRimConfig

        rim: dict[str, object] = {}
        if args.top_rim_weight is not None:
            rim["weight"] = args.top_rim_weight
        if args.top_rim_pair_scales:
            rim["pair_scales"] = tuple(float(k) for k in args.top_rim_pair_scales.split(","))
        read_cells = partial(read_cells, config=LearnedReaderConfig(  # type: ignore[call-arg]
            top_rim=TopRimConfig(**rim)))  # type: ignore[arg-type]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.folder) if args.folder else _renders(args.n, Path(tmp))
        labels = [lb for lb in iter_labelled_images(folder) if lb.board_view is not None]
        labels = labels[: args.n]
        read_ms: list[float] = []
        read_cpu_ms: list[float] = []
        full_ms: list[float] = []
        for label in labels:
            frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
            assert label.board_view is not None
            read_cells(frame, label.board_view)  # warm-up (imports, caches)
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                c0 = time.process_time()
                read_cells(frame, label.board_view)
                read_ms.append((time.perf_counter() - t0) * 1000.0)
                read_cpu_ms.append((time.process_time() - c0) * 1000.0)
            if args.finder:
                from vision.pipeline import analyze_frame

                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    analyze_frame(frame)
                    full_ms.append((time.perf_counter() - t0) * 1000.0)
    size = f"{frame.shape[1]}x{frame.shape[0]}" if labels else "-"
    print(f"images: {len(labels)} ({size}), one core (cv2.setNumThreads(1))")
    # CPU time of this process: a fairer figure when other work shares the machine.
    for name, ms in ((f"{args.reader} reader (wall)", read_ms),
                     (f"{args.reader} reader (cpu)", read_cpu_ms),
                     ("analyze (finder + reader, wall)", full_ms)):
        if ms:
            ms.sort()
            print(f"{name:<32} median {statistics.median(ms):6.1f} ms   "
                  f"p90 {ms[int(0.9 * (len(ms) - 1))]:6.1f} ms   max {ms[-1]:6.1f} ms")


if __name__ == "__main__":
    main()
