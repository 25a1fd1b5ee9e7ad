"""Tall or short from straight above by the size of the hollow tops' holes.

Seen from nearly straight above a tall top is only a few per cent larger than a short one
(``vision.learn.board_heights``), and the outline of a top has rivals within a pixel or two
(its bevel, the wall towards the camera's foot, its shadow, the cell ring). The bore of a
hollow piece has none of these: its rim is a sharp circle at the top's own height, a fixed
share of the set's width, between the lit top face and the dark bore. On one board all the
bores of one shape have the same diameter, so their apparent sizes fall into a short and a
tall group, exactly as the tops' widths do.

Per hollow cell the frame is resampled onto the horizontal plane at :data:`PLANE_HEIGHT_M`
(central projection between parallel planes is a similarity, so a circle at any height stays
a circle there) and a circle is fitted to the strongest dark-inside edge: a coarse search of
centre and radius, then the edge on each of :data:`N_RAYS` rays to sub-pixel and a trimmed
algebraic circle fit. The bores of one board are searched twice: first in every size a set
may have, then within ``HoleSizeConfig.search_spread`` of the board's median. The measured
sizes go through the board-height model of ``vision.learn.board_heights`` with their own
noise (``HoleSizeConfig``), giving a log-likelihood ratio added to the fused height odds.

Session 34: built and measured by helper-34e, on in ``analyze`` (``HoleSizeConfig.weight``
1; 0 = off); ``watch`` leaves it out (``SessionConfig.hole_sizes``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.board_heights import board_height_evidence
from vision.learn.config import BoardHeightConfig
from vision.locate.fit import _maps, _remap_maps
from vision.read.stats import median
from vision.rules.board import Cell

FloatArray = NDArray[np.float64]

#: Height of the resampling plane, metres (between any set's short and tall tops).
PLANE_HEIGHT_M = 0.05
#: Rays of the circle fit.
N_RAYS = 90
#: A bore is this share of a set's width (renders 0.55-0.67); divides the measured size so
#: that it falls in the board-height model's ranges of widths.
NOMINAL_HOLE_FRACTION = 0.61


@dataclass(frozen=True)
class HoleSizeConfig:
    """Knobs of the hole-size height evidence (``weight`` 0 switches it off)."""

    #: Log-odds weight of the evidence added to the fused height odds (0: off; 1, the
    #: model's own calibration, the default). Measured in session 34 (helper-34e): held-out
    #: heights wrong at 60-90 degrees 231 -> 182 on fresh1354-1356, label's board; then by
    #: the lead on the fresh renders 1358000+ (never seen): pieces wrong 113 -> 107 on the
    #: label's board, 151 -> 143 on the finder's, boards fully right 383 -> 385 and 373 ->
    #: 376 (docs/design.md). Costs about 50 ms per board seen from 75 degrees up.
    weight: float = 1.0
    #: Only cells seen from at least this elevation: lower, the bore's lit far wall takes
    #: the rim's place on one side and the fit errs more than the network's top size.
    min_elevation_deg: float = 75.0
    #: Spread of the measured log size between the bores of one board (measured 0.010 MAD at
    #: 80-90 degrees, 0.014 at 70-80, on dev renders 1357000+).
    size_noise: float = 0.015
    #: Share of wrong fits (a bore's floor or far wall taken for its rim).
    outlier_rate: float = 0.15
    #: Resampling pixel, metres on the plane. An image pixel there is about 0.5 mm from
    #: 0.5 m up. Session 39 (helper-39g), 0.0003 with the top rims' coarser grid (see
    #: ``TopRimConfig.offset_step_m``): the fused reader about 22 ms less per board from 75
    #: degrees up, pieces wrong 21 -> 20 alone on 47 such dev stills; left at 0.00015.
    pixel_m: float = 0.00015
    #: First search: bore radius on the plane in cell-ring diameters.
    radius_range_rings: tuple[float, float] = (0.12, 0.40)
    #: Second search: within this factor of the board's median radius.
    search_spread: float = 0.15
    #: Centre search: within this distance of the cell centre, metres.
    max_offset_m: float = 0.006
    #: Cells whose P(hollow) and P(occupied) are at least this, seen at least ``min_visible``.
    min_hollow: float = 0.5
    min_visible: float = 0.6
    #: Steps of the board model's square/round bore ratio grid over 0.80-1.0
    #: (``BoardHeightConfig.square_ratio_steps``). The ratio is free, so a lone square bore
    #: (or a lone round one) should say nothing of its height; with 5 steps (5 % apart,
    #: against a ``size_noise`` of 1.5 %) whichever height lands nearer a grid point looks
    #: likelier (helper-34h: -0.37 nats on game 3034950's lone square bore; up to 0.45-0.6
    #: nats beside two tall and two short round bores, camera 0.6-0.8 m up). 9 steps (2.5 %)
    #: keep that within 0.06 nats at 0.6 m (0.17 at 0.45 m, where the range's ends weigh; 21
    #: steps 0.09 and 0.30, at twice the cost). Measured in session 35 (helper-35d) and left
    #: at 5: 9 steps change no piece on the label's board of four fresh sets (60-90 degrees),
    #: and on the finder's board of fresh1357+1358 mend 3 heights and break 6 (heights wrong
    #: 166 -> 169, boards fully right 353 -> 353; docs/design.md).
    square_ratio_steps: int = 5

    def __post_init__(self) -> None:
        if self.weight < 0 or self.size_noise <= 0 or self.pixel_m <= 0:
            raise ValueError("weight must be >= 0, size_noise and pixel_m positive")
        lo, hi = self.radius_range_rings
        if not 0 < lo < hi:
            raise ValueError(f"radius_range_rings must be (low, high), got {(lo, hi)!r}")
        if self.square_ratio_steps < 1:
            raise ValueError(f"square_ratio_steps must be at least 1, got "
                             f"{self.square_ratio_steps!r}")


def _plane_points(view: BoardView, centre: FloatArray, half: float, pixel: float,
                  ) -> tuple[NDArray[np.float32], FloatArray]:
    """(n, n, 2) image points of the plane z = PLANE_HEIGHT_M around ``centre`` (x, y) at
    ``pixel`` spacing, and the grid's origin."""
    n = round(2 * half / pixel) + 1
    g = centre[0] - half + pixel * np.arange(n), centre[1] - half + pixel * np.arange(n)
    # The meshgrid's (x, y, z) points written in place by broadcasting (the same values).
    pts = np.empty((n, n, 3))
    pts[:, :, 0] = g[0][None, :]
    pts[:, :, 1] = g[1][:, None]
    pts[:, :, 2] = PLANE_HEIGHT_M
    px = view.project(pts.reshape(-1, 3)).astype(np.float32)
    return px.reshape(n, n, 2), np.array([g[0][0], g[1][0]])


