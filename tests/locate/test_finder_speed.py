"""Faster forms of finder steps give the same numbers as the straightforward ones."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate.fit import EdgeConfig
from vision.locate.verify import ring_support, ring_support_radii

#: A 4x4 grid seen in perspective (grid -> pixels), pitch about 40 px.
H_GRID = np.array([[40.3, 10.1, 300.7], [-3.3, 25.9, 200.1], [0.00041, 0.00093, 1.0]])


def _ring_image(seed: int = 0) -> np.ndarray:
    """Smoothed grey image of the grid's rings (radius 0.42 pitch) over noise."""
    rng = np.random.default_rng(seed)
    image = rng.normal(120.0, 6.0, (480, 640)).astype(np.float32)
    a = np.linspace(0.0, 2.0 * np.pi, 200, endpoint=False)
    circle = 0.42 * np.column_stack([np.cos(a), np.sin(a)])
    for n in range(4):
        for m in range(4):
            p = np.column_stack([m + circle[:, 0], n + circle[:, 1], np.ones(len(a))]) @ H_GRID.T
            pts = np.round(p[:, :2] / p[:, 2:3]).astype(np.int32)
            cv2.polylines(image, [pts], True, 40.0, 2)
    return cv2.GaussianBlur(image, (0, 0), 1.2)


@pytest.mark.parametrize("shape", ["circle", "square"])
def test_ring_support_over_radii_equals_one_radius_at_a_time(shape):
    image = _ring_image()
    radii = np.linspace(0.34, 0.53, 10)
    edge = EdgeConfig(shape=shape)
    plain = [ring_support(image, H_GRID, float(r), edge, tol_px=2.0) for r in radii]
    batched = ring_support_radii(image, H_GRID, radii, edge, tol_px=2.0)
    assert batched.tolist() == plain
    if shape == "circle":
        # The drawn radius has the most support (the test image is what it claims).
        assert abs(radii[int(np.argmax(batched))] - 0.42) < 0.03
    assert ring_support_radii(image, H_GRID, np.zeros(0), edge).shape == (0,)


@pytest.mark.parametrize("shape", ["circle", "square"])
def test_cached_outline_points_equal_fresh_ones_and_cannot_be_changed(shape):
    from vision.locate.fit import GRID_NODES, _ring_points, ring_model_points

    pts, nrm = ring_model_points(0.45, 24, shape)
    fresh_pts, fresh_nrm = _ring_points(0.45, 24, shape, GRID_NODES.copy())
    assert np.array_equal(pts, fresh_pts) and np.array_equal(nrm, fresh_nrm)
    again = ring_model_points(0.45, 24, shape)
    assert again[0] is pts  # cached
    with pytest.raises(ValueError):
        pts[0, 0] = 1.0
    # Other nodes are not cached and may be changed by the caller.
    other, _ = ring_model_points(0.45, 24, shape, GRID_NODES[:4].copy())
    other[0, 0] = 1.0
    assert len(other) == 4 * len(pts) // 16


def test_image_normals_from_given_pixels_equal_mapped_ones():
    from vision.locate.fit import image_normals, ring_model_points
    from vision.locate.lattice import apply_h

    pts, rad = ring_model_points(0.41, 24)
    px = apply_h(H_GRID, pts)
    assert np.array_equal(image_normals(H_GRID, pts, rad, pts_px=px),
                          image_normals(H_GRID, pts, rad))


