"""Human-readable export of a game record: moves, Quarto lines, result."""

from __future__ import annotations

from vision.game.model import Event
from vision.game.record import GameRecord
from vision.rules.board import Cell
from vision.rules.pieces import Piece


def _cells_text(event: Event) -> str:
    return "-".join(Cell(int(r), int(c)).name for r, c in event.get("cells", []))


def _shared_text(event: Event) -> str:
    shared = event.get("shared") or {}
    return ", ".join(f"all {v}" for v in shared.values()) or "?"


def _clock(t: object) -> str:
    try:
        seconds = float(t)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "   ?   "
    m, s = divmod(seconds, 60.0)
    return f"{int(m):3d}:{s:04.1f}"


def describe_event(event: Event) -> str:
    """One line of text for one event."""
    kind = event.get("type")
    if kind == "move":
        piece = Piece.from_attributes(event["piece"])
        adopted = "  (on the board when watching began)" if event.get("adopted") else ""
        return f"move {event['index']:2d}: {event['name']}  {piece.name}{adopted}"
    if kind == "quarto":
        return (
            f"QUARTO after move {event['after_move']}: {_cells_text(event)} ({_shared_text(event)})"
        )
    if kind == "quarto_missed":
        return (
            f"missed Quarto of move {event['after_move']}: {_cells_text(event)} "
            f"({_shared_text(event)}); play goes on"
        )
    if kind == "warning":
        return f"warning: {event.get('message', '')}"
    if kind == "game_start":
        return "game start"
    if kind == "game_end":
        return f"game end: {event.get('result')} after {event.get('moves')} moves"
    if kind == "correction":
        piece = Piece.from_attributes(event["piece"])
        was = Piece.from_attributes(event["was"])
        return (
            f"correction of move {event.get('index')} on {event.get('name')}: {piece.name} "
            f"(was {was.name})"
        )
    if kind == "undo":
        return f"undo move {event.get('index')} on {event.get('name')} ({event.get('reason', '')})"
    return f"{kind}: {event}"


def record_text(record: GameRecord) -> str:
    """The whole record as text: header, one line per event with its time, the final board."""
    rules = record.rules
    attrs = "all attributes" if len(rules.attributes) == 4 else ", ".join(rules.attributes)
    out = [
        f"game {record.path.name}",
        f"started {record.header.get('created', '?')}; rules {rules.lines_name}, {attrs}",
    ]
    if "source" in record.header:
        out.append(f"source {record.header['source']}")
    out.append("")
    for event in record.events:
        out.append(f"{_clock(event.get('t'))}  {describe_event(event)}")
    game = record.game()
    out.append("")
    out.append("final board (row 1 first; L/D colour, R/S shape, S/T height, S/H top):")
    out.append(game.board.text())
    result = next(
        (e.get("result") for e in reversed(record.events) if e.get("type") == "game_end"), None
    )
    out.append("")
    out.append(f"result: {result if result else 'unfinished'} ({len(game.moves)} moves)")
    for error in record.errors:
        out.append(f"note: {error}")
    return "\n".join(out)