def _lightness(frame_bgr: NDArray[np.uint8], maps: list[NDArray[np.float32]],
               ) -> tuple[NDArray[np.float32], tuple[int, int]]:
    """Lab lightness (0-100) of the part of the frame that bilinear samples at ``maps`` (each
    (n, n, 2) image points) read, and that part's top-left corner (x, y).

    The colour conversion works pixel by pixel, so the part is converted alone (a few per
    cent of the frame); it reaches two pixels past every point, or to the frame's edge,
    where OpenCV's replicated border then reads the same pixels as on the whole frame."""
    h, w = frame_bgr.shape[:2]
    # Each coordinate reduced on its own (numpy reduces an axis of pairs slowly).
    lo = np.array([min(float(m[:, :, k].min()) for m in maps) for k in (0, 1)])
    hi = np.array([max(float(m[:, :, k].max()) for m in maps) for k in (0, 1)])
    x0, y0, x1, y1 = 0, 0, w, h
    if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and max(np.abs(lo).max(),
                                                                   np.abs(hi).max()) < 1e5:
        x0 = min(max(0, math.floor(lo[0]) - 2), w - 1)
        y0 = min(max(0, math.floor(lo[1]) - 2), h - 1)
        x1 = max(min(w, math.floor(hi[0]) + 3), x0 + 1)
        y1 = max(min(h, math.floor(hi[1]) + 3), y0 + 1)
    part = frame_bgr[y0:y1, x0:x1]
    light = cv2.cvtColor(part, cv2.COLOR_BGR2Lab)[:, :, 0].astype(np.float32) / 2.55
    return light, (x0, y0)


