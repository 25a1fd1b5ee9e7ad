"""The board part of the ``analyze`` result (DESIGN.md section 3), built as plain data.

The recognition stage adds ``occupied``, ``piece`` and ``visible_fraction`` to each cell entry
and the ``quarto`` list; this module owns ``board`` and the cells' ``row``, ``col``, ``name``
and ``center_px``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.io import Calibration
from vision.geometry.board_view import BoardNotFound, BoardView
from vision.locate.config import LocateConfig
from vision.locate.finder import find_board
from vision.locate.lock import view_from_corners


@dataclass(frozen=True)
class BoardResult:
    """A located board (or the reason there is none) and the time it took."""

    view: BoardView | BoardNotFound
    elapsed_ms: float


def locate(frame: NDArray[np.uint8], calibration: Calibration | None = None,
           config: LocateConfig | None = None) -> BoardResult:
    """Find the board, honouring a calibration file's intrinsics and board lock."""
    t0 = time.perf_counter()
    intr = calibration.intrinsics if calibration else None
    if calibration is not None and calibration.board_lock is not None:
        h, w = frame.shape[:2]
        lock = calibration.board_lock
        view: BoardView | BoardNotFound = view_from_corners(
            lock.corners_px, (w, h), lock.layout, intrinsics=intr, config=config)
    else:
        view = find_board(frame, intrinsics=intr, config=config)
    return BoardResult(view, (time.perf_counter() - t0) * 1000.0)


def _xy(p: NDArray[np.float64]) -> list[float]:
    return [round(float(p[0]), 2), round(float(p[1]), 2)]


def board_json(view: BoardView | BoardNotFound) -> dict[str, Any]:
    """``{"found": true, "layout", "corners_px", ...}`` or ``{"found": false, "reason"}``."""
    if not view:
        return {"found": False, "reason": getattr(view, "reason", "board not found")}
    assert isinstance(view, BoardView)
    intr = view.camera.intrinsics
    return {
        "found": True,
        "layout": view.layout,
        "corners_px": [_xy(c) for c in view.corners_px()],
        "score": round(view.score, 3),
        "calibrated": view.calibrated,
        "focal_px": round(intr.fx, 1),
    }


def cells_json(view: BoardView | BoardNotFound) -> list[dict[str, Any]]:
    """16 entries ``{"row", "col", "name", "center_px"}`` (empty when no board)."""
    if not view:
        return []
    assert isinstance(view, BoardView)
    centers = view.cell_centers_px()
    return [
        {"row": c.row, "col": c.col, "name": c.name, "center_px": _xy(p)}
        for c, p in zip(view.cells, centers, strict=True)
    ]


def image_result(path: str, frame: NDArray[np.uint8], result: BoardResult) -> dict[str, Any]:
    """The per-image JSON object of ``analyze`` with the board part filled in."""
    h, w = frame.shape[:2]
    return {
        "image": path,
        "width": int(w),
        "height": int(h),
        "board": board_json(result.view),
        "cells": cells_json(result.view),
        "elapsed_ms": round(result.elapsed_ms, 1),
    }
