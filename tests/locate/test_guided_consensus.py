"""The marking's consensus from the grid being fitted instead of RANSAC (session 37,
helper-37g; ``LocateConfig.marking_guided_share`` and ``camera_guided_share``, default off)."""

from __future__ import annotations

import numpy as np

from vision.locate import LocateConfig
from vision.locate.fit import (
    GRID_NODES,
    EdgeConfig,
    _best_marking,
    guided_consensus,
    image_normals,
    ring_model_points,
)
from vision.locate.lattice import apply_h

H_TRUE = np.array([[50.0, 4.0, 80.0], [-3.0, 48.0, 70.0], [1e-4, 2e-4, 1.0]])


def test_the_knobs_are_off_by_default():
    config = LocateConfig()
    assert config.marking_guided_share == 0.0
    assert config.camera_guided_share == 0.0


def _matches(seed: int, outliers: float):
    """Outline points of the 16 cells, their true pixels with 0.2 px noise, and a share
    ``outliers`` of them moved 4-10 px off."""
    rng = np.random.default_rng(seed)
    pts, _ = ring_model_points(0.45, 24, "circle")
    target = apply_h(H_TRUE, pts) + rng.normal(0.0, 0.2, (len(pts), 2))
    bad = rng.random(len(pts)) < outliers
    ang = rng.uniform(0, 2 * np.pi, bad.sum())
    target[bad] += rng.uniform(4.0, 10.0, bad.sum())[:, None] * np.column_stack(
        [np.cos(ang), np.sin(ang)])
    return pts, target, bad


def test_guided_consensus_settles_on_the_true_homography_from_a_grid_a_little_off():
    pts, target, bad = _matches(1, 0.4)
    # The grid being fitted is 1.5 px off: the start is what it explains within 2 px.
    start_h = H_TRUE.copy()
    start_h[0, 2] += 1.5
    start = np.hypot(*(apply_h(start_h, pts) - target).T) <= 2.0
    got = guided_consensus(pts, target, start, 2.0)
    assert got is not None
    H, inl = got
    # Every good match is kept, nearly no outlier, and the nodes land within 0.1 px.
    assert inl[~bad].all()
    assert (inl & bad).sum() <= 0.02 * bad.sum() + 1
    assert np.abs(apply_h(H, GRID_NODES) - apply_h(H_TRUE, GRID_NODES)).max() < 0.1


def test_guided_consensus_gives_up_below_twelve_points():
    pts, target, _ = _matches(2, 0.0)
    start = np.zeros(len(pts), bool)
    start[:11] = True
    assert guided_consensus(pts, target, start, 1.0) is None


def _marking_inputs(edge_share: float, line_share: float):
    """``_best_marking``'s inputs: the grid's outlines found at the grid on ``edge_share``
    of the samples as a brighter-outwards edge and on ``line_share`` as a bright line
    (other samples as clutter 5-9 px off, or nothing)."""
    rng = np.random.default_rng(3)
    pts, rad = ring_model_points(0.45, 24, "circle")
    px = apply_h(H_TRUE, pts)
    nrm = image_normals(H_TRUE, pts, rad, pts_px=px)

    def marking(share: float) -> np.ndarray:
        off = rng.normal(0.0, 0.2, len(pts))
        clutter = rng.random(len(pts)) >= share
        off[clutter] = rng.uniform(5.0, 9.0, clutter.sum()) * rng.choice([-1, 1], clutter.sum())
        return off

    none = np.full(len(pts), np.nan)
    found = [marking(line_share), none, marking(edge_share), none]
    modes = [("line", 1), ("line", -1), ("edge", 1), ("edge", -1)]
    return pts, px, nrm, found, modes


def test_guided_marking_picks_what_ransac_picks_with_the_same_inliers():
    inputs = _marking_inputs(0.7, 0.4)
    ransac = _best_marking(*inputs, 3.0, EdgeConfig())
    guided = _best_marking(*inputs, 3.0, EdgeConfig(guided_share=0.3))
    assert ransac is not None and guided is not None
    assert (ransac[4].mode, ransac[4].polarity) == ("edge", 1)
    assert (guided[4].mode, guided[4].polarity) == ("edge", 1)
    assert np.array_equal(ransac[2].ravel().astype(bool), guided[2].ravel().astype(bool))


def test_guided_marking_leaves_it_to_ransac_when_its_consensus_is_too_small():
    # 30% of the edge matches agree: under a share of 0.5 RANSAC decides (its answer
    # exactly), over 0.2 the guided consensus does, and holds the agreeing matches (with
    # the same inliers both end in the same least-squares homography).
    inputs = _marking_inputs(0.3, 0.0)
    ransac = _best_marking(*inputs, 3.0, EdgeConfig())
    strict = _best_marking(*inputs, 3.0, EdgeConfig(guided_share=0.5))
    loose = _best_marking(*inputs, 3.0, EdgeConfig(guided_share=0.2))
    assert ransac is not None and strict is not None and loose is not None
    assert np.array_equal(ransac[3], strict[3])
    assert (loose[4].mode, loose[4].polarity) == ("edge", 1)
    agree = np.abs(inputs[3][2]) < 1.0
    assert loose[2].ravel().astype(bool)[agree].all()
    assert loose[2].sum() <= agree.sum() + 2


def test_the_network_reads_a_narrower_input_when_asked(monkeypatch):
    import pytest

    from vision.locate import board_net

    assert LocateConfig().board_net_input_width == 0
    with pytest.raises(ValueError):
        LocateConfig(board_net_input_width=32)
    net = board_net.default_board_net()
    if net is None:
        pytest.skip("no board network shipped")
    widths: list[int] = []
    real = board_net.network_input

    def spy(frame, width):
        widths.append(width)
        return real(frame, width)

    monkeypatch.setattr(board_net, "network_input", spy)
    frame = np.full((720, 1280, 3), 128, np.uint8)
    frame[200:520, 400:880] = 40
    for width in (0, 192):
        peaks = board_net.cell_peaks(frame, net, min_score=0.01, max_peaks=40,
                                     input_width=width)
        # Peaks are image pixels whatever the input width.
        assert np.all((peaks.points >= -1) & (peaks.points <= [1280, 720]))
    assert widths == [net.input_width, 192]
