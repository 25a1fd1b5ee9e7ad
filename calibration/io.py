"""Calibration files: versioned JSON in OpenCV conventions.

One file may hold camera intrinsics (``camera_matrix``, ``dist_coeffs``, ``image_size``
as [width, height]), a board lock (the four board corners in pixels, order (-x,-y), (+x,-y),
(+x,+y), (-x,+y) of the board frame, and the layout), or both::

    {"format": "quarto-vision-calibration", "version": 1,
     "image_size": [1280, 720],
     "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist_coeffs": [k1, k2, p1, p2, k3],
     "rms_px": 0.31, "views": 18,
     "board_lock": {"corners_px": [[x, y], [x, y], [x, y], [x, y]], "layout": "diagonal"}}

Every command accepts such a file through ``--calibration FILE``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL
from vision.geometry.camera import Intrinsics

FORMAT = "quarto-vision-calibration"
VERSION = 1


class CalibrationError(ValueError):
    """A calibration file is missing, unreadable or malformed; the message names the file."""


@dataclass(frozen=True)
class BoardLock:
    """Board corners fixed by hand, pixels, order (-x,-y), (+x,-y), (+x,+y), (-x,+y)."""

    corners_px: NDArray[np.float64]
    layout: str = LAYOUT_DIAGONAL

    def __post_init__(self) -> None:
        c = np.asarray(self.corners_px, dtype=np.float64)
        if c.shape != (4, 2) or not np.all(np.isfinite(c)):
            raise ValueError(f"corners_px must be 4 finite (x, y) points, got shape {c.shape}")
        if self.layout not in (LAYOUT_DIAGONAL, LAYOUT_AXIS):
            raise ValueError(f"layout must be 'diagonal' or 'axis', got {self.layout!r}")
        object.__setattr__(self, "corners_px", c)


@dataclass(frozen=True)
class Calibration:
    """What a calibration file holds: intrinsics and/or a board lock."""

    intrinsics: Intrinsics | None = None
    board_lock: BoardLock | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        if self.intrinsics is not None:
            k = self.intrinsics
            out["image_size"] = [int(k.size_wh[0]), int(k.size_wh[1])]
            out["camera_matrix"] = k.matrix.tolist()
            out["dist_coeffs"] = [float(c) for c in k.dist_coeffs]
        if self.board_lock is not None:
            out["board_lock"] = {
                "corners_px": self.board_lock.corners_px.tolist(),
                "layout": self.board_lock.layout,
            }
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out


def save_calibration(path: str | Path, calib: Calibration) -> Path:
    """Write ``calib`` as JSON (merging into nothing: the file is replaced)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(calib.to_json(), indent=2) + "\n")
    return path


def _fail(path: Path, msg: str) -> CalibrationError:
    return CalibrationError(f"{path}: {msg}")


def parse_calibration(raw: Any, path: Path) -> Calibration:
    """Validate a decoded JSON object; raises :class:`CalibrationError` naming the problem."""
    if not isinstance(raw, dict):
        raise _fail(path, "not a JSON object")
    if raw.get("format", FORMAT) != FORMAT:
        raise _fail(path, f"format is {raw.get('format')!r}, expected {FORMAT!r}")
    version = raw.get("version")
    if version is None:
        raise _fail(path, "no 'version' field")
    if not isinstance(version, int) or version > VERSION or version < 1:
        raise _fail(path, f"unsupported version {version!r} (this program reads 1..{VERSION})")
    intr = None
    if "camera_matrix" in raw:
        try:
            K = np.asarray(raw["camera_matrix"], dtype=np.float64)
            size = raw["image_size"]
            w, h = int(size[0]), int(size[1])
            dist = tuple(float(c) for c in raw.get("dist_coeffs", [0.0] * 5))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise _fail(path, f"bad camera fields: {exc!r}") from exc
        if K.shape != (3, 3) or not np.all(np.isfinite(K)):
            raise _fail(path, f"camera_matrix must be 3x3 finite numbers, got shape {K.shape}")
        if K[0, 0] <= 0 or K[1, 1] <= 0 or w <= 0 or h <= 0:
            raise _fail(path, "focal lengths and image_size must be positive")
        if not all(math.isfinite(c) for c in dist):
            raise _fail(path, "dist_coeffs must be finite numbers")
        intr = Intrinsics(float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                          (w, h), dist)
    lock = None
    if raw.get("board_lock") is not None:
        bl = raw["board_lock"]
        try:
            lock = BoardLock(np.asarray(bl["corners_px"], dtype=np.float64),
                             str(bl.get("layout", LAYOUT_DIAGONAL)))
        except (KeyError, TypeError, ValueError) as exc:
            raise _fail(path, f"bad board_lock: {exc}") from exc
    if intr is None and lock is None:
        raise _fail(path, "holds neither camera intrinsics nor a board lock")
    known = {"format", "version", "camera_matrix", "image_size", "dist_coeffs", "board_lock"}
    return Calibration(intr, lock, {k: v for k, v in raw.items() if k not in known})


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; raises :class:`CalibrationError` with a clear message."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise _fail(path, f"cannot read: {exc.strerror or exc}") from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    return parse_calibration(raw, path)
