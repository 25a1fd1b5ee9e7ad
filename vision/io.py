"""Reading image files for the command line, with one-line errors that name the file.

``load_image(path)`` returns an ``(H, W, 3) uint8 BGR`` array or raises ``ImageReadError``
(a ``ValueError``) whose message is one line: a missing file, an empty file, a text file, a
truncated JPEG or PNG, an image too small to hold a board, or one too large to decode safely.
The size limits are checked from the file header before any pixel is decoded, so a huge file
cannot exhaust memory.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

#: Smallest side that can hold a readable board (16 cells of a few pixels each).
MIN_SIDE_PX = 32
#: Largest image decoded (pixels): a 64-megapixel photo is 192 MB as BGR; beyond that, refuse.
MAX_PIXELS = 64_000_000

_JPEG_SOI = b"\xff\xd8"
_JPEG_EOI = b"\xff\xd9"
_PNG_SIG = b"\x89PNG\r\n\x1a\n"


def check_frame(frame: object, name: str = "frame_bgr", min_side: int = 0) -> None:
    """Raise ``ValueError`` unless ``frame`` is an (H, W, 3) uint8 BGR image with sides of at
    least ``min_side`` pixels; the message names the parameter (``name``) and what it got."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", type(frame).__name__)
        raise ValueError(f"{name} must be an (H, W, 3) uint8 BGR image, got {shape}")
    if frame.dtype != np.uint8:
        raise ValueError(f"{name} must be uint8, got {frame.dtype}")
    if min(frame.shape[:2]) < min_side:
        raise ValueError(f"{name} is too small: {frame.shape[1]}x{frame.shape[0]}")


class ImageReadError(ValueError):
    """An image file could not be used; the message is one line and names the file."""


def image_size_from_header(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from a PNG or JPEG header, or None for other formats."""
    if data.startswith(_PNG_SIG) and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    if data.startswith(_JPEG_SOI):
        i = 2
        n = len(data)
        while i + 9 < n:
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            (length,) = struct.unpack(">H", data[i + 2 : i + 4])
            # SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                return int(w), int(h)
            i += 2 + length
    return None


def _looks_truncated(data: bytes) -> bool:
    if data.startswith(_JPEG_SOI):
        return _JPEG_EOI not in data[-64:]
    if data.startswith(_PNG_SIG):
        return b"IEND" not in data[-16:]
    return False


def load_image(
    path: str | Path, *, min_side: int = MIN_SIDE_PX, max_pixels: int = MAX_PIXELS
) -> NDArray[np.uint8]:
    """Read an image file as ``(H, W, 3) uint8 BGR``.

    Parameters
    ----------
    path : file to read.
    min_side : smallest accepted width or height, pixels.
    max_pixels : largest accepted width x height.

    Raises
    ------
    ImageReadError
        With a one-line message naming ``path`` and the problem.
    """
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"{p}: no such file")
    if not p.is_file():
        raise ImageReadError(f"{p}: not a file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageReadError(f"{p}: cannot read ({exc.strerror or exc})") from exc
    if not data:
        raise ImageReadError(f"{p}: empty file")
    size = image_size_from_header(data)
    if size is not None:
        w, h = size
        if w * h > max_pixels:
            raise ImageReadError(
                f"{p}: image too large ({w}x{h}, more than {max_pixels / 1e6:.0f} megapixels)"
            )
    if _looks_truncated(data):
        raise ImageReadError(f"{p}: truncated image file (no end marker)")
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    except cv2.error as exc:
        first = str(exc).splitlines()[0] if str(exc) else "decoder error"
        raise ImageReadError(f"{p}: cannot decode as an image ({first})") from exc
    if image is None:
        raise ImageReadError(f"{p}: not an image file (unknown or corrupt format)")
    h, w = image.shape[:2]
    if w * h > max_pixels:
        raise ImageReadError(
            f"{p}: image too large ({w}x{h}, more than {max_pixels / 1e6:.0f} megapixels)"
        )
    if min(w, h) < min_side:
        raise ImageReadError(f"{p}: image too small ({w}x{h}; need at least {min_side} px a side)")
    return np.ascontiguousarray(image, dtype=np.uint8)
