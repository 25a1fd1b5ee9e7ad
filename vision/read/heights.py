"""Short or tall, decided for the whole board at once.

Every set has exactly two piece heights, tall being 1.5 to 2.1 times short. Instead of
thresholding each piece's own height estimate (a neighbour standing behind a piece easily
makes its top edge look higher), the reader fits the two heights of the set to all pieces on
the board together: the pair ``(short, tall)`` with the right ratio whose better-supported
member explains each piece best. Each piece then only chooses between those two heights.

A set's heights and width do not change during a game, but one frame's few pieces choose
among nearly equal pairs by chance: a :class:`SetMemory` pools each choice's scores over every
reading of a session (``watch``), so the set's geometry is fitted once from all of them
rather than again on each frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.read.config import ReaderConfig
from vision.read.stats import median

FloatArray = NDArray[np.float64]


class SetMemory:
    """The scores of the set's geometry (footprint size, the two heights) pooled over readings.

    The hand-crafted reader chooses the set's footprint size, its short and tall heights and a
    finer scale of each by an argmax over candidates scored on the pieces in view. On a still
    scene, nearly equal candidates swap places with compression noise (fresh game 1030000 at
    44 degrees: the tall height 57, 67, 73 and 77 mm on successive reads of an unchanged board),
    and with the chosen height every piece's short/tall call and the occlusion layout behind
    it (visible shares, which cells' evidence counts) jump. The set does not change, so
    ``watch`` keeps one memory per session and each choice is the argmax of its scores pooled
    over every reading so far (:func:`fit_heights`, ``memory=``), like the learned reader's
    plane scale (``vision.learn.reader.PlaneMemory``).

    Pooled per scene, not per reading: the readings of one scene (the same pieces taking
    part, :meth:`begin`) are averaged and each scene counts once. A still board is re-read
    every half second, and those reads are one view of the same pieces, not new evidence;
    summed, a long still spell with only short pieces (which says nothing of the tall height)
    outweighed the first tall pieces for a dozen seconds (session 31, game 1029016).
    Candidates are keyed by what they are measured against (e.g. the footprint width): a
    different grid starts anew.
    """

    def __init__(self) -> None:
        self._scene: object = None
        #: per key: (sum of the past scenes' means, candidates valid in all, this scene's
        #: key, its sum, its readings)
        self._state: dict[tuple[object, ...],
                          tuple[FloatArray, NDArray[np.bool_], object, FloatArray, int]] = {}

    def begin(self, scene: object) -> None:
        """A reading of ``scene`` (e.g. the cells whose pieces take part) starts."""
        self._scene = scene

    def pool(self, key: tuple[object, ...], scores: FloatArray) -> FloatArray:
        """Add one reading's ``scores`` (``-inf`` where a candidate is invalid) under ``key``;
        return the pooled scores: the sum over scenes of each scene's mean."""
        scores = np.asarray(scores, dtype=np.float64)
        valid = np.isfinite(scores)
        finite = np.where(valid, scores, 0.0)
        state = self._state.get(key)
        if state is None or state[0].shape != scores.shape:
            past, ok, scene, now, n = np.zeros_like(finite), valid, self._scene, finite, 1
        else:
            past, ok, scene, now, n = state
            ok = ok & valid
            if scene != self._scene:
                past, scene, now, n = past + now / n, self._scene, finite, 1
            else:
                now, n = now + finite, n + 1
        self._state[key] = (past, ok, scene, now, n)
        return np.where(ok, past + now / n, -np.inf)


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
    config: ReaderConfig, memory: SetMemory | None = None, key: tuple[object, ...] = (),
    known_tall: FloatArray | None = None,
) -> HeightFit:
    """Fit the set's short and tall heights to the pieces on ``cells``.

    Parameters
    ----------
    score : (16, K) support of each candidate height for each cell (higher is better).
    heights_m : (K,) candidate heights, increasing.
    cells : (16,) the cells whose pieces take part (occupied and visible enough).
    footprint_m : nominal footprint width F.
    memory, key : with a memory, the pair is the best of this reading's scores summed with
        every earlier reading's under ``key`` (:class:`SetMemory`), and ``support`` is that
        sum's (comparable between footprint hypotheses pooled over the same readings).
    known_tall : (16,) 1 for a piece known to be tall, 0 for one known to be short, NaN where
        nothing is known (``watch``: the game record's settled pieces). A known piece on
        ``cells`` is explained by its own member of the pair instead of the better one, so
        the pair follows the pieces of known height seen in this same image (an error of the
        camera model's vertical scale moves them alike). Each cell's ``tall_probability``
        is still its own margin between the two heights.

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
    known = (np.zeros(len(z), bool) if known_tall is None
             else np.isfinite(np.asarray(known_tall, np.float64)))
    free = cells & ~known
    sel = z[free] if np.any(free) else np.zeros((0, k))
    # total[a, b] = sum over pieces of max(z[a], z[b]) (a known piece: z[a] if short, z[b]
    # if tall).
    total = np.maximum(sel[:, :, None], sel[:, None, :]).sum(axis=0)
    if known_tall is not None and np.any(cells & known):
        tall_known = cells & known & (np.nan_to_num(known_tall) >= 0.5)
        short_known = cells & known & ~tall_known
        total = total + z[short_known].sum(axis=0)[:, None] + z[tall_known].sum(axis=0)[None, :]
        sel = z[cells]
    prior = config.height_prior_weight * np.log(short_f / config.typical_short_f) ** 2
    total = total - prior[:, None] * max(1, len(sel))
    total = np.where(valid, total, -np.inf)
    if memory is not None:
        total = memory.pool(("pair", round(footprint_m, 7), k, *key), total)
    a, b = np.unravel_index(int(np.argmax(total)), total.shape)
    margin = z[:, b] - z[:, a]
    p_tall = 1.0 / (1.0 + np.exp(-margin / config.height_margin_width))
    return HeightFit(float(heights_m[a]), float(heights_m[b]), np.asarray(p_tall),
                     float(total[a, b]))
