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

The hand-crafted reader also scales its own Lab crop (``sampling.lab_patch``: the crop's 98th
percentile in sRGB codes to 0.9), so for it this step changes little; it is the network, which
sees colours relative to the board, that needed it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.io import check_frame

_CODES = np.arange(256) / 255.0
#: Linear value of every 8-bit sRGB code.
_LINEAR = np.where(_CODES <= 0.04045, _CODES / 12.92, ((_CODES + 0.055) / 1.055) ** 2.4)
#: Luminance weights of B, G, R (Rec. 709).
_LUMA_BGR = np.array([0.0722, 0.7152, 0.2126])


@dataclass(frozen=True)
class ExposureConfig:
    """Knobs of :func:`normalise_exposure`."""

    #: Linear luminance the brightest 1 % of the board region is brought up to: about the
    #: median of the cell network's training renders (0.48 over seeds 100000-100399).
    target_highlight: float = 0.5
    #: Percentile of the board region's luminance that stands for its bright parts (light
    #: pieces, painted rings, a light wood): high enough to skip the dark board itself, low
    #: enough that a specular glint on under 1 % of the board does not set the exposure.
    percentile: float = 99.0
    #: At most this gain (2 stops): beyond it noise, not the scene, would be amplified.
    max_gain: float = 4.0
    #: Gains below this leave the frame as it is (under 0.07 stops: not worth a new frame).
    min_gain: float = 1.05
    #: The region measured is the board's square shrunk about its centre to this share: its
    #: rim, and the sliver of table that pixels on the outline also show, are left out.
    inset: float = 0.94
    #: At most about this many pixels of the region are read (every k-th row and column), so
    #: a board filling a 4K frame costs what one in a webcam frame does.
    max_samples: int = 40_000

    def __post_init__(self) -> None:
        if not 0.0 < self.target_highlight <= 1.0:
            raise ValueError(f"target_highlight must be within (0, 1], got "
                             f"{self.target_highlight!r}")
        if not 0.0 < self.percentile <= 100.0:
            raise ValueError(f"percentile must be within (0, 100], got {self.percentile!r}")
        if self.max_gain < 1.0 or self.min_gain < 1.0:
            raise ValueError(f"max_gain and min_gain must be >= 1, got {self.max_gain!r}, "
                             f"{self.min_gain!r}")
        if not 0.0 < self.inset <= 1.0 or self.max_samples < 1:
            raise ValueError(f"inset must be within (0, 1] and max_samples >= 1, got "
                             f"{self.inset!r}, {self.max_samples!r}")


def board_highlight(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ExposureConfig | None = None
) -> float | None:
    """Linear luminance of the bright parts of the board region.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board in the frame.
    config : which region (``inset``), which percentile, how many samples.

    Returns
    -------
    The ``percentile`` of linear luminance inside the board's square shrunk to ``inset``, or
    None when that region is not in the frame.
    """
    cfg = config or ExposureConfig()
    h, w = frame_bgr.shape[:2]
    corners = view.project(cfg.inset * view.spec.corners())
    if not np.all(np.isfinite(corners)):
        return None
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    step = max(1, int(np.ceil(np.sqrt((x1 - x0) * (y1 - y0) / cfg.max_samples))))
    crop = frame_bgr[y0:y1:step, x0:x1:step]
    mask = np.zeros(crop.shape[:2], np.uint8)
    poly = np.round((corners - [x0, y0]) / step).astype(np.int32)
    cv2.fillPoly(mask, [poly], 1)
    inside = crop[mask > 0]
    if len(inside) == 0:
        return None
    luminance = _LINEAR[inside] @ _LUMA_BGR
    return float(np.percentile(luminance, cfg.percentile))


def gain_table(gain: float) -> NDArray[np.uint8]:
    """(256,) lookup table multiplying linear light by ``gain`` on 8-bit sRGB codes."""
    y = np.clip(_LINEAR * gain, 0.0, 1.0)
    srgb = np.where(y <= 0.0031308, 12.92 * y, 1.055 * y ** (1.0 / 2.4) - 0.055)
    return np.clip(np.round(255.0 * srgb), 0, 255).astype(np.uint8)


def exposure_gain(frame_bgr: NDArray[np.uint8], view: BoardView,
                  config: ExposureConfig | None = None) -> float:
    """The gain that brings the board's highlights (:func:`board_highlight`) up to
    ``target_highlight``, within [1, ``max_gain``]; 1 when the board is not in the frame."""
    cfg = config or ExposureConfig()
    level = board_highlight(frame_bgr, view, cfg)
    if level is None:
        return 1.0
    return float(np.clip(cfg.target_highlight / max(level, 1e-6), 1.0, cfg.max_gain))


def normalise_exposure(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ExposureConfig | None = None
) -> tuple[NDArray[np.uint8], float]:
    """Brighten ``frame_bgr`` so the board is exposed as the readers expect.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board in the frame (a ``BoardView``).
    config : target, bounds and region of the measurement.

    Returns
    -------
    frame : the brightened frame, or ``frame_bgr`` itself when the gain is below ``min_gain``.
    gain : the gain applied (1.0 when none).

    Raises
    ------
    ValueError
        When ``frame_bgr`` is not an (H, W, 3) uint8 image.
    """
    check_frame(frame_bgr)
    cfg = config or ExposureConfig()
    gain = exposure_gain(frame_bgr, view, cfg)
    if gain < cfg.min_gain:
        return frame_bgr, 1.0
    return cv2.LUT(frame_bgr, gain_table(gain)), gain
