"""Medians over many small lanes, exactly as numpy computes them but several times faster.

The reader takes medians of a few to a few hundred samples at a time, over thousands of
lanes at once (every cell, every candidate height). ``np.median`` and ``np.nanmedian`` spend
most of that time in per-call overhead (``np.nanmedian`` goes through masked arrays); a sort
along the lane and a pick of its middle gives the same numbers: the middle value, or the mean
of the two middle values computed as ``(low + high) / 2`` in the input's dtype, which is what
numpy's mean of two values is.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArrayT = NDArray[np.floating]


def _lanes_last(a: FloatArrayT, axis: int) -> FloatArrayT:
    """``a`` with ``axis`` moved last, contiguous (sorting along the last axis is fastest)."""
    if axis in (-1, a.ndim - 1):
        return a
    return np.ascontiguousarray(np.moveaxis(a, axis, -1))


def median(a: FloatArrayT, axis: int, *, keepdims: bool = False) -> FloatArrayT:
    """``np.median(a, axis=axis, keepdims=keepdims)`` for a float array, bit for bit.

    Parameters
    ----------
    a : float array with at least one element along ``axis``.
    axis : the axis reduced.
    keepdims : keep the reduced axis with length one.

    Notes
    -----
    A lane holding a NaN gives NaN, as ``np.median`` does.
    """
    a = np.asarray(a)
    if a.dtype.kind != "f":
        raise ValueError(f"median needs a float array, got dtype {a.dtype}")
    ax = axis % a.ndim
    n = a.shape[ax]
    if n == 0:
        raise ValueError("median needs at least one value along the axis")
    s = np.sort(_lanes_last(a, ax), axis=-1)
    lo, hi = s[..., (n - 1) // 2], s[..., n // 2]
    out = (lo + hi) / 2 if n % 2 == 0 else lo.copy()
    nan = np.isnan(s[..., -1])
    if np.any(nan):
        out = np.where(nan, np.nan, out).astype(a.dtype, copy=False)
    return np.expand_dims(out, ax) if keepdims else out


def nanmedian(a: FloatArrayT, axis: int) -> FloatArrayT:
    """``np.nanmedian(a, axis=axis)`` for a float array, bit for bit (NaNs ignored; a lane of
    NaNs only gives NaN, without numpy's warning)."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        raise ValueError(f"nanmedian needs a float array, got dtype {a.dtype}")
    ax = axis % a.ndim
    s = np.sort(_lanes_last(a, ax), axis=-1)  # NaNs sort last
    count = s.shape[-1] - np.count_nonzero(np.isnan(s), axis=-1)
    lo = np.take_along_axis(s, np.maximum((count - 1) // 2, 0)[..., None], axis=-1)[..., 0]
    hi = np.take_along_axis(s, (count // 2)[..., None], axis=-1)[..., 0]
    out = (lo + hi) / 2
    return np.asarray(np.where(count > 0, out, np.nan).astype(a.dtype, copy=False))
