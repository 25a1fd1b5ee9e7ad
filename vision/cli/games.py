"""``quarto-vision games``: the logged games."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vision.game.export import record_text
from vision.game.record import SUFFIX, RecordError, default_log_dir, read_record


def register(sub: Any) -> None:
    games = sub.add_parser("games", help="show the logged games")
    games_sub = games.add_subparsers(dest="games_command", metavar="ACTION", required=True)

    show = games_sub.add_parser("show", help="print a game record as text (or JSON)")
    show.add_argument("file", type=Path, metavar="FILE", help="a game record (.jsonl)")
    show.add_argument("--json", action="store_true", help="print the parsed record as JSON")
    show.set_defaults(func=_show)

    lst = games_sub.add_parser("list", help="list the game records in a folder")
    lst.add_argument(
        "folder",
        type=Path,
        nargs="?",
        default=None,
        metavar="DIR",
        help=f"folder of records (default: {default_log_dir()})",
    )
    lst.set_defaults(func=_list)


def _show(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
    except RecordError as exc:
        print(f"quarto-vision: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(record.to_json()))
    else:
        print(record_text(record))
    for error in record.errors:
        print(f"quarto-vision: warning: {error}", file=sys.stderr)
    return 0


def _list(args: argparse.Namespace) -> int:
    folder = args.folder or default_log_dir()
    if not folder.is_dir():
        print(f"quarto-vision: no game folder at {folder}", file=sys.stderr)
        return 2
    paths = sorted(folder.glob(f"*{SUFFIX}"))
    for path in paths:
        try:
            record = read_record(path)
        except RecordError as exc:
            print(f"{path.name}: unreadable ({exc})")
            continue
        moves = len(record.game().moves)  # replayed, as `games show` counts them
        result = next(
            (e.get("result") for e in reversed(record.events) if e.get("type") == "game_end"),
            "unfinished",
        )
        print(f"{path.name}: {record.header.get('created', '?')}  {moves} moves  {result}")
    if not paths:
        print(f"no games in {folder}")
    return 0
