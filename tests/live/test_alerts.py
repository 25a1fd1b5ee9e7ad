import wave

import pytest

from vision.live.alerts import (
    AlertPolicy,
    AlertPolicyError,
    Announcer,
    EventScheduler,
    _beep_wav,
    quarto_phrase,
)

QUARTO = {
    "type": "quarto",
    "t": 10.0,
    "after_move": 4,
    "cells": [[0, 0], [0, 1], [0, 2], [0, 3]],
    "shared": {"color": "light"},
}
MOVE = {"type": "move", "t": 12.0, "index": 5}
END = {"type": "game_end", "t": 12.0, "result": "quarto", "moves": 4}


@pytest.mark.parametrize(
    "text, mode, delay",
    [
        ("immediate", "immediate", 0.0),
        ("off", "off", 0.0),
        ("delay:5", "delay", 5.0),
        ("DELAY:0.5", "delay", 0.5),
    ],
)
def test_parse(text, mode, delay):
    policy = AlertPolicy.parse(text)
    assert (policy.mode, policy.delay_s) == (mode, delay)


@pytest.mark.parametrize("text", ["loud", "delay:", "delay:-1", "delay:x", "delay:nan"])
def test_parse_errors(text):
    with pytest.raises(AlertPolicyError, match="--alert"):
        AlertPolicy.parse(text)


def test_immediate_passes_everything():
    sched = EventScheduler(AlertPolicy())
    assert sched.push([QUARTO], 10.0) == [QUARTO]


def test_delay_raises_later_with_new_time():
    sched = EventScheduler(AlertPolicy("delay", 3.0))
    assert sched.push([QUARTO], 10.0) == []
    assert sched.due(12.9) == []
    (late,) = sched.due(13.0)
    assert late["type"] == "quarto" and late["t"] == 13.0 and late["after_move"] == 4


def test_delay_flushed_before_later_event_and_dropped_when_game_ended():
    sched = EventScheduler(AlertPolicy("delay", 3.0))
    sched.push([QUARTO], 10.0)
    out = sched.push([MOVE], 12.0)
    assert [e["type"] for e in out] == ["quarto", "move"]
    sched.push([QUARTO], 20.0)
    assert sched.push([END], 21.0) == [END]
    assert sched.due(30.0) == []


def test_phrase_names_line_and_value():
    assert quarto_phrase(QUARTO) == "Quarto! a1 to d1, all light."


def test_beep_is_a_valid_wav(tmp_path):
    path = tmp_path / "b.wav"
    _beep_wav(path)
    with wave.open(str(path)) as w:
        assert w.getnframes() > 1000 and w.getframerate() == 22050


def test_announcer_off_spawns_nothing():
    ann = Announcer(AlertPolicy("off"))
    ann.announce(QUARTO)
    assert ann._procs == []
    ann.close()
    assert isinstance(ann.capabilities, str)
