"""``quarto-vision analyze`` and ``calibrate board`` end to end."""

from __future__ import annotations

import json

import cv2
import numpy as np

from tests.locate.synth import draw_board, draw_empty_table, make_view
from vision.cli.main import main


def test_analyze_exit_codes_and_json(tmp_path, capsys):
    board = tmp_path / "board.png"
    empty = tmp_path / "empty.png"
    junk = tmp_path / "junk.jpg"
    cv2.imwrite(str(board), draw_board(make_view(50.0, 30.0)))
    cv2.imwrite(str(empty), draw_empty_table(0))
    junk.write_text("not an image")
    assert main(["analyze", str(board), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"]["found"] and len(out["cells"]) == 16
    assert main(["analyze", str(empty), "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["board"]["found"] is False and out["board"]["reason"] and out["cells"] == []
    status = main(["analyze", str(junk), str(board), "--json"])
    captured = capsys.readouterr()
    assert status == 2
    assert str(junk) in captured.err and len(captured.err.strip().splitlines()) == 1
    assert len(captured.out.strip().splitlines()) == 1  # the good image still ran


def test_annotate_writes_files(tmp_path, capsys):
    board = tmp_path / "b.png"
    cv2.imwrite(str(board), draw_board(make_view(50.0, 30.0)))
    out = tmp_path / "ann.png"
    assert main(["analyze", str(board), "--annotate", str(out)]) == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape == (720, 1280, 3)
    folder = tmp_path / "many"
    assert main(["analyze", str(board), str(board), "--annotate", str(folder)]) == 0
    assert len(list(folder.glob("*.png"))) == 1  # same stem twice: one file
    # One image and a name without an extension: a folder, not a file OpenCV cannot write.
    bare = tmp_path / "annotated"
    assert main(["analyze", str(board), "--annotate", str(bare)]) == 0
    assert (bare / "b_annotated.png").exists()
    # An extension no image writer knows: a one-line error, not a traceback.
    capsys.readouterr()
    assert main(["analyze", str(board), "--annotate", str(tmp_path / "ann.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write" in err[0]


def test_calibrate_board_then_analyze_with_the_lock(tmp_path, capsys):
    view = make_view(50.0, 30.0)
    img_path = tmp_path / "frame.png"
    cv2.imwrite(str(img_path), np.zeros((720, 1280, 3), np.uint8))
    corners = " ".join(f"{x:.2f},{y:.2f}" for x, y in view.corners_px())
    cal = tmp_path / "lock.json"
    assert main(["calibrate", "board", str(img_path), "--corners", corners, "--out", str(cal)]) == 0
    raw = json.loads(cal.read_text())
    assert raw["version"] == 1 and len(raw["board_lock"]["corners_px"]) == 4
    capsys.readouterr()
    assert main(["analyze", str(img_path), "--json", "--calibration", str(cal)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"]["found"]


def test_bad_calibration_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((100, 100, 3), np.uint8))
    assert main(["analyze", str(img), "--calibration", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
