"""The focal length from the pieces' verticals, measured on labelled renders.

    python benchmarks/focal_verticals.py DIR [DIR ...] [--finder]

Session 31 (helper-31b), measured and not taken (docs/design.md, "the focal length from the
pieces' verticals"). Every piece stands vertical: in the image its foot, its top centre and
the vertical vanishing point ``v = K r3`` are collinear whatever its height. With the board
plane's homography ``H = K [r1 r2 t]`` held fixed (the principal point at the image centre,
square pixels, as the finder assumes) ``v`` depends on the focal length only (its offset
from the principal point grows as a power of ``f`` from about 1 at 45 degrees to 2 straight
above), so ``f`` can be chosen so that the lines from the feet through ``v`` pass through
the observed tops. For each still with at least three measured pieces the focal length
minimising the squared distances of the tops from those lines is searched (``f`` scanned
over +-30% in log, then refined; the pose under each ``f`` is
``vision.locate.pose.refine_pose``'s, the one that keeps the board plane's image).

Which cells are occupied, and each piece's height: the label's (the truth); pieces with a
visible fraction under 0.6 or a top less than 90% visible are left out. The top centre is
measured on the plane ``z = h`` (the label's height; on the finder's board scaled to its
nominal pitch): a disc template correlated over offsets of +-0.3 footprints from the cell
centre, then the top's edge on 48 rays (the first drop of a top-likeness below 0.5) and a
trimmed circle fit. Printed, by elevation band:

- without ``--finder`` (the label's camera): the top-centre error in pixels along the
  foot->top direction and across it, and the pieces' offsets from their cell centres; then
  ``|log f|`` errors (median / 90th percentile / share within 5%) of the fit from true tops
  and true feet (0 by construction), measured tops and true feet (the feet also with added
  noise), and true or measured tops with the cell centres as feet (what a reader knows);
- with ``--finder``: the finder's ``H`` and ``f`` (cells matched to the label's by image
  position), ``|log f|`` of the finder and of the refit with true tops and true feet (the
  cue's ceiling on the finder's board plane) and with true or measured tops and cell-centre
  feet.

A throwaway measurement (Python loops, about 0.2 s a still), not part of the finder.
"""

from __future__ import annotations

import argparse
import collections
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import iter_labelled_images
from vision.geometry.board_view import BoardView
from vision.locate.finder import find_board
from vision.locate.pose import refine_pose

FloatArray = NDArray[np.float64]
MIN_PIECES = 3


def band(elevation: float) -> str:
    if elevation < 40:
        return "25-40"
    if elevation < 60:
        return "40-60"
    return "60-70" if elevation < 70 else "70-90"


def vanishing_point(H: FloatArray, f: float, c: tuple[float, float], half: float) -> FloatArray:
    """Homogeneous vertical vanishing point under focal length ``f`` with ``H`` kept."""
    K = np.array([[f, 0.0, c[0]], [0.0, f, c[1]], [0.0, 0.0, 1.0]])
    pose, _ = refine_pose(H, K, half)
    return np.asarray(K @ pose.R[:, 2])


def lateral(H: FloatArray, f: float, c: tuple[float, float], half: float, feet: FloatArray,
            tops: FloatArray) -> FloatArray:
    """Signed distances (px) of the tops from the lines through their feet and ``v``."""
    v = vanishing_point(H, f, c, half)
    lines = np.cross(np.column_stack([feet, np.ones(len(feet))]), v[None, :])
    return np.asarray((lines[:, 0] * tops[:, 0] + lines[:, 1] * tops[:, 1] + lines[:, 2])
                      / np.linalg.norm(lines[:, :2], axis=1))


def fit_focal(H: FloatArray, f0: float, c: tuple[float, float], half: float, feet: FloatArray,
              tops: FloatArray, span: float = 0.3) -> float:
    """The focal length whose verticals pass closest to the tops (least squares)."""
    def cost(f: float) -> float:
        r = lateral(H, f, c, half, feet, tops)
        return float(r @ r)

    fs = f0 * np.exp(np.linspace(-span, span, 61))
    i = int(np.argmin([cost(f) for f in fs]))
    lo, hi = float(fs[max(i - 1, 0)]), float(fs[min(i + 1, len(fs) - 1)])
    for _ in range(25):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if cost(m1) < cost(m2):
            hi = m2
        else:
            lo = m1
    return 0.5 * (lo + hi)


def _sample(lab: NDArray[np.float32], pts: FloatArray) -> NDArray[np.float32]:
    p = pts.reshape(-1, 2).astype(np.float32)
    out = cv2.remap(lab, p[:, 0].reshape(1, -1), p[:, 1].reshape(1, -1), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out).reshape(*pts.shape[:-1], 3)


