"""Tall or short from the parallax of a piece's silhouette, measured at full resolution.

    python benchmarks/height_parallax.py DIR [--min-elevation 60] [--errors]

Session 28 (helper-28a), measured and not taken (docs/design.md, "Height near top-down").
For every occupied cell of labelled renders seen from ``--min-elevation`` and up, with the
label's board:

- the fused reader's parts as ``read_cells_fused`` combines them: the network's P(tall) before
  the board's top sizes, the board-height evidence (``board_heights``), the hand-crafted
  P(tall) and the fused P(tall) before joint decoding; ``--errors`` lists the decoded height
  errors with them;
- the silhouette's elongation along the radial direction from the camera's foot. A piece of
  footprint width ``w`` whose centre lies ``d`` from the foot, top at height ``h`` under a
  camera ``C`` above the board, casts on the board plane the hull of its base and of its top
  scaled ``k = C / (C - h)`` about the foot: its radial extent exceeds its tangential one by
  ``E = (k - 1) (d - w / 2)`` (round or square, whatever the yaw or the offset in the cell).
  Four silhouette edges (far and near radial, both tangential) are found on 9 parallel lines
  each, sampled every 0.3 mm of the board plane at full resolution: the strongest Lab edge
  whose outside (1.5 mm beyond) looks like the board and whose inside (1.5 and 3 mm before)
  does not, within the window the true set allows. ``E`` is compared with the two heights of
  the label's own set (an oracle: a reader would have to fit the set too).

Prints how often the nearer prediction is the right height, by the tall/short difference of
``E`` in pixels, and what adding its log-likelihood ratio to the fused odds would do.
A throwaway measurement (Python loops, tens of ms per board), not part of the reader.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

import vision.learn.fuse as fuse
import vision.learn.reader as learned_reader
import vision.read.reader as hand_reader
from vision.evaluation.labels import iter_labelled_images

STEP_M = 0.0003
OFFSETS_M = np.linspace(-0.008, 0.008, 9)
MARGIN_M = 0.006


def sample_lab(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(N, 2) pixels -> (N, 3) Lab (bilinear, float)."""
    p = px.astype(np.float32)
    pad = (-len(p)) % 256
    p = np.vstack([p, np.zeros((pad, 2), np.float32)])
    m = cv2.remap(frame, p[:, 0].reshape(-1, 256), p[:, 1].reshape(-1, 256), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).reshape(-1, 1, 3)[:len(px)]
    return cv2.cvtColor(m.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)


def step_edge(t: np.ndarray, prof: np.ndarray, ref: np.ndarray, lo: float, hi: float,
              sgn: int) -> float:
    """Outer extent (metres, along ``sgn``) of the silhouette on (L, T, 3) Lab lines."""
    dist = np.sqrt(((prof - ref) ** 2).sum(-1))
    lev = np.percentile(dist[:, np.abs(t) < 0.012], 75)
    if lev < 12:  # the piece hardly differs from the board (dark on black)
        return float("nan")
    thr = 0.5 * lev
    g = np.zeros(dist.shape)
    g[:, 1:-1] = np.sqrt(((prof[:, 2:] - prof[:, :-2]) ** 2).sum(-1))
    tc = t * sgn
    n = len(t)
    gap, deep = round(0.0015 / STEP_M), round(0.003 / STEP_M)
    cand = np.flatnonzero((tc >= lo) & (tc <= hi))
    best = -np.inf
    for gl, dl in zip(g, dist, strict=True):
        ok = ((dl[np.clip(cand + sgn * gap, 0, n - 1)] < thr)
              & (dl[np.clip(cand - sgn * gap, 0, n - 1)] > thr)
              & (dl[np.clip(cand - sgn * deep, 0, n - 1)] > thr)
              & (gl[cand] >= gl[np.clip(cand - 1, 0, n - 1)])
              & (gl[cand] >= gl[np.clip(cand + 1, 0, n - 1)]))
        if not ok.any():
            continue
        j = cand[ok][np.argmax(gl[cand[ok]])]
        off = 0.0
        if 0 < j < n - 1:
            den = gl[j - 1] - 2 * gl[j] + gl[j + 1]
            off = 0.5 * (gl[j - 1] - gl[j + 1]) / den if den < 0 else 0.0
        best = max(best, tc[j] + off * (tc[1] - tc[0]))
    return float(best) if np.isfinite(best) else float("nan")


