"""The band cue between a piece's two possible tops (``vision.read.top_band``): measure, fit, score.

    python benchmarks/top_band_cue.py collect OUT.pkl FOLDER...   # label's board, 25-70 degrees
    python benchmarks/top_band_cue.py fit TRAIN.pkl TEST.pkl [--min-gap 0.15]
    python benchmarks/top_band_cue.py decode OUT.pkl.boards [--weights 0 1]

``collect`` reads every labelled image whose camera is at 25-70 degrees with the fused reader
(the label's board), stopping before the joint decoding, and keeps per piece the truth, the
network's, the hand-crafted reader's and the fused P(tall), and the band features
(``band_features`` at the set's heights guided by the readers, ``guided_heights``); per board
the fused odds, so ``decode`` can decode them again with the cue at any weight. ``fit`` fits
the logistic model of ``TopBandConfig`` on one file (the fused height log-odds as an offset,
L2 1.0, pieces at least 0.8 in view) and prints its coefficients and the heights wrong before
decoding on both files at several weights. Session 33 (helper-33c): fitted on dev1347 and
fresh1349-1352, tested on fresh1353-1356 and dev50_low.
"""

from __future__ import annotations

import argparse
import math
import pickle
from dataclasses import replace

import cv2
import numpy as np

from vision.evaluation.labels import iter_labelled_images
from vision.learn.config import BoardColourConfig, LearnedReaderConfig
from vision.learn.fuse import (
    _DEFAULT_CALIBRATION,
    HAND_LEARNED_WEIGHTS,
    _fused_odds,
    _height_checked,
    _unseen_tops,
    measured_colours,
    with_board_colours,
)
from vision.learn.reader import read_cells_learned
from vision.read.decode import decode_pieces
from vision.read.exposure import normalise_exposure
from vision.read.reader import measure_cells, observe_cells
from vision.read.top_band import TopBandConfig, band_features, band_log_odds, guided_heights

NF = 8


def collect(out: str, folders: list[str]) -> None:
    rows: list[dict[str, float]] = []
    boards = []
    for folder in folders:
        for lab in iter_labelled_images(folder):
            if (lab.board_view is None or lab.elevation_deg is None
                    or not 25 <= lab.elevation_deg <= 70):
                continue
            view = lab.board_view
            frame, _ = normalise_exposure(cv2.imread(str(lab.image_path)), view, None)
            feats = measure_cells(frame, view)
            hand = observe_cells(feats, view, decode=False)
            learned = read_cells_learned(frame, view, decode=False)
            occ, odds = _fused_odds(hand, learned, HAND_LEARNED_WEIGHTS)
            unseen = _unseen_tops(learned, LearnedReaderConfig())
            odds = [{**o, "top": None} if u else o for o, u in zip(odds, unseen, strict=True)]
            visible = [min(a.visible_fraction, b.visible_fraction)
                       for a, b in zip(hand.cells, learned.cells, strict=True)]
            cfg = BoardColourConfig()
            parts = _height_checked(measured_colours(feats, cfg), hand, odds,
                                    checked=cfg.height_checked_parts,
                                    sampled_tall=feats.heights.tall_probability
                                    if cfg.unread_cell_parts else None)
            odds = with_board_colours(odds, occ, visible, parts, cfg, None)
            odds = _DEFAULT_CALIBRATION.apply(odds, visible)
            pr = feats.profiles
            p_tall = np.array([0.5 if o["height"] is None else o["height"] for o in odds])
            usable = np.array([o["height"] is not None and p >= 0.5 and v >= 0.8
                               for o, p, v in zip(odds, occ, visible, strict=True)])
            pair = guided_heights(pr.score(), pr.heights_m, p_tall, usable,
                                  feats.frames.footprint_m)
            hs, ht = pair or (feats.heights.short_m, feats.heights.tall_m)
            x, gap = band_features(view, feats.frames, feats.patch, hs, ht, pr.rim, pr.side,
                                   pr.spread, pr.heights_m, p_tall, usable)
            elev = np.degrees(np.arcsin(feats.frames.top_sine))
            truth = {c.cell.index: c for c in lab.cells if c.piece is not None}
            boards.append(dict(odds=odds, occ=occ, visible=visible, x=x, gap=gap, elev=elev,
                               truth={i: c.piece for i, c in truth.items()},
                               vis_true={i: c.visible_fraction for i, c in truth.items()},
                               board_elev=lab.elevation_deg))
            for i, c in truth.items():
                assert c.piece is not None
                ph = odds[i]["height"]
                rows.append(dict(truth=float(c.piece.value("height") == "tall"),
                                 vis_true=c.visible_fraction, vis=visible[i], occ=occ[i],
                                 p_fused=np.nan if ph is None else float(ph),
                                 elev_cell=float(elev[i]),
                                 **{f"x{k}": float(x[i, k]) for k in range(NF)}))
        print(folder, len(rows), flush=True)
    with open(out, "wb") as fh:
        pickle.dump({k: np.array([r[k] for r in rows]) for k in rows[0]}, fh)
    with open(out + ".boards", "wb") as fh:
        pickle.dump(boards, fh)


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(q / (1 - q)))


