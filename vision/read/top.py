"""The top face: hole (hollow/solid) and outline (round/square), read on the plane z = h.

Once a piece's height ``h`` is known, the plane ``z = h`` maps to the image by a homography, so
the top face is resampled on a metric grid (``n x n`` points over +-0.8 F around the cell's
axis): it appears undistorted - a disc of diameter F or a square of side about 0.9 F - from any
viewing angle, only with less resolution when the view is oblique. On that grid each point is
scored for looking like the top (its colour against the top's own colour), and templates of the
two outlines are matched:

- round: a disc of radius 0.5 F; square: a square of half-side 0.45 F at 12 orientations (a
  square piece may stand at any angle to the camera);
- every template is tried at small offsets (pieces stand a few millimetres off centre); the
  score is the mean top-likeness inside the outline minus the mean just outside it, so a
  square's corners count for "square" and a disc's clean round edge for "round";
- the centre (r < 0.36 F) is ignored by the templates: it is the hole of a hollow piece. The
  hole is read there: the centre of a hollow top is a shadowed pit, darker than its rim.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.geometry import CellFrames, circle_points, project_grid, top_plane_grid
from vision.read.sampling import LabPatch, lab_distance
from vision.read.stats import median

FloatArray = NDArray[np.float64]

#: Grid of the top patch: points per side, half-extent in F, offsets searched (grid steps).
_N = 21
_HALF_F = 0.8
_SHIFT = 2
#: Outline templates, in F: disc radius, square half-side, edge band width, hole radius.
_DISC_R = 0.5
_SQUARE_H = 0.45
_BAND = 0.18
_HOLE_R = 0.36
_YAWS = np.radians(np.arange(0.0, 90.0, 10.0))
#: Template sizes relative to the nominal ones.
_SIZES = (0.85, 0.95, 1.05)
#: Hole evidence = _W_DARK * (centre's darkening, share of the top's L + 10) + (spread of the
#: lightness around the inner wall at _WALL_R, in 2 % of the top's L + 10) / _SPREAD_UNIT.
_WALL_R = 0.24
_W_DARK = 5.0
_SPREAD_UNIT = 3.0
#: Lab contrast between a top and its surroundings at which an outline fit counts half.
_CONTRAST_HALF = 10.0


@dataclass(frozen=True)
class TopFeatures:
    """Per-cell top-face measurements (16,): ``hole_darkening`` is the lightness drop of the
    centre relative to the top's rim (share of the rim's lightness); ``squareness`` is the best
    square template's score minus the best disc's; ``top_lab`` is the (16, 3) top colour."""

    hole_darkening: FloatArray
    squareness: FloatArray
    top_lab: NDArray[np.float32]
    outline_fit: FloatArray | None = None  # (16,) best template score: how top-like the plane is


def _templates() -> tuple[FloatArray, NDArray[np.bool_], int]:
    """(T, n, n) weights of the outline templates and the (n, n) hole mask; the first
    ``n_discs`` templates are discs, the rest squares. Weights: +1/area inside (outside the
    hole), -1/area in the outer band. Three sizes each: the set's footprint is only known to
    about 10 %, and a square's side is 0.8-1.0 of a round piece's diameter."""
    u = np.linspace(-_HALF_F, _HALF_F, _N)
    x, y = np.meshgrid(u, u, indexing="ij")
    r = np.hypot(x, y)
    dists = [r - _DISC_R * k for k in _SIZES]
    for k in _SIZES:
        for a in _YAWS:
            xr = np.abs(x * np.cos(a) + y * np.sin(a))
            yr = np.abs(-x * np.sin(a) + y * np.cos(a))
            dists.append(np.maximum(xr, yr) - _SQUARE_H * k)
    out = []
    for d in dists:
        inside = (d < 0) & (r > _HOLE_R)
        band = (d >= 0.04) & (d < _BAND)
        out.append(inside / max(inside.sum(), 1) - band / max(band.sum(), 1))
    return np.array(out), (r < 0.12), len(_SIZES)


_TEMPLATES, _HOLE_MASK, _N_DISCS = _templates()


def _coarse_templates() -> tuple[FloatArray, NDArray[np.bool_], NDArray[np.bool_]]:
    """Templates of :func:`outline_fit_profile`: a disc and a square along and across the
    away direction on a 15 x 15 grid, and the band / far masks of the 17 x 17 sampled grid."""
    n, shift = _COARSE_N, _COARSE_SHIFT
    step = 2.0 * _HALF_F / (n - 1)
    n_big = n + 2 * shift
    u = np.linspace(-1.0, 1.0, n_big) * (_HALF_F + shift * step)
    r = np.hypot(u[:, None], u[None, :])
    x, y = np.meshgrid(u[shift:-shift], u[shift:-shift], indexing="ij")
    rr = np.hypot(x, y)
    temps = []
    for d in (rr - _DISC_R, np.maximum(np.abs(x), np.abs(y)) - _SQUARE_H,
              (np.abs(x) + np.abs(y)) / np.sqrt(2.0) - _SQUARE_H):
        inside = (d < 0) & (rr > _HOLE_R)
        ring = (d >= 0.04) & (d < _BAND)
        temps.append(inside / max(inside.sum(), 1) - ring / max(ring.sum(), 1))
    return np.array(temps), (r > 0.33) & (r < 0.44), r > 0.75


def _correlate(image: NDArray[np.float32], templates: FloatArray) -> NDArray[np.float32]:
    """Valid correlation of (..., m, m) images with (T, n, n) templates: (..., s, s, T) with
    s = m - n + 1, one small matrix product per offset (much faster than an einsum over a
    strided window view)."""
    t = templates.reshape(len(templates), -1).T.astype(np.float32)  # (n*n, T)
    n = templates.shape[-1]
    m = image.shape[-1]
    s = m - n + 1
    lead = image.shape[:-2]
    out = np.empty((*lead, s, s, len(templates)), dtype=np.float32)
    for dy in range(s):
        for dx in range(s):
            win = np.ascontiguousarray(image[..., dy : dy + n, dx : dx + n]).reshape(-1, n * n)
            out[..., dy, dx, :] = (win @ t).reshape(*lead, len(templates))
    return out


_COARSE_N = 15
_COARSE_SHIFT = 1
_COARSE_TEMPLATES, _COARSE_BAND, _COARSE_FAR = _coarse_templates()
_COARSE_BAND_INDEX = np.flatnonzero(_COARSE_BAND)
_COARSE_FAR_INDEX = np.flatnonzero(_COARSE_FAR)


def outline_fit_profile(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray
) -> FloatArray:
    """(16, K) how well a top outline (disc, or square along or across the away direction) fits
    the plane ``z = heights_m[k]`` (``heights_m`` is (K,), or (16, K) per cell): high only at
    the height of a piece's top face, where the top appears as a crisp shape of the expected
    size and stands out from its surroundings. A coarser, faster cousin of
    :func:`top_features` used to fit the set's heights. All heights are sampled at once."""
    f = frames.footprint_m
    n, shift = _COARSE_N, _COARSE_SHIFT
    step = 2.0 * _HALF_F * f / (n - 1)
    n_big = n + 2 * shift
    h = np.asarray(heights_m, dtype=np.float64)
    if h.ndim == 1:
        h = np.broadcast_to(h, (16, len(h)))
    grid0 = top_plane_grid(frames, np.zeros(16), _HALF_F * f + shift * step, n_big)
    # grid0 lifted to every height: x and y plus 0.0 (as adding h * (0, 0, 1) does), z plus h.
    grid = np.empty((16, h.shape[1], n_big * n_big, 3))
    grid[:] = (grid0 + 0.0).reshape(16, 1, n_big * n_big, 3)
    grid[..., 2] += h[:, :, None]
    vals, _ = patch.sample(project_grid(view, grid))
    vals = vals.reshape(16, h.shape[1], n_big, n_big, 3)
    # The band's and the far ring's samples gathered, channels first (contiguous lanes).
    flat = vals.reshape(16, h.shape[1], n_big * n_big, 3)
    top = median(_lanes(flat, _COARSE_BAND_INDEX), axis=-1)  # (16, K, 3)
    far = median(_lanes(flat, _COARSE_FAR_INDEX), axis=-1)
    contrast = lab_distance(top, far)
    scale = np.maximum(0.5 * contrast, 6.0)
    like = np.exp(-0.5 * (lab_distance(vals, top[:, :, None, None, :])
                          / scale[:, :, None, None]) ** 2).astype(np.float32, copy=False)
    fit = _correlate(like, _COARSE_TEMPLATES).reshape(16, h.shape[1], -1).max(axis=2)
    # A top must also stand out from its surroundings: weigh by the top/far contrast.
    return np.asarray(fit * contrast / (contrast + _CONTRAST_HALF))


