"""Colour of pieces and of the bare board, judged relative to each other.

Nothing here compares a colour with a fixed absolute value: a warm lamp, a dim room or a
different wood shifts every colour in the scene together, so

- occupancy compares what stands on a cell with the bare board next to it (the board's own
  surface, and the inside of the cell's ring seen just in front of where a piece would stand);
- light/dark splits the pieces on the board into two lightness groups when there are two, and
  only falls back to the scene's own bright reference when every piece looks alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.config import ReaderConfig
from vision.read.geometry import CellFrames, circle_points, project_grid
from vision.read.sampling import LabPatch, lab_distance

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class CellColours:
    """(16, 3) Lab colours per cell: ``body`` where a piece's lower near face must appear,
    ``bare`` the nearest bare board (between cells, in front), ``inner`` the inside of the
    ring in front of the footprint; ``scene_white`` the lightness of the scene's bright parts."""

    body: NDArray[np.float32]
    bare: NDArray[np.float32]
    inner: NDArray[np.float32]
    scene_white: float

    def board_distance(self) -> FloatArray:
        """(16,) how unlike the bare board (either reference) the body samples look."""
        d1 = lab_distance(self.body, self.bare)
        d2 = lab_distance(self.body, self.inner)
        return np.minimum(d1, d2).astype(np.float64)


def cell_colours(view: BoardView, frames: CellFrames, patch: LabPatch) -> CellColours:
    """Sample body, bare-board and ring-interior colours for every cell."""
    f = frames.footprint_m
    spec = view.spec
    body_pts = project_grid(
        view,
        circle_points(frames, 0.3 * f, np.array([0.2, 0.35, 0.5]) * f,
                      np.pi + np.radians(np.array([-35.0, 0.0, 35.0]))),
    ).reshape(16, -1, 2)
    near = np.pi + np.radians(np.linspace(-50.0, 50.0, 5))
    bare_pts = project_grid(
        view, circle_points(frames, 0.5 * spec.cell_pitch_m, np.array([0.0]), near)
    )[:, 0]
    inner_pts = project_grid(
        view, circle_points(frames, 0.88 * spec.cell_diameter_m / 2.0, np.array([0.0]), near)
    )[:, 0]
    nb = body_pts.shape[1]
    vals, _ = patch.sample(np.concatenate([body_pts, bare_pts, inner_pts], axis=1))
    body = np.median(vals[:, :nb], axis=1)
    bare = np.median(vals[:, nb : nb + len(near)], axis=1)
    inner = np.median(vals[:, nb + len(near) :], axis=1)
    white = float(np.percentile(patch.lab[::4, ::4, 0], 97))
    return CellColours(body.astype(np.float32), bare.astype(np.float32),
                       inner.astype(np.float32), max(white, 1.0))


def dark_probability(
    lightness: FloatArray, usable: NDArray[np.bool_], scene_white: float, config: ReaderConfig
) -> FloatArray:
    """Probability that each piece is dark, from its lightness relative to the other pieces.

    Parameters
    ----------
    lightness : (n,) Lab lightness of each piece's body.
    usable : (n,) pieces visible enough to take part in the split.
    scene_white : lightness of the scene's bright reference (fallback for a lone group).

    Notes
    -----
    With two groups (a gap of at least ``min_colour_gap_l`` at the best 1-D two-class split,
    Otsu's criterion) the threshold is the middle of the gap and the odds widen with the gap.
    Otherwise the pieces are one colour and are judged against ``lone_piece_light_ratio`` of
    the scene's white.
    """
    n = len(lightness)
    if n == 0:
        return np.zeros(0)
    vals = np.sort(lightness[usable]) if np.any(usable) else np.sort(lightness)
    threshold = config.lone_piece_light_ratio * scene_white
    width = max(4.0, 0.08 * scene_white)
    if len(vals) >= 2:
        best, best_k = -1.0, 0
        for k in range(1, len(vals)):
            lo, hi = vals[:k], vals[k:]
            between = len(lo) * len(hi) * (hi.mean() - lo.mean()) ** 2
            if between > best:
                best, best_k = between, k
        lo, hi = vals[:best_k], vals[best_k:]
        gap = hi.min() - lo.max()
        spread = max(float(np.std(lo)) if len(lo) > 1 else 0.0,
                     float(np.std(hi)) if len(hi) > 1 else 0.0)
        if hi.mean() - lo.mean() >= config.min_colour_gap_l and gap > spread:
            threshold = 0.5 * (hi.min() + lo.max())
            width = max(2.0, 0.25 * gap)
    return np.asarray(1.0 / (1.0 + np.exp((lightness - threshold) / width)))
