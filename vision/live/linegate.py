"""Announce a Quarto only when the readings are sure of the line.

The rules core decides what a Quarto is, from the pieces recorded. The record can be wrong
(a piece misread), and a false "Quarto!" spoils a game as much as a missed one, so the
``quarto`` events of the record pass through a :class:`LineGate` first: a line is announced
when its *line confidence* (how sure the readings are that the four pieces share the value
that makes it a line, :func:`vision.live.evidence.line_confidence`) reaches
``min_confidence``. Otherwise it is held, with a warning, and re-checked on every settled
frame while it is claimable: more readings (a hand gone, a shadow faded) can confirm it, and
it is then announced late rather than never. A held line that lapses (the next piece is
placed) is dropped with a warning instead of a ``quarto_missed``: it was never claimed to
exist.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vision.game.model import Event
from vision.rules.lines import QuartoLine

logger = logging.getLogger(__name__)

LineKey = tuple[tuple[int, int], ...]
#: The line confidence of a quarto event's line, from the current readings.
Confidence = Callable[[Event], float]
#: What of a quarto event's line was never in view, in words, or None.
Unseen = Callable[[Event], "str | None"]


def line_key(event: Event) -> LineKey:
    """The cells of a line event, as a hashable key."""
    return tuple(sorted((int(r), int(c)) for r, c in event["cells"]))


def line_keys(lines: Sequence[QuartoLine]) -> set[LineKey]:
    """The keys (as :func:`line_key`) of lines of the record."""
    return {tuple(sorted((c.row, c.col) for c in line.cells)) for line in lines}


def describe(event: Event) -> str:
    """'a1-b2-c3-d4 (all tall)' for a line event."""
    names = "-".join(f"{'abcd'[c]}{r + 1}" for r, c in event["cells"])
    values = " and ".join(f"all {v}" for v in event.get("shared", {}).values())
    return f"{names} ({values})"


@dataclass
class _Held:
    event: Event
    confidence: float


class LineGate:
    """Holds back ``quarto`` events whose line is not read with enough confidence.

    Parameters
    ----------
    min_confidence : line confidence (0..1) needed to announce.
    """

    def __init__(self, min_confidence: float) -> None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1], got {min_confidence!r}")
        self.min_confidence = min_confidence
        self._held: dict[LineKey, _Held] = {}
        self._announced: set[LineKey] = set()

    @property
    def held(self) -> list[Event]:
        """The quarto events held back now."""
        return [h.event for h in self._held.values()]

    def clear(self) -> None:
        """A new game: forget everything."""
        self._held.clear()
        self._announced.clear()

    def keep_only(self, lines: Sequence[QuartoLine]) -> None:
        """The record changed (a correction): held lines that are no longer among ``lines``
        (the lines the record now gives the last move) are dropped."""
        keys = line_keys(lines)
        for key in [k for k in self._held if k not in keys]:
            del self._held[key]
        self._announced &= keys  # a line the record lost and gives again is news again

    def filter(
        self, events: list[Event], confidence: Confidence, unseen: Unseen | None = None
    ) -> tuple[list[Event], list[str]]:
        """Pass the record's events on, holding back unconfirmed lines.

        ``unseen`` names what of a held line the camera never showed, if anything; the
        warning then says so and asks the players to check the board (such a line is
        not confirmed by more readings).

        Returns the events to raise and the warning messages to raise with them.
        """
        out: list[Event] = []
        warnings: list[str] = []
        for event in events:
            kind = event.get("type")
            if kind == "quarto" and line_key(event) in self._announced:
                # The same four cells raised again by a correction that changed what their
                # pieces share: a line already heard (fresh game 1022011 shouted twice).
                logger.info("line %s already announced; not again", describe(event))
            elif kind == "quarto":
                key = line_key(event)
                c = confidence(event)
                logger.info("line %s after move %s: confidence %.3f", describe(event),
                            event.get("after_move"), c)
                if c >= self.min_confidence:
                    self._announced.add(key)
                    out.append(event)
                else:
                    self._held[key] = _Held(event, c)
                    why = unseen(event) if unseen is not None else None
                    warnings.append(
                        f"possible Quarto {describe(event)} not announced: {why}; check the "
                        f"board" if why else
                        f"possible Quarto {describe(event)} not announced yet: the pieces "
                        f"are not read surely enough ({c:.2f})"
                    )
            elif kind == "quarto_missed":
                key = line_key(event)
                if key in self._held:
                    del self._held[key]
                    warnings.append(
                        f"possible Quarto {describe(event)} lapsed unconfirmed; not announced"
                    )
                else:
                    self._announced.discard(key)
                    out.append(event)
            else:
                if kind in ("move", "game_end", "undo"):
                    self._held.clear()  # a held line is claimable only until the next move
                    self._announced.clear()  # lines are claimable only until then too
                out.append(event)
        return out, warnings

    def release(self, confidence: Confidence, now: float) -> list[Event]:
        """Re-check the held lines with the current readings; announce those now sure."""
        out: list[Event] = []
        for key, held in list(self._held.items()):
            c = confidence(held.event)
            held.confidence = c
            if c >= self.min_confidence:
                del self._held[key]
                self._announced.add(key)
                event = dict(held.event)
                event["t"] = round(float(now), 3)
                logger.info("line %s confirmed at t=%.2f (%.3f)", describe(event), now, c)
                out.append(event)
        return out
