"""Colour of pieces and of the bare board, judged relative to each other.

Nothing here compares a colour with a fixed absolute value: a warm lamp, a dim room or a
different wood shifts every colour in the scene together, so

- occupancy compares what stands on a cell with the bare board next to it (the board's own
  surface, and the inside of the cell's ring seen just in front of where a piece would stand);
- light/dark splits the pieces on the board into two lightness groups when there are two, and
  only falls back to the scene's own bright reference when every piece looks alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.config import ReaderConfig
from vision.read.geometry import CellFrames, circle_points, project_grid
from vision.read.sampling import LabPatch, lab_distance
from vision.read.stats import nanmedian

FloatArray = NDArray[np.float64]

#: A sample within this Lab distance of the board's colour counts as bare board when measuring
#: the lighting around a cell (a lamp's gradient shifts lightness by 10-20 units across a board).
_BOARD_LIKE = 25.0


@dataclass(frozen=True)
class CellColours:
    """``body`` (16, M, 3) Lab samples of each cell's footprint; ``bare`` and ``inner`` (3,) the
    board's colour between cells and inside the rings; ``scene_white`` the lightness of the
    scene's bright parts."""

    body: NDArray[np.float32]
    bare: NDArray[np.float32]
    inner: NDArray[np.float32]
    scene_white: float
    body_px: FloatArray
    local_light: NDArray[np.float32]

    def board_distance(self) -> NDArray[np.float32]:
        """(16, M) how unlike the bare board (either reference; the bare board corrected for
        the lighting around the cell) each footprint sample looks."""
        shift = np.zeros((16, 1, 3), dtype=np.float32)
        shift[:, 0, 0] = self.local_light
        d1 = lab_distance(self.body, self.bare[None, None, :] + shift)
        # The shift is measured on the bare board; a differently coloured (often lighter) cell
        # interior does not follow it additively, so it is compared as sampled.
        d2 = lab_distance(self.body, self.inner[None, None, :])
        return np.minimum(d1, d2)


def cell_colours(view: BoardView, frames: CellFrames, patch: LabPatch) -> CellColours:
    """Sample footprint, bare-board and ring-interior colours for every cell.

    ``body`` is the footprint on the board plane: a piece always hides its own footprint, so
    there the image shows the piece (or a nearer piece), while an empty cell shows its interior.
    ``bare`` is the board surface along its border (pieces stand on the cells, so there they
    rarely hide it) and ``inner`` the inside of the rings of the cells nearest the camera (no
    piece can stand in front of their near side); both are robust colour modes. The interior of
    a cell can differ from the board (inlays, printed discs, recesses), hence two references.
    """
    spec = view.spec
    body_pts = occupancy_points(view, frames)
    near = np.pi + np.radians(np.linspace(-60.0, 60.0, 7))
    inner_pts = project_grid(
        view, circle_points(frames, 0.86 * spec.cell_diameter_m / 2.0, np.array([0.0]), near)
    )[:, 0]
    # Board surface between cells: cell centres shifted half a pitch along the grid diagonals.
    a = np.radians(spec.grid_rotation_deg + 45.0 + 90.0 * np.arange(4))
    between = spec.cell_pitch_m * np.sqrt(0.5)
    bare_xy = (spec.cell_centers()[:, None, :]
               + between * np.stack([np.cos(a), np.sin(a)], axis=1)[None]).reshape(-1, 2)
    bare_pts = view.project(bare_xy)
    t = np.linspace(-0.4, 0.4, 9) * spec.side_m
    edge = 0.46 * spec.side_m
    border_xy = np.vstack([np.column_stack([t, np.full_like(t, s * edge)]) for s in (-1, 1)]
                          + [np.column_stack([np.full_like(t, s * edge), t]) for s in (-1, 1)])
    border_pts = view.project(border_xy)
    nb, ni = body_pts.shape[1], inner_pts.shape[1]
    vals, _ = patch.sample(np.concatenate([body_pts.reshape(-1, 2), inner_pts.reshape(-1, 2),
                                           bare_pts, border_pts]))
    body = vals[: 16 * nb].reshape(16, nb, 3)
    nearest = np.argsort(frames.depth_m)[:4]
    inner_vals = vals[16 * nb : 16 * (nb + ni)].reshape(16, ni, 3)[nearest].reshape(-1, 3)
    bare_vals = vals[16 * (nb + ni) : 16 * (nb + ni) + len(bare_pts)]
    bare = _colour_mode(vals[16 * (nb + ni) + len(bare_pts) :])
    inner = _colour_mode(inner_vals)
    # Lighting across the board: the board next to each cell (its four diagonal neighbours'
    # corners, those that look like board at all) against the board's overall colour.
    local = bare_vals.reshape(16, 4, 3)
    is_board = lab_distance(local, bare[None, None, :]) < _BOARD_LIKE
    dl = np.where(is_board, local[..., 0] - bare[0], np.nan)
    has = np.any(is_board, axis=1)
    dl_safe = np.where(has[:, None], dl, 0.0)
    local_light = np.where(has, nanmedian(dl_safe, axis=1), 0.0)
    white = float(np.percentile(patch.lab[::4, ::4, 0], 97))
    return CellColours(body.astype(np.float32), bare.astype(np.float32),
                       inner.astype(np.float32), max(white, 1.0), body_pts,
                       local_light.astype(np.float32))


