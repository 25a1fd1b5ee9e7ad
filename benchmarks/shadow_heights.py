"""Tall or short from the length of each piece's cast shadow, measured on labelled renders.

    python benchmarks/shadow_heights.py DIR [--min-elevation 60] [--weights 0,0.5,1]

Session 29 (helper-29d), measured and not taken (docs/design.md, "Height near top-down").
A lamp casts each piece's shadow on the board; its end lies ``h * g`` beyond the piece's
outline (``g = d / (L_z - h)`` for a lamp ``L_z`` above the board and ``d`` to the side of the
piece), so on one board, under one lamp, a tall piece's shadow reaches 1.5-2 times as far as a
short one's. For every board of DIR seen from ``--min-elevation`` and up, with the label's
board (camera), the label's pieces (foot position, shape; ``--cell-feet`` puts each foot at its
cell's centre instead, as a reader would have to) and the label's set (its tall height for
the masks below):

- rays from each piece's foot every 5 degrees, sampled every 0.5 mm of the board plane out to
  120 mm at full resolution (log grey level). Samples any piece hides from the camera (the
  hull of its base and its top at the set's tall height, seen from the camera, 1.5 mm
  margin) are left out, and a ray stops at the first other piece or the board's edge;
- the empty board's own pattern (rings, discs, grid lines) removed: each sample less the
  median of all the board's samples at the same folded place in a cell (|du|, |dv| to the
  nearest cell centre in 1 mm bins), and the big circle masked;
- the board's shadow direction: the direction whose first 10 mm beyond the outlines are
  darkest summed over the pieces (the label's lamps only check it);
- the shadow's length per piece along that direction: where the ray first becomes brighter
  than half the board's median shadow depth (``piece_len``), and, for comparison, the
  strongest 8 mm step to brighter (``--step``);
- each piece's evidence: the others' lengths split by the fused reader's reading (same shape
  only), two groups, Gaussian with their pooled spread (at least 2 mm), clipped to +-1.5; no
  evidence where a group is empty or the groups lie under 3 mm apart.

Prints the direction's error against the label's strongest lamp, how often a tall piece's
shadow is the longer one on one board (with the lamp's true direction, on the pieces whose
ends the true set places in view), how often the board's groups vote right (on all pieces
and on the reader's own height errors), and the heights and pieces wrong after adding the
evidence to the fused odds before joint decoding at ``--weights``.
A throwaway measurement (tens of ms per board), not part of the reader.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

import vision.learn.fuse as fuse
from vision.evaluation.labels import iter_labelled_images
from vision.read.decode import decode_pieces
from vision.rules.board import Cell

STEP = 0.5e-3  # ray sample spacing on the board plane (m)
NR = 240  # samples per ray (120 mm)
NT = 72  # rays per piece
MIN_BEYOND = 4  # samples of shadow beyond the outline before its end counts as seen
TH = np.arange(NT) * 2 * np.pi / NT
RR = np.arange(NR) * STEP


def _pieces(raw: dict, view: object, cell_feet: bool, generic: bool) -> list[dict]:
    ps = raw["pieces_set"]
    ring = raw["board"]["cell_diameter_m"]
    out = []
    for c in raw["cells"]:
        p = c["piece"]
        if p is None:
            continue
        square = p["shape"] == "square"
        w = ps["square_side_m"] if square else ps["round_diameter_m"]
        pos = np.array(p["position_m"][:2], float)
        if cell_feet:
            pos = np.array(view.spec.cell_center(Cell(c["row"], c["col"])), float)  # type: ignore[attr-defined]
        rho = w / math.sqrt(2) if square else w / 2
        if generic:  # the widest a set may be (round 0.9 of the ring, square 0.7)
            rho = 0.7 * ring / math.sqrt(2) if square else 0.45 * ring
        out.append(dict(cell=(c["row"], c["col"]), pos=pos, rho=rho,
                        tall=p["height"] == "tall", shape=p["shape"],
                        vis=p["visible_fraction"], label=p))
    return out


def _hidden(q: np.ndarray, feet: np.ndarray, rhos: np.ndarray, cfoot: np.ndarray,
            k: float) -> np.ndarray:
    """Board points ``q`` (..., 2) that a piece hides from the camera: the capsule from its
    base to its top seen on the board plane (``k`` = the tall top's magnification)."""
    inside = np.zeros(q.shape[:-1], bool)
    for f, rho in zip(feet, rhos, strict=True):
        seg = cfoot + k * (f - cfoot) - f
        t = np.clip(((q - f) @ seg) / (seg @ seg + 1e-12), 0, 1)
        d = np.linalg.norm(q - (f + t[..., None] * seg), axis=-1)
        inside |= d <= rho + t * (k - 1) * rho + 1.5e-3
    return inside


def measure(raw: dict, view: object, frame: np.ndarray, cell_feet: bool,
            generic: bool = False) -> dict | None:
    """Profiles of the board's own darkening along every piece's rays."""
    ps = _pieces(raw, view, cell_feet, generic)
    if len(ps) < 2:
        return None
    logl = np.log(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32) + 4.0)
    cam = view.camera  # type: ignore[attr-defined]
    centre = cam.pose.camera_center
    cfoot = centre[:2]
    tall_h = raw["pieces_set"]["tall_height_m"]
    mask_h = 1.5 * raw["board"]["cell_diameter_m"] if generic else tall_h
    k = centre[2] / (centre[2] - mask_h)
    feet = np.array([p["pos"] for p in ps])
    rhos = np.array([p["rho"] for p in ps])
    n = len(ps)
    dirs = np.stack([np.cos(TH), np.sin(TH)], 1)
    q = feet[:, None, None, :] + RR[None, None, :, None] * dirs[None, :, None, :]
    px = cam.project(np.column_stack([q.reshape(-1, 2), np.zeros(q.size // 2)]))
    px = px.astype(np.float32).reshape(n * NT, NR, 2)
    vals = cv2.remap(logl, px[..., 0].copy(), px[..., 1].copy(), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=np.nan).reshape(n, NT, NR)
    half = raw["board"]["side_m"] / 2 - 2e-3
    onboard = (np.abs(q[..., 0]) < half) & (np.abs(q[..., 1]) < half)
    own = np.zeros((n, NT, NR), bool)
    other = np.zeros((n, NT, NR), bool)
    for i in range(n):
        own[i] = _hidden(q[i], feet[i:i + 1], rhos[i:i + 1], cfoot, k)
        rest = [j for j in range(n) if j != i]
        other[i] = _hidden(q[i], feet[rest], rhos[rest], cfoot, k)
    bad = other | ~onboard
    v = np.where(bad | own, np.nan, vals)
    # The empty board's pattern: median by folded place in the cell.
    bd = raw["board"]
    pitch = bd["cell_pitch_m"]
    rot = math.radians(bd["grid_rotation_deg"])
    gu = q[..., 0] * math.cos(rot) + q[..., 1] * math.sin(rot)
    gv = -q[..., 0] * math.sin(rot) + q[..., 1] * math.cos(rot)
    fu = np.abs((gu / pitch + 0.5) % 1.0 - 0.5) * pitch
    fv = np.abs((gv / pitch + 0.5) % 1.0 - 0.5) * pitch
    nb = int(pitch / 2 / 1e-3) + 2
    key = (np.minimum((np.maximum(fu, fv) / 1e-3).astype(int), nb - 1) * nb
           + np.minimum((np.minimum(fu, fv) / 1e-3).astype(int), nb - 1))
    ok = np.isfinite(v)
    kk, vv = key[ok], v[ok]
    order = np.argsort(kk, kind="stable")
    kk, vv = kk[order], vv[order]
    starts = np.flatnonzero(np.r_[True, kk[1:] != kk[:-1]])
    tmpl = np.full(nb * nb, np.nan)
    for s0, e0 in zip(starts, np.r_[starts[1:], len(kk)], strict=True):
        if e0 - s0 >= 5:
            tmpl[kk[s0]] = np.median(vv[s0:e0])
    v = v - tmpl[key]
    if bd.get("big_circle_radius_m", 0.0) > 0:
        v = np.where(np.abs(np.hypot(q[..., 0], q[..., 1]) - bd["big_circle_radius_m"]) < 2.5e-3,
                     np.nan, v)
    # 2 mm running mean along each ray, NaN-aware.
    fin = np.isfinite(v)
    ker = np.ones(5) / 5
    num = np.apply_along_axis(np.convolve, -1, np.where(fin, v, 0.0), ker, "same")
    den = np.apply_along_axis(np.convolve, -1, fin.astype(float), ker, "same")
    vs = np.where(fin, num / np.maximum(den, 1e-6), np.nan)
    exit_idx = own.sum(axis=2)
    blk = np.full((n, NT), NR)
    for i in range(n):
        for t in range(NT):
            b = np.flatnonzero(bad[i, t, exit_idx[i, t]:])
            if len(b):
                blk[i, t] = exit_idx[i, t] + b[0]
    return dict(ps=ps, vs=vs.astype(np.float32), exit=exit_idx, blk=blk,
                lights=raw["scene"]["lights"], ambient=raw["scene"]["ambient"],
                elev=raw["camera"]["elevation_deg"], short_h=raw["pieces_set"]["short_height_m"],
                tall_h=tall_h)


def lamp_direction(m: dict, at: np.ndarray) -> tuple[int, dict]:
    """Ray index of the label's strongest lamp's shadow direction at ``at`` (check only)."""
    lamp = max(m["lights"], key=lambda lt: lt["irradiance"])
    d = at - np.array(lamp["position_m"][:2])
    return round((math.atan2(d[1], d[0]) % (2 * np.pi)) / (2 * np.pi / NT)) % NT, lamp


def board_direction(m: dict, window: int = 20) -> int:
    """The ray direction whose first ``window`` samples beyond the outlines are darkest,
    summed over the board's pieces."""
    score = np.zeros(NT)
    for i in range(len(m["ps"])):
        for t in range(NT):
            e = m["exit"][i, t]
            seg = m["vs"][i, t, e:min(m["blk"][i, t], e + window)]
            seg = seg[np.isfinite(seg)]
            if len(seg) >= 5:
                score[t] += np.clip(-np.mean(seg), -0.3, 0.3)
    score = (score + np.roll(score, 1) + np.roll(score, -1)) / 3
    # The centre of the dark lobe within 90 degrees of the darkest ray: a shadow is as wide as
    # its piece, so near the outline the darkness spreads over tens of degrees, and its
    # darkest ray is pulled aside by rings, neighbours and other lamps.
    top = int(np.argmax(score))
    idx = (top + np.arange(-NT // 4, NT // 4 + 1)) % NT
    w = np.maximum(score[idx] - np.median(score), 0.0)
    a = idx * 2 * np.pi / NT
    mean = math.atan2(float((w * np.sin(a)).sum()), float((w * np.cos(a)).sum()))
    return round((mean % (2 * np.pi)) / (2 * np.pi / NT)) % NT


def _profile(m: dict, i: int, t: int) -> tuple[np.ndarray, int, int]:
    rows = np.stack([m["vs"][i, (t + s) % NT] for s in (-1, 0, 1)])
    fin = np.isfinite(rows)
    prof = np.where(fin.any(0), np.nansum(rows, 0) / np.maximum(fin.sum(0), 1), np.nan)
    e = int(max(m["exit"][i, (t + s) % NT] for s in (-1, 0, 1)))
    b = int(min(m["blk"][i, (t + s) % NT] for s in (-1, 0, 1)))
    return prof, e, b


def board_depth(m: dict, ts: list[int]) -> float | None:
    """Median over the pieces of the darkest sample in the first 5 mm beyond the outline."""
    ds = []
    for i, t in enumerate(ts):
        prof, e, b = _profile(m, i, t)
        seg = prof[e:min(b, e + 10)]
        seg = seg[np.isfinite(seg)]
        if len(seg) >= 4:
            ds.append(float(np.min(seg)))
    return float(np.median(ds)) if len(ds) >= 2 else None


def piece_len(m: dict, i: int, t: int, depth: float | None) -> float | None:
    """Shadow end (samples from the foot): first sample brighter than half the board's depth;
    None where the board's shadows are faint or the ray is blocked first."""
    prof, e, b = _profile(m, i, t)
    if b - e < 6 or depth is None or depth > -0.1:
        return None
    above = np.flatnonzero(prof[e:b] > depth / 2)
    # No end in view: the shadow ends under the outline (hidden) or beyond the ray.
    if len(above) == 0 or above[0] < MIN_BEYOND or e + above[0] >= b - 10:
        return None
    return float(e + above[0])


def piece_step(m: dict, i: int, t: int, w: int = 16) -> float | None:
    """Shadow end as the strongest rise over ``w`` samples either side."""
    prof, e, b = _profile(m, i, t)
    best, bj = 0.08, None
    for j in range(e + 4, b - 10):
        lo, hi = prof[max(e, j - w):j], prof[j:j + w]
        lo, hi = lo[np.isfinite(lo)], hi[np.isfinite(hi)]
        if len(lo) >= 3 and len(hi) >= 3 and hi.mean() - lo.mean() > best:
            best, bj = hi.mean() - lo.mean(), j
    return None if bj is None else float(bj)


def evidence(lengths: list[float | None], read_tall: list[bool | None], shapes: list[str],
             ) -> list[float | None]:
    """Per piece, tall-vs-short log-likelihood ratio from the other pieces' lengths."""
    out: list[float | None] = []
    for i, r in enumerate(lengths):
        if r is None:
            out.append(None)
            continue
        same = [j for j in range(len(lengths)) if j != i and lengths[j] is not None
                and read_tall[j] is not None and shapes[j] == shapes[i]]
        tl = [lengths[j] for j in same if read_tall[j]]
        sl = [lengths[j] for j in same if not read_tall[j]]
        if not tl or not sl:
            out.append(None)
            continue
        mt, ms = float(np.median(tl)), float(np.median(sl))  # type: ignore[arg-type]
        if (mt - ms) * STEP < 3e-3:
            out.append(None)
            continue
        dev = [abs(x - mt) for x in tl] + [abs(x - ms) for x in sl]  # type: ignore[operator]
        s = max(2e-3 / STEP, 1.48 * float(np.median(dev)))
        out.append(float(np.clip(((r - ms) ** 2 - (r - mt) ** 2) / (2 * s * s), -1.5, 1.5)))
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--min-elevation", type=float, default=60.0)
    ap.add_argument("--weights", default="0,0.5,1")
    ap.add_argument("--cell-feet", action="store_true",
                    help="feet at the cell centres, not at the label's piece positions")
    ap.add_argument("--generic-set", action="store_true",
                    help="mask with the widest set and a 1.5-ring-diameter tall piece, not the "
                         "label's set")
    ap.add_argument("--step", action="store_true", help="lengths by the strongest step")
    args = ap.parse_args()
    weights = [float(w) for w in args.weights.split(",")]

    captured: dict = {}
    decoded = fuse._decoded

    def spy(first, second, occ, odds):  # type: ignore[no-untyped-def]
        captured["occ"], captured["odds"] = list(occ), [dict(o) for o in odds]
        return decoded(first, second, occ, odds)

    fuse._decoded = spy  # type: ignore[assignment]
    dir_err: list[float] = []
    pairs = [0, 0.0]
    votes = {"all": [0, 0], "errors": [0, 0]}
    wrong = {w: [0, 0, 0] for w in weights}
    for lab in iter_labelled_images(args.folder):
        if (lab.elevation_deg or 0) < args.min_elevation or lab.board_view is None:
            continue
        raw = json.loads(Path(lab.path).read_text())
        frame = cv2.imread(str(lab.image_path))
        fuse.read_cells_fused(frame, lab.board_view)
        cells = lab.board_view.cells
        p_tall = {(c.row, c.col): o["height"] for c, o in zip(cells, captured["odds"], strict=True)}
        m = measure(raw, lab.board_view, frame, args.cell_feet, args.generic_set)
        ev: dict[tuple[int, int], float] = {}
        if m is not None:
            tb = board_direction(m)
            t_lamp = [lamp_direction(m, p["pos"])[0] for p in m["ps"]]
            dir_err.append(abs((tb - lamp_direction(m, np.zeros(2))[0] + NT / 2) % NT - NT / 2)
                           * 360 / NT)
            ts = [tb] * len(m["ps"])
            depth = board_depth(m, ts)
            lengths = [piece_step(m, i, t) if args.step else piece_len(m, i, t, depth)
                       for i, t in enumerate(ts)]
            read = [None if p_tall.get(p["cell"]) is None else p_tall[p["cell"]] >= 0.5
                    for p in m["ps"]]
            e_list = evidence(lengths, read, [p["shape"] for p in m["ps"]])
            for p, e, rt in zip(m["ps"], e_list, read, strict=True):
                if e is None or e == 0 or rt is None:
                    continue
                ev[p["cell"]] = e
                right = (e > 0) == p["tall"]
                for key in ("all",) + (("errors",) if rt != p["tall"] else ()):
                    votes[key][0] += 1
                    votes[key][1] += right
            # Pairs under the lamp's true direction, ends the true set places in view.
            lamp = max(m["lights"], key=lambda lt: lt["irradiance"])
            lxy, lz = np.array(lamp["position_m"][:2]), lamp["position_m"][2]
            d_true = board_depth(m, t_lamp)
            seen = []
            for i, p in enumerate(m["ps"]):
                g = np.linalg.norm(p["pos"] - lxy)
                end_t = (p["rho"] + m["tall_h"] * g / (lz - m["tall_h"])) / STEP
                _, e0, b0 = _profile(m, i, t_lamp[i])
                r = piece_len(m, i, t_lamp[i], d_true)
                if r is not None and e0 + 8 < end_t < b0 - 8 and lamp["kind"] != "window":
                    seen.append((p["tall"], r))
            for ta, ra in seen:
                for tb_, rb in seen:
                    if ta and not tb_:
                        pairs[0] += 1
                        pairs[1] += (ra > rb) + 0.5 * (ra == rb)
        truth = {(c["row"], c["col"]): c["piece"] for c in raw["cells"]}
        occupied = [i for i, p in enumerate(captured["occ"]) if p >= 0.5]
        for w in weights:
            odds = []
            for c, o in zip(cells, captured["odds"], strict=True):
                o = dict(o)
                e = ev.get((c.row, c.col))
                if e is not None and o["height"] is not None:
                    o["height"] = 1 / (1 + math.exp(-(_logit(o["height"]) + w * e)))
                odds.append(o)
            dec = dict(zip(occupied, decode_pieces([odds[i] for i in occupied]), strict=True))
            for i, c in enumerate(cells):
                t = truth.get((c.row, c.col))
                if t is None or t["visible_fraction"] < 0.6 or i not in dec:
                    continue
                piece = dec[i].piece
                attrs = ["color", "shape", "height"] + (
                    ["top"] if t.get("top_visible_fraction", 1.0) >= 0.6 else [])
                wrong[w][0] += piece.value("height") != t["height"]
                wrong[w][1] += any(piece.value(a) != t[a] for a in attrs)
                wrong[w][2] += 1
    err = np.array(dir_err)
    print(f"boards {len(err)}: shadow direction off the strongest lamp's by median "
          f"{np.median(err):.0f} deg, under 15 deg on {np.mean(err < 15):.0%}")
    print(f"pairs on one board (lamp's true direction, ends in view): {pairs[0]}, "
          f"tall piece's shadow longer {pairs[1] / max(pairs[0], 1):.1%}")
    for key, (nv, nr) in votes.items():
        print(f"board groups vote right on {nr} of {nv} pieces ({key})")
    for w in weights:
        h, a, j = wrong[w]
        print(f"weight {w}: heights wrong {h}, pieces wrong {a} of {j}")


if __name__ == "__main__":
    main()
