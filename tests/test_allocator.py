"""The glibc allocator thresholds set at import (vision.allocator)."""

from __future__ import annotations

import ctypes
import sys

import pytest

from vision import allocator


def test_thresholds_are_left_alone_when_the_user_set_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000000")
    assert allocator.keep_freed_memory() is False


def test_nothing_is_done_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator.keep_freed_memory() is False


def test_set_on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"):
        monkeypatch.delenv(name, raising=False)
    if not sys.platform.startswith("linux") or not hasattr(ctypes.CDLL(None),
                                                          "gnu_get_libc_version"):
        pytest.skip("not glibc")
    assert allocator.keep_freed_memory() is True
