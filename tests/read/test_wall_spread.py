"""The hole cue's inner-wall spread from the middle half of the ring
(``ReaderConfig.hole_wall_middle_spread``, session 35)."""

from __future__ import annotations

import numpy as np

from vision.read.config import ReaderConfig
from vision.read.top import wall_spread

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
