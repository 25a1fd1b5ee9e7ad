"""`quarto-vision watch` end to end on a short rendered game: the event stream, the record,
a SIGKILL and restart, and a camera that disappears."""

import json
import os
import signal
import subprocess
import sys
import time

import cv2
import pytest

from vision.cli.main import main
from vision.game.record import read_record
from vision.render.video import render_game


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("game") / "game.mp4"
    render_game(path, 31, "random", size_wh=(640, 360), fps=10.0, max_moves=4)
    return path


def events_of(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def watch_args(video, log_dir, events, *extra):
    return [
        "watch",
        str(video),
        "--no-window",
        "--quiet",
        "--log-dir",
        str(log_dir),
        "--events",
        str(events),
        "--alert",
        "off",
        *extra,
    ]


@pytest.fixture(scope="module")
def uninterrupted(video, tmp_path_factory):
    d = tmp_path_factory.mktemp("full")
    assert main(watch_args(video, d / "logs", d / "events.jsonl", "--no-resume")) == 0
    return events_of(d / "events.jsonl"), d / "logs"


def test_events_stream_and_record_agree(uninterrupted):
    events, logs = uninterrupted
    assert events[0]["type"] == "game_start" and len(events[0]["cells"]) == 16
    assert events[-1]["type"] == "game_end"
    assert {e["type"] for e in events} <= {
        "game_start",
        "move",
        "quarto",
        "quarto_missed",
        "warning",
        "game_end",
    }
    (record_path,) = logs.glob("*.jsonl")
    record = read_record(record_path)
    assert record.errors == [] and record.finished
    assert record.events == events
    moves = [e for e in events if e["type"] == "move"]
    assert [m["index"] for m in moves] == list(range(1, len(moves) + 1))
    assert len(list(record_path.with_suffix("").glob("move-*.jpg"))) == len(moves)


def test_sigkill_then_restart_continues_the_game(video, uninterrupted, tmp_path):
    full_events, _ = uninterrupted
    if sum(e["type"] == "move" for e in full_events) < 3:
        pytest.skip("the reader found too few moves in this video to kill mid-game")
    logs, events = tmp_path / "logs", tmp_path / "events.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "vision.cli.main", *watch_args(video, logs, events, "--no-resume")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if events.exists() and sum('"move"' in x for x in events.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        pytest.skip("watch finished before it could be killed")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    announced = events_of(events)
    (record_path,) = logs.glob("*.jsonl")
    before = read_record(record_path)
    # everything announced before the kill is in the record (written before it is announced)
    assert before.events[: len(announced)] == announced
    assert not before.finished
    restart_at = max(e["t"] for e in before.events)
    events2 = tmp_path / "events2.jsonl"
    assert main(watch_args(video, logs, events2, "--start", f"{restart_at:.3f}")) == 0
    (same_path,) = logs.glob("*.jsonl")
    after = read_record(same_path)
    assert same_path == record_path
    assert after.events[: len(before.events)] == before.events
    # the game goes on in the same record: no second game, no cell placed twice, a proper end.
    # (That the continued game reaches the right result is checked with an exact reader in
    # tests/live/test_session.py; here the real reader's accuracy would be under test.)
    names = [e["name"] for e in after.events if e["type"] == "move"]
    assert len(names) == len(set(names)) >= len([e for e in announced if e["type"] == "move"])
    assert sum(e["type"] == "game_start" for e in after.events) == 1
    assert after.events[-1]["type"] == "game_end"
    assert after.finished and after.errors == []


_REAL_CAPTURE = cv2.VideoCapture


class _Unplugged:
    """A cv2.VideoCapture stand-in: a camera that gives 40 frames of the video, then none."""

    def __init__(self, path):
        self._cap = _REAL_CAPTURE(str(path))
        self.n = 0

    def isOpened(self):
        return True

    def set(self, prop, value):
        return False  # this camera ignores every request

    def get(self, prop):
        return 0.0  # and its driver does not say its frame size

    def read(self):
        self.n += 1
        if self.n > 40:
            time.sleep(0.001)
            return False, None
        return self._cap.read()

    def release(self):
        self._cap.release()


def test_camera_unplugged_exits_nonzero_with_closed_record(video, tmp_path, monkeypatch, capsys):
    import vision.live.sources as sources

    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda target: _Unplugged(video))
    monkeypatch.setattr(sources._ThreadedCapture, "max_failed_reads", 5)
    status = main(
        [
            "watch",
            "0",
            "--no-window",
            "--quiet",
            "--no-resume",
            "--log-dir",
            str(tmp_path),
            "--alert",
            "off",
        ]
    )
    assert status != 0
    err = capsys.readouterr().err
    assert "camera 0" in err and "unplugged" in err
    for path in tmp_path.glob("*.jsonl"):
        assert read_record(path).finished


