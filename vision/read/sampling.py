"""Pixel sampling for the reader: one colour conversion of the board's neighbourhood, then
bilinear look-ups at projected points.

The reader never scans whole images: it converts the part of the frame that can hold the board
and its pieces to CIE Lab (float, L in 0..100), blurs it lightly, and samples it at the few
thousand points the piece hypotheses predict. Lab makes colour distances roughly perceptual, so
"different from the board" means the same under a warm lamp and a cold window.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.io import check_frame
from vision.read.stats import percentile_u8

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class LabPatch:
    """A Lab (float32) crop of the frame; ``origin_xy`` is its top-left pixel in the frame and
    ``scale`` the crop's resolution relative to the frame (1 or less)."""

    lab: NDArray[np.float32]
    origin_xy: tuple[int, int]
    scale: float = 1.0

    def sample(self, points_xy: FloatArray) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
        """Bilinear Lab values at (..., 2) frame pixels; returns (..., 3) values and a (...)
        mask that is False where a point falls outside the frame crop."""
        pts = np.asarray(points_xy, dtype=np.float64)
        shape = pts.shape[:-1]
        flat = pts.reshape(-1, 2)
        h, w = self.lab.shape[:2]
        # remap maps are limited to 32767 columns: fold long point lists into rows.
        n = len(flat)
        cols = 4096
        rows = max(1, -(-n // cols))
        maps = np.zeros((2, rows * cols), dtype=np.float32)
        for k, origin in enumerate(self.origin_xy):
            # ((p - origin + 0.5) * scale - 0.5) as float32, computed in place.
            c = flat[:, k] - origin
            c += 0.5
            c *= self.scale
            c -= 0.5
            maps[k, :n] = c
        x, y = maps[0, :n], maps[1, :n]
        # NaN compares False: points that are not finite are outside too.
        valid = (x >= 0) & (y >= 0) & (x <= w - 1) & (y <= h - 1)
        x[~valid] = 0.0
        y[~valid] = 0.0
        out = cv2.remap(self.lab, maps[0].reshape(rows, cols), maps[1].reshape(rows, cols),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        values = out.reshape(-1, 3)[:n]
        return values.reshape(*shape, 3), valid.reshape(shape)


def lab_patch(frame_bgr: NDArray[np.uint8], bbox_xyxy: tuple[float, float, float, float],
              blur_sigma_px: float, max_gain: float = 6.0, scale: float = 1.0) -> LabPatch:
    """Convert the ``bbox_xyxy`` part of ``frame_bgr`` (clipped to the frame) to blurred Lab.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    bbox_xyxy : region that may hold the board and its pieces, frame pixels.
    blur_sigma_px : Gaussian blur applied before conversion (0 for none).
    max_gain : largest exposure gain applied to a dim crop.
    scale : resolution of the patch relative to the frame (area-averaged when below 1; the
        blur is then applied at the reduced resolution).

    Notes
    -----
    The crop is first brought to a common exposure (its 98th percentile of the brightest
    channel to 90 % white, gain at most ``max_gain``): in a dim room a dark piece on a black
    board differs from it by a few Lab units only, and the same difference after normalising
    is comparable with a well-lit scene.
    """
    check_frame(frame_bgr)
    h, w = frame_bgr.shape[:2]
    x0 = int(np.clip(np.floor(bbox_xyxy[0]) - 2, 0, w - 1))
    y0 = int(np.clip(np.floor(bbox_xyxy[1]) - 2, 0, h - 1))
    x1 = int(np.clip(np.ceil(bbox_xyxy[2]) + 3, x0 + 1, w))
    y1 = int(np.clip(np.ceil(bbox_xyxy[3]) + 3, y0 + 1, h))
    crop = frame_bgr[y0:y1, x0:x1]
    scale = float(min(1.0, max(scale, 0.05)))
    if scale < 0.999:
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        blur_sigma_px *= scale
    if blur_sigma_px > 0.3:
        crop = cv2.GaussianBlur(crop, (0, 0), blur_sigma_px)
    bright = _brightest_percentile(crop, 98.0) if crop.size else 255.0
    gain = float(np.clip(0.9 * 255.0 / max(bright, 1.0), 0.8, max_gain))
    # min(code * gain / 255, 1) as float32, through a table of the 256 codes (same bits).
    table = np.minimum(np.arange(256, dtype=np.float32) * np.float32(gain / 255.0),
                       np.float32(1.0))
    rgb = cv2.LUT(crop, table)
    lab = cv2.cvtColor(rgb, cv2.COLOR_BGR2Lab)
    return LabPatch(lab, (x0, y0), scale)


def _brightest_percentile(crop: NDArray[np.uint8], q: float) -> float:
    """Percentile ``q`` of the brightest channel of every other pixel of a uint8 crop."""
    sub = crop[::2, ::2]
    brightest = np.maximum(np.maximum(sub[..., 0], sub[..., 1]), sub[..., 2])
    return percentile_u8(brightest, q)


def log_lightness(lab: NDArray[np.floating]) -> NDArray[np.float64]:
    """Lab colours (..., 3), L in 0..100, with the lightness as a ratio, ``40 log(L + 10)``: a
    dimmer lamp scales every surface's light alike (one unit is about one L unit at mid-dark
    tones); the chroma ``a``, ``b`` as they are."""
    out = np.array(lab, np.float64, copy=True)
    out[..., 0] = 40.0 * np.log(np.maximum(out[..., 0], 0.0) + 10.0)
    return out


def lab_distance(a: NDArray[np.float32], b: NDArray[np.float32],
                 chroma_weight: float = 1.0) -> NDArray[np.float32]:
    """Euclidean Lab distance over the last axis, chroma (a, b) weighted by ``chroma_weight``."""
    if np.size(a) < 768 and np.size(b) < 768:
        d = a - b
        return np.sqrt(d[..., 0] ** 2 + chroma_weight * (d[..., 1] ** 2 + d[..., 2] ** 2))
    # Many values: the same operations channel by channel. Differences of (..., 3) arrays
    # (broadcast: one top colour against a grid of samples) run numpy's loops over
    # three values at a time; a channel's values run together.
    d0 = a[..., 0] - b[..., 0]
    d1 = a[..., 1] - b[..., 1]
    d2 = a[..., 2] - b[..., 2]
    d0 *= d0
    d1 *= d1
    d2 *= d2
    d1 += d2
    return np.sqrt(d0 + chroma_weight * d1)