def _rectified(light: NDArray[np.float32], corner: tuple[int, int],
               points: NDArray[np.float32]) -> NDArray[np.float32]:
    """``light`` (whose top-left pixel is the frame's ``corner``) resampled at the frame's
    (n, n, 2) image ``points``. The points move by whole pixels, exact in float32."""
    x = points[:, :, 0] - np.float32(corner[0]) if corner[0] else points[:, :, 0]
    y = points[:, :, 1] - np.float32(corner[1]) if corner[1] else points[:, :, 1]
    return cv2.remap(light, np.ascontiguousarray(x), np.ascontiguousarray(y), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


class _Patch:
    """Outward lightness derivative of one rectified cell, sampled along circles."""

    def __init__(self, light: NDArray[np.float32], origin: FloatArray, pixel: float) -> None:
        sm = cv2.GaussianBlur(light, (0, 0), 1.0)
        self.gx = cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3) / 8.0
        self.gy = cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3) / 8.0
        self.origin = origin
        self.pixel = pixel
        ang = np.linspace(0.0, 2.0 * np.pi, N_RAYS, endpoint=False)
        self.dirs = np.column_stack([np.cos(ang), np.sin(ang)])

    def radial(self, cx: FloatArray, cy: FloatArray, radii: FloatArray,
               every: int = 1) -> FloatArray:
        """(len(cx), N_RAYS // every, len(radii)) derivative of lightness along each ray
        (every ``every``-th ray)."""
        d = self.dirs[::every]
        u = cx[:, None, None] + radii[None, None, :] * d[None, :, 0, None]
        v = cy[:, None, None] + radii[None, None, :] * d[None, :, 1, None]
        # (p - origin) / pixel in place; both derivatives sampled at the same remap maps.
        u -= self.origin[0]
        u /= self.pixel
        v -= self.origin[1]
        v /= self.pixel
        n = u.size
        maps = _maps(n)
        maps[0, :n] = u.ravel()
        maps[1, :n] = v.ravel()
        a = _remap_maps(self.gx, maps, n).reshape(u.shape)
        b = _remap_maps(self.gy, maps, n).reshape(u.shape)
        return np.asarray(a * d[None, :, 0, None] + b * d[None, :, 1, None], np.float64)


def _circle_fit(x: FloatArray, y: FloatArray) -> tuple[float, float, float]:
    """Algebraic (Kasa) least-squares circle: centre and radius."""
    a = np.column_stack([x, y, np.ones_like(x)])
    sol = np.linalg.lstsq(a, x * x + y * y, rcond=None)[0]
    cx, cy = sol[0] / 2.0, sol[1] / 2.0
    return float(cx), float(cy), float(math.sqrt(max(sol[2] + cx * cx + cy * cy, 1e-18)))


