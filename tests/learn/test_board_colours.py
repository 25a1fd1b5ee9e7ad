"""Board-level colour evidence: a piece is judged against the two groups the others form."""

from __future__ import annotations

import numpy as np
import pytest

from vision.learn.board_colours import board_colour_evidence, colour_coordinates
from vision.learn.config import BoardColourConfig
from vision.learn.fuse import with_board_colours

LIGHT = np.array([78.0, 4.0, 30.0])  # pale maple
DARK = np.array([45.0, 22.0, 34.0])  # stained walnut, as warm as an orange table


def board(dark: list[bool], *, seed: int = 0, noise: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([DARK if d else LIGHT for d in dark]) + rng.normal(0, noise, (len(dark), 3))


DARKS = [True, False, True, False, True, False, True]


def test_a_piece_the_reader_doubts_is_pulled_to_the_group_it_matches() -> None:
    lab = board(DARKS)
    # The reader is sure of every piece but the first, a dark one it reads as light.
    p_dark = np.array([0.2] + [0.95 if d else 0.05 for d in DARKS[1:]])
    ev = board_colour_evidence([lab], p_dark, np.ones(len(DARKS), bool))
    assert ev[0] > 3.0
    # The others are confirmed in their own groups.
    assert all((e > 0) == d for e, d in zip(ev[1:], DARKS[1:], strict=True))


def test_a_dimmer_lamp_does_not_change_the_verdict() -> None:
    lab = board(DARKS, seed=1)
    p_dark = np.array([0.5] + [0.9 if d else 0.1 for d in DARKS[1:]])
    ok = np.ones(len(DARKS), bool)
    bright = board_colour_evidence([lab], p_dark, ok)
    dim = lab.copy()
    dim[:, 0] = 0.6 * (dim[:, 0] + 10.0) - 10.0  # every surface gets 60 % of the light
    dimmed = board_colour_evidence([dim], p_dark, ok)
    assert np.all(np.sign(bright) == np.sign(dimmed))
    np.testing.assert_allclose(colour_coordinates(dim)[:, 0] - colour_coordinates(lab)[:, 0],
                               40.0 * np.log(0.6))


def test_no_evidence_without_both_groups_among_the_others() -> None:
    lab = board([True, True, True, True])
    ev = board_colour_evidence([lab], np.array([0.5, 0.95, 0.95, 0.95]), np.ones(4, bool))
    assert ev[0] == 0.0
    # A lone piece has nothing to compare with; unusable pieces neither give nor get evidence.
    assert np.all(board_colour_evidence([lab[:1]], np.array([0.5]), np.ones(1, bool)) == 0.0)
    ok = np.array([False, True, True, True])
    assert board_colour_evidence([board(DARKS[:4])], np.full(4, 0.5), ok)[0] == 0.0


def test_parts_add_up_and_unmeasured_parts_are_skipped() -> None:
    lab = board(DARKS, seed=2)
    p_dark = np.array([0.5] + [0.95 if d else 0.05 for d in DARKS[1:]])
    ok = np.ones(len(DARKS), bool)
    one = board_colour_evidence([lab], p_dark, ok)
    two = board_colour_evidence([lab, lab], p_dark, ok)
    np.testing.assert_allclose(two, 2.0 * one)
    missing = lab.copy()
    missing[0] = np.nan
    np.testing.assert_allclose(board_colour_evidence([lab, missing], p_dark, ok)[0], one[0])


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="one length"):
        board_colour_evidence([np.zeros((3, 3))], np.zeros(4), np.ones(4, bool))
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        board_colour_evidence([np.zeros((4, 2))], np.zeros(4), np.ones(4, bool))
    with pytest.raises(ValueError, match="colour_spread"):
        BoardColourConfig(colour_spread=0.0)


def test_fused_odds_take_the_evidence_and_unknown_colours_stay_unknown() -> None:
    lab = board(DARKS, seed=3)
    odds: list[dict[str, float | None]] = [
        {"color": 0.3 if i == 0 else (0.95 if d else 0.05)} for i, d in enumerate(DARKS)]
    odds.append({"color": None})
    lab = np.vstack([lab, LIGHT])
    n = len(odds)
    out = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], BoardColourConfig())
    assert out[0]["color"] is not None and out[0]["color"] > 0.5
    assert out[-1]["color"] is None
    off = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], BoardColourConfig(weight=0.0))
    assert off[0]["color"] == 0.3
    # Empty cells (P(occupied) < 0.5) and hidden pieces take no part.
    empty = with_board_colours(odds, [0.1] * n, [1.0] * n, [lab], BoardColourConfig())
    assert empty[0]["color"] == 0.3
