"""Colour grain of a small sensor: smooth a frame's chroma before the readers see it.

A colour camera records one channel per photosite (a Bayer mosaic) and interpolates the other
two; in a dim room, where the sensor's gain is high, each site's noise is spread over its
neighbours with a different weight per channel. The grain that comes out is coloured and a
few pixels wide, blotches that survive JPEG's halved chroma resolution. Photoreal_dev's
darkest scenes carry it (red-green grain at 2-4 pixel scales as strong as, or stronger than,
the grain in brightness, session 38), our renders until session 38 did not (their noise was
drawn independently at every pixel, most of it shared by the three channels, and JPEG's
chroma subsampling averaged the rest away), so the cell network never learnt to ignore it.

What a piece is can be read from brightness edges (outline, top, bore) and from colours that
are uniform over tens of pixels (a piece's wood or plastic, the board). Blurring only the
chroma channels (YCrCb) over a few pixels removes most of the grain's colour while leaving
the brightness, and so the outlines, untouched; a piece's colour only loses sharpness at its
edge, over a few pixels of a 30-200 pixel wide piece. The grain's size is a property of the
sensor's pixel grid, not of the board, so the blur is given in pixels.

Only the region around the board and its tallest pieces is filtered (at most the whole
frame), so the cost follows the board's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView


@dataclass(frozen=True)
class GrainConfig:
    """Knobs of :func:`smooth_chroma`."""

    #: Gaussian sigma, in pixels, of the blur of the frame's two chroma channels (YCrCb);
    #: 0 switches the step off (the default until measured on held-out data).
    chroma_sigma_px: float = 0.0
    #: Height above the board, in metres, up to which the filtered region reaches (pieces
    #: stand at most about 10 cm tall).
    reach_m: float = 0.12

    def __post_init__(self) -> None:
        if not np.isfinite(self.chroma_sigma_px) or self.chroma_sigma_px < 0:
            raise ValueError(f"chroma_sigma_px must be >= 0, got {self.chroma_sigma_px!r}")
        if not np.isfinite(self.reach_m) or self.reach_m < 0:
            raise ValueError(f"reach_m must be >= 0, got {self.reach_m!r}")


def _board_region(view: BoardView, shape: tuple[int, ...], reach_m: float,
                  pad: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) pixel box around the board's top and its corners ``reach_m`` above,
    padded; the whole frame when the projection fails."""
    h, w = shape[:2]
    corners = view.spec.corners()
    pts = np.vstack([np.column_stack([corners, np.zeros(len(corners))]),
                     np.column_stack([corners, np.full(len(corners), reach_m)])])
    px = view.project(pts)
    if not np.all(np.isfinite(px)):
        return 0, 0, w, h
    x0 = int(np.clip(np.floor(px[:, 0].min()) - pad, 0, w))
    y0 = int(np.clip(np.floor(px[:, 1].min()) - pad, 0, h))
    x1 = int(np.clip(np.ceil(px[:, 0].max()) + pad + 1, 0, w))
    y1 = int(np.clip(np.ceil(px[:, 1].max()) + pad + 1, 0, h))
    return x0, y0, x1, y1


def smooth_chroma(frame_bgr: NDArray[np.uint8], view: BoardView,
                  config: GrainConfig | None = None) -> NDArray[np.uint8]:
    """The frame with its chroma (YCrCb Cr and Cb) blurred by ``config.chroma_sigma_px``
    around the board; brightness is kept. The frame itself is returned when the knob is 0."""
    cfg = config or GrainConfig()
    if cfg.chroma_sigma_px <= 0 or not view:
        return frame_bgr
    pad = int(np.ceil(3.0 * cfg.chroma_sigma_px)) + 1
    x0, y0, x1, y1 = _board_region(view, frame_bgr.shape, cfg.reach_m, pad)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return frame_bgr
    crop = frame_bgr[y0:y1, x0:x1]
    ycc = cv2.cvtColor(crop, cv2.COLOR_BGR2YCrCb)
    chroma = cv2.GaussianBlur(ycc[:, :, 1:], (0, 0), cfg.chroma_sigma_px)
    ycc = np.dstack([ycc[:, :, :1], chroma])
    out = frame_bgr.copy()
    out[y0:y1, x0:x1] = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    return out
