"""Occlusion context: how much of each cell the pieces on nearer cells may hide.

Seen from a low camera a tall piece covers the cells behind it, and their samples then show
that piece, not their own. The second stage of the classifier gets, for each cell, the expected
share of its view covered by nearer pieces, from the first stage's odds of those pieces being
there and being tall or short. Geometry only (axis-aligned image boxes of upright cylinders);
no pixels.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView

FloatArray = NDArray[np.float64]

#: Names of the context features appended for the second stage (in this order).
CONTEXT_NAMES: tuple[str, ...] = (
    "cover_by_tall",  # expected share of the cell's view covered by nearer tall pieces
    "cover_by_short",  # the same for nearer short pieces
    "max_cover",  # the largest single expected cover
)

#: A nominal piece for the geometry: radius and the two heights, metres (middle of the sets).
_RADIUS_M = 0.016
_SHORT_M = 0.037
_TALL_M = 0.068


def piece_boxes(view: BoardView, height_m: float, n: int = 12) -> FloatArray:
    """(16, 4) image boxes (x0, y0, x1, y1) of an upright cylinder of ``height_m`` on each cell."""
    xy = view.spec.cell_centers()
    a = 2.0 * np.pi * np.arange(n) / n
    ring = np.column_stack([_RADIUS_M * np.cos(a), _RADIUS_M * np.sin(a)])
    pts = []
    for z in (0.0, height_m):
        p = xy[:, None, :] + ring[None, :, :]
        pts.append(np.concatenate([p, np.full((*p.shape[:2], 1), z)], axis=2))
    allp = np.concatenate(pts, axis=1)  # (16, 2n, 3)
    px = view.project(allp.reshape(-1, 3)).reshape(len(xy), -1, 2)
    return np.column_stack([px.min(axis=1), px.max(axis=1)])


def cover_matrices(view: BoardView) -> tuple[FloatArray, FloatArray]:
    """(16, 16) shares ``cover[i, j]`` of cell i's tall-piece box covered by the box of a tall
    (first matrix) or short (second) piece on cell j, where j is nearer to the camera."""
    tall = piece_boxes(view, _TALL_M)
    short = piece_boxes(view, _SHORT_M)
    depth = view.camera.depth(np.column_stack([view.spec.cell_centers(), np.zeros(16)]))
    nearer = depth[None, :] < depth[:, None] - 1e-6  # [i, j]: j in front of i
    area = np.maximum((tall[:, 2] - tall[:, 0]) * (tall[:, 3] - tall[:, 1]), 1e-9)

    def overlap(other: FloatArray) -> FloatArray:
        w = np.minimum(tall[:, None, 2], other[None, :, 2]) - np.maximum(
            tall[:, None, 0], other[None, :, 0])
        h = np.minimum(tall[:, None, 3], other[None, :, 3]) - np.maximum(
            tall[:, None, 1], other[None, :, 1])
        return np.asarray(
            np.clip(w, 0, None) * np.clip(h, 0, None) / area[:, None] * nearer, dtype=np.float64
        )

    return overlap(tall), overlap(short)


def context_features(
    covers: tuple[FloatArray, FloatArray], p_occupied: np.ndarray, p_tall: np.ndarray
) -> NDArray[np.float32]:
    """(16, len(CONTEXT_NAMES)) context of every cell from the first stage's odds.

    Parameters
    ----------
    covers : the two matrices of :func:`cover_matrices`.
    p_occupied, p_tall : (16,) first-stage probabilities of every cell.
    """
    cover_tall, cover_short = covers
    t = np.asarray(p_occupied) * np.asarray(p_tall)
    s = np.asarray(p_occupied) * (1.0 - np.asarray(p_tall))
    by_tall = cover_tall * t[None, :]
    by_short = cover_short * s[None, :]
    return np.column_stack([
        by_tall.sum(axis=1),
        by_short.sum(axis=1),
        np.maximum(by_tall.max(axis=1), by_short.max(axis=1)),
    ]).astype(np.float32)


def context_for_blocks(
    covers: NDArray[np.float64], p_occupied: np.ndarray, p_tall: np.ndarray
) -> NDArray[np.float32]:
    """:func:`context_features` for many boards at once.

    Parameters
    ----------
    covers : (B, 2, 16, 16) cover matrices, one pair per board.
    p_occupied, p_tall : (B * 16,) first-stage probabilities, boards in the same order.
    """
    b = len(covers)
    if p_occupied.shape != (16 * b,) or p_tall.shape != (16 * b,):
        raise ValueError(f"need {16 * b} probabilities, got {p_occupied.shape}, {p_tall.shape}")
    out = [
        context_features((covers[k, 0], covers[k, 1]), p_occupied[16 * k:16 * k + 16],
                         p_tall[16 * k:16 * k + 16])
        for k in range(b)
    ]
    return np.vstack(out).astype(np.float32)
