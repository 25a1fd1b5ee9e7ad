"""The package's two small networks as ONNX graphs, run by OpenCV's ``cv2.dnn``.

The networks' weights live in ``.npz`` files and their numpy forward passes (im2col and
matrix products, ``vision.learn.cnn``, ``vision.locate.board_net``) are the reference. This
module writes the same layers as an ONNX model in memory - a few dozen lines of protobuf
encoding, no ``onnx`` package and no file beside the ``.npz`` - and hands it to
``cv2.dnn.readNetFromONNX``, whose convolutions are OpenCV's optimised ones. The outputs
equal the numpy ones up to float rounding (the sums are grouped differently).

Only what the two graphs need is written: float tensors, int/float/string/ints attributes,
graph inputs and outputs with fixed or named dimensions.
"""

from __future__ import annotations

import logging
import struct
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]

log = logging.getLogger(__name__)

#: Ways to run a network: ``"opencv"`` (``cv2.dnn``; falls back to numpy when OpenCV cannot
#: read or run the graph) and ``"numpy"`` (the reference, bit for bit as before).
ENGINES: tuple[str, ...] = ("opencv", "numpy")
#: The networks' default (``LearnedReaderConfig.cnn_engine``, ``LocateConfig.board_net_engine``):
#: numpy. Session 32 measured opencv's pass 10-18% faster, but ``find_board`` and the reader
#: only 0.6-1 ms faster, within run-to-run noise; the board network's float rounding moved one
#: tested board 0.17 pitch, and a one-image ``analyze`` pays about 13 ms to build the graphs.
DEFAULT_ENGINE = "numpy"

#: ONNX's TensorProto.DataType FLOAT.
_FLOAT = 1
#: ONNX IR version and default-domain opset written (OpenCV 4.5+ reads both).
IR_VERSION = 7
OPSET = 13


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # int64 fields: two's complement, ten bytes
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field_no: int, wire: int) -> bytes:
    return _varint(field_no << 3 | wire)


def _int(field_no: int, n: int) -> bytes:
    return _key(field_no, 0) + _varint(n)


def _bytes(field_no: int, data: bytes) -> bytes:
    return _key(field_no, 2) + _varint(len(data)) + data


def _str(field_no: int, s: str) -> bytes:
    return _bytes(field_no, s.encode())


def _tensor(name: str, array: NDArray[np.floating]) -> bytes:
    """TensorProto: dims (1), data_type (2), name (8), raw_data (9, little-endian)."""
    a = np.ascontiguousarray(array, dtype="<f4")
    dims = b"".join(_int(1, int(d)) for d in a.shape)
    return dims + _int(2, _FLOAT) + _str(8, name) + _bytes(9, a.tobytes())


def _attribute(name: str, value: int | float | str | Sequence[int]) -> bytes:
    """AttributeProto: name (1), f (2), i (3), s (4), ints (8), type (20)."""
    out = _str(1, name)
    if isinstance(value, bool | int):
        return out + _int(3, int(value)) + _int(20, 2)
    if isinstance(value, float):
        return out + _key(2, 5) + struct.pack("<f", value) + _int(20, 1)
    if isinstance(value, str):
        return out + _str(4, value) + _int(20, 3)
    return out + b"".join(_int(8, int(v)) for v in value) + _int(20, 7)


def _value_info(name: str, dims: Sequence[int | str]) -> bytes:
    """ValueInfoProto of a float tensor: name (1), type (2) -> tensor_type (1) ->
    elem_type (1), shape (2) -> dim (1) -> dim_value (1) | dim_param (2)."""
    shape = b"".join(_bytes(1, _str(2, d) if isinstance(d, str) else _int(1, d))
                     for d in dims)
    tensor_type = _int(1, _FLOAT) + _bytes(2, shape)
    return _str(1, name) + _bytes(2, _bytes(1, tensor_type))


