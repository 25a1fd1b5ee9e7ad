"""Board-finding evaluation over a folder of labelled images.

For every image: was a board found (and should there be one)? For found boards, each cell
centre's error as a share of the label's cell spacing, after matching the predicted cells to the
labelled ones over the square's 8 symmetries (a board's labelling is only defined up to them;
this is the optimal one-to-one matching whenever the grid itself is right, and it does not hide
a wrong grid the way free nearest-neighbour matching would). Also the relative error of the
estimated focal length. Figures are split by elevation band and board style.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import Label, elevation_band
from vision.geometry.board_view import BoardNotFound, BoardView

FloatArray = NDArray[np.float64]
Finder = Callable[[NDArray[np.uint8]], BoardView | BoardNotFound]

#: Focal-length errors are reported only below this elevation (ill-conditioned above).
FOCAL_MAX_ELEVATION_DEG = 70.0


def _symmetries() -> list[NDArray[np.int64]]:
    """The 8 permutations of the 16 row-major cells under the square's symmetries."""
    rc = np.array([(r, c) for r in range(4) for c in range(4)])
    perms = []
    for k in range(4):
        for flip in (False, True):
            r, c = rc[:, 0], rc[:, 1]
            if flip:
                c = 3 - c
            for _ in range(k):
                r, c = c, 3 - r
            perms.append(r * 4 + c)
    return perms


SYMMETRIES = _symmetries()


def cell_errors(pred_xy: FloatArray, true_xy: FloatArray) -> FloatArray:
    """(16,) pixel distances between predicted and true centres, best symmetry of the grid."""
    pred = np.asarray(pred_xy, dtype=np.float64)
    true = np.asarray(true_xy, dtype=np.float64)
    if pred.shape != (16, 2) or true.shape != (16, 2):
        raise ValueError(f"need (16, 2) centres, got {pred.shape} and {true.shape}")
    best = None
    for perm in SYMMETRIES:
        d = np.hypot(*(pred[perm] - true).T)
        if best is None or d.sum() < best.sum():
            best = d
    assert best is not None
    return best


@dataclass
class ImageRecord:
    """The outcome on one labelled image."""

    name: str
    has_board: bool
    found: bool
    style: str
    band: str
    elevation_deg: float | None
    errors: FloatArray | None = None  # (16,) share of cell spacing
    focal_error: float | None = None  # relative, uncalibrated, low elevations only
    elapsed_ms: float = 0.0
    reason: str = ""


def evaluate_image(label: Label, finder: Finder,
                   image: NDArray[np.uint8] | None = None) -> ImageRecord:
    """Run ``finder`` on one labelled image and compare with the label."""
    if image is None:
        image = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{label.image_path}: cannot read as an image")
    t0 = time.perf_counter()
    view = finder(image)
    ms = (time.perf_counter() - t0) * 1000.0
    rec = ImageRecord(
        name=label.image_path.name, has_board=label.has_board, found=bool(view),
        style=label.board_style or "none", band=elevation_band(label.elevation_deg),
        elevation_deg=label.elevation_deg, elapsed_ms=ms,
        reason="" if view else getattr(view, "reason", ""),
    )
    if view and label.has_board and len(label.cells) == 16:
        assert isinstance(view, BoardView)
        true = np.array([c.center_px for c in label.cells])
        rec.errors = cell_errors(view.cell_centers_px(), true) / label.cell_spacing_px
        fx_true = float(label.raw["camera"]["fx"])
        if (not view.calibrated and label.elevation_deg is not None
                and label.elevation_deg < FOCAL_MAX_ELEVATION_DEG):
            rec.focal_error = view.camera.intrinsics.fx / fx_true - 1.0
    return rec


def evaluate_folder(labels: Iterable[Label], finder: Finder,
                    progress: Callable[[ImageRecord], None] | None = None) -> list[ImageRecord]:
    out = []
    for label in labels:
        rec = evaluate_image(label, finder)
        out.append(rec)
        if progress:
            progress(rec)
    return out


@dataclass
class Summary:
    images: int = 0
    with_board: int = 0
    found: int = 0
    without_board: int = 0
    false_boards: int = 0
    cells: list[float] = field(default_factory=list)
    board_max: list[float] = field(default_factory=list)
    focal: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)

    def add(self, r: ImageRecord) -> None:
        self.images += 1
        self.times.append(r.elapsed_ms)
        if r.has_board:
            self.with_board += 1
            self.found += int(r.found)
            if r.errors is not None:
                self.cells.extend(r.errors.tolist())
                self.board_max.append(float(r.errors.max()))
            if r.focal_error is not None:
                self.focal.append(abs(r.focal_error))
        else:
            self.without_board += 1
            self.false_boards += int(r.found)

    def as_dict(self) -> dict[str, Any]:
        c = np.array(self.cells) if self.cells else np.array([np.nan])
        f = np.array(self.focal) if self.focal else np.array([np.nan])
        return {
            "images": self.images,
            "with_board": self.with_board,
            "found_rate": self.found / self.with_board if self.with_board else float("nan"),
            "without_board": self.without_board,
            "false_boards": self.false_boards,
            "cell_err_median": float(np.median(c)),
            "cell_err_p99": float(np.percentile(c, 99)),
            # Found boards with every cell within 5% of the spacing, and with some cell off
            # by more than half a cell (a cell would be read at the wrong place).
            "boards_all_within_5pct": float(np.mean(np.array(self.board_max) <= 0.05))
            if self.board_max else float("nan"),
            "boards_misplaced": float(np.mean(np.array(self.board_max) > 0.5))
            if self.board_max else float("nan"),
            "focal_err_median": float(np.median(f)),
            "focal_within_5pct": float(np.mean(f <= 0.05)) if self.focal else float("nan"),
            "focal_n": len(self.focal),
            "ms_median": float(np.median(self.times)) if self.times else float("nan"),
        }


def summarize(records: Iterable[ImageRecord]) -> dict[str, dict[str, Any]]:
    """Figures overall, by elevation band ('band:25-40') and by style ('style:gigamic_black')."""
    groups: dict[str, Summary] = defaultdict(Summary)
    for r in records:
        groups["all"].add(r)
        if r.has_board:
            groups[f"band:{r.band}"].add(r)
            groups[f"style:{r.style}"].add(r)
    return {k: groups[k].as_dict() for k in sorted(groups, key=lambda k: (k != "all", k))}


def format_summary(summary: dict[str, dict[str, Any]]) -> str:
    """A plain-text table of :func:`summarize`'s figures."""
    head = (f"{'group':22s} {'imgs':>5s} {'found':>7s} {'nobrd':>5s} {'false':>5s} "
            f"{'err_med':>8s} {'err_p99':>8s} {'all<5%':>7s} {'>half':>6s} {'f_med':>7s} "
            f"{'f<=5%':>6s} {'f_n':>4s} {'ms':>6s}")
    lines = [head]
    for k, s in summary.items():
        lines.append(
            f"{k:22s} {s['images']:5d} {s['found_rate']:7.3f} {s['without_board']:5d} "
            f"{s['false_boards']:5d} {s['cell_err_median']:8.4f} {s['cell_err_p99']:8.4f} "
            f"{s['boards_all_within_5pct']:7.3f} {s['boards_misplaced']:6.3f} "
            f"{s['focal_err_median']:7.3f} {s['focal_within_5pct']:6.2f} {s['focal_n']:4d} "
            f"{s['ms_median']:6.1f}"
        )
    return "\n".join(lines)
