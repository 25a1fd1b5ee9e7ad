"""A small convolutional network in numpy (inference only) and its model file.

The network reads one cell's tiled patches (``vision.learn.patches``) plus a few scalars and
gives one sigmoid per output (``vision.learn.dataset.OUTPUTS``). Layout: 3x3 convolutions with
ReLU, each but the last followed by a 2x2 max-pool, then the flattened map joined with the
scalars through one hidden layer. Batch normalisation used in training is folded into the
convolution weights, so inference is only matrix products (``benchmarks/train_cnn.py`` trains
it with PyTorch, which the package itself never needs).

Weights are stored in PyTorch's layouts (convolution ``(out, in, 3, 3)``, linear ``(out, in)``)
so that the file is a plain record of the trained network.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.dataset import OUTPUTS, REQUIRED_OUTPUTS
from vision.learn.onnx_graph import DEFAULT_ENGINE, DnnRunner, GraphWriter, check_engine
from vision.learn.patches import (
    PATCH_CHANNELS,
    PATCH_SCALARS,
    CellPatches,
    PatchConfig,
    cell_patches,
    mirror_patches,
)

F32 = NDArray[np.float32]

#: The convolutional model shipped with the package (made by ``benchmarks/train_cnn.py``).
DEFAULT_CNN_PATH = Path(__file__).with_name("cells_cnn.npz")
#: Environment variable naming another model file for :func:`default_cnn` (for measuring a
#: newly trained network with every benchmark unchanged; unset: the shipped file).
CNN_PATH_ENV = "QUARTO_VISION_CNN"


class CnnModelError(ValueError):
    """A model file is missing, unreadable or does not match this code."""


def conv3x3(x: F32, weight: F32, bias: F32) -> F32:
    """'Same' 3x3 convolution (cross-correlation, as PyTorch) of channel-last maps.

    Parameters
    ----------
    x : (N, H, W, C_in) maps.
    weight : (C_out, C_in, 3, 3) kernels; bias : (C_out,).

    Returns
    -------
    (N, H, W, C_out) maps.
    """
    n, h, w, c = x.shape
    if weight.shape[1:] != (c, 3, 3):
        raise ValueError(f"kernels {weight.shape} do not fit {c} input channels")
    padded = np.zeros((n, h + 2, w + 2, c), dtype=x.dtype)
    padded[:, 1:-1, 1:-1] = x
    # im2col with the 9 taps outermost and the channels innermost. Each pixel's channels are
    # copied as one opaque element (a void scalar of all its bytes): 5x faster than copying
    # 4 floats at a time, and the same bytes.
    pixel = np.dtype((np.void, c * padded.itemsize))
    src = padded.view(pixel)[..., 0]
    cols = np.empty((n, h, w, 9), dtype=pixel)
    for dy in range(3):
        for dx in range(3):
            cols[:, :, :, 3 * dy + dx] = src[:, dy:dy + h, dx:dx + w]
    cols = cols.view(x.dtype)
    kernel = weight.transpose(2, 3, 1, 0).reshape(9 * c, weight.shape[0])
    out = cols.reshape(n * h * w, 9 * c) @ kernel + bias
    return np.asarray(out.reshape(n, h, w, -1), dtype=np.float32)


def conv3x3_rows(x: F32, weight: F32, bias: F32) -> F32:
    """:func:`conv3x3` for a few large maps (the board network's): im2col of the three column
    taps only, and the three row taps as the same columns shifted by whole rows - three
    matrix products over views of one array, a third of the copying. 10-15% faster on maps
    of 64x36 pixels and more; slower on small ones (each image's two padding rows are
    computed and dropped). The sums are grouped differently from ``conv3x3``'s, so the last
    bits differ.

    Returns a view of (N, H, W, C_out) maps.
    """
    n, h, w, c = x.shape
    if weight.shape[1:] != (c, 3, 3):
        raise ValueError(f"kernels {weight.shape} do not fit {c} input channels")
    c_out = weight.shape[0]
    padded = np.zeros((n, h + 2, w + 2, c), dtype=x.dtype)
    padded[:, 1:-1, 1:-1] = x
    pixel = np.dtype((np.void, c * padded.itemsize))
    src = padded.view(pixel)[..., 0]
    cols = np.empty((n, h + 2, w, 3), dtype=pixel)
    for dx in range(3):
        cols[:, :, :, dx] = src[:, :, dx:dx + w]
    flat = cols.view(x.dtype).reshape(n * (h + 2) * w, 3 * c)
    kernel = weight.transpose(2, 3, 1, 0).reshape(3, 3 * c, c_out)
    rows = len(flat) - 2 * w
    out = np.empty((n * (h + 2) * w, c_out), dtype=np.float32)
    np.matmul(flat[:rows], kernel[0], out=out[:rows])
    out[:rows] += flat[w:w + rows] @ kernel[1]
    out[:rows] += flat[2 * w:] @ kernel[2]
    out[:rows] += bias
    return out.reshape(n, h + 2, w, c_out)[:, :h]


def max_pool2(x: F32) -> F32:
    """2x2 max-pool of (N, H, W, C) maps with even H and W."""
    pooled = np.maximum(np.maximum(x[:, 0::2, 0::2], x[:, 0::2, 1::2]),
                        np.maximum(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))
    return np.asarray(pooled, dtype=np.float32)


@dataclass(frozen=True)
class ConvNet:
    """Folded weights of the trained network.

    Attributes
    ----------
    convs : ((weight (out, in, 3, 3), bias (out,)), ...); every layer but the last is pooled.
    hidden, head : (weight (out, in), bias (out,)) of the hidden and the output layer; the
        hidden layer's input is the last map flattened in (channel, row, column) order, then
        the scalars.
    temperature : (n_outputs,) logits are divided by these (calibration on held-out renders).
    """

    convs: tuple[tuple[F32, F32], ...]
    hidden: tuple[F32, F32]
    head: tuple[F32, F32]
    temperature: F32

    @property
    def n_outputs(self) -> int:
        return int(self.head[0].shape[0])

    def logits(self, images: F32, scalars: F32) -> F32:
        """(N, n_outputs) calibrated logits of (N, C, H, W) patches and (N, S) scalars."""
        x = np.ascontiguousarray(np.asarray(images, np.float32).transpose(0, 2, 3, 1))
        for k, (w, b) in enumerate(self.convs):
            x = conv3x3(x, w, b)
            if k < len(self.convs) - 1:
                x = max_pool2(x)  # before the ReLU: the same maps, a quarter of the work
            x = np.maximum(x, 0.0)
        flat = x.transpose(0, 3, 1, 2).reshape(len(x), -1)
        z = np.concatenate([flat, np.asarray(scalars, np.float32)], axis=1)
        h = np.maximum(z @ self.hidden[0].T + self.hidden[1], 0.0)
        out = h @ self.head[0].T + self.head[1]
        return np.asarray(out / self.temperature, dtype=np.float32)

    def predict_proba(self, images: F32, scalars: F32) -> F32:
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(images, scalars))), np.float32)

    def predict_proba_with(self, images: F32, scalars: F32, engine: str) -> F32:
        """:meth:`predict_proba` by ``engine`` (``vision.learn.onnx_graph.ENGINES``):
        ``"opencv"`` runs the same layers through ``cv2.dnn`` (equal up to float rounding),
        falling back to numpy when OpenCV cannot run them."""
        if check_engine(engine) == "opencv" and len(images):
            out = self._dnn.run({"images": images, "scalars": scalars})
            if out is not None:
                return out
        return self.predict_proba(images, scalars)

    @cached_property
    def _dnn(self) -> DnnRunner:
        return DnnRunner(cell_net_onnx(self), "cell network")


def cell_net_onnx(net: ConvNet) -> bytes:
    """The network as an ONNX model (``vision.learn.onnx_graph``): inputs ``images``
    (N, C, H, W) and ``scalars`` (N, S), output ``probs`` (N, n_outputs), the layers of
    :meth:`ConvNet.logits` and the sigmoid."""
    g = GraphWriter("cell_net")
    x = "images"
    for k, (w, b) in enumerate(net.convs):
        x = g.conv(x, f"conv{k}", w, b, relu=False)
        if k < len(net.convs) - 1:
            x = g.max_pool2(x)
        x = g.node("Relu", [x])
    z = g.node("Concat", [g.node("Flatten", [x], axis=1), "scalars"], axis=1)
    h = g.node("Relu", [g.node("Gemm", [z, g.weight("hidden_w", net.hidden[0]),
                                        g.weight("hidden_b", net.hidden[1])], transB=1)])
    out = g.node("Gemm", [h, g.weight("head_w", net.head[0]),
                          g.weight("head_b", net.head[1])], transB=1)
    out = g.node("Div", [out, g.weight("temperature", net.temperature)])
    g.node("Sigmoid", [out], output="probs")
    c_in = int(net.convs[0][0].shape[1])
    return g.model_bytes([("images", ["n", c_in, "h", "w"]), ("scalars", ["n", "s"])],
                         [("probs", ["n", net.n_outputs])])


@dataclass(frozen=True)
class ConvCellModel:
    """A trained network (or an ensemble, averaged) and the patch layout it reads."""

    nets: tuple[ConvNet, ...]
    patches: PatchConfig
    outputs: tuple[str, ...]
    info: dict[str, object]
    #: Average each prediction with that of the mirror-image patches (twice the work; stored
    #: in the model file, so an ensemble can give it up to keep the reading time).
    mirror_average: bool = True

    def column(self, name: str) -> int:
        return self.outputs.index(name)

    def predict_patches(self, images: F32, scalars: F32, engine: str = DEFAULT_ENGINE) -> F32:
        """(N, len(outputs)) probabilities of (N, C, H, W) patches and (N, S) scalars;
        ``engine`` as ``ConvNet.predict_proba_with`` (the opencv one reads both views in
        one batch)."""
        views = [images, mirror_patches(images)] if self.mirror_average else [images]
        if check_engine(engine) == "numpy":
            return np.asarray(
                np.mean([net.predict_proba(v, scalars) for net in self.nets for v in views],
                        axis=0),
                dtype=np.float32,
            )
        batch = np.concatenate(views)
        batch_scalars = np.concatenate([np.asarray(scalars, np.float32)] * len(views))
        n = len(images)
        probs = [net.predict_proba_with(batch, batch_scalars, engine).reshape(len(views), n, -1)
                 for net in self.nets]
        return np.asarray(np.mean(np.concatenate(probs), axis=0), dtype=np.float32)

    def predict(
        self, frame_bgr: NDArray[np.uint8], view: BoardView, engine: str = DEFAULT_ENGINE
    ) -> tuple[F32, NDArray[np.float64]]:
        """(16, len(outputs)) probabilities of a board's cells and their (16, 2) centres."""
        probs, p = self.predict_frame(frame_bgr, view, engine)
        return probs, p.centers_px

    def predict_frame(
        self, frame_bgr: NDArray[np.uint8], view: BoardView, engine: str = DEFAULT_ENGINE
    ) -> tuple[F32, CellPatches]:
        """:meth:`predict`, with the patches read (their ``pyramid`` serves further patches
        of the same frame)."""
        p = cell_patches(frame_bgr, view, config=self.patches)
        return self.predict_patches(p.images, p.scalars, engine), p

    def save(self, path: str | Path) -> Path:
        """Write the model as a compressed ``.npz`` (float32 weights)."""
        path = Path(path)
        meta = {"patches": self.patches.as_dict(), "outputs": list(self.outputs),
                "info": self.info, "nets": len(self.nets), "convs": len(self.nets[0].convs),
                "mirror_average": self.mirror_average}
        arrays: dict[str, np.ndarray] = {}
        for k, net in enumerate(self.nets):
            for j, (w, b) in enumerate(net.convs):
                arrays[f"n{k}_conv{j}_w"], arrays[f"n{k}_conv{j}_b"] = w, b
            arrays[f"n{k}_hidden_w"], arrays[f"n{k}_hidden_b"] = net.hidden
            arrays[f"n{k}_head_w"], arrays[f"n{k}_head_b"] = net.head
            arrays[f"n{k}_temperature"] = net.temperature
        arrays = {k: np.asarray(v, np.float32) for k, v in arrays.items()}
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
        return path


def load_cnn(path: str | Path | None = None) -> ConvCellModel:
    """Load a convolutional model file (default: the packaged one).

    Raises
    ------
    CnnModelError
        When the file is missing or unreadable, or its layout does not match this code.
    """
    path = DEFAULT_CNN_PATH if path is None else Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            a = {k: data[k] for k in data.files}
        meta = json.loads(str(a.pop("meta")))
        nets = tuple(
            ConvNet(
                convs=tuple((a[f"n{k}_conv{j}_w"], a[f"n{k}_conv{j}_b"])
                            for j in range(meta["convs"])),
                hidden=(a[f"n{k}_hidden_w"], a[f"n{k}_hidden_b"]),
                head=(a[f"n{k}_head_w"], a[f"n{k}_head_b"]),
                temperature=a[f"n{k}_temperature"],
            )
            for k in range(meta["nets"])
        )
        patches = PatchConfig.from_dict(meta["patches"])
        outputs = tuple(meta["outputs"])
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise CnnModelError(f"{path}: cannot load the cell model: {exc}") from exc
    if outputs not in (OUTPUTS, REQUIRED_OUTPUTS):
        raise CnnModelError(f"{path}: outputs {outputs} do not match this code's {OUTPUTS}")
    if not nets:
        raise CnnModelError(f"{path}: no network")
    side = 2 * patches.size
    final = side // 2 ** (meta["convs"] - 1)
    for net in nets:
        if net.convs[0][0].shape[1] != PATCH_CHANNELS or net.n_outputs != len(outputs):
            raise CnnModelError(f"{path}: a network does not take {PATCH_CHANNELS} channels "
                                f"or give {len(outputs)} outputs")
        n_in = net.convs[-1][0].shape[0] * final * final + len(PATCH_SCALARS)
        if net.hidden[0].shape[1] != n_in:
            raise CnnModelError(f"{path}: hidden layer takes {net.hidden[0].shape[1]} inputs; "
                                f"the patch layout gives {n_in}")
    # Files written before the flag was stored were all mirror-averaged.
    return ConvCellModel(nets, patches, outputs, dict(meta.get("info", {})),
                         mirror_average=bool(meta.get("mirror_average", True)))


@lru_cache(maxsize=1)
def default_cnn() -> ConvCellModel:
    """The packaged convolutional model, loaded once per process; the file named by the
    environment variable ``QUARTO_VISION_CNN`` instead when it is set and not empty."""
    return load_cnn(os.environ.get(CNN_PATH_ENV) or DEFAULT_CNN_PATH)
