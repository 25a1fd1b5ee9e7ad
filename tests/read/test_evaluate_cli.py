"""``quarto-vision evaluate`` on a labelled folder (painted scenes written in the test)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.read.synth import make_view, paint
from vision.cli.main import main
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import Piece


def _write(folder: Path, name: str, pieces: dict[Cell, Piece]) -> None:
    view = make_view(elevation_deg=58.0, azimuth_deg=10.0)
    cv2.imwrite(str(folder / f"{name}.jpg"), paint(view, pieces, seed=7),
                [cv2.IMWRITE_JPEG_QUALITY, 95])
    cam = view.camera
    centres = view.cell_centers_px()
    cells = []
    for i, cell in enumerate(ALL_CELLS):
        piece = pieces.get(cell)
        cells.append({"row": cell.row, "col": cell.col, "center_px": centres[i].tolist(),
                      "piece": None if piece is None else dict(
                          piece.attributes, visible_fraction=1.0, top_visible_fraction=1.0)})
    spec = view.spec
    label = {
        "width": 1280, "height": 720, "board_style": "gigamic_black",
        "camera": {"fx": cam.intrinsics.fx, "fy": cam.intrinsics.fy, "cx": cam.intrinsics.cx,
                   "cy": cam.intrinsics.cy, "R": cam.pose.R.tolist(), "t": cam.pose.t.tolist(),
                   "elevation_deg": 58.0},
        "board": {"side_m": spec.side_m, "cell_pitch_m": spec.cell_pitch_m,
                  "cell_diameter_m": spec.cell_diameter_m,
                  "grid_rotation_deg": spec.grid_rotation_deg,
                  "big_circle_radius_m": spec.big_circle_radius_m},
        "cells": cells,
    }
    (folder / f"{name}.json").write_text(json.dumps(label))


def test_evaluate_folder_with_oracle_board(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "a", {Cell(0, 0): Piece.from_symbol("DRTH"),
                           Cell(2, 2): Piece.from_symbol("LSSS")})
    _write(tmp_path, "b", {})
    assert main(["evaluate", str(tmp_path), "--oracle-board", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    overall = report["overall"]
    assert overall["images"] == 2 and overall["boards_found"] == 2
    assert overall["cells"] == 32 and overall["occupancy_errors"] == 0
    assert overall["pieces_judged"] == 2
    assert set(report["by_style"]) == {"gigamic_black"}
    assert main(["evaluate", str(tmp_path), "--oracle-board"]) == 0
    text = capsys.readouterr().out
    assert "overall" in text and "confusion" in text


def test_evaluate_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "no labelled images" in capsys.readouterr().err
    assert np.isfinite(1.0)


def test_evaluate_scores_the_reader_analyze_uses_unless_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import vision.learn.fuse as fuse
    from vision.read.reader import read_cells

    _write(tmp_path, "a", {Cell(1, 1): Piece.from_symbol("DRTH")})
    calls: list[str] = []

    def spy(frame: np.ndarray, view: object) -> object:
        calls.append("fused")
        return read_cells(frame, view)  # type: ignore[arg-type]

    monkeypatch.setattr(fuse, "read_cells_fused", spy)
    assert main(["evaluate", str(tmp_path), "--oracle-board", "--json"]) == 0
    assert calls == ["fused"]
    assert json.loads(capsys.readouterr().out)["overall"]["pieces_judged"] == 1
    assert main(["evaluate", str(tmp_path), "--oracle-board", "--json",
                 "--reader", "geometric"]) == 0
    assert calls == ["fused"]  # not called again
