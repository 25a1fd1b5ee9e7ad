"""Tall or short from above by the height of each piece's near wall in the image.

Seen from high above, a tall top is only a few per cent larger than a short one
(``vision.learn.board_heights``) and lies only a few pixels from where a short top would. But
the side of the piece facing the camera's foot still shows, as a band between the board and
the top's near rim, and that band is the image of a vertical segment as high as the piece: a
tall piece's band is 1.4-2.3 times a short one's, whatever the set's width. It is measured
between two edges of the piece itself (its foot against the board and its top's near rim), so
the 2-3 mm a piece stands off its cell centre does not enter.

Per cell, the image is sampled along the line that every vertical through the cell's radial
line (from the camera's foot through the cell centre) projects onto, on a few parallel lines
across the piece's middle; the mean profile (Lab) is fitted by three constant pieces, the
board, the wall and a short stretch of the top (a hollow top's ring is narrow: its bore is
left out of the fit). The wall's length in pixels over the image length of a vertical metre
there is the piece's measured height. All the pieces of a board share a short and a tall
height: the board model (the same scheme as ``board_heights``) fits that pair to the *other*
pieces (each weighted by its fused P(tall)) and asks how much better tall than short explains
the cell's own height, less what the cell alone would say.

Session 36 (helper-36d); off by default (``LearnedReaderConfig.wall_height``).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.board_heights import logsumexp
from vision.learn.config import WallHeightConfig
from vision.learn.sampling import cell_frames

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def fit_wall(profile: FloatArray, min_len: int, max_len: int, top_len: int | None
             ) -> tuple[int, int] | None:
    """Breakpoints ``(i, j)`` of the least-squares fit of ``profile`` ((n, c) samples) by a
    constant on ``[0, i)`` (board), on ``[i, j)`` (wall) and on ``[j, n)`` (a solid top);
    with ``top_len`` (a hollow top), on ``[j, j + top_len)`` (its ring) and ``[j + top_len,
    n)`` (its bore and beyond); ``min_len <= j - i <= max_len``. None when no such pair fits
    in the profile."""
    n = len(profile)
    cs = np.vstack([np.zeros((1, profile.shape[1])), np.cumsum(profile, axis=0)])
    cs2 = np.concatenate([[0.0], np.cumsum(np.sum(profile ** 2, axis=1))])

    def sse(a: NDArray[np.int64], b: NDArray[np.int64]) -> FloatArray:
        s = cs[b] - cs[a]
        return np.asarray(cs2[b] - cs2[a] - np.sum(s ** 2, axis=-1) / np.maximum(b - a, 1))

    i_all = np.arange(2, n)
    ii, jj = np.meshgrid(i_all, i_all, indexing="ij")
    ok = (jj - ii >= min_len) & (jj - ii <= max_len) & (jj + (top_len or 2) <= n)
    if not ok.any():
        return None
    ii, jj = ii[ok], jj[ok]
    end = np.full_like(jj, n)
    rest = sse(ii, jj)
    if top_len is None:
        rest = rest + sse(jj, end)
    else:
        rest = rest + sse(jj, jj + top_len) + sse(jj + top_len, end)
    total = sse(np.zeros_like(ii), ii) + rest
    k = int(np.argmin(total))
    return int(ii[k]), int(jj[k])


def wall_heights(frame_bgr: NDArray[np.uint8], view: BoardView, measure: BoolArray,
                 hollow: BoolArray, config: WallHeightConfig,
                 widths_m: FloatArray | None = None) -> FloatArray:
    """(16,) measured height of each cell's near wall, metres (NaN where not measured:
    ``measure`` False, seen from below ``config.min_elevation_deg``, or no fit); ``hollow``
    says which tops to fit as a ring round a bore; ``widths_m`` each piece's width (NaN or
    None: ``config.nominal_width_rings``), which places the wall and the profile's start."""
    cfg = config
    frames = cell_frames(view)
    ring = view.spec.cell_diameter_m
    nominal = cfg.nominal_width_rings * ring
    h_lo, h_hi = (r * ring for r in cfg.height_range_rings)
    out = np.full(len(frames.centers), np.nan)
    hgt, wid = frame_bgr.shape[:2]
    for k in np.flatnonzero(measure):
        if np.degrees(frames.elevation_rad[k]) < cfg.min_elevation_deg:
            continue
        w = nominal
        if widths_m is not None and np.isfinite(widths_m[k]) and widths_m[k] > 0:
            w = float(widths_m[k])
        c = frames.centers[k].copy()
        u = -frames.toward[k]  # away from the camera's foot
        near = c + (-w / 2.0) * u
        up = np.array([0.0, 0.0, 1.0])
        # The profile starts on the board outside the foot, but inside the cell ring.
        outside = -min(w / 2.0 + cfg.outside_widths * w, cfg.start_max_rings * ring)
        if -outside <= w / 2.0 + 1e-4:  # a piece as wide as the ring: no board before it
            continue
        pts = np.array([near, near + h_hi * up, near + 0.01 * up,
                        c + outside * u, near + 0.01 * frames.lateral[k]])
        px = view.project(pts)
        foot, up_px = px[0], px[1] - px[0]
        length_up = float(np.linalg.norm(up_px))
        if length_up < 2.0:  # straight above: no wall in view
            continue
        d = up_px / length_up
        vpm = float(np.linalg.norm(px[2] - foot)) / 0.01  # pixels per vertical metre
        ppm = float(np.linalg.norm(px[3] - foot)) / (-outside - w / 2.0)  # radial
        across = float(np.linalg.norm(px[4] - foot)) / 0.01
        start = float(np.dot(px[3] - foot, d))  # negative: outside the foot
        top_px = cfg.top_length_widths * w * ppm
        end = length_up + top_px + 1.0
        t = np.arange(start, end, cfg.step_px)
        if start >= 0.0 or len(t) < 8:
            continue
        perp = np.array([-d[1], d[0]])
        xs = np.linspace(-cfg.cross_share, cfg.cross_share, cfg.cross_lines) * (w / 2.0) * across
        grid = (foot[None, None, :] + t[None, :, None] * d[None, None, :]
                + xs[:, None, None] * perp[None, None, :]).astype(np.float32)
        if (grid[..., 0].min() < 0 or grid[..., 1].min() < 0 or grid[..., 0].max() > wid - 1
                or grid[..., 1].max() > hgt - 1):
            continue
        bgr = cv2.remap(frame_bgr, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR)
        lab = cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
        profile = np.mean(lab, axis=0).astype(np.float64)
        fit = fit_wall(profile, max(int(h_lo * vpm / cfg.step_px), 2),
                       int(h_hi * vpm / cfg.step_px) + 1,
                       max(round(top_px / cfg.step_px), 2) if hollow[k] else None)
        if fit is None:
            continue
        out[k] = (fit[1] - fit[0]) * cfg.step_px / vpm
    return out


