"""The shadow-length measurement of ``benchmarks/shadow_heights.py`` (session 29): its shadow
direction, shadow end and board-group evidence on synthetic ray profiles."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "shadow_heights.py"
_spec = importlib.util.spec_from_file_location("shadow_heights", _PATH)
assert _spec is not None and _spec.loader is not None
sh = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sh)


def _board(ends_mm: list[float], direction_deg: float, depth: float = -0.6,
           exit_mm: float = 16.0) -> dict:
    """Profiles of pieces whose shadows (log-darkening ``depth``) end ``ends_mm`` from their
    feet along ``direction_deg`` (+-20 degrees wide), board level elsewhere."""
    n = len(ends_mm)
    r = sh.RR * 1000.0
    vs = np.zeros((n, sh.NT, sh.NR), np.float32)
    t0 = direction_deg / 360.0 * sh.NT
    for i, end in enumerate(ends_mm):
        for t in range(sh.NT):
            off = abs((t - t0 + sh.NT / 2) % sh.NT - sh.NT / 2) * 360.0 / sh.NT
            if off <= 20:
                vs[i, t] = np.where(r < end, depth, 0.0)
    exit_idx = np.full((n, sh.NT), round(exit_mm / (sh.STEP * 1000)))
    vs[:, :, : exit_idx[0, 0]] = np.nan
    return dict(ps=[{} for _ in range(n)], vs=vs, exit=exit_idx,
                blk=np.full((n, sh.NT), sh.NR))


def test_board_direction_finds_the_shadows_side() -> None:
    m = _board([45, 40, 60, 58], direction_deg=130)
    t = sh.board_direction(m)
    assert abs(t * 360 / sh.NT - 130) <= 360 / sh.NT


def test_piece_len_is_the_shadows_end_and_none_when_hidden() -> None:
    m = _board([45, 60, 15], direction_deg=0)
    depth = sh.board_depth(m, [0, 0])
    assert depth == pytest.approx(-0.6)
    assert sh.piece_len(m, 0, 0, depth) * sh.STEP * 1000 == pytest.approx(45, abs=1.5)
    assert sh.piece_len(m, 1, 0, depth) * sh.STEP * 1000 == pytest.approx(60, abs=1.5)
    # A shadow that ends under the piece's outline shows no end.
    assert sh.piece_len(m, 2, 0, depth) is None
    # Faint shadows on the board: no length at all.
    assert sh.piece_len(m, 0, 0, -0.05) is None


def test_evidence_compares_with_the_others_groups() -> None:
    mm = 1.0 / (sh.STEP * 1000)
    lengths = [60 * mm, 61 * mm, 40 * mm, 41 * mm, 59 * mm, 42 * mm, None]
    read = [True, True, False, False, False, True, True]  # the last two read wrong
    ev = sh.evidence(lengths, read, ["round"] * 7)
    assert ev[0] is not None and ev[0] > 0.3
    assert ev[2] is not None and ev[2] < -0.3
    assert ev[4] is not None and ev[4] > 0.3  # long: tall, whatever the reading
    assert ev[5] is not None and ev[5] < -0.3
    assert ev[6] is None  # not measured
    # No other piece of its shape: no groups, no evidence.
    assert sh.evidence([60 * mm, 40 * mm], [True, False], ["round", "square"]) == [None, None]
    # Groups closer than 3 mm: nothing to tell.
    assert sh.evidence([60 * mm, 61 * mm, 59 * mm], [True, False, True],
                       ["round"] * 3)[1] is None
    assert all(e is None or math.isfinite(e) for e in ev)
