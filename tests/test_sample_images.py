"""The curated ``sample_images/``: every file is used here, every label parses, and the stills
are what the README's commands make."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli.main import main as cli_main
from vision.evaluation.labels import load_label
from vision.game.model import Game
from vision.rules.board import Cell
from vision.rules.lines import Rules
from vision.rules.pieces import Piece

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"
README = SAMPLES / "README.md"
MAX_TOTAL_BYTES = 15 * 1024 * 1024
STILL_COMMANDS = re.findall(r"`(quarto-vision render stills [^`]+)`", README.read_text())


def _files(suffix: str) -> list[Path]:
    return sorted(SAMPLES.glob(f"*{suffix}"))


def test_every_file_is_known_and_small_enough() -> None:
    names = {p.name for p in SAMPLES.iterdir()}
    readme = README.read_text()
    for name in sorted(names - {"README.md"}):
        stem, suffix = name.rsplit(".", 1)
        if suffix == "json":
            assert f"{stem}.jpg" in names or f"{stem}.mp4" in names, f"label without media: {name}"
        else:
            assert suffix in ("jpg", "mp4"), f"unexpected file in sample_images: {name}"
            assert f"{stem}.json" in names, f"{name} has no label"
            assert name in readme, f"README does not say how {name} was made"
    total = sum(p.stat().st_size for p in SAMPLES.iterdir())
    assert total < MAX_TOTAL_BYTES
    assert len(_files(".jpg")) >= 15 and len(_files(".mp4")) >= 1


@pytest.mark.parametrize("image", _files(".jpg"), ids=lambda p: p.stem)
def test_still_label_parses_and_matches_image(image: Path) -> None:
    label = load_label(image.with_suffix(".json"))
    assert label.image_path == image
    pixels = cv2.imread(str(image))
    assert pixels is not None and pixels.shape == (label.size_wh[1], label.size_wh[0], 3)
    if label.has_board:
        assert len(label.cells) == 16
        assert label.board_view is not None
        np.testing.assert_allclose(label.board_view.corners_px(), label.corners_px, atol=0.02)
    else:
        assert label.cells == ()


@pytest.mark.parametrize("video", _files(".mp4"), ids=lambda p: p.stem)
def test_video_decodes_and_moves_replay_to_its_events(video: Path) -> None:
    raw = json.loads(video.with_suffix(".json").read_text())
    label = load_label(video.with_suffix(".json"))
    assert label.has_board and len(label.cells) == 16
    cap = cv2.VideoCapture(str(video))
    frames = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (raw["height"], raw["width"], 3)
        frames += 1
    cap.release()
    assert frames == raw["frame_count"]
    assert 10 <= raw["fps"] <= 30 and raw["duration_s"] <= 25.0
    game = Game(Rules.classic())
    game.start(0.0)
    for m in raw["moves"]:
        game.place(Cell(m["row"], m["col"]), Piece.from_attributes(m["piece"]), m["t_hand_left"])
    if not game.over:
        game.end(raw["duration_s"])
    assert game.events == raw["events"]
    assert any(e["type"] == "quarto" for e in raw["events"])


def _remake(command: str, tmp_path: Path) -> tuple[Path, Path]:
    argv = shlex.split(command)[1:]
    out = argv.index("sample_images")
    argv[out] = str(tmp_path)
    assert cli_main(argv) == 0
    made = sorted(tmp_path.glob("*.jpg"))
    assert len(made) == 1
    return made[0], SAMPLES / made[0].name


def _same_pixels(a: Path, b: Path) -> float:
    ia, ib = cv2.imread(str(a)), cv2.imread(str(b))
    assert ia is not None and ib is not None and ia.shape == ib.shape
    return float(np.abs(ia.astype(np.int16) - ib.astype(np.int16)).mean())


def test_readme_command_remakes_a_still(tmp_path: Path) -> None:
    made, stored = _remake(STILL_COMMANDS[0], tmp_path)
    assert _same_pixels(made, stored) < 1.0
    assert (
        json.loads(made.with_suffix(".json").read_text())["cells"]
        == json.loads(stored.with_suffix(".json").read_text())["cells"]
    )


@pytest.mark.slow
@pytest.mark.parametrize("command", STILL_COMMANDS[1:])
def test_readme_commands_remake_every_still(command: str, tmp_path: Path) -> None:
    made, stored = _remake(command, tmp_path)
    assert _same_pixels(made, stored) < 1.0