def test_points_on_the_horizon_stay_finite():
    from vision.locate.lattice import apply_h

    H = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # w = x
    out = apply_h(H, np.array([[0.0, 2.0], [-0.0, 1.0], [2.0, 4.0], [np.nan, 1.0]]))
    assert np.all(np.isfinite(out[:3]))
    assert np.allclose(out[2], [1.0, 2.0])
    assert np.isnan(out[3]).all()
    assert apply_h(H, np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize("mode", ["edge", "line"])
def test_polarities_from_one_sampling_equal_one_search_each(mode):
    from vision.locate.fit import (
        edge_search,
        edge_search_polarities,
        image_normals,
        ring_model_points,
    )
    from vision.locate.lattice import apply_h

    image = _ring_image(1)
    pts, rad = ring_model_points(0.40, 24)
    px = apply_h(H_GRID, pts)
    nrm = image_normals(H_GRID, pts, rad)
    edge = EdgeConfig(mode=mode)
    together = edge_search_polarities(image, px, nrm, 6.0, edge, (1, -1, 0))
    for pol, (off, strength) in zip((1, -1, 0), together, strict=True):
        one_off, one_strength = edge_search(image, px, nrm, 6.0, edge, polarity=pol)
        assert np.array_equal(off, one_off, equal_nan=True)
        assert np.array_equal(strength, one_strength)
    # The drawn dark rings are found as dark lines or as edges of either side.
    assert np.isfinite(together[1 if mode == "line" else 2][0]).mean() > 0.5


def test_sized_peak_lattices_carry_the_support_the_finder_would_measure():
    from dataclasses import replace

    from vision.locate.config import LocateConfig
    from vision.locate.lattice import LatticeHypothesis
    from vision.locate.peak_grid import size_outlines

    image = _ring_image(2)
    config = LocateConfig()
    hyp = LatticeHypothesis(H_GRID, np.zeros((16, 2), np.int64), 16, 0.44, source="peaks")
    sized = size_outlines([hyp], image, EdgeConfig(), config)
    assert [h.shape for h in sized] == ["circle", "square"]
    for h in sized:
        edge = replace(EdgeConfig(), shape=h.shape)
        assert h.support == ring_support(image, H_GRID, h.radius, edge, tol_px=2.0)
    assert abs(sized[0].radius - 0.42) < 0.03


def test_view_without_ring_edges_takes_the_pose_from_the_homography():
    from vision.geometry.camera import Intrinsics
    from vision.locate.config import LocateConfig
    from vision.locate.finder import _MIRROR, build_view
    from vision.locate.layout import LayoutFit, board_to_grid
    from vision.locate.pose import pose_from_homography, refine_pose

    config = LocateConfig()
    lay = LayoutFit("diagonal", 5.6, 2.6, 0.8, 0.7)
    H = np.array([[60.0, 14.0, 500.0], [-5.0, 40.0, 300.0], [0.00004, 0.0002, 1.0]])
    intr = Intrinsics.from_fov((1280, 720), 60.0)
    view, _ = build_view(H, 0.45, lay, (1280, 720), intr, config, 1.0)
    p = config.nominal_pitch_for(lay.layout)
    to_grid = board_to_grid(lay.rotation_deg) @ np.diag([1.0 / p, 1.0 / p, 1.0])
    if pose_from_homography(H @ to_grid, intr.matrix).camera_center[2] < 0:
        to_grid = _MIRROR @ to_grid  # the lattice's rows counted the other way
    pose, _ = refine_pose(H @ to_grid, intr.matrix, 2.0 * p)
    assert np.array_equal(view.camera.pose.R, pose.R)
    assert np.array_equal(view.camera.pose.t, pose.t)


def test_network_input_channel_means_equal_numpy_bit_for_bit():
    """``normalise_input`` takes the channel means from OpenCV's row reduction: the same
    float32 sums, in the same order, as ``x.reshape(-1, 3).mean(axis=0)``."""
    from vision.locate.board_net import PAD_MULTIPLE, normalise_input

    rng = np.random.default_rng(7)
    for shape in ((144, 256, 3), (37, 61, 3), (1, 1, 3)):
        small = rng.integers(0, 256, shape).astype(np.uint8)
        small[: shape[0] // 2] //= 3  # uneven, so the float32 sums round
        x = small.astype(np.float32) / 255.0
        mean = x.reshape(-1, 3).mean(axis=0)
        for c in range(3):
            x[..., c] -= mean[c]
        x /= float(x.std()) + 0.02
        got = normalise_input(small)
        assert got.shape[0] % PAD_MULTIPLE == 0 and got.shape[1] % PAD_MULTIPLE == 0
        np.testing.assert_array_equal(got[: shape[0], : shape[1]], x)


@pytest.mark.parametrize("mode", ["edge", "line"])
def test_edge_search_equals_profiles_sampled_from_float64_coordinates(mode):
    """The profile coordinates written straight into the remap maps, and the argmax taken
    along each point's row, give the numbers of the plain form: float64 coordinates
    sampled through ``sample``, weighted, transposed and searched."""
    from vision.locate.fit import edge_search, image_normals, ring_model_points, sample
    from vision.locate.lattice import apply_h

    image = _ring_image(2)
    pts, rad = ring_model_points(0.42, 24)
    px = apply_h(H_GRID, pts)
    nrm = image_normals(H_GRID, pts, rad)
    edge = EdgeConfig(mode=mode, max_tangent_ratio=0.0)
    reach, s = 5.0, edge.step_px
    pad = s + (edge.line_halfwidth_px if mode == "line" else 0.0)
    t = np.arange(-reach - pad, reach + pad + 1e-9, s)
    prof = sample(image, px[:, 0] + nrm[:, 0] * t[:, None], px[:, 1] + nrm[:, 1] * t[:, None])
    if mode == "line":
        k_w = max(1, round(edge.line_halfwidth_px / s))
        diff, tt = prof[k_w:-k_w] - 0.5 * (prof[: -2 * k_w] + prof[2 * k_w:]), t[k_w:-k_w]
    else:
        diff, tt = (prof[2:] - prof[:-2]) / (2 * s), t[1:-1]
    d = np.abs(diff)
    w = 1.0 - 0.3 * (np.abs(tt) / reach)
    k = np.argmax((d * w[:, None]).T, axis=1)
    strength = d[k, np.arange(len(k))]
    off, found_strength = edge_search(image, px, nrm, reach, edge, polarity=0)
    assert np.array_equal(found_strength, strength)
    threshold = edge.min_line if mode == "line" else edge.min_edge
    found = np.isfinite(off)
    assert np.array_equal(found, strength >= threshold)
    # Each found edge lies within half a step of the profile sample it peaked at.
    assert np.all(np.abs(off[found] - tt[k[found]]) <= 0.5 * s + 1e-12)
    assert found.mean() > 0.5  # the drawn rings are found


def test_best_window_hands_the_judge_the_offsets_it_would_search_again():
    from vision.locate.verify import (
        best_window,
        cell_offsets,
        contrast_clear_of_outline,
        grid_contrast,
    )

    image = _ring_image(3)
    edge = EdgeConfig(mode="edge", polarity=0)
    # The grid as drawn, and moved so that some outlines leave the image.
    for H in (H_GRID, H_GRID @ np.array([[1.0, 0.0, 5.5], [0.0, 1.0, -4.2], [0.0, 0.0, 1.0]])):
        cells: list[np.ndarray] = []
        best_window(image, H, 0.42, edge, 0.0, cells)
        fresh = cell_offsets(image, H, 0.42, edge)
        assert len(cells) == 1 and np.array_equal(cells[0], fresh, equal_nan=True)
        for a, b in zip(grid_contrast(image, H, 0.42, edge),
                        grid_contrast(image, H, 0.42, edge, offsets=cells[0]), strict=True):
            assert np.array_equal(a, b)
        to_board = np.array([[0.7071, -0.7071, 0.0], [0.7071, 0.7071, -2.1213],
                             [0.0, 0.0, 1.0]])
        plain = contrast_clear_of_outline(image, H, 0.42, edge, to_board, 2.6, 0.3)
        reused = contrast_clear_of_outline(image, H, 0.42, edge, to_board, 2.6, 0.3,
                                           offsets=cells[0])
        assert plain == reused
    # The moved grid has outline points outside the image (which ``best_window`` does not
    # count but hands on as searched).
    from vision.locate.fit import ring_model_points
    from vision.locate.lattice import apply_h
    px = apply_h(H, ring_model_points(0.42, edge.samples_per_ring)[0])
    assert (px[:, 0] >= image.shape[1]).any()
    on, off = grid_contrast(image, H_GRID, 0.42, edge)
    assert on.mean() > off.mean() + 0.3  # the drawn rings stand out from the shifted ones


def test_peak_lattices_grown_with_shared_fits_equal_fresh_ones():
    from vision.locate import peak_grid
    from vision.locate.config import LocateConfig

    rng = np.random.default_rng(5)
    nodes = np.mgrid[0:4, 0:4].reshape(2, -1).T.astype(np.float64)
    true = np.column_stack([nodes, np.ones(16)]) @ H_GRID.T
    true = true[:, :2] / true[:, 2:3]
    pts = np.vstack([true + rng.normal(0, 0.7, true.shape),
                     rng.uniform(true.min(axis=0) - 60, true.max(axis=0) + 60, (6, 2))])
    pts = pts[rng.permutation(len(pts))]
    cfg = LocateConfig()
    fits = peak_grid._Fits(pts, cfg.peak_tol_pitch)
    seeds = list(peak_grid._seed_lattices(pts, set(), cfg))
    assert len(seeds) > 3
    for H0 in seeds:
        shared = peak_grid._grow(H0, pts, cfg.peak_tol_pitch, fits)
        fresh = peak_grid._grow(H0, pts, cfg.peak_tol_pitch)
        assert np.array_equal(shared[0], fresh[0])
        assert all(np.array_equal(a, b) for a, b in zip(shared[1:3], fresh[1:3], strict=True))
        assert shared[3] == fresh[3]
    assert len(fits._refits) < 4 * len(seeds)  # seeds came to the same matches
    best = peak_grid.peak_hypotheses(pts, np.linspace(0.9, 0.3, len(pts)), cfg)[0]
    assert best.inliers == 16
