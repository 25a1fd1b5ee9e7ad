"""The numpy perceptron: learns a toy problem, respects target weights, calibrates, round-trips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vision.learn.config import SamplingConfig
from vision.learn.dataset import OUTPUTS
from vision.learn.features import n_features
from vision.learn.mlp import MLP, TrainOptions, calibrate, train_mlp
from vision.learn.model import CellModel, ModelError, load_model


def toy(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    y = np.column_stack([x[:, 0] > 0, x[:, 1] * x[:, 2] > 0]).astype(np.float32)
    return x, y, np.ones_like(y)


def test_learns_a_toy_problem() -> None:
    x, y, w = toy(3000, 0)
    net = train_mlp(x, y, w, options=TrainOptions(hidden=(16,), epochs=30, batch=64,
                                                  learning_rate=3e-3, seed=1))
    xt, yt, _ = toy(1000, 1)
    acc = ((net.predict_proba(xt) >= 0.5) == (yt >= 0.5)).mean(axis=0)
    assert acc[0] > 0.95 and acc[1] > 0.85


def test_zero_weight_targets_are_ignored() -> None:
    x, y, w = toy(2000, 2)
    y[:, 1] = 1.0 - y[:, 1]  # garbage labels ...
    w[:, 1] = 0.0  # ... that carry no weight
    net = train_mlp(x, y, w, options=TrainOptions(hidden=(8,), epochs=10, batch=64,
                                                  learning_rate=3e-3, seed=1))
    assert ((net.predict_proba(x)[:, 0] >= 0.5) == (y[:, 0] >= 0.5)).mean() > 0.95


def test_calibration_softens_an_overconfident_output() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4000, 1)).astype(np.float32)
    # Noisy labels: P(y=1) = sigmoid(x), but the network is made to say sigmoid(4 x).
    y = (rng.random((4000, 1)) < 1 / (1 + np.exp(-x))).astype(np.float32)
    net = MLP([np.array([[4.0]], np.float32)], [np.zeros(1, np.float32)],
              np.zeros(1, np.float32), np.ones(1, np.float32))
    calibrate(net, x, y, np.ones_like(y))
    assert 3.0 < float(net.temperature[0]) < 5.5


def test_model_file_round_trip(tmp_path: Path) -> None:
    cfg = SamplingConfig()
    rng = np.random.default_rng(5)
    f, k = n_features(cfg), len(OUTPUTS)
    net = MLP([rng.normal(size=(f, 4)).astype(np.float32), rng.normal(size=(4, k)).astype(
        np.float32)], [np.zeros(4, np.float32), np.zeros(k, np.float32)],
        np.zeros(f, np.float32), np.ones(f, np.float32), np.full(k, 1.5, np.float32))
    path = CellModel((net,), None, cfg, OUTPUTS, {"note": "test"}).save(tmp_path / "m.npz")
    back = load_model(path)
    x = rng.normal(size=(3, f)).astype(np.float32)
    plain = dataclasses.replace(back, mirror_average=False)
    assert np.allclose(plain.predict(x), net.predict_proba(x), atol=0.02)  # float16 weights
    assert back.info == {"note": "test"} and back.sampling == cfg


def test_bad_model_files_raise(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot load"):
        load_model(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelError):
        load_model(bad)


def test_predict_rejects_wrong_width() -> None:
    net = MLP([np.ones((3, 2), np.float32)], [np.zeros(2, np.float32)],
              np.zeros(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="x must be"):
        net.predict_proba(np.zeros((2, 4), np.float32))
