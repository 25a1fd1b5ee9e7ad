"""Train the cell-centre network of the board finder (``vision.locate.board_net``) from seeded
renders, with PyTorch, and save it folded for numpy inference.

    pip install torch==2.13.0      # training only; the package never imports torch
    python benchmarks/train_board_net.py DIR [DIR ...] --out vision/locate/board_net.npz

Every ``DIR`` holds renders with sidecar labels (``quarto-vision render stills``); images
without a board (``--no-board``) teach the network where no cell is. The last ``--val`` images
of each folder are held out: the figures printed per epoch are on them. The session-7 network
was trained on::

    /tmp/learn-data/train         seeds 100000..  classic palette, 3-16 pieces
    /tmp/learn-data/train_wide    seeds 300000..  wide palette
    /tmp/learn-data/train_hole    quarto-vision render stills 856 DIR --seed 310000 \\
                                      --pieces 3 16 --palette alternate --hole-light varied
    /tmp/learn-data/train_low     ... 800 DIR --seed 320000 ... --elevation 25 45
    /tmp/learn-data/train_noboard quarto-vision render stills 800 DIR --seed 1300000 --no-board
    /tmp/learn-data/train_hands   quarto-vision render stills 600 DIR --seed 1310000 --hands 0.6 \\
                                      --palette alternate

Images are cached at ``STORE_WIDTH`` pixels wide (``--cache``; the file records its folders
and is rebuilt when they change). Each training sample is the stored image zoomed by a random
factor (0.75-1.35 of the network's nominal scale) with ``warpAffine`` (bilinear: OpenCV's
warp has no area averaging, so a zoomed-out sample is a little sharper than the area-averaged
input the finder gives the network), shifted, maybe mirrored, with random exposure, colour
balance, blur and noise. Nothing here reads photoreal_dev or real photos. After each epoch the
folded numpy network is checked against the PyTorch one on a held-out image.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
from torch_setup import load_torch

from vision.locate.board_net import (
    LAYERS,
    BoardNet,
    heat_to_image,
    map_peaks,
    normalise_input,
    save_board_net,
)

STORE_WIDTH = 384
INPUT_WIDTH = 256
#: (out channels, kernel size) per layer; inputs follow from the forward pass.
WIDTHS = {"e2a": (16, 3), "e2b": (16, 3), "e3a": (32, 3), "e3b": (32, 3), "e4a": (48, 3),
          "e4b": (48, 3), "d3": (32, 3), "d3p": (16, 1), "d2": (16, 3), "head": (3, 1)}


def inputs_of(name: str) -> int:
    return {"e2a": 12, "e2b": 16, "e3a": 16, "e3b": 32, "e4a": 32, "e4b": 48,
            "d3": 48 + 32, "d3p": 32, "d2": 16 + 16, "head": 16}[name]


def centres_of(label_path: Path) -> np.ndarray:
    """(16, 2) cell centres (image pixels) of a sidecar label, or (0, 2) without a board."""
    d = json.loads(label_path.read_text())
    cells = d.get("cells") or []
    if not d.get("board") or len(cells) != 16:
        return np.zeros((0, 2))
    return np.array([c["center_px"] for c in cells], dtype=np.float64)


def build_cache(folders: list[Path], cache: Path) -> dict[str, np.ndarray]:
    """Stored images (N, h, STORE_WIDTH, 3), centres (N, 16, 2) in stored pixels (NaN
    without a board) and folder index per image, read once and kept in ``cache``."""
    names = np.array([str(f.resolve()) for f in folders])
    if cache.exists():
        with np.load(cache) as d:
            if "folders" in d.files and np.array_equal(d["folders"], names):
                return {k: d[k] for k in d.files}
        print(f"{cache} was built from other folders: rebuilding it", flush=True)
    images, centres, origin = [], [], []
    for k, folder in enumerate(folders):
        labels = sorted(folder.glob("*.json"))
        for n, lp in enumerate(labels):
            img = cv2.imread(str(lp.with_suffix(".jpg")))
            if img is None:
                continue
            s = STORE_WIDTH / img.shape[1]
            size = (STORE_WIDTH, round(img.shape[0] * s))
            images.append(cv2.resize(img, size, interpolation=cv2.INTER_AREA))
            c = centres_of(lp)
            centres.append((c + 0.5) * s - 0.5 if len(c) else np.full((16, 2), np.nan))
            origin.append(k)
            if (n + 1) % 500 == 0:
                print(f"  {folder.name}: {n + 1}/{len(labels)}", flush=True)
    out = {"images": np.stack(images), "centres": np.stack(centres),
           "origin": np.array(origin), "folders": names}
    np.savez(cache, **out)
    return out


def local_pitch(c: np.ndarray) -> np.ndarray:
    """(16,) distance of every cell centre to its nearest neighbour (the grid's pitch there)."""
    d = np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1))
    d[np.arange(16), np.arange(16)] = np.inf
    return d.min(axis=1)