@dataclass
class GraphWriter:
    """Nodes and weights of one graph, added in order; ``model_bytes`` encodes the model."""

    name: str
    nodes: list[bytes] = field(default_factory=list)
    initializers: list[bytes] = field(default_factory=list)
    _count: int = 0

    def weight(self, name: str, array: NDArray[np.floating]) -> str:
        self.initializers.append(_tensor(name, array))
        return name

    def node(self, op: str, inputs: Iterable[str], output: str | None = None,
             **attributes: int | float | str | Sequence[int]) -> str:
        """Append a node; returns its output's name (``output`` or a fresh one)."""
        self._count += 1
        out = output or f"{op.lower()}{self._count}"
        body = b"".join(_str(1, i) for i in inputs) + _str(2, out)
        body += _str(3, f"n{self._count}_{op}") + _str(4, op)
        body += b"".join(_bytes(5, _attribute(k, v)) for k, v in attributes.items())
        self.nodes.append(body)
        return out

    def model_bytes(self, inputs: Sequence[tuple[str, Sequence[int | str]]],
                    outputs: Sequence[tuple[str, Sequence[int | str]]]) -> bytes:
        """ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8);
        GraphProto: node (1), name (2), initializer (5), input (11), output (12)."""
        graph = b"".join(_bytes(1, n) for n in self.nodes) + _str(2, self.name)
        graph += b"".join(_bytes(5, t) for t in self.initializers)
        graph += b"".join(_bytes(11, _value_info(n, d)) for n, d in inputs)
        graph += b"".join(_bytes(12, _value_info(n, d)) for n, d in outputs)
        opset = _str(1, "") + _int(2, OPSET)
        return (_int(1, IR_VERSION) + _str(2, "quarto-vision") + _bytes(7, graph)
                + _bytes(8, opset))

    def conv(self, x: str, name: str, weight: F32, bias: F32, relu: bool = True) -> str:
        """'Same' convolution (3x3 or 1x1, stride 1), optionally followed by a ReLU."""
        k = int(weight.shape[2])
        out = self.node("Conv", [x, self.weight(f"{name}_w", weight),
                                 self.weight(f"{name}_b", bias)],
                        kernel_shape=[k, k], pads=[k // 2] * 4, strides=[1, 1])
        return self.node("Relu", [out]) if relu else out

    def max_pool2(self, x: str) -> str:
        return self.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])

    def upsample2(self, x: str) -> str:
        """Nearest-neighbour doubling (each pixel becomes a 2x2 block)."""
        scales = self.weight(f"{x}_scales", np.array([1, 1, 2, 2], np.float32))
        return self.node("Resize", [x, "", scales], mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor")


class DnnRunner:
    """One ONNX graph run by ``cv2.dnn``, read on first use.

    A ``cv2.dnn.Net`` keeps its inputs and buffers between calls, so one call at a time
    (a lock); it cannot be pickled, so a pickled runner carries the graph's bytes and reads
    it again. ``run`` returns None when OpenCV cannot read the graph (logged once): the
    caller falls back to its numpy forward pass.
    """

    def __init__(self, model: bytes, name: str) -> None:
        self.model = model
        self.name = name
        self._net: Any = None
        self._failed = False
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[type[DnnRunner], tuple[bytes, str]]:
        return (DnnRunner, (self.model, self.name))

    def run(self, inputs: dict[str, F32]) -> F32 | None:
        """The graph's (first) output for these named inputs, or None when unusable."""
        with self._lock:
            if self._failed:
                return None
            try:
                if self._net is None:
                    self._net = cv2.dnn.readNetFromONNX(np.frombuffer(self.model, np.uint8))
                for name, array in inputs.items():
                    self._net.setInput(np.ascontiguousarray(array, dtype=np.float32), name)
                return np.asarray(self._net.forward(), dtype=np.float32)
            except cv2.error as exc:
                self._failed = True
                self._net = None
                log.warning("%s: OpenCV cannot run the network, numpy used from now: %s",
                            self.name, " ".join(str(exc).split())[-200:])
                return None


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"network engine must be one of {ENGINES}, got {engine!r}")
    return engine