@pytest.mark.parametrize(
    "argv, message",
    [
        (["watch", "/no/such/file.mp4", "--no-window"], "no such file"),
        (["watch", "x.mp4", "--no-window", "--alert", "loud"], "--alert"),
        (["watch", "x.mp4", "--no-window", "--attributes", "colour"], "unknown attribute"),
        (["watch", "x.mp4", "--no-window", "--camera-size", "1280"], "1280x720"),
        (["watch", "x.mp4", "--no-window", "--log-dir", "/proc/no/such"], "game records"),
        (["watch", "x.mp4", "--no-window", "--events", "/proc/no/such.jsonl"], "events"),
    ],
)
def test_bad_arguments_give_one_line_and_status_2(argv, message, capsys, tmp_path):
    if "--log-dir" not in argv:
        argv = [*argv, "--log-dir", str(tmp_path)]  # not the user's own folder
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("what", ["intrinsics", "board lock"])
def test_a_calibration_for_another_frame_size_is_refused_in_one_line(video, tmp_path, capsys,
                                                                     what):
    import numpy as np

    from calibration.io import BoardLock, Calibration, save_calibration
    from vision.geometry.camera import Intrinsics

    calib = tmp_path / "cal.json"
    if what == "intrinsics":
        made = Calibration(Intrinsics(900.0, 900.0, 639.5, 359.5, (1280, 720)))
    else:
        corners = np.array([[400.0, 500.0], [900.0, 500.0], [850.0, 250.0], [450.0, 250.0]])
        made = Calibration(None, BoardLock(corners), {"board_image_size": [1280, 720]})
    save_calibration(calib, made)
    status = main(watch_args(video, tmp_path / "logs", tmp_path / "ev.jsonl", "--no-resume",
                             "--calibration", str(calib)))
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "1280x720" in err and "640x360" in err
    assert not (tmp_path / "ev.jsonl").exists() or "move" not in (tmp_path / "ev.jsonl").read_text()


def test_camera_is_asked_for_the_calibration_size(tmp_path, monkeypatch, capsys):
    import vision.live.sources as sources
    from calibration.io import Calibration, save_calibration
    from vision.geometry.camera import Intrinsics

    asked = []

    class NoFrames:
        def __init__(self, target):
            self.size = [640, 480]

        def isOpened(self):
            return True

        def set(self, prop, value):
            if prop == cv2.CAP_PROP_FRAME_WIDTH:
                self.size[0] = int(value)
            elif prop == cv2.CAP_PROP_FRAME_HEIGHT:
                self.size[1] = int(value)
                asked.append(tuple(self.size))
            return True

        def get(self, prop):
            return {cv2.CAP_PROP_FRAME_WIDTH: self.size[0],
                    cv2.CAP_PROP_FRAME_HEIGHT: self.size[1]}.get(prop, 0.0)

        def read(self):
            time.sleep(0.001)
            return False, None

        def release(self):
            pass

    monkeypatch.setattr(sources.cv2, "VideoCapture", NoFrames)
    monkeypatch.setattr(sources._ThreadedCapture, "max_failed_reads", 2)
    calib = tmp_path / "cal.json"
    save_calibration(calib, Calibration(Intrinsics(600.0, 600.0, 479.5, 269.5, (960, 540))))
    args = ["watch", "0", "--no-window", "--quiet", "--no-resume", "--log-dir",
            str(tmp_path / "logs"), "--alert", "off"]
    main([*args, "--calibration", str(calib)])
    main(args)
    main([*args, "--camera-size", "800x600"])
    import numpy as np

    from calibration.io import BoardLock

    lock = tmp_path / "lock.json"
    corners = np.array([[100.0, 300.0], [500.0, 300.0], [450.0, 100.0], [150.0, 100.0]])
    save_calibration(lock, Calibration(None, BoardLock(corners), {"board_image_size": [640, 360]}))
    main([*args, "--calibration", str(lock)])
    assert asked == [(960, 540), sources.DEFAULT_CAMERA_SIZE, (800, 600), (640, 360)]
    assert "camera 0 (800x600)" in capsys.readouterr().err
