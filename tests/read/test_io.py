"""Bad image files give a one-line ImageReadError naming the file; good ones load as BGR."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.io import ImageReadError, image_size_from_header, load_image


def _jpeg_bytes(w: int = 96, h: int = 64) -> bytes:
    rng = np.random.default_rng(3)
    img = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


def _error(path: Path, **kw: int) -> str:
    with pytest.raises(ImageReadError) as info:
        load_image(path, **kw)
    msg = str(info.value)
    assert "\n" not in msg
    assert str(path) in msg
    return msg


def test_good_jpeg_and_png_load_as_bgr(tmp_path: Path) -> None:
    img = np.zeros((40, 60, 3), np.uint8)
    img[:, :, 2] = 200  # red in BGR
    cv2.imwrite(str(tmp_path / "a.png"), img)
    out = load_image(tmp_path / "a.png")
    assert out.shape == (40, 60, 3) and out.dtype == np.uint8
    assert out[0, 0, 2] == 200 and out[0, 0, 0] == 0
    (tmp_path / "b.jpg").write_bytes(_jpeg_bytes())
    assert load_image(tmp_path / "b.jpg").shape == (64, 96, 3)


def test_missing_and_empty_and_text(tmp_path: Path) -> None:
    assert "no such file" in _error(tmp_path / "nope.jpg")
    (tmp_path / "empty.jpg").write_bytes(b"")
    assert "empty" in _error(tmp_path / "empty.jpg")
    (tmp_path / "notes.txt").write_text("this is not an image\n" * 20)
    assert "not an image" in _error(tmp_path / "notes.txt")
    assert "not a file" in _error(tmp_path)


def test_truncated_jpeg_and_png(tmp_path: Path) -> None:
    data = _jpeg_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    assert "truncated" in _error(tmp_path / "cut.jpg")
    ok, buf = cv2.imencode(".png", np.full((50, 50, 3), 7, np.uint8))
    assert ok
    (tmp_path / "cut.png").write_bytes(buf.tobytes()[:-20])
    _error(tmp_path / "cut.png")


def test_tiny_and_huge(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "one.png"), np.zeros((1, 1, 3), np.uint8))
    assert "too small" in _error(tmp_path / "one.png")
    (tmp_path / "big.jpg").write_bytes(_jpeg_bytes(200, 100))
    assert "too large" in _error(tmp_path / "big.jpg", max_pixels=10_000)


def test_header_size_matches_decoded_size() -> None:
    assert image_size_from_header(_jpeg_bytes(123, 45)) == (123, 45)
    _ok, buf = cv2.imencode(".png", np.zeros((7, 9, 3), np.uint8))
    assert image_size_from_header(buf.tobytes()) == (9, 7)
    assert image_size_from_header(b"hello") is None


def test_huge_png_header_refused_before_decoding(tmp_path: Path) -> None:
    _ok, buf = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    data = bytearray(buf.tobytes())
    data[16:24] = (100_000).to_bytes(4, "big") + (100_000).to_bytes(4, "big")
    (tmp_path / "huge.png").write_bytes(bytes(data))
    assert "too large" in _error(tmp_path / "huge.png")
