"""Board-level height evidence from apparent top sizes, and the ``top_size`` target."""

from __future__ import annotations

import numpy as np
import pytest

from tests.learn.test_cnn import random_model
from tests.learn.test_sampling import make_view
from vision.learn.board_heights import board_height_evidence
from vision.learn.config import BoardHeightConfig, LearnedReaderConfig
from vision.learn.dataset import (
    TOP_SIZE_LOG_RANGE,
    apparent_top_log_size,
    decode_top_size,
    encode_top_size,
)
from vision.learn.patches import PatchConfig
from vision.learn.reader import read_cells_learned

RING = 0.0445  # cell-ring diameter, metres


def board(
    tall: np.ndarray, square: np.ndarray, *, camera_m: float, noise: float, seed: int = 0
) -> np.ndarray:
    """Measured log sizes of a set 0.62 rings wide, short 1.2 widths, tall 1.8 shorts."""
    width = 0.62 * RING
    short, high = 1.2 * width, 1.2 * 1.8 * width
    rng = np.random.default_rng(seed)
    return np.array([
        apparent_top_log_size(width * (0.96 if q else 1.0), high if t else short, camera_m, RING)
        for t, q in zip(tall, square, strict=True)
    ]) + rng.normal(0.0, noise, len(tall))


TALL = np.array([1, 0, 1, 0, 0, 1, 0, 1, 1, 0], bool)
SQUARE = np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 1], bool)


def test_tops_larger_than_the_others_are_tall() -> None:
    sizes = board(TALL, SQUARE, camera_m=0.6, noise=0.008)
    ev = board_height_evidence(sizes, SQUARE, np.full(10, 0.5), np.ones(10, bool),
                               camera_height_m=0.6, ring_diameter_m=RING,
                               config=BoardHeightConfig(size_noise=0.015))
    assert np.all((ev > 0.5) == TALL) and np.all((ev < -0.5) == ~TALL)


def test_no_evidence_without_perspective_or_without_other_pieces() -> None:
    usable = np.ones(10, bool)
    far = board(TALL, SQUARE, camera_m=500.0, noise=0.0)
    ev = board_height_evidence(far, SQUARE, np.full(10, 0.5), usable, camera_height_m=500.0,
                               ring_diameter_m=RING)
    assert np.all(np.abs(ev) < 0.05)  # from 500 m every top looks the same size
    near = board(TALL, SQUARE, camera_m=0.6, noise=0.0)
    one = np.zeros(10, bool)
    one[3] = True
    ev = board_height_evidence(near, SQUARE, np.full(10, 0.5), one, camera_height_m=0.6,
                               ring_diameter_m=RING)
    assert np.all(ev == 0.0)
    usable[4] = False
    ev = board_height_evidence(near, SQUARE, np.full(10, 0.5), usable, camera_height_m=0.6,
                               ring_diameter_m=RING)
    assert ev[4] == 0.0 and np.any(ev != 0.0)


def test_equal_tops_say_nothing_about_which_height() -> None:
    sizes = np.full(6, np.log(0.65))
    square = np.zeros(6, bool)
    ev = board_height_evidence(sizes, square, np.full(6, 0.5), np.ones(6, bool),
                               camera_height_m=0.6, ring_diameter_m=RING)
    assert np.all(np.abs(ev) < 0.5)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        board_height_evidence(np.zeros(3), np.zeros(2, bool), np.zeros(3), np.ones(3, bool),
                              camera_height_m=0.6, ring_diameter_m=RING)
    with pytest.raises(ValueError, match="ring_diameter_m"):
        board_height_evidence(np.zeros(3), np.zeros(3, bool), np.zeros(3), np.ones(3, bool),
                              camera_height_m=0.6, ring_diameter_m=0.0)
    with pytest.raises(ValueError, match="size_noise"):
        BoardHeightConfig(size_noise=0.0)
    with pytest.raises(ValueError, match="tall_short_range"):
        BoardHeightConfig(tall_short_range=(2.0, 1.5))


def test_top_size_scale_round_trip_and_perspective() -> None:
    lo, hi = TOP_SIZE_LOG_RANGE
    x = np.linspace(lo, hi, 7)
    assert np.allclose(decode_top_size(encode_top_size(x)), x)
    assert encode_top_size(hi + 1.0) == 1.0
    short = apparent_top_log_size(0.03, 0.037, 0.6, RING)
    tall = apparent_top_log_size(0.03, 0.067, 0.6, RING)
    assert tall - short == pytest.approx(np.log(0.563 / 0.533), abs=1e-3)
    with pytest.raises(ValueError, match="camera height"):
        apparent_top_log_size(0.03, 0.7, 0.6, RING)


def test_reader_with_a_size_output_gives_probabilities() -> None:
    view = make_view()
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 255, (360, 640, 3), dtype=np.uint8)
    model = random_model(PatchConfig())
    on = read_cells_learned(frame, view, model=model)
    off = read_cells_learned(frame, view, model=model, config=LearnedReaderConfig(
        board_heights=BoardHeightConfig(weight=0.0)))
    for a, b in zip(on.cells, off.cells, strict=True):
        assert a.occupied_probability == b.occupied_probability
        for p in a.attribute_probability.values():
            assert p is None or 0.0 <= p <= 1.0


def test_pieces_of_known_height_weigh_the_groups_at_that_height() -> None:
    """``watch``: the game record's heights, not the network's doubtful P(tall), put the
    other pieces in the short or the tall group (``_with_board_heights``, ``known_tall``)."""
    from types import SimpleNamespace

    from vision.learn.reader import _with_board_heights

    camera_m = 0.5
    # Every piece tall: from the sizes alone they could as well be all short.
    tall = np.ones(6, bool)
    square = np.zeros(6, bool)
    sizes = board(tall, square, camera_m=camera_m, noise=0.0)
    n = 16
    names = ("occupied", "height", "shape", "top_visible", "visible", "top_size")
    col = {name: i for i, name in enumerate(names)}
    prob = np.full((n, len(names)), 0.01)
    raw = np.zeros((n, len(names)), np.float32)
    prob[:6, col["occupied"]] = prob[:6, col["top_visible"]] = prob[:6, col["visible"]] = 0.99
    prob[:6, col["height"]] = 0.5  # the network cannot tell
    raw[:6, col["top_size"]] = encode_top_size(sizes)
    view = SimpleNamespace(camera=SimpleNamespace(pose=SimpleNamespace(
        camera_center=np.array([0.0, 0.0, camera_m]))), spec=SimpleNamespace(
        cell_diameter_m=RING))
    cfg = LearnedReaderConfig()
    alone = _with_board_heights(raw, prob, col, view, cfg)  # type: ignore[arg-type]
    known = np.full(n, np.nan)
    known[1:6] = tall[1:6]
    anchored = _with_board_heights(raw, prob, col, view, cfg, known)  # type: ignore[arg-type]
    wrong = np.full(n, np.nan)
    wrong[1:6] = ~tall[1:6]
    misled = _with_board_heights(raw, prob, col, view, cfg, wrong)  # type: ignore[arg-type]
    # Cell 0 is as large as the pieces known to be tall: the record makes it tall.
    assert anchored[0] > alone[0] + 0.05
    assert anchored[0] > 0.6
    assert misled[0] < alone[0] - 0.05
    # Its own P(tall) is still the network's where the board says nothing new.
    np.testing.assert_allclose(anchored[6:], prob[6:, col["height"]])
    unknown = _with_board_heights(raw, prob, col, view, cfg,  # type: ignore[arg-type]
                                  np.full(n, np.nan))
    np.testing.assert_array_equal(unknown, alone)
