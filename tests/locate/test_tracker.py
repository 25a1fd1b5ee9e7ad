"""BoardTracker on synthetic frame sequences: still camera, a bump, a hand."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.locate.synth import draw_board, make_view
from vision.locate import BoardTracker, TrackerConfig


def _still_frames(n: int, seed: int = 0):
    view = make_view(45.0, 40.0)
    base = draw_board(view, seed=seed, noise=0.0)
    rng = np.random.default_rng(seed)
    return view, [np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8)
                  for _ in range(n)]


def test_still_camera_is_found_once_and_kept():
    _, frames = _still_frames(6)
    tracker = BoardTracker()
    first = tracker.update(frames[0], 0.0)
    assert first
    for k, f in enumerate(frames[1:], 1):
        res = tracker.update(f, k / 15.0)
        assert res is first  # the same pose object: no new search
    assert tracker.searches == 1


def test_bump_is_recovered_on_the_next_frame():
    view = make_view(45.0, 40.0)
    bumped = make_view(47.0, 43.0, target=(0.02, -0.01))
    a, b = draw_board(view, seed=1), draw_board(bumped, seed=2)
    tracker = BoardTracker()
    assert tracker.update(a, 0.0)
    res = tracker.update(b, 1 / 15.0)
    assert res
    assert tracker.searches == 2
    c_true = bumped.cell_centers_px()
    c_found = res.cell_centers_px()
    d = np.linalg.norm(c_true[:, None] - c_found[None], axis=2).min(axis=1)
    assert np.median(d) < 3.0


def test_hand_over_the_board_keeps_the_pose_while_the_camera_is_still():
    view = make_view(45.0, 40.0)
    clean = draw_board(view, seed=1)
    hand = clean.copy()
    centre = view.project(np.zeros((1, 3)))[0]
    cv2.circle(hand, (int(centre[0]), int(centre[1])), 140, (120, 150, 210), -1)
    tracker = BoardTracker(TrackerConfig(max_low_support_s=0.2))
    first = tracker.update(clean, 0.0)
    assert first
    for k in range(1, 8):  # 0.47 s of hand
        assert tracker.update(hand, k / 15.0)
    assert tracker.update(clean, 0.6) is not None


def test_injected_finder_and_lost_board():
    calls = []

    def finder(frame, **kwargs):
        from vision.geometry.board_view import BoardNotFound

        calls.append(1)
        return BoardNotFound("nothing here")

    tracker = BoardTracker(TrackerConfig(retry_interval_s=0.5), finder=finder)
    blank = np.zeros((360, 640, 3), np.uint8)
    assert not tracker.update(blank, 0.0)
    assert not tracker.update(blank, 0.1)  # within the retry interval: no search
    assert not tracker.update(blank, 0.7)
    assert len(calls) == 2


@pytest.mark.parametrize("kwargs", [{"thumb_width_px": 8}, {"max_shift_px": 0.0}])
def test_config_validation(kwargs):
    with pytest.raises(ValueError):
        TrackerConfig(**kwargs)
