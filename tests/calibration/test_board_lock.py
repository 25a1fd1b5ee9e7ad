from __future__ import annotations

import numpy as np
import pytest

from calibration.board_lock import order_corners, parse_corners


def test_parse_corners_accepts_pairs_and_flat_lists():
    a = parse_corners("1,2 3,4 5,6 7,8")
    b = parse_corners("1 2 3 4 5 6 7 8")
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 2)


@pytest.mark.parametrize("text", ["1,2 3,4", "a,b c,d e,f g,h", ""])
def test_parse_corners_rejects_bad_text(text):
    with pytest.raises(ValueError, match="corners"):
        parse_corners(text)


def test_order_corners_goes_round_the_board():
    sq = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    shuffled = sq[[2, 0, 3, 1]]
    out = order_corners(shuffled)
    np.testing.assert_array_equal(out[0], [0.0, 0.0])
    # Consecutive corners are neighbours (no diagonal steps).
    steps = np.linalg.norm(np.roll(out, -1, axis=0) - out, axis=1)
    np.testing.assert_allclose(steps, 10.0)
