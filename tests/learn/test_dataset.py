"""Board poses jittered the way the finder errs (``vision.learn.dataset``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.learn.test_sampling import make_view
from vision.learn.dataset import JitterConfig, jitter_view, refocus_view, view_elevation_deg


@pytest.mark.parametrize("elevation", [30.0, 55.0, 85.0])
def test_view_elevation_is_the_cameras(elevation: float) -> None:
    assert view_elevation_deg(make_view(elevation)) == pytest.approx(elevation, abs=1e-6)


def test_refocus_keeps_the_board_plane_and_moves_what_stands_above_it() -> None:
    view = make_view(85.0)
    wrong = refocus_view(view, 1.1)
    assert wrong.camera.intrinsics.fx == pytest.approx(1.1 * view.camera.intrinsics.fx)
    g = np.linspace(-0.12, 0.12, 5)
    plane = np.array([[x, y, 0.0] for x in g for y in g])
    tops = plane + np.array([0.0, 0.0, 0.06])
    plane_moves = np.linalg.norm(wrong.project(plane) - view.project(plane), axis=1)
    top_moves = np.linalg.norm(wrong.project(tops) - view.project(tops), axis=1)
    assert plane_moves.max() < 0.3
    # A top at a cell's corner is seen from further off the axis: it moves by pixels.
    assert top_moves.max() > 1.0
    assert top_moves.max() > 5 * plane_moves.max()


def test_focal_jitter_grows_with_elevation_and_is_off_by_default() -> None:
    cfg = JitterConfig(focal_log_scale_low=0.01, focal_log_scale_top=0.05)

    def focal_errors(view, config: JitterConfig) -> np.ndarray:
        rng = np.random.default_rng(0)
        f0 = view.camera.intrinsics.fx
        return np.array([np.log(jitter_view(view, rng, config).camera.intrinsics.fx / f0)
                         for _ in range(200)])

    low, high = make_view(40.0), make_view(88.0)
    assert np.all(focal_errors(high, JitterConfig()) == 0.0)
    spread_low = np.median(np.abs(focal_errors(low, cfg)))
    spread_high = np.median(np.abs(focal_errors(high, cfg)))
    # Laplace of scale b: median |x| = b ln 2.
    assert spread_low == pytest.approx(0.01 * np.log(2), rel=0.25)
    assert spread_high == pytest.approx(0.05 * np.log(2) * 0.95, rel=0.25)


def test_default_jitter_draws_as_before() -> None:
    """No focal error asked: nothing more is drawn from the generator than the six pose
    errors, so the training views of earlier networks are reproduced."""
    view = make_view(70.0)
    rng_a = np.random.default_rng(5)
    jittered = jitter_view(view, rng_a, JitterConfig())
    rng_b = np.random.default_rng(5)
    for _ in range(6):
        rng_b.normal()
    assert rng_a.random() == rng_b.random()
    assert jittered.camera.intrinsics == view.camera.intrinsics
