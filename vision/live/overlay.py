"""What the program believes, drawn on the live image. Drawing is separate from deciding:
every function takes results and returns a new image."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.game.model import Event
from vision.geometry.board_view import BoardView
from vision.read.observation import Observation
from vision.rules.board import ALL_CELLS, Board, Cell

_GREEN = (80, 200, 80)
_YELLOW = (0, 215, 255)
_RED = (40, 40, 230)
_WHITE = (255, 255, 255)
_BLACK = (0, 0, 0)
_FONT = cv2.FONT_HERSHEY_SIMPLEX


@dataclass(frozen=True)
class LiveStatus:
    """Everything the live window shows besides the image."""

    view: BoardView | None
    observation: Observation
    board: Board | None
    busy: bool
    status: str
    warnings: Sequence[str] = ()
    quarto: Event | None = None  # the Quarto to highlight, while its banner shows


def _text(
    img: NDArray[np.uint8],
    text: str,
    org: tuple[int, int],
    scale: float,
    color: tuple[int, int, int],
    thickness: int = 1,
) -> None:
    cv2.putText(img, text, org, _FONT, scale, _BLACK, thickness + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, _FONT, scale, color, thickness, cv2.LINE_AA)


def _pt(p: NDArray[np.float64]) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def draw_live(frame: NDArray[np.uint8], status: LiveStatus) -> NDArray[np.uint8]:
    """The camera image with the board outline, each cell's reading, warnings, a board diagram
    and, while a Quarto is fresh, a big banner with the line highlighted."""
    img = frame.copy()
    h, w = img.shape[:2]
    unit = max(0.4, w / 1600.0)
    view = status.view
    if view is not None:
        corners = view.corners_px().astype(np.int32)
        cv2.polylines(img, [corners], True, _YELLOW if status.busy else _GREEN, 2, cv2.LINE_AA)
        centers = view.cell_centers_px()
        for cell, center in zip(ALL_CELLS, centers, strict=True):
            label = cell.name
            color = _WHITE
            if status.observation:
                reading = status.observation.reading(cell)
                if reading.piece is not None:
                    label = "".join(
                        (reading.attribute(a) or "?")[0].upper()
                        for a in ("color", "shape", "height", "top")
                    )
                    color = _GREEN if reading.confidence >= 0.9 else _YELLOW
            _text(
                img, label, (_pt(center)[0] - int(18 * unit), _pt(center)[1]), 0.5 * unit, color, 1
            )
        if status.quarto is not None:
            pts = [view.cell_center_px(Cell(int(r), int(c))) for r, c in status.quarto["cells"]]
            cv2.polylines(
                img,
                [np.array([_pt(p) for p in pts], np.int32)],
                False,
                _RED,
                max(3, int(6 * unit)),
                cv2.LINE_AA,
            )
    if status.board is not None:
        _diagram(img, status.board, unit)
    _text(img, status.status, (10, h - 12), 0.6 * unit, _YELLOW if status.busy else _WHITE, 1)
    for i, message in enumerate(list(status.warnings)[-3:]):
        _text(img, f"! {message}", (10, int(30 * unit) + i * int(26 * unit)), 0.55 * unit, _RED)
    if status.quarto is not None:
        shared = ", ".join(f"all {v}" for v in (status.quarto.get("shared") or {}).values())
        size = 2.6 * unit
        (tw, th), _ = cv2.getTextSize("QUARTO!", _FONT, size, 6)
        org = ((w - tw) // 2, h // 2)
        cv2.rectangle(
            img, (org[0] - 20, org[1] - th - 20), (org[0] + tw + 20, org[1] + 50), _BLACK, -1
        )
        cv2.putText(img, "QUARTO!", org, _FONT, size, _RED, 6, cv2.LINE_AA)
        _text(img, shared, (org[0], org[1] + 38), 0.9 * unit, _WHITE, 2)
    return img


def _diagram(img: NDArray[np.uint8], board: Board, unit: float) -> None:
    """A small 4x4 board of the recorded pieces in the top-right corner."""
    cell = int(34 * unit)
    x0 = img.shape[1] - 4 * cell - 10
    y0 = 10
    cv2.rectangle(img, (x0 - 4, y0 - 4), (x0 + 4 * cell + 4, y0 + 4 * cell + 4), _BLACK, -1)
    for c in ALL_CELLS:
        x, y = x0 + c.col * cell, y0 + (3 - c.row) * cell
        cv2.rectangle(img, (x, y), (x + cell - 2, y + cell - 2), (70, 70, 70), 1)
        piece = board[c]
        if piece is None:
            continue
        fill = (200, 225, 240) if piece.value("color") == "light" else (30, 60, 100)
        r = (cell - 8) // 2 if piece.value("height") == "tall" else (cell - 8) // 3
        center = (x + cell // 2 - 1, y + cell // 2 - 1)
        if piece.value("shape") == "round":
            cv2.circle(img, center, r, fill, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(
                img, (center[0] - r, center[1] - r), (center[0] + r, center[1] + r), fill, -1
            )
        if piece.value("top") == "hollow":
            cv2.circle(img, center, max(2, r // 2), _BLACK, -1, cv2.LINE_AA)