def _coarse(patch: _Patch, centre: FloatArray, radii: FloatArray, max_offset: float,
            ) -> tuple[float, float, float, float]:
    """Best dark-inside circle: centre on a 1 mm then 0.4 mm grid, radius on ``radii``."""
    best = (-np.inf, centre[0], centre[1], float(radii[0]))
    for step, span, around in ((0.001, max_offset, centre), (0.0004, 0.0012, None)):
        c = np.array(best[1:3]) if around is None else around
        offs = np.arange(-span, span + 1e-9, step)
        ox, oy = (g.ravel() for g in np.meshgrid(offs, offs))
        keep = ox * ox + oy * oy <= (span + 1e-9) ** 2
        cx, cy = c[0] + ox[keep], c[1] + oy[keep]
        g = patch.radial(cx, cy, radii, every=3)
        score = np.clip(g, -5.0, 5.0, out=g).mean(axis=1)
        k, j = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[k, j] > best[0]:
            best = (float(score[k, j]), float(cx[k]), float(cy[k]), float(radii[j]))
    return best


def _refine(patch: _Patch, cx: float, cy: float, r: float) -> tuple[float, float, float] | None:
    """Sub-pixel edge per ray (the dark-inside local maximum nearest the circle, at least 0.3
    of the ray's strongest), then a circle fit trimmed at 2.5 MAD; three rounds."""
    step = patch.pixel / 2.0
    rays = np.arange(N_RAYS)
    for _ in range(3):
        rr = r + np.arange(-0.12 * r, 0.12 * r + 1e-12, step)
        g = patch.radial(np.array([cx]), np.array([cy]), rr)[0]
        loc = np.zeros_like(g, bool)
        loc[:, 1:-1] = ((g[:, 1:-1] >= g[:, :-2]) & (g[:, 1:-1] > g[:, 2:])
                        & (g[:, 1:-1] >= 0.3 * g.max(axis=1, keepdims=True)) & (g[:, 1:-1] > 0))
        dist = np.abs(rr - r)[None, :] + np.where(loc, 0.0, np.inf)
        k = np.argmin(dist, axis=1)
        ok = np.isfinite(dist[rays, k])
        k = np.clip(k, 1, len(rr) - 2)
        gm, g0, gp = g[rays, k - 1], g[rays, k], g[rays, k + 1]
        den = gm - 2.0 * g0 + gp
        delta = np.zeros_like(den)
        nz = np.abs(den) > 1e-12
        delta[nz] = np.clip(0.5 * (gm[nz] - gp[nz]) / den[nz], -1.0, 1.0)
        rad = rr[k] + delta * step
        ex, ey = cx + rad * patch.dirs[:, 0], cy + rad * patch.dirs[:, 1]
        use = ok.copy()
        for _ in range(4):
            if use.sum() < 12:
                return None
            fx, fy, fr = _circle_fit(ex[use], ey[use])
            res = np.hypot(ex - fx, ey - fy) - fr
            mad = 1.4826 * float(median(np.abs(res[use]), axis=0)) + 1e-9
            use = ok & (np.abs(res) < 2.5 * mad)
        cx, cy, r = fx, fy, fr
    return cx, cy, r


def hole_log_sizes(frame_bgr: NDArray[np.uint8], view: BoardView, cells: list[Cell],
                   config: HoleSizeConfig | None = None) -> FloatArray:
    """Log diameter of each cell's bore as projected onto the board plane from the camera, in
    cell-ring diameters (nan where no circle was found); ``cells`` hold hollow pieces.

    The camera must be above the resampling plane (``PLANE_HEIGHT_M``)."""
    cfg = config or HoleSizeConfig()
    out = np.full(len(cells), np.nan)
    if not cells:
        return out
    cam_z = float(view.camera.pose.camera_center[2])
    if cam_z <= 2.0 * PLANE_HEIGHT_M:
        return out
    ring = view.spec.cell_diameter_m
    # To the plane: sizes on the board plane times (C - z) / C.
    plane = (cam_z - PLANE_HEIGHT_M) / cam_z
    lo, hi = (v * ring * plane for v in cfg.radius_range_rings)
    half = hi * 1.25 + cfg.max_offset_m
    patches, firsts = [], []
    radii = np.exp(np.linspace(math.log(lo), math.log(hi), 30))
    centres = [np.asarray(view.spec.cell_center(cell), np.float64)[:2] for cell in cells]
    grids = [_plane_points(view, centre, half, cfg.pixel_m) for centre in centres]
    light, corner = _lightness(frame_bgr, [points for points, _ in grids])
    for centre, (points, origin) in zip(centres, grids, strict=True):
        patch = _Patch(_rectified(light, corner, points), origin, cfg.pixel_m)
        patches.append((patch, centre))
        firsts.append(_coarse(patch, centre, radii, cfg.max_offset_m))
    median_r = float(np.median([f[3] for f in firsts]))
    radii = median_r * np.exp(np.linspace(-cfg.search_spread, cfg.search_spread, 24))
    for i, (patch, centre) in enumerate(patches):
        _, cx, cy, r = _coarse(patch, centre, radii, cfg.max_offset_m)
        fit = _refine(patch, cx, cy, r)
        if fit is None or abs(math.log(fit[2] / median_r)) > cfg.search_spread * 1.2:
            continue
        out[i] = math.log(2.0 * fit[2] / plane / ring)
    return out


