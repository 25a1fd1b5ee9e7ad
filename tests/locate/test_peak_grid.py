"""The cell-centre network's plumbing and the lattice grown through its peaks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate import board_net as board_net_module
from vision.locate import finder as finder_module
from vision.locate.board_net import (
    LAYERS,
    BoardNet,
    BoardNetError,
    cell_peaks,
    heat_to_image,
    image_to_heat,
    load_board_net,
    network_input,
    save_board_net,
    space_to_depth,
)
from vision.locate.config import LocateConfig
from vision.locate.lattice import apply_h, shift_h
from vision.locate.peak_grid import drift_pitch, peak_hypotheses

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
    # At scale 0.2 a heat pixel covers 10 image pixels: heat pixel 0 is centred on image
    # pixels 0..9, i.e. at 4.5; heat pixel 3 at 34.5.
    assert np.allclose(heat_to_image(np.array([[0.0, 3.0]]), (0.2, 0.2)), [[4.5, 34.5]])
    frame = np.full((700, 1000, 3), 90, np.uint8)
    frame[100:300, 200:500] = 200
    x, (sx, sy), (w, h) = network_input(frame, 256)
    assert x.shape[0] % 8 == 0 and x.shape[1] == 256 and x.dtype == np.float32
    assert (w, h) == (256, 179) and sx == pytest.approx(0.256) and sy == pytest.approx(179 / 700)
    assert abs(float(x[:h].mean())) < 0.05  # the mean is removed


def test_portrait_and_narrow_frames_stay_small():
    # The longer side is scaled to the input width: no frame costs more than a landscape one.
    x, _, size = network_input(np.zeros((1280, 720, 3), np.uint8), 256)
    assert size == (144, 256) and x.shape[:2] == (256, 144)
    x, _, size = network_input(np.zeros((4000, 40, 3), np.uint8), 256)
    assert x.shape[0] == 256 and x.shape[1] == 8


def test_peaks_map_offsets_to_image_pixels(monkeypatch):
    """One peak at heat pixel (x=10, y=4) with offsets (+0.25, -0.25): image coordinates
    follow heat_to_image, x from the first offset channel and y from the second."""
    class OnePeak(BoardNet):
        def forward(self, x):
            out = np.zeros((x.shape[0] // 2, x.shape[1] // 2, 3), np.float32)
            out[:, :, 0] = -10.0
            out[4, 10] = (3.0, 0.25, -0.25)
            return out

    net = OnePeak({}, 256)
    frame = np.zeros((720, 1280, 3), np.uint8)
    peaks = cell_peaks(frame, net, min_score=0.5, max_peaks=5, engine="numpy")
    assert len(peaks.points) == 1
    assert np.allclose(peaks.points[0], heat_to_image(np.array([[10.25, 3.75]]), 0.2))
    assert peaks.scores[0] == pytest.approx(1.0 / (1.0 + np.exp(-3.0)))


def test_drift_counts_a_whole_row_shift():
    H = LOW_H
    assert drift_pitch(H, H) == pytest.approx(0.0)
    assert drift_pitch(shift_h(H, (0, 1)), H) == pytest.approx(1.0)
    assert drift_pitch(shift_h(H, (0, 0)) @ np.diag([1.02, 1.0, 1.0]), H) < 0.1


@pytest.mark.parametrize("size", [(5, 5), (4, 6), (6, 6)])
def test_no_full_window_in_a_bigger_grid_of_peaks(size):
    """A bigger grid of peaks (floor tiles, a chequered cloth) holds 4x4 windows, but its
    lattice goes on beyond them, so no window of it is offered as a board's 16 cells (only
    sheared windows with fewer peaks remain, for the edge judge to refuse)."""
    top_down = np.array([[60.0, 10.0, 300.0], [-8.0, 55.0, 200.0], [0.0, 0.0, 1.0]])
    grid = np.mgrid[0:size[0], 0:size[1]].reshape(2, -1).T.astype(np.float64)
    pts = apply_h(top_down, grid)
    hyps = peak_hypotheses(pts, np.ones(len(pts)), LocateConfig())
    assert all(h.inliers < 16 for h in hyps)
    # The same 16 points alone are a board.
    board = apply_h(top_down, NODES)
    assert peak_hypotheses(board, np.ones(16), LocateConfig())[0].inliers == 16


def test_a_broken_model_file_means_no_network(tmp_path, monkeypatch):
    bad = tmp_path / "board_net.npz"
    bad.write_bytes(b"not a model")
    monkeypatch.setattr(board_net_module, "DEFAULT_BOARD_NET_PATH", bad)
    board_net_module.default_board_net.cache_clear()
    try:
        assert board_net_module.default_board_net() is None
        frame = np.zeros((120, 160, 3), np.uint8)
        peaks, scores = finder_module.frame_peaks(frame, 1.0, LocateConfig())
        assert len(peaks) == 0 and len(scores) == 0
    finally:
        board_net_module.default_board_net.cache_clear()


def test_space_to_depth_order():
    x = np.arange(4 * 6 * 3, dtype=np.float32).reshape(4, 6, 3)
    y = space_to_depth(x)
    assert y.shape == (2, 3, 12)
    # Pixel (1, 2) of the output holds input rows 2-3, columns 4-5: (dy, dx, channel).
    assert np.array_equal(y[1, 2], np.concatenate([x[2, 4], x[2, 5], x[3, 4], x[3, 5]]))


def _tiny_layers(rng: np.random.Generator, c: int = 4) -> dict:
    """Weights of the right layout with ``c`` channels everywhere."""
    inputs = {"e2a": 12, "d3": 2 * c, "d2": 2 * c}
    return {n: (rng.normal(size=(3 if n == "head" else c, inputs.get(n, c),
                                 1 if n in ("d3p", "head") else 3,
                                 1 if n in ("d3p", "head") else 3)).astype(np.float32),
                rng.normal(size=3 if n == "head" else c).astype(np.float32))
            for n in LAYERS}


def test_model_file_round_trip_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    layers = _tiny_layers(rng)
    path = save_board_net(BoardNet(layers, 192), tmp_path / "net.npz")
    back = load_board_net(path)
    assert back.input_width == 192
    assert all(np.array_equal(back.layers[n][0], layers[n][0]) for n in LAYERS)
    with pytest.raises(BoardNetError):
        load_board_net(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(BoardNetError):
        load_board_net(tmp_path / "bad.npz")


def test_model_file_with_wrong_shapes_is_refused(tmp_path):
    layers = _tiny_layers(np.random.default_rng(0))
    layers["e3a"] = (np.zeros((4, 7, 3, 3), np.float32),
                     np.zeros(4, np.float32))  # e3a gets 4 channels, not 7
    path = save_board_net(BoardNet(layers, 256), tmp_path / "net.npz")
    with pytest.raises(BoardNetError):
        load_board_net(path)


def test_shipped_network_forward_shape():
    net = board_net_module.default_board_net()
    if net is None:
        pytest.skip("no shipped board network")
    out = net.forward(np.zeros((24, 40, 3), np.float32))
    assert out.shape == (12, 20, 3)


@pytest.mark.parametrize(("bar", "found"), [(1.4, True), (50.0, False)])
def test_an_unsure_network_grid_stands_when_the_ring_search_finds_none(monkeypatch, bar, found):
    """A grid fitted to the network's lattice below the "sure" score is no longer thrown
    away: when the ring search finds no board (rings too few at a low view) it stands,
    provided it scores ``min_peak_board_score``."""
    from tests.locate.synth import draw_board, make_view

    truth = make_view(40.0, 75.0)
    img = draw_board(truth, pieces=(0, 6, 9, 15), seed=11)
    monkeypatch.setattr(finder_module, "_search", lambda *a, **k: (None, 0, 0))
    # Nothing is sure: every network grid goes the way of an unsure one. (The search from
    # the board's outline and the one from its near sides, the last resorts, would find
    # this plain board: they are left out.)
    config = LocateConfig(sure_board_score=50.0, min_peak_board_score=bar,
                          outline_search=False, near_outline_search=False)
    view = finder_module.find_board(img, config=config)
    assert bool(view) is found
    if found:
        err = np.linalg.norm(np.sort(view.cell_centers_px(), 0)
                             - np.sort(truth.cell_centers_px(), 0), axis=1)
        assert np.median(err) < 2.0


def test_of_two_places_the_better_judged_grid_stands(monkeypatch):
    """The network's unsure grid (below ``min_peak_board_score``, so not enough alone) is
    still preferred to a grid the ring search settled on elsewhere with less evidence: of
    two places that both pass the judge, the better judged is the board (a chequered
    cloth beside a crowded board, seen low, outscored nothing but the bar)."""
    from tests.locate.synth import draw_board, make_view

    truth = make_view(40.0, 75.0)
    img = draw_board(truth, pieces=(0, 6, 9, 15), seed=11)
    seen: list = []
    real_fit_grid = finder_module.fit_grid

    def recording_fit_grid(*a, **k):
        out = real_fit_grid(*a, **k)
        seen.append(out)
        return out

    def elsewhere(*a, **k):
        # The same grid moved six pitches along a row, judged a little lower.
        H, radius, score, edge, lay = seen[0]
        H_far = H @ np.array([[1.0, 0.0, 6.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        return (H_far, radius, score - 0.05, edge, lay), 1, 0

    monkeypatch.setattr(finder_module, "fit_grid", recording_fit_grid)
    monkeypatch.setattr(finder_module, "_search", elsewhere)
    # Nothing is sure, and the network's grid alone would need more than any score.
    config = LocateConfig(sure_board_score=50.0, min_peak_board_score=50.0)
    view = finder_module.find_board(img, config=config)
    assert seen and seen[0] is not None and seen[0][2] - 0.05 >= config.min_board_score
    assert view
    err = np.linalg.norm(np.sort(view.cell_centers_px(), 0)
                         - np.sort(truth.cell_centers_px(), 0), axis=1)
    assert np.median(err) < 2.0
