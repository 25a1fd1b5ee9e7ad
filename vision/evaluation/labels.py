"""Sidecar labels: one JSON file beside each image, same schema for our renders and for
``../shared/photoreal_dev`` (see its README). The one loader that tests, benchmarks and
evaluation all use.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.rules.board import Cell
from vision.rules.pieces import Piece


class LabelError(ValueError):
    """A label file is missing fields or malformed; the message names the file."""


@dataclass(frozen=True)
class CellLabel:
    cell: Cell
    center_px: tuple[float, float]
    piece: Piece | None
    visible_fraction: float = 1.0
    top_visible_fraction: float = 1.0


@dataclass(frozen=True)
class Label:
    """A parsed label. ``board_view`` is None for an image with no board."""

    path: Path
    image_path: Path
    size_wh: tuple[int, int]
    board_style: str | None
    elevation_deg: float | None
    board_view: BoardView | None
    corners_px: NDArray[np.float64] | None
    cells: tuple[CellLabel, ...]
    raw: dict[str, Any] = field(repr=False)

    @property
    def has_board(self) -> bool:
        return self.board_view is not None

    @property
    def cell_spacing_px(self) -> float:
        """Mean image distance between neighbouring cell centres (for relative errors)."""
        if not self.cells:
            return float("nan")
        pts = {(c.cell.row, c.cell.col): np.array(c.center_px) for c in self.cells}
        d = [
            np.linalg.norm(pts[(r, c)] - pts[(r + dr, c + dc)])
            for (r, c) in pts
            for dr, dc in ((0, 1), (1, 0))
            if (r + dr, c + dc) in pts
        ]
        return float(np.mean(d))


def elevation_band(elevation_deg: float | None) -> str:
    """The reporting band of a camera elevation: '25-40', '40-60', '60-90' (or 'unknown')."""
    if elevation_deg is None:
        return "unknown"
    if elevation_deg < 40.0:
        return "25-40"
    if elevation_deg < 60.0:
        return "40-60"
    return "60-90"


def load_label(path: str | Path) -> Label:
    """Parse one sidecar JSON label."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: cannot read label: {exc}") from exc
    try:
        w, h = int(raw["width"]), int(raw["height"])
        image_path = path.parent / raw.get("image", path.with_suffix(".jpg").name)
        cam = raw.get("camera")
        board = raw.get("board")
        view = None
        elevation = None
        if cam is not None:
            elevation = cam.get("elevation_deg")
        if cam is not None and board:
            intr = Intrinsics(
                float(cam["fx"]),
                float(cam["fy"]),
                float(cam["cx"]),
                float(cam["cy"]),
                (w, h),
                tuple(float(v) for v in cam.get("dist_coeffs", (0, 0, 0, 0, 0))),
            )
            pose = Pose(np.array(cam["R"], dtype=np.float64), np.array(cam["t"], dtype=np.float64))
            spec = BoardSpec(
                side_m=float(board["side_m"]),
                cell_pitch_m=float(board["cell_pitch_m"]),
                cell_diameter_m=float(board["cell_diameter_m"]),
                grid_rotation_deg=float(board["grid_rotation_deg"]),
                big_circle_radius_m=float(board.get("big_circle_radius_m", 0.0)),
            )
            view = BoardView(Camera(intr, pose), spec, calibrated=True)
        cells = []
        for entry in raw.get("cells") or []:
            piece_raw = entry.get("piece")
            piece = None if piece_raw is None else Piece.from_attributes(piece_raw)
            cells.append(
                CellLabel(
                    Cell(int(entry["row"]), int(entry["col"])),
                    (float(entry["center_px"][0]), float(entry["center_px"][1])),
                    piece,
                    float(piece_raw.get("visible_fraction", 1.0)) if piece_raw else 1.0,
                    float(piece_raw.get("top_visible_fraction", 1.0)) if piece_raw else 1.0,
                )
            )
        corners = raw.get("board_corners_px")
        return Label(
            path=path,
            image_path=image_path,
            size_wh=(w, h),
            board_style=raw.get("board_style"),
            elevation_deg=None if elevation is None else float(elevation),
            board_view=view,
            corners_px=None if corners is None else np.array(corners, dtype=np.float64),
            cells=tuple(cells),
            raw=raw,
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise LabelError(f"{path}: malformed label: {exc!r}") from exc


def iter_labelled_images(folder: str | Path) -> Iterator[Label]:
    """Every ``*.json`` label in ``folder`` (sorted) whose image exists beside it."""
    for path in sorted(Path(folder).glob("*.json")):
        label = load_label(path)
        if label.image_path.exists():
            yield label
