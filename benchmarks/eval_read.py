"""Accuracy of piece reading on seeded renders, a labelled folder, or the real photos.

    python benchmarks/eval_read.py --renders 500 --seed 700000 [--oracle-board]
    python benchmarks/eval_read.py --folder ../shared/photoreal_dev --oracle-board
    python benchmarks/eval_read.py --real-photos ../shared/real_photos/labels.json

``--reader`` picks the cell reader (``fused``, the default and the one ``analyze`` and ``watch``
use; ``learned``; ``geometric``), as ``quarto-vision evaluate`` does. Renders are made into a
temporary folder (never into the repository). Prints the report of
``quarto-vision evaluate`` (per elevation band and board style, confusion tables) and, with
``--json FILE``, writes it as JSON too. Asserts nothing: the accuracy ratchet lives in
``tests/read/test_accuracy_ratchet.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from vision.cli.evaluate import READERS, cell_reader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--renders", type=int, metavar="N", help="score N fresh seeded renders")
    src.add_argument("--folder", help="score a folder of labelled images")
    src.add_argument("--real-photos", metavar="LABELS", help="score real_photos/labels.json")
    parser.add_argument("--seed", type=int, default=700_000, help="first render seed")
    parser.add_argument("--oracle-board", action="store_true",
                        help="read with the label's camera instead of the board finder")
    parser.add_argument("--failures", type=int, default=0, help="list N images' mistakes")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--reader", choices=READERS, default="fused",
                        help="cell reader to score (default: fused, the one analyze and watch "
                             "use; geometric was this script's only reader until session 13)")
    parser.add_argument("--top-band-weight", type=float, metavar="W",
                        help="weight of the fused reader's band cue between each piece's two "
                             "possible tops (vision.read.top_band; default: the packaged "
                             "TopBandConfig, off)")
    parser.add_argument("--decode-by-occupancy", choices=("on", "off"),
                        help="whether the fused reader's joint decoding weighs each cell by "
                             "its P(occupied) (LearnedReaderConfig.decode_by_occupancy; "
                             "default: the packaged config, on)")
    parser.add_argument("--hole-size-weight", type=float, metavar="W",
                        help="weight of the fused reader's bore-size height evidence near "
                             "straight above (vision.learn.hole_size; default: the packaged "
                             "HoleSizeConfig, weight 1)")
    parser.add_argument("--wall-height-weight", type=float, metavar="W",
                        help="weight of the fused reader's near-wall height evidence from "
                             "above (vision.learn.wall_height; default: the packaged "
                             "LearnedReaderConfig.wall_height, off)")
    parser.add_argument("--top-rim-weight", type=float, metavar="W",
                        help="weight of the fused reader's top-outline height evidence from "
                             "steep views (vision.learn.top_rim; LearnedReaderConfig.top_rim, "
                             "default 1, on; 0 turns it off)")
    parser.add_argument("--hand-height-min-separation", type=float, metavar="PITCH",
                        help="leave the hand-crafted reader's short/tall out of the fusion "
                             "where its two tops lie under PITCH cell pitches apart "
                             "(LearnedReaderConfig.hand_height_min_separation_pitch; default 0, "
                             "off)")
    parser.add_argument("--top-rim-pair-scales", metavar="K,K,...",
                        help="factors of the hand-crafted reader's set heights the top-outline "
                             "evidence chooses among (TopRimConfig.pair_scales; default none, "
                             "off)")
    args = parser.parse_args()
    from dataclasses import replace

    import vision.learn.fuse as fuse

    if args.hole_size_weight is not None:
        fuse.DEFAULT_HOLE_SIZE = replace(fuse.DEFAULT_HOLE_SIZE, weight=args.hole_size_weight)
    if args.top_band_weight is not None:
        fuse.DEFAULT_TOP_BAND = replace(fuse.DEFAULT_TOP_BAND, weight=args.top_band_weight)
    read = cell_reader(args.reader)
    reader_knobs: dict[str, object] = {}
    if args.decode_by_occupancy is not None:
        reader_knobs["decode_by_occupancy"] = args.decode_by_occupancy == "on"
    if args.wall_height_weight is not None:
        from vision.learn.config import WallHeightConfig

        reader_knobs["wall_height"] = WallHeightConfig(weight=args.wall_height_weight)
    if args.top_rim_weight is not None or args.top_rim_pair_scales:
        from vision.learn.config import TopRimConfig

        rim_knobs: dict[str, object] = {}
        if args.top_rim_weight is not None:
            rim_knobs["weight"] = args.top_rim_weight
        if args.top_rim_pair_scales:
            rim_knobs["pair_scales"] = tuple(float(k) for k in
                                             args.top_rim_pair_scales.split(","))
        reader_knobs["top_rim"] = TopRimConfig(**rim_knobs)  # type: ignore[arg-type]
    if args.hand_height_min_separation is not None:
        reader_knobs["hand_height_min_separation_pitch"] = args.hand_height_min_separation
    if reader_knobs:
        if args.reader != "fused":
            parser.error("--decode-by-occupancy, --wall-height-weight and --top-rim-weight "
                         "apply to the fused reader only")
        from functools import partial

        from vision.learn.config import LearnedReaderConfig

        read = partial(read, config=LearnedReaderConfig(**reader_knobs))  # type: ignore[arg-type,call-arg]

    if args.real_photos:
        from vision.evaluation.real_photos import format_real_report, score_real_photos

        result = score_real_photos(args.real_photos, cell_reader=read)
        print(format_real_report(result))
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
        return

    from vision.evaluation.labels import iter_labelled_images
    from vision.evaluation.runner import evaluate_labels, format_report

    with tempfile.TemporaryDirectory() as tmp:
        if args.renders:
            from vision.render.still import render_still, write_still

            folder = Path(tmp)
            for k in range(args.renders):
                image, label = render_still(args.seed + k)
                write_still(folder / f"{args.seed + k}.jpg", image, label)
                if sys.stderr.isatty():
                    print(f"\rrendered {k + 1}/{args.renders}", end="", file=sys.stderr)
            if sys.stderr.isatty():
                print(file=sys.stderr)
        else:
            folder = Path(args.folder)
        run = evaluate_labels(iter_labelled_images(folder), oracle_board=args.oracle_board,
                              cell_reader=read)
        print(format_report(run, failures=args.failures))
        if args.json:
            Path(args.json).write_text(json.dumps(run.report.as_dict(), indent=1))


if __name__ == "__main__":
    main()
