"""Scoring cell readings against sidecar labels, as the outside scorer does.

Cells are matched by image position (an optimal one-to-one matching of ``center_px``), because a
board's labelling is only defined up to its symmetry. A piece is judged only when its
``visible_fraction`` is at least 0.6, its ``top`` only when ``top_visible_fraction`` is at least
0.5. An attribute reported as unknown (``None``) counts as wrong. Occupancy is judged on every
cell, as the outside scorer does, however hidden the cell is. A second count judges it only
where a still can show it (:func:`cells_in_view`): a piece at least ``MIN_OCCUPANCY_VISIBLE``
in view, or an empty cell where a short piece would be. Results can be split by elevation band
and board style.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import Label, elevation_band
from vision.read.decode import hungarian
from vision.rules.pieces import ATTRIBUTES

#: Judging limits of the outside scorer (photoreal_dev README).
MIN_VISIBLE = 0.6
MIN_TOP_VISIBLE = 0.5

#: The in-view occupancy count (:func:`cells_in_view`): a cell's occupancy counts as shown by
#: a still when its piece, or for an empty cell a short piece standing there, is at least this
#: share in view. Session 28's bands: under 0.3 in view, the readers barely see a piece at all.
MIN_OCCUPANCY_VISIBLE = 0.3


@dataclass(frozen=True)
class PredictedCell:
    """One reported cell: image centre and piece attributes (``None`` values when unknown)."""

    center_px: tuple[float, float]
    piece: Mapping[str, str | None] | None


def match_cells(pred_xy: NDArray[np.float64], true_xy: NDArray[np.float64]) -> NDArray[np.int64]:
    """For each true cell, the index of the predicted cell matched to it (min total distance)."""
    if len(pred_xy) < len(true_xy):
        raise ValueError(f"need at least {len(true_xy)} predicted cells, got {len(pred_xy)}")
    d = np.linalg.norm(true_xy[:, None, :] - pred_xy[None, :, :], axis=2)
    return hungarian(d)


@dataclass
class Tally:
    """Counts for one group of images."""

    images: int = 0
    boards_found: int = 0
    cells: int = 0
    occupancy_errors: int = 0
    cells_in_view: int = 0
    occupancy_errors_in_view: int = 0
    pieces_judged: int = 0
    pieces_wrong: int = 0
    boards_fully_right: int = 0
    attribute_judged: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ATTRIBUTES, 0))
    attribute_errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ATTRIBUTES, 0))
    # confusion[attr][(true, predicted)] with predicted "unknown" for None.
    confusion: dict[str, dict[tuple[str, str], int]] = field(
        default_factory=lambda: {a: defaultdict(int) for a in ATTRIBUTES}
    )
    centre_errors: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        def rate(a: int, b: int) -> float | None:
            return None if b == 0 else round(a / b, 4)

        return {
            "images": self.images,
            "boards_found": self.boards_found,
            "cells": self.cells,
            "occupancy_errors": self.occupancy_errors,
            "occupancy_error_rate": rate(self.occupancy_errors, self.cells),
            "cells_in_view": self.cells_in_view,
            "occupancy_errors_in_view": self.occupancy_errors_in_view,
            "pieces_judged": self.pieces_judged,
            "pieces_any_attribute_wrong": self.pieces_wrong,
            "pieces_wrong_rate": rate(self.pieces_wrong, self.pieces_judged),
            "boards_fully_right": self.boards_fully_right,
            "boards_fully_right_rate": rate(self.boards_fully_right, self.boards_found),
            "attribute_errors": {
                a: {"judged": self.attribute_judged[a], "wrong": self.attribute_errors[a],
                    "rate": rate(self.attribute_errors[a], self.attribute_judged[a])}
                for a in ATTRIBUTES
            },
            "median_centre_error_share": (
                round(float(np.median(self.centre_errors)), 4) if self.centre_errors else None
            ),
        }


@dataclass(frozen=True)
class ImageScore:
    """Per-image outcome; ``errors`` lists human-readable mistakes."""

    board_found: bool
    cells: int
    occupancy_errors: int
    pieces_judged: int
    pieces_wrong: int
    attribute_judged: dict[str, int]
    attribute_errors: dict[str, int]
    confusion: dict[str, dict[tuple[str, str], int]]
    centre_error_share: float | None
    errors: tuple[str, ...]
    #: Cells whose occupancy a still can show (:func:`cells_in_view`) and the errors there.
    cells_in_view: int = 0
    occupancy_errors_in_view: int = 0

    @property
    def fully_right(self) -> bool:
        return self.board_found and self.occupancy_errors == 0 and self.pieces_wrong == 0


def score_image(label: Label, predicted: Sequence[PredictedCell] | None) -> ImageScore:
    """Score one image. ``predicted`` is None (or empty) when no board was found."""
    empty_attr = dict.fromkeys(ATTRIBUTES, 0)
    conf: dict[str, dict[tuple[str, str], int]] = {a: defaultdict(int) for a in ATTRIBUTES}
    if not predicted or not label.cells:
        return ImageScore(False, len(label.cells), 0, 0, 0, empty_attr, dict(empty_attr), conf,
                          None, ("board not found",) if label.cells else ())
    true_xy = np.array([c.center_px for c in label.cells])
    pred_xy = np.array([p.center_px for p in predicted])
    match = match_cells(pred_xy, true_xy)
    spacing = label.cell_spacing_px
    centre_err = float(np.median(np.linalg.norm(pred_xy[match] - true_xy, axis=1)) / spacing)
    occ_err = judged = wrong = 0
    in_view = cells_in_view(label)
    occ_err_in_view = 0
    a_judged = dict(empty_attr)
    a_err = dict(empty_attr)
    errors: list[str] = []
    for k, truth in enumerate(label.cells):
        pred = predicted[int(match[k])]
        if (truth.piece is None) != (pred.piece is None):
            occ_err += 1
            occ_err_in_view += int(in_view[k])
            kind = "missed" if pred.piece is None else "false"
            hidden = "" if in_view[k] else " (hidden)"
            errors.append(f"{truth.cell.name}: occupancy {kind}{hidden}")
            continue
        if truth.piece is None or pred.piece is None or truth.visible_fraction < MIN_VISIBLE:
            continue
        judged += 1
        bad = []
        for attr in ATTRIBUTES:
            if attr == "top" and truth.top_visible_fraction < MIN_TOP_VISIBLE:
                continue
            a_judged[attr] += 1
            value = pred.piece.get(attr)
            conf[attr][(truth.piece.value(attr), value or "unknown")] += 1
            if value != truth.piece.value(attr):
                a_err[attr] += 1
                bad.append(f"{attr} {truth.piece.value(attr)}->{value}")
        if bad:
            wrong += 1
            errors.append(f"{truth.cell.name}: " + ", ".join(bad))
    return ImageScore(True, len(label.cells), occ_err, judged, wrong, a_judged, a_err, conf,
                      centre_err, tuple(errors), int(sum(in_view)), occ_err_in_view)


def cells_in_view(label: Label) -> list[bool]:
    """Per label cell, whether a still can show its occupancy: a piece at least
    ``MIN_OCCUPANCY_VISIBLE`` in view (the label's own share), or, on an empty cell, a short
    piece of the set standing there would be, given the label's pieces nearer the camera at
    their heights (``vision.read.visibility.OcclusionMask``, silhouettes as wide as the set's
    widest footprint, its diagonal for square pieces). Behind a tall piece a still can say "no
    tall piece here" but not "empty or short". All True when the label gives no board or no
    piece sizes (every cell judged, as before)."""
    view = label.board_view
    sizes = label.raw.get("pieces_set") if isinstance(label.raw, dict) else None
    keys = ("round_diameter_m", "square_side_m", "short_height_m", "tall_height_m")
    if view is None or not isinstance(sizes, dict) or any(k not in sizes for k in keys):
        return [True] * len(label.cells)
    from vision.read.geometry import cell_frames
    from vision.read.visibility import OcclusionMask
    from vision.rules.board import ALL_CELLS

    width = max(float(sizes["round_diameter_m"]), float(sizes["square_side_m"]) * 2 ** 0.5)
    frames = cell_frames(view, width / view.spec.cell_diameter_m)
    short_m, tall_m = float(sizes["short_height_m"]), float(sizes["tall_height_m"])
    index = {c: i for i, c in enumerate(ALL_CELLS)}
    heights: dict[int, float] = {
        index[c.cell]: tall_m if c.piece.value("height") == "tall" else short_m
        for c in label.cells if c.piece is not None}
    out = []
    for c in label.cells:
        if c.piece is not None:
            out.append(c.visible_fraction >= MIN_OCCUPANCY_VISIBLE)
            continue
        i = index[c.cell]
        mask = OcclusionMask(view, frames, width_factor=1.0)
        for j, h in heights.items():
            if frames.depth_m[j] < frames.depth_m[i]:
                mask.add(j, h)
        out.append(mask.visible_fraction(i, short_m) >= MIN_OCCUPANCY_VISIBLE)
    return out


def add_to(tally: Tally, s: ImageScore) -> None:
    """Accumulate one image's score into a tally."""
    tally.images += 1
    tally.cells += s.cells
    if not s.board_found:
        return
    tally.boards_found += 1
    tally.occupancy_errors += s.occupancy_errors
    tally.cells_in_view += s.cells_in_view
    tally.occupancy_errors_in_view += s.occupancy_errors_in_view
    tally.pieces_judged += s.pieces_judged
    tally.pieces_wrong += s.pieces_wrong
    tally.boards_fully_right += int(s.fully_right)
    for a in ATTRIBUTES:
        tally.attribute_judged[a] += s.attribute_judged[a]
        tally.attribute_errors[a] += s.attribute_errors[a]
        for key, n in s.confusion[a].items():
            tally.confusion[a][key] += n
    if s.centre_error_share is not None:
        tally.centre_errors.append(s.centre_error_share)


@dataclass
class Report:
    """Tallies overall and per group (elevation band, board style)."""

    overall: Tally = field(default_factory=Tally)
    by_elevation: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_style: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    failures: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, label: Label, s: ImageScore) -> None:
        add_to(self.overall, s)
        add_to(self.by_elevation[elevation_band(label.elevation_deg)], s)
        add_to(self.by_style[label.board_style or "unknown"], s)
        if s.errors:
            self.failures.append((str(label.image_path), s.errors))

    def as_dict(self) -> dict[str, object]:
        return {
            "overall": self.overall.as_dict(),
            "by_elevation": {k: v.as_dict() for k, v in sorted(self.by_elevation.items())},
            "by_style": {k: v.as_dict() for k, v in sorted(self.by_style.items())},
        }

    def confusion_text(self) -> str:
        """Per-attribute confusion tables (rows true, columns predicted) as plain text."""
        lines = []
        from vision.rules.pieces import VALUES

        for a in ATTRIBUTES:
            cols = [*VALUES[a], "unknown"]
            lines.append(f"{a:>8} | " + " ".join(f"{c:>8}" for c in cols))
            for t in VALUES[a]:
                row = [self.overall.confusion[a].get((t, c), 0) for c in cols]
                lines.append(f"{t:>8} | " + " ".join(f"{n:>8}" for n in row))
            lines.append("")
        return "\n".join(lines)


def score_all(pairs: Iterable[tuple[Label, Sequence[PredictedCell] | None]]) -> Report:
    """Score many (label, prediction) pairs into one report."""
    report = Report()
    for label, pred in pairs:
        report.add(label, score_image(label, pred))
    return report
