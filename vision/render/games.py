"""Game scripts: which piece goes where and when, and the events the rules core expects.

A :class:`GamePlan` is pure timing and logic (no pixels): the moves with the moments the hand
enters, places the piece and leaves, plus hovers, nudges, a camera bump and a lamp switched on.
The expected events come from the rules core (:class:`vision.game.model.Game`), fed with each
move at the time its hand has left the board, which is when a watcher can first see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.game.model import Game
from vision.rules.board import ALL_CELLS, Board, Cell
from vision.rules.lines import Rules
from vision.rules.pieces import ALL_PIECES, Piece

SCRIPTS: tuple[str, ...] = ("random", "missed", "draw", "bump", "light", "hover", "nudge")


@dataclass(frozen=True)
class Timing:
    """How long a player's gestures take, seconds (measured on people playing casually)."""

    start_idle: float = 1.0  # empty board before the first hand comes in
    reach: tuple[float, float] = (0.9, 1.3)  # from entering the frame to above the cell
    lower: float = 0.35  # setting the piece down
    release: float = 0.15  # fingers opening
    leave: tuple[float, float] = (0.8, 1.1)  # back out of the picture
    gap: tuple[float, float] = (0.3, 0.8)  # nobody's hand over the board between moves
    hover: tuple[float, float] = (0.6, 1.2)  # a hesitating hand stays above a cell this long
    end_idle: float = 1.5  # after the last hand left


@dataclass(frozen=True)
class Gesture:
    """One hand's trip over the board. ``kind``: move | hover | nudge."""

    kind: str
    player: int
    cell: Cell
    piece: Piece | None
    t_start: float  # hand enters
    t_over: float  # above the cell (hover: starts hovering; nudge: touches the piece)
    t_placed: float  # piece down (hover: starts leaving; nudge: push done)
    t_hand_left: float
    index: int = 0  # move number (moves only)
    nudge_m: tuple[float, float] = (0.0, 0.0)  # how far a nudge pushes the piece
    nudge_yaw_deg: float = 0.0


@dataclass
class GamePlan:
    script: str
    gestures: list[Gesture]
    duration: float
    camera_bumps: list[float] = field(default_factory=list)
    lighting_changes: list[float] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def moves(self) -> list[Gesture]:
        return [g for g in self.gestures if g.kind == "move"]


def random_to_quarto(
    rng: np.random.Generator, rules: Rules, *, stop_at: int = 1, max_moves: int = 16
) -> list[tuple[Cell, Piece]]:
    """Random legal play until ``stop_at`` moves have created a Quarto line (or the board fills).

    Several tries are made so that, when possible, the game does end on a Quarto.
    """
    best: list[tuple[Cell, Piece]] = []
    for _ in range(200):
        board = Board()
        seq: list[tuple[Cell, Piece]] = []
        created = 0
        cells = [ALL_CELLS[i] for i in rng.permutation(16)]
        pieces = [ALL_PIECES[i] for i in rng.permutation(16)]
        for cell, piece in zip(cells, pieces, strict=True):
            board[cell] = piece
            seq.append((cell, piece))
            if rules.lines_created(board, cell):
                created += 1
                if created >= stop_at:
                    return seq
            if len(seq) >= max_moves:
                break
        if not best or len(seq) > len(best):
            best = seq
    return best


def full_board_without_line(rng: np.random.Generator, rules: Rules) -> dict[Cell, Piece]:
    """A full board with no Quarto line anywhere (depth-first search, random order)."""
    order = list(ALL_CELLS)
    board = Board()
    for _ in range(200):
        board = Board()
        if _fill(board, order, 0, list(rng.permutation(16)), rules, rng):
            return {c: p for c, p in board.items()}
    raise RuntimeError("no drawn position found")  # pragma: no cover - the search always succeeds


def _fill(
    board: Board,
    order: list[Cell],
    k: int,
    left: list[int],
    rules: Rules,
    rng: np.random.Generator,
    budget: list[int] | None = None,
) -> bool:
    budget = budget if budget is not None else [20000]
    if k == len(order):
        return True
    cell = order[k]
    for i in rng.permutation(len(left)):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        code = left[int(i)]
        board[cell] = ALL_PIECES[code]
        if not rules.lines_created(board, cell):
            rest = left[: int(i)] + left[int(i) + 1 :]
            if _fill(board, order, k + 1, rest, rules, rng, budget):
                return True
        board[cell] = None
    return False