def occupancy_points(view: BoardView, frames: CellFrames) -> FloatArray:
    """(16, 9, 2) image points that any piece on the cell hides: its footprint (centre and six
    points at 0.2 F) and its axis at 0.3 F and 0.6 F (inside every piece at least 0.7 F tall)."""
    f = frames.footprint_m
    foot = np.radians(np.arange(0.0, 360.0, 60.0))
    return np.concatenate([
        project_grid(view, circle_points(frames, 0.0, np.array([0.0, 0.3 * f, 0.6 * f]),
                                         np.array([0.0])))[:, :, 0],
        project_grid(view, circle_points(frames, 0.2 * f, np.array([0.0]), foot))[:, 0],
    ], axis=1)


#: Directions of the near-side colour samples, from ``away`` towards ``side``.
BODY_ANGLES = np.pi + np.radians(np.array([-40.0, -20.0, 0.0, 20.0, 40.0]))


def body_colour_points(view: BoardView, frames: CellFrames, heights_m: FloatArray,
                       offsets_m: FloatArray | None = None) -> FloatArray:
    """(16, 25, 2) image points on the near face of a piece of height ``heights_m[i]`` on each
    cell, whose median colour is :func:`body_colour`: at 0.42 F from the axis in the five
    directions ``BODY_ANGLES``, or at ``offsets_m`` ((16, 5, 3) horizontal vectors from the
    axis, ``CellFeatures.side_offsets_m``) where given."""
    f = frames.footprint_m
    fracs = np.array([0.3, 0.45, 0.6, 0.75, 0.85])
    h = heights_m[:, None] * fracs[None, :]
    if offsets_m is None:
        return project_grid(view, circle_points(frames, 0.42 * f, h, BODY_ANGLES)
                            ).reshape(16, -1, 2)
    axis = circle_points(frames, 0.0, h, BODY_ANGLES)  # (16, 5, 5, 3)
    pts = axis + np.asarray(offsets_m, np.float64)[:, None, :, :]
    return project_grid(view, pts).reshape(16, -1, 2)


def body_colour(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray,
    usable: Callable[[FloatArray], NDArray[np.bool_]] | None = None,
    offsets_m: FloatArray | None = None,
) -> NDArray[np.float64]:
    """(16, 3) median Lab colour of the near face of a piece of height ``heights_m[i]`` on each
    cell (between 30 % and 85 % of its height, where neither the contact shadow at the base nor
    the top's highlight dominates); ``usable`` drops points hidden by nearer pieces;
    ``offsets_m``: see :func:`body_colour_points`."""
    pts = body_colour_points(view, frames, heights_m, offsets_m)
    vals, valid = patch.sample(pts)
    ok = valid & (usable(pts) if usable is not None else True)
    enough = np.sum(ok, axis=1) >= 3
    keep = np.where(enough[:, None], ok, True)
    colour = np.where(keep[..., None], vals, np.nan)
    return np.asarray(nanmedian(colour, axis=1), dtype=np.float64)


