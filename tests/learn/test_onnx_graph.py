"""The two networks run by OpenCV's dnn module (``vision.learn.onnx_graph``) give the numpy
forward passes' outputs up to float rounding, and fall back to numpy when OpenCV cannot."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from vision.learn.cnn import default_cnn
from vision.learn.config import LearnedReaderConfig
from vision.learn.onnx_graph import DEFAULT_ENGINE, DnnRunner, _varint
from vision.locate.board_net import default_board_net, normalise_input
from vision.locate.config import LocateConfig


def test_varint_encodes_protobuf_integers():
    assert _varint(1) == b"\x01"
    assert _varint(300) == b"\xac\x02"
    assert _varint(-1) == b"\xff" * 9 + b"\x01"  # int64 -1: ten bytes


def test_cell_network_through_opencv_matches_numpy():
    model = default_cnn()
    net = model.nets[0]
    rng = np.random.default_rng(3)
    n_scalars = net.hidden[0].shape[1] - net.convs[-1][0].shape[0] * 16
    for n in (16, 5, 32, 1):  # the batch size changes between calls
        images = rng.normal(size=(n, 4, 2 * model.patches.size, 2 * model.patches.size))
        scalars = rng.normal(size=(n, n_scalars))
        images, scalars = images.astype(np.float32), scalars.astype(np.float32)
        ref = net.predict_proba(images, scalars)
        got = net.predict_proba_with(images, scalars, "opencv")
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() < 1e-5
        both = model.predict_patches(images, scalars, "opencv")
        assert np.abs(both - model.predict_patches(images, scalars, "numpy")).max() < 1e-5


def test_board_network_through_opencv_matches_numpy():
    net = default_board_net()
    assert net is not None
    rng = np.random.default_rng(4)
    small = rng.integers(0, 255, size=(100, 180, 3), dtype=np.uint8)
    small[20:60, 40:120] //= 3  # some structure for the ReLUs
    x = normalise_input(small)
    ref = net.forward(x)
    got = net.forward_with(x, "opencv")
    assert got.shape == ref.shape == (x.shape[0] // 2, x.shape[1] // 2, 3)
    assert np.abs(got - ref).max() < 1e-4 * max(1.0, float(np.abs(ref).max()))
    np.testing.assert_array_equal(net.forward_with(x, "numpy"), ref)


def test_default_engines_and_names_are_checked():
    # numpy by default (see DEFAULT_ENGINE's comment): the measured figures stay bit for bit
    assert DEFAULT_ENGINE == "numpy"
    assert LearnedReaderConfig().cnn_engine == "numpy"
    assert LocateConfig().board_net_engine == "numpy"
    with pytest.raises(ValueError):
        LocateConfig(board_net_engine="torch")
    with pytest.raises(ValueError):
        LearnedReaderConfig(cnn_engine="")


def test_unreadable_graph_falls_back_to_numpy(caplog):
    runner = DnnRunner(b"not an onnx model", "test network")
    assert runner.run({"x": np.zeros((1, 3, 4, 4), np.float32)}) is None
    assert runner.run({"x": np.zeros((1, 3, 4, 4), np.float32)}) is None  # logged once
    assert sum("test network" in r.getMessage() for r in caplog.records) == 1
    net = default_board_net()
    assert net is not None
    object.__setattr__(net, "_dnn", runner)  # the cached runner replaced
    try:
        x = np.zeros((16, 24, 3), np.float32)
        np.testing.assert_array_equal(net.forward_with(x, "opencv"), net.forward(x))
    finally:
        del net.__dict__["_dnn"]


def test_runner_pickles_as_its_graph():
    net = default_cnn().nets[0]
    images = np.zeros((2, 4, 32, 32), np.float32)
    scalars = np.zeros((2, net.hidden[0].shape[1] - 1024), np.float32)
    first = net._dnn.run({"images": images, "scalars": scalars})
    copy = pickle.loads(pickle.dumps(net._dnn))
    np.testing.assert_array_equal(copy.run({"images": images, "scalars": scalars}), first)