def elongations(frame: np.ndarray, label, occupied: list[int]) -> list[dict]:
    """Measured and predicted elongation (pixels) of each occupied cell's silhouette."""
    view = label.board_view
    spec, ps = view.spec, label.raw["pieces_set"]
    pitch = spec.cell_pitch_m
    cam = view.camera.pose.camera_center
    xy = np.array([spec.cell_center(label.cells[i].cell) for i in occupied])
    rel = xy - cam[None, :2]
    d = np.hypot(rel[:, 0], rel[:, 1])
    u = rel / np.maximum(d, 1e-9)[:, None]
    v = np.column_stack([-u[:, 1], u[:, 0]])
    t = np.arange(-1.6 * pitch, 1.6 * pitch + 1e-12, STEP_M)

    def lines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (xy[:, None, None, :] + t[None, None, :, None] * a[:, None, None, :]
                + OFFSETS_M[None, :, None, None] * b[:, None, None, :]).reshape(-1, 2)

    corners = np.array([[0.5, 0.5], [0.5, -0.5], [-0.5, 0.5], [-0.5, -0.5]]) * pitch
    jit = np.array([[0, 0], [0.003, 0], [-0.003, 0], [0, 0.003], [0, -0.003]])
    ref_pts = (xy[:, None, None, :] + corners[None, :, None, :] + jit[None, None]).reshape(-1, 2)
    pts = np.vstack([lines(u, v), lines(v, u), ref_pts])
    lab = sample_lab(frame, view.project(np.column_stack([pts, np.zeros(len(pts))])))
    k1 = len(xy) * len(OFFSETS_M) * len(t)
    radial = lab[:k1].reshape(len(xy), len(OFFSETS_M), len(t), 3)
    tangential = lab[k1:2 * k1].reshape(radial.shape)
    ref = np.median(lab[2 * k1:].reshape(len(xy), 20, 3), axis=1)
    cz = float(cam[2])
    ks, kt = cz / (cz - ps["short_height_m"]), cz / (cz - ps["tall_height_m"])
    out = []
    for j, i in enumerate(occupied):
        piece = label.cells[i].piece
        w = ps["round_diameter_m"] if piece.value("shape") == "round" else ps["square_side_m"]
        dd = d[j]
        ext = [
            step_edge(t, radial[j], ref[j], ks * (dd + w / 2) - dd - MARGIN_M,
                      kt * (dd + w / 2) - dd + MARGIN_M, 1),
            step_edge(t, radial[j], ref[j], max(w / 2 - MARGIN_M, 0.0), w / 2 + MARGIN_M, -1),
            step_edge(t, tangential[j], ref[j], ks * w / 2 - MARGIN_M, kt * w / 2 + MARGIN_M, 1),
            step_edge(t, tangential[j], ref[j], ks * w / 2 - MARGIN_M, kt * w / 2 + MARGIN_M,
                      -1),
        ]
        a = view.project(np.array([[*xy[j], 0.0], [*(xy[j] + 0.001 * u[j]), 0.0]]))
        px_per_m = 1000.0 * float(np.linalg.norm(a[1] - a[0]))
        out.append({
            "measured": (ext[0] + ext[1] - ext[2] - ext[3]) * px_per_m,
            "e_short": (ks - 1) * max(dd - w / 2, 0.0) * px_per_m,
            "e_tall": (kt - 1) * max(dd - w / 2, 0.0) * px_per_m,
            "d_m": dd,
        })
    return out