def _likeness(vals: NDArray[np.float32], top: FloatArray, far: FloatArray) -> FloatArray:
    scale = max(0.5 * float(np.linalg.norm(top - far)), 6.0)
    return np.asarray(np.exp(-0.5 * (np.linalg.norm(vals - top, axis=-1) / scale) ** 2))


def measure_top(view: BoardView, lab: NDArray[np.float32], xy0: FloatArray, h: float,
                F: float, n_rays: int = 48) -> FloatArray | None:
    """The (x, y) metres of a top's centre on the plane ``z = h`` near ``xy0`` (or None)."""
    n = 33
    u = np.linspace(-0.9, 0.9, n) * F
    X, Y = np.meshgrid(u, u, indexing="ij")
    pts = np.stack([xy0[0] + X, xy0[1] + Y, np.full_like(X, h)], -1)
    vals = _sample(lab, view.project(pts.reshape(-1, 3)).reshape(n, n, 2))
    r = np.hypot(X, Y) / F
    top = np.median(vals[(r > 0.36) & (r < 0.46)], axis=0)
    far = np.median(vals[r > 0.8], axis=0)
    like = _likeness(vals, top, far)
    step = float(u[1] - u[0])
    best, off = -np.inf, (0.0, 0.0)
    for dx in range(-6, 7):
        for dy in range(-6, 7):
            rr = np.hypot(X - dx * step, Y - dy * step) / F
            s = like[(rr > 0.36) & (rr < 0.48)].mean() - like[(rr > 0.56) & (rr < 0.7)].mean()
            if s > best:
                best, off = s, (dx * step, dy * step)
    cx, cy = xy0[0] + off[0], xy0[1] + off[1]
    rr = np.hypot(X - off[0], Y - off[1]) / F
    top = np.median(vals[(rr > 0.36) & (rr < 0.46)], axis=0)
    a = np.linspace(0.0, 2.0 * np.pi, n_rays, endpoint=False)
    rad = np.linspace(0.36, 0.8, 45) * F
    px = cx + np.cos(a)[:, None] * rad[None, :]
    py = cy + np.sin(a)[:, None] * rad[None, :]
    P = np.stack([px, py, np.full_like(px, h)], -1)
    prof_all = _likeness(_sample(lab, view.project(P.reshape(-1, 3)).reshape(n_rays, -1, 2)),
                         top, far)
    edges = []
    for k in range(n_rays):
        prof = prof_all[k]
        j = np.flatnonzero((prof[:-1] >= 0.5) & (prof[1:] < 0.5))
        if len(j) == 0:
            continue
        i = int(j[0])
        t = (prof[i] - 0.5) / (prof[i] - prof[i + 1])
        rho = rad[i] + t * (rad[i + 1] - rad[i])
        edges.append((cx + math.cos(a[k]) * rho, cy + math.sin(a[k]) * rho))
    if len(edges) < n_rays // 2:
        return None
    E = np.array(edges)
    keep = np.ones(len(E), bool)
    centre = np.array([cx, cy])
    for _ in range(3):
        A = np.column_stack([2 * E[keep, 0], 2 * E[keep, 1], np.ones(int(keep.sum()))])
        sol = np.linalg.lstsq(A, (E[keep] ** 2).sum(1), rcond=None)[0]
        centre = sol[:2]
        radius = math.sqrt(max(float(sol[2] + centre @ centre), 1e-12))
        res = np.abs(np.linalg.norm(E - centre, axis=1) - radius)
        keep = res < 3.0 * (np.median(res[keep]) + 1e-5) + 0.02 * F
        if keep.sum() < n_rays // 3:
            return None
    return np.asarray(centre)


def _pixels(view: BoardView, X: FloatArray) -> FloatArray:
    """Undistorted pixels of world points under a view's own camera matrix."""
    cam = view.camera
    x = X @ cam.pose.R.T + cam.pose.t
    K = cam.intrinsics.matrix
    return np.asarray(x[:, :2] / x[:, 2:3] * np.array([K[0, 0], K[1, 1]]) + K[:2, 2])


