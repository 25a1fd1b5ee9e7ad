"""Where the fused reader's occupancy errors are at low views, and what a board-count prior does.

    python benchmarks/occupancy_errors.py DIR [--elevation 25 40] [--list]

Reads every labelled image of DIR with the label's board as ``read_cells_fused`` does (the
same steps, its intermediate values kept) and classifies each cell by what a piece standing
there would show, given the *true* pieces nearer the camera at their true heights
(``vision.read.visibility.OcclusionMask``, silhouettes 1.1 footprints wide):

- A: even a tall piece there would be under 0.3 in view (no still can tell);
- B: a short piece would be under 0.3 in view, a tall one at least 0.3 (behind a tall piece:
  the image can say "no tall piece", not "empty or short");
- C / D: a short piece would be 0.3-0.6 / at least 0.6 in view.

For each group: truth (empty, short, tall) against the fused reading. Then, for the errors:
whether a wrong empty cell has a missed piece next to it (a piece read on the wrong cell),
and which true pieces cover more than 0.3 of the cell (T tall, S short).

Last, the count prior measured in session 28 and not taken: each mostly hidden cell (the
readers' visible share under 0.5) given the log-odds ``logit((k + 1) / 17) - log 2``, ``k``
the other cells read occupied (Laplace's rule of succession for a count uniform over 0-16,
less the 2/3 a cell hidden behind one piece has under that distribution): errors and
log-loss on the hidden cells, with ``k`` as read and with the true count. Throwaway-grade
(about 0.3 s an image); nothing in the package uses it.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import iter_labelled_images
from vision.learn.fuse import HAND_LEARNED_WEIGHTS, _fused_odds
from vision.learn.reader import read_cells_learned
from vision.read.exposure import normalise_exposure
from vision.read.reader import measure_cells, observe_cells
from vision.read.visibility import OcclusionMask
from vision.rules.board import ALL_CELLS


@dataclass
class Board:
    name: str
    truth: NDArray[np.bool_]  # (16,) occupied
    tall: NDArray[np.bool_]  # (16,) a tall piece
    fused: NDArray[np.float64]  # (16,) fused P(occupied)
    net: NDArray[np.float64]  # (16,) the network's P(occupied)
    hand: NDArray[np.float64]  # (16,) the hand-crafted reader's P(occupied)
    visible: NDArray[np.float64]  # (16,) the readers' visible share (lower of the two)
    would_show: NDArray[np.float64]  # (16, 2) share of a short / tall piece there in view
    cover: NDArray[np.float64]  # (16, 16) share of cell i's short silhouette piece j hides
    centres: NDArray[np.float64]  # (16, 2) cell centres, board metres


def read_undecoded(label):  # type: ignore[no-untyped-def]
    """The fused reader's per-cell odds on the label's board, before joint decoding: the
    measured features, both readers' observations, P(occupied) and the attribute odds."""
    frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
    frame, _ = normalise_exposure(frame, label.board_view, None)
    feats = measure_cells(frame, label.board_view)
    hand = observe_cells(feats, label.board_view, decode=False)
    learned = read_cells_learned(frame, label.board_view, decode=False)
    occ, odds = _fused_odds(hand, learned, HAND_LEARNED_WEIGHTS)
    return feats, hand, learned, occ, odds


def read_board(label) -> Board:  # type: ignore[no-untyped-def]
    view = label.board_view
    feats, hand, learned, occ, _ = read_undecoded(label)
    truth_by = {c.cell.name: c for c in label.cells}
    pieces = label.raw["pieces_set"]
    short_m, tall_m = float(pieces["short_height_m"]), float(pieces["tall_height_m"])
    truth = np.array([truth_by[c.name].piece is not None for c in ALL_CELLS])
    tall = np.array([truth_by[c.name].piece is not None
                     and truth_by[c.name].piece.value("height") == "tall" for c in ALL_CELLS])
    heights = np.where(tall, tall_m, short_m)
    frames = feats.frames
    nearer = frames.depth_m[None, :] < frames.depth_m[:, None]  # [i, j]: j nearer than i
    would_show = np.zeros((16, 2))
    cover = np.zeros((16, 16))
    for i in range(16):
        occluders = [j for j in range(16) if j != i and truth[j] and nearer[i, j]]
        for k, h in enumerate((short_m, tall_m)):
            mask = OcclusionMask(view, frames)
            for j in occluders:
                mask.add(j, float(heights[j]))
            would_show[i, k] = mask.visible_fraction(i, h)
        own = OcclusionMask(view, frames).silhouette(i, short_m)
        for j in occluders:
            other = OcclusionMask(view, frames).silhouette(j, float(heights[j]))
            cover[i, j] = float((own & other).sum()) / max(int(own.sum()), 1)
    return Board(
        name=label.image_path.stem, truth=truth, tall=tall, fused=np.array(occ),
        net=np.array([c.occupied_probability for c in learned.cells]),
        hand=feats.occupied_probability.copy(),
        visible=np.array([min(a.visible_fraction, b.visible_fraction)
                          for a, b in zip(hand.cells, learned.cells, strict=True)]),
        would_show=would_show, cover=cover, centres=frames.centers_m[:, :2].copy(),
    )


