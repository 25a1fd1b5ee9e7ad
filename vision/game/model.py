"""The game as it happens: moves in order, the claim rule, and the events of DESIGN.md section 4.

Events are plain JSON-ready dicts exactly as the ``watch`` contract prints them, so the same
objects go to the terminal, to ``--events`` and to the game record without translation.

Claim rule (RULES.md): a line created by move k can be claimed until move k+1 is placed. The
program cannot hear the players, so it announces the line (``quarto``) when move k creates it;
when move k+1 is placed the line lapses (``quarto_missed``) and play goes on. A line created
later is a new event. The game ends when the board is cleared (result ``quarto`` if the last
move made a line, else ``abandoned``) or when it is full with no line (``draw``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vision.rules.board import ALL_CELLS, Board, Cell, Status
from vision.rules.lines import QuartoLine, Rules
from vision.rules.pieces import Piece

Event = dict[str, Any]


class IllegalMoveError(ValueError):
    """A move the game cannot take (occupied cell, game over); the message says which."""


@dataclass(frozen=True)
class Move:
    index: int  # 1-based
    cell: Cell
    piece: Piece
    t: float


def _t(t: float) -> float:
    return round(float(t), 3)


def _move_event(move: Move) -> Event:
    """The ``move`` event of a recorded move (DESIGN section 4)."""
    return {
        "type": "move",
        "t": move.t,
        "index": move.index,
        "row": move.cell.row,
        "col": move.cell.col,
        "name": move.cell.name,
        "piece": move.piece.attributes,
    }


def _line_event(kind: str, t: float, after_move: int, line: QuartoLine) -> Event:
    return {
        "type": kind,
        "t": _t(t),
        "after_move": after_move,
        "cells": [[c.row, c.col] for c in line.cells],
        "shared": line.shared,
    }


class Game:
    """One game: call :meth:`start`, then :meth:`place` per move, then :meth:`end`.

    Every method returns the list of events it produced; :attr:`events` keeps them all.
    """

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules()
        self.board = Board()
        self.moves: list[Move] = []
        self.events: list[Event] = []
        self.result: str | None = None
        self._claimable: list[QuartoLine] = []  # lines created by the last move
        self._started = False

    # -- state --------------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._started

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def claimable_lines(self) -> list[QuartoLine]:
        """Lines created by the last move, still claimable until the next move."""
        return list(self._claimable)

    def status(self) -> Status:
        return self.board.status()

    # -- actions ------------------------------------------------------------------------------
    def start(self, t: float, cells_px: Sequence[Sequence[float]] | None = None) -> list[Event]:
        """Begin the game. ``cells_px`` gives each cell's image centre (row-major), if known."""
        if self._started:
            raise IllegalMoveError("game already started")
        self._started = True
        event: Event = {"type": "game_start", "t": _t(t)}
        if cells_px is not None:
            if len(cells_px) != 16:
                raise ValueError(f"cells_px must have 16 entries, got {len(cells_px)}")
            event["cells"] = [
                {
                    "row": c.row,
                    "col": c.col,
                    "name": c.name,
                    "center_px": [round(float(p[0]), 2), round(float(p[1]), 2)],
                }
                for c, p in zip(ALL_CELLS, cells_px, strict=True)
            ]
        return self._emit([event])

    def place(self, cell: Cell, piece: Piece, t: float) -> list[Event]:
        """Record a placement; returns the ``quarto_missed``, ``move``, ``quarto`` and
        ``game_end`` (draw) events it causes, in that order."""
        started = [] if self._started else self.start(t)
        if self.over:
            raise IllegalMoveError(f"game is over ({self.result}); cannot place on {cell.name}")
        if self.board[cell] is not None:
            raise IllegalMoveError(f"cell {cell.name} is already occupied by {self.board[cell]}")
        events: list[Event] = []
        index = len(self.moves) + 1
        for line in self._claimable:
            events.append(_line_event("quarto_missed", t, index - 1, line))
        duplicate = piece in self.board.pieces()
        self.board[cell] = piece
        self.moves.append(Move(index, cell, piece, _t(t)))
        events.append(_move_event(self.moves[-1]))
        if duplicate:
            events.append(
                self._warning_event(
                    t, f"piece {piece} placed on {cell.name} is already on the board"
                )
            )
        self._claimable = self.rules.lines_created(self.board, cell)
        events.extend(_line_event("quarto", t, index, line) for line in self._claimable)
        if self.board.is_full() and not self._claimable:
            events.append(self._end_event(t, "draw"))
        return started + self._emit(events)

    def adopt(self, pieces: list[tuple[Cell, Piece]], t: float) -> list[Event]:
        """Take over pieces already on the board when watching began (order unknown).

        They become moves marked ``"adopted": true``, in the given order, with no Quarto
        raised for them: whether a line among them was ever claimable cannot be known.
        """
        events = [] if self._started else self.start(t)
        for cell, piece in pieces:
            if self.board[cell] is not None:
                raise IllegalMoveError(f"cell {cell.name} is already occupied")
            self.board[cell] = piece
            index = len(self.moves) + 1
            self.moves.append(Move(index, cell, piece, _t(t)))
            events += self._emit([{**_move_event(self.moves[-1]), "adopted": True}])
        self._claimable = []
        return events

    def warn(self, t: float, message: str) -> list[Event]:
        return self._emit([self._warning_event(t, message)])

    def undo(self, t: float, reason: str = "corrected by hand") -> list[Event]:
        """Take back the last move (a correction from the user); logged as an ``undo`` event."""
        if not self.moves or self.result not in (None, "draw"):
            raise IllegalMoveError("nothing to undo")
        move = self.moves.pop()
        self.board[move.cell] = None
        self.result = None
        # Lines of the move before become claimable again only if they were still claimable
        # when the undone move was placed; recompute from the position.
        prev = self.moves[-1] if self.moves else None
        self._claimable = self.rules.lines_created(self.board, prev.cell) if prev else []
        return self._emit(
            [
                {
                    "type": "undo",
                    "t": _t(t),
                    "index": move.index,
                    "name": move.cell.name,
                    "reason": reason,
                }
            ]
        )

    def correct(self, changes: dict[Cell, Piece], t: float, reason: str) -> list[Event]:
        """Replace the pieces recorded on some cells (the board was misread when they came).

        All ``changes`` are applied together, so two misread pieces can swap. Each changed
        move gives a ``correction`` event (its index and cell, the new ``piece`` and the piece it
        ``was``); the moves keep their order and times. A line the corrected board gives the
        last move, that it did not give before, is raised as a ``quarto`` event; lines of
        earlier moves are past their turn and are not raised.

        Raises
        ------
        IllegalMoveError
            When the game is over, a cell holds no recorded move, or the corrected board would
            hold a piece twice.
        """
        if self.over:
            raise IllegalMoveError(f"game is over ({self.result}); cannot correct it")
        where = {move.cell: i for i, move in enumerate(self.moves)}
        for cell in changes:
            if cell not in where:
                raise IllegalMoveError(f"no move recorded on {cell.name}; nothing to correct")
        after = {move.cell: move.piece for move in self.moves} | dict(changes)
        if len(set(after.values())) != len(after):
            raise IllegalMoveError("the corrected board would hold a piece twice")
        events: list[Event] = []
        for cell in sorted(changes, key=lambda c: where[c]):
            old = self.moves[where[cell]]
            piece = changes[cell]
            if piece == old.piece:
                continue
            self.moves[where[cell]] = Move(old.index, cell, piece, old.t)
            self.board[cell] = piece
            events.append(
                {
                    "type": "correction",
                    "t": _t(t),
                    "index": old.index,
                    "row": cell.row,
                    "col": cell.col,
                    "name": cell.name,
                    "piece": piece.attributes,
                    "was": old.piece.attributes,
                    "reason": reason,
                }
            )
        if events and self.moves:
            last = self.moves[-1]
            before = set(self._claimable)
            self._claimable = self.rules.lines_created(self.board, last.cell)
            events.extend(
                _line_event("quarto", t, last.index, line)
                for line in self._claimable
                if line not in before
            )
        return self._emit(events)

    def end(self, t: float) -> list[Event]:
        """The board was cleared: ``quarto`` if the last move made a line, else ``abandoned``."""
        if self.over:
            return []
        return self._emit([self._end_event(t, "quarto" if self._claimable else "abandoned")])

    # -- helpers ------------------------------------------------------------------------------
    def _warning_event(self, t: float, message: str) -> Event:
        return {"type": "warning", "t": _t(t), "message": message}

    def _end_event(self, t: float, result: str) -> Event:
        self.result = result
        return {"type": "game_end", "t": _t(t), "result": result, "moves": len(self.moves)}

    def _emit(self, events: list[Event]) -> list[Event]:
        self.events.extend(events)
        return events

    # -- replay -------------------------------------------------------------------------------
    @classmethod
    def replay(cls, events: Iterable[Event], rules: Rules | None = None) -> Game:
        """Rebuild a game from its events (as read from a record).

        Moves, undos and corrections are replayed through the rules; every event, including the
        derived ones, is kept exactly as given, so writing then reading gives the same game.
        """
        game = cls(rules)
        kept: list[Event] = []
        pending: dict[Cell, Piece] = {}
        pending_t = 0.0
        for event in events:
            kind = event.get("type")
            if pending and kind != "correction":
                game.correct(pending, pending_t, "replayed")
                pending = {}
            if kind == "game_start":
                game._started = True
            elif kind == "move":
                cell = Cell(int(event["row"]), int(event["col"]))
                piece = Piece.from_attributes(event["piece"])
                if event.get("adopted"):
                    game.adopt([(cell, piece)], float(event["t"]))
                else:
                    game.place(cell, piece, float(event["t"]))
            elif kind == "undo":
                game.undo(float(event["t"]), str(event.get("reason", "")))
            elif kind == "correction":  # the corrections of one repair are applied together
                cell = Cell(int(event["row"]), int(event["col"]))
                pending[cell] = Piece.from_attributes(event["piece"])
                pending_t = float(event["t"])
            elif kind == "game_end":
                game.result = str(event["result"])
            kept.append(dict(event))
        if pending:
            game.correct(pending, pending_t, "replayed")
        game.events = kept
        return game
