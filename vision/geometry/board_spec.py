"""Physical description of a Quarto board and where its cells are, in board metres.

Board frame: origin at the centre of the board's top surface, +x right, +y away from the
viewer at azimuth 0, +z up. Cell (row r, col c) sits at grid coordinates
``u = (c - 1.5) * pitch``, ``v = (1.5 - r) * pitch``, rotated by ``grid_rotation_deg`` (45 for
the Gigamic layout, 0 for an axis-aligned grid). This matches the labels of
``../shared/photoreal_dev``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from vision.rules.board import ALL_CELLS, Cell

#: Layout names used in the ``analyze`` JSON (``board.layout``).
LAYOUT_DIAGONAL = "diagonal"
LAYOUT_AXIS = "axis"


@dataclass(frozen=True)
class BoardSpec:
    """Sizes of one board, metres. Defaults: a Gigamic Quarto Classic measured from photos
    (big circle about 0.97 S, cell spacing about 0.18 S, ring diameter about 0.165 S)."""

    side_m: float = 0.27
    cell_pitch_m: float = 0.18 * 0.27
    cell_diameter_m: float = 0.165 * 0.27
    grid_rotation_deg: float = 45.0
    big_circle_radius_m: float = 0.97 * 0.27 / 2.0

    @classmethod
    def gigamic(cls, side_m: float = 0.27) -> BoardSpec:
        return cls(side_m, 0.18 * side_m, 0.165 * side_m, 45.0, 0.97 * side_m / 2.0)

    @classmethod
    def axis_aligned(cls, side_m: float = 0.26) -> BoardSpec:
        """A home-made board: 4x4 grid along the edges, no big circle."""
        pitch = 0.22 * side_m
        return cls(side_m, pitch, 0.73 * pitch, 0.0, 0.0)

    @property
    def layout(self) -> str:
        return LAYOUT_DIAGONAL if abs(self.grid_rotation_deg % 90.0) > 1e-6 else LAYOUT_AXIS

    def cell_center(self, cell: Cell) -> NDArray[np.float64]:
        """(x, y) of the cell centre on the board's top surface, metres."""
        u = (cell.col - 1.5) * self.cell_pitch_m
        v = (1.5 - cell.row) * self.cell_pitch_m
        a = math.radians(self.grid_rotation_deg)
        return np.array([u * math.cos(a) - v * math.sin(a), u * math.sin(a) + v * math.cos(a)])

    def cell_centers(self) -> NDArray[np.float64]:
        """(16, 2) cell centres in row-major order (``ALL_CELLS``); a new array each call,
        copied from one computed once per spec (a board read asks about six times)."""
        return _cell_centers(self).copy()

    def corners(self) -> NDArray[np.float64]:
        """(4, 2) top-surface corners in the order (-x,-y), (+x,-y), (+x,+y), (-x,+y)."""
        h = self.side_m / 2.0
        return np.array([[-h, -h], [h, -h], [h, h], [-h, h]])


@lru_cache(maxsize=16)
def _cell_centers(spec: BoardSpec) -> NDArray[np.float64]:
    """:meth:`BoardSpec.cell_centers`, computed once per spec (read-only)."""
    out = np.array([spec.cell_center(c) for c in ALL_CELLS])
    out.flags.writeable = False
    return out
