"""Per-cell feature vectors for the learned classifier: relative colours on the
geometry-normalised billboard of ``vision.learn.sampling``, rotation-invariant statistics of its
polar rings (candidate top faces), plus a few geometric scalars.

Colour is never absolute. Every sample is a CIE Lab difference to the board's own colour
(the median of the bare-board points between the cells, seen through the same camera, white
balance and lamp), divided by a fixed Lab scale. The board's colour itself, the local lighting
around the cell (the four board points around it, relative to the board's median) and the
camera's elevation and resolution at the cell are given as scalars, so the classifier can tell
a dark piece on a light board from a light piece on a dark one, and a steep view from a
shallow one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.config import SamplingConfig
from vision.learn.rings import (
    EDGE_MIRROR_SIGN,
    EDGE_STATS,
    RING_MIRROR_SIGN,
    RING_STATS,
    aligned_outline,
    edge_statistics,
    ring_statistics,
)
from vision.learn.sampling import (
    Pyramid,
    board_colours,
    cell_frames,
    lateral_step_px,
    reference_points_m,
    sample_points_m,
)

FloatArray = NDArray[np.float64]

#: Names of the scalar features appended after the sampled colours (in this order).
SCALAR_NAMES: tuple[str, ...] = (
    "local_dL", "local_da", "local_db",  # board around the cell minus the board's median
    "board_L", "board_a", "board_b",  # the board's median colour
    "sin_elevation", "cos_elevation",  # camera elevation seen from the cell
    "log_px_per_cm",  # image resolution at the cell (log2 pixels per lateral centimetre)
    "outside_share",  # share of the cell's samples outside the frame
)


@dataclass(frozen=True)
class CellFeatures:
    """Features of the 16 cells of one frame (``ALL_CELLS`` order).

    Attributes
    ----------
    x : (16, F) float32 feature matrix.
    elevation_deg : (16,) camera elevation seen from each cell centre.
    centers_px : (16, 2) cell centres on the board surface, pixels.
    """

    x: NDArray[np.float32]
    elevation_deg: FloatArray
    centers_px: FloatArray


def n_samples(cfg: SamplingConfig) -> int:
    """Sample points per cell (billboard plus polar rings)."""
    n_rings = len(cfg.top_heights_m) * len(cfg.polar_radii_m)
    return cfg.billboard_rows * cfg.billboard_cols + n_rings * cfg.polar_angles


def n_features(cfg: SamplingConfig) -> int:
    """Length of one cell's feature vector: billboard Lab, ring statistics, scalars."""
    n_rings = len(cfg.top_heights_m) * len(cfg.polar_radii_m)
    return (
        3 * cfg.billboard_rows * cfg.billboard_cols
        + RING_STATS * n_rings
        + EDGE_STATS * len(cfg.top_heights_m)
        + EDGE_STATS + 1
        + len(SCALAR_NAMES)
    )


def mirror_features(cfg: SamplingConfig) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """Permutation and signs that turn a feature vector into that of the mirror-image scene
    (lateral offset -> its negative): ``x_mirror = x[:, index] * sign``.

    Pieces are mirror-symmetric, so a mirrored feature vector is a valid example of a mirrored
    scene: training uses it to double the data.
    """
    nb = cfg.billboard_rows * cfg.billboard_cols
    bill = np.arange(nb).reshape(cfg.billboard_rows, cfg.billboard_cols)[:, ::-1].ravel()
    per_channel = (3 * bill[:, None] + np.arange(3)[None, :]).ravel()
    # Ring statistics keep their place (some change sign); scalars do not change.
    rest = np.arange(3 * nb, n_features(cfg))
    n_rings = len(cfg.top_heights_m) * len(cfg.polar_radii_m)
    sign = np.concatenate([
        np.ones(3 * nb, np.float32),
        np.tile(RING_MIRROR_SIGN, n_rings),
        np.tile(EDGE_MIRROR_SIGN, len(cfg.top_heights_m)),
        EDGE_MIRROR_SIGN,
        np.ones(1 + len(SCALAR_NAMES), np.float32),
    ])
    return np.concatenate([per_channel, rest]).astype(np.int64), sign


