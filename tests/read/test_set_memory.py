"""The set's geometry (footprint size, two heights) pooled over the readings of a session
(``vision.read.heights.SetMemory``): a still scene keeps one geometry from frame to frame."""

from __future__ import annotations

import numpy as np

from tests.read.synth import make_view, paint
from tests.read.test_reader_synthetic import SCENE
from vision.read.config import ReaderConfig
from vision.read.heights import SetMemory, fit_heights
from vision.read.reader import measure_cells


def _geometry(image: np.ndarray, memory: SetMemory | None) -> tuple[float, float, float]:
    feats = measure_cells(image, VIEW, memory=memory)
    return (round(feats.frames.footprint_m, 6), round(feats.heights.short_m, 6),
            round(feats.heights.tall_m, 6))


VIEW = make_view(elevation_deg=44.0)


def _still_frames(n: int = 6) -> list[np.ndarray]:
    """One board seen ``n`` times, the frames differing by sensor noise only."""
    base = paint(VIEW, SCENE, seed=0).astype(np.float64)
    frames = []
    for seed in range(n):
        noise = np.random.default_rng(seed).normal(0.0, 6.0, base.shape)
        frames.append(np.clip(base + noise, 0, 255).astype(np.uint8))
    return frames


def test_a_still_scene_keeps_one_set_geometry() -> None:
    frames = _still_frames()
    # One frame's own fit swaps to a nearly equal footprint size and pair of heights on noise
    # alone (the flip seen on fresh game 1030000, where it moved every piece's short/tall
    # call and the occlusion layout behind them).
    alone = {_geometry(frame, None) for frame in frames}
    assert len(alone) > 1
    memory = SetMemory()
    pooled = [_geometry(frame, memory) for frame in frames]
    assert len(set(pooled)) == 1
    assert pooled[0] == _geometry(frames[0], None)


def test_fit_heights_chooses_on_the_pooled_scores() -> None:
    cfg = ReaderConfig()
    footprint = 0.03
    heights = np.linspace(cfg.min_height_f * footprint, cfg.max_height_f * footprint,
                          cfg.n_heights)
    short_i = int(np.argmin(np.abs(heights - 1.2 * footprint)))
    tall_i = int(np.argmin(np.abs(heights - 2.2 * footprint)))
    cells = np.zeros(16, bool)
    cells[:6] = True

    def scores(tall_at: int) -> np.ndarray:
        idx = np.arange(len(heights))
        s = np.zeros((16, len(heights)))
        s[[0, 1, 2]] = 20.0 - 2.0 * np.abs(idx - short_i)
        s[[3, 4, 5]] = 20.0 - 2.0 * np.abs(idx - tall_at)
        return s

    memory = SetMemory()
    first = fit_heights(scores(tall_i), heights, cells, footprint, cfg, memory)
    step = heights[1] - heights[0]  # a candidate's neighbours score alike (a tolerance)
    assert abs(first.tall_m - heights[tall_i]) <= step + 1e-12
    fit_heights(scores(tall_i), heights, cells, footprint, cfg, memory)
    # A reading whose tall pieces fit a higher candidate: alone it moves the set's height,
    # pooled with the two before it does not (they outweigh it), and its pieces stay tall.
    other = scores(tall_i + 3)
    alone = fit_heights(other, heights, cells, footprint, cfg)
    assert alone.tall_m >= heights[tall_i + 2] - 1e-12
    pooled = fit_heights(other, heights, cells, footprint, cfg, memory)
    assert pooled.short_m == first.short_m
    assert abs(pooled.tall_m - heights[tall_i]) <= step + 1e-12
    assert np.all(pooled.tall_probability[3:6] > 0.5)
    # A different grid (another footprint width) is its own sum.
    fresh = fit_heights(other, heights, cells, 0.031, cfg, memory)
    assert fresh.tall_m == fit_heights(other, heights, cells, 0.031, cfg).tall_m


def test_the_reads_of_one_scene_count_once() -> None:
    """A still board re-read many times is one view of the same pieces: its reads are
    averaged, and a later scene that disagrees weighs as much as the whole still spell."""
    memory = SetMemory()
    a = np.array([[0.0, 1.0], [-np.inf, 0.0]])
    b = np.array([[0.0, 0.0], [-np.inf, 2.0]])
    memory.begin("three short pieces")
    for _ in range(20):
        pooled = memory.pool(("k",), a)
    np.testing.assert_allclose(pooled, a)
    memory.begin("a tall piece came")
    pooled = memory.pool(("k",), b)
    np.testing.assert_allclose(pooled, a + b)
    assert np.unravel_index(int(np.argmax(pooled)), pooled.shape) == (1, 1)
    pooled = memory.pool(("k",), 3.0 * b)  # this scene again: its mean, 2 b
    np.testing.assert_allclose(pooled, a + 2.0 * b)
    # A candidate invalid in any reading stays invalid.
    assert pooled[1, 0] == -np.inf


def test_pieces_of_known_height_anchor_the_pair() -> None:
    """Two pieces whose tops look equally high are one height; which one, a single image
    cannot say under a camera model whose vertical scale is off. A piece known (the game
    record) to be tall or short decides it for the other."""
    cfg = ReaderConfig()
    footprint = 0.03
    heights = np.linspace(cfg.min_height_f * footprint, cfg.max_height_f * footprint,
                          cfg.n_heights)
    peak = int(np.argmin(np.abs(heights - 1.5 * footprint)))
    idx = np.arange(len(heights))
    score = np.zeros((16, len(heights)))
    score[[0, 1]] = 20.0 - 2.0 * np.abs(idx - peak)
    score[1] += 0.01 * idx  # not an exact copy of piece 0
    cells = np.zeros(16, bool)
    cells[[0, 1]] = True
    unknown = np.full(16, np.nan)
    as_tall, as_short = unknown.copy(), unknown.copy()
    as_tall[0], as_short[0] = 1.0, 0.0
    tall = fit_heights(score, heights, cells, footprint, cfg, known_tall=as_tall)
    short = fit_heights(score, heights, cells, footprint, cfg, known_tall=as_short)
    assert tall.tall_probability[1] > 0.5 > short.tall_probability[1]
    assert abs(tall.tall_m - heights[peak]) <= heights[1] - heights[0] + 1e-12
    assert abs(short.short_m - heights[peak]) <= heights[1] - heights[0] + 1e-12
    # Nothing known is the fit without anchors.
    free = fit_heights(score, heights, cells, footprint, cfg)
    same = fit_heights(score, heights, cells, footprint, cfg, known_tall=unknown)
    assert (free.short_m, free.tall_m) == (same.short_m, same.tall_m)
    np.testing.assert_array_equal(free.tall_probability, same.tall_probability)
