"""The cell reader: a frame plus a ``BoardView`` in, an ``Observation`` out.

Steps (each in its own module):

1. ``geometry``: local frame of every cell; ``sampling``: Lab colours of the board's region.
2. ``silhouette``: for every candidate height, contrast across the predicted top rim and sides
   -> a height estimate per cell.
3. ``appearance``: body colour vs bare board -> occupancy; lightness split -> light/dark.
4. height groups: short/tall decided relative to the other pieces on the board.
5. ``visibility``: nearer pieces hide farther ones -> visible fractions, top visibility.
6. ``top``: hole and square corners on the plane of the top face.
7. ``decode``: distinct pieces assigned jointly, unknown attributes kept unknown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.appearance import CellColours, cell_colours, dark_probability
from vision.read.config import ReaderConfig
from vision.read.decode import decode_pieces
from vision.read.geometry import CellFrames, cell_frames
from vision.read.observation import CellReading, Observation
from vision.read.sampling import lab_patch
from vision.read.silhouette import HeightProfiles, height_profiles
from vision.read.top import TopFeatures, top_features
from vision.read.visibility import visible_fractions
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES

log = logging.getLogger(__name__)

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class CellFeatures:
    """Everything measured on one frame, before decisions (kept for evaluation and tuning)."""

    frames: CellFrames
    profiles: HeightProfiles
    colours: CellColours
    height_m: FloatArray
    occupied_probability: FloatArray
    visible: FloatArray
    top_visible: FloatArray
    top: TopFeatures


def _logistic(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0))))


def _check_frame(frame_bgr: NDArray[np.uint8]) -> None:
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        shape = getattr(frame_bgr, "shape", type(frame_bgr).__name__)
        raise ValueError(f"frame_bgr must be an (H, W, 3) uint8 BGR image, got {shape}")
    if frame_bgr.dtype != np.uint8:
        raise ValueError(f"frame_bgr must be uint8, got {frame_bgr.dtype}")


def measure_cells(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ReaderConfig | None = None
) -> CellFeatures:
    """Measure occupancy, height, visibility and top-face evidence on every cell."""
    config = config or ReaderConfig()
    _check_frame(frame_bgr)
    frames = cell_frames(view, config.footprint_frac_of_ring)
    f = frames.footprint_m
    # Region that can hold the board and the tallest piece on any cell.
    pts = np.vstack([
        view.corners_px(),
        view.cell_centers_px(config.max_height_f * f * 1.2),
    ])
    x0, y0 = pts.min(axis=0) - np.max(frames.footprint_px)
    x1, y1 = pts.max(axis=0) + np.max(frames.footprint_px)
    patch = lab_patch(frame_bgr, (x0, y0, x1, y1), config.blur_f * float(np.median(frames.footprint_px)))
    profiles = height_profiles(view, frames, patch, config)
    height = profiles.heights_m[profiles.best_height_index()]
    colours = cell_colours(view, frames, patch)
    occ_colour = (colours.board_distance() - config.occupancy_lab_distance) / config.occupancy_lab_width
    low = profiles.heights_m < 0.9 * f
    side_low = np.mean(profiles.side[:, low], axis=1) if np.any(low) else profiles.side[:, 0]
    occ_edge = (side_low - config.occupancy_edge_contrast) / config.occupancy_edge_width
    occupied_p = _logistic(np.maximum(occ_colour, occ_edge))
    occupied = occupied_p >= config.occupied_probability
    visible, top_visible = visible_fractions(view, frames, occupied, height)
    top = top_features(view, frames, patch, height)
    return CellFeatures(frames, profiles, colours, height, occupied_p, visible, top_visible, top)


def tall_probability(heights_f: FloatArray, usable: NDArray[np.bool_],
                     config: ReaderConfig) -> FloatArray:
    """Probability that each piece is tall, from heights in footprint widths.

    Two height groups on the board (largest gap between sorted log-heights, group means at
    least ``min_tall_short_ratio`` apart) set the boundary at the gap's geometric middle;
    otherwise the absolute ``tall_threshold_f`` is used.
    """
    if len(heights_f) == 0:
        return np.zeros(0)
    logs = np.log(np.maximum(heights_f, 1e-3))
    threshold = np.log(config.tall_threshold_f)
    vals = np.sort(logs[usable]) if np.any(usable) else np.sort(logs)
    if len(vals) >= 2:
        gaps = np.diff(vals)
        k = int(np.argmax(gaps))
        lo, hi = vals[: k + 1], vals[k + 1 :]
        if hi.mean() - lo.mean() >= np.log(config.min_tall_short_ratio):
            mid = 0.5 * (vals[k] + vals[k + 1])
            # Trust the board's own split only near the physical boundary.
            if abs(mid - threshold) < np.log(1.35):
                threshold = mid
    return _logistic((logs - threshold) / 0.1)


def read_cells(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ReaderConfig | None = None
) -> Observation:
    """Read every cell of the board seen in ``frame_bgr`` through ``view``.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board's ``BoardView`` (from the board finder, or from a label).
    config : reader knobs; defaults to ``ReaderConfig()``.

    Returns
    -------
    Observation with 16 ``CellReading``s (row-major), pieces decoded jointly.
    """
    config = config or ReaderConfig()
    feats = measure_cells(frame_bgr, view, config)
    occupied = feats.occupied_probability >= config.occupied_probability
    idx = np.flatnonzero(occupied)
    usable = feats.visible[idx] >= config.min_visible_fraction
    f = feats.frames.footprint_m
    p_tall = tall_probability(feats.height_m[idx] / f, usable, config)
    p_dark = dark_probability(
        feats.colours.body[idx, 0].astype(np.float64), usable, feats.colours.scene_white, config
    )
    p_hollow = _logistic((feats.top.hole_darkening[idx] - config.hole_darkening)
                         / config.hole_darkening_width)
    p_square = _logistic((feats.top.squareness[idx] - 0.08) / 0.05)
    odds: list[dict[str, float | None]] = []
    for n, i in enumerate(idx):
        seen = bool(feats.visible[i] >= config.min_visible_fraction)
        top_seen = seen and bool(
            feats.frames.top_sine[i] >= config.min_top_sine and feats.top_visible[i] >= 0.5
        )
        odds.append({
            "color": float(p_dark[n]) if seen else None,
            "shape": float(p_square[n]) if top_seen else None,
            "height": float(p_tall[n]) if seen else None,
            "top": float(p_hollow[n]) if top_seen else None,
        })
    decoded = decode_pieces(odds)
    centers = view.cell_centers_px()
    readings = []
    by_index = dict(zip(idx.tolist(), zip(odds, decoded, strict=True), strict=True))
    for i, cell in enumerate(ALL_CELLS):
        center = (float(centers[i, 0]), float(centers[i, 1]))
        if i in by_index:
            cell_odds, dec = by_index[i]
            readings.append(CellReading(
                cell, center, float(feats.occupied_probability[i]), cell_odds,
                float(feats.visible[i]), dec.piece, dec.known, dec.confidence,
            ))
        else:
            readings.append(CellReading(
                cell, center, float(feats.occupied_probability[i]),
                dict.fromkeys(ATTRIBUTES), 1.0, None, frozenset(), 0.0,
            ))
    return Observation(tuple(readings), view)
