"""``quarto-vision analyze`` on bad input: documented exit status and a one-line message.

Exit 2 with one line on stderr naming the file for anything that is not a usable image; 3 for an
image with no board; the other images of the same call are still processed. ``analyze`` reads
files through ``vision.io.load_image`` (OpenCV's ``imread`` alone half-decodes a truncated JPEG
and decodes any size).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli.main import main


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["analyze", *args])
    out, err = capsys.readouterr()
    return status, out, err


def _one_line_naming(err: str, path: Path) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert path.name in lines[0]


def _jpeg(path: Path, w: int = 320, h: int = 200) -> bytes:
    img = (np.random.default_rng(1).random((h, w, 3)) * 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    path.write_bytes(buf.tobytes())
    return buf.tobytes()


def test_text_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "notes.jpg"
    p.write_text("not an image\n")
    status, out, err = _run([str(p)], capsys)
    assert status == 2 and out == ""
    _one_line_naming(err, p)


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "empty.png"
    p.write_bytes(b"")
    status, _, err = _run([str(p)], capsys)
    assert status == 2
    _one_line_naming(err, p)


def test_one_pixel_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "dot.png"
    cv2.imwrite(str(p), np.zeros((1, 1, 3), np.uint8))
    status, _, err = _run([str(p)], capsys)
    assert status == 2
    _one_line_naming(err, p)


def test_truncated_jpeg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "cut.jpg"
    data = _jpeg(p)
    p.write_bytes(data[: len(data) // 2])
    status, _, err = _run([str(p)], capsys)
    assert status == 2
    _one_line_naming(err, p)


def test_huge_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "huge.png"
    ok, buf = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    data[16:24] = (60_000).to_bytes(4, "big") + (60_000).to_bytes(4, "big")
    p.write_bytes(bytes(data))
    status, _, err = _run([str(p)], capsys)
    assert status == 2
    _one_line_naming(err, p)
    assert "large" in err


def test_no_board_and_other_images_still_processed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.jpg"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 128, np.uint8))
    bad = tmp_path / "bad.jpg"
    bad.write_text("nope")
    status, out, err = _run([str(bad), str(blank), "--json"], capsys)
    assert status in (2, 3)  # the worst status of the call; both problems reported
    _one_line_naming(err, bad)
    (line,) = [ln for ln in out.splitlines() if ln.strip()]
    res = json.loads(line)
    assert res["board"]["found"] is False and res["cells"] == []
    assert main(["analyze", str(blank), "--json"]) == 3
