"""Procedural top-down textures: wood, table tops, board tops and the room behind.

Each texture is a linear-RGB albedo image ``(H, W, 3) float32`` seen from straight above, with a
known size in metres, so the rasteriser can warp it into any camera by a homography or a remap.
Everything is built from smooth noise (random values upsampled by cubic interpolation), which
is cheap and has no repeating pattern.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry.board_spec import BoardSpec
from vision.rules.board import ALL_CELLS

Albedo = np.ndarray  # (H, W, 3) float32 linear RGB


def smooth_noise(
    rng: np.random.Generator, shape_hw: tuple[int, int], cells_hw: tuple[int, int]
) -> np.ndarray:
    """Zero-mean, unit-ish noise of ``shape_hw`` with about ``cells_hw`` blobs along each axis."""
    ch, cw = max(2, int(cells_hw[0])), max(2, int(cells_hw[1]))
    small = rng.standard_normal((ch, cw)).astype(np.float32)
    return cv2.resize(small, (shape_hw[1], shape_hw[0]), interpolation=cv2.INTER_CUBIC)


def wood(
    rng: np.random.Generator,
    shape_hw: tuple[int, int],
    base_rgb: np.ndarray,
    *,
    period_px: float,
    contrast: float,
) -> Albedo:
    """Plain-sawn wood with the grain running along x.

    Notes
    -----
    Growth rings: the phase ``(y + bend) / period`` with ``bend`` low-frequency noise (the
    figure); each ring is a light earlywood ramp ending in a narrow dark latewood line, the
    ring width itself wanders. Fibres are noise stretched 40:1 along the grain, pores are fine
    speckle, and a slow tone variation spans the piece. All of it multiplies the base colour.
    """
    h, w = shape_hw
    yy = np.arange(h, dtype=np.float32)[:, None]
    bend = smooth_noise(rng, (h, w), (5, 3)) * period_px * 3.0
    wander = smooth_noise(rng, (h, w), (max(2, int(h / period_px / 3)), 3)) * 0.35
    phase = (yy + bend) / period_px + wander
    frac = phase - np.floor(phase)
    late = np.clip(1.0 - np.abs(frac - 0.85) / 0.1, 0.0, 1.0) ** 1.5
    fibres = smooth_noise(rng, (h, w), (max(2, h // 2), max(2, w // 80)))
    pores = rng.standard_normal((h, w)).astype(np.float32)
    tone = smooth_noise(rng, (h, w), (3, 3))
    mod = (
        1.0
        + contrast * (0.25 * (0.5 - frac) - 0.9 * late + 0.3 * fibres + 0.12 * pores)
        + 0.07 * tone
    )
    return (np.asarray(base_rgb, np.float32)[None, None, :] * mod[:, :, None]).clip(0, 1)


def _tint(rng: np.random.Generator, base: tuple[int, int, int], spread: float = 8.0) -> np.ndarray:
    from vision.render.materials import srgb_to_linear

    return srgb_to_linear(np.clip(np.array(base) + rng.normal(0, spread, 3), 0, 255)).astype(
        np.float32
    )


def table_texture(
    rng: np.random.Generator, kind: str, shape_hw: tuple[int, int], res_m: float
) -> Albedo:
    """Albedo of a table top of ``shape_hw`` texels, ``res_m`` metres per texel."""
    h, w = shape_hw
    if kind in ("wood_planks", "dark_wood"):
        bases = (
            [(196, 146, 96), (170, 118, 74), (214, 172, 120), (150, 100, 62)]
            if kind == "wood_planks"
            else [(92, 58, 38), (70, 44, 32), (110, 66, 42)]
        )
        base = _tint(rng, bases[int(rng.integers(len(bases)))])
        plank = float(rng.uniform(0.09, 0.2)) / res_m
        img = np.empty((h, w, 3), np.float32)
        y0 = 0.0
        while y0 < h:
            y1 = min(h, int(y0 + plank))
            tone = base * float(rng.uniform(0.82, 1.15))
            img[int(y0) : y1] = wood(
                rng,
                (y1 - int(y0), w),
                tone,
                period_px=float(rng.uniform(0.006, 0.02)) / res_m,
                contrast=float(rng.uniform(0.15, 0.3)),
            )
            img[y1 - 1 : y1] *= 0.45  # gap between planks
            y0 = y1
        if rng.random() < 0.5:
            img = np.ascontiguousarray(img.transpose(1, 0, 2))
            img = cv2.resize(img, (w, h))
        return img
    if kind == "laminate":
        base = _tint(
            rng,
            [(228, 226, 220), (205, 200, 190), (180, 180, 178), (235, 230, 214)][
                int(rng.integers(4))
            ],
        )
        mod = (
            1.0
            + 0.03 * smooth_noise(rng, (h, w), (6, 6))
            + 0.015 * rng.standard_normal((h, w)).astype(np.float32)
        )
        return (base[None, None] * mod[:, :, None]).clip(0, 1)
    if kind == "studio":
        base = _tint(
            rng, [(240, 240, 238), (205, 205, 205), (225, 222, 215)][int(rng.integers(3))], 4
        )
        mod = 1.0 + 0.02 * smooth_noise(rng, (h, w), (3, 3))
        return (base[None, None] * mod[:, :, None]).clip(0, 1)
    if kind == "cloth":
        base = _tint(
            rng,
            [(60, 90, 60), (150, 40, 40), (200, 190, 170), (50, 60, 100), (120, 120, 124)][
                int(rng.integers(5))
            ],
        )
        weave_px = max(1.0, 0.0012 / res_m)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = np.sin(xx * math.pi / weave_px) * np.sin(yy * math.pi / weave_px)
        mod = 1.0 + 0.05 * weave + 0.06 * smooth_noise(rng, (h, w), (8, 8))
        return (base[None, None] * mod[:, :, None]).clip(0, 1)
    if kind == "checker_cloth":
        c1 = _tint(rng, [(180, 30, 30), (40, 60, 150), (40, 110, 60)][int(rng.integers(3))])
        c2 = _tint(rng, (236, 232, 224))
        sq = float(rng.uniform(0.02, 0.05)) / res_m
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        wob = smooth_noise(rng, (h, w), (4, 4)) * sq * 0.15
        chk = ((np.floor((xx + wob) / sq) + np.floor((yy - wob) / sq)) % 2).astype(np.float32)
        chk = cv2.GaussianBlur(chk, (0, 0), 0.6)
        img = c1[None, None] * chk[:, :, None] + c2[None, None] * (1 - chk[:, :, None])
        return (img * (1.0 + 0.05 * smooth_noise(rng, (h, w), (8, 8)))[:, :, None]).clip(0, 1)
    if kind == "stone":
        base = _tint(rng, [(150, 150, 148), (190, 186, 178), (90, 90, 92)][int(rng.integers(3))])
        mod = (
            1.0
            + 0.08 * smooth_noise(rng, (h, w), (30, 30))
            + 0.05 * smooth_noise(rng, (h, w), (5, 5))
            + 0.05 * rng.standard_normal((h, w)).astype(np.float32)
        )
        return (base[None, None] * mod[:, :, None]).clip(0, 1)
    raise ValueError(f"unknown table kind {kind!r}")


def board_texture(
    rng: np.random.Generator,
    spec: BoardSpec,
    look: dict[str, object],
    size_px: int,
    corner_radius_m: float,
) -> np.ndarray:
    """Top of the board as an RGBA float32 image covering ``[-S/2, S/2]^2``.

    Texel (i, j) is at ``x = -S/2 + (j + 0.5) S / n``, ``y = S/2 - (i + 0.5) S / n``: image rows
    go towards -y. Alpha is 0 outside the rounded outline.
    """
    n = size_px
    s = spec.side_m
    px_per_m = n / s
    top = np.asarray(look["top"], np.float32)
    grain = float(look.get("grain", 0.0))  # type: ignore[arg-type]
    if grain > 0:
        img = wood(rng, (n, n), top, period_px=0.006 * px_per_m, contrast=grain)
    else:
        mod = (
            1.0
            + 0.04 * smooth_noise(rng, (n, n), (5, 5))
            + 0.02 * rng.standard_normal((n, n)).astype(np.float32)
        )
        img = top[None, None] * mod[:, :, None]
    mark = tuple(float(v) for v in np.asarray(look["marking"], np.float32))
    line_px = max(1, round(float(look.get("line_mm", 1.4)) * 1e-3 * px_per_m))  # type: ignore[arg-type]
    shift = 4
    sc = 1 << shift

    def to_px(xy: np.ndarray) -> tuple[int, int]:
        return (
            round((xy[0] + s / 2) * px_per_m * sc - 0.5 * sc),
            round((s / 2 - xy[1]) * px_per_m * sc - 0.5 * sc),
        )

    cells = str(look["cells"])
    engraved = cells == "engraved"
    ink = img.copy()
    ink[:] = mark
    mask = np.zeros((n, n), np.float32)
    r_cell = spec.cell_diameter_m / 2.0
    if spec.big_circle_radius_m > 0:
        cv2.circle(
            mask,
            to_px(np.zeros(2)),
            int(spec.big_circle_radius_m * px_per_m * sc),
            1.0,
            line_px,
            cv2.LINE_AA,
            shift,
        )
    for cell in ALL_CELLS:
        c = spec.cell_center(cell)
        if cells in ("ring", "engraved"):
            cv2.circle(
                mask, to_px(c), int(r_cell * px_per_m * sc), 1.0, line_px, cv2.LINE_AA, shift
            )
        elif cells == "disc":
            cv2.circle(mask, to_px(c), int(r_cell * px_per_m * sc), 1.0, -1, cv2.LINE_AA, shift)
        elif cells == "square":
            a = math.radians(spec.grid_rotation_deg)
            h = spec.cell_pitch_m / 2.0 * 0.94
            pts = (
                np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
                @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
                + c
            )
            cv2.polylines(
                mask,
                [np.array([to_px(p) for p in pts], np.int32)],
                True,
                1.0,
                line_px,
                cv2.LINE_AA,
                shift,
            )
    if look.get("text"):
        _engrave_text(mask, n, px_per_m, s)
    if engraved:
        # A V-cut shows the wood under the finish (the marking colour: darker on light wood,
        # lighter under a dark stain), with a thin bright lip on one side.
        lip = np.roll(mask, (1, 1), axis=(0, 1)) - mask
        img = img * (1.0 - 0.8 * mask[:, :, None]) + ink * (0.8 * mask[:, :, None])
        img = img * (1.0 + 0.25 * np.clip(lip, 0, 1)[:, :, None])
    else:
        img = (img * (1.0 - mask[:, :, None]) + ink * mask[:, :, None]).astype(np.float32)
    alpha = np.zeros((n, n), np.float32)
    rr = int(corner_radius_m * px_per_m)
    cv2.rectangle(alpha, (rr, 0), (n - 1 - rr, n - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, rr), (n - 1, n - 1 - rr), 1.0, -1)
    for cx, cy in ((rr, rr), (n - 1 - rr, rr), (rr, n - 1 - rr), (n - 1 - rr, n - 1 - rr)):
        cv2.circle(alpha, (cx, cy), rr, 1.0, -1, cv2.LINE_AA)
    # A slightly brighter worn bevel along the outline catches the light like the real edge.
    edge = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, n // 400))
    bevel = (alpha - edge).clip(0, 1)
    edge_rgb = np.asarray(look["edge"], np.float32)
    img = img * (1 - bevel[:, :, None]) + edge_rgb[None, None] * bevel[:, :, None]
    return np.dstack([img.clip(0, 1), alpha]).astype(np.float32)


def _engrave_text(mask: np.ndarray, n: int, px_per_m: float, s: float) -> None:
    """ "QUARTO!" along one edge near a corner, as on the current Gigamic board."""
    scale = 0.007 * px_per_m / 22.0
    text = np.zeros(mask.shape, np.uint8)
    org = (int(n * 0.68), int(n * 0.955))
    cv2.putText(
        text,
        "QUARTO!",
        org,
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        255,
        max(1, int(scale * 0.9)),
        cv2.LINE_AA,
    )
    np.maximum(mask, text.astype(np.float32) / 255.0, out=mask)


def room_texture(rng: np.random.Generator, shape_hw: tuple[int, int]) -> np.ndarray:
    """Out-of-focus room behind the table (image space): wall tone, soft furniture shapes."""
    h, w = shape_hw
    wall = _tint(
        rng,
        [(200, 196, 186), (160, 150, 140), (90, 86, 84), (220, 216, 210), (120, 110, 96)][
            int(rng.integers(5))
        ],
        10,
    )
    img = np.empty((h, w, 3), np.float32)
    img[:] = wall
    for _ in range(int(rng.integers(1, 5))):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x1, y1 = x0 + int(rng.integers(w // 10, w // 2)), y0 + int(rng.integers(h // 10, h))
        colour = tuple(float(v) for v in float(rng.uniform(0.02, 0.5)) * rng.uniform(0.7, 1.0, 3))
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, -1)
    img *= (1.0 + 0.15 * smooth_noise(rng, (h, w), (3, 4)))[:, :, None]
    return cv2.GaussianBlur(img, (0, 0), max(3.0, w / 60.0)).clip(0, 1)