def sample(store: np.ndarray, centres: np.ndarray, rng: np.random.Generator | None,
           ) -> tuple[np.ndarray, np.ndarray]:
    """One network input (H, W, 3) and its centres in input pixels ((0, 2) without a board).
    ``rng`` None: the nominal view (validation)."""
    h, w = store.shape[:2]
    s0 = INPUT_WIDTH / w
    out_h = round(h * s0)
    if rng is None:
        A = np.array([[s0, 0.0, 0.5 * s0 - 0.5], [0.0, s0, 0.5 * s0 - 0.5]])
        flip = False
    else:
        s = s0 * math.exp(rng.uniform(math.log(0.75), math.log(1.35)))
        # The stored image's centre lands at a random place of the output, within reach.
        cx = INPUT_WIDTH / 2 + rng.uniform(-0.35, 0.35) * INPUT_WIDTH * max(s / s0 - 0.6, 0.2)
        cy = out_h / 2 + rng.uniform(-0.35, 0.35) * out_h * max(s / s0 - 0.6, 0.2)
        A = np.array([[s, 0.0, cx - s * (w - 1) / 2], [0.0, s, cy - s * (h - 1) / 2]])
        flip = rng.random() < 0.5
    img = store
    if rng is not None:
        border = tuple(float(v) for v in store.reshape(-1, 3).mean(axis=0))
        img = cv2.warpAffine(store, A, (INPUT_WIDTH, out_h), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    else:
        img = cv2.resize(store, (INPUT_WIDTH, out_h), interpolation=cv2.INTER_AREA)
    c = centres
    pts = np.zeros((0, 2)) if np.isnan(c).any() else c @ A[:, :2].T + A[:, 2]
    if flip:
        img = img[:, ::-1]
        pts = np.column_stack([INPUT_WIDTH - 1 - pts[:, 0], pts[:, 1]]) if len(pts) else pts
    if rng is not None:
        img = photometric(img, rng)
    return normalise_input(np.ascontiguousarray(img)), pts


def photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random exposure, contrast, colour balance, gamma, blur and sensor noise."""
    x = img.astype(np.float32) / 255.0
    x = x * rng.uniform(0.6, 1.4) * rng.uniform(0.85, 1.15, size=3)
    x = np.clip(x, 0.0, 1.0) ** rng.uniform(0.7, 1.4)
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.6, 1.3) + mean
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.0))
    x = x + rng.normal(0.0, rng.uniform(0.0, 0.03), size=x.shape)
    return np.asarray(np.clip(x * 255.0, 0, 255), dtype=np.uint8)


def targets(pts: np.ndarray, shape_hw: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Heat-map target (h, w) (Gaussian bumps, 1 at the centres' pixels) and per-centre
    (pixel index, offset x, offset y) rows for the offset loss, at half input resolution."""
    h, w = shape_hw
    heat = np.zeros((h, w), np.float32)
    rows = []
    if len(pts):
        u = (pts + 0.5) / 2.0 - 0.5
        sig = np.clip(local_pitch(u) / 5.0, 0.5, 2.0)
        yy, xx = np.mgrid[0:h, 0:w]
        for (x, y), s in zip(u, sig, strict=True):
            ix, iy = round(x), round(y)
            if not (0 <= ix < w and 0 <= iy < h):
                continue
            r = math.ceil(3 * s)
            y0, y1, x0, x1 = max(0, iy - r), min(h, iy + r + 1), max(0, ix - r), min(w, ix + r + 1)
            g = np.exp(-((xx[y0:y1, x0:x1] - ix) ** 2 + (yy[y0:y1, x0:x1] - iy) ** 2)
                       / (2 * s * s))
            heat[y0:y1, x0:x1] = np.maximum(heat[y0:y1, x0:x1], g)
            rows.append((iy * w + ix, x - ix, y - iy))
    return heat, np.array(rows, dtype=np.float32).reshape(-1, 3)


def build_torch(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.convs = nn.ModuleDict()
            self.norms = nn.ModuleDict()
            for name in LAYERS:
                out, k = WIDTHS[name]
                self.convs[name] = nn.Conv2d(inputs_of(name), out, k, padding=k // 2)
                self.norms[name] = nn.Identity() if name == "head" else nn.BatchNorm2d(out)

        def layer(self, name: str, x):
            y = self.norms[name](self.convs[name](x))
            return y if name == "head" else F.relu(y)

        def forward(self, x):
            n, c, h, w = x.shape
            x = x.view(n, c, h // 2, 2, w // 2, 2).permute(0, 3, 5, 1, 2, 4)
            x = x.reshape(n, 4 * c, h // 2, w // 2)
            e2 = self.layer("e2b", self.layer("e2a", x))
            e3 = self.layer("e3b", self.layer("e3a", F.max_pool2d(e2, 2)))
            e4 = self.layer("e4b", self.layer("e4a", F.max_pool2d(e3, 2)))
            d3 = self.layer("d3", torch.cat([F.interpolate(e4, scale_factor=2.0), e3], 1))
            d3p = F.interpolate(self.layer("d3p", d3), scale_factor=2.0)
            d2 = self.layer("d2", torch.cat([d3p, e2], 1))
            return self.layer("head", d2)

    return Net()


def fold(net) -> BoardNet:
    layers = {}
    for name in LAYERS:
        conv, norm = net.convs[name], net.norms[name]
        w = conv.weight.detach().numpy().astype(np.float64)
        b = conv.bias.detach().numpy().astype(np.float64)
        if hasattr(norm, "running_var"):
            g = norm.weight.detach().numpy() / np.sqrt(norm.running_var.numpy() + norm.eps)
            w = w * g[:, None, None, None]
            b = (b - norm.running_mean.numpy()) * g + norm.bias.detach().numpy()
        layers[name] = (w.astype(np.float32), b.astype(np.float32))
    return BoardNet(layers, INPUT_WIDTH)


def check_fold(torch, net, folded: BoardNet, data: dict[str, np.ndarray],
               idx: np.ndarray) -> None:
    """Raise unless the folded numpy network gives the PyTorch network's maps (to float
    rounding) on the first held-out image: what the finder runs is what was trained."""
    x, _ = sample(data["images"][idx[0]], data["centres"][idx[0]], None)
    with torch.no_grad():
        want = net(torch.from_numpy(x.transpose(2, 0, 1)[None].copy()))[0].numpy()
    got = folded.forward(x).transpose(2, 0, 1)
    err = float(np.abs(got - want).max())
    if err > 1e-3 * max(1.0, float(np.abs(want).max())):
        raise RuntimeError(f"folded network differs from the trained one by {err:.2g}")


def focal_loss(torch, logit, heat):
    """CenterNet's penalty-reduced focal loss, per centre."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 0.999).float()
    neg = 1.0 - pos
    lp = -((1 - p) ** 2) * torch.log(p) * pos
    ln = -((1 - heat) ** 4) * (p ** 2) * torch.log(1 - p) * neg
    return (lp.sum() + ln.sum()) / pos.sum().clamp(min=1.0)


def val_figures(net: BoardNet, data: dict[str, np.ndarray], idx: np.ndarray) -> str:
    """Held-out figures: share of true centres with a peak within 0.25 of the local pitch,
    mean centre error of those (pitches), and spurious peaks (score >= 0.25, no centre near)
    per image, with and without a board."""
    hit = total = 0
    errs: list[float] = []
    spurious_board = spurious_empty = 0
    n_board = n_empty = 0
    for i in idx:
        x, pts = sample(data["images"][i], data["centres"][i], None)
        heat, _ = map_peaks(net.forward(x), 0.25, len(x) * len(x[0]))
        peaks = heat_to_image(heat, 1.0)  # scale 1: input pixels
        if len(pts):
            n_board += 1
            pitch = local_pitch(pts)
            d = np.hypot(*(pts[:, None, :] - peaks[None, :, :]).transpose(2, 0, 1)) \
                if len(peaks) else np.full((16, 1), np.inf)
            near = d.min(axis=1) / pitch
            hit += int((near < 0.25).sum())
            total += 16
            errs.extend(near[near < 0.25].tolist())
            far = d.min(axis=0) / np.median(pitch) if len(peaks) else np.zeros(0)
            spurious_board += int((far > 0.5).sum())
        else:
            n_empty += 1
            spurious_empty += len(peaks)
    return (f"centres found {hit / max(total, 1):.1%}, error {np.mean(errs) if errs else 0:.3f}"
            f" pitch; spurious peaks {spurious_board / max(n_board, 1):.2f} per board image, "
            f"{spurious_empty / max(n_empty, 1):.2f} per empty one")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/learn-data/board-net-cache.npz"))
    ap.add_argument("--out", type=Path, default=Path("vision/locate/board_net.npz"))
    ap.add_argument("--val", type=int, default=40, help="images held out per folder")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="at most this many training images "
                    "per epoch (0: all)")
    args = ap.parse_args(argv)
    torch = load_torch(args.seed, args.threads)
    if torch is None:
        return 2
    rng = np.random.default_rng(args.seed)
    data = build_cache(args.folders, args.cache)
    origin = data["origin"]
    per_folder = [np.flatnonzero(origin == k) for k in range(len(args.folders))]
    val_idx = np.concatenate([ix[len(ix) - min(args.val, len(ix)):] for ix in per_folder])
    train_idx = np.setdiff1d(np.arange(len(origin)), val_idx)
    print(f"{len(train_idx)} training images, {len(val_idx)} held out", flush=True)
    net = build_torch(torch)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = len(train_idx) if args.limit <= 0 else min(args.limit, len(train_idx))
    steps = args.epochs * (per_epoch // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps,
                                                pct_start=0.15)
    step = 0
    for epoch in range(args.epochs):
        net.train()
        order = rng.permutation(train_idx)[:per_epoch]
        t0 = time.time()
        losses = []
        for start in range(0, per_epoch - args.batch + 1, args.batch):
            xs, heats, offs = [], [], []
            for k, i in enumerate(order[start:start + args.batch]):
                x, pts = sample(data["images"][i], data["centres"][i], rng)
                heat, rows = targets(pts, (x.shape[0] // 2, x.shape[1] // 2))
                xs.append(x.transpose(2, 0, 1))
                heats.append(heat)
                if len(rows):
                    offs.append(np.column_stack([np.full(len(rows), k), rows]))
            xb = torch.from_numpy(np.stack(xs))
            hb = torch.from_numpy(np.stack(heats))
            out = net(xb)
            loss = focal_loss(torch, out[:, 0], hb)
            if offs:
                o = torch.from_numpy(np.concatenate(offs).astype(np.float32))
                b, pix = o[:, 0].long(), o[:, 1].long()
                pred = out[:, 1:3].flatten(2)[b, :, pix]
                loss = loss + torch.nn.functional.l1_loss(pred, o[:, 2:4])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            losses.append(float(loss))
            if step % 50 == 0:
                print(f"  step {step}/{steps} loss {np.mean(losses[-50:]):.3f} "
                      f"({(time.time() - t0) / (start + args.batch):.3f} s/image)", flush=True)
        net.eval()
        folded = fold(net)
        check_fold(torch, net, folded, data, val_idx)
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}, {time.time() - t0:.0f} s; "
              f"held out: {val_figures(folded, data, val_idx)}", flush=True)
        save_board_net(folded, args.out)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