def cell_features(
    frame_bgr: NDArray[np.uint8], view: BoardView, *, config: SamplingConfig | None = None
) -> CellFeatures:
    """Feature vectors of the 16 cells.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board (camera and pose) the cells are read with.
    config : sampling layout; must be the one the model was trained with.

    Returns
    -------
    CellFeatures with a (16, ``n_features(config)``) float32 matrix.

    Notes
    -----
    Samples outside the frame get the board's colour (a zero difference) and are counted in
    ``outside_share``. The board reference is a median, so pieces covering a few of the
    between-cell points do not move it.
    """
    cfg = config or SamplingConfig()
    if not isinstance(view, BoardView):
        raise ValueError(f"view must be a BoardView, got {type(view).__name__}")
    frame = np.asarray(frame_bgr)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame_bgr must be (H, W, 3) uint8 BGR, got {frame.shape} {frame.dtype}")
    frames = cell_frames(view)
    pts_m = sample_points_m(frames, cfg)  # (16, P, 3)
    n_cells, n_pts = pts_m.shape[:2]
    ref_m, corners = reference_points_m(view)

    # Pyramid level per cell: neighbouring lateral samples about min_step_px apart.
    step_m = 2.0 * cfg.billboard_half_width_m / (cfg.billboard_cols - 1)
    step_px = lateral_step_px(view, frames, step_m)
    level = np.floor(np.log2(np.maximum(step_px, 1e-6) / cfg.min_step_px)).astype(np.int64)
    level = np.clip(level, 0, cfg.max_level)
    ref_level = int(np.median(level))

    pyr = Pyramid(frame, cfg.max_level)
    all_px = view.project(np.vstack([pts_m.reshape(-1, 3), ref_m]))
    lv = np.concatenate([np.repeat(level, n_pts), np.full(len(ref_m), ref_level)])
    lab, valid = pyr.sample_lab(all_px, lv)
    cell_lab = lab[: n_cells * n_pts].reshape(n_cells, n_pts, 3)
    cell_valid = valid[: n_cells * n_pts].reshape(n_cells, n_pts)
    ref_lab = lab[n_cells * n_pts:]
    ref_valid = valid[n_cells * n_pts:]

    board, local = board_colours(ref_lab, ref_valid, corners, cell_lab, cell_valid)

    rel = (cell_lab - board[None, None, :]) / cfg.lab_scale
    rel[~cell_valid] = 0.0
    nb = cfg.billboard_rows * cfg.billboard_cols
    ring_shape = (n_cells, len(cfg.top_heights_m), len(cfg.polar_radii_m), cfg.polar_angles)
    ring_rel = rel[:, nb:].reshape(*ring_shape, 3)
    ring_valid = cell_valid[:, nb:].reshape(ring_shape)
    rings = ring_statistics(ring_rel, ring_valid)
    edges = edge_statistics(ring_rel, ring_valid, np.asarray(cfg.polar_radii_m))
    aligned = aligned_outline(edges, np.asarray(cfg.top_heights_m))
    scalars = np.column_stack([
        (local - board[None, :]) / cfg.lab_scale,
        np.tile([board[0] / 50.0 - 1.0, board[1] / cfg.lab_scale, board[2] / cfg.lab_scale],
                (n_cells, 1)),
        np.sin(frames.elevation_rad),
        np.cos(frames.elevation_rad),
        np.log2(np.maximum(step_px / (100.0 * step_m), 1e-3)) / 4.0,
        1.0 - cell_valid.mean(axis=1),
    ])
    x = np.concatenate(
        [rel[:, :nb].reshape(n_cells, -1), rings.reshape(n_cells, -1),
         edges.reshape(n_cells, -1), aligned, scalars], axis=1
    ).astype(np.float32)
    return CellFeatures(
        x=x,
        elevation_deg=np.degrees(frames.elevation_rad),
        centers_px=view.project(frames.centers),
    )