def _stats(a: FloatArray) -> str:
    return (f"{np.median(a):.3f} / {np.percentile(a, 90):.3f} / "
            f"{100.0 * np.mean(a < 0.05):.0f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--finder", action="store_true",
                        help="the finder's board and focal length instead of the label's")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    errors: dict[str, list[tuple[float, float, float]]] = collections.defaultdict(list)
    fits: dict[str, list[list[float]]] = collections.defaultdict(list)
    for d in args.dirs:
        for label in iter_labelled_images(d):
            true_view = label.board_view
            if true_view is None or label.elevation_deg is None:
                continue
            frame = cv2.imread(str(label.image_path))
            if frame is None:
                continue
            view = true_view
            if args.finder:
                found = find_board(frame)
                if not isinstance(found, BoardView):
                    continue
                view = found
            intr = view.camera.intrinsics
            K, dist = intr.matrix, intr.dist
            scale = view.spec.cell_pitch_m / true_view.spec.cell_pitch_m
            centres_px = view.cell_centers_px()
            centres = view.spec.cell_centers()
            lab = cv2.cvtColor(frame.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
            pset = label.raw["pieces_set"]

            def undistorted(px: FloatArray, K: FloatArray = K, dist: FloatArray = dist,
                            ) -> FloatArray:
                return np.asarray(cv2.undistortPoints(px.reshape(-1, 1, 2), K, dist, P=K)
                                  ).reshape(-1, 2)

            rows = []
            for entry in label.raw["cells"]:
                pc = entry["piece"]
                if (pc is None or pc["visible_fraction"] < 0.6
                        or pc["top_visible_fraction"] < 0.9):
                    continue
                gap = np.linalg.norm(centres_px - np.array(entry["center_px"]), axis=1)
                j = int(np.argmin(gap))
                if gap[j] > 0.3 * label.cell_spacing_px:
                    rows = []
                    break
                h = pset["tall_height_m" if pc["height"] == "tall" else "short_height_m"]
                F = pset["round_diameter_m" if pc["shape"] == "round" else "square_side_m"]
                m = measure_top(view, lab, centres[j], h * scale, F * scale)
                if m is None:
                    continue
                pos = np.array(pc["position_m"][:2])
                true_top = undistorted(true_view.project(np.array([[*pos, h]])))[0]
                foot = undistorted(true_view.project(np.array([[*pos, 0.0]])))[0]
                cell_foot = _pixels(view, np.array([[*centres[j], 0.0]]))[0]
                top = _pixels(view, np.array([[*m, h * scale]]))[0]
                rows.append((true_top, foot, cell_foot, top))
            b = band(label.elevation_deg)
            H = view.camera.board_homography()
            c = (intr.cx, intr.cy)
            half = 0.45 * view.spec.side_m
            f_true = true_view.camera.intrinsics.fx
            for true_top, foot, cell_foot, top in rows:
                d_ = true_top - foot
                if np.linalg.norm(d_) > 2.0:
                    along = d_ / np.linalg.norm(d_)
                    e = top - true_top
                    errors[b].append((float(e @ along),
                                      float(e @ np.array([-along[1], along[0]])),
                                      float(np.linalg.norm(foot - cell_foot))))
            before = abs(math.log(intr.fx / f_true))
            if len(rows) < MIN_PIECES:
                if args.finder:
                    fits[b].append([before] * 4)
                continue
            tt, ft, fc, me = (np.array(col) for col in zip(*rows, strict=True))
            cases = [(ft, tt), (fc, tt), (fc, me)] if args.finder else [
                (ft, me), (ft + rng.normal(0.0, 1.0, ft.shape), me), (fc, tt), (fc, me)]
            out = [before] if args.finder else []
            out += [abs(math.log(fit_focal(H, intr.fx, c, half, feet, tops) / f_true))
                    for feet, tops in cases]
            fits[b].append(out)
    if not args.finder:
        print("top-centre error, px: along foot->top median |e| / mean, across median |e| / "
              "p90 |e|; pieces' offsets from the cell centres, median px")
        for b in sorted(errors):
            e = np.array(errors[b])
            print(f"  {b}: {len(e)} pieces: along {np.median(abs(e[:, 0])):.2f} / "
                  f"{e[:, 0].mean():+.2f}, across {np.median(abs(e[:, 1])):.2f} / "
                  f"{np.percentile(abs(e[:, 1]), 90):.2f}; offsets {np.median(e[:, 2]):.2f}")
    names = (["finder", "true tops + true feet", "true tops + cell-centre feet",
              "measured tops + cell-centre feet"] if args.finder else
             ["measured tops + true feet", "the same, feet +-1 px",
              "true tops + cell-centre feet", "measured tops + cell-centre feet"])
    print("|log f| error: median / p90 / share under 0.05" + (
        " (stills with under 3 pieces keep the finder's)" if args.finder else ""))
    for b in sorted(fits):
        a = np.array(fits[b])
        print(f"  {b}: {len(a)} stills: " + "; ".join(
            f"{nm} {_stats(a[:, k])}" for k, nm in enumerate(names)))


if __name__ == "__main__":
    main()
