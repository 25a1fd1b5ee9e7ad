"""README's quickstart runs `quarto-vision demo` on a fresh machine with no display and no
camera: the installed command must watch the bundled video to its end, announce its Quarto
and leave a closed game record where the demo says it logs (not in the user's own log)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def _command() -> list[str]:
    # The console script README runs when it is installed (CI's venv), else the same entry.
    exe = shutil.which("quarto-vision")
    return [exe] if exe else [sys.executable, "-m", "vision.cli.main"]


def test_demo_runs_the_bundled_game_to_its_quarto_without_a_display(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["TMPDIR"] = str(tmp_path)
    env["XDG_DATA_HOME"] = str(tmp_path / "user-data")
    env.setdefault("OMP_NUM_THREADS", "1")
    done = subprocess.run([*_command(), "demo"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Quarto! a4 to d4, all dark" in out
    assert "game end: quarto after 6 moves" in out

    records = sorted((tmp_path / "quarto-vision-demo").glob("game-*.jsonl"))
    assert len(records) == 1
    events = [json.loads(line) for line in records[0].read_text().splitlines()[1:]]
    assert [e["type"] for e in events].count("move") == 6
    assert events[-1] == {**events[-1], "type": "game_end", "result": "quarto", "moves": 6}
    quarto = [e for e in events if e["type"] == "quarto"]
    assert len(quarto) == 1 and quarto[0]["cells"] == [[3, 0], [3, 1], [3, 2], [3, 3]]
    # the user's own log folder is left alone
    assert not (tmp_path / "user-data").exists()
