"""The shortcuts that make the board search cheap give the same answers as the plain way."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate import LocateConfig
from vision.locate.candidates import _enclosed_regions, _percentiles, median
from vision.locate.finder import _grid_window, smoothed
from vision.locate.fit import ring_model_points
from vision.locate.lattice import _Candidates, _seed_pairs, apply_h, lattice_hypotheses

H_GRID = np.array([[60.0, 14.0, 300.0], [-5.0, 30.0, 200.0], [0.0004, 0.0009, 1.0]])


@pytest.mark.parametrize("n", [1, 2, 12, 13, 64, 161, 32400])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_median_by_partial_sort_equals_numpy(n, dtype):
    rng = np.random.default_rng(n)
    values = rng.random(n).astype(dtype)
    assert median(values) == float(np.median(values))
    # Ties at the middle (gradients of a flat image repeat).
    values = rng.integers(0, 5, n).astype(dtype)
    assert median(values) == float(np.median(values))
    assert np.isnan(median(values[:0]))


def test_percentiles_from_the_histogram_equal_numpy():
    rng = np.random.default_rng(3)
    for levels in (256, 17, 2):
        image = (rng.integers(0, 256, (41, 67)) * levels // 256).astype(np.uint8)
        got = _percentiles(image, (10.0, 50.0, 90.0))
        assert np.allclose(got, np.percentile(image, [10.0, 50.0, 90.0]))


def _ring_mask(center: tuple[int, int], axes: tuple[int, int], size_wh=(200, 120)) -> np.ndarray:
    mask = np.zeros((size_wh[1], size_wh[0]), np.uint8)
    cv2.ellipse(mask, (center, axes, 20.0), 255, 1)
    return mask


def test_enclosed_region_of_a_ring_line_is_its_inside():
    ells = _enclosed_regions(_ring_mask((100, 60), (60, 36)), LocateConfig())
    assert len(ells) == 1
    e = ells[0]
    assert np.allclose(e.center, [100, 60], atol=1.0)
    # The inside of a one-pixel line: the ellipse's semi-axes less about a pixel.
    assert 28.0 < e.a < 30.5 and 16.0 < e.b < 18.5


def test_region_cut_by_the_image_border_is_not_enclosed():
    # The same ring, half outside the image: its inside is open to the border.
    assert _enclosed_regions(_ring_mask((100, 2), (60, 36)), LocateConfig()) == []


def test_island_inside_a_ring_does_not_replace_the_ring():
    mask = _ring_mask((100, 60), (60, 36))
    cv2.circle(mask, (100, 60), 5, 255, 1)  # a small closed outline standing in the ring
    ells = _enclosed_regions(mask, LocateConfig())
    assert any(np.allclose(e.center, [100, 60], atol=1.5) and e.a > 25 for e in ells)


def test_grid_window_holds_every_cell_outline_and_stays_in_the_image():
    pts, _ = ring_model_points(0.53, 24)
    px = apply_h(H_GRID, pts)
    x0, y0, x1, y1 = _grid_window(H_GRID, (1280, 720), 16.0)
    assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
    assert px[:, 0].min() - x0 >= 16.0 and x1 - px[:, 0].max() >= 16.0
    assert px[:, 1].min() - y0 >= 16.0 and y1 - px[:, 1].max() >= 16.0
    # A grid reaching past the image edge is clipped to it.
    shifted = np.array([[1.0, 0.0, -350.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) @ H_GRID
    assert _grid_window(shifted, (1280, 720), 16.0)[0] == 0


def _grid_candidates(radius_over_pitch: float = 0.46) -> list:
    """Ring candidates of a full 4x4 grid seen straight on (pitch 40 px)."""
    from vision.locate.candidates import Ellipse

    out = []
    a = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
    r = 40.0 * radius_over_pitch
    for n in range(4):
        for m in range(4):
            c = np.array([200.0 + 40.0 * m, 150.0 + 40.0 * n])
            pts = c + r * np.column_stack([np.cos(a), np.sin(a)])
            out.append(Ellipse(c, r, r, 0.0, pts, 0.01, 1.0))
    return out


def test_full_lattice_is_found_once_and_its_diagonal_pairs_are_not_regrown():
    config = LocateConfig()
    ells = _grid_candidates()
    hyps = lattice_hypotheses(ells, config, keep=4)
    assert hyps and hyps[0].inliers == 16
    # Seed pairs include the diagonal neighbours (a Gigamic grid's spacing along its
    # diagonal is within the pitch range); none of them may come back as a second copy of
    # the same 16-ring grid.
    pairs = _seed_pairs(_Candidates.of(ells), config)
    assert any(abs(i - j) in (3, 5) for i, j, _ in pairs)
    # Grown, they would add the grid's half-density sub-lattice as a weaker hypothesis.
    assert len(hyps) == 1


def test_ring_contrast_along_a_rectangles_outline_is_not_ring_evidence():
    """A grid whose outer rings run along a dark rectangle's edge (a box on a cloth) draws
    its ring "support" from that edge; clear of the outline, nothing is left."""
    from vision.locate.fit import EdgeConfig
    from vision.locate.layout import board_to_grid
    from vision.locate.verify import contrast_clear_of_outline, grid_contrast

    pitch, side, radius = 20.0, 3.9, 0.377
    H = np.array([[pitch, 0.0, 300.0], [0.0, pitch, 200.0], [0.0, 0.0, 1.0]])
    image = np.full((500, 600), 200, np.float32)
    c, h = 1.5 * pitch, side / 2.0 * pitch
    image[round(200 + c - h) : round(200 + c + h), round(300 + c - h) : round(300 + c + h)] = 60
    image = cv2.GaussianBlur(image, (0, 0), 1.2)
    edge = EdgeConfig(min_edge=2.0, mode="edge", polarity=1)
    on, off = grid_contrast(image, H, radius, edge)
    min_contrast = LocateConfig().min_ring_contrast
    assert on.mean() - off.mean() >= min_contrast  # the plain measure is fooled
    clear = contrast_clear_of_outline(image, H, radius, edge,
                                      np.linalg.inv(board_to_grid(0.0)), side / 2.0,
                                      LocateConfig().outline_clearance_pitch)
    assert clear < min_contrast


def test_distance_to_polygon_equals_opencv():
    from vision.locate.candidates import _distance_to_polygon

    rng = np.random.default_rng(5)
    for _ in range(50):
        quad = rng.integers(0, 100, (4, 2)).astype(np.float64)
        pts = rng.uniform(-10.0, 110.0, (30, 2))
        poly = quad.reshape(-1, 1, 2).astype(np.float32)
        ref = np.abs([cv2.pointPolygonTest(poly, (float(x), float(y)), True) for x, y in pts])
        assert np.allclose(_distance_to_polygon(pts, quad), ref, atol=1e-3)


def test_shrinking_in_halves_averages_like_one_area_resize():
    from vision.locate.finder import _shrink

    rng = np.random.default_rng(7)
    noise = rng.integers(0, 256, (90, 160, 3)).astype(np.uint8)
    frame = cv2.resize(noise, (1280, 720), interpolation=cv2.INTER_CUBIC)
    frame = cv2.add(frame, rng.integers(0, 6, frame.shape).astype(np.uint8))
    direct = cv2.resize(frame, (480, 270), interpolation=cv2.INTER_AREA).astype(np.int16)
    got = _shrink(frame, (480, 270))
    assert got.shape == (270, 480, 3)
    diff = np.abs(got.astype(np.int16) - direct)
    assert diff.mean() < 2.5  # texture at 8 px; a real frame differs by about 0.5
    # A frame already small enough is resized once.
    small = frame[:500, :900]
    assert np.array_equal(_shrink(small, (480, 270)),
                          cv2.resize(small, (480, 270), interpolation=cv2.INTER_AREA))


def test_fit_without_measuring_gives_the_same_grid():
    from tests.locate.synth import draw_board, make_view
    from vision.locate.fit import EdgeConfig, fit_rings

    view = make_view(50.0, 20.0)
    gray = cv2.cvtColor(draw_board(view, seed=2), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray_f = cv2.GaussianBlur(gray, (0, 0), 1.5)
    cells = np.array([view.cell_centers_px()[k] for k in range(16)])
    H0, _ = cv2.findHomography(np.array([(m, n) for n in range(4) for m in range(4)], float),
                               cells + 3.0)
    edge = EdgeConfig(min_edge=2.0)
    measured = fit_rings(gray_f, H0, 0.45, (12.0, 6.0, 3.0), edge)
    quiet = fit_rings(gray_f, H0, 0.45, (12.0, 6.0, 3.0), edge, measure=False)
    assert np.array_equal(measured[0], quiet[0]) and measured[1] == quiet[1]
    assert measured[3] == quiet[3]
    assert measured[2] > 0.5 and np.isnan(quiet[2])


def _marking_offsets(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Outline points of a grid and, per marking, edge offsets: marking 2 lies on one
    homography for 70% of the points, the others are texture (random offsets)."""
    from vision.locate.fit import image_normals

    rng = np.random.default_rng(seed)
    pts, rad = ring_model_points(0.45, 24, "circle")
    px = apply_h(H_GRID, pts)
    nrm = image_normals(H_GRID, pts, rad, pts_px=px)
    found = []
    for k in range(4):
        off = rng.uniform(-6.0, 6.0, len(pts))
        if k == 2:
            on = rng.random(len(pts)) < 0.7
            off[on] = 2.0 + rng.normal(0.0, 0.2, on.sum())
        off[rng.random(len(pts)) < 0.1] = np.nan
        found.append(off)
    return pts, px, nrm, found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marking_quick_look_keeps_the_marking_that_lines_up(seed):
    from dataclasses import replace

    from vision.locate.fit import EdgeConfig, _best_marking

    pts, px, nrm, found = _marking_offsets(seed)
    modes = [("line", 1), ("line", -1), ("edge", 1), ("edge", -1)]
    config = EdgeConfig()
    quick = _best_marking(pts, px, nrm, found, modes, 2.0, config)
    every = _best_marking(pts, px, nrm, found, modes, 2.0,
                          replace(config, marking_screen_iters=0))
    assert quick is not None and every is not None
    assert (quick[4].mode, quick[4].polarity) == (every[4].mode, every[4].polarity) == ("edge", 1)
    assert np.array_equal(quick[2], every[2])


