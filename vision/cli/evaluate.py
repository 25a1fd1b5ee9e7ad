"""``quarto-vision evaluate FOLDER [--oracle-board] [--json] [--limit N] [--failures N]``.

Scores the reader on a folder of images with sidecar labels (ours or ``photoreal_dev``'s):
boards found, occupancy errors, errors per attribute, pieces with any attribute wrong, boards
fully right, split by elevation band and board style. ``--real-photos LABELS`` scores
``real_photos/labels.json`` instead. ``--reader`` picks the cell reader: ``fused`` (the
default, what ``analyze`` and ``watch`` use), ``learned`` (the network alone) or ``geometric``
(the hand-crafted reader alone). Exit status 0, or 2 when the folder holds no labels.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.evaluation.runner import CellReader

EXIT_OK = 0
EXIT_NO_DATA = 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("evaluate", help="score piece reading on labelled images",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", nargs="?", help="folder of images with sidecar JSON labels")
    p.add_argument("--real-photos", metavar="LABELS",
                   help="score the real photos described by this labels.json instead")
    p.add_argument("--oracle-board", action="store_true",
                   help="use the label's camera instead of the board finder (reader alone); "
                   "for real photos, a board fitted to fully labelled photos")
    p.add_argument("--limit", type=int, default=None, help="first N images only")
    p.add_argument("--failures", type=int, default=0, metavar="N",
                   help="list the mistakes of the first N images that have any")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--reader", choices=READERS, default="fused",
                   help="cell reader to score (default: fused, the one analyze uses)")
    p.set_defaults(func=run)


#: Names of the cell readers ``--reader`` can score.
READERS = ("fused", "learned", "geometric")


def cell_reader(name: str) -> CellReader:
    """The frame + BoardView -> Observation function of a ``--reader`` name."""
    if name == "fused":
        from vision.learn.fuse import read_cells_fused

        return read_cells_fused
    if name == "learned":
        from vision.learn.reader import read_cells_learned

        return read_cells_learned
    if name == "geometric":
        from vision.read.reader import read_cells

        return read_cells
    raise ValueError(f"unknown reader {name!r}; choose from {', '.join(READERS)}")


def run(args: argparse.Namespace) -> int:
    if args.real_photos:
        from vision.evaluation.real_photos import format_real_report, score_real_photos

        try:
            real = score_real_photos(args.real_photos, oracle_board=args.oracle_board,
                                     cell_reader=cell_reader(args.reader))
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_NO_DATA
        print(json.dumps(real, indent=1) if args.json else format_real_report(real))
        return EXIT_OK
    if not args.folder:
        print("error: give a FOLDER or --real-photos LABELS", file=sys.stderr)
        return EXIT_NO_DATA
    from vision.evaluation.labels import LabelError, iter_labelled_images
    from vision.evaluation.runner import evaluate_labels, format_report

    folder = Path(args.folder)
    try:
        labels = list(iter_labelled_images(folder))
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_NO_DATA
    if args.limit is not None:
        labels = labels[: args.limit]
    if not labels:
        print(f"error: {folder}: no labelled images", file=sys.stderr)
        return EXIT_NO_DATA

    def progress(n: int, label: Any) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\r{n + 1}/{len(labels)} {label.image_path.name}", end="", file=sys.stderr)

    result = evaluate_labels(labels, oracle_board=args.oracle_board, progress=progress,
                             cell_reader=cell_reader(args.reader))
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(result.report.as_dict(), indent=1))
    else:
        print(format_report(result, failures=args.failures))
    return EXIT_OK
