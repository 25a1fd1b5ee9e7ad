"""Candidate cell rings: ellipses found in a grey image.

A board's 16 cell rings (printed lines, engraved grooves, recesses or discs) project to
ellipses of similar size and shape. This module finds closed or mostly closed elliptical
contours from three sources, so that every marking style gives at least one:

- thin lines brighter than their surroundings (gold rings on a dark board),
- thin lines darker than their surroundings (engraved rings on wood, disc borders),
- intensity edges (recess walls, discs, anything with a boundary).

Each contour is fitted with an ellipse and kept when its points lie close to the ellipse and
cover most of its angle (a piece standing in a ring hides part of it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate.config import LocateConfig

FloatArray = NDArray[np.float64]

_COVERAGE_BINS = 24
_MAX_FIT_POINTS = 160


@dataclass(frozen=True)
class Ellipse:
    """One candidate ring in work-image pixels.

    ``a`` and ``b`` are the semi-major and semi-minor axes, ``angle`` the direction of the major
    axis (radians), ``points`` the (N, 2) contour points it was fitted to, ``residual`` the
    median distance of the points from the ellipse as a share of the mean radius.
    """

    center: FloatArray
    a: float
    b: float
    angle: float
    points: FloatArray
    residual: float
    coverage: float
    #: 'circle' for rings and discs, 'square' for square cell outlines.
    shape: str = "circle"
    #: For squares: columns are the vectors from the centre to two adjacent edge midpoints.
    half_axes: FloatArray | None = None

    @property
    def ratio(self) -> float:
        return self.b / self.a

    def whitening(self) -> FloatArray:
        """2x2 matrix mapping image vectors to units where this ring is the unit circle
        (for a square cell: the square of half-side 1, axes along its sides)."""
        if self.half_axes is not None:
            return np.asarray(np.linalg.inv(self.half_axes), dtype=np.float64)
        c, s = math.cos(self.angle), math.sin(self.angle)
        rot_inv = np.array([[c, s], [-s, c]])
        return np.diag([1.0 / self.a, 1.0 / self.b]) @ rot_inv


def ring_masks(gray: NDArray[np.uint8], config: LocateConfig) -> list[NDArray[np.uint8]]:
    """Binary images whose contours may be rings: bright lines, dark lines and edges."""
    block = config.line_block_px
    # Smoothing removes the sensor-noise speckle that would otherwise form tiny loops.
    gray = cv2.GaussianBlur(gray, (0, 0), config.smooth_sigma_px)
    bright = cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -config.line_offset
    )
    dark = cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, config.line_offset
    )
    p10, p90 = _percentiles(gray, (10.0, 90.0))
    hi = p90 - p10
    edges = cv2.Canny(gray, max(8.0, 0.15 * hi), max(16.0, 0.4 * hi), L2gradient=True)
    return [bright, dark, edges]


def median(values: FloatArray) -> float:
    """``np.median`` of a 1-D array without NaNs (NaN when empty), by partial sorting (a
    fraction of its cost).

    With an even count the lower middle value is the largest of the values the partition
    puts before the upper one: the same two values ``np.median`` averages, found with one
    pivot instead of two (which costs numpy about 6x as much on the working image's
    gradients)."""
    n = len(values)
    if n == 0:
        return math.nan
    k = n // 2
    part = np.partition(values, k)
    if n % 2:
        return float(part[k])
    return float(0.5 * (part[:k].max() + part[k]))


def _percentiles(gray: NDArray[np.uint8], qs: tuple[float, ...]) -> list[float]:
    """``np.percentile`` (linear interpolation) of a uint8 image, from its histogram."""
    cum = np.cumsum(np.bincount(gray.ravel(), minlength=256))
    n = int(cum[-1])
    out = []
    for q in qs:
        pos = (n - 1) * q / 100.0
        lo = math.floor(pos)
        # Value of the k-th smallest pixel (0-based): the first level whose count exceeds k.
        v_lo = int(np.searchsorted(cum, lo, side="right"))
        v_hi = int(np.searchsorted(cum, min(lo + 1, n - 1), side="right"))
        out.append(v_lo + (pos - lo) * (v_hi - v_lo))
    return out


def fit_ellipse(points: FloatArray, config: LocateConfig) -> Ellipse | None:
    """Fit an ellipse to (N, 2) contour points; None when they are not a ring.

    Notes
    -----
    ``cv2.fitEllipse`` gives the algebraic fit. The points are then mapped to the ellipse's own
    frame, where a point on the ellipse has normalised radius 1; the median deviation from 1 is
    the residual and the share of occupied angle bins the coverage.
    """
    if len(points) < 12:
        return None
    if len(points) > _MAX_FIT_POINTS:
        # Every k-th pixel: the fit and its figures hardly change, the time does.
        points = points[:: -(-len(points) // _MAX_FIT_POINTS)]
    (cx, cy), (w, h), ang = cv2.fitEllipse(points.astype(np.float32))
    if not (np.isfinite(w) and np.isfinite(h)) or min(w, h) <= 1.0:
        return None
    a, b = max(w, h) / 2.0, min(w, h) / 2.0
    theta = math.radians(ang) + (0.0 if w >= h else math.pi / 2.0)
    if not config.min_ring_axis_px <= 2 * a <= config.max_ring_axis_px:
        return None
    if b / a < config.min_axis_ratio:
        return None
    c, s = math.cos(theta), math.sin(theta)
    d = points - np.array([cx, cy])
    # The points in the ellipse's frame, scaled so that the ellipse is the unit circle.
    xy = d @ np.array([[c / a, -s / b], [s / a, c / b]])
    x, y = xy[:, 0], xy[:, 1]
    r = np.sqrt(x * x + y * y)
    # Deviation in pixels along the radius (the point's distance from the centre times its
    # relative radial deviation), relative to the mean radius.
    scale = math.sqrt(a * b)
    dev_px = np.abs(r - 1.0) * np.sqrt((d * d).sum(axis=1)) / np.maximum(r, 1e-9)
    residual = median(dev_px) / scale
    if residual > max(config.max_fit_residual, config.min_residual_px / scale):
        return None
    bins = ((np.arctan2(y, x) + math.pi) / (2 * math.pi) * _COVERAGE_BINS).astype(np.int64)
    hist = np.bincount(np.clip(bins, 0, _COVERAGE_BINS - 1), minlength=_COVERAGE_BINS)
    coverage = int(np.count_nonzero(hist)) / _COVERAGE_BINS
    if coverage < config.min_angle_coverage:
        return None
    return Ellipse(np.array([cx, cy]), a, b, theta, points, residual, coverage)


def find_ellipses(gray: NDArray[np.uint8], config: LocateConfig) -> list[Ellipse]:
    """All ring-like ellipses in a grey work image, duplicates merged, best first.

    Parameters
    ----------
    gray : (H, W) uint8
        Grey image at work resolution.
    config : LocateConfig
        Size and shape limits.

    Returns
    -------
    list of Ellipse
        Sorted by fit quality (small residual, large coverage).

    Notes
    -----
    Connected components of each mask are filtered by their bounding box and pixel count
    (a ring line is a thin loop: few pixels for its box) before any fitting, which keeps the
    cost low on textured tables (wood grain gives thousands of tiny components). The regions
    a line or edge encloses are the holes of the mask (found by contour following), so the
    background is never labelled as a whole; a region open to the image border encloses
    nothing and is not a candidate.
    """
    if gray.ndim != 2 or gray.dtype != np.uint8:
        raise ValueError(f"gray must be a 2-D uint8 image, got {gray.dtype} {gray.shape}")
    found: list[Ellipse] = []
    for mask in ring_masks(gray, config):
        found.extend(_line_loops(mask, config))
        # Regions enclosed by a line or an edge: the inside of a ring, a disc.
        found.extend(_enclosed_regions(mask, config))
    return merge_duplicates(found, config)


def _box_filter(stats: NDArray[np.int32], config: LocateConfig) -> NDArray[np.bool_]:
    w = stats[:, cv2.CC_STAT_WIDTH].astype(np.float64)
    h = stats[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    big, small = np.maximum(w, h), np.minimum(w, h)
    ok = (big >= config.min_ring_axis_px) & (big <= config.max_ring_axis_px)
    ok &= small >= 0.9 * config.min_axis_ratio * big
    ok[0] = False
    return ok


def _line_loops(mask: NDArray[np.uint8], config: LocateConfig) -> list[Ellipse]:
    """Ellipses fitted to the pixels of thin loop-shaped components (ring lines)."""
    # Grana's block-based labelling: the fastest of OpenCV's 8-connected algorithms here.
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    w = stats[:, cv2.CC_STAT_WIDTH].astype(np.float64)
    h = stats[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    # A ring line covers most of the perimeter of the ellipse inscribed in its box, thinly.
    perim = math.pi * (w + h) / 2.0
    ok = _box_filter(stats, config)
    ok &= (area >= 0.5 * config.min_angle_coverage * perim) & (area <= 0.45 * w * h)
    out = []
    for k in np.flatnonzero(ok):
        x0, y0 = int(stats[k, cv2.CC_STAT_LEFT]), int(stats[k, cv2.CC_STAT_TOP])
        ys, xs = np.nonzero(labels[y0 : y0 + int(h[k]), x0 : x0 + int(w[k])] == k)
        ell = fit_ellipse(np.column_stack([xs + float(x0), ys + float(y0)]), config)
        if ell is not None:
            out.append(ell)
    return out


def _enclosed_regions(mask: NDArray[np.uint8], config: LocateConfig) -> list[Ellipse]:
    """Ellipses fitted to the outlines of filled, ellipse-sized regions enclosed by ``mask``.

    Notes
    -----
    The regions are the 4-connected components of the mask's background that do not touch
    the image border: exactly the holes of its 8-connected foreground, which contour
    following lists at a fraction of the cost of labelling the whole background. Each hole
    that might be ring-sized is then labelled alone, inside its own bounding box.
    """
    cnts, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    inverse = cv2.bitwise_not(mask)
    out = []
    lo, hi = config.min_ring_axis_px, config.max_ring_axis_px
    for cnt, link in zip(cnts, hier[0], strict=True):
        if link[3] < 0:
            continue  # an outer boundary, not a hole
        bx, by, bw, bh = cv2.boundingRect(cnt)
        # The hole lies inside its border pixels' box, one pixel in on every side.
        if not lo <= max(bw, bh) - 2 <= hi or min(bw, bh) < 3:
            continue
        crop = inverse[by : by + bh, bx : bx + bw]
        _, labels, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=4)
        inner = ((stats[:, cv2.CC_STAT_LEFT] > 0) & (stats[:, cv2.CC_STAT_TOP] > 0)
                 & (stats[:, cv2.CC_STAT_LEFT] + stats[:, cv2.CC_STAT_WIDTH] < bw)
                 & (stats[:, cv2.CC_STAT_TOP] + stats[:, cv2.CC_STAT_HEIGHT] < bh))
        inner[0] = False
        if not inner.any():
            continue
        # The hole itself: the largest background component inside the border (smaller
        # ones are holes of islands standing in it).
        k = int(np.flatnonzero(inner)[np.argmax(stats[inner, cv2.CC_STAT_AREA])])
        st = stats[k : k + 1].copy()
        st[0, cv2.CC_STAT_LEFT] += bx
        st[0, cv2.CC_STAT_TOP] += by
        out.extend(_region_ellipses(labels == k, st, (bx, by), config))
    return out


def _region_ellipses(region: NDArray[np.bool_], stats: NDArray[np.int32],
                     origin: tuple[int, int], config: LocateConfig) -> list[Ellipse]:
    """The ellipse (or square cell) of one filled region, when its box and fill fit one."""
    w = float(stats[0, cv2.CC_STAT_WIDTH])
    h = float(stats[0, cv2.CC_STAT_HEIGHT])
    fill = float(stats[0, cv2.CC_STAT_AREA]) / max(w * h, 1.0)
    # A filled ellipse fills pi/4 of its box when axis-aligned, about half when tilted; a
    # square cell up to all of it.
    ok = _box_filter(np.vstack([stats, stats]), config)[1] and 0.45 < fill < 0.97
    if not ok:
        return []
    cnts, _ = cv2.findContours(region.astype(np.uint8), cv2.RETR_EXTERNAL,
                               cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return []
    pts = max(cnts, key=len).reshape(-1, 2).astype(np.float64) + np.array(origin)
    ell = fit_ellipse(pts, config)
    if ell is None:
        ell = fit_square(pts, config)
    return [] if ell is None else [ell]


def fit_square(points: FloatArray, config: LocateConfig) -> Ellipse | None:
    """A square cell outline seen in perspective: a convex quadrilateral contour.

    The centre is where the diagonals cross (the image of the square's centre); the half-axes
    run from it to two adjacent edge midpoints, which is the local affine view of the cell.
    """
    cnt = points.astype(np.float32).reshape(-1, 1, 2)
    peri = cv2.arcLength(cnt, True)
    quad = cv2.approxPolyDP(cnt, config.quad_epsilon * peri, True).reshape(-1, 2)
    if len(quad) != 4 or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    q = quad.astype(np.float64)
    # Diagonal intersection.
    d1, d2 = q[2] - q[0], q[3] - q[1]
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((q[1][0] - q[0][0]) * d2[1] - (q[1][1] - q[0][1]) * d2[0]) / den
    centre = q[0] + t * d1
    u = (q[1] + q[2] - q[0] - q[3]) / 4.0
    v = (q[2] + q[3] - q[0] - q[1]) / 4.0
    lu, lv = float(np.hypot(*u)), float(np.hypot(*v))
    area = abs(u[0] * v[1] - u[1] * v[0])
    a = max(lu, lv)
    b = area / a if a > 0 else 0.0
    if not config.min_ring_axis_px <= 2 * a <= config.max_ring_axis_px:
        return None
    if b / a < config.min_axis_ratio or min(lu, lv) / a < config.min_axis_ratio:
        return None
    # Straightness: contour points close to the quadrilateral's sides.
    residual = median(_distance_to_polygon(points[::3], q)) / math.sqrt(area)
    if residual > config.max_fit_residual:
        return None
    return Ellipse(centre, a, b, math.atan2(u[1], u[0]), points, residual, 1.0, "square",
                   np.column_stack([u, v]))


def _distance_to_polygon(points: FloatArray, poly: FloatArray) -> FloatArray:
    """(N,) distance of each point from the nearest side of a closed polygon (K, 2)."""
    a = poly[None, :, :]
    ab = np.roll(poly, -1, axis=0)[None, :, :] - a
    ap = points[:, None, :] - a
    t = np.clip((ap * ab).sum(axis=2) / np.maximum((ab * ab).sum(axis=2), 1e-12), 0.0, 1.0)
    d = ap - t[:, :, None] * ab
    return np.asarray(np.sqrt((d * d).sum(axis=2)).min(axis=1), dtype=np.float64)


def merge_duplicates(ellipses: list[Ellipse], config: LocateConfig) -> list[Ellipse]:
    """Keep the best of ellipses sharing a centre and a size (inner/outer edge of one line),
    at most ``config.max_candidates`` of them, best first."""
    order = sorted(ellipses, key=lambda e: e.residual - 0.05 * e.coverage)
    if not order:
        return []
    centers = np.array([e.center for e in order])
    axes = np.array([e.a for e in order])
    square = np.array([e.shape == "square" for e in order])
    alive = np.ones(len(order), dtype=bool)
    kept: list[Ellipse] = []
    for i, e in enumerate(order):
        if not alive[i]:
            continue
        kept.append(e)
        if len(kept) >= config.max_candidates:
            break
        size = axes / e.a
        near = np.hypot(*(centers - e.center).T) < config.duplicate_dist * e.a
        alive &= ~(near & (size > 0.7) & (size < 1.43) & (square == (e.shape == "square")))
    return kept
