"""The far-side check (``vision.learn.far_side``) off and on, label's board, image by image.

    python benchmarks/eval_far_side.py DIR [--elevation 25 40]

Reads every labelled image of DIR in the elevation range twice with the fused reader, the
check off (the default) and on (``FarSideConfig(enabled=True)``), prints both reports'
summary lines (occupancy errors, in view, pieces wrong, per band) and every image whose
mistakes differ. Session 33 (helper-33e) measured it on fresh1356, fresh1355, fresh1354 and
dev50_low (docs/design.md).
"""

from __future__ import annotations

import argparse
from functools import partial

from vision.evaluation.labels import iter_labelled_images
from vision.evaluation.runner import evaluate_labels, format_report
from vision.learn.config import FarSideConfig, LearnedReaderConfig
from vision.learn.fuse import read_cells_fused


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder")
    p.add_argument("--elevation", nargs=2, type=float, default=(0.0, 91.0))
    args = p.parse_args()
    lo, hi = args.elevation
    labels = [label for label in iter_labelled_images(args.folder)
              if label.elevation_deg is None or lo <= label.elevation_deg < hi]
    runs = {}
    for name, on in (("off", False), ("on", True)):
        config = LearnedReaderConfig(far_side=FarSideConfig(enabled=on))
        runs[name] = evaluate_labels(labels, oracle_board=True,
                                     cell_reader=partial(read_cells_fused, config=config))
        summary = format_report(runs[name]).split("\n\nconfusion")[0]
        print(name, "\n".join(line for line in summary.splitlines()
                              if not line.startswith("  ") or line[2].isdigit()))
    for (label, a), (_, b) in zip(runs["off"].scores, runs["on"].scores, strict=True):
        if a.errors != b.errors:
            print(label.image_path.stem, "off:", "; ".join(a.errors), "| on:",
                  "; ".join(b.errors))


if __name__ == "__main__":
    main()
