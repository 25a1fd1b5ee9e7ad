"""The two networks' engines (``vision.learn.onnx_graph.ENGINES``) timed against each other.

    python benchmarks/bench_engines.py FOLDER [--limit 100] [--parts nets find read]

In one process, numpy and opencv alternating image by image (CPU time, OpenCV on one
thread): one board-network pass, one cell-network pass over a board's 16 cells (and their
mirror images), ``find_board`` (best of two runs) and the fused reader with the label's
board (best of two runs). Prints medians, the median of the per-image differences and the
largest output difference of the networks. FOLDER holds labelled 1280x720 images.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import iter_labelled_images
from vision.learn.cnn import default_cnn
from vision.learn.config import LearnedReaderConfig
from vision.learn.fuse import read_cells_fused
from vision.learn.onnx_graph import ENGINES
from vision.learn.patches import cell_patches
from vision.locate.board_net import default_board_net, network_input
from vision.locate.config import LocateConfig
from vision.locate.finder import find_board


def _cpu_ms(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, (time.process_time() - t0) * 1000.0)
    return best, out


def _report(name: str, times: dict[str, list[float]], diff: float | None = None) -> None:
    paired = statistics.median(
        n - o for n, o in zip(times["numpy"], times["opencv"], strict=True))
    line = (f"{name:<34} median " + "  ".join(f"{e} {statistics.median(times[e]):6.2f}"
                                                for e in ENGINES)
            + f" ms   per image numpy - opencv {paired:+.2f} ms")
    print(line + (f"   max |diff| {diff:.1e}" if diff is not None else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--parts", nargs="+", default=["nets", "find", "read"],
                    choices=["nets", "find", "read"])
    args = ap.parse_args()
    cv2.setNumThreads(1)
    labels = [lb for lb in iter_labelled_images(args.folder)
              if lb.board_view is not None][: args.limit]
    frames: list[NDArray[np.uint8]] = []
    for lb in labels:
        frame = cv2.imread(str(lb.image_path), cv2.IMREAD_COLOR)
        assert frame is not None, lb.image_path
        frames.append(np.asarray(frame, np.uint8))
    print(f"images: {len(labels)} from {args.folder}; CPU time, one thread")
    order = [ENGINES if i % 2 == 0 else ENGINES[::-1] for i in range(len(labels))]
    if "nets" in args.parts:
        net, model = default_board_net(), default_cnn()
        assert net is not None
        board: dict[str, list[float]] = {e: [] for e in ENGINES}
        cells: dict[str, list[float]] = {e: [] for e in ENGINES}
        d_board = d_cells = 0.0
        for frame, label, engines in zip(frames, labels, order, strict=True):
            x = network_input(frame, net.input_width)[0]
            assert label.board_view is not None
            p = cell_patches(frame, label.board_view, config=model.patches)
            outs: dict[str, Any] = {}
            for e in engines:
                ms, outs[e] = _cpu_ms(partial(net.forward_with, x, e))
                board[e].append(ms)
                ms, outs[e + "_cells"] = _cpu_ms(
                    partial(model.predict_patches, p.images, p.scalars, e))
                cells[e].append(ms)
            d_board = max(d_board, float(np.abs(outs["numpy"] - outs["opencv"]).max()))
            d_cells = max(d_cells, float(np.abs(outs["numpy_cells"]
                                                - outs["opencv_cells"]).max()))
        _report("board network pass", board, d_board)
        _report("cell network pass (16 cells)", cells, d_cells)
    if "find" in args.parts:
        locate = {e: LocateConfig(board_net_engine=e) for e in ENGINES}
        times: dict[str, list[float]] = {e: [] for e in ENGINES}
        for frame, engines in zip(frames, order, strict=True):
            for e in engines:
                times[e].append(_cpu_ms(partial(find_board, frame, config=locate[e]), 2)[0])
        _report("find_board (best of 2)", times)
    if "read" in args.parts:
        read = {e: LearnedReaderConfig(cnn_engine=e) for e in ENGINES}
        times = {e: [] for e in ENGINES}
        for frame, label, engines in zip(frames, labels, order, strict=True):
            view = label.board_view
            assert view is not None
            read_cells_fused(frame, view)  # warm-up
            for e in engines:
                times[e].append(_cpu_ms(partial(read_cells_fused, frame, view,
                                                config=read[e]), 2)[0])
        _report("fused reader, label's board (best of 2)", times)


if __name__ == "__main__":
    main()
