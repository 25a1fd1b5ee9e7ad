"""Cell geometry: circles with one radius per angle are the circles drawn one by one."""

from __future__ import annotations

import numpy as np

from tests.read.synth import make_view
from vision.read.geometry import cell_frames, circle_points, project_grid


def test_circles_with_per_angle_radii_are_the_single_circles() -> None:
    view = make_view(elevation_deg=40.0)
    frames = cell_frames(view, 0.72)
    heights = np.linspace(0.01, 0.08, 7)
    a1 = np.linspace(-1.2, 1.2, 9)
    a2 = np.array([np.pi / 2.0, -np.pi / 2.0])
    r1, r2 = 0.011, 0.019
    together = circle_points(frames, np.repeat([r1, r2], [len(a1), len(a2)]), heights,
                             np.concatenate([a1, a2]))
    apart = np.concatenate([circle_points(frames, r1, heights, a1),
                            circle_points(frames, r2, heights, a2)], axis=2)
    assert together.shape == (16, 7, 11, 3)
    np.testing.assert_array_equal(together, apart)
    # Projected together or apart: the same pixels.
    np.testing.assert_array_equal(
        project_grid(view, together),
        np.concatenate([project_grid(view, circle_points(frames, r1, heights, a1)),
                        project_grid(view, circle_points(frames, r2, heights, a2))], axis=2))
    # Every point is at its radius from the cell's axis, at its height.
    d = np.linalg.norm(together[..., :2] - frames.centers_m[:, None, None, :2], axis=-1)
    np.testing.assert_allclose(d[..., :9], r1, rtol=1e-12)
    np.testing.assert_allclose(d[..., 9:], r2, rtol=1e-12)
    np.testing.assert_allclose(together[..., 2], np.broadcast_to(heights[None, :, None],
                                                                 (16, 7, 11)))
