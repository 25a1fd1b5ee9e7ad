"""Reproduce the convolutional cell classifier from seeds: patches from cached renders, train
with PyTorch, fold, calibrate, save.

    pip install torch==2.13.0      # training only; the package never imports torch
    python benchmarks/train_cnn.py --data /tmp/learn-data/train --images 6500 \
        --out vision/learn/cells_cnn.npz

Training images are seeds 100000.. of ``vision.render.render_still`` with 3-16 pieces; missing
ones are rendered into ``--data`` first (about 1 s each, one process). Seeds 102250-102499 are
held out for validation (early stopping, temperatures, the figures printed at
the end), as for the perceptron. Nothing here reads photoreal_dev or real photos.

A second set of renders with other scene options can be added, e.g. the wide colour palette
(seeds 300000.., the last ``--extra-val`` of them held out as a second validation set, which
also takes part in the temperatures)::

    python benchmarks/train_cnn.py --images 2000 --extra /tmp/learn-data/train_wide \
        --extra-images 1500 --extra-val 100 --extra-palette wide \
        --init vision/learn/cells_cnn.npz --lr 1e-3 --augment 2 --epochs 4 --threads 1

``--more DIR...`` adds folders whose every render is used for training (none held out, none
rendered here), e.g. the renders with varied bores and the low views (25-45 degrees) of the
session-6 training::

    quarto-vision render stills 856 /tmp/learn-data/train_hole --seed 310000 --pieces 3 16 \
        --palette alternate --hole-light varied
    quarto-vision render stills 800 /tmp/learn-data/train_low --seed 320000 --pieces 3 16 \
        --palette alternate --hole-light varied --elevation 25 45

Renders with a colour sensor's grain (``--sensor bayer``, session 38; no shipped network has
seen it yet) are made the same way and added with ``--more``, e.g. dim rooms::

    quarto-vision render stills 800 /tmp/learn-data/train_grain --seed 330000 --pieces 3 16 \
        --palette alternate --hole-light varied --lighting dim --sensor bayer

A fine-tune that renders nothing can validate on a folder of existing labelled renders
instead (``--images 0 --no-render --val-folder DIR``; session 39 used /tmp/s36/fresh1360).
The reader can be pointed at a trained file without replacing the shipped one by setting
``QUARTO_VISION_CNN=FILE`` (``vision.learn.cnn.default_cnn``).

``--focal-jitter LOW TOP`` gives the jittered views the focal-length errors an uncalibrated
finder makes (``JitterConfig``; session 30 measured 0.012 0.05 against a control run: a few
pieces gained with the finder's board, about run-to-run noise; docs/design.md).

``--seed`` changes the initial weights, batch order and augmentation (two seeds of one recipe
show how much of a difference is luck); ``--patch-size`` another ``PatchConfig.size`` (with its
own ``--cache`` folder); ``--combine A.npz B.npz --out E.npz [--no-mirror]`` writes an ensemble
of trained files without training.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from torch_setup import load_torch

from vision.evaluation.labels import load_label
from vision.learn.cnn import DEFAULT_CNN_PATH, ConvCellModel, ConvNet, load_cnn
from vision.learn.dataset import (
    OUTPUTS,
    REQUIRED_OUTPUTS,
    JitterConfig,
    cell_targets,
    decode_top_size,
    jitter_view,
)
from vision.learn.patches import PATCH_CHANNELS, PATCH_SCALARS, PatchConfig, cell_patches

FIRST_SEED = 100000
VAL_SEEDS = range(102250, 102500)
#: First seed of the extra renders (``--extra``): used nowhere else.
FIRST_EXTRA_SEED = 300000


def render_missing(folder: Path, seeds: range, palette: str = "classic") -> None:
    """Render every seed whose image or label is missing in ``folder``."""
    from vision.render import SceneOptions, render_still, write_still

    folder.mkdir(parents=True, exist_ok=True)
    options = SceneOptions(n_pieces=(3, 16), palette=palette)
    todo = [s for s in seeds if not (folder / f"{s}.json").exists()]
    for k, seed in enumerate(todo):
        image, label = render_still(seed, options=options)
        write_still(folder / f"{seed}.jpg", image, label)
        if k % 50 == 0:
            print(f"rendered {k + 1}/{len(todo)} (seed {seed})", flush=True)


def extract(paths: list[Path], *, jitters: int, seed: int, cfg: PatchConfig,
            cache: Path | None, jitter: JitterConfig | None = None) -> dict[str, np.ndarray]:
    """Patches, scalars, targets and weights of every image: the exact pose and ``jitters``
    poses jittered the way the board finder errs. Cached as float16 in ``cache``."""
    if cache is not None and cache.exists():
        with np.load(cache) as d:
            out = {k: d[k] for k in d.files}
        if out["images"].shape[-1] != 2 * cfg.size:
            raise SystemExit(f"{cache}: patches of another --patch-size "
                             f"({out['images'].shape[-1] // 2}); pass another --cache folder")
        if out["y"].shape[1] != len(OUTPUTS):
            # Cached before an output was added: the patches stand, the targets are redone.
            out["y"], out["w"] = targets(paths, jitters=jitters)
            if len(out["y"]) != len(out["images"]):
                raise SystemExit(f"{cache}: {len(out['images'])} cached cells but "
                                 f"{len(out['y'])} targets; delete the cache")
        return out
    rng = np.random.default_rng(seed)
    imgs, scal, ys, ws = [], [], [], []
    t0 = time.perf_counter()
    for n, path in enumerate(paths):
        label = load_label(path)
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if frame is None or label.board_view is None:
            continue
        y, w = cell_targets(label)
        views = [label.board_view] + [
            jitter_view(label.board_view, rng, jitter or JitterConfig()) for _ in range(jitters)
        ]
        for v in views:
            p = cell_patches(frame, v, config=cfg)
            imgs.append(p.images.astype(np.float16))
            scal.append(p.scalars)
            ys.append(y)
            ws.append(w)
        if n % 250 == 0:
            print(f"patches {n + 1}/{len(paths)} ({time.perf_counter() - t0:.0f} s)", flush=True)
    out: dict[str, np.ndarray] = {
        "images": np.concatenate(imgs), "scalars": np.concatenate(scal),
        "y": np.concatenate(ys), "w": np.concatenate(ws),
    }
    if cache is not None:
        np.savez(cache, **out)  # type: ignore[arg-type]
    return out


def targets(paths: list[Path], *, jitters: int) -> tuple[np.ndarray, np.ndarray]:
    """Targets and weights of every cached cell (the images ``extract`` kept, each
    ``1 + jitters`` times), recomputed from the labels."""
    ys, ws = [], []
    for path in paths:
        label = load_label(path)
        if label.board_view is None or not label.image_path.exists():
            continue
        y, w = cell_targets(label)
        ys += [y] * (1 + jitters)
        ws += [w] * (1 + jitters)
    return np.concatenate(ys), np.concatenate(ws)


def build_torch_net(cfg: PatchConfig, widths: tuple[int, ...], hidden: int, *,
                    batch_norm: bool = True):
    """The network in PyTorch; without ``batch_norm`` (fine-tuning a folded model) the
    normalisations are identities."""
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            chans = (PATCH_CHANNELS, *widths)
            self.convs = nn.ModuleList(
                nn.Conv2d(chans[k], chans[k + 1], 3, padding=1) for k in range(len(widths)))
            self.norms = nn.ModuleList(
                nn.BatchNorm2d(c) if batch_norm else nn.Identity() for c in widths)
            side = 2 * cfg.size // 2 ** (len(widths) - 1)
            self.hidden = nn.Linear(widths[-1] * side * side + len(PATCH_SCALARS), hidden)
            self.head = nn.Linear(hidden, len(OUTPUTS))
            self.drop = nn.Dropout(0.3)

        def forward(self, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
            for k, (conv, norm) in enumerate(zip(self.convs, self.norms, strict=True)):
                x = torch.relu(norm(conv(x)))
                if k < len(self.convs) - 1:
                    x = torch.nn.functional.max_pool2d(x, 2)
            z = torch.cat([x.flatten(1), s], dim=1)
            return self.head(self.drop(torch.relu(self.hidden(z))))

    return Net()


def load_folded(net, model: ConvCellModel) -> None:
    """Start from a trained (folded) model: its convolutions, hidden layer, and the head rows
    of the outputs both have (new outputs keep their random start)."""
    import torch

    folded = model.nets[0]
    with torch.no_grad():
        for conv, (w, b) in zip(net.convs, folded.convs, strict=True):
            conv.weight.copy_(torch.from_numpy(w))
            conv.bias.copy_(torch.from_numpy(b))
        net.hidden.weight.copy_(torch.from_numpy(folded.hidden[0]))
        net.hidden.bias.copy_(torch.from_numpy(folded.hidden[1]))
        for k, name in enumerate(OUTPUTS):
            if name in model.outputs:
                j = model.column(name)
                # The old logits were divided by their temperature: keep the calibrated ones.
                t = float(folded.temperature[j])
                net.head.weight[k].copy_(torch.from_numpy(folded.head[0][j]) / t)
                net.head.bias[k] = float(folded.head[1][j]) / t


def mirror_torch(x, size: int):
    """Columns of each tile reversed (``vision.learn.patches.mirror_patches`` in torch)."""
    n, c, h, _ = x.shape
    return x.reshape(n, c, h, 2, size).flip(-1).reshape(n, c, h, 2 * size)


def augment(x, gen, strength: int = 1):
    """Photometric changes a real camera and lamp make and our renderer may not: contrast of
    the lightness and of the colour (both relative to the board), a lightness offset, and a
    little defocus blur (a 3x3 kernel of random width); with ``strength`` 2 also a wider
    lightness offset, a colour offset and stronger noise."""
    import torch

    n = len(x)
    rand = torch.rand(n, 7, generator=gen)
    # Lightness contrast and offset: +-2 L units of board-colour error or uneven light (as
    # before), up to +-4 L units with --augment 2.
    x[:, 0] = (x[:, 0] * (0.75 + 0.5 * rand[:, 0, None, None])
               + strength * 0.1 * (rand[:, 1, None, None] - 0.5))
    x[:, 1:3] = x[:, 1:3] * (0.7 + 0.6 * rand[:, 2, None, None, None])
    if strength > 1:
        # A white balance that differs between the board and the pieces (mixed lamps, a
        # coloured board tinting its surroundings): a and b shift by up to +-2 Lab units.
        x[:, 1] += 0.1 * (rand[:, 4, None, None] - 0.5)
        x[:, 2] += 0.1 * (rand[:, 5, None, None] - 0.5)
        # Sensor noise of a dim scene: up to 2 Lab units per sample, more than the renders'.
        x[:, :3] += (0.05 * rand[:, 6, None, None, None]) * torch.randn(
            x[:, :3].shape, generator=gen)
    blur = rand[:, 3] < 0.5
    if blur.any():
        sigma = 0.4 + 0.6 * torch.rand(int(blur.sum()), generator=gen)
        g = torch.exp(-(torch.tensor([-1.0, 0.0, 1.0])[None, :] ** 2) / (2 * sigma[:, None] ** 2))
        g = g / g.sum(dim=1, keepdim=True)
        k = (g[:, :, None] * g[:, None, :])  # (m, 3, 3) per sample
        xb = x[blur, :3]
        m, c, h, w = xb.shape
        weight = k[:, None].repeat(1, c, 1, 1).reshape(m * c, 1, 3, 3)
        out = torch.nn.functional.conv2d(xb.reshape(1, m * c, h, w), weight, padding=1,
                                         groups=m * c)
        x[blur, :3] = out.reshape(m, c, h, w)
    return x


def fold(net, temperature: np.ndarray) -> ConvNet:
    """Fold each batch norm (inference statistics) into the convolution before it."""
    convs = []
    for conv, norm in zip(net.convs, net.norms, strict=True):
        if not hasattr(norm, "running_var"):  # an identity (fine-tuned folded model)
            convs.append((conv.weight.detach().numpy().astype(np.float32),
                          conv.bias.detach().numpy().astype(np.float32)))
            continue
        g = (norm.weight / (norm.running_var + norm.eps).sqrt()).detach().numpy()
        w = conv.weight.detach().numpy() * g[:, None, None, None]
        b = (conv.bias.detach().numpy() - norm.running_mean.detach().numpy()) * g \
            + norm.bias.detach().numpy()
        convs.append((w.astype(np.float32), b.astype(np.float32)))
    return ConvNet(
        convs=tuple(convs),
        hidden=(net.hidden.weight.detach().numpy(), net.hidden.bias.detach().numpy()),
        head=(net.head.weight.detach().numpy(), net.head.bias.detach().numpy()),
        temperature=temperature.astype(np.float32),
    )


def weighted_bce(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-z)), 1e-7, 1 - 1e-7)
    return float(-(w * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum() / max(w.sum(), 1e-9))


def temperatures(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """One temperature per output minimising the held-out cross-entropy (a 1-D search)."""
    grid = np.exp(np.linspace(np.log(0.3), np.log(5.0), 120))
    return np.array([
        grid[int(np.argmin([weighted_bce(z[:, k] / t, y[:, k], w[:, k]) for t in grid]))]
        for k in range(z.shape[1])
    ])


def figures(name: str, p: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
    parts = []
    for k, out in enumerate(OUTPUTS[:5]):
        m = w[:, k] > 0
        err = float(((p[m, k] >= 0.5) != (y[m, k] >= 0.5)).mean()) if m.any() else float("nan")
        parts.append(f"{out} {100 * err:.2f}%")
    occ = (y[:, 0] > 0.5) & (w[:, 1] > 0)
    wrong = np.zeros(int(occ.sum()), bool)
    for k in range(1, 5):
        m = w[occ, k] > 0
        wrong |= m & ((p[occ, k] >= 0.5) != (y[occ, k] >= 0.5))
    print(f"{name}: " + "; ".join(parts)
          + f"; pieces any attribute wrong {100 * wrong.mean():.2f}% (independent)", flush=True)


def val_figures(name: str, p: np.ndarray, va: dict[str, np.ndarray], n_classic: int) -> None:
    """Figures on the classic validation cells (the first ``n_classic``) and, when there are
    more, on the extra ones."""
    figures(name, p[:n_classic], va["y"][:n_classic], va["w"][:n_classic])
    if len(p) > n_classic:
        figures(name + " (extra)", p[n_classic:], va["y"][n_classic:], va["w"][n_classic:])


def size_figures(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
    """Error of the predicted apparent top size (log units: 0.05 is 5 %)."""
    k = OUTPUTS.index("top_size")
    m = w[:, k] > 0
    if not m.any():
        return
    err = decode_top_size(p[m, k]) - decode_top_size(y[m, k])
    print(f"  top_size: median |error| {np.median(np.abs(err)):.4f}, "
          f"bias {np.median(err):+.4f} (log units, {int(m.sum())} tops)", flush=True)


def combine(paths: list[Path], out: Path, *, mirror_average: bool) -> int:
    """Write the networks of several model files (same patch layout and outputs) as one
    ensemble, whose probabilities are the mean of theirs."""
    models = [load_cnn(p) for p in paths]
    first = models[0]
    if any(m.patches != first.patches or m.outputs != first.outputs for m in models):
        print("the models differ in patch layout or outputs", file=sys.stderr)
        return 2
    info: dict[str, object] = {
        "ensemble": [{"file": p.name, **m.info} for p, m in zip(paths, models, strict=True)]}
    model = ConvCellModel(tuple(n for m in models for n in m.nets), first.patches, first.outputs,
                          info, mirror_average=mirror_average)
    model.save(out)
    print(f"saved {out}: {len(model.nets)} networks, mirror average {mirror_average}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/tmp/learn-data/train"))
    ap.add_argument("--images", type=int, default=2500, help="training seeds from 100000")
    ap.add_argument("--no-render", action="store_true", help="use only the cached images")
    ap.add_argument("--jitters", type=int, default=2)
    ap.add_argument("--focal-jitter", type=float, nargs=2, default=(0.0, 0.0),
                    metavar=("LOW", "TOP"),
                    help="scales of the jittered poses' log focal-length error up to 60 degrees "
                         "and straight above (JitterConfig.focal_log_scale_low/_top; use a new "
                         "--cache folder)")
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--widths", type=str, default="16,32,64,64")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--augment", type=int, nargs="?", const=1, default=0,
                    help="photometric augmentation: 1 contrast, lightness, defocus; 2 also "
                         "colour offsets and stronger noise")
    ap.add_argument("--size-weight", type=float, default=8.0,
                    help="loss weight of the top_size output against one attribute's")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune this folded model (same layout) instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--extra", type=Path, default=None,
                    help="folder of extra training renders (seeds from --extra-first-seed)")
    ap.add_argument("--extra-first-seed", type=int, default=FIRST_EXTRA_SEED)
    ap.add_argument("--extra-images", type=int, default=0,
                    help="extra training renders (their validation seeds follow them)")
    ap.add_argument("--extra-val", type=int, default=0,
                    help="extra renders held out for validation, after the training ones")
    ap.add_argument("--extra-palette", default="wide",
                    help="SceneOptions.palette of the extra renders")
    ap.add_argument("--more", type=Path, nargs="+", default=[],
                    help="folders of further training renders, all used for training (none "
                         "held out, none rendered here; seeds must differ from other folders')")
    ap.add_argument("--val-folder", type=Path, default=None,
                    help="validate (early figures, temperatures) on every render of this folder "
                         "instead of seeds 102250-102499 of --data (none rendered here; with "
                         "--images 0 nothing is rendered at all)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/learn-data/cnn-cache"))
    ap.add_argument("--out", type=Path, default=DEFAULT_CNN_PATH)
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the initial weights and of the batch order and augmentation")
    ap.add_argument("--patch-size", type=int, default=PatchConfig.size,
                    help="PatchConfig.size: samples per patch side (another size needs its own "
                         "--cache folder; the model file stores it, inference follows)")
    ap.add_argument("--combine", type=Path, nargs="+", default=None,
                    help="write an ensemble of these trained model files to --out (no training)")
    ap.add_argument("--no-mirror", action="store_true",
                    help="with --combine: do not average with the mirror image (an ensemble of "
                         "two then costs what one mirrored network does)")
    args = ap.parse_args(argv)
    if args.combine is not None:
        return combine(args.combine, args.out, mirror_average=not args.no_mirror)
    torch = load_torch(args.seed, args.threads)
    if torch is None:
        return 2
    cfg = PatchConfig(size=args.patch_size)
    extra_train = range(args.extra_first_seed, args.extra_first_seed + args.extra_images)
    extra_val = range(extra_train.stop, extra_train.stop + args.extra_val)
    if not args.no_render:
        render_missing(args.data, range(FIRST_SEED, FIRST_SEED + args.images))
        if args.val_folder is None:
            render_missing(args.data, VAL_SEEDS)
        if args.extra is not None:
            render_missing(args.extra, range(extra_train.start, extra_val.stop),
                           args.extra_palette)
    val = [args.data / f"{s}.json" for s in VAL_SEEDS if (args.data / f"{s}.json").exists()]
    val_cache = args.cache / f"val_{len(val)}.npz"
    if args.val_folder is not None:
        val = sorted(args.val_folder.glob("*.json"))
        val_cache = args.cache / f"val_{args.val_folder.name}_{len(val)}.npz"
    train = [args.data / f"{s}.json" for s in range(FIRST_SEED, FIRST_SEED + args.images)
             if s not in VAL_SEEDS and (args.data / f"{s}.json").exists()]
    more = [path for folder in args.more for path in sorted(folder.glob("*.json"))]
    if not (train or more) or not val:
        # A fine-tune may train on --more folders alone (--images 0); validation stays.
        print(f"no training or validation renders in {args.data}", file=sys.stderr)
        return 2
    extra: list[Path] = []
    val_extra: list[Path] = []
    if args.extra is not None:
        extra = [args.extra / f"{s}.json" for s in extra_train
                 if (args.extra / f"{s}.json").exists()]
        val_extra = [args.extra / f"{s}.json" for s in extra_val
                     if (args.extra / f"{s}.json").exists()]
    print(f"{len(train)} training images, {len(val)} validation images; extra "
          f"({args.extra_palette}) {len(extra)} training, {len(val_extra)} validation; "
          f"{len(more)} more training", flush=True)
    args.cache.mkdir(parents=True, exist_ok=True)
    jitter = JitterConfig(focal_log_scale_low=args.focal_jitter[0],
                          focal_log_scale_top=args.focal_jitter[1])
    # Cached in chunks of 500 seeds so that adding renders only extracts the new ones.
    chunks = []
    for paths in (train, extra, more):
        for start in range(0, len(paths), 500):
            part = paths[start:start + 500]
            name = f"train_{part[0].stem}_{part[-1].stem}_j{args.jitters}.npz"
            chunks.append(extract(part, jitters=args.jitters, seed=int(part[0].stem), cfg=cfg,
                                  cache=args.cache / name if len(part) == 500 else None,
                                  jitter=jitter))
    tr = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    va = extract(val, jitters=1, seed=2, cfg=cfg, cache=val_cache, jitter=jitter)
    vx = None
    if val_extra:
        vx = extract(val_extra, jitters=1, seed=3, cfg=cfg, cache=args.cache /
                     f"val_{val_extra[0].stem}_{val_extra[-1].stem}.npz", jitter=jitter)
    print(f"training cells {len(tr['y'])}, validation cells {len(va['y'])}"
          + ("" if vx is None else f" + {len(vx['y'])} extra"), flush=True)

    widths = tuple(int(v) for v in args.widths.split(","))
    net = build_torch_net(cfg, widths, args.hidden, batch_norm=args.init is None)
    if args.init is not None:
        init = load_cnn(args.init)
        if init.patches != cfg or len(init.nets) != 1:
            print(f"{args.init}: another patch layout or an ensemble", file=sys.stderr)
            return 2
        load_folded(net, init)
    x_tr = torch.from_numpy(tr["images"])
    s_tr, y_tr, w_tr = (torch.from_numpy(tr[k]) for k in ("scalars", "y", "w"))
    n_va = len(va["y"])  # the extra validation cells follow the classic ones
    if vx is not None:
        va = {k: np.concatenate([va[k], vx[k]]) for k in va}
    x_va = torch.from_numpy(va["images"].astype(np.float32))
    s_va = torch.from_numpy(va["scalars"])
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-3)
    batch = 256
    steps = args.epochs * (len(y_tr) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps)
    gen = torch.Generator().manual_seed(args.seed)

    def val_logits() -> np.ndarray:
        net.eval()
        with torch.no_grad():
            z = torch.cat([net(x_va[i:i + 1024], s_va[i:i + 1024])
                           for i in range(0, len(x_va), 1024)])
        net.train()
        return z.numpy()

    n_cls = len(REQUIRED_OUTPUTS)
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        order = torch.randperm(len(y_tr), generator=gen)
        total = 0.0
        for i in range(len(y_tr) // batch):
            idx = order[i * batch:(i + 1) * batch]
            x = x_tr[idx].float()
            flip = torch.rand(len(idx), generator=gen) < 0.5
            x[flip] = mirror_torch(x[flip], cfg.size)
            if args.augment:
                x = augment(x, gen, args.augment)
            x[:, :3] += 0.02 * torch.randn(x[:, :3].shape, generator=gen)
            # Soft targets pulled 1% towards 0.5: no output is ever certain (top_size is a
            # measurement, not a class: kept as it is, and weighted by --size-weight).
            y = y_tr[idx].clone()
            y[:, :n_cls] = y[:, :n_cls] * 0.98 + 0.01
            w = w_tr[idx].clone()
            w[:, n_cls:] *= args.size_weight
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                net(x, s_tr[idx]), y, weight=w, reduction="sum") / w_tr[idx, :n_cls].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        z = val_logits()
        print(f"epoch {epoch + 1}/{args.epochs}: train loss {total / (i + 1):.4f}, validation "
              f"loss {weighted_bce(z, va['y'], va['w']):.4f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
        val_figures("  validation", 1 / (1 + np.exp(-z)), va, n_va)
        size_figures(1 / (1 + np.exp(-z)), va["y"], va["w"])
    net.eval()
    z = val_logits()
    temp = temperatures(z, va["y"], va["w"])
    temp[len(REQUIRED_OUTPUTS):] = 1.0  # top_size is a measurement: its scale is its meaning
    print("temperatures: " + ", ".join(f"{o}={t:.2f}" for o, t in zip(OUTPUTS, temp, strict=True)))
    folded = fold(net, temp)
    validation: object = [VAL_SEEDS.start, VAL_SEEDS.stop - 1]
    if args.val_folder is not None:
        validation = {"folder": args.val_folder.name, "images": len(val)}
    info = {"train_images": len(train), "validation_seeds": validation,
            "jitters": args.jitters, "focal_jitter": list(args.focal_jitter),
            "epochs": args.epochs, "widths": list(widths),
            "hidden": args.hidden, "augment": args.augment,
            "size_weight": args.size_weight,
            "init": None if args.init is None else str(args.init.name), "lr": args.lr,
            "seed": args.seed}
    if extra:
        info["extra"] = {"palette": args.extra_palette, "train_images": len(extra),
                         "first_seed": args.extra_first_seed,
                         "validation_images": len(val_extra)}
    if more:
        info["more"] = {"folders": [folder.name for folder in args.more], "train_images": len(more)}
    model = ConvCellModel((folded,), cfg, OUTPUTS, info, mirror_average=False)
    p = model.predict_patches(va["images"].astype(np.float32), va["scalars"])
    val_figures("validation (folded numpy network, calibrated)", p, va, n_va)
    size_figures(p, va["y"], va["w"])
    # The figures are of the network alone; the reader averages it with the mirror image (the
    # file stores the flag).
    dataclasses.replace(model, mirror_average=True).save(args.out)
    print(f"saved {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