@pytest.mark.parametrize("sigma", [1.2, 1.5])
def test_smoothing_from_bytes_equals_gaussian_blur_of_floats(sigma):
    """The working image (960 pixels wide) bit for bit; other widths (the full-resolution
    window) within a ten-thousandth of a grey level."""
    rng = np.random.default_rng(5)
    for shape, exact in (((540, 960), True), ((333, 701), False), ((120, 250), False)):
        image = cv2.GaussianBlur(rng.integers(0, 256, shape).astype(np.uint8), (0, 0), 2.0)
        image[::7] = rng.integers(0, 256, image[::7].shape)
        plain = cv2.GaussianBlur(image.astype(np.float32), (0, 0), sigma)
        got = smoothed(image, sigma)
        assert got.dtype == np.float32 and got.shape == shape
        if exact:
            np.testing.assert_array_equal(got, plain)
        else:
            np.testing.assert_allclose(got, plain, rtol=0, atol=1e-4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marking_screen_near_keeps_the_marking_and_skips_the_quick_looks(seed, monkeypatch):
    """``EdgeConfig.screen_near``: the markings ranked by their edges near the grid being
    fitted (no RANSAC); the marking that lines up is still the one fitted, with the same
    inliers, and the texture markings' quick RANSACs are not run."""
    from dataclasses import replace

    from vision.locate import fit
    from vision.locate.fit import EdgeConfig, _best_marking

    pts, px, nrm, found = _marking_offsets(seed)
    modes = [("line", 1), ("line", -1), ("edge", 1), ("edge", -1)]
    every = _best_marking(pts, px, nrm, found, modes, 2.5,
                          replace(EdgeConfig(), marking_screen_iters=0))
    calls = []
    real = fit.cv2.findHomography

    def counted(*args, **kwargs):
        calls.append(kwargs.get("maxIters"))
        return real(*args, **kwargs)

    monkeypatch.setattr(fit.cv2, "findHomography", counted)
    near = _best_marking(pts, px, nrm, found, modes, 2.5, replace(EdgeConfig(), screen_near=True))
    assert near is not None and every is not None
    assert (near[4].mode, near[4].polarity) == (every[4].mode, every[4].polarity) == ("edge", 1)
    assert np.array_equal(near[2], every[2])
    # Only full fits (200 iterations), at most one per marking: no quick looks.
    assert calls and set(calls) == {200} and len(calls) <= len(modes)
