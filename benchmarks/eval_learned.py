"""Score the learned cell reader with the ground-truth (oracle) board, as the outside scorer does.

    python benchmarks/eval_learned.py --renders 200 --photoreal ../shared/photoreal_dev

Fresh renders are seeds 800000.. of ``vision.render.render_still`` with default scene options
(rendered into ``--cache`` when missing, about 1 s each). For each set it prints overall figures
by elevation band and board style, per-attribute confusion tables, the acceptance figures, the
reading time per image (one core) and the calibration of the occupancy and attribute odds.

``--fuse`` also scores the reader ``analyze`` and ``watch`` use (``read_cells_fused``);
``--colour-weight W`` sets its board colour evidence (0 switches it off), ``--no-exposure``
switches off its brightening of dim boards and ``--no-calibration`` its odds calibration by
visible fraction, for the with/without comparisons in design.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.labels import Label, iter_labelled_images, load_label
from vision.evaluation.runner import EvaluationRun, format_report, predicted_cells
from vision.evaluation.score import score_image
from vision.geometry.board_view import BoardView
from vision.learn.cnn import ConvCellModel, default_cnn, load_cnn
from vision.learn.config import BoardColourConfig, LearnedReaderConfig
from vision.learn.dataset import OUTPUTS, cell_targets
from vision.learn.fuse import HAND_LEARNED_WEIGHTS, read_cells_fused
from vision.learn.odds_calibration import OddsCalibration
from vision.learn.reader import read_cells_learned
from vision.read.exposure import ExposureConfig
from vision.read.observation import Observation

Reader = Callable[[np.ndarray, BoardView], Observation]

FIRST_EVAL_SEED = 800000
#: CPU time of each reading (the machine is shared: wall time includes waiting for a core).
CPU_MS: list[float] = []


def render_eval(folder: Path, n: int, first: int = FIRST_EVAL_SEED) -> list[Label]:
    """Labels of seeds ``first``.. (rendered into ``folder`` when missing)."""
    from vision.render import render_still, write_still

    folder.mkdir(parents=True, exist_ok=True)
    labels = []
    for seed in range(first, first + n):
        path = folder / f"{seed}.json"
        if not path.exists():
            image, label = render_still(seed)
            write_still(path.with_suffix(".jpg"), image, label)
        labels.append(load_label(path))
    return labels


def non_negative(text: str) -> float:
    """argparse type: a float >= 0."""
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def read_learned(model: ConvCellModel, config: LearnedReaderConfig) -> Reader:
    def read(frame: np.ndarray, view: BoardView) -> Observation:
        return read_cells_learned(frame, view, model=model, config=config)

    return read


def read_fused(model: ConvCellModel, weights: tuple[float, float],
               config: LearnedReaderConfig, colours: BoardColourConfig,
               exposure: ExposureConfig, calibration: OddsCalibration) -> Reader:
    """The hand-crafted and the learned reader, fused with log-odds ``weights``."""

    def read(frame: np.ndarray, view: BoardView) -> Observation:
        return read_cells_fused(frame, view, weights=weights, model=model, config=config,
                                colours=colours, exposure=exposure, calibration=calibration)

    return read


def evaluate(labels: list[Label], read: Reader) -> tuple[EvaluationRun, np.ndarray]:
    """Read and score every label; also returns (probability, target, weight) rows for the
    calibration table."""
    run = EvaluationRun()
    rows = []
    for label in labels:
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if frame is None or label.board_view is None:
            print(f"{label.image_path}: unreadable or no board; skipped", file=sys.stderr)
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        obs = read(frame, label.board_view)
        run.read_ms.append((time.perf_counter() - t0) * 1000.0)
        CPU_MS.append((time.process_time() - c0) * 1000.0)
        s = score_image(label, predicted_cells(obs))
        run.report.add(label, s)
        run.scores.append((label, s))
        y, w = cell_targets(label)
        p = np.array([
            [c.occupied_probability,
             *(_or_nan(c.attribute_probability.get(a)) for a in OUTPUTS[1:5])]
            for c in obs.cells
        ])
        rows.append(np.stack([p, y[:, :5], w[:, :5]], axis=-1))
    return run, (np.concatenate(rows) if rows else np.zeros((0, 5, 3)))


def _or_nan(p: float | None) -> float:
    return float("nan") if p is None else float(p)


def calibration_text(rows: np.ndarray) -> str:
    """Per output: mean predicted probability vs observed frequency in probability bins."""
    bins = [0.0, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 1.0001]
    out = ["calibration (bin: n, mean predicted -> observed frequency)"]
    for k, name in enumerate(OUTPUTS[:5]):
        p, y, w = rows[:, k, 0], rows[:, k, 1], rows[:, k, 2]
        ok = (w > 0) & np.isfinite(p)
        parts = []
        for lo, hi in itertools.pairwise(bins):
            m = ok & (p >= lo) & (p < hi)
            if m.any():
                parts.append(f"[{lo:.2f},{min(hi, 1):.2f}): {int(m.sum())}, "
                             f"{p[m].mean():.3f}->{y[m].mean():.3f}")
        out.append(f"  {name:<9} " + "; ".join(parts))
    return "\n".join(out)


def acceptance(run: EvaluationRun) -> str:
    t = run.report.overall.as_dict()

    def pct(v: object) -> str:
        return "n/a" if v is None else f"{100 * float(v):.2f}%"  # type: ignore[arg-type]

    ms = sorted(run.read_ms)
    cpu = sorted(CPU_MS)
    return (
        f"ACCEPTANCE: pieces any attribute wrong {pct(t['pieces_wrong_rate'])}, "
        f"occupancy errors {pct(t['occupancy_error_rate'])} of cells, "
        f"boards fully right {pct(t['boards_fully_right_rate'])}; "
        f"read time median {ms[len(ms) // 2]:.1f} ms, max {ms[-1]:.1f} ms wall; CPU median "
        f"{cpu[len(cpu) // 2]:.1f} ms, max {cpu[-1]:.1f} ms (one core, first call loads the model)"
    )


def real_photos_text(labels_path: Path, model: ConvCellModel) -> str:
    """The learned reader on real photographs: on a board fitted to the labelled pieces where
    all 16 cells are labelled (the reader alone), through the board finder otherwise."""
    from vision.evaluation.real_photos import format_real_report, score_real_photos

    def learned(frame: np.ndarray, view: BoardView) -> Observation:
        return read_cells_learned(frame, view, model=model)

    return format_real_report(
        score_real_photos(labels_path, oracle_board=True, cell_reader=learned)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--renders", type=int, default=200, help="fresh renders from --first-seed")
    ap.add_argument("--first-seed", type=int, default=FIRST_EVAL_SEED)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/learn-data/eval"))
    ap.add_argument("--photoreal", type=Path, default=Path("../shared/photoreal_dev"))
    ap.add_argument("--model", type=Path, default=None,
                    help="model file (default: packaged)")
    ap.add_argument("--failures", type=int, default=10, help="failing images to list per set")
    ap.add_argument("--real-photos", type=Path, default=Path("../shared/real_photos/labels.json"))
    ap.add_argument("--fuse", action="store_true",
                    help="also score the learned reader fused with the hand-crafted one")
    ap.add_argument("--no-board-heights", action="store_true",
                    help="without the board-level height evidence (vision.learn.board_heights)")
    ap.add_argument("--colour-weight", type=non_negative, default=BoardColourConfig().weight,
                    help="weight of the board-level colour evidence in the fused reader "
                         "(vision.learn.board_colours; 0 switches it off)")
    ap.add_argument("--no-exposure", action="store_true",
                    help="fused reader without brightening dim boards (vision.read.exposure)")
    ap.add_argument("--no-calibration", action="store_true",
                    help="fused reader without its odds calibration by visible fraction "
                         "(vision.learn.odds_calibration)")
    ap.add_argument("--weights", type=str, default=",".join(map(str, HAND_LEARNED_WEIGHTS)),
                    help="fusion log-odds weights: hand-crafted,learned")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    model = default_cnn() if args.model is None else load_cnn(args.model)
    w_hand, w_learned = (float(v) for v in args.weights.split(","))
    sets: list[tuple[str, list[Label]]] = []
    if args.renders > 0:
        sets.append((f"fresh renders (seeds {args.first_seed}..)",
                     render_eval(args.cache, args.renders, args.first_seed)))
    photoreal = list(iter_labelled_images(args.photoreal)) if args.photoreal.is_dir() else []
    if photoreal:
        sets.append((str(args.photoreal), photoreal))
    else:
        print(f"{args.photoreal}: no labelled images; skipped", file=sys.stderr)
    config = LearnedReaderConfig()
    if args.no_board_heights:
        config = dataclasses.replace(
            config, board_heights=dataclasses.replace(config.board_heights, weight=0.0))
    readers = [("learned", read_learned(model, config))]
    if args.fuse:
        readers.append(("fused with hand-crafted",
                        read_fused(model, (w_hand, w_learned), config,
                                   BoardColourConfig(weight=args.colour_weight),
                                   ExposureConfig(max_gain=1.0) if args.no_exposure
                                   else ExposureConfig(),
                                   OddsCalibration.identity() if args.no_calibration
                                   else OddsCalibration())))
    for (name, labels), (reader_name, read) in itertools.product(sets, readers):
        CPU_MS.clear()
        run, rows = evaluate(labels, read)
        print(f"=== {reader_name} reader on {name}: {len(labels)} images, oracle board ===")
        print(format_report(run, failures=args.failures))
        print(calibration_text(rows))
        print(acceptance(run))
        print()
    if args.real_photos.is_file():
        print(f"=== learned reader on real photos {args.real_photos} (board fitted to the labels "
              "where all 16 cells are labelled, else the board finder) ===")
        print(real_photos_text(args.real_photos, model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
