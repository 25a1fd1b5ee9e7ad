"""Cell geometry: the fast circle points against the plain formula and against one-by-one
circles."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import make_view
from vision.read.geometry import CellFrames, cell_frames, circle_points, project_grid


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


def _plain_circle_points(frames: CellFrames, radius_m: float, heights_m: np.ndarray,
                         angles_rad: np.ndarray) -> np.ndarray:
    """The straightforward formula: centre + radius * radial + height * up."""
    h = np.broadcast_to(heights_m, (16, heights_m.shape[-1]))
    radial = (np.cos(angles_rad)[None, :, None] * frames.away[:, None, :]
              + np.sin(angles_rad)[None, :, None] * frames.side[:, None, :])
    pts = frames.centers_m[:, None, None, :] + radius_m * radial[:, None, :, :]
    pts = pts + np.zeros((1, 1, 1, 3))
    return pts + h[:, :, None, None] * np.array([0.0, 0.0, 1.0])


@pytest.mark.parametrize("heights", [np.array([0.0]), np.array([-0.02, 0.0, 0.031, 0.07]),
                                     np.linspace(0.0, 0.09, 48).reshape(16, 3),
                                     np.array([0.01, np.nan])])
def test_circle_points_are_the_plain_formula_bit_for_bit(heights: np.ndarray) -> None:
    frames = cell_frames(make_view(elevation_deg=35.0), 0.72)
    angles = np.linspace(-2.0, 2.5, 6)
    for radius in (0.0, 0.0137):
        got = circle_points(frames, radius, heights, angles)
        want = _plain_circle_points(frames, radius, heights, angles)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
