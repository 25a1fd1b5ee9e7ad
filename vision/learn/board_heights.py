"""Short or tall from the apparent sizes of all the tops on one board.

Seen from straight above, a tall piece differs from a short one only by perspective: its top is
nearer the camera, so it looks larger. A camera ``C`` metres above the board projects a
horizontal plane at height ``h`` onto the board plane scaled by ``C / (C - h)``; a 67 mm top
seen from 60 cm looks 6 % wider than a 37 mm top of the same width. One cell alone cannot use
this, because sets differ in width by more than that, but the round pieces of a set share one
width and the square ones another: on one board the tops of each shape fall into two size
groups.

The network measures each top's apparent width (its ``top_size`` output, in log cell-ring
diameters; ``vision.learn.dataset.encode_top_size``). This module fits the set to the
measurements of the *other* pieces on the board (width of round and square tops, short and
tall heights, weighted by the network's own P(tall) of those pieces) and asks how much better
"tall" than "short" explains a cell's own measurement. The same question asked without the
other pieces (what the network alone could know) is subtracted, so the result is only the
evidence the board adds: a log-likelihood ratio to add to the network's log-odds.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from vision.learn.config import BoardHeightConfig

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def logsumexp(a: FloatArray, axis: int) -> FloatArray:
    """log(sum(exp(a))) along ``axis``, without overflow (an all -inf slice gives -inf)."""
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return np.asarray(np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis)))


def _robust_log_likelihood(residual: FloatArray, cfg: BoardHeightConfig) -> FloatArray:
    """Log density of a size residual: Gaussian noise, or (``outlier_rate``) a wrong
    measurement anywhere in the unit log-size range the network can express."""
    sigma = cfg.size_noise
    gauss = -0.5 * (residual / sigma) ** 2 - np.log(sigma * np.sqrt(2.0 * np.pi))
    return np.asarray(np.logaddexp(np.log1p(-cfg.outlier_rate) + gauss,
                                   np.log(cfg.outlier_rate)))


@lru_cache(maxsize=8)
def _hypotheses(cfg: BoardHeightConfig, ring_diameter_m: float) -> tuple[FloatArray, ...]:
    """Grid of sets: log round width (ring diameters), log square/round width ratio, short
    and tall heights (metres); all (K,), read-only (kept between frames: one board, one
    grid)."""
    u = np.arange(np.log(cfg.width_range[0]), np.log(cfg.width_range[1]) + 1e-9, cfg.width_step)
    q = np.log(np.linspace(cfg.square_ratio_range[0], cfg.square_ratio_range[1],
                           cfg.square_ratio_steps))
    a = np.linspace(cfg.short_width_range[0], cfg.short_width_range[1], 5)
    b = np.linspace(cfg.tall_short_range[0], cfg.tall_short_range[1], 4)
    uu, qq, aa, bb = (g.ravel() for g in np.meshgrid(u, q, a, b, indexing="ij"))
    short = aa * np.exp(uu + qq) * ring_diameter_m
    grid = (uu, qq, short, short * bb)
    for g in grid:
        g.flags.writeable = False
    return grid


def board_height_evidence(
    log_size: FloatArray,
    is_square: BoolArray,
    p_tall: FloatArray,
    usable: BoolArray,
    *,
    camera_height_m: float,
    ring_diameter_m: float,
    config: BoardHeightConfig | None = None,
) -> FloatArray:
    """Log-likelihood ratio (tall vs short) that the other pieces' sizes add to each cell.

    Parameters
    ----------
    log_size : (N,) measured log apparent top width, cell-ring diameters (board-plane units).
    is_square : (N,) the shape each piece was read as (square tops are compared with square).
    p_tall : (N,) the network's P(tall) of each piece (weights the other pieces' groups).
    usable : (N,) pieces whose top was measured (occupied, top in view).
    camera_height_m : the camera centre's height above the board surface.
    ring_diameter_m : cell-ring diameter (the unit of ``log_size``).
    config : model knobs (measurement noise, ranges of sets).

    Returns
    -------
    (N,) evidence in natural log-odds; 0 for unusable cells and when the board has no other
    usable piece.

    Raises
    ------
    ValueError
        On arrays of different lengths or a ring diameter that is not positive.

    Notes
    -----
    For a set hypothesis ``theta`` (round width ``u``, square/round ratio, short height, tall
    height) a top's log size is ``u [+ log ratio] + log(C / (C - H))`` plus Gaussian noise of
    ``size_noise`` (or, at ``outlier_rate``, anything). The other pieces give the likelihood
    of each ``theta`` (each a mixture of its two heights weighted by the network's P(tall));
    the cell's evidence is the log-ratio of its marginal likelihood under tall and short,
    minus the same ratio under a flat prior on ``theta`` (what a single cell could tell
    alone).
    """
    cfg = config or BoardHeightConfig()
    s = np.asarray(log_size, np.float64)
    n = len(s)
    sq = np.asarray(is_square, bool)
    pt = np.clip(np.asarray(p_tall, np.float64), cfg.prior_floor, 1.0 - cfg.prior_floor)
    ok = np.asarray(usable, bool) & np.isfinite(s)
    if not (len(sq) == len(pt) == len(ok) == n):
        raise ValueError(f"log_size, is_square, p_tall and usable must have one length, got "
                         f"{n}, {len(sq)}, {len(pt)}, {len(ok)}")
    if ring_diameter_m <= 0:
        raise ValueError(f"ring_diameter_m must be positive, got {ring_diameter_m!r}")
    out = np.zeros(n)
    # A camera hardly above the tallest piece any set may have: no usable model of scale.
    if ok.sum() < 2 or camera_height_m <= 1.5 * cfg.tallest_m(ring_diameter_m):
        return out
    u, q, short, tall = _hypotheses(cfg, ring_diameter_m)
    cz = camera_height_m
    # Only the usable pieces are modelled: an unusable one adds 0.0 to the set's likelihood
    # and gets no evidence, so leaving its row out gives the same bits (the sum over the
    # pieces runs row by row, in order) for about half the work on a typical board.
    idx = np.flatnonzero(ok)
    s, sq, pt = s[idx], sq[idx], pt[idx]
    base = u[None, :] + np.where(sq[:, None], q[None, :], 0.0)  # (M, K)
    mu_s = base + np.log(cz / (cz - short))[None, :]
    mu_t = base + np.log(cz / (cz - tall))[None, :]
    ll_s = _robust_log_likelihood(s[:, None] - mu_s, cfg)  # (M, K)
    ll_t = _robust_log_likelihood(s[:, None] - mu_t, cfg)
    mix = np.logaddexp(np.log(pt)[:, None] + ll_t, np.log(1.0 - pt)[:, None] + ll_s)
    total = mix.sum(axis=0)  # (K,)
    alone = logsumexp(ll_t, axis=1) - logsumexp(ll_s, axis=1)  # (M,)
    others = total[None, :] - mix  # the set as the other pieces see it, per cell
    out[idx] = (logsumexp(others + ll_t, axis=1) - logsumexp(others + ll_s, axis=1)
                - alone)
    return np.clip(out, -cfg.max_evidence, cfg.max_evidence)