class Recorder:
    """The fused reader's parts, caught on their way (the reader itself is unchanged)."""

    def __init__(self) -> None:
        self.rec: dict = {}
        bhe, observe, decoded = (learned_reader.board_height_evidence,
                                 hand_reader.observe_cells, fuse._decoded)

        def board(log_size, is_square, p_tall, usable, **kw):
            out = bhe(log_size, is_square, p_tall, usable, **kw)
            self.rec["net"], self.rec["board"] = np.array(p_tall, float), out.copy()
            return out

        def hand(*a, **k):
            o = observe(*a, **k)
            self.rec["hand"] = [c.attribute_probability.get("height") for c in o.cells]
            return o

        def dec(first, second, occ, odds):
            self.rec["fused"] = [o["height"] for o in odds]
            return decoded(first, second, occ, odds)

        learned_reader.board_height_evidence = board
        hand_reader.observe_cells = hand
        fuse._decoded = dec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--min-elevation", type=float, default=60.0)
    parser.add_argument("--errors", action="store_true", help="list the height errors")
    args = parser.parse_args()
    recorder = Recorder()
    rows = []
    for label in iter_labelled_images(args.folder):
        if (label.board_view is None or label.elevation_deg is None
                or label.elevation_deg < args.min_elevation):
            continue
        frame = cv2.imread(str(label.image_path))
        recorder.rec.clear()
        obs = fuse.read_cells_fused(frame, label.board_view)
        rec = recorder.rec
        occupied = [i for i, c in enumerate(label.cells) if c.piece is not None]
        if not occupied:
            continue
        for i, g in zip(occupied, elongations(frame, label, occupied), strict=True):
            piece, read = label.cells[i].piece, obs.cells[i].piece
            rows.append({**g, "image": label.image_path.stem, "cell": str(label.cells[i].cell),
                         "style": label.board_style, "elevation": label.elevation_deg,
                         "tall": piece.value("height") == "tall",
                         "read": None if read is None else read.value("height") == "tall",
                         "net": rec["net"][i] if "net" in rec else float("nan"),
                         "board": rec["board"][i] if "board" in rec else 0.0,
                         "hand": rec["hand"][i], "fused": rec["fused"][i]})
    tall = np.array([r["tall"] for r in rows])
    wrong = np.array([r["read"] is not None and r["read"] != r["tall"] for r in rows])
    meas = np.array([r["measured"] for r in rows])
    es, et = np.array([r["e_short"] for r in rows]), np.array([r["e_tall"] for r in rows])
    ok = np.isfinite(meas)
    says_tall = np.abs(meas - et) < np.abs(meas - es)
    right = ok & (says_tall == tall)
    diff = et - es
    print(f"{len(rows)} pieces at {args.min_elevation:g} degrees and up, {wrong.sum()} heights "
          f"read wrong (label's board); elongation measured on {ok.sum()}")
    resid = (meas - np.where(tall, et, es))[ok]
    print(f"elongation residual (px): median {np.median(resid):+.1f}, "
          f"MAD {np.median(np.abs(resid - np.median(resid))):.1f}")
    for lo, hi in ((0, 2), (2, 4), (4, 6), (6, 8), (8, 1e9)):
        m = ok & (diff >= lo) & (diff < hi)
        print(f"  tall-short elongation {lo}-{hi if hi < 1e9 else 'up'} px: {m.sum():5d} pieces, "
              f"the nearer height right on {right[m].mean() if m.any() else float('nan'):.1%}")
    print(f"the reader's height errors: measured {(ok & wrong).sum()} of {wrong.sum()}, "
          f"the nearer height right on {(right & wrong).sum()}; pieces read right: measured "
          f"{(ok & ~wrong).sum()}, right on {(right & ~wrong).sum()}")
    fused = np.array([r["fused"] for r in rows], float)
    z = np.log(fused / (1 - fused))
    sig = 1.4826 * np.median(np.abs(resid - np.median(resid)))

    def loglik(mu: np.ndarray) -> np.ndarray:
        g = -0.5 * ((np.where(ok, meas, mu) - mu) / sig) ** 2 - np.log(sig * np.sqrt(2 * np.pi))
        return np.logaddexp(np.log(0.9) + g, np.log(0.1 / 100.0))

    llr = np.where(ok, loglik(et) - loglik(es), 0.0)
    for w in (0.0, 0.25, 0.5, 1.0):
        pred = z + w * llr >= 0
        print(f"  fused odds + {w:g} x its log-likelihood ratio: {(pred != tall).sum()} heights "
              f"wrong before decoding (fixed {((pred == tall) & ((z >= 0) != tall)).sum()}, "
              f"broken {((pred != tall) & ((z >= 0) == tall)).sum()})")
    if args.errors:
        print("image    cell style            elev  d_mm true  net  board hand fused elong "
              "short tall")
        for r in sorted((r for r, w_ in zip(rows, wrong, strict=True) if w_),
                        key=lambda r: r["elevation"]):
            hand = "  -  " if r["hand"] is None else f"{r['hand']:.2f} "
            print(f"{r['image']:8s} {r['cell']:4s} {r['style'][:16]:16s} {r['elevation']:5.1f} "
                  f"{1000 * r['d_m']:5.0f} {'T' if r['tall'] else 'S':4s} {r['net']:.2f} "
                  f"{r['board']:+5.2f} {hand}{r['fused']:.2f} {r['measured']:5.1f} "
                  f"{r['e_short']:5.1f} {r['e_tall']:4.1f}")


if __name__ == "__main__":
    main()
