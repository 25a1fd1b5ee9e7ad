"""BoardView: the camera model plus the board pose; maps board metres (x, y, z) to pixels.

Everything geometric downstream goes through a BoardView, so a piece's silhouette, top face and
hole can be predicted for any height and viewing angle. ``BoardNotFound`` is the falsy
"no board" result carrying a reason (not an exception).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import BoardSpec
from vision.geometry.camera import Camera
from vision.rules.board import ALL_CELLS, Cell

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class BoardView:
    """A found board: ``camera`` (intrinsics and board-to-camera pose) and the board ``spec``.

    ``calibrated`` says whether the intrinsics came from a calibration file (True) or were
    estimated from the board itself. ``score`` is the finder's own fit quality in 0..1.
    """

    camera: Camera
    spec: BoardSpec
    calibrated: bool = False
    score: float = 1.0

    def __bool__(self) -> bool:
        return True

    @property
    def layout(self) -> str:
        return self.spec.layout

    def project(self, points_xyz: FloatArray) -> FloatArray:
        """Board-frame points (metres; (N, 2) means z = 0) to (N, 2) pixels."""
        return self.camera.project(points_xyz)

    def cell_center_px(self, cell: Cell, height_m: float = 0.0) -> FloatArray:
        x, y = self.spec.cell_center(cell)
        return self.project(np.array([[x, y, height_m]]))[0]

    def cell_centers_px(self, height_m: float = 0.0) -> FloatArray:
        """(16, 2) pixel positions of the cell centres (row-major, ``ALL_CELLS``) at a height."""
        xy = self.spec.cell_centers()
        return self.project(np.column_stack([xy, np.full(len(xy), height_m)]))

    def corners_px(self) -> FloatArray:
        """(4, 2) board top corners in pixels, order (-x,-y), (+x,-y), (+x,+y), (-x,+y)."""
        return self.project(self.spec.corners())

    def cell_ring_px(self, cell: Cell, n: int = 48, radius_m: float | None = None) -> FloatArray:
        """(n, 2) pixel outline of a cell's ring (a circle on the board plane)."""
        r = self.spec.cell_diameter_m / 2.0 if radius_m is None else radius_m
        a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
        cx, cy = self.spec.cell_center(cell)
        return self.project(np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)]))

    @property
    def cells(self) -> tuple[Cell, ...]:
        return ALL_CELLS


@dataclass(frozen=True)
class BoardNotFound:
    """Falsy result of a board search that failed; ``reason`` says why in one line."""

    reason: str

    def __bool__(self) -> bool:
        return False
