"""The fast medians against numpy's own, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read.stats import median, nanmedian, percentile_u8

SHAPES = [((16, 30, 12, 3), 2), ((16, 30, 9), 2), ((16, 30), 1), ((9,), 0), ((10,), 0),
          ((16, 25, 3), 1), ((5, 2, 7), 0), ((4, 6), -1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_median_is_numpys(shape: tuple[int, ...], axis: int, dtype: type) -> None:
    rng = np.random.default_rng(11)
    a = (np.round(rng.normal(size=shape) * 3.0) / 3.0).astype(dtype)  # many ties
    for keepdims in (False, True):
        want = np.median(a, axis=axis, keepdims=keepdims)
        got = median(a, axis=axis, keepdims=keepdims)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    a[rng.random(shape) < 0.2] = np.nan  # a NaN anywhere in a lane gives NaN
    np.testing.assert_array_equal(median(a, axis=axis), np.median(a, axis=axis))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axis"), SHAPES)
def test_nanmedian_is_numpys(shape: tuple[int, ...], axis: int, dtype: type) -> None:
    rng = np.random.default_rng(12)
    a = rng.normal(size=shape).astype(dtype)
    b = np.where(rng.random(shape) < 0.4, np.nan, a).astype(dtype)
    first = [slice(None)] * a.ndim
    first[axis] = 0
    b[tuple(first)] = a[tuple(first)]  # at least one value per lane
    want = np.nanmedian(b, axis=axis)
    got = nanmedian(b, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_all_nan_lane_is_nan_without_warning() -> None:
    a = np.array([[1.0, 2.0, np.nan], [np.nan, np.nan, np.nan]])
    np.testing.assert_array_equal(nanmedian(a, axis=1), [1.5, np.nan])


def test_percentile_u8_is_numpys() -> None:
    rng = np.random.default_rng(13)
    for _ in range(300):
        n = int(rng.integers(1, 2000))
        lo = int(rng.integers(0, 256))
        values = rng.integers(lo, int(rng.integers(lo, 256)) + 1, n).astype(np.uint8)
        for q in (0.0, 2.0, 50.0, 97.0, 98.0, 99.9, 100.0):
            assert percentile_u8(values, q) == float(np.percentile(values, q))
    image = rng.integers(0, 256, (31, 17)).astype(np.uint8)
    assert percentile_u8(image, 98.0) == float(np.percentile(image, 98.0))


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="float"):
        median(np.arange(5), axis=0)
    with pytest.raises(ValueError, match="float"):
        nanmedian(np.arange(5), axis=0)
    with pytest.raises(ValueError, match="at least one"):
        median(np.zeros((3, 0)), axis=1)
    with pytest.raises(ValueError, match="uint8"):
        percentile_u8(np.zeros(4), 50.0)
    with pytest.raises(ValueError, match="within"):
        percentile_u8(np.zeros(4, np.uint8), 101.0)
