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
import pickle

import cv2
import numpy as np

import vision.learn.fuse as fuse
import vision.learn.reader as learned_reader
import vision.read.reader as hand_reader
from vision.evaluation.labels import iter_labelled_images

STEP_M = 0.0003
OFFSETS_M = np.linspace(-0.008, 0.008, 9)
MARGIN_M = 0.006
#: Set from the command line: compare with the empty board's template around a cell (rings,
#: discs) rather than one board colour; count only chromaticity changes and brightening as
#: piece (a shadow darkens the board and keeps its chromaticity).
OPTIONS = {"template": True, "shadow_tolerant": False}


def sample_lab(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(N, 2) pixels -> (N, 3) Lab (bilinear, float)."""
    p = px.astype(np.float32)
    pad = (-len(p)) % 256
    p = np.vstack([p, np.zeros((pad, 2), np.float32)])
    m = cv2.remap(frame, p[:, 0].reshape(-1, 256), p[:, 1].reshape(-1, 256), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).reshape(-1, 1, 3)[:len(px)]
    f = m.astype(np.float32) / 255.0
    lab = cv2.cvtColor(f, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    f = f.reshape(-1, 3)
    chroma = f / np.maximum(f.sum(axis=1, keepdims=True), 1e-3)
    return np.hstack([lab, chroma])


def step_edge(t: np.ndarray, prof: np.ndarray, ref: np.ndarray, lo: float, hi: float,
              sgn: int) -> float:
    """Outer extent (metres, along ``sgn``) of the silhouette on (L, T, 6) lines (Lab and
    chromaticity)."""
    if OPTIONS["shadow_tolerant"]:
        # A shadow darkens the board but keeps its chromaticity: only a change of
        # chromaticity or a brightening counts as piece.
        dist = np.sqrt(((300.0 * (prof[..., 3:] - ref[..., 3:])) ** 2).sum(-1)
                       + np.maximum(prof[..., 0] - ref[..., 0], 0.0) ** 2)
    else:
        dist = np.sqrt(((prof[..., :3] - ref[..., :3]) ** 2).sum(-1))
    prof = prof[..., :3]
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


RHO_STEP_M = 0.00025


def board_template(frame: np.ndarray, view, empty: list) -> np.ndarray:
    """(R, 6) the empty board around a cell by distance from its centre (RHO_STEP_M steps
    up to 0.72 pitch): the median over the empty cells and 24 directions."""
    spec = view.spec
    rho = np.arange(0.0, 0.72 * spec.cell_pitch_m, RHO_STEP_M)
    ang = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
    ec = np.array([spec.cell_center(c) for c in empty])
    tp = (ec[:, None, None, :] + rho[None, :, None, None]
          * np.stack([np.cos(ang), np.sin(ang)], -1)[None, None]).reshape(-1, 2)
    tl = sample_lab(frame, view.project(np.column_stack([tp, np.zeros(len(tp))])))
    return np.median(tl.reshape(len(ec), len(rho), len(ang), 6).transpose(1, 0, 2, 3)
                     .reshape(len(rho), -1, 6), axis=1)


def template_index(spec, pts: np.ndarray) -> np.ndarray:
    """Each board point's row in ``board_template``: its distance to the nearest cell centre."""
    centres = spec.cell_centers()
    r_near = np.sqrt(((pts[:, None, :] - centres[None, :, :]) ** 2).sum(-1).min(axis=1))
    return np.round(r_near / RHO_STEP_M).astype(int)


def hull_fit(frame: np.ndarray, label) -> list[dict]:
    """Round pieces only, the label's set known: the hull of base and top fitted in 2D under
    both heights (offset searched +-5 mm in 0.5 mm steps) to a soft piece/board map on the
    board plane (0.4 mm samples; shadow-tolerant distance to the empty-board template), scored
    over a +-3 mm band around the hull's outline. Returns the two best scores per piece."""
    view = label.board_view
    spec, ps = view.spec, label.raw["pieces_set"]
    empty = [c.cell for c in label.cells if c.piece is None]
    if not empty:
        return []
    cam = view.camera.pose.camera_center
    cz = float(cam[2])
    ks, kt = cz / (cz - ps["short_height_m"]), cz / (cz - ps["tall_height_m"])
    template = board_template(frame, view, empty)
    r = ps["round_diameter_m"] / 2
    out = []
    for cl in label.cells:
        if cl.piece is None or cl.piece.value("shape") != "round":
            continue
        c = spec.cell_center(cl.cell)
        d = float(np.hypot(*(c - cam[:2])))
        u = (c - cam[:2]) / d
        v = np.array([-u[1], u[0]])
        a = np.arange(-r - 0.008, (kt - 1) * d + kt * r + 0.008, 0.0004)
        b = np.arange(-kt * r - 0.008, kt * r + 0.008, 0.0004)
        ga, gb = np.meshgrid(a, b, indexing="ij")
        pts = (c + ga[..., None] * u + gb[..., None] * v).reshape(-1, 2)
        f = sample_lab(frame, view.project(np.column_stack([pts, np.zeros(len(pts))])))
        idx = template_index(spec, pts)
        ref = np.where((idx < len(template))[:, None],
                       template[np.minimum(idx, len(template) - 1)],
                       np.median(template[-40:], axis=0))
        dist = np.sqrt(((300.0 * (f[:, 3:] - ref[:, 3:])) ** 2).sum(-1)
                       + np.maximum(f[:, 0] - ref[:, 0], 0) ** 2)
        lev = np.percentile(dist, 90)
        if lev < 12:
            continue
        piece = np.clip(dist / (0.5 * lev) - 0.5, 0, 1).reshape(ga.shape)
        score = {}
        for name, k in (("score_short", ks), ("score_tall", kt)):
            best = -np.inf
            for du in np.arange(-0.005, 0.0051, 0.0005):
                for dv in np.arange(-0.005, 0.0051, 0.0005):
                    # A capsule whose radius grows from r (base) to k r (top).
                    su, sv = k * (d + du) - d - du, (k - 1) * dv
                    lam = np.clip(((ga - du) * su + (gb - dv) * sv) / (su * su + sv * sv + 1e-12),
                                  0, 1)
                    sd = (np.hypot(ga - du - lam * su, gb - dv - lam * sv)
                          - r * (1 + lam * (k - 1)))
                    band = np.abs(sd) < 0.003
                    best = max(best, float(np.sum((piece[band] - 0.5)
                                                  * np.where(sd[band] < 0, 1.0, -1.0))))
            score[name] = best
        a2 = view.project(np.array([[*c, 0.0], [*(c + 0.001 * u), 0.0]]))
        out.append({"tall": cl.piece.value("height") == "tall", **score,
                    "diff_px": (kt - ks) * max(d - r, 0.0) * 1000 * np.linalg.norm(a2[1] - a2[0]),
                    "style": label.board_style})
    return out


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

    cz = float(cam[2])
    ks, kt = cz / (cz - ps["short_height_m"]), cz / (cz - ps["tall_height_m"])
    # Tangential lines must cross the top, displaced (k - 1) d away from the foot: they
    # span the cell centre to the tall top's centre, with the same margins.
    tang_off = (np.linspace(0.0, 1.0, 2 * len(OFFSETS_M) - 1)[None, :]
                * ((kt - 1) * d[:, None] + 2 * OFFSETS_M[-1]) + OFFSETS_M[0])

    def lines(a: np.ndarray, b: np.ndarray, off: np.ndarray) -> np.ndarray:
        return (xy[:, None, None, :] + t[None, None, :, None] * a[:, None, None, :]
                + off[:, :, None, None] * b[:, None, None, :]).reshape(-1, 2)

    corners = np.array([[0.5, 0.5], [0.5, -0.5], [-0.5, 0.5], [-0.5, -0.5]]) * pitch
    jit = np.array([[0, 0], [0.003, 0], [-0.003, 0], [0, 0.003], [0, -0.003]])
    ref_pts = (xy[:, None, None, :] + corners[None, :, None, :] + jit[None, None]).reshape(-1, 2)
    pts = np.vstack([lines(u, v, np.broadcast_to(OFFSETS_M, (len(xy), len(OFFSETS_M)))),
                     lines(v, u, tang_off), ref_pts])
    lab = sample_lab(frame, view.project(np.column_stack([pts, np.zeros(len(pts))])))
    k1 = len(xy) * len(OFFSETS_M) * len(t)
    k2 = k1 + len(xy) * tang_off.shape[1] * len(t)
    radial = lab[:k1].reshape(len(xy), len(OFFSETS_M), len(t), 6)
    tangential = lab[k1:k2].reshape(len(xy), tang_off.shape[1], len(t), 6)
    ref = np.median(lab[k2:].reshape(len(xy), 20, 6), axis=1)
    rad_ref = np.broadcast_to(ref[:, None, None, :], radial.shape).copy()
    tan_ref = np.broadcast_to(ref[:, None, None, :], tangential.shape).copy()
    empty = [c.cell for c in label.cells if c.piece is None]
    if OPTIONS["template"] and empty:
        # The empty board around a cell as a function of the distance from its centre (rings,
        # discs: the same on every cell), from the empty cells; a line point compares with
        # the template at its distance from its own nearest cell centre.
        template = board_template(frame, view, empty)
        for arr, pts_ in ((rad_ref, pts[:k1]), (tan_ref, pts[k1:k2])):
            idx = template_index(spec, pts_)
            inside = idx < len(template)
            flat = arr.reshape(-1, 6)
            flat[inside] = template[idx[inside]]
    out = []
    for j, i in enumerate(occupied):
        piece = label.cells[i].piece
        w = ps["round_diameter_m"] if piece.value("shape") == "round" else ps["square_side_m"]
        dd = d[j]
        ext = [
            step_edge(t, radial[j], rad_ref[j], ks * (dd + w / 2) - dd - MARGIN_M,
                      kt * (dd + w / 2) - dd + MARGIN_M, 1),
            step_edge(t, radial[j], rad_ref[j], max(w / 2 - MARGIN_M, 0.0), w / 2 + MARGIN_M, -1),
            step_edge(t, tangential[j], tan_ref[j], ks * w / 2 - MARGIN_M,
                      kt * w / 2 + MARGIN_M, 1),
            step_edge(t, tangential[j], tan_ref[j], ks * w / 2 - MARGIN_M,
                      kt * w / 2 + MARGIN_M, -1),
        ]
        a = view.project(np.array([[*xy[j], 0.0], [*(xy[j] + 0.001 * u[j]), 0.0]]))
        px_per_m = 1000.0 * float(np.linalg.norm(a[1] - a[0]))
        out.append({
            "measured": (ext[0] + ext[1] - ext[2] - ext[3]) * px_per_m,
            "e_short": (ks - 1) * max(dd - w / 2, 0.0) * px_per_m,
            "e_tall": (kt - 1) * max(dd - w / 2, 0.0) * px_per_m,
            "d_m": dd, "extents_m": np.array(ext), "px_per_m": px_per_m, "u": u[j],
            "offset_m": np.asarray(label.raw["cells"][i]["piece"]["position_m"][:2]) - xy[j],
            "k": (ks, kt), "w_m": w, "shape": piece.value("shape"),
            "yaw": label.raw["cells"][i]["piece"]["yaw_deg"],
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
    parser.add_argument("--dump", metavar="FILE", help="pickle every piece's row to FILE")
    parser.add_argument("--single-colour", action="store_true",
                        help="compare with one board colour (between-cell corners), not the "
                             "empty board's template around a cell")
    parser.add_argument("--shadow-tolerant", action="store_true",
                        help="only chromaticity changes and brightening count as piece")
    parser.add_argument("--fit", action="store_true",
                        help="instead: the 2D hull fit of round pieces (slow, ~0.3 s a piece)")
    args = parser.parse_args()
    OPTIONS["template"] = not args.single_colour
    OPTIONS["shadow_tolerant"] = args.shadow_tolerant
    if args.fit:
        fits = []
        for label in iter_labelled_images(args.folder):
            if (label.board_view is not None and label.elevation_deg is not None
                    and label.elevation_deg >= args.min_elevation):
                fits += hull_fit(cv2.imread(str(label.image_path)), label)
        right = np.array([(f["score_tall"] > f["score_short"]) == f["tall"] for f in fits])
        diff = np.array([f["diff_px"] for f in fits])
        print(f"hull fit, round pieces at {args.min_elevation:g} degrees and up: {len(fits)}, "
              f"the better-fitting height right on {right.mean():.1%}")
        for lo, hi in ((0, 4), (4, 8), (8, 1e9)):
            m = (diff >= lo) & (diff < hi)
            print(f"  tall-short elongation {lo}-{hi if hi < 1e9 else 'up'} px: {m.sum():4d} "
                  f"pieces, right on {right[m].mean() if m.any() else float('nan'):.1%}")
        return
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
    if args.dump:
        with open(args.dump, "wb") as f:
            pickle.dump(rows, f)
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
    print(f"  all measured: the nearer height right on {right[ok].mean():.1%}")
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
