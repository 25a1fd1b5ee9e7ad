"""Short or tall from the band of image between a piece's two possible tops (low views).

Seen from 25-70 degrees, the far rims of a short and a tall top of the same piece project
10-60 px apart in the image. The band between them is the piece itself (its side wall and
top) if it is tall, and whatever stands behind it (board, mat, a farther piece) if it is
short. A point on the far rim at a height ``z`` between the two tops projects inside a tall
piece's silhouette (the ray to it passes through the piece first) and above a short one's
(the ray reaches it before any part of the piece), whatever the piece's shape or small offset
in its cell.

So each cell's band is judged against two references measured on the same frame: the piece
(its near side wall at half the short height, inside the solid under both hypotheses) and the
background (just above the tall top's far rim, outside the piece under both). The colour is
never compared with a fixed value, only with those two references, and the contrast across
each hypothesis' far rim (``silhouette.HeightProfiles``) is taken relative to the cell's own
contrasts. :func:`band_features` gives the raw measurements; :func:`band_log_odds` turns them
into a log-likelihood ratio of tall against short with a logistic model fitted on dev renders
(``TopBandConfig``), to be added to the fused height odds
(``vision.learn.fuse.read_cells_fused``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.config import ReaderConfig
from vision.read.geometry import CellFrames, circle_points, project_grid
from vision.read.heights import _normalise
from vision.read.sampling import LabPatch, lab_distance, log_lightness
from vision.read.stats import nanmedian

FloatArray = NDArray[np.float64]

#: Names of the columns of :func:`band_features`.
FEATURES = ("band", "ref_contrast", "rim_ratio", "side_ratio", "spread_ratio", "gap",
            "top_like", "top_lightness")

#: Far-rim angles of the band samples (from ``away``), degrees.
_BAND_ANGLES_DEG = (-40.0, -20.0, 0.0, 20.0, 40.0)
#: Band heights as fractions of the way from the short top to the tall top.
_BAND_FRACS = (0.3, 0.45, 0.6, 0.75)


@dataclass(frozen=True)
class TopBandConfig:
    """The band cue's knobs and its logistic model.

    ``weight`` 0 (the default) switches the cue off; 1 is the calibrated weight. ``coef`` are
    the weights of :data:`FEATURES` (standardised by ``mean`` and ``scale``) and ``bias`` the
    intercept, fitted (L2 1.0) with the fused height log-odds as an offset, so the sum is the
    evidence the band adds to what the readers already said (a log-likelihood ratio).
    Fitted on the 8435 pieces at least 0.8 in view of dev renders at 25-70 degrees (dev1347,
    fresh 1349000+ to 1352000+) that pass the gates below, with the set's heights from
    :func:`guided_heights` (``benchmarks/top_band_cue.py``). Cells are used only where the
    view is at most ``max_elevation_deg`` (above it the two tops overlap in the image), the
    piece is at least ``min_visible`` in view, and the two tops' far rims lie at least
    ``min_gap_f`` footprint widths apart in the image. Off by default: measured in session
    33 (docs/design.md, "the band between a piece's two possible tops"), it reads 13 fewer
    of 16688 held-out pieces wrong (heights 363 -> 354), but 2 more tops, 3 fewer boards
    fully right at 60-90 degrees; `watch` gave the same events with it on 12 low-angle
    games, and the mixed-angle games were not run."""

    weight: float = 0.0
    max_elevation_deg: float = 70.0
    min_visible: float = 0.8
    min_gap_f: float = 0.15
    clip: float = 4.0
    mean: tuple[float, ...] = (-0.1391, 3.4351, -0.1737, -0.1672, 0.233, 0.7571, -5.4873, 5.509)
    scale: tuple[float, ...] = (0.6473, 0.7876, 1.5453, 0.7632, 1.1136, 0.3549, 20.1094,
                                22.6273)
    coef: tuple[float, ...] = (0.4988, 0.1478, 0.8639, 0.0981, -0.571, -0.5167, 0.3467, 0.8865)
    bias: float = 0.3751


def _interp_rows(values: FloatArray, heights_m: FloatArray, at_m: FloatArray) -> FloatArray:
    """Per row, ``values`` (16, K) over ``heights_m`` interpolated at ``at_m`` (16,)."""
    return np.array([np.interp(a, heights_m, v) for v, a in zip(values, at_m, strict=True)])


def band_features(
    view: BoardView, frames: CellFrames, patch: LabPatch, short_m: float | FloatArray,
    tall_m: float | FloatArray, rim: FloatArray, side: FloatArray, spread: FloatArray,
    heights_m: FloatArray, p_tall: FloatArray, usable: NDArray[np.bool_],
) -> tuple[FloatArray, FloatArray]:
    """(16, len(FEATURES)) band measurements and (16,) the image gap between the two tops'
    far rims in footprint widths.

    ``rim``, ``side``, ``spread`` and ``heights_m`` are the hand-crafted reader's height
    profiles (``silhouette.HeightProfiles``) at ``frames``' footprint; ``short_m`` and
    ``tall_m`` the set's two heights (scalars, or (16,) one pair per cell:
    :func:`guided_heights`); ``p_tall`` (16,) the readers' P(tall) and
    ``usable`` (16,) the pieces seen well enough to show the board's pattern of top against
    side wall (``top_like``: each cell is judged against the *other* pieces).

    ``top_like``: a top face is lit from above and looks different from its side wall in a
    way all the pieces of a board share. For both hypotheses the ring at 0.4 F on the top
    plane is compared with the near wall; the hypothesis whose difference is nearer the
    others' (each at its own likelier height, weighted by how sure that is) wins."""
    f = frames.footprint_m
    r = f / 2.0
    n = len(frames.centers_m)
    hs = np.broadcast_to(np.asarray(short_m, np.float64), (n,))
    ht = np.broadcast_to(np.asarray(tall_m, np.float64), (n,))
    gap = ht - hs
    angles = np.radians(np.asarray(_BAND_ANGLES_DEG))
    band_h = hs[:, None] + gap[:, None] * np.asarray(_BAND_FRACS)[None, :]
    # One projection: band points on the far rim, the near wall (inside the solid under both
    # heights), the background just above the tall top's far rim, and the two far-rim centres.
    nb = band_h.shape[1]
    pts = circle_points(frames, r, np.column_stack([band_h, hs, ht]), angles)
    # The near wall: the same angles turned to face the camera, at 0.6 of the radius.
    wall = circle_points(frames, 0.6 * r, 0.5 * hs[:, None], np.pi + angles * 0.5)
    above = circle_points(frames, r + 0.12 * f, ht[:, None] + 0.12 * f, angles)
    ring = circle_points(frames, 0.8 * r, np.column_stack([hs, ht]),
                         np.linspace(0.0, 2.0 * np.pi, len(angles), endpoint=False))
    px = project_grid(view, np.concatenate([pts[:, :nb], wall, above, pts[:, nb:], ring],
                                           axis=1))
    values, valid = patch.sample(np.concatenate([px[:, : nb + 2], px[:, nb + 4:]], axis=1))
    v = values.astype(np.float64)
    ok = valid.copy()
    band_v, wall_v, bg_v = v[:, :nb], v[:, nb], v[:, nb + 1]
    piece_ref = nanmedian(np.where(ok[:, nb, :, None], wall_v, np.nan), axis=1)
    bg_ref = nanmedian(np.where(ok[:, nb + 1, :, None], bg_v, np.nan), axis=1)
    # lab_distance is written for float32 crops; on these float64 values it is the same sum.
    f32 = cast(Callable[..., FloatArray], lab_distance)
    d_ref = f32(piece_ref, bg_ref).astype(np.float64)
    d_bg = f32(band_v, bg_ref[:, None, None, :]).astype(np.float64)
    d_piece = f32(band_v, piece_ref[:, None, None, :]).astype(np.float64)
    like = (d_bg - d_piece) / (d_ref[:, None, None] + 2.0)
    like = np.where(ok[:, :nb], like, np.nan)
    band = np.nan_to_num(nanmedian(like.reshape(16, -1), axis=1))
    # Relative edge contrasts at the two heights (each cell's own scale).
    rim_s, rim_t = _interp_rows(rim, heights_m, hs), _interp_rows(rim, heights_m, ht)
    mid = hs + 0.5 * gap
    low = 0.5 * hs
    side_mid, side_low = _interp_rows(side, heights_m, mid), _interp_rows(side, heights_m, low)
    sp_s, sp_t = _interp_rows(spread, heights_m, hs), _interp_rows(spread, heights_m, ht)
    centres = px[:, nb + 2 : nb + 4].mean(axis=2)  # (16, 2, 2): far-rim centres of short and tall
    gap_px = np.linalg.norm(centres[:, 1] - centres[:, 0], axis=1)
    gap_f = gap_px / np.maximum(frames.footprint_px, 1e-6)
    # Top face against wall, in log lightness (a ratio: light and dark pieces alike).
    ring_v = np.where(ok[:, nb + 2 :, :, None], v[:, nb + 2 :], np.nan)  # (16, 2, J, 3)
    tops = cast(FloatArray, nanmedian(ring_v, axis=2))  # (16, 2, 3): short, tall
    diff = log_lightness(tops) - log_lightness(piece_ref)[:, None, :]  # (16, 2, 3)
    own = np.where((np.asarray(p_tall) >= 0.5)[:, None], diff[:, 1], diff[:, 0])
    w = np.where(np.asarray(usable) & np.all(np.isfinite(own), axis=1),
                 np.abs(2.0 * np.asarray(p_tall, np.float64) - 1.0), 0.0)
    own = np.nan_to_num(own)
    tot_w, tot = w.sum(), (w[:, None] * own).sum(axis=0)
    w_others = tot_w - w
    ref = (tot[None, :] - w[:, None] * own) / np.maximum(w_others, 1e-9)[:, None]
    err = np.linalg.norm(diff - ref[:, None, :], axis=2)  # (16, 2)
    top_like = np.where((w_others >= 1.0) & np.all(np.isfinite(err), axis=1),
                        err[:, 0] - err[:, 1], 0.0)
    top_light = np.nan_to_num(diff[:, 1, 0] - diff[:, 0, 0])
    feats = np.column_stack([
        band,
        np.log1p(np.nan_to_num(d_ref)),
        np.log((1.0 + rim_t) / (1.0 + rim_s)),
        np.log((1.0 + side_mid) / (1.0 + side_low)),
        np.log((1.0 + sp_t) / (1.0 + sp_s)),
        gap_f,
        top_like,
        top_light,
    ])
    return feats, gap_f


