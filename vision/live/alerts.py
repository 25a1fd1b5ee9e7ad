"""Alerts: when and how "Quarto!" is announced.

:class:`AlertPolicy` parses ``--alert immediate|delay:SECONDS|off``. :class:`EventScheduler`
applies the delay to ``quarto`` events (DESIGN.md section 4: with ``delay:S`` the event is
raised S seconds later, unless the game already ended; a later event of the same game flushes
it first so the order stays right). :class:`Announcer` makes the sound and speaks the phrase
where a speech engine exists; it never blocks the frame loop.
"""

from __future__ import annotations

import logging
import math
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.game.model import Event
from vision.live.linegate import line_key, line_keys
from vision.rules.board import Cell
from vision.rules.lines import QuartoLine

logger = logging.getLogger(__name__)


class AlertPolicyError(ValueError):
    """A bad ``--alert`` value; the message quotes it."""


@dataclass(frozen=True)
class AlertPolicy:
    """``mode`` is immediate, delay or off; ``delay_s`` applies to ``delay``."""

    mode: str = "immediate"
    delay_s: float = 0.0

    @classmethod
    def parse(cls, text: str) -> AlertPolicy:
        text = text.strip().lower()
        if text in ("immediate", "off"):
            return cls(text)
        if text.startswith("delay:"):
            try:
                seconds = float(text.split(":", 1)[1])
            except ValueError:
                seconds = -1.0
            if not math.isfinite(seconds) or seconds < 0:
                raise AlertPolicyError(
                    f"--alert {text!r}: delay must be a number of seconds >= 0, e.g. delay:5"
                )
            return cls("delay", seconds)
        raise AlertPolicyError(f"--alert {text!r}: expected immediate, delay:SECONDS or off")

    @property
    def sounds(self) -> bool:
        return self.mode != "off"


class EventScheduler:
    """Holds ``quarto`` events back by the policy's delay; everything else passes at once."""

    def __init__(self, policy: AlertPolicy) -> None:
        self.policy = policy
        self._pending: list[tuple[float, Event]] = []

    def push(self, events: list[Event], now: float) -> list[Event]:
        """Events ready now, in order, given the new ``events`` produced at ``now``."""
        out: list[Event] = []
        for event in events:
            kind = event.get("type")
            if kind == "quarto" and self.policy.mode == "delay" and self.policy.delay_s > 0:
                self._pending.append((now + self.policy.delay_s, event))
                continue
            if kind == "game_end":
                # The players cleared the board before the delay ran out: they saw the line.
                self._pending.clear()
            elif self._pending:
                out += self.flush()
            out.append(event)
        return out

    def keep_only(self, lines: Sequence[QuartoLine]) -> None:
        """The record changed (a correction, an undo): a Quarto still waiting for its delay
        whose line is not among ``lines`` (those the record now gives) is dropped unheard."""
        keys = line_keys(lines)
        self._pending = [(t, e) for t, e in self._pending if line_key(e) in keys]

    def due(self, now: float) -> list[Event]:
        """Delayed events whose time has come, stamped with the time they are raised."""
        ready = [(t, e) for t, e in self._pending if t <= now]
        self._pending = [(t, e) for t, e in self._pending if t > now]
        return [dict(e, t=round(t, 3)) for t, e in ready]

    def flush(self) -> list[Event]:
        """Every pending event now (a later event of the game must not overtake them)."""
        ready = [dict(e, t=round(t, 3)) for t, e in self._pending]
        self._pending.clear()
        return ready


def quarto_phrase(event: Event) -> str:
    """The spoken/printed phrase for a ``quarto`` event: the line and the shared values."""
    cells = [Cell(int(r), int(c)).name for r, c in event.get("cells", [])]
    shared = event.get("shared") or {}
    values = " and ".join(f"all {v}" for v in shared.values())
    where = f"{cells[0]} to {cells[-1]}" if cells else "a line"
    return f"Quarto! {where}, {values}."


def _beep_wav(path: Path, seconds: float = 0.35, rate: int = 22050) -> None:
    t = np.arange(int(seconds * rate)) / rate
    tone = 0.5 * np.sin(2 * np.pi * 880.0 * t) + 0.3 * np.sin(2 * np.pi * 1320.0 * t)
    envelope = np.minimum(1.0, np.minimum(t, seconds - t) / 0.02)
    samples = (tone * envelope * 0.6 * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


class Announcer:
    """Sound and voice for a Quarto, started in the background (never blocks).

    Uses the first player found among ``paplay``, ``aplay``, ``afplay`` for the sound and
    ``espeak-ng`` (or ``espeak``, ``say``) for the voice; without them it stays silent and
    the terminal line and the banner still announce.
    """

    def __init__(self, policy: AlertPolicy, *, sound: bool = True, voice: bool = True) -> None:
        self.policy = policy
        self._player = next((p for p in ("paplay", "aplay", "afplay") if shutil.which(p)), None)
        self._speaker = next((p for p in ("espeak-ng", "espeak", "say") if shutil.which(p)), None)
        self._sound = sound and self._player is not None
        self._voice = voice and self._speaker is not None
        self._wav: Path | None = None
        self._procs: list[subprocess.Popen[bytes]] = []

    @property
    def capabilities(self) -> str:
        parts = [f"sound via {self._player}" if self._sound else "no sound player"]
        parts.append(f"voice via {self._speaker}" if self._voice else "no speech engine")
        return ", ".join(parts)

    def announce(self, event: Event) -> None:
        if not self.policy.sounds or event.get("type") != "quarto":
            return
        self._procs = [p for p in self._procs if p.poll() is None]
        if self._sound and self._player:
            if self._wav is None:
                self._wav = Path(tempfile.mkstemp(prefix="quarto-vision-", suffix=".wav")[1])
                _beep_wav(self._wav)
            self._spawn([self._player, str(self._wav)])
        if self._voice and self._speaker:
            self._spawn([self._speaker, quarto_phrase(event)])

    def _spawn(self, argv: list[str]) -> None:
        try:
            self._procs.append(
                subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        except OSError as exc:  # the device vanished: keep watching, say it once
            logger.warning("cannot run %s: %s", argv[0], exc)

    def close(self) -> None:
        for proc in self._procs:
            try:
                proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self._wav is not None:
            self._wav.unlink(missing_ok=True)
