"""Game scripts and videos: recorded moves replay through the rules core to the recorded events."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.evaluation.labels import load_label
from vision.game.model import Game
from vision.render.games import SCRIPTS, full_board_without_line, plan_game
from vision.render.video import render_game
from vision.rules.board import Board, Cell
from vision.rules.lines import Rules
from vision.rules.pieces import Piece

LINE_EVENTS = ("quarto", "quarto_missed", "game_end")


def replay(label: dict) -> list[dict]:  # type: ignore[type-arg]
    """Feed the label's moves to a fresh game at the time each hand left; return line events."""
    game = Game(Rules.classic())
    game.start(0.0)
    for m in label["moves"]:
        game.place(Cell(m["row"], m["col"]), Piece.from_attributes(m["piece"]), m["t_hand_left"])
    if not game.over:
        game.end(label["duration"])
    return [e for e in game.events if e["type"] in LINE_EVENTS]


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_script_moves_replay_to_recorded_events(script: str, seed: int) -> None:
    plan = plan_game(seed, script)
    label = {
        "moves": [
            {
                "row": g.cell.row,
                "col": g.cell.col,
                "piece": g.piece.attributes,
                "t_hand_left": g.t_hand_left,
            }
            for g in plan.moves
            if g.piece is not None
        ],
        "duration": plan.duration,
    }
    recorded = [e for e in plan.events if e["type"] in LINE_EVENTS]
    assert replay(label) == recorded
    types = [e["type"] for e in recorded]
    times = [g.t_start for g in plan.gestures]
    assert times == sorted(times)
    assert all(g.t_start < g.t_over <= g.t_placed < g.t_hand_left for g in plan.gestures)
    if script == "draw":
        assert len(plan.moves) == 16 and types == ["game_end"]
        assert recorded[0]["result"] == "draw"
    else:
        assert "quarto" in types and recorded[-1]["result"] == "quarto"
    if script == "missed":
        assert "quarto_missed" in types
        missed = next(e for e in recorded if e["type"] == "quarto_missed")
        first = next(e for e in recorded if e["type"] == "quarto")
        assert missed["after_move"] == first["after_move"]
    assert bool(plan.camera_bumps) == (script == "bump")
    assert bool(plan.lighting_changes) == (script == "light")
    assert any(g.kind == "hover" for g in plan.gestures) == (script == "hover")
    assert any(g.kind == "nudge" for g in plan.gestures) == (script == "nudge")


def test_drawn_board_has_no_line() -> None:
    rules = Rules.classic()
    for seed in range(5):
        board = Board(full_board_without_line(np.random.default_rng(seed), rules))
        assert board.is_full() and board.is_valid()
        assert rules.quarto_lines(board) == []


def test_unknown_script_is_rejected() -> None:
    with pytest.raises(ValueError, match="script"):
        plan_game(0, "cheat")


def test_bump_video_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "bump.mp4"
    label = render_game(out, 4, "bump", size_wh=(320, 180), fps=10.0, max_moves=6)
    cap = cv2.VideoCapture(str(out))
    frames = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (180, 320, 3)
        frames += 1
    cap.release()
    assert frames == label["frame_count"] > 0
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved["moves"] == label["moves"]
    assert len(saved["segments"]) == 2 and saved["camera_bumps"]
    assert saved["segments"][1]["t_start"] > saved["camera_bumps"][0]
    assert (
        saved["segments"][0]["cells"][0]["center_px"]
        != saved["segments"][1]["cells"][0]["center_px"]
    )
    recorded = [e for e in saved["events"] if e["type"] in LINE_EVENTS]
    assert replay({"moves": saved["moves"], "duration": saved["duration_s"]}) == recorded
    parsed = load_label(out.with_suffix(".json"))
    assert parsed.has_board and len(parsed.cells) == 16
    for m in saved["moves"]:
        assert m["t_hand_enter"] < m["t_placed"] < m["t_hand_left"] <= saved["duration_s"]


def test_same_seed_same_video(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = render_game(tmp_path / "a.mp4", 9, "hover", size_wh=(192, 108), fps=10.0, max_moves=5)
    b = render_game(tmp_path / "b.mp4", 9, "hover", size_wh=(192, 108), fps=10.0, max_moves=5)
    assert a["hovers"] and {**a, "video": ""} == {**b, "video": ""}
    hover = a["hovers"][0]
    assert hover["t_start"] < hover["t_hand_left"] <= hover["t_end"]
    for m in a["moves"]:
        assert m["t_placed"] < m["t_hand_left"] <= m["t_hand_exit"]
    assert (tmp_path / "a.mp4").read_bytes() == (tmp_path / "b.mp4").read_bytes()


def _frames(path) -> list:  # type: ignore[no-untyped-def, type-arg]
    cap = cv2.VideoCapture(str(path))
    out = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        out.append(frame.astype(float))
    cap.release()
    return out


def test_lamp_switch_and_camera_bump_happen_when_recorded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fps = 10.0
    light = render_game(tmp_path / "l.mp4", 5, "light", size_wh=(192, 108), fps=fps, max_moves=4)
    frames = _frames(tmp_path / "l.mp4")
    k = int(light["lighting_changes"][0] * fps)
    # Auto exposure needs a moment: just after the switch the picture is brighter.
    assert frames[k + 1].mean() > frames[k - 2].mean() + 3.0
    bump = render_game(tmp_path / "b.mp4", 5, "bump", size_wh=(192, 108), fps=fps, max_moves=4)
    frames = _frames(tmp_path / "b.mp4")
    k = int(bump["camera_bumps"][0] * fps)
    still = np.abs(frames[k - 1] - frames[k - 3]).mean()
    moved = np.abs(frames[k + 6] - frames[k - 1]).mean()
    assert moved > 3 * still


def test_pieces_beside_the_board_are_fetched(tmp_path) -> None:  # type: ignore[no-untyped-def]
    label = render_game(
        tmp_path / "p.mp4",
        6,
        "random",
        size_wh=(192, 108),
        fps=10.0,
        max_moves=4,
        pieces_beside=True,
    )
    beside = {p["piece_id"]: p for p in label["pieces_beside"]}
    assert len(beside) == 16
    for m in label["moves"]:
        code = Piece.from_attributes(m["piece"]).code
        assert m["t_hand_enter"] < beside[code]["t_picked"] < m["t_placed"]
    half = 0.5 * label["board"]["side_m"]
    assert all(
        max(abs(p["position_m"][0]), abs(p["position_m"][1])) > half for p in beside.values()
    )