def _gate(d: dict[str, np.ndarray], min_gap: float) -> np.ndarray:
    return np.asarray((d["vis"] >= 0.8) & (d["elev_cell"] <= 70.0) & (d["x5"] >= min_gap)
                      & np.isfinite(d["p_fused"]) & (d["occ"] >= 0.5))


def fit(train: str, test: str, min_gap: float) -> None:
    with open(train, "rb") as fh:
        tr = pickle.load(fh)
    with open(test, "rb") as fh:
        te = pickle.load(fh)
    mt = _gate(tr, min_gap)
    x = np.column_stack([tr[f"x{k}"][mt] for k in range(NF)])
    mean, scale = x.mean(0), x.std(0) + 1e-9

    def design(d: dict[str, np.ndarray], m: np.ndarray) -> np.ndarray:
        z = (np.column_stack([d[f"x{k}"][m] for k in range(NF)]) - mean) / scale
        return np.column_stack([z, np.ones(len(z))])

    xt, y, off = design(tr, mt), tr["truth"][mt], _logit(tr["p_fused"][mt])
    w = np.zeros(NF + 1)
    reg = np.diag(np.r_[np.ones(NF), 0.0])
    for _ in range(50):  # Newton steps of an L2-regularised logistic with an offset
        p = 1 / (1 + np.exp(-(off + xt @ w)))
        w -= np.linalg.solve((xt * (p * (1 - p))[:, None]).T @ xt + reg,
                             xt.T @ (p - y) + reg @ w)
    print("mean", np.round(mean, 4).tolist())
    print("scale", np.round(scale, 4).tolist())
    print("coef", np.round(w[:NF], 4).tolist(), "bias", round(float(w[NF]), 4))
    for name, d in (("train", tr), ("test", te)):
        m = _gate(d, min_gap)
        llr = np.clip(design(d, m) @ w, -4, 4)
        yy, oo = d["truth"][m] == 1, _logit(d["p_fused"][m])
        for wt in (0.0, 0.5, 1.0):
            z = oo + wt * llr
            print(f"{name} weight {wt}: heights wrong before decoding "
                  f"{int(((z >= 0) != yy).sum())} of {int(m.sum())}")


def decode(path: str, weights: list[float]) -> None:
    with open(path, "rb") as fh:
        boards = pickle.load(fh)
    for wt in weights:
        cfg = replace(TopBandConfig(), weight=wt)
        wrong: dict[str, list[int]] = {}
        for b in boards:
            llr = band_log_odds(b["x"], cfg)
            odds = []
            for i, o in enumerate(b["odds"]):
                if (wt > 0 and o["height"] is not None and b["occ"][i] >= 0.5
                        and b["visible"][i] >= cfg.min_visible
                        and b["elev"][i] <= cfg.max_elevation_deg
                        and b["gap"][i] >= cfg.min_gap_f):
                    z = math.log(max(o["height"], 1e-4) / max(1 - o["height"], 1e-4))
                    o = {**o, "height": 1 / (1 + math.exp(-(z + wt * float(llr[i]))))}
                odds.append(o)
            occupied = [i for i, p in enumerate(b["occ"]) if p >= 0.5]
            read = dict(zip(occupied, decode_pieces([odds[i] for i in occupied]), strict=True))
            e = b["board_elev"]
            band = "25-40" if e < 40 else "40-60" if e < 60 else "60-70"
            for i, piece in b["truth"].items():
                if b["vis_true"][i] < 0.8:
                    continue
                c = wrong.setdefault(band, [0, 0])
                c[1] += 1
                r = read.get(i)
                if r is not None and "height" in r.known and \
                        r.piece.value("height") != piece.value("height"):
                    c[0] += 1
        print(f"weight {wt}: heights wrong after decoding",
              {k: f"{v[0]}/{v[1]}" for k, v in sorted(wrong.items())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("folders", nargs="+")
    f = sub.add_parser("fit")
    f.add_argument("train")
    f.add_argument("test")
    f.add_argument("--min-gap", type=float, default=TopBandConfig().min_gap_f)
    d = sub.add_parser("decode")
    d.add_argument("boards")
    d.add_argument("--weights", type=float, nargs="+", default=[0.0, 1.0])
    args = parser.parse_args()
    if args.cmd == "collect":
        collect(args.out, args.folders)
    elif args.cmd == "fit":
        fit(args.train, args.test, args.min_gap)
    else:
        decode(args.boards, args.weights)


if __name__ == "__main__":
    main()
