import json
import subprocess
import sys

import pytest

from tests.game.test_record import record_game
from vision.cli.main import main


def test_games_show_prints_moves_and_result(tmp_path, capsys):
    _, path = record_game(tmp_path)
    assert main(["games", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "move  1: a1  light round short solid" in out
    assert "QUARTO after move 4: a1-b1-c1-d1" in out
    assert "missed Quarto of move 4" in out
    assert "result: abandoned (5 moves)" in out


def test_games_show_json(tmp_path, capsys):
    game, path = record_game(tmp_path)
    assert main(["games", "show", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["events"] == game.events


def test_games_show_bad_file(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text("nope\n")
    assert main(["games", "show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "x.jsonl" in err and len(err.strip().splitlines()) == 1


def test_games_list(tmp_path, capsys):
    record_game(tmp_path)
    record_game(tmp_path, end=False)
    assert main(["games", "list", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert any("abandoned" in line for line in out) and any("unfinished" in line for line in out)


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_console_entry(flag):
    proc = subprocess.run(
        [sys.executable, "-m", "vision.cli.main", flag], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert "quarto-vision" in proc.stdout


def test_games_list_counts_the_moves_left_after_undos(tmp_path, capsys):
    from vision.game.model import Game
    from vision.game.record import GameRecorder
    from vision.rules import Cell, Piece

    game = Game()
    rec = GameRecorder.create(tmp_path, game.rules, source="unit test")
    rec.write_all(game.start(0.0))
    rec.write_all(game.place(Cell.from_name("a1"), Piece.from_symbol("LRSS"), 1.0))
    rec.write_all(game.place(Cell.from_name("b2"), Piece.from_symbol("DSTH"), 2.0))
    rec.write_all(game.undo(3.0, "undone by hand"))
    rec.write_all(game.place(Cell.from_name("c3"), Piece.from_symbol("DSTH"), 4.0))
    rec.close()
    assert main(["games", "list", str(tmp_path)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "  2 moves  unfinished" in line
