"""The hole cue's inner-wall spread from the middle half of the ring
(``ReaderConfig.hole_wall_middle_spread``, session 35) and a score past the hollow range
checked without the ring's brightest samples (``ReaderConfig.hole_wall_glint_samples``,
session 36)."""

from __future__ import annotations

import numpy as np

from vision.read.config import ReaderConfig
from vision.read.top import hole_score, wall_spread

#: Low-angle fresh game 1035203, a3 (dark round tall SOLID) at 18.87 s: a glint on the rim.
GLINT = [4, 4, 4, 4, 6, 22, 31, 17, 5, 2, 3, 3, 4, 4, 4, 4]
#: The same game's dark hollow pieces: c2 (tall square) at 18.87 s and a1 (short round) at
#: 25.2 s, their walls lit along part of the ring.
PITS = [[1, 1, 1, 2, 4, 6, 11, 13, 11, 12, 8, 5, 4, 3, 1, 1],
        [0, 1, 1, 3, 4, 8, 14, 11, 5, 4, 3, 1, 1, 0, 0, 0]]


def test_a_glint_has_no_middle_spread_and_a_pit_keeps_its_own() -> None:
    glint = np.array(GLINT, float)
    assert wall_spread(glint) > 7.0  # the std: as a pit's, or more
    assert wall_spread(glint, middle=True) < 1.0
    for pit in PITS:
        assert wall_spread(np.array(pit, float), middle=True) > 2.0
    assert wall_spread(np.array(PITS, float), middle=True).shape == (2,)


def test_off_by_default_the_spread_is_the_standard_deviation() -> None:
    assert ReaderConfig().hole_wall_middle_spread is False
    ring = np.array(PITS[0], float)
    assert np.isclose(wall_spread(ring), np.std(ring))


def test_capping_the_brightest_samples_removes_a_glint_and_keeps_a_pit() -> None:
    """``ReaderConfig.hole_wall_glint_samples`` (session 36): the three brightest samples of
    the ring lowered to the fourth: the glint's spread falls to a solid top's, the pits keep
    most of theirs (their shadowed side and the breadth of their lit side)."""
    glint = np.array(GLINT, float)
    assert wall_spread(glint, glint=3) < 1.5
    for pit in PITS:
        ring = np.array(pit, float)
        assert wall_spread(ring, glint=3) > 0.45 * wall_spread(ring)
        assert wall_spread(ring, glint=3) > 1.8
    rings = np.array(PITS, float)
    assert np.allclose(wall_spread(rings, glint=3),
                       [wall_spread(np.array(p, float), glint=3) for p in PITS])
    # A ring lit along half its length keeps all of its spread: its fourth brightest
    # sample is as bright as the highlight.
    half = np.array([20.0] * 8 + [4.0] * 8)
    assert np.isclose(wall_spread(half, glint=3), wall_spread(half))


def test_the_glint_cap_is_on_past_the_hollow_range_and_zero_is_the_plain_spread() -> None:
    cfg = ReaderConfig()
    assert cfg.hole_wall_glint_samples == 3
    assert cfg.hole_wall_glint_from == 4.0
    ring = np.array(GLINT, float)
    assert np.isclose(wall_spread(ring, glint=0), np.std(ring))


#: Top lightness and centre darkening of GLINT's piece and of the two PITS (the pits' from
#: their session-35 scores: c2 6.41, a1 6.09).
TOP_L = np.array([4.6, 2.1, 9.9])
DARK = np.array([0.05, 0.11, 0.54])


def test_a_glint_past_the_hollow_range_is_no_hole_and_pits_stay_hollow() -> None:
    rings = np.array([GLINT, *PITS], float)
    off = hole_score(DARK, rings, TOP_L)
    assert np.all(off > 6.0)  # all three far past the hollow range (1.5-4)
    on = hole_score(DARK, rings, TOP_L, glint=3, glint_from=4.0)
    # the glint: within one threshold width of the hollow threshold (no evidence either way)
    cfg = ReaderConfig()
    assert on[0] < cfg.hole_darkening + cfg.hole_darkening_width
    assert np.all(on[1:] > 4.0)  # the pits: still plainly hollow
    assert np.all(on <= off)


def test_a_score_within_the_hollow_range_is_left_alone() -> None:
    """Only a score past ``glint_from`` is checked: within the range a few bright samples
    may be a glossy bore's own highlights."""
    ring = np.array([GLINT], float)
    dark = np.array([0.0])
    dim = np.array([40.0])  # the same ring on a lighter top: a modest score
    score = hole_score(dark, ring, dim)
    assert 1.5 < score[0] < 4.0
    assert np.array_equal(hole_score(dark, ring, dim, glint=3, glint_from=4.0), score)
    assert hole_score(dark, ring, dim, glint=3, glint_from=0.0)[0] < score[0]
