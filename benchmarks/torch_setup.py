"""PyTorch for the training scripts (training only: the package never imports it)."""

from __future__ import annotations

import sys
from types import ModuleType

import cv2


def load_torch(seed: int, threads: int) -> ModuleType | None:
    """PyTorch seeded and limited to ``threads`` threads (OpenCV to one), or None with a
    one-line message on stderr when it is not installed."""
    try:
        import torch
    except ImportError:
        print("training needs PyTorch: pip install torch==2.13.0", file=sys.stderr)
        return None
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    cv2.setNumThreads(1)
    return torch
