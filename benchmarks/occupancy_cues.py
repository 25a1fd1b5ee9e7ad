"""Which cues could still move the fused reader's occupancy at low views (session 30).

    python benchmarks/occupancy_cues.py DIR [DIR ...] [--elevation 25 40]

Reads every labelled image of each DIR with the label's board as ``read_cells_fused`` does
(the fused P(occupied) before decoding) and, unlike ``occupancy_errors.py``, places each cell
in a band by what the reader itself can know: the share of a short piece on the cell that the
pieces *read* on nearer cells, at their *read* heights (the set's fitted short or tall
height by the fused P(tall)), leave in view (``OcclusionMask``, 1.1 footprints wide). Per
folder and band it prints:

- errors at the fused threshold, and with a constant added to the fused log-odds of the
  cells whose short piece would be under 0.3 in view (are the hidden cells' odds biased?);
- errors with the hand-crafted reader's log-odds weight ``w`` (the network's ``1 - w``),
  per band (0.2 is the shipped weight for every cell);
- the foot check: cells read occupied whose footprint samples are at least half free of
  the nearer read pieces (and at least 4), where at least ``s`` of the free samples are
  within 8 Lab units of the bare board (``CellColours.board_distance``): phantoms such a
  check would remove (+) and real pieces it would remove (-);
- the rim probe, on the cells under 0.3 in view that hold no tall piece: how many have a
  point of a short top's rim free (24 angles; the points 0.3 and 0.7 footprints from the
  axis at the fitted short height both free of the nearer read pieces), and the median
  Lab distance between those inside and outside points, by truth and reading.

Throwaway-grade (about 0.25 s an image); nothing in the package uses it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from occupancy_errors import read_undecoded

from vision.evaluation.labels import iter_labelled_images
from vision.read.geometry import circle_points, project_grid
from vision.read.visibility import OcclusionMask
from vision.rules.board import ALL_CELLS

BANDS = ((0.0, 0.3), (0.3, 0.6), (0.6, 1.01))


@dataclass
class Cell:
    truth: bool
    fused: float
    net: float
    hand: float
    shows: float  # share of a short piece here in view, given the read nearer pieces
    free: int  # footprint samples free of the read nearer pieces
    samples: int
    board_like: float  # share of the free samples within 8 Lab of the bare board
    tall: bool
    rim_free: int  # rim angles whose inside and outside points are both free
    rim_contrast: float  # median Lab distance inside-outside there (NaN when none)


def read_folder(folder: str, lo: float, hi: float) -> list[Cell]:
    out: list[Cell] = []
    for label in iter_labelled_images(folder):
        if (label.board_view is None or label.elevation_deg is None
                or not lo <= label.elevation_deg < hi):
            continue
        view = label.board_view
        feats, _, learned, occ, odds = read_undecoded(label)
        truth = {c.cell.name: c.piece is not None for c in label.cells}
        frames = feats.frames
        read = np.array(occ) >= 0.5
        p_tall = np.array([0.5 if o["height"] is None else float(o["height"]) for o in odds])
        heights = np.where(p_tall >= 0.5, feats.heights.tall_m, feats.heights.short_m)
        dist = feats.colours.board_distance()
        tall = {c.cell.name: c.piece is not None and c.piece.value("height") == "tall"
                for c in label.cells}
        angles = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
        short = np.array([feats.heights.short_m])
        f = frames.footprint_m
        inner = project_grid(view, circle_points(frames, 0.3 * f, short, angles))[:, 0]
        outer = project_grid(view, circle_points(frames, 0.7 * f, short, angles))[:, 0]
        for i in range(16):
            mask = OcclusionMask(view, frames)
            for j in range(16):
                if j != i and read[j] and frames.depth_m[j] < frames.depth_m[i]:
                    mask.add(j, float(heights[j]))
            free = mask.uncovered(feats.colours.body_px[i])
            d = dist[i][free]
            rim = mask.uncovered(inner[i]) & mask.uncovered(outer[i])
            v_in, _ = feats.patch.sample(inner[i])
            v_out, _ = feats.patch.sample(outer[i])
            step = np.linalg.norm(np.asarray(v_in) - np.asarray(v_out), axis=-1)[rim]
            out.append(Cell(
                truth=truth[ALL_CELLS[i].name], fused=float(occ[i]),
                net=learned.cells[i].occupied_probability,
                hand=float(feats.occupied_probability[i]),
                shows=mask.visible_fraction(i, float(feats.heights.short_m)),
                free=int(free.sum()), samples=int(free.size),
                board_like=float(np.mean(d < 8.0)) if d.size else 0.0,
                tall=tall[ALL_CELLS[i].name], rim_free=int(rim.sum()),
                rim_contrast=float(np.median(step)) if step.size else float("nan")))
    return out


def _logit(p: NDArray[np.float64]) -> NDArray[np.float64]:
    q = np.clip(p, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(q / (1 - q)))


def report(name: str, cells: list[Cell]) -> None:
    y = np.array([c.truth for c in cells])
    fused = _logit(np.array([c.fused for c in cells]))
    net = _logit(np.array([c.net for c in cells]))
    hand = _logit(np.array([c.hand for c in cells]))
    shows = np.array([c.shows for c in cells])
    print(f"{name}: {len(cells) // 16} boards, occupancy errors {int(((fused >= 0) != y).sum())}")
    hidden = shows < 0.3
    shifts = ", ".join(f"{b:+.1f}: {int(((fused + b * hidden >= 0) != y).sum())}"
                       for b in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0))
    print(f"  shift on cells under 0.3 in view -> errors: {shifts}")
    for lo, hi in BANDS:
        m = (shows >= lo) & (shows < hi)
        ws = ", ".join(f"{w}: {int((((w * hand + (1 - w) * net) >= 0) != y)[m].sum())}"
                       for w in (0.0, 0.1, 0.2, 0.3, 0.4, 0.6))
        print(f"  band {lo}-{min(hi, 1.0)}: {int(m.sum())} cells; hand weight -> errors: {ws}")
    checks = []
    for s in (0.4, 0.5, 0.6, 0.7):
        hit = [c for c in cells if c.fused >= 0.5 and c.free >= max(4, c.samples // 2)
               and c.board_like >= s]
        checks.append(f"{s}: +{sum(not c.truth for c in hit)} -{sum(c.truth for c in hit)}")
    print("  foot check (share board-like) -> phantoms removed +, pieces removed -: "
          + ", ".join(checks))
    kinds = ("empty read empty", "empty read occupied", "short read occupied",
             "short read empty")
    def kind(c: Cell) -> str:
        return (f"{'short' if c.truth else 'empty'} read "
                f"{'occupied' if c.fused >= 0.5 else 'empty'}")
    rim = [c for c in cells if c.shows < 0.3 and not c.tall]
    parts = []
    for k in kinds:
        of = [c for c in rim if kind(c) == k]
        seen = [c.rim_contrast for c in of if c.rim_free > 0]
        med = f"{np.median(seen):.1f}" if seen else "-"
        parts.append(f"{k} {len(seen)} of {len(of)} (contrast {med})")
    print("  rim probe, hidden cells with a free rim: " + "; ".join(parts))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+")
    p.add_argument("--elevation", nargs=2, type=float, default=(25.0, 40.0))
    args = p.parse_args()
    for folder in args.folders:
        report(folder, read_folder(folder, *args.elevation))


if __name__ == "__main__":
    main()