def top_footprint(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray,
    cells: NDArray[np.bool_], scales: tuple[float, ...],
    pool: Callable[[FloatArray], FloatArray] | None = None,
) -> float | None:
    """The set's footprint width F measured from its pieces' top outlines: the scale of
    ``frames.footprint_m`` (one of ``scales``) whose disc or square templates best fit the
    tops of the pieces ``cells`` at their heights ``heights_m``, summed over those pieces
    (``pool``: their sums pooled over readings, ``SetMemory.pool``). None without a piece.

    From straight above the side profiles that fit F for the height search do not change
    with F (they sit at the search's edge), but the top is seen whole and undistorted: a
    template smaller than the top leaves top colour in its outer band, a larger one takes
    the surroundings inside, so the fit peaks at the top's own size (a disc of F, a square
    of 0.9 F)."""
    if not np.any(cells):
        return None
    h = np.asarray(heights_m, np.float64)[:, None]
    fits = np.array([
        outline_fit_profile(view, replace(frames, footprint_m=frames.footprint_m * s), patch,
                            h)[cells, 0].sum()
        for s in scales])
    if pool is not None:
        fits = pool(fits)
    return float(frames.footprint_m * scales[int(np.argmax(fits))])


def top_outline_offsets(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray,
    angles_rad: FloatArray,
) -> FloatArray:
    """(16, J, 3) horizontal vectors from each cell's axis to the edge of its piece's top
    outline in the directions ``angles_rad`` (from ``away`` towards ``side``): the outline
    template (disc, or square at its yaw; size and offset included) of :func:`top_features`
    that fits the top at ``heights_m[i]`` best. A vertical piece's side lies under that edge,
    so points on it below the top are on the side face, whatever the piece's width."""
    f = frames.footprint_m
    grid, r = _top_grid(frames, heights_m)
    n_big = r.shape[0]
    vals, _ = patch.sample(project_grid(view, grid))
    samples = vals.reshape(16, n_big * n_big, 3)
    top = median(_lanes(samples, np.flatnonzero(_colour_band(r))), axis=-1)
    far = median(_lanes(samples, np.flatnonzero(r > 0.75)), axis=-1)
    scale = np.maximum(0.5 * lab_distance(top, far), 6.0)
    like = np.exp(-0.5 * (lab_distance(vals, top[:, None, None, :]) / scale[:, None, None]) ** 2)
    shifts = like.shape[1] - _N + 1
    flat = _correlate(like.astype(np.float32), _TEMPLATES).reshape(16, shifts * shifts, -1)
    best = np.argmax(flat.reshape(16, -1), axis=1)
    offset, template = np.unravel_index(best, flat.shape[1:])
    sy, sx = np.unravel_index(offset, (shifts, shifts))
    step = 2.0 * _HALF_F * f / (_N - 1)
    centre = (((sy - _SHIFT) * step)[:, None] * frames.away
              + ((sx - _SHIFT) * step)[:, None] * frames.side)  # (16, 3)
    a = np.asarray(angles_rad, np.float64)
    n_sq = len(_YAWS)
    size = np.asarray(_SIZES)[np.where(template < _N_DISCS, template,
                                       (template - _N_DISCS) // n_sq)]
    yaw = _YAWS[np.where(template < _N_DISCS, 0, (template - _N_DISCS) % n_sq)]
    rel = a[None, :] - yaw[:, None]
    square = _SQUARE_H * size[:, None] / np.maximum(np.abs(np.cos(rel)), np.abs(np.sin(rel)))
    radius = f * np.where((template < _N_DISCS)[:, None], _DISC_R * size[:, None], square)
    direction = (np.cos(a)[None, :, None] * frames.away[:, None, :]
                 + np.sin(a)[None, :, None] * frames.side[:, None, :])  # (16, J, 3)
    # The edge itself, direction by direction: the template's size is known to 10 % (and a
    # square's corners are rounded), so each ray is walked outward from 0.8 of the template's
    # radius to where the plane stops looking like the top, judged more strictly than for
    # the outline (a dark top's own side is far more like it than the board is).
    t = np.linspace(0.8, 1.2, 9)
    along = (centre[:, None, None, :]
             + (radius[:, :, None, None] * t[None, None, :, None]) * direction[:, :, None, :])
    along = along + frames.centers_m[:, None, None, :]
    along[..., 2] = np.asarray(heights_m, np.float64)[:, None, None]
    ray, _ = patch.sample(project_grid(view, along))  # (16, J, T, 3)
    strict = np.maximum(0.5 * scale, 6.0)
    like_ray = np.exp(-0.5 * (lab_distance(ray, top[:, None, None, :])
                              / strict[:, None, None]) ** 2)
    inside = like_ray >= 0.5
    # the first sample past 0.8 that is unlike the top (the ray starts inside the top)
    out = np.argmax(~inside, axis=2)
    found = inside[:, :, 0] & (~inside).any(axis=2)
    edge_t = np.where(found, 0.5 * (t[np.maximum(out - 1, 0)] + t[out]), 1.0)
    return np.asarray(centre[:, None, :] + (radius * edge_t)[:, :, None] * direction)


def _lanes(samples: NDArray[np.float32], index: NDArray[np.intp]) -> NDArray[np.float32]:
    """(..., 3, len(index)) contiguous: the samples ``index`` of (..., P, 3) Lab samples."""
    return np.ascontiguousarray(np.take(samples, index, axis=-2).swapaxes(-1, -2))


def _top_grid(frames: CellFrames, heights_m: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The top patch's (16, n, n, 3) metric grid on each cell's plane ``z = heights_m[i]``
    (the templates' offsets included) and each grid point's (n, n) distance from the axis, in F."""
    f = frames.footprint_m
    step = 2.0 * _HALF_F * f / (_N - 1)
    n_big = _N + 2 * _SHIFT
    grid = top_plane_grid(frames, heights_m, _HALF_F * f + _SHIFT * step, n_big)
    u = np.linspace(-1.0, 1.0, n_big) * (_HALF_F + _SHIFT * step / f)
    return grid, np.hypot(u[:, None], u[None, :])


def _colour_band(r: FloatArray) -> NDArray[np.bool_]:
    """The ring of the top patch whose median is the top's colour (``TopFeatures.top_lab``):
    inside every outline, outside a hollow piece's hole."""
    return np.asarray((r > 0.33) & (r < 0.44))


def top_colour_points(view: BoardView, frames: CellFrames, heights_m: FloatArray) -> FloatArray:
    """(16, P, 2) image points whose median colour is each cell's ``TopFeatures.top_lab``
    (the top of a piece of height ``heights_m[i]``)."""
    grid, r = _top_grid(frames, heights_m)
    band = _colour_band(r)
    return project_grid(view, grid[:, band])


def top_features(
    view: BoardView, frames: CellFrames, patch: LabPatch, heights_m: FloatArray, *,
    middle_wall_spread: bool = False, wall_glint_samples: int = 0,
    wall_glint_from: float = 0.0,
) -> TopFeatures:
    """Measure the top face of a piece of height ``heights_m[i]`` on every cell
    (``middle_wall_spread``: the wall's spread from the middle half of its samples,
    ``ReaderConfig.hole_wall_middle_spread``; ``wall_glint_samples``: a hole score past
    ``wall_glint_from`` is taken again with the ring's brightest few samples capped,
    ``ReaderConfig.hole_wall_glint_samples``)."""
    f = frames.footprint_m
    grid, r = _top_grid(frames, heights_m)
    n_big = r.shape[0]
    vals, _ = patch.sample(project_grid(view, grid))  # (16, n_big, n_big, 3)
    band = _colour_band(r)
    samples = vals.reshape(16, n_big * n_big, 3)
    top = median(_lanes(samples, np.flatnonzero(band)), axis=-1)  # (16, 3)
    # Top-likeness: 1 at the top's colour, falling off over a distance set by the contrast
    # between the top and the far surroundings (so dim and bright scenes behave alike).
    far = median(_lanes(samples, np.flatnonzero(r > 0.75)), axis=-1)
    scale = np.maximum(0.5 * lab_distance(top, far), 6.0)
    like = np.exp(-0.5 * (lab_distance(vals, top[:, None, None, :]) / scale[:, None, None]) ** 2)
    shifts = like.shape[1] - _N + 1
    flat = _correlate(like.astype(np.float32), _TEMPLATES).reshape(16, shifts * shifts, -1)
    disc = flat[:, :, :_N_DISCS].max(axis=(1, 2))
    square = flat[:, :, _N_DISCS:].max(axis=(1, 2))
    # Hole at the offset the outline fits best.
    best = np.argmax(flat.max(axis=2), axis=1)
    sy, sx = np.unravel_index(best, (shifts, shifts))
    hole_y, hole_x = np.nonzero(_HOLE_MASK)
    centre = median(vals[np.arange(16)[:, None], sy[:, None] + hole_y, sx[:, None] + hole_x, 0],
                    axis=1).astype(np.float64)
    top_l = top[:, 0].astype(np.float64)
    dark = (top_l - centre) / (top_l + 10.0)
    # The hole's inner wall (a ring at 0.24 F around the fitted centre): one side faces the
    # light, the other is in shadow, so its lightness varies around the ring; a solid top's
    # does not. Lit from straight above, the pit's floor may not be dark at all.
    step = 2.0 * _HALF_F * f / (_N - 1)
    off = (((sy - _SHIFT) * step)[:, None] * frames.away
           + ((sx - _SHIFT) * step)[:, None] * frames.side)
    ring_a = np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False)
    ring = circle_points(frames, _WALL_R * f, heights_m[:, None], ring_a)[:, 0] + off[:, None, :]
    wall, _ = patch.sample(project_grid(view, ring))
    hole = hole_score(dark, wall[..., 0], top[:, 0], middle=middle_wall_spread,
                      glint=wall_glint_samples, glint_from=wall_glint_from)
    return TopFeatures(hole, (square - disc).astype(np.float64), top.astype(np.float32),
                       np.maximum(square, disc).astype(np.float64))


def hole_score(
    dark: FloatArray, wall: NDArray[np.floating], top_l: NDArray[np.floating], *,
    middle: bool = False, glint: int = 0, glint_from: float = 0.0,
) -> FloatArray:
    """The hole evidence of each top: ``_W_DARK`` times the centre's darkening ``dark`` plus
    the inner wall's lightness spread (``wall``: the ring's samples, last axis) in 2 % of the
    top's lightness ``top_l`` + 10, per ``_SPREAD_UNIT``. With ``glint`` > 0 a score past
    ``glint_from`` is taken again with the ring's ``glint`` brightest samples lowered to the
    next brightest (:func:`wall_spread`) and the lower kept: a score past the hollow range
    must stand without a glint, which is bright and small, while a lit pit wall is broad
    (``ReaderConfig.hole_wall_glint_samples``, ``hole_wall_glint_from``)."""
    spread = 50.0 * wall_spread(wall, middle=middle) / (top_l + 10.0)
    hole = _W_DARK * dark + spread / _SPREAD_UNIT
    if glint > 0:
        spread = 50.0 * wall_spread(wall, middle=middle, glint=glint) / (top_l + 10.0)
        capped = _W_DARK * dark + spread / _SPREAD_UNIT
        hole = np.where(hole > glint_from, np.minimum(hole, capped), hole)
    return np.asarray(hole, np.float64)


def wall_spread(lightness: NDArray[np.floating], *, middle: bool = False,
                glint: int = 0) -> FloatArray:
    """The spread of the lightness around each ring of inner-wall samples (last axis): the
    standard deviation, or (``middle``) the interquartile range as one (/ 1.349). A pit's
    wall is lit along about half its ring and shadowed along the rest, which both count; a
    glint on a glossy rim lights two or three samples of sixteen, which only the first
    counts (``ReaderConfig.hole_wall_middle_spread``). With ``glint`` > 0 the ``glint``
    brightest samples of each ring are first lowered to the next brightest one
    (``ReaderConfig.hole_wall_glint_samples``): a highlight that narrow is no lit wall,
    while a pit's lit half-ring and its shadowed side keep their spread."""
    values = np.asarray(lightness, np.float64)
    if glint > 0:
        n = values.shape[-1]
        if glint >= n:
            raise ValueError(f"glint {glint} must be fewer than the ring's {n} samples")
        cap = np.partition(values, n - 1 - glint, axis=-1)[..., n - 1 - glint]
        values = np.minimum(values, cap[..., None])
    if not middle:
        return np.asarray(np.std(values, axis=-1), np.float64)
    q1, q3 = np.percentile(values, [25.0, 75.0], axis=-1)
    return np.asarray((q3 - q1) / 1.349, np.float64)
