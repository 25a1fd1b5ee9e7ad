"""A small multi-output perceptron in numpy: training, calibration, saving and loading.

One hidden stack shared by all outputs; each output is an independent sigmoid (occupied, the
four attributes, and the visible shares). Targets may be soft (a visible fraction) and each
(sample, output) pair has a weight, 0 where the target is undefined (the colour of an empty
cell). Training is minibatch Adam on the weighted cross-entropy with L2 weight decay and
Gaussian input noise; calibration is one temperature per output fitted on held-out data.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

F32 = NDArray[np.float32]


@dataclass(frozen=True)
class TrainOptions:
    """Knobs of :func:`train_mlp`."""

    hidden: tuple[int, ...] = (256, 64)  # hidden layer widths
    epochs: int = 30
    batch: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-3  # L2 on the weights (not the biases): ~1000 inputs, few boards
    input_noise: float = 0.3  # std of Gaussian noise added to standardised inputs
    label_smoothing: float = 0.01  # hard 0/1 targets pulled this far towards 0.5
    seed: int = 0


@dataclass
class MLP:
    """Weights of a trained network plus its input standardisation and output temperatures."""

    weights: list[F32]
    biases: list[F32]
    mean: F32
    scale: F32
    temperature: F32 = field(default_factory=lambda: np.ones(0, np.float32))

    @property
    def n_inputs(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.weights[-1].shape[1])

    def logits(self, x: F32) -> F32:
        """(N, n_outputs) raw logits of (N, n_inputs) features (no temperature)."""
        h = (np.asarray(x, np.float32) - self.mean) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return np.asarray(h @ self.weights[-1] + self.biases[-1], dtype=np.float32)

    def predict_proba(self, x: F32) -> F32:
        """(N, n_outputs) calibrated probabilities."""
        x = np.asarray(x, np.float32)
        if x.ndim != 2 or x.shape[1] != self.n_inputs:
            raise ValueError(f"x must be (N, {self.n_inputs}), got {x.shape}")
        z = self.logits(x)
        t = self.temperature if self.temperature.size else np.ones(self.n_outputs, np.float32)
        return np.asarray(_sigmoid(z / t), dtype=np.float32)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Flat arrays for ``np.savez``; weights are stored as float16 (half the size; their
        rounding moves the outputs by far less than the validation error)."""
        out: dict[str, np.ndarray] = {"mean": self.mean, "scale": self.scale,
                                      "temperature": self.temperature,
                                      "n_layers": np.array(len(self.weights))}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            out[f"w{i}"] = w.astype(np.float16)
            out[f"b{i}"] = b.astype(np.float32)
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> MLP:
        n = int(arrays["n_layers"])
        return cls(
            weights=[np.asarray(arrays[f"w{i}"], np.float32) for i in range(n)],
            biases=[np.asarray(arrays[f"b{i}"], np.float32) for i in range(n)],
            mean=np.asarray(arrays["mean"], np.float32),
            scale=np.asarray(arrays["scale"], np.float32),
            temperature=np.asarray(arrays["temperature"], np.float32),
        )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def weighted_bce(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean weighted binary cross-entropy (over the weight mass)."""
    p = np.clip(p, 1e-6, 1.0 - 1e-6)
    loss = -(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) * w
    return float(loss.sum() / max(float(w.sum()), 1e-9))


def train_mlp(
    x: F32, y: F32, w: F32, *, options: TrainOptions | None = None,
    x_val: F32 | None = None, y_val: F32 | None = None, w_val: F32 | None = None,
) -> MLP:
    """Train a network on features ``x`` (N, F), targets ``y`` (N, K) in [0, 1] and weights
    ``w`` (N, K) (0 = target undefined).

    Returns the network with unit temperatures (see :func:`calibrate`). Logs the training and,
    when given, validation loss per epoch.
    """
    opt = options or TrainOptions()
    x = np.asarray(x, np.float32)
    y = np.asarray(y, np.float32)
    w = np.asarray(w, np.float32)
    if x.ndim != 2 or y.shape != w.shape or y.shape[0] != x.shape[0]:
        raise ValueError(f"shapes do not match: x {x.shape}, y {y.shape}, w {w.shape}")
    rng = np.random.default_rng(opt.seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    ys = y * (1.0 - 2.0 * opt.label_smoothing) + opt.label_smoothing
    sizes = [x.shape[1], *opt.hidden, y.shape[1]]
    weights = [
        (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        for a, b in itertools.pairwise(sizes)
    ]
    biases = [np.zeros(b, np.float32) for b in sizes[1:]]
    params = weights + biases
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    beta1, beta2, step = 0.9, 0.999, 0
    n = len(xs)
    net = MLP(weights, biases, mean.astype(np.float32), scale.astype(np.float32))
    for epoch in range(opt.epochs):
        order = rng.permutation(n)
        lr = opt.learning_rate * 0.5 * (1.0 + np.cos(np.pi * epoch / opt.epochs))  # cosine
        total = 0.0
        for start in range(0, n, opt.batch):
            idx = order[start:start + opt.batch]
            xb = xs[idx] + opt.input_noise * rng.standard_normal(
                (len(idx), xs.shape[1])).astype(np.float32)
            yb, wb = ys[idx], w[idx]
            acts = [xb]
            for wt, bs in zip(weights[:-1], biases[:-1], strict=True):
                acts.append(np.maximum(acts[-1] @ wt + bs, 0.0))
            p = _sigmoid(acts[-1] @ weights[-1] + biases[-1])
            norm = max(float(wb.sum()), 1.0)
            total += float(
                -(wb * (yb * np.log(np.clip(p, 1e-6, 1)) + (1 - yb) * np.log(
                    np.clip(1 - p, 1e-6, 1)))).sum()
            )
            grad = ((p - yb) * wb / norm).astype(np.float32)
            gw: list[F32] = [np.zeros(0, np.float32)] * len(weights)
            gb: list[F32] = [np.zeros(0, np.float32)] * len(weights)
            for layer in range(len(weights) - 1, -1, -1):
                gw[layer] = acts[layer].T @ grad + opt.weight_decay * weights[layer]
                gb[layer] = grad.sum(axis=0)
                if layer:
                    grad = (grad @ weights[layer].T) * (acts[layer] > 0)
            step += 1
            for k, (prm, g) in enumerate(zip(params, gw + gb, strict=True)):
                m1[k] = beta1 * m1[k] + (1 - beta1) * g
                m2[k] = beta2 * m2[k] + (1 - beta2) * g * g
                mh = m1[k] / (1 - beta1**step)
                vh = m2[k] / (1 - beta2**step)
                prm -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        msg = f"epoch {epoch + 1}/{opt.epochs}: train loss {total / max(float(w.sum()), 1):.4f}"
        if x_val is not None and y_val is not None and w_val is not None:
            msg += f", validation loss {weighted_bce(net.predict_proba(x_val), y_val, w_val):.4f}"
        log.info(msg)
    return net


def calibrate(net: MLP, x: F32, y: F32, w: F32) -> MLP:
    """Fit one temperature per output on held-out data (minimum weighted cross-entropy).

    A temperature above 1 softens an overconfident output. Returns the same network with
    ``temperature`` set.
    """
    z = net.logits(x)
    grid = np.exp(np.linspace(np.log(0.5), np.log(5.0), 60))
    temps = np.ones(net.n_outputs, np.float32)
    for k in range(net.n_outputs):
        if w[:, k].sum() <= 0:
            continue
        losses = [weighted_bce(_sigmoid(z[:, k] / t), y[:, k], w[:, k]) for t in grid]
        temps[k] = grid[int(np.argmin(losses))]
    net.temperature = temps
    return net