def guided_heights(
    score: FloatArray, heights_m: FloatArray, p_tall: FloatArray, usable: NDArray[np.bool_],
    footprint_m: float, config: ReaderConfig | None = None, min_weight: float = 2.0,
) -> tuple[FloatArray, FloatArray] | None:
    """Per cell, the set's short and tall heights that the *other* pieces' height profiles
    support best when each piece counts at the height the readers give it.

    The hand-crafted reader fits the set's two heights from its own profiles and top
    outlines alone, and on about one board in ten at 25-70 degrees its tall height is more
    than 10% off (dev renders). Here each usable piece's profile (``score``, (16, K) over
    ``heights_m``, z-scored as in ``heights.fit_heights``) supports the tall height with
    weight P(tall) (the fused readers', which are right on about 99% of these pieces) and
    the short height with weight 1 - P(tall); the pair must be a possible set (``config``'s
    tall/short ratios and short-height range). A cell's own piece is left out of its pair,
    so its own profile cannot vote for the height it is then judged at. None when the usable
    pieces weigh less than ``min_weight`` + 1 (the caller keeps the reader's fitted pair).
    Returns ((16,), (16,)) short and tall heights in metres, or None."""
    cfg = config or ReaderConfig()
    z = _normalise(score)
    wt = np.where(usable, np.asarray(p_tall, np.float64), 0.0)
    ws = np.where(usable, 1.0 - np.asarray(p_tall, np.float64), 0.0)
    if wt.sum() + ws.sum() < min_weight + 1.0:
        return None
    st = wt @ z - wt[:, None] * z  # (16, K): the others' support of each tall height
    ss = ws @ z - ws[:, None] * z
    ratio = heights_m[None, :] / heights_m[:, None]
    short_f = heights_m / footprint_m
    valid = ((ratio >= cfg.min_tall_short_ratio) & (ratio <= cfg.max_tall_short_ratio)
             & (short_f[:, None] >= cfg.min_short_f) & (short_f[:, None] <= cfg.max_short_f))
    pair = np.where(valid[None], ss[:, :, None] + st[:, None, :], -np.inf)
    best = np.argmax(pair.reshape(len(z), -1), axis=1)
    a, b = np.unravel_index(best, valid.shape)
    return heights_m[a], heights_m[b]


def band_log_odds(features: FloatArray, config: TopBandConfig) -> FloatArray:
    """(N,) log-likelihood ratio of tall against short from :func:`band_features` rows (the
    logistic model of ``config``, clipped to +-``config.clip``), before ``config.weight``."""
    x = (np.asarray(features, np.float64) - np.asarray(config.mean)) / np.asarray(config.scale)
    z = x @ np.asarray(config.coef) + config.bias
    return np.asarray(np.clip(z, -config.clip, config.clip))
