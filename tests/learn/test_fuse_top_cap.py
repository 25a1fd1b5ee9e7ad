"""The hand-crafted reader's top-face odds may be bounded before fusion
(``LearnedReaderConfig.fused_hand_top_max_nats``, session 35; off by default)."""

from __future__ import annotations

import math

from vision.learn.config import LearnedReaderConfig
from vision.learn.fuse import HAND_LEARNED_WEIGHTS, _fused_odds
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS


def _observation(odds: dict[str, float]) -> Observation:
    cells = [CellReading(cell, (0.0, 0.0), 0.99 if k == 0 else 0.01,
                         dict(odds) if k == 0 else {}, 1.0, None)
             for k, cell in enumerate(ALL_CELLS)]
    return Observation(tuple(cells))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def test_a_saturated_hand_top_does_not_outvote_the_network() -> None:
    # Fresh low-angle game 1035203, a3 (dark round tall solid, in full view): a glint on
    # the dark glossy top gave the hand-crafted hole cue 9.4 (odds at the 1e-4 floor,
    # hollow); the network read solid at 0.28. Unbounded, 0.2 x 9.2 nats outweighed
    # 0.8 x 0.95 and the top was recorded hollow.
    hand = _observation({"color": 0.98, "shape": 0.41, "height": 0.60, "top": 1.0})
    learned = _observation({"color": 0.99, "shape": 0.01, "height": 0.99, "top": 0.28})
    # Off by default: the bound also undoes a real pit read by the hole cue alone (1035208).
    assert LearnedReaderConfig().fused_hand_top_max_nats == 0.0
    _, odds = _fused_odds(hand, learned, HAND_LEARNED_WEIGHTS, 3.0)
    assert odds[0]["top"] is not None and odds[0]["top"] < 0.5
    _, unbounded = _fused_odds(hand, learned, HAND_LEARNED_WEIGHTS)
    assert unbounded[0]["top"] is not None and unbounded[0]["top"] > 0.7


def test_only_the_top_face_attributes_are_bounded() -> None:
    hand = _observation({"color": 1.0, "shape": 0.9, "height": 1.0, "top": 0.9})
    learned = _observation({"color": 0.5, "shape": 0.5, "height": 0.5, "top": 0.5})
    _, odds = _fused_odds(hand, learned, HAND_LEARNED_WEIGHTS, 3.0)
    w = HAND_LEARNED_WEIGHTS[0]
    # colour and height keep the hand's full odds; shape and top under the bound keep theirs
    assert _logit(odds[0]["color"]) > w * 9.0
    assert _logit(odds[0]["height"]) > w * 9.0
    assert math.isclose(_logit(odds[0]["top"]), w * _logit(0.9), rel_tol=1e-6)
    assert math.isclose(_logit(odds[0]["shape"]), w * _logit(0.9), rel_tol=1e-6)
