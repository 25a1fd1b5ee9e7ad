"""Run the reader over a folder of labelled images and score it (library behind
``quarto-vision evaluate`` and ``benchmarks/eval_read.py``).

The board comes from the board finder, or - with ``oracle_board`` - from the label's own camera,
which measures the reader alone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.labels import Label, iter_labelled_images
from vision.evaluation.score import ImageScore, PredictedCell, Report, score_image
from vision.geometry.board_view import BoardView
from vision.read.config import ReaderConfig
from vision.read.observation import Observation
from vision.read.reader import read_cells
from vision.rules.pieces import ATTRIBUTES

log = logging.getLogger(__name__)


def predicted_cells(observation: Observation) -> list[PredictedCell]:
    """The reader's cells in the scorer's form (unknown attributes as None)."""
    return [
        PredictedCell(
            c.center_px,
            None if c.piece is None else {a: c.attribute(a) for a in ATTRIBUTES},
        )
        for c in observation.cells
    ]


@dataclass
class EvaluationRun:
    """A scored run: the report, per-image scores and the reading times (ms)."""

    report: Report = field(default_factory=Report)
    scores: list[tuple[Label, ImageScore]] = field(default_factory=list)
    read_ms: list[float] = field(default_factory=list)


def find_view(frame: object, label: Label, oracle_board: bool) -> BoardView | None:
    """The board to read: the label's own (oracle) or the board finder's (None if not found)."""
    if oracle_board:
        return label.board_view
    from vision.locate.report import locate

    try:
        result = locate(frame)  # type: ignore[arg-type]
    except (ValueError, np.linalg.LinAlgError, cv2.error) as exc:
        # A finder failure is scored as "board not found", never stops the evaluation.
        log.warning("%s: board finder failed: %r", label.image_path, exc)
        return None
    return result.view if isinstance(result.view, BoardView) else None


CellReader = Callable[[np.ndarray, BoardView], Observation]


def evaluate_labels(
    labels: Iterable[Label],
    *,
    oracle_board: bool = False,
    config: ReaderConfig | None = None,
    progress: Callable[[int, Label], None] | None = None,
    cell_reader: CellReader | None = None,
) -> EvaluationRun:
    """Read and score every labelled image.

    ``cell_reader`` reads the cells on the board (default: the hand-crafted reader with
    ``config``; ``quarto-vision evaluate`` passes the reader ``analyze`` uses).
    """
    read = cell_reader or partial(read_cells, config=config)
    run = EvaluationRun()
    for n, label in enumerate(labels):
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if frame is None:
            log.warning("%s: cannot read image; skipped", label.image_path)
            continue
        view = find_view(frame, label, oracle_board)
        pred = None
        if view is not None:
            t0 = time.perf_counter()
            obs = read(frame, view)
            run.read_ms.append((time.perf_counter() - t0) * 1000.0)
            pred = predicted_cells(obs)
        s = score_image(label, pred)
        run.report.add(label, s)
        run.scores.append((label, s))
        if progress is not None:
            progress(n, label)
    return run


def evaluate_folder(
    folder: str | Path, *, limit: int | None = None, **kwargs: object
) -> EvaluationRun:
    """``evaluate_labels`` over the labelled images of a folder (sorted, at most ``limit``)."""
    labels = list(iter_labelled_images(folder))
    if limit is not None:
        labels = labels[:limit]
    return evaluate_labels(labels, **kwargs)  # type: ignore[arg-type]


def format_report(run: EvaluationRun, *, failures: int = 0) -> str:
    """Plain-text summary: overall, by elevation band, by board style, confusion tables."""
    rep = run.report

    def line(name: str, t: dict[str, object]) -> str:
        attr = t["attribute_errors"]
        assert isinstance(attr, dict)
        per = " ".join(f"{a}={attr[a]['wrong']}/{attr[a]['judged']}" for a in ATTRIBUTES)
        return (
            f"{name:<16} images={t['images']:<4} found={t['boards_found']:<4} "
            f"occ_err={t['occupancy_errors']}/{t['cells']} "
            f"(in view {t['occupancy_errors_in_view']}/{t['cells_in_view']}) "
            f"pieces_wrong={t['pieces_any_attribute_wrong']}/{t['pieces_judged']} "
            f"({_pct(t['pieces_wrong_rate'])}) fully_right={t['boards_fully_right']}/"
            f"{t['boards_found']} ({_pct(t['boards_fully_right_rate'])}) {per}"
        )

    d = rep.as_dict()
    out = [line("overall", d["overall"])]  # type: ignore[arg-type]
    for group in ("by_elevation", "by_style"):
        for k, t in d[group].items():  # type: ignore[attr-defined]
            out.append(line(f"  {k}", t))
    if run.read_ms:
        ms = sorted(run.read_ms)
        out.append(f"read time: median {ms[len(ms) // 2]:.1f} ms, max {ms[-1]:.1f} ms")
    out.append("")
    out.append("confusion (rows: true, columns: read)")
    out.append(rep.confusion_text())
    for path, errs in rep.failures[:failures]:
        out.append(f"{path}: " + "; ".join(errs))
    return "\n".join(out)


def _pct(x: object) -> str:
    return "n/a" if x is None else f"{100.0 * float(x):.2f}%"  # type: ignore[arg-type]