def group(short_shows: float, tall_shows: float) -> str:
    if tall_shows < 0.3:
        return "A tall <0.3 in view"
    if short_shows < 0.3:
        return "B short <0.3, tall >=0.3"
    return "C short 0.3-0.6" if short_shows < 0.6 else "D short >=0.6"


def _logit(p: NDArray[np.float64]) -> NDArray[np.float64]:
    q = np.clip(p, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(q / (1 - q)))


def report(boards: list[Board], listing: bool) -> None:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: Counter[str] = Counter()
    for b in boards:
        read = b.fused >= 0.5
        pitch = float(np.linalg.norm(b.centres[0] - b.centres[1]))
        wrong = read != b.truth
        for i in range(16):
            truth = "tall" if b.tall[i] else "short" if b.truth[i] else "empty"
            g = group(*b.would_show[i])
            table[g][f"{truth} read {'occupied' if read[i] else 'empty'}"] += 1
            if not wrong[i]:
                continue
            kind = "false" if read[i] else "missed"
            near = np.linalg.norm(b.centres - b.centres[i], axis=1) < 1.5 * pitch
            paired = np.any(wrong & (read != read[i]) & near)
            kinds[f"{kind}: {'next to' if paired else 'no'} opposite error"] += 1
            hiding = "".join(sorted("T" if b.tall[j] else "S"
                                    for j in np.flatnonzero(b.cover[i] > 0.3)))
            kinds[f"{kind}: covered >0.3 by {hiding or 'none'}"] += 1
            if listing:
                print(f"{b.name} {ALL_CELLS[i].name} {kind:6s} {g:26s} fused {b.fused[i]:.2f} "
                      f"net {b.net[i]:.2f} hand {b.hand[i]:.2f} visible {b.visible[i]:.2f} "
                      f"covered by {hiding or '-'} pieces {int(b.truth.sum())}")
    print(f"{len(boards)} boards")
    for g in sorted(table):
        print(f"{g:26s} " + ", ".join(f"{k} {v}" for k, v in sorted(table[g].items())))
    for k in sorted(kinds):
        print(f"  {k}: {kinds[k]}")
    for counted in ("as read", "true"):
        before: list[float] = []
        after: list[float] = []
        err = [0, 0]
        for b in boards:
            read = b.fused >= 0.5
            occ = b.truth if counted == "true" else read
            k = occ.sum() - occ
            hidden = b.visible < 0.5
            z = _logit(b.fused)
            z2 = z + np.where(hidden, np.log((k + 1) / (16 - k)) - np.log(2.0), 0.0)
            y = b.truth
            for n, (zz, out) in enumerate(((z, before), (z2, after))):
                q = 1 / (1 + np.exp(-zz))
                out.extend((-(y * np.log(q) + (1 - y) * np.log(1 - q)))[hidden].tolist())
                err[n] += int(((zz >= 0) != y)[hidden].sum())
        print(f"count prior (k {counted}): {len(before)} hidden cells, errors {err[0]} -> "
              f"{err[1]}, log-loss {np.mean(before):.4f} -> {np.mean(after):.4f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder")
    p.add_argument("--elevation", nargs=2, type=float, default=(25.0, 40.0))
    p.add_argument("--list", action="store_true", help="one line per occupancy error")
    args = p.parse_args()
    lo, hi = args.elevation
    boards = [read_board(label) for label in iter_labelled_images(args.folder)
              if label.board_view is not None and label.elevation_deg is not None
              and lo <= label.elevation_deg < hi]
    report(boards, args.list)


if __name__ == "__main__":
    main()
