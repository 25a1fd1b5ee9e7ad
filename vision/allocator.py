"""glibc's allocator kept from handing memory back to the system after every frame.

A frame's work allocates and frees many arrays of 0.1-10 MB (network maps, im2col columns,
edge profiles, Lab crops). With glibc's default, dynamic thresholds, blocks above the mmap
threshold are mapped and unmapped on every allocation, and freed memory at the top of the
heap is trimmed back; the next frame then faults every page in again (about 1200 page faults
per board read). Fixing the thresholds keeps that memory in the process: arrays up to 32 MB
come from the heap, and up to 128 MB of freed memory stays there. The results are the same
bit for bit; only the time changes (``analyze`` about 2-3 ms faster per frame, session 22).

Nothing is done on other C libraries (macOS, Windows, musl), or when the user set either
threshold through glibc's environment variables.
"""

from __future__ import annotations

import ctypes
import os
import sys

#: ``mallopt`` parameter numbers (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (glibc's largest allowed value on 64-bit).
MMAP_THRESHOLD = 32 << 20
#: Freed memory at the top of the heap is returned to the system only above this.
TRIM_THRESHOLD = 128 << 20
_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def keep_freed_memory() -> bool:
    """Fix glibc's mmap and trim thresholds (see the module docstring); True when set."""
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _ENV):
        return False
    try:
        libc = ctypes.CDLL(None)
        if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
            return False
        mallopt = libc.mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError):
        return False
