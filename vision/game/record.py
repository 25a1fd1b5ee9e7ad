"""One file per game, JSON Lines: a header line, then one event per line.

Each event is appended, flushed and fsync'ed as it happens, so a crash or a power cut loses
nothing already announced. The reader is lenient: a torn last line is skipped and reported in
``GameRecord.errors``, never fatal. A record of a newer format version is refused with a clear
:class:`RecordVersionError`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from vision.game.model import Event, Game
from vision.rules.lines import Rules, RulesError

FORMAT = "quarto-vision-game"
VERSION = 1
SUFFIX = ".jsonl"


class RecordError(ValueError):
    """A file is not a readable game record; the message names the file."""


class RecordVersionError(RecordError):
    """The record was written by a newer quarto-vision than this one."""


def default_log_dir() -> Path:
    """The user's data folder for game records (``$XDG_DATA_HOME/quarto-vision/games``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "quarto-vision" / "games"


def make_header(
    rules: Rules, *, source: str | None = None, created: str | None = None
) -> dict[str, Any]:
    created = created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    header: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "created": created,
        "rules": rules.to_json(),
    }
    if source is not None:
        header["source"] = source
    return header


class GameRecorder:
    """Appends a game's events to its file, durably, as they happen.

    Use :meth:`create` for a new file in a folder, or :meth:`resume` to continue an existing
    record after a restart. Works as a context manager.
    """

    def __init__(self, path: Path, stream: IO[str]) -> None:
        self.path = path
        self._stream: IO[str] | None = stream

    @classmethod
    def create(
        cls, folder: str | Path, rules: Rules, *, source: str | None = None, stem: str | None = None
    ) -> GameRecorder:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        base = stem or f"game-{stamp}"
        path = folder / f"{base}{SUFFIX}"
        n = 1
        while path.exists():  # never overwrite a game
            n += 1
            path = folder / f"{base}-{n}{SUFFIX}"
        stream = open(path, "x", encoding="utf-8")  # noqa: SIM115 - closed by close()
        recorder = cls(path, stream)
        recorder._write_line(make_header(rules, source=source))
        return recorder

    @classmethod
    def resume(cls, path: str | Path) -> GameRecorder:
        """Open an existing record for appending (after a crash). A torn last line is cut off
        first so the next event starts on a line of its own."""
        path = Path(path)
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with open(path, "r+b") as f:
                f.truncate(cut)
        stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        return cls(path, stream)

    def write(self, event: Event) -> None:
        """Append one event, then flush and fsync."""
        self._write_line(event)

    def write_all(self, events: list[Event]) -> None:
        for event in events:
            self._write_line(event)

    def _write_line(self, obj: dict[str, Any]) -> None:
        if self._stream is None:
            raise RecordError(f"{self.path}: recorder is closed")
        self._stream.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._stream.flush()
        os.fsync(self._stream.fileno())

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def __enter__(self) -> GameRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class GameRecord:
    """A record as read: header, events, the replayed game, and what the reader skipped."""

    path: Path
    header: dict[str, Any]
    events: list[Event]
    errors: list[str] = field(default_factory=list)

    @property
    def rules(self) -> Rules:
        return Rules.from_json(self.header.get("rules") or {})

    def game(self) -> Game:
        return Game.replay(self.events, self.rules)

    @property
    def finished(self) -> bool:
        return any(e.get("type") == "game_end" for e in self.events)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "header": self.header,
            "events": self.events,
            "errors": self.errors,
        }


def read_record(path: str | Path) -> GameRecord:
    """Read a game record leniently.

    Raises :class:`RecordError` when the file cannot be read or has no valid header, and
    :class:`RecordVersionError` for a newer format version. Bad event lines (a torn last line
    after a power cut, a damaged line) are skipped and listed in ``errors``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    lines = text.split("\n")
    torn_tail = not text.endswith("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise RecordError(f"{path}: empty file, not a game record")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: first line is not a record header ({exc.msg})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordError(f"{path}: not a {FORMAT} record (header {lines[0][:60]!r})")
    version = header.get("version")
    if not isinstance(version, int):
        raise RecordError(f"{path}: record header has no integer version")
    if version > VERSION:
        raise RecordVersionError(
            f"{path}: record format version {version} is newer than this quarto-vision "
            f"understands (up to {VERSION}); upgrade quarto-vision to read it"
        )
    try:
        Rules.from_json(header.get("rules") or {})
    except RulesError as exc:
        raise RecordError(f"{path}: bad rules in header: {exc}") from exc
    events: list[Event] = []
    errors: list[str] = []
    last = len(lines) - 1
    for number, line in enumerate(lines[1:], start=2):
        try:
            event = json.loads(line)
            if not isinstance(event, dict) or "type" not in event:
                raise ValueError("not an event object")
        except ValueError as exc:
            where = "torn last line" if (number - 1 == last and torn_tail) else "bad line"
            errors.append(f"{path}:{number}: {where} skipped ({exc})")
            continue
        events.append(event)
    return GameRecord(path, header, events, errors)


def find_unfinished(folder: str | Path) -> Path | None:
    """The newest record in ``folder`` without a ``game_end`` (a game a crash interrupted)."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            record = read_record(path)
        except RecordError:
            continue
        if not record.finished:
            return path
    return None
