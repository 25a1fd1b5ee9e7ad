"""Exposure of the board: brighten a frame whose board the camera left too dark.

A webcam meters the whole scene. Over a light table, or in a dim room, it can leave the board
one or two stops darker than the readers were taught on; on a black board the dark pieces then
sink into the board's own black (8-bit steps and sensor noise swallow the difference). What the
readers need is the board exposed the way it typically is in their training renders, so the
frame is brightened, as a camera's exposure would have done, until the brightest part of the
board region (its 99th percentile of linear luminance: light pieces, painted rings, a light
wood) reaches the level it typically has there. A frame is never darkened, and the gain is
bounded (beyond two stops the noise, not the scene, would be amplified).

The gain is applied in linear light through a lookup table on the 8-bit sRGB values (a camera
changes exposure before its tone curve), so colours keep their hue.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView

_CODES = np.arange(256) / 255.0
#: Linear value of every 8-bit sRGB code.
_LINEAR = np.where(_CODES <= 0.04045, _CODES / 12.92, ((_CODES + 0.055) / 1.055) ** 2.4)
#: Luminance weights of B, G, R (Rec. 709).
_LUMA_BGR = np.array([0.0722, 0.7152, 0.2126])
#: The board region measured: the board's square shrunk about its centre to this share.
_INSET = 0.94


@dataclass(frozen=True)
class ExposureConfig:
    """Knobs of :func:`normalise_exposure`."""

    #: Linear luminance the brightest 1 % of the board region is brought up to: about the
    #: median of the cell network's training renders (0.48 over seeds 100000-100399).
    target_highlight: float = 0.5
    #: Percentile of the board region's luminance that stands for its bright parts.
    percentile: float = 99.0
    #: At most this gain (2 stops): beyond it noise, not the scene, would be amplified.
    max_gain: float = 4.0
    #: Gains below this leave the frame as it is (not worth a resampled frame).
    min_gain: float = 1.05
    #: The region is measured on every ``step``-th pixel.
    step: int = 2

    def __post_init__(self) -> None:
        if not 0.0 < self.target_highlight <= 1.0:
            raise ValueError(f"target_highlight must be within (0, 1], got "
                             f"{self.target_highlight!r}")
        if not 0.0 < self.percentile <= 100.0:
            raise ValueError(f"percentile must be within (0, 100], got {self.percentile!r}")
        if self.max_gain < 1.0 or self.min_gain < 1.0 or self.step < 1:
            raise ValueError(f"max_gain and min_gain must be >= 1 and step >= 1, got "
                             f"{self.max_gain!r}, {self.min_gain!r}, {self.step!r}")


def board_highlight(frame_bgr: NDArray[np.uint8], view: BoardView, step: int = 2,
                    percentile: float = 99.0) -> float | None:
    """Linear luminance at ``percentile`` inside the board's outline, its outer 3 % left out
    (the board's rim, and the sliver of table that pixels on the outline also show); None
    when the outline is not in the frame."""
    h, w = frame_bgr.shape[:2]
    corners = view.project(_INSET * view.spec.corners())
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    crop = frame_bgr[y0:y1:step, x0:x1:step]
    mask = np.zeros(crop.shape[:2], np.uint8)
    poly = np.round((corners - [x0, y0]) / step).astype(np.int32)
    cv2.fillPoly(mask, [poly], 1)
    inside = crop[mask > 0]
    if len(inside) == 0:
        return None
    luminance = _LINEAR[inside] @ _LUMA_BGR
    return float(np.percentile(luminance, percentile))


def gain_table(gain: float) -> NDArray[np.uint8]:
    """(256,) lookup table multiplying linear light by ``gain`` on 8-bit sRGB codes."""
    y = np.clip(_LINEAR * gain, 0.0, 1.0)
    srgb = np.where(y <= 0.0031308, 12.92 * y, 1.055 * y ** (1.0 / 2.4) - 0.055)
    return np.clip(np.round(255.0 * srgb), 0, 255).astype(np.uint8)


def exposure_gain(frame_bgr: NDArray[np.uint8], view: BoardView,
                  config: ExposureConfig | None = None) -> float:
    """The gain (>= 1) that brings the board's highlights to ``target_highlight``."""
    cfg = config or ExposureConfig()
    level = board_highlight(frame_bgr, view, cfg.step, cfg.percentile)
    if level is None:
        return 1.0
    return float(np.clip(cfg.target_highlight / max(level, 1e-6), 1.0, cfg.max_gain))


def normalise_exposure(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ExposureConfig | None = None
) -> tuple[NDArray[np.uint8], float]:
    """``frame_bgr`` brightened so the board is exposed as the readers expect, and the gain
    used (1.0: the frame itself is returned, unchanged).

    Raises
    ------
    ValueError
        When ``frame_bgr`` is not an (H, W, 3) uint8 image.
    """
    if (not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8
            or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3):
        raise ValueError("frame must be an (H, W, 3) uint8 BGR image")
    cfg = config or ExposureConfig()
    gain = exposure_gain(frame_bgr, view, cfg)
    if gain < cfg.min_gain:
        return frame_bgr, 1.0
    return cv2.LUT(frame_bgr, gain_table(gain)), gain