def plan_game(
    seed: int,
    script: str,
    *,
    timing: Timing | None = None,
    rules: Rules | None = None,
    max_moves: int = 16,
) -> GamePlan:
    """The moves, gestures and expected events of one scripted game.

    ``max_moves`` asks for a game that reaches its Quarto within that many moves (short demo
    videos); when random play finds none, the game stops there without a Quarto.
    """
    if script not in SCRIPTS:
        raise ValueError(f"script must be one of {', '.join(SCRIPTS)}, got {script!r}")
    tm = timing or Timing()
    rules = rules or Rules.classic()
    rng = np.random.default_rng([seed, 101])
    if script == "draw":
        final = full_board_without_line(rng, rules)
        seq = [(ALL_CELLS[i], final[ALL_CELLS[i]]) for i in rng.permutation(16)]
    elif script == "missed":
        seq = []
        for _ in range(20):
            seq = random_to_quarto(rng, rules, stop_at=2)
            first = _first_quarto(seq, rules)
            if first is not None and first < len(seq) and first <= 13:
                break
    else:
        seq = random_to_quarto(rng, rules, max_moves=max_moves)
    gestures: list[Gesture] = []
    t = tm.start_idle
    hover_at = int(rng.integers(1, max(2, len(seq) - 1))) if script == "hover" else -1
    nudge_after = int(rng.integers(1, max(2, len(seq) - 1))) if script == "nudge" else -1
    placed: list[Cell] = []
    for k, (cell, piece) in enumerate(seq):
        player = k % 2
        if k == hover_at:
            empty = [c for c in ALL_CELLS if c not in placed and c != cell]
            hc = empty[int(rng.integers(len(empty)))]
            g, t = _gesture(rng, tm, "hover", player, hc, piece, t, 0)
            gestures.append(g)
        g, t = _gesture(rng, tm, "move", player, cell, piece, t, k + 1)
        gestures.append(g)
        placed.append(cell)
        if k + 1 == nudge_after:
            target = placed[int(rng.integers(len(placed)))]
            g, t = _gesture(rng, tm, "nudge", 1 - player, target, None, t, 0)
            push = rng.normal(0, 1, 2)
            push = push / (np.linalg.norm(push) + 1e-9) * float(rng.uniform(0.003, 0.007))
            gestures.append(
                Gesture(
                    **{
                        **g.__dict__,
                        "nudge_m": (float(push[0]), float(push[1])),
                        "nudge_yaw_deg": float(rng.uniform(-12, 12)),
                    }
                )
            )
    duration = t + tm.end_idle
    plan = GamePlan(script, gestures, duration)
    moves = plan.moves
    if script == "bump":
        k = len(moves) // 2
        plan.camera_bumps.append(round(moves[k - 1].t_hand_left + 0.15, 3))
    if script == "light":
        k = len(moves) // 2
        plan.lighting_changes.append(round(moves[k - 1].t_hand_left + 0.15, 3))
    plan.events = expected_events(plan, rules)
    return plan


def _first_quarto(seq: list[tuple[Cell, Piece]], rules: Rules) -> int | None:
    board = Board()
    for i, (cell, piece) in enumerate(seq):
        board[cell] = piece
        if rules.lines_created(board, cell):
            return i + 1
    return None


def _gesture(
    rng: np.random.Generator,
    tm: Timing,
    kind: str,
    player: int,
    cell: Cell,
    piece: Piece | None,
    t: float,
    index: int,
) -> tuple[Gesture, float]:
    t_start = t
    t_over = t_start + float(rng.uniform(*tm.reach))
    if kind == "move":
        t_placed = t_over + tm.lower
        t_left = t_placed + tm.release + float(rng.uniform(*tm.leave))
    elif kind == "hover":
        t_placed = t_over + float(rng.uniform(*tm.hover))
        t_left = t_placed + float(rng.uniform(*tm.leave))
    else:  # nudge: touch, push for half a second, leave
        t_placed = t_over + 0.5
        t_left = t_placed + float(rng.uniform(*tm.leave))
    g = Gesture(
        kind,
        player,
        cell,
        piece,
        round(t_start, 3),
        round(t_over, 3),
        round(t_placed, 3),
        round(t_left, 3),
        index,
    )
    return g, t_left + float(rng.uniform(*tm.gap))


def expected_events(plan: GamePlan, rules: Rules) -> list[dict[str, Any]]:
    """Events per DESIGN.md section 4: each move counted when its hand has left the board."""
    game = Game(rules)
    game.start(0.0)
    for g in plan.moves:
        assert g.piece is not None
        game.place(g.cell, g.piece, g.t_hand_left)
    if not game.over:
        game.end(plan.duration)
    return list(game.events)
