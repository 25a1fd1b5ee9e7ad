"""The cell-centre network's plumbing and the lattice grown through its peaks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate.board_net import (
    LAYERS,
    BoardNet,
    BoardNetError,
    heat_to_image,
    image_to_heat,
    load_board_net,
    network_input,
    save_board_net,
    space_to_depth,
)
from vision.locate.config import LocateConfig
from vision.locate.lattice import apply_h
from vision.locate.peak_grid import peak_hypotheses

NODES = np.mgrid[0:4, 0:4].reshape(2, -1).T.astype(np.float64)
#: A board seen from a low angle: far rows shorter and closer together, turned a little.
LOW_H = cv2.getPerspectiveTransform(
    np.float32([[0, 0], [3, 0], [3, 3], [0, 3]]),
    np.float32([[400, 420], [700, 440], [650, 330], [460, 322]])).astype(np.float64)


def _cells_error(H: np.ndarray, H_true: np.ndarray) -> float:
    """Largest distance (true pitches) from a true cell centre to the nearest guessed one."""
    p, q = apply_h(H, NODES), apply_h(H_true, NODES)
    d = np.hypot(*(p[:, None, :] - q[None, :, :]).transpose(2, 0, 1)).min(axis=0)
    return float(d.max() / np.linalg.norm(q[1] - q[0]))


@pytest.mark.parametrize("H_true", [LOW_H, np.array([[30.0, -30.0, 500.0],
                                                      [12.0, 12.0, 200.0],
                                                      [0.0005, 0.001, 1.0]])])
def test_lattice_through_peaks_with_gaps_and_clutter(H_true):
    rng = np.random.default_rng(3)
    true = apply_h(H_true, NODES)
    keep = np.ones(16, bool)
    keep[[2, 7, 13]] = False  # three cells the network missed
    clutter = rng.uniform(true.min(axis=0) - 80, true.max(axis=0) + 80, size=(5, 2))
    pts = np.vstack([true[keep] + rng.normal(0, 0.8, size=(13, 2)), clutter])
    order = rng.permutation(len(pts))
    hyps = peak_hypotheses(pts[order], np.linspace(0.9, 0.3, len(pts)), LocateConfig())
    assert hyps, "no lattice through 13 true centres"
    best = hyps[0]
    assert best.inliers >= 13  # a stray peak may sit where a missed centre is
    assert _cells_error(best.H, H_true) < 0.1
    assert best.grid.min() >= 0 and best.grid.max() <= 3
    assert best.source == "peaks"


def test_no_lattice_from_scattered_or_too_few_peaks():
    cfg = LocateConfig()
    assert peak_hypotheses(np.array([[10.0, 10.0], [40.0, 12.0]]), np.ones(2), cfg) == []
    rng = np.random.default_rng(5)
    scattered = rng.uniform(0, 1000, size=(12, 2))
    assert all(h.inliers < 9 for h in peak_hypotheses(scattered, np.ones(12), cfg))


def test_heat_coordinates_round_trip_and_input_padding():
    pts = np.array([[0.0, 0.0], [1279.0, 719.0], [333.3, 12.5]])
    assert np.allclose(heat_to_image(image_to_heat(pts, 0.2), 0.2), pts)
    frame = np.full((700, 1000, 3), 90, np.uint8)
    frame[100:300, 200:500] = 200
    x, scale = network_input(frame, 256)
    assert x.shape[0] % 8 == 0 and x.shape[1] == 256 and x.dtype == np.float32
    assert scale == pytest.approx(0.256)
    assert abs(float(x[: int(700 * scale)].mean())) < 0.05  # the mean is removed


def test_space_to_depth_order():
    x = np.arange(4 * 6 * 3, dtype=np.float32).reshape(4, 6, 3)
    y = space_to_depth(x)
    assert y.shape == (2, 3, 12)
    # Pixel (1, 2) of the output holds input rows 2-3, columns 4-5: (dy, dx, channel).
    assert np.array_equal(y[1, 2], np.concatenate([x[2, 4], x[2, 5], x[3, 4], x[3, 5]]))


def test_model_file_round_trip_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    layers = {n: (rng.normal(size=(2, 3, 3, 3)).astype(np.float32),
                  rng.normal(size=2).astype(np.float32)) for n in LAYERS}
    path = save_board_net(BoardNet(layers, 192), tmp_path / "net.npz")
    back = load_board_net(path)
    assert back.input_width == 192
    assert all(np.array_equal(back.layers[n][0], layers[n][0]) for n in LAYERS)
    with pytest.raises(BoardNetError):
        load_board_net(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(BoardNetError):
        load_board_net(tmp_path / "bad.npz")
