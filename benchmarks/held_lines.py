"""List the lines `watch` held back ("possible Quarto ... not announced"), real or false.

    python benchmarks/held_lines.py EVENTS_DIR [EVENTS_DIR ...] [--truth DIR ...]

For every ``*.events.jsonl`` (as `eval_watch.py` leaves beside each video), the truth sidecar
``*.json`` of the same name is looked up beside it or in the ``--truth`` dirs. Each held
line is printed once per line and game with the rule that held it, and judged against the
truth: REAL (a line of the truth's, held after the move that made it) or false (a line
the truth does not have then; one held before its piece came rests on a phantom). The rule
is read from the warning's wording:

- ``guess_part_view``: "recorded as a guess and its X never read clearly"
  (``TrackerConfig.gate_guess_part_view``);
- ``hidden_guess``: "the piece on X was never in view" (a piece taken from the image's
  change alone, ``change_arrival_weak``);
- ``unseen_values``: "the X of the piece on Y was never in view" (``gate_unseen_values``);
- ``guess_elimination``: "reads X only by elimination through the guess on Y"
  (``gate_guess_elimination``);
- ``co_arrival``: "came with another in one hand's turn" (``gate_co_arrival_part_view``);
- ``echo_values``: "read so before the piece came there" (``gate_echo_part_view``);
- ``confidence``: "not read surely enough" (``quarto_confidence``);
- ``record``: "the record has X otherwise": not a held line of the record but a line the
  record does not hold (``possible_line_warning``); listed, not counted as held.

Totals: games, truth lines, lines announced, false "Quarto!", and real / false lines held
per rule. Session 34 (helper-34c) used it for issue 6's held lines.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from vision.evaluation.games import _line_key, cell_mapping, score_game

WARNING = re.compile(r"possible Quarto ([a-d][1-4](?:-[a-d][1-4]){3}) \((.*?)\) not announced"
                     r"(.*)")


def rule_of(message: str) -> str:
    """The rule a held line's warning names (see the module docstring)."""
    if "record has" in message:
        return "record"
    if "recorded as a guess" in message:
        return "guess_part_view"
    if "only by elimination through the guess" in message:
        return "guess_elimination"
    if "not read surely enough" in message:
        return "confidence"
    if "came with another in one hand's turn" in message:
        return "co_arrival"
    if "read so before the piece came there" in message:
        return "echo_values"
    if re.search(r": the piece on [a-d][1-4] was never in view", message):
        return "hidden_guess"
    return "unseen_values"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", type=Path, help="folders of *.events.jsonl")
    p.add_argument("--truth", nargs="*", type=Path, default=[],
                   help="more folders to find the truth *.json in")
    args = p.parse_args()
    totals: Counter[str] = Counter()
    for folder in args.dirs:
        for path in sorted(folder.glob("*.events.jsonl")):
            name = path.name[: -len(".events.jsonl")]
            found = [d / f"{name}.json" for d in (folder, *args.truth)
                     if (d / f"{name}.json").exists()]
            if not found:
                print(f"{name}: no truth", file=sys.stderr)
                continue
            truth = json.loads(found[0].read_text())
            events = [json.loads(line) for line in path.read_text().splitlines() if line]
            score = score_game(events, truth)
            totals["games"] += 1
            totals["lines"] += len(score.announced)
            totals["announced"] += sum(ok for _, ok in score.announced)
            totals["false quarto"] += score.false_quartos
            mapping = cell_mapping(events, truth["cells"])
            left = {m["index"]: m["t_hand_left"] for m in truth["moves"]}
            lines = {_line_key(e["cells"], None): e for e in truth["events"]
                     if e["type"] == "quarto"}
            seen = set()
            for event in events:
                m = WARNING.search(event.get("message", "")) if event["type"] == "warning" else None
                if m is None:
                    continue
                cells = [(int(s[1]) - 1, "abcd".index(s[0])) for s in m.group(1).split("-")]
                key = _line_key(cells, mapping)
                line = lines.get(key)
                # Held after the truth's move made it (a line raised before its piece came
                # rests on a phantom of the record: holding it was right).
                real = line is not None and -0.5 < event["t"] - left[line["after_move"]] < 8.0
                rule = rule_of(m.group(3))
                if (key, real, rule) in seen:
                    continue
                seen.add((key, real, rule))
                if rule != "record":
                    totals[f"held {'real' if real else 'false'} {rule}"] += 1
                late = f" ({event['t'] - left[line['after_move']]:.2f} s after the hand left)" \
                    if real and line is not None else ""
                print(f"{name} {'REAL ' if real else 'false'} {rule:15s} t={event['t']:.2f}"
                      f"{late} {m.group(1)} ({m.group(2)}){m.group(3)[:120]}")
    for key, value in sorted(totals.items()):
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
