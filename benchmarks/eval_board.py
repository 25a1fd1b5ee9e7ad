"""Board-finding figures over labelled image folders (renders, photoreal_dev).

Usage::

    python benchmarks/eval_board.py FOLDER [FOLDER ...] [--render N --seed S --out DIR]
        [--no-board N] [--json FILE] [--failures] [--diagnose] [--locate KEY=VALUE ...]

``--render N --seed S`` first renders N seeded stills (and ``--no-board M`` stills without a
board, seeds S+N..) into ``--out`` (default /tmp/board_eval), then evaluates that folder too.

``--locate KEY=VALUE`` (repeatable) runs the finder with that ``LocateConfig`` field changed
(the value a Python literal: ``--locate line_marking_recheck=True``).

``--diagnose`` says, for every board missed or misplaced, where the search lost it (from the
label's true grid): ``rings`` = cells with a ring candidate within 0.1 pitch of the true
centre; ``guess`` = the closest grid guess (network peaks, ring lattices and board
outlines), as the largest distance of a true cell centre from the guess's nearest node, in
pitches; ``truth`` = the judge's score of the grid fitted from the true one (``-`` when a
check rejects it). The stage is ``judge`` when even the true grid scores below
``min_board_score``, ``guess`` when no guess comes within 0.25 pitch, else ``fit`` (a close
guess was fitted or ranked away).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import sys
from pathlib import Path

import cv2

from vision.evaluation.board import evaluate_folder, format_summary, summarize
from vision.evaluation.labels import Label, iter_labelled_images
from vision.locate.config import LocateConfig
from vision.locate.finder import find_board


def render_set(out: Path, n: int, seed: int, no_board: int) -> None:
    from vision.render.scene import SceneOptions
    from vision.render.still import render_still, write_still

    out.mkdir(parents=True, exist_ok=True)
    for k in range(n + no_board):
        s = seed + k
        path = out / f"{s}.jpg"
        if path.exists() and path.with_suffix(".json").exists():
            continue
        opts = SceneOptions()
        if k >= n:
            opts = dataclasses.replace(opts, board=False)
        img, label = render_still(s, options=opts)
        write_still(path, img, label)
        if (k + 1) % 50 == 0:
            print(f"rendered {k + 1}/{n + no_board}", file=sys.stderr)


def diagnose(label: Label, config: LocateConfig | None = None) -> str:
    """One line saying where the search lost the board of ``label`` (see the docstring).

    Repeats the finder's steps with its private helpers (a diagnostic, not an API).
    """
    import math

    import numpy as np

    from vision.locate import finder as fnd
    from vision.locate.candidates import find_ellipses
    from vision.locate.fit import GRID_NODES, EdgeConfig, grow_fit
    from vision.locate.lattice import apply_h, lattice_hypotheses
    from vision.locate.peak_grid import frame_peaks, peak_hypotheses
    from vision.locate.quad import board_quads, quad_hypotheses

    config = config or LocateConfig()
    frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(f"{label.image_path}: cannot read as an image")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, config.work_width_px / gray.shape[1])
    work = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    nodes = np.array([(c.cell.col, c.cell.row) for c in label.cells], dtype=np.float64)
    centres = np.array([c.center_px for c in label.cells], dtype=np.float64) * scale
    H_true, _ = cv2.findHomography(nodes, centres, 0)
    to_true = np.linalg.inv(H_true)
    ells = find_ellipses(work, config)
    rings = 0
    if ells:
        g = apply_h(to_true, np.array([e.center for e in ells]))
        near = (np.hypot(*(g - np.rint(g)).T) < 0.1) & np.all(np.abs(np.rint(g) - 1.5) <= 1.5,
                                                             axis=1)
        rings = len({tuple(n) for n in np.rint(g[near]).astype(int)})
    peaks, peak_scores = frame_peaks(frame, scale, config)
    hyps = peak_hypotheses(peaks, peak_scores, config)
    hyps += lattice_hypotheses(ells, config, keep=config.max_lattice_hypotheses)
    qscale = min(1.0, config.quad_width_px / work.shape[1])
    small = cv2.resize(work, None, fx=qscale, fy=qscale, interpolation=cv2.INTER_AREA)
    colour = fnd._shrink(frame, (small.shape[1], small.shape[0]))
    for q in board_quads(small, config, colour):
        hyps.extend(quad_hypotheses(q / qscale, config))
    guess = math.inf
    for h in hyps:
        # True centres in the guess's grid units: their distance from its nearest nodes.
        g = apply_h(np.linalg.inv(h.H), centres)
        guess = min(guess, float(np.hypot(*(g - np.rint(g)).T).max()))
    radius = label.raw["board"]["cell_diameter_m"] / 2.0 / label.raw["board"]["cell_pitch_m"]
    edge = EdgeConfig(min_edge=config.min_edge_step, radius_range=config.ring_radius_range)
    work_f = fnd.smoothed(work, config.smooth_sigma_px)  # as the finder smooths it
    pitch = fnd._pitch_px(H_true)
    reaches = tuple(max(1.0, f * pitch) for f in config.reach_schedule[1:])
    Hf, rf, _, edge = grow_fit(work_f, H_true, radius, reaches, edge, GRID_NODES,
                               measure=False)
    _, inner, outer = fnd.best_window(work_f, Hf, rf, edge, config.window_shift_margin)
    # Judged as the ring search judges (ring candidates as the evidence), so the figure
    # compares with earlier sessions'.
    judged = fnd._judge(work_f, Hf, rf, edge, inner, outer, ells, np.zeros((0, 2)), config)
    truth = None if judged is None else judged[0]
    if truth is None or truth < config.min_board_score:
        stage = "judge"
    elif guess > 0.25:
        stage = "guess"
    else:
        stage = "fit"
    return (f"stage={stage:5s} rings={rings:2d} guess={guess:.2f} "
            f"truth={'-' if truth is None else f'{truth:.2f}'}")


def locate_config(pairs: list[str]) -> LocateConfig:
    """A ``LocateConfig`` with the ``KEY=VALUE`` overrides (values as Python literals)."""
    fields = {f.name for f in dataclasses.fields(LocateConfig)}
    kw = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in fields:
            raise ValueError(f"--locate {pair!r}: not KEY=VALUE with a LocateConfig field")
        try:
            kw[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            kw[key] = value  # a bare string
    return LocateConfig(**kw)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--render", type=int, default=0, help="render this many stills first")
    ap.add_argument("--no-board", type=int, default=0, help="... plus this many without a board")
    ap.add_argument("--seed", type=int, default=900000)
    ap.add_argument("--out", default="/tmp/board_eval")
    ap.add_argument("--json", help="write the figures as JSON here")
    ap.add_argument("--failures", action="store_true", help="list images not found / worst")
    ap.add_argument("--diagnose", action="store_true",
                    help="with --failures: where the search lost each missed board")
    ap.add_argument("--locate", action="append", default=[], metavar="KEY=VALUE",
                    help="a LocateConfig field changed (repeatable)")
    args = ap.parse_args()
    try:
        config = locate_config(args.locate)
    except ValueError as e:
        ap.error(str(e))
    cv2.setNumThreads(1)
    folders = [Path(f) for f in args.folders]
    if args.render or args.no_board:
        render_set(Path(args.out), args.render, args.seed, args.no_board)
        folders.append(Path(args.out))
    if not folders:
        ap.error("give a FOLDER or --render N")
    all_figures = {}
    for folder in folders:
        labels = {lab.image_path.name: lab for lab in iter_labelled_images(folder)}
        records = evaluate_folder(labels.values(),
                                  lambda image: find_board(image, config=config))
        figures = summarize(records)
        all_figures[str(folder)] = figures
        print(f"== {folder}")
        print(format_summary(figures))
        if args.failures:
            for r in records:
                bad = r.has_board != r.found
                worst = float(r.errors.max()) if r.errors is not None else 0.0
                if bad or worst > 0.05:
                    print(f"  {r.name:14s} {r.style:14s} {r.band:6s} board={r.has_board} "
                          f"found={r.found} max_err={worst:.3f} {r.reason}")
                    if args.diagnose and r.has_board and (not r.found or worst > 0.5):
                        print(f"      {diagnose(labels[r.name], config)}")
    if args.json:
        Path(args.json).write_text(json.dumps(all_figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
