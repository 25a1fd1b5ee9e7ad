"""A small fully convolutional network that marks where the 16 cell centres lie.

The ring candidates of ``vision.locate.candidates`` need the rings themselves: at a low camera
angle, on a crowded board or under low contrast they are few or wrong, and no lattice can be
grown from them. This network looks at the whole (downscaled) frame and answers a different
question: *where are the centres of the board's cells*, whether a ring, a piece's foot or a
hand is there. Its answer is only a starting guess: the grid it implies is fitted to the ring
edges and judged by the same checks as every other guess, so the network cannot make a board
out of nothing.

Layout (a small U-Net): the frame, scaled to ``input_width`` pixels and normalised per image,
is folded 2x2 into channels (half resolution), goes through 3x3 convolutions with ReLU and two
2x2 max-pools (1/8 of the input resolution), then back up by nearest-neighbour doubling joined
with the maps of the same resolution, to half the input resolution. There a 1x1 layer gives
three maps: the logit that a cell centre falls in the pixel, and the centre's offset within
the pixel (x, y). Batch normalisation used in training is folded into the convolutions
(``benchmarks/train_board_net.py`` trains it with PyTorch, which the package never needs).

Coordinates: a heat-map pixel (i, j) has its centre at image pixel ``heat_to_image``; image
pixel centres are integers (OpenCV's convention).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learn.cnn import conv3x3_rows, max_pool2
from vision.learn.onnx_graph import DnnRunner, GraphWriter, check_engine

F32 = NDArray[np.float32]
FloatArray = NDArray[np.float64]

log = logging.getLogger(__name__)

#: The network shipped with the package (made by ``benchmarks/train_board_net.py``).
DEFAULT_BOARD_NET_PATH = Path(__file__).with_name("board_net.npz")
#: Layer names, in the order of the forward pass (the model file stores one weight and one
#: bias per name).
LAYERS: tuple[str, ...] = (
    "e2a", "e2b", "e3a", "e3b", "e4a", "e4b", "d3", "d3p", "d2", "head")
#: The decoder layers whose input is an upsampled map joined with a skip connection, and the
#: layer whose output is the upsampled map.
DECODER_LAYERS: dict[str, str] = {"d3": "e4b", "d2": "d3p"}
#: The input's sides are padded to a multiple of this (the 2x2 fold and two 2x2 pools).
PAD_MULTIPLE = 8


class BoardNetError(ValueError):
    """A board-net model file is missing, unreadable or does not match this code."""


@dataclass(frozen=True)
class BoardNet:
    """Folded weights of the cell-centre network.

    Attributes
    ----------
    layers : {name: (weight (out, in, k, k), bias (out,))} for every name of ``LAYERS``
        (k = 3, or 1 for ``d3p`` and ``head``).
    input_width : the frame's longer side is scaled to this many pixels before the network.
    """

    layers: dict[str, tuple[F32, F32]]
    input_width: int

    def forward(self, x: F32) -> F32:
        """(H/2, W/2, 3) maps (centre logit, offset x, offset y) of one (H, W, 3) input."""
        def conv(name: str, t: F32, relu: bool = True) -> F32:
            w, b = self.layers[name]
            if w.shape[2:] == (1, 1):
                out = np.asarray(t @ w[:, :, 0, 0].T + b, dtype=np.float32)
            else:
                out = conv3x3_rows(t, w, b)
            return np.maximum(out, 0.0) if relu else out

        def up_conv(name: str, low: F32, skip: F32) -> F32:
            # conv(name, [up(low), skip]): the upsampled part at low resolution (see
            # ``conv3x3_upsampled``), the same maps for a third of the work.
            out = conv3x3_rows(skip, self._skip_kernels[name], self.layers[name][1])
            out += conv3x3_upsampled(low, self._upsampled_kernels[name])
            return np.maximum(out, 0.0)

        e2 = conv("e2b", conv("e2a", space_to_depth(x)[None]))
        e3 = conv("e3b", conv("e3a", max_pool2(e2)))
        e4 = conv("e4b", conv("e4a", max_pool2(e3)))
        d3 = up_conv("d3", e4, e3)
        d2 = up_conv("d2", conv("d3p", d3), e2)
        return conv("head", d2, relu=False)[0]

    def forward_with(self, x: F32, engine: str) -> F32:
        """:meth:`forward` by ``engine`` (``vision.learn.onnx_graph.ENGINES``): ``"opencv"``
        runs the same layers through ``cv2.dnn`` (the sums grouped differently: equal up to
        float rounding), falling back to numpy when OpenCV cannot run them."""
        if check_engine(engine) == "opencv":
            folded = space_to_depth(x).transpose(2, 0, 1)[None]
            out = self._dnn.run({"x": folded})
            if out is not None:
                return np.ascontiguousarray(out[0].transpose(1, 2, 0))
        return self.forward(x)

    @cached_property
    def _dnn(self) -> DnnRunner:
        return DnnRunner(board_net_onnx(self), "board network")

    @cached_property
    def _upsampled_kernels(self) -> dict[str, F32]:
        """The decoder layers' kernels over the upsampled maps (their first input channels),
        folded for ``conv3x3_upsampled``."""
        return {name: fold_upsampled_kernel(self.layers[name][0][:, :self._up_channels(name)])
                for name in DECODER_LAYERS}

    @cached_property
    def _skip_kernels(self) -> dict[str, F32]:
        """The decoder layers' kernels over the skip connection's maps (the channels after
        the upsampled ones)."""
        return {name: np.ascontiguousarray(self.layers[name][0][:, self._up_channels(name):])
                for name in DECODER_LAYERS}

    def _up_channels(self, name: str) -> int:
        """Channels of the upsampled maps at the input of decoder layer ``name``."""
        return int(self.layers[DECODER_LAYERS[name]][0].shape[0])


def board_net_onnx(net: BoardNet) -> bytes:
    """The network as an ONNX model (``vision.learn.onnx_graph``): input ``x`` of shape
    (1, 12, H/2, W/2), the frame folded by ``space_to_depth`` in channel-first order; output
    (1, 3, H/2, W/2). The decoder's upsampling is a plain nearest-neighbour doubling (OpenCV's
    transposed convolution, the folded form of ``conv3x3_upsampled``, measured slower)."""
    g = GraphWriter("board_net")

    def conv(t: str, name: str, relu: bool = True) -> str:
        return g.conv(t, name, *net.layers[name], relu=relu)

    def up_conv(name: str, low: str, skip: str) -> str:
        return conv(g.node("Concat", [g.upsample2(low), skip], axis=1), name)

    e2 = conv(conv("x", "e2a"), "e2b")
    e3 = conv(conv(g.max_pool2(e2), "e3a"), "e3b")
    e4 = conv(conv(g.max_pool2(e3), "e4a"), "e4b")
    d3 = up_conv("d3", e4, e3)
    d2 = up_conv("d2", conv(d3, "d3p"), e2)
    out = conv(d2, "head", relu=False)
    return g.model_bytes([("x", [1, 4 * 3, "h", "w"])], [(out, [1, 3, "h", "w"])])


#: Rows (or columns) of a 3x3 kernel that fall on the same pixel of a map upsampled 2x by
#: nearest-neighbour doubling, for an output pixel of parity 0 (even) and 1 (odd): each
#: output pixel sees a 2x2 block of the small map, the first row at offset -1 for even
#: pixels and 0 for odd ones.
_FOLD_TAPS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (((0,), (1, 2)),
                                                                    ((0, 1), (2,)))


def fold_upsampled_kernel(weight: F32) -> F32:
    """(C_out, C_in, 3, 3) kernels -> (2, 2, 4 * C_in, C_out): for each output parity
    (row, column), the 2x2 kernel on the small map that gives the same sums as the 3x3
    kernel on the doubled map; rows (tap row, tap column, channel) as ``conv3x3_upsampled``
    lays out its columns."""
    c_out, c_in = weight.shape[:2]
    folded = np.zeros((2, 2, 2, 2, c_in, c_out), np.float64)
    for a in range(2):
        for b in range(2):
            for ty, rows in enumerate(_FOLD_TAPS[a]):
                for tx, cols in enumerate(_FOLD_TAPS[b]):
                    taps = weight[:, :, list(rows)][:, :, :, list(cols)].astype(np.float64)
                    folded[a, b, ty, tx] = taps.sum(axis=(2, 3)).T
    return np.ascontiguousarray(folded.reshape(2, 2, 4 * c_in, c_out), dtype=np.float32)


def conv3x3_upsampled(x: F32, folded: F32) -> F32:
    """'Same' 3x3 convolution (no bias) of ``x`` upsampled 2x by nearest-neighbour doubling,
    computed on ``x`` itself: each parity of output pixel is a 2x2 convolution of the small
    map (kernels from ``fold_upsampled_kernel``), 4 instead of 9 taps per input pixel and
    no doubled map. The sums equal the plain convolution's up to float rounding.

    Parameters
    ----------
    x : (N, H, W, C) maps; folded : (2, 2, 4C, C_out).

    Returns
    -------
    (N, 2H, 2W, C_out) maps.
    """
    n, h, w, c = x.shape
    c_out = folded.shape[-1]
    padded = np.zeros((n, h + 2, w + 2, c), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = x
    # Pixels copied as whole elements, as in ``conv3x3``.
    pixel = np.dtype((np.void, c * padded.itemsize))
    src = padded.view(pixel)[..., 0]
    cols = np.empty((n, h, w, 4), dtype=pixel)
    out = np.empty((n, h, 2, w, 2, c_out), np.float32)
    for a in range(2):
        for b in range(2):
            for ty in range(2):
                for tx in range(2):
                    cols[:, :, :, 2 * ty + tx] = src[:, a + ty:a + ty + h, b + tx:b + tx + w]
            prod = cols.view(np.float32).reshape(n * h * w, 4 * c) @ folded[a, b]
            out[:, :, a, :, b] = prod.reshape(n, h, w, c_out)
    return out.reshape(n, 2 * h, 2 * w, c_out)


def space_to_depth(x: F32) -> F32:
    """(H, W, C) -> (H/2, W/2, 4C): each 2x2 block of pixels becomes one pixel's channels, in
    the order (row offset, column offset, channel) - PyTorch's ``pixel_unshuffle`` orders
    them (channel, row offset, column offset); the training script permutes to match."""
    h, w, c = x.shape
    blocks = x.reshape(h // 2, 2, w // 2, 2, c).transpose(0, 2, 1, 3, 4)
    return np.ascontiguousarray(blocks.reshape(h // 2, w // 2, 4 * c), dtype=np.float32)


def network_input(frame: NDArray[np.uint8], input_width: int,
                  ) -> tuple[F32, tuple[float, float], tuple[int, int]]:
    """The network input of a BGR frame (see ``normalise_input``).

    The frame's longer side is scaled to ``input_width`` pixels by area averaging (a
    landscape frame as in training; a portrait or very narrow one costs no more).

    Returns
    -------
    x : (H, W, 3) float32, H and W multiples of ``PAD_MULTIPLE``.
    scale_xy : (sx, sy) image pixels -> input pixels along each axis (rounding makes them
        differ slightly).
    size_wh : the scaled frame's size inside the padded input.
    """
    h, w = frame.shape[:2]
    s = input_width / max(w, h)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    x = normalise_input(cv2.resize(frame, size, interpolation=cv2.INTER_AREA))
    return x, (size[0] / w, size[1] / h), size


def normalise_input(small: NDArray[np.uint8]) -> F32:
    """A scaled BGR frame as the network reads it: each channel has its mean removed and the
    whole is divided by its standard deviation, so exposure and white balance do not matter;
    the sides are padded with zeros (the mean) to a multiple of ``PAD_MULTIPLE``."""
    x = small.astype(np.float32) / 255.0
    # The channel means as ``x.reshape(-1, 3).mean(axis=0)`` (pixel by pixel, in float32,
    # then divided by the count): OpenCV's row reduction adds in the same order (bit for bit,
    # tests/locate/test_finder_speed.py), 5x faster.
    n = x.shape[0] * x.shape[1]
    mean = cv2.reduce(x.reshape(n, 3), 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F)[0] / np.float32(n)
    for c in range(3):  # channel by channel: numpy's loop over pixels of 3 costs 3x more
        x[..., c] -= mean[c]
    x /= float(x.std()) + 0.02
    ph = -x.shape[0] % PAD_MULTIPLE
    pw = -x.shape[1] % PAD_MULTIPLE
    if ph or pw:
        x = np.pad(x, ((0, ph), (0, pw), (0, 0)))
    return np.ascontiguousarray(x, dtype=np.float32)


def image_to_heat(points: FloatArray, scale_xy: tuple[float, float] | float) -> FloatArray:
    """Image pixel coordinates -> heat-map pixel coordinates (half the input resolution)."""
    return (np.asarray(points, dtype=np.float64) + 0.5) * np.asarray(scale_xy) / 2.0 - 0.5


def heat_to_image(points: FloatArray, scale_xy: tuple[float, float] | float) -> FloatArray:
    """Heat-map pixel coordinates -> image pixel coordinates."""
    return (np.asarray(points, dtype=np.float64) + 0.5) * 2.0 / np.asarray(scale_xy) - 0.5


@dataclass(frozen=True)
class CellPeaks:
    """Likely cell centres in one frame.

    Attributes
    ----------
    points : (N, 2) image pixels, strongest first.
    scores : (N,) probabilities (0..1) that a cell centre is there.
    """

    points: FloatArray
    scores: FloatArray


def cell_peaks(frame: NDArray[np.uint8], net: BoardNet, *, min_score: float,
               max_peaks: int, engine: str = "numpy", input_width: int = 0) -> CellPeaks:
    """Local maxima of the network's cell-centre map, refined by its offsets.

    Parameters
    ----------
    frame : (H, W, 3) uint8 BGR image.
    net : BoardNet
    min_score : float
        Weakest peak kept (probability).
    max_peaks : int
        Most peaks kept (strongest first): a board has 16.
    engine : str
        How the network is run (``BoardNet.forward_with``).
    input_width : int
        The frame's longer side scaled to this many pixels instead of the network's own
        ``input_width`` (0): the board's cells come out smaller than in training.

    Returns
    -------
    CellPeaks
    """
    x, scale_xy, (w, h) = network_input(frame, input_width or net.input_width)
    # Heat-map pixels over the padding are not part of the frame.
    heat, scores = map_peaks(net.forward_with(x, engine)[: (h + 1) // 2, : (w + 1) // 2], min_score,
                             max_peaks)
    return CellPeaks(heat_to_image(heat, scale_xy), scores)


def map_peaks(out: F32, min_score: float, max_peaks: int) -> tuple[FloatArray, FloatArray]:
    """Peaks of the network's maps: pixels whose centre logit is the largest of their 3x3
    neighbourhood and above ``min_score``, strongest first (at most ``max_peaks``), placed
    by the offset maps. Returns heat-map pixel coordinates (N, 2) and probabilities (N,)."""
    logit = np.ascontiguousarray(out[:, :, 0])
    local_max = cv2.dilate(logit, np.ones((3, 3), np.uint8))
    threshold = float(np.log(min_score / (1.0 - min_score)))
    ys, xs = np.nonzero((logit >= local_max) & (logit > threshold))
    z = logit[ys, xs].astype(np.float64)
    order = np.argsort(-z)[:max_peaks]
    ys, xs, z = ys[order], xs[order], z[order]
    heat = np.stack([xs + out[ys, xs, 1], ys + out[ys, xs, 2]], axis=1).astype(np.float64)
    return heat.reshape(-1, 2), 1.0 / (1.0 + np.exp(-z))


def save_board_net(net: BoardNet, path: str | Path) -> Path:
    """Write a model file (weights in PyTorch's layout, plus the input width)."""
    path = Path(path)
    arrays: dict[str, Any] = {f"{name}_{part}": arr for name, (w, b) in net.layers.items()
                              for part, arr in (("w", w), ("b", b))}
    arrays["meta"] = np.array(json.dumps({"input_width": net.input_width,
                                          "layers": list(LAYERS)}))
    np.savez_compressed(path, **arrays)
    return path


def load_board_net(path: str | Path | None = None) -> BoardNet:
    """Read a model file; ``BoardNetError`` when it is missing, unreadable or does not fit
    this code (layer names, weight shapes: a small input is run through it once)."""
    path = Path(path) if path is not None else DEFAULT_BOARD_NET_PATH
    try:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            if tuple(meta.get("layers", ())) != LAYERS:
                raise BoardNetError(f"board network {path} has layers {meta.get('layers')}, "
                                    f"this code expects {list(LAYERS)}")
            layers = {name: (np.asarray(data[f"{name}_w"], np.float32),
                             np.asarray(data[f"{name}_b"], np.float32)) for name in LAYERS}
            net = BoardNet(layers, int(meta["input_width"]))
        out = net.forward(np.zeros((PAD_MULTIPLE, PAD_MULTIPLE, 3), np.float32))
    except BoardNetError:
        raise
    except (OSError, KeyError, ValueError, TypeError, AttributeError) as exc:
        raise BoardNetError(f"cannot read board network {path}: {exc}") from exc
    if out.shape != (PAD_MULTIPLE // 2, PAD_MULTIPLE // 2, 3):
        raise BoardNetError(f"board network {path} gives maps of shape {out.shape}")
    return net


@lru_cache(maxsize=1)
def default_board_net() -> BoardNet | None:
    """The shipped network, or None when the package has none or it cannot be read (the
    finder then relies on ring candidates and outlines alone; a broken file is logged once).
    """
    if not DEFAULT_BOARD_NET_PATH.exists():
        return None
    try:
        return load_board_net(DEFAULT_BOARD_NET_PATH)
    except BoardNetError as exc:
        log.warning("board network not used: %s", exc)
        return None
