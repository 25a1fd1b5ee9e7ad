"""Camera simulation: what turns a clean linear render into something a webcam would save.

Order follows the physics of a camera: lens (distortion, defocus, motion blur, vignetting), then
sensor (white balance gains, exposure, shot and read noise), then the image processor (tone
curve, gamma, saturation) and finally JPEG compression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry.camera import Intrinsics
from vision.render.scene import Effects


@dataclass(frozen=True)
class SensorConfig:
    """Noise and tone constants of a small-sensor webcam."""

    target_mid_grey: float = 0.2  # auto exposure puts the mean scene luminance here (linear)
    shot_noise: float = 0.0009  # variance per unit signal at base gain (photon noise)
    read_noise: float = 0.0025  # standard deviation at base gain (electronics)
    chroma_share: float = 0.25  # part of the noise that differs between channels (webcams
    # denoise colour more than brightness)
    white_point: float = 2.2  # linear value the tone curve maps to pure white
    highlight_limit: float = 1.3  # auto exposure keeps the brightest 3% below this (linear)


def distortion_maps(intr: Intrinsics, margin_px: int) -> tuple[np.ndarray, np.ndarray]:
    """For each pixel of the distorted output image, where to sample the pinhole render.

    The pinhole render is ``margin_px`` larger on every side (its principal point shifted by
    the margin), so barrel distortion can pull in content from beyond the frame. Computed on a
    coarse grid with ``cv2.undistortPoints`` and interpolated: distortion is smooth.
    """
    w, h = intr.size_wh
    step = 8
    gx = np.arange(0, w + step, step, dtype=np.float32)
    gy = np.arange(0, h + step, step, dtype=np.float32)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(grid, intr.matrix, intr.dist).reshape(len(gy), len(gx), 2)
    mx = (und[..., 0] * intr.fx + intr.cx + margin_px).astype(np.float32)
    my = (und[..., 1] * intr.fy + intr.cy + margin_px).astype(np.float32)
    # Interpolate the coarse grid exactly (grid node k sits at pixel k * step).
    fx = np.broadcast_to(np.arange(w, dtype=np.float32)[None, :] / step, (h, w))
    fy = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None] / step, (h, w))
    fx, fy = np.ascontiguousarray(fx), np.ascontiguousarray(fy)
    mx = cv2.remap(mx, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.remap(my, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(mx), np.ascontiguousarray(my)


def required_margin(intr: Intrinsics) -> int:
    """Pixels of extra border the pinhole render needs to fill the distorted frame."""
    if not intr.has_distortion:
        return 0
    w, h = intr.size_wh
    border = np.array(
        [
            [0, 0],
            [w - 1, 0],
            [0, h - 1],
            [w - 1, h - 1],
            [w / 2, 0],
            [0, h / 2],
            [w - 1, h / 2],
            [w / 2, h - 1],
        ],
        np.float32,
    ).reshape(-1, 1, 2)
    und = cv2.undistortPoints(border, intr.matrix, intr.dist).reshape(-1, 2)
    px = und * np.array([intr.fx, intr.fy]) + np.array([intr.cx, intr.cy])
    over = max(
        0.0, float(-px.min()), float((px[:, 0] - (w - 1)).max()), float((px[:, 1] - (h - 1)).max())
    )
    return math.ceil(over) + 4


_LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)


def auto_exposure(linear_rgb: np.ndarray, config: SensorConfig) -> float:
    """Exposure scale of a centre-weighted meter that also protects the highlights.

    The mean luminance of the central 60% goes to ``target_mid_grey``, unless that would push
    the brightest 3% of the frame past ``highlight_limit`` (a dark table around a light board
    must not blow the board out).
    """
    h, w = linear_rgb.shape[:2]
    sub = linear_rgb[::4, ::4] @ _LUMA
    centre = sub[h // 20 : -(h // 20) or None, w // 20 : -(w // 20) or None]
    mean = float(centre.mean())
    p97 = float(np.percentile(sub, 97))
    return min(config.target_mid_grey / max(mean, 1e-6), config.highlight_limit / max(p97, 1e-6))


def motion_kernel(length: int, angle_deg: float) -> np.ndarray:
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2.0
    a = math.radians(angle_deg)
    d = np.array([math.cos(a), math.sin(a)]) * c
    cv2.line(
        k,
        (round(c - d[0]), round(c - d[1])),
        (round(c + d[0]), round(c + d[1])),
        1.0,
        1,
        cv2.LINE_AA,
    )
    return k / max(float(k.sum()), 1e-6)


def add_sensor_noise(linear: np.ndarray, gain: float, rng: np.random.Generator,
                     config: SensorConfig) -> np.ndarray:
    """Shot and read noise of a sensor at ``gain`` added to an exposed linear (H, W, 3)
    float32 image; part of it shared by the three channels (luminance), the rest per
    channel (chroma), in ``config.chroma_share``."""
    h, w = linear.shape[:2]
    var = np.clip(linear, 0, None) * (config.shot_noise * gain) + (config.read_noise * gain) ** 2
    lum_noise = rng.standard_normal((h, w, 1), dtype=np.float32)
    chroma = rng.standard_normal((h, w, 3), dtype=np.float32)
    noise = (1.0 - config.chroma_share) * lum_noise + config.chroma_share * chroma
    return linear + np.sqrt(var) * noise


#: Linear raw values are demosaiced as 16-bit codes: ``(x + pedestal) * scale``; the black-level
#: pedestal keeps the negative half of the noise on dark surfaces (as a camera's black level
#: does), and ``(65535 / scale) - pedestal`` (3.75) is far above the tone curve's white.
_RAW_PEDESTAL = 0.25
_RAW_SCALE = 16384.0


def add_bayer_noise(linear: np.ndarray, wb_gains: np.ndarray, gain: float,
                    rng: np.random.Generator, config: SensorConfig) -> np.ndarray:
    """Sensor noise as a colour sensor makes it, for an exposed, white-balanced linear
    (H, W, 3) float32 RGB image.

    Each photosite of an RGGB Bayer mosaic records one channel of the raw image (the light
    before the camera's white balance, ``linear / wb_gains``) with its own shot and read
    noise (the same constants as :func:`add_sensor_noise`, all of it per site); the white
    balance gains then scale signal and noise alike (a warm lamp's weak blue is lifted,
    grain and all), and the camera interpolates the two missing channels at each pixel
    (edge-aware demosaicing). The grain comes out coloured and a few pixels wide, blotches
    that JPEG's halved chroma keeps, where independent noise at every pixel is averaged
    away by it and by any reader that samples more than a pixel.
    """
    h, w = linear.shape[:2]
    g = np.asarray(wb_gains, np.float32)
    sites = ((0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 2))  # (row parity, column parity, channel)
    mosaic = np.empty((h, w), np.float32)
    for r, c, ch in sites:
        mosaic[r::2, c::2] = linear[r::2, c::2, ch] / g[ch]
    var = np.clip(mosaic, 0, None) * (config.shot_noise * gain) + (config.read_noise * gain) ** 2
    mosaic += np.sqrt(var) * rng.standard_normal((h, w), dtype=np.float32)
    for r, c, ch in sites:
        mosaic[r::2, c::2] *= g[ch]
    codes = np.clip((mosaic + _RAW_PEDESTAL) * _RAW_SCALE + 0.5, 0, 65535).astype(np.uint16)
    rgb = cv2.cvtColor(codes, cv2.COLOR_BayerBG2RGB_EA)  # OpenCV's name for an RGGB mosaic
    return rgb.astype(np.float32) / np.float32(_RAW_SCALE) - np.float32(_RAW_PEDESTAL)


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    """Linear values in 0..1 -> the sRGB transfer curve (0..1)."""
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def develop(
    linear_rgb: np.ndarray,
    effects: Effects,
    illuminant: np.ndarray,
    rng: np.random.Generator | None,
    config: SensorConfig | None = None,
    *,
    exposure_scale: float | None = None,
    origin_xy: tuple[int, int] = (0, 0),
    full_wh: tuple[int, int] | None = None,
) -> tuple[np.ndarray, float]:
    """Linear scene radiance ``(H, W, 3) float32`` RGB -> camera image ``(H, W, 3) uint8`` BGR.

    Returns the image and the exposure scale used (videos reuse it across frames, like an
    auto-exposure that settled). ``rng=None`` leaves out sensor noise (videos add it per frame
    with :class:`NoisePool`); ``origin_xy``/``full_wh`` place a crop in the frame so vignetting
    matches. JPEG compression is applied by :func:`jpeg_round_trip`.
    """
    cfg = config or SensorConfig()
    img = linear_rgb
    if effects.blur_sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), effects.blur_sigma)
    if effects.motion_len > 1:
        img = cv2.filter2D(img, -1, motion_kernel(effects.motion_len, effects.motion_angle_deg))
    h, w = img.shape[:2]
    fw, fh = full_wh or (w, h)
    if effects.vignetting > 0:
        yy = (np.arange(h, dtype=np.float32) + origin_xy[1] - fh / 2) / (fw / 2)
        xx = (np.arange(w, dtype=np.float32) + origin_xy[0] - fw / 2) / (fw / 2)
        r2 = yy[:, None] ** 2 + xx[None, :] ** 2
        img = img * (1.0 - effects.vignetting * 0.5 * r2)[:, :, None]
    gains = (1.0 / np.maximum(illuminant, 1e-3)) ** effects.wb_strength
    gains = (gains / gains[1]).astype(np.float32)
    img = img * gains[None, None, :]
    if exposure_scale is None:
        exposure_scale = auto_exposure(img, cfg) * 2.0**effects.exposure_bias_ev
    img = img * np.float32(exposure_scale)
    if rng is not None and effects.sensor == "bayer":
        img = add_bayer_noise(img, gains, effects.iso_gain, rng, cfg)
    elif rng is not None:
        img = add_sensor_noise(img, effects.iso_gain, rng, cfg)
    # Tone curve on luminance (extended Reinhard with a white point), so hues survive; colours
    # pushed past white lose saturation instead of turning yellow or cyan.
    x = np.clip(img, 0.0, None)
    lum = x @ _LUMA + np.float32(1e-6)
    lw2 = cfg.white_point**2
    mapped = lum * (1.0 + lum / lw2) / (1.0 + lum) * 1.25
    x = x * (mapped / lum)[:, :, None]
    peak = x.max(axis=2, keepdims=True)
    over = np.clip(peak - 1.0, 0.0, 1.0)
    x = x / np.maximum(peak, 1.0)
    x = np.clip(x + (1.0 - x) * over, 0.0, 1.0)
    srgb = linear_to_srgb(x)
    if effects.contrast > 0:
        # Cameras add an S-curve after gamma: deeper shadows, brighter highlights ("punch").
        smooth = srgb * srgb * (3.0 - 2.0 * srgb)
        srgb = srgb + np.float32(effects.contrast) * (smooth - srgb)
    if abs(effects.saturation - 1.0) > 1e-3:
        grey = srgb.mean(axis=2, keepdims=True)
        srgb = grey + (srgb - grey) * np.float32(effects.saturation)
    out = np.clip(srgb * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(out[:, :, ::-1]), float(exposure_scale)


class NoisePool:
    """Sensor noise for video frames, added to finished 8-bit frames.

    Drawing fresh Gaussian noise for every 720p frame costs more than rendering it, so a few
    noise fields are drawn once and each frame takes one at a random offset. The level follows
    the scene's gain (dim scenes are noisier), in 8-bit steps after the tone curve.
    """

    def __init__(
        self, rng: np.random.Generator, size_wh: tuple[int, int], iso_gain: float, fields: int = 4
    ) -> None:
        w, h = size_wh
        sigma = 1.0 + 0.9 * iso_gain  # 8-bit steps: a webcam's visible grain
        self.rng = rng
        self.fields = [
            np.clip(
                rng.standard_normal((h, w, 1)) * sigma * 0.7
                + rng.standard_normal((h, w, 3)) * sigma * 0.4,
                -60,
                60,
            ).astype(np.int16)
            for _ in range(fields)
        ]

    def apply(self, frame_bgr: np.ndarray) -> np.ndarray:
        f = self.fields[int(self.rng.integers(len(self.fields)))]
        dy, dx = int(self.rng.integers(f.shape[0])), int(self.rng.integers(f.shape[1]))
        noise = np.roll(f, (dy, dx), axis=(0, 1))
        return np.clip(frame_bgr.astype(np.int16) + noise, 0, 255).astype(np.uint8)


def jpeg_round_trip(image_bgr: np.ndarray, quality: int) -> np.ndarray:
    """Encode and decode as JPEG, as a webcam or phone does before we ever see the image."""
    ok, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out is None:
        raise ValueError("JPEG decoding failed")
    return out
