import json

import pytest

from vision.game.model import Game
from vision.game.record import (
    VERSION,
    GameRecorder,
    RecordError,
    RecordVersionError,
    find_unfinished,
    read_record,
)
from vision.rules import Cell, Piece
from vision.rules.lines import Rules

MOVES = [("a1", "LRSS"), ("b1", "DRSS"), ("c1", "LSSS"), ("d1", "DSSS"), ("b2", "LSTS")]


def record_game(folder, rules=None, end=True):
    game = Game(rules)
    rec = GameRecorder.create(folder, game.rules, source="unit test")
    rec.write_all(game.start(0.0, [(10.0 * i, 5.0 * i) for i in range(16)]))
    for i, (name, sym) in enumerate(MOVES):
        rec.write_all(game.place(Cell.from_name(name), Piece.from_symbol(sym), 12.5 * (i + 1)))
    rec.write_all(game.warn(70.0, "piece at c1 changed; kept the recorded piece"))
    if end:
        rec.write_all(game.end(80.0))
    rec.close()
    return game, rec.path


def test_round_trip_is_exact(tmp_path):
    rules = Rules(advanced=True, attributes=("color", "height", "top"))
    game, path = record_game(tmp_path, rules)
    record = read_record(path)
    assert record.errors == []
    assert record.header["version"] == VERSION
    assert record.rules == rules
    assert record.events == game.events
    again = record.game()
    assert again.board == game.board
    assert again.events == game.events
    assert again.result == game.result == "abandoned"
    assert record.finished


def test_each_event_is_on_disk_as_it_happens(tmp_path):
    game = Game()
    rec = GameRecorder.create(tmp_path, game.rules)
    rec.write_all(game.place(Cell(0, 0), Piece(3), 1.0))
    # not closed: another reader sees the event already
    record = read_record(rec.path)
    assert [e["type"] for e in record.events] == ["game_start", "move"]
    rec.close()


def test_torn_last_line_is_skipped_and_reported(tmp_path):
    game, path = record_game(tmp_path)
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    cut = last_start + (len(data) - last_start) // 2
    path.write_bytes(data[:cut])
    record = read_record(path)
    assert record.events == game.events[:-1]
    assert len(record.errors) == 1 and "torn last line" in record.errors[0]
    assert not record.finished
    assert find_unfinished(tmp_path) == path


def test_resume_cuts_torn_line_and_appends(tmp_path):
    game, path = record_game(tmp_path, end=False)
    path.write_bytes(path.read_bytes() + b'{"type": "mo')
    rec = GameRecorder.resume(path)
    rec.write_all(game.end(99.0))
    rec.close()
    record = read_record(path)
    assert record.errors == []
    assert record.events == game.events


def test_damaged_middle_line_is_skipped(tmp_path):
    game, path = record_game(tmp_path)
    lines = path.read_text().splitlines()
    lines[3] = "garbage"
    path.write_text("\n".join(lines) + "\n")
    record = read_record(path)
    assert len(record.events) == len(game.events) - 1
    assert "bad line" in record.errors[0] and ":4:" in record.errors[0]


def test_future_version_is_a_clear_error(tmp_path):
    path = tmp_path / "future.jsonl"
    path.write_text(json.dumps({"format": "quarto-vision-game", "version": VERSION + 1}) + "\n")
    with pytest.raises(RecordVersionError, match="newer than this quarto-vision"):
        read_record(path)


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty file"),
        ("hello\n", "not a record header"),
        ('{"format": "something-else", "version": 1}\n', "not a quarto-vision-game"),
        ('{"format": "quarto-vision-game"}\n', "no integer version"),
        ('{"format": "quarto-vision-game", "version": 1, "rules": {"lines": "x"}}\n', "bad rules"),
    ],
)
def test_not_a_record(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordError, match=message):
        read_record(path)
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "missing.jsonl")


def test_create_never_overwrites(tmp_path):
    a = GameRecorder.create(tmp_path, Rules(), stem="game")
    b = GameRecorder.create(tmp_path, Rules(), stem="game")
    a.close()
    b.close()
    assert a.path != b.path and a.path.exists() and b.path.exists()
    with pytest.raises(RecordError):
        a.write({"type": "warning"})
