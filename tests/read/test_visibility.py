"""Occlusion masks: batched silhouettes and cropped rasterisation against the plain versions."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.read.synth import make_view
from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, cell_frames, silhouette_polygon, silhouette_polygons
from vision.read.visibility import _MASK_SCALE, OcclusionMask


@pytest.mark.parametrize(("elevation", "distance"), [(55.0, 0.55), (25.0, 0.4), (80.0, 0.3)])
def test_batched_silhouettes_are_the_single_ones(elevation: float, distance: float) -> None:
    view = make_view(elevation_deg=elevation, distance_m=distance)
    frames = cell_frames(view, 0.72)
    heights = np.random.default_rng(2).uniform(0.02, 0.08, 16)
    width = 1.1 * frames.footprint_m
    batched = silhouette_polygons(view, frames, width, heights)
    for i in range(16):
        np.testing.assert_array_equal(
            batched[i], silhouette_polygon(view, frames, i, width, float(heights[i])))
    with pytest.raises(ValueError, match="one height per cell"):
        silhouette_polygons(view, frames, width, heights[:3])


def _plain_fraction(view: BoardView, frames: CellFrames, union: np.ndarray, i: int,
                    h: float) -> tuple[np.ndarray, float]:
    """The straightforward visible fraction: whole-mask rasterisation."""
    poly = silhouette_polygon(view, frames, i, 1.1 * frames.footprint_m, h)
    own = np.zeros(union.shape, np.uint8)
    cv2.fillConvexPoly(own, np.round(poly * _MASK_SCALE).astype(np.int32), 1)
    area = int(own.sum())
    return own, (0.0 if area == 0 else 1.0 - np.count_nonzero(own & union) / area)


@pytest.mark.parametrize("prepared", [False, True])
def test_mask_matches_whole_mask_rasterisation(prepared: bool) -> None:
    # A close, low camera: silhouettes overlap and some leave the frame.
    view = make_view(elevation_deg=30.0, distance_m=0.3)
    frames = cell_frames(view, 0.72)
    heights = np.random.default_rng(3).uniform(0.03, 0.09, 16)
    mask = OcclusionMask(view, frames, heights_m=heights if prepared else None)
    union = np.zeros_like(mask.silhouette(0, float(heights[0])))
    pts = np.random.default_rng(4).uniform([-50, -50], [1330, 770], (400, 2))
    for i in np.argsort(frames.depth_m):
        h = float(heights[i])
        own, want = _plain_fraction(view, frames, union, int(i), h)
        assert mask.visible_fraction(int(i), h) == want
        np.testing.assert_array_equal(mask.silhouette(int(i), h), own)
        mask.add(int(i), h)
        union |= own
        inside = ((pts * _MASK_SCALE).round() >= 0).all(axis=1) & (
            (pts * _MASK_SCALE).round() < [union.shape[1], union.shape[0]]).all(axis=1)
        q = np.round(pts * _MASK_SCALE).astype(int)
        want_free = inside.copy()
        want_free[inside] = union[q[inside, 1], q[inside, 0]] == 0
        np.testing.assert_array_equal(mask.uncovered(pts), want_free)
    assert union.any() and not union.all()