def hole_height_evidence(frame_bgr: NDArray[np.uint8], view: BoardView,
                         odds: list[dict[str, float | None]], occ: list[float],
                         visible: list[float], config: HoleSizeConfig) -> FloatArray:
    """(16,) log-likelihood ratio of tall against short that the bores' sizes add to each
    cell (0 where not measured): ``board_height_evidence`` on the hollow pieces' bore sizes,
    each weighted by its fused P(tall), with the hole noise of ``config``."""
    n = len(odds)
    out = np.zeros(n)
    cells = view.cells
    sine = math.sin(math.radians(config.min_elevation_deg))
    centre = view.camera.pose.camera_center
    idx = []
    for i, (o, p, v) in enumerate(zip(odds, occ, visible, strict=True)):
        if p < 0.5 or v < config.min_visible or o.get("top") is None or o.get("height") is None:
            continue
        if float(o["top"] or 0.0) < config.min_hollow:
            continue
        c = np.array([*view.spec.cell_center(cells[i])[:2], 0.0])
        ray = centre - c
        if ray[2] / np.linalg.norm(ray) < sine:
            continue
        idx.append(i)
    if len(idx) < 2:
        return out
    sizes = hole_log_sizes(frame_bgr, view, [cells[i] for i in idx], config)
    ok = np.isfinite(sizes)
    if ok.sum() < 2:
        return out
    sel = [i for i, k in zip(idx, ok, strict=True) if k]
    out[sel] = hole_size_evidence(
        sizes[ok], np.array([float(odds[i].get("shape") or 0.0) >= 0.5 for i in sel]),
        np.array([float(odds[i]["height"] or 0.5) for i in sel]),
        camera_height_m=float(centre[2]), ring_diameter_m=view.spec.cell_diameter_m,
        config=config)
    return out


def hole_size_evidence(log_sizes: FloatArray, is_square: NDArray[np.bool_], p_tall: FloatArray,
                       *, camera_height_m: float, ring_diameter_m: float,
                       config: HoleSizeConfig) -> FloatArray:
    """(N,) log-likelihood ratio of tall against short for each measured bore
    (``hole_log_sizes``, all finite): the board-height model of ``vision.learn.board_heights``
    with the bores' noise, outliers and square/round ratio grid of ``config``, each other
    bore weighted by ``p_tall``."""
    model = BoardHeightConfig(size_noise=config.size_noise, outlier_rate=config.outlier_rate,
                              width_range=(0.40, 1.0),
                              square_ratio_steps=config.square_ratio_steps)
    return board_height_evidence(
        np.asarray(log_sizes, np.float64) - math.log(NOMINAL_HOLE_FRACTION),
        np.asarray(is_square, bool), np.asarray(p_tall, np.float64),
        np.ones(len(log_sizes), bool),
        camera_height_m=camera_height_m, ring_diameter_m=ring_diameter_m, config=model)