def _colour_mode(samples: NDArray[np.float32], radius: float = 8.0) -> NDArray[np.float32]:
    """The mean of the densest group of Lab samples (those within ``radius`` of the sample with
    the most neighbours): the board's colour even when pieces cover some samples."""
    d = lab_distance(samples[:, None, :], samples[None, :, :])
    close = d < radius
    k = int(np.argmax(close.sum(axis=1)))
    return np.asarray(samples[close[k]].mean(axis=0), dtype=np.float32)


def dark_probability(
    lightness: FloatArray, usable: NDArray[np.bool_], scene_white: float, config: ReaderConfig,
    board_lightness: float | None = None,
) -> FloatArray:
    """Probability that each piece is dark, from its lightness relative to the other pieces.

    Parameters
    ----------
    lightness : (n,) Lab lightness of each piece (top face and near side).
    usable : (n,) pieces visible enough to take part in the split.
    scene_white : lightness of the scene's bright reference (fallback for a lone group).
    board_lightness : lightness of the bare board (reference for a lone group).

    Notes
    -----
    Lightness is compared as a ratio (``log(L + 10)``): a dimmer lamp scales every surface's
    light alike. With two groups (the best two-class split, Otsu's criterion, whose group means
    differ by ``min_colour_ratio`` and whose gap exceeds the spread inside the groups) the
    threshold is the middle of the gap and the odds sharpen with the gap. Otherwise the pieces
    are one colour and are judged against the board under the same light: on a dark board
    (below ``dark_board_ratio`` of the scene's white) a light piece is clearly lighter than the
    board, on a light board a dark piece clearly darker (``lone_piece_board_ratio``); on a
    mid-tone board the scene's white decides (``lone_piece_light_ratio`` of it).
    """
    n = len(lightness)
    if n == 0:
        return np.zeros(0)
    x = np.log(np.maximum(lightness, 0.0) + 10.0)
    vals = np.sort(x[usable]) if np.any(usable) else np.sort(x)
    threshold = np.log(config.lone_piece_light_ratio * (scene_white + 10.0))
    if board_lightness is not None:
        board = board_lightness + 10.0
        if board < config.dark_board_ratio * (scene_white + 10.0):
            threshold = np.log(config.lone_piece_board_ratio * board)
        elif board > config.light_board_ratio * (scene_white + 10.0):
            threshold = np.log(board / config.lone_piece_board_ratio)
    width = 0.12
    if len(vals) >= 2:
        best_k = best_split(vals)
        lo, hi = vals[:best_k], vals[best_k:]
        gap = hi.min() - lo.max()
        spread = max(float(np.std(lo)) if len(lo) > 1 else 0.0,
                     float(np.std(hi)) if len(hi) > 1 else 0.0)
        if hi.mean() - lo.mean() >= np.log(config.min_colour_ratio) and gap > spread:
            threshold = 0.5 * (hi.min() + lo.max())
            width = max(0.03, gap / 8.0)
    return np.asarray(1.0 / (1.0 + np.exp(np.clip((x - threshold) / width, -40, 40))))


def best_split(sorted_values: NDArray[np.floating]) -> int:
    """Index k splitting sorted 1-D values into two groups ``[:k]``, ``[k:]`` with the largest
    between-group variance (Otsu's criterion on the values themselves); needs >= 2 values."""
    vals = np.asarray(sorted_values, dtype=np.float64)
    best, best_k = -1.0, 1
    for k in range(1, len(vals)):
        lo, hi = vals[:k], vals[k:]
        between = len(lo) * len(hi) * (hi.mean() - lo.mean()) ** 2
        if between > best:
            best, best_k = between, k
    return best_k
