"""Short or tall, decided for the whole board at once.

Every set has exactly two piece heights, tall being 1.5 to 2.1 times short. Instead of
thresholding each piece's own height estimate (a neighbour standing behind a piece easily
makes its top edge look higher), the reader fits the two heights of the set to all pieces on
the board together: the pair ``(short, tall)`` with the right ratio whose better-supported
member explains each piece best. Each piece then only chooses between those two heights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.read.config import ReaderConfig
from vision.read.stats import median

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class HeightFit:
    """The set's two heights (metres) and, per cell, the probability of being tall."""

    short_m: float
    tall_m: float
    tall_probability: FloatArray  # (16,)
    support: float = 0.0  # total fitted support (comparable between footprint hypotheses)

    def height_of(self, cell_index: int) -> float:
        """The more likely of the two heights for one cell."""
        return self.tall_m if self.tall_probability[cell_index] >= 0.5 else self.short_m


def _normalise(score: FloatArray) -> FloatArray:
    """Each cell's height support as a z-score over candidate heights, with a tolerance of one
    candidate step (pieces sit a few millimetres off centre)."""
    padded = np.pad(score, ((0, 0), (1, 1)), mode="edge")
    smooth = np.maximum(np.maximum(padded[:, :-2], padded[:, 2:]), score)
    med = median(smooth, axis=1, keepdims=True)
    spread = np.std(smooth, axis=1, keepdims=True) + 3.0
    return np.asarray((smooth - med) / spread)


def fit_heights(
    score: FloatArray, heights_m: FloatArray, cells: NDArray[np.bool_], footprint_m: float,
    config: ReaderConfig,
) -> HeightFit:
    """Fit the set's short and tall heights to the pieces on ``cells``.

    Parameters
    ----------
    score : (16, K) support of each candidate height for each cell (higher is better).
    heights_m : (K,) candidate heights, increasing.
    cells : (16,) the cells whose pieces take part (occupied and visible enough).
    footprint_m : nominal footprint width F.

    Notes
    -----
    A weak prior keeps the short height near ``typical_short_f`` F, so a lone piece is judged
    against the typical set; with several pieces of both heights their evidence dominates.
    """
    z = _normalise(score)
    k = len(heights_m)
    ratio = heights_m[None, :] / heights_m[:, None]
    short_f = heights_m / footprint_m
    valid = (
        (ratio >= config.min_tall_short_ratio)
        & (ratio <= config.max_tall_short_ratio)
        & (short_f[:, None] >= config.min_short_f)
        & (short_f[:, None] <= config.max_short_f)
    )
    sel = z[cells] if np.any(cells) else np.zeros((0, k))
    # total[a, b] = sum over pieces of max(z[a], z[b]).
    total = np.maximum(sel[:, :, None], sel[:, None, :]).sum(axis=0)
    prior = config.height_prior_weight * np.log(short_f / config.typical_short_f) ** 2
    total = total - prior[:, None] * max(1, len(sel))
    total = np.where(valid, total, -np.inf)
    a, b = np.unravel_index(int(np.argmax(total)), total.shape)
    margin = z[:, b] - z[:, a]
    p_tall = 1.0 / (1.0 + np.exp(-margin / config.height_margin_width))
    return HeightFit(float(heights_m[a]), float(heights_m[b]), np.asarray(p_tall),
                     float(total[a, b]))