def _robust(residual: FloatArray, cfg: WallHeightConfig, span: float) -> FloatArray:
    sigma = cfg.log_noise
    gauss = -0.5 * (residual / sigma) ** 2 - np.log(sigma * np.sqrt(2.0 * np.pi))
    return np.asarray(np.logaddexp(np.log1p(-cfg.outlier_rate) + gauss,
                                   np.log(cfg.outlier_rate / span)))


@lru_cache(maxsize=8)
def _sets(cfg: WallHeightConfig, ring_m: float) -> tuple[FloatArray, FloatArray]:
    """Log short and log tall heights (metres) of every set hypothesis, (K,) each."""
    lo, hi = (np.log(r * ring_m) for r in cfg.short_range_rings)
    short = np.arange(lo, hi + 1e-9, cfg.short_log_step)
    ratio = np.log(np.linspace(cfg.tall_short_range[0], cfg.tall_short_range[1],
                               cfg.tall_short_steps))
    ss, rr = (g.ravel() for g in np.meshgrid(short, ratio, indexing="ij"))
    return ss, ss + rr


def wall_height_evidence(heights_m: FloatArray, p_tall: FloatArray, ring_m: float,
                         config: WallHeightConfig) -> FloatArray:
    """(N,) log-likelihood ratio (tall vs short) the board's measured wall heights give each
    cell (0 where not measured, or no other piece was measured): the set's short and tall
    heights fitted to the other pieces, less what the cell alone would say."""
    cfg = config
    h = np.asarray(heights_m, np.float64)
    out = np.zeros(len(h))
    ok = np.isfinite(h) & (h > 0)
    if ok.sum() < 2:
        return out
    idx = np.flatnonzero(ok)
    x = np.log(h[idx])
    pt = np.clip(np.asarray(p_tall, np.float64)[idx], cfg.prior_floor, 1.0 - cfg.prior_floor)
    log_s, log_t = _sets(cfg, ring_m)
    span = float(np.log(cfg.height_range_rings[1] / cfg.height_range_rings[0]))
    ll_s = _robust(x[:, None] - log_s[None, :], cfg, span)
    ll_t = _robust(x[:, None] - log_t[None, :], cfg, span)
    mix = np.logaddexp(np.log(pt)[:, None] + ll_t, np.log(1.0 - pt)[:, None] + ll_s)
    others = mix.sum(axis=0)[None, :] - mix
    alone = logsumexp(ll_t, 1) - logsumexp(ll_s, 1)
    out[idx] = logsumexp(others + ll_t, 1) - logsumexp(others + ll_s, 1) - alone
    return np.clip(out, -cfg.max_evidence, cfg.max_evidence)
