"""``quarto-vision`` command line: the only place that talks to the terminal.

Each command group lives in its own module under ``vision.cli`` exposing
``register(subparsers)``; it adds its subcommand and sets ``func`` on the parser to a handler
``handler(args) -> int`` (the exit status). Modules are imported lazily by name so that a
broken optional part never stops ``--help`` or ``games``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from vision import __version__

#: Command modules, in the order their commands appear in ``--help``.
COMMAND_MODULES: tuple[str, ...] = (
    "vision.cli.games",
    "vision.cli.analyze",
    "vision.cli.calibrate",
    "vision.cli.watch",
    "vision.cli.render",
    "vision.cli.evaluate",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quarto-vision",
        description="Camera assistant for Quarto: finds the board, reads the pieces, "
        "announces every Quarto and logs every game.",
    )
    parser.add_argument("--version", action="version", version=f"quarto-vision {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
