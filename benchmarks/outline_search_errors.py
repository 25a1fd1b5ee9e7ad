"""How far off the boards found by the search from the board's outline are (session 28).

    python benchmarks/outline_search_errors.py DIR [DIR ...] [--sides]

Runs ``find_board`` on every labelled image of each DIR with ``finder._outline_search``
watched, and prints each image whose board came from that search (it runs only when every
other search found nothing) with its worst cell error in pitches, its layout and score;
then, per DIR, how many images, how many boards found, how many of them by the outline
search and how many of those more than 0.3 pitch off.

``--sides`` also prints, for the grid the search returned, the colours measured along the
middle of its outline's near side (the one lowest in the image), 0.1 pitch inside and 0.5
pitch beyond it (board units, CIELAB of the work image on OpenCV's 8-bit scale): ``med``
the distance between the two bands' median colours, ``io`` / ``oi`` the median distance
from each sample of one band to the nearest of the other. These were measured as a guard
against grids framed by something other than the board's own edge and not taken (see
docs/design.md, "The search from the board's outline, session 28": neither separates the
misplaced boards from the good ones). Throwaway-grade; nothing in the package uses it.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import vision.locate.finder as finder
from vision.evaluation.board import evaluate_image
from vision.evaluation.labels import iter_labelled_images
from vision.locate.lattice import apply_h
from vision.locate.layout import board_to_grid
from vision.locate.quad import refine_quad


def side_colours(frame: np.ndarray, fitted: Any, work_f: np.ndarray, edge: Any,
                 config: Any) -> dict[str, float] | None:
    """The near-side colour measures described in the module's docstring, or None."""
    H, _, _, _, lay = fitted
    half = lay.side / 2.0
    corners = apply_h(H @ board_to_grid(lay.rotation_deg),
                      np.array([[-half, -half], [half, -half], [half, half], [-half, half]]))
    quads = refine_quad(work_f, corners, edge.min_edge, config)
    if not quads:
        return None
    quad = min(quads, key=lambda q: float(np.hypot(*(q - corners).T).max()))
    corner = finder.outline_corner_pitch(work_f, H, lay, edge, config)
    size_wh = (work_f.shape[1], work_f.shape[0])
    lab = cv2.cvtColor(finder._shrink(frame, size_wh), cv2.COLOR_BGR2LAB).astype(np.float32)
    to_image = H @ board_to_grid(lay.rotation_deg)
    q_board = apply_h(np.linalg.inv(to_image), quad)
    k = int(np.argmax(quad[:, 1] + np.roll(quad[:, 1], -1)))
    a, b = q_board[k], q_board[(k + 1) % 4]
    normal = np.array([b[1] - a[1], a[0] - b[0]]) / max(1e-9, float(np.hypot(*(b - a))))
    if np.dot(normal, a + b) > 0:
        normal = -normal  # inward
    along = a + np.linspace(0.2, 0.8, 25)[:, None] * (b - a)
    h, w = lab.shape[:2]
    bands = []
    for depth in (0.1, -0.5):
        px = apply_h(to_image, along + depth * normal)
        px = np.round(px[np.all(np.isfinite(px), axis=1)]).astype(int)
        px = px[(px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)]
        if len(px) < 12:
            return None
        bands.append(lab[px[:, 1], px[:, 0]])
    inside, beyond = bands
    dist = np.linalg.norm(inside[:, None] - beyond[None], axis=2)
    return dict(corner=corner,
                med=float(np.linalg.norm(np.median(inside, 0) - np.median(beyond, 0))),
                io=float(np.median(dist.min(1))), oi=float(np.median(dist.min(0))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--sides", action="store_true", help="near-side colour measures")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seen: dict[str, Any] = {}
    original = finder._outline_search

    def watched(frame: Any, work: Any, work_f: Any, edge: Any, peaks: Any,
                config: Any) -> Any:
        fitted = original(frame, work, work_f, edge, peaks, config)
        seen.update(fitted=fitted, frame=frame, work_f=work_f, edge=edge, config=config)
        return fitted

    finder._outline_search = watched  # type: ignore[assignment]
    for folder in args.dirs:
        n = found = by_outline = off = 0
        for label in iter_labelled_images(folder):
            seen.clear()
            rec = evaluate_image(label, finder.find_board)
            n += 1
            found += bool(rec.found)
            fitted = seen.get("fitted")
            if not rec.found or fitted is None or rec.errors is None:
                continue
            worst = float(rec.errors.max())
            by_outline += 1
            off += worst > 0.3
            line = (f"{label.image_path.name} worst {worst:.3f} pitch  {fitted[4].layout} "
                    f"side {fitted[4].side:.2f}  score {fitted[2]:.2f}  {rec.style} "
                    f"{rec.elevation_deg:.1f} deg")
            if args.sides:
                m = side_colours(seen["frame"], fitted, seen["work_f"], seen["edge"],
                                 seen["config"])
                line += ("  sides: not seen" if m is None else
                         "  corner {corner:.2f} med {med:.0f} io {io:.0f} oi {oi:.0f}".format(
                             **{k: (v if math.isfinite(v) else -1) for k, v in m.items()}))
            print(line, flush=True)
        print(f"{folder}: {n} images, {found} boards found, {by_outline} by the outline "
              f"search, {off} of them more than 0.3 pitch off", flush=True)


if __name__ == "__main__":
    main()
