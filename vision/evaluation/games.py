"""Scoring a watched game against the renderer's ground truth (the video's sidecar JSON).

The program keeps its own cell labelling, which may differ from the renderer's by a symmetry
of the board; the ``game_start`` event's cell centres are matched to the label's by image
position, and every cell the program names is translated before comparing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Event = dict[str, Any]


@dataclass
class GameScore:
    """How one watched game compares with the truth."""

    moves_right: bool
    expected_moves: int
    found_moves: int
    #: (after_move, cells) of every expected line-creating move, and whether it was announced
    announced: list[tuple[int, bool]] = field(default_factory=list)
    false_quartos: int = 0
    #: seconds from the placing hand leaving to the announcement, per announced line
    latencies: list[float] = field(default_factory=list)
    result_right: bool = False
    notes: list[str] = field(default_factory=list)


def cell_mapping(
    events: Sequence[Event], truth_cells: Sequence[dict[str, Any]]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Our (row, col) -> the label's (row, col), by nearest cell centre in the first frame."""
    start = next((e for e in events if e.get("type") == "game_start" and e.get("cells")), None)
    if start is None:
        return {}
    ours = np.array([c["center_px"] for c in start["cells"]], dtype=float)
    theirs = np.array([c["center_px"] for c in truth_cells], dtype=float)
    mapping = {}
    for i, c in enumerate(start["cells"]):
        j = int(np.argmin(np.linalg.norm(theirs - ours[i], axis=1)))
        mapping[(int(c["row"]), int(c["col"]))] = (
            int(truth_cells[j]["row"]),
            int(truth_cells[j]["col"]),
        )
    return mapping


def _line_key(
    cells: Sequence[Sequence[int]], mapping: dict[tuple[int, int], tuple[int, int]] | None
) -> frozenset[tuple[int, int]]:
    pts = [(int(r), int(c)) for r, c in cells]
    if mapping is not None:
        pts = [mapping.get(p, (-1, -1)) for p in pts]
    return frozenset(pts)


def recorded_moves(events: Sequence[Event]) -> list[Event]:
    """The ``move`` events as the record finally holds them: a later ``correction`` of a move
    (same index) replaces its piece, and an ``undo`` takes the move back."""
    moves: list[Event] = []
    for event in events:
        if event.get("type") == "move":
            moves.append(dict(event))
        elif event.get("type") == "correction":
            for move in moves:
                if move.get("index") == event.get("index"):
                    move["piece"] = event["piece"]
        elif event.get("type") == "undo":
            moves = [move for move in moves if move.get("index") != event.get("index")]
    return moves


def score_game(events: Sequence[Event], truth: dict[str, Any]) -> GameScore:
    """Compare the events of one watched game with the sidecar ``truth`` of its video."""
    mapping = cell_mapping(events, truth["cells"])
    moves = recorded_moves(events)
    want = truth["moves"]
    got = [((mapping.get((e["row"], e["col"]), (-1, -1))), e["piece"]) for e in moves]
    exp = [((m["row"], m["col"]), m["piece"]) for m in want]
    score = GameScore(got == exp, len(exp), len(got))
    if got != exp:
        for i, (g, x) in enumerate(zip(got, exp, strict=False)):
            if g != x:
                score.notes.append(f"move {i + 1}: got {g}, expected {x}")
                break
        if len(got) != len(exp):
            score.notes.append(f"{len(got)} moves found, {len(exp)} expected")
    t_left = {m["index"]: m["t_hand_left"] for m in want}
    expected_q = [e for e in truth["events"] if e["type"] == "quarto"]
    found_q = [e for e in events if e.get("type") == "quarto"]
    matched: set[int] = set()
    for x in expected_q:
        key = _line_key(x["cells"], None)
        hit = next(
            (
                i
                for i, f in enumerate(found_q)
                if i not in matched
                and _line_key(f["cells"], mapping) == key
                and abs(f["t"] - t_left[x["after_move"]]) < 5.0
            ),
            None,
        )
        score.announced.append((x["after_move"], hit is not None))
        if hit is not None:
            matched.add(hit)
            score.latencies.append(float(found_q[hit]["t"]) - float(t_left[x["after_move"]]))
    score.false_quartos = len(found_q) - len(matched)
    want_end = next((e["result"] for e in truth["events"] if e["type"] == "game_end"), None)
    got_end = next((e["result"] for e in events if e.get("type") == "game_end"), None)
    score.result_right = want_end == got_end
    return score


def summarize(scores: Sequence[GameScore]) -> dict[str, Any]:
    """Totals over many games, as the acceptance of the live issue states them."""
    lat = [x for s in scores for x in s.latencies]
    announced = [ok for s in scores for _, ok in s.announced]
    return {
        "games": len(scores),
        "moves_exact_rate": float(np.mean([s.moves_right for s in scores])) if scores else 0.0,
        "lines": len(announced),
        "lines_announced_rate": float(np.mean(announced)) if announced else 1.0,
        "false_quartos": int(sum(s.false_quartos for s in scores)),
        "latency_median_s": float(np.median(lat)) if lat else None,
        "latency_max_s": float(np.max(lat)) if lat else None,
        "results_right_rate": float(np.mean([s.result_right for s in scores])) if scores else 0.0,
    }
