"""The cell reader: a frame plus a ``BoardView`` in, an ``Observation`` out.

Steps (each in its own module):

1. ``geometry``: local frame of every cell; ``sampling``: Lab colours of the board's region.
2. ``silhouette``: for every candidate height (and footprint size), contrast across the
   predicted top rim and sides; ``top.outline_fit_profile``: how well a top outline fits the
   plane at that height.
3. ``appearance``: footprint colour vs the bare board, plus the outline evidence -> occupancy,
   walking the cells from the camera outwards (``visibility``: nearer pieces hide farther
   ones, so hidden evidence is void).
4. ``heights``: the set's two heights fitted to all pieces at once, then refined; each piece
   picks short or tall.
5. ``top``: hole and outline (round/square) read on the rectified plane of the top face;
   ``appearance``: light/dark split relative to the other pieces and the board.
6. ``decode``: distinct pieces assigned jointly, unknown attributes kept unknown.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.io import check_frame
from vision.read.appearance import (
    BODY_ANGLES,
    CellColours,
    best_split,
    body_colour,
    cell_colours,
    dark_probability,
)
from vision.read.config import ReaderConfig
from vision.read.decode import decode_pieces
from vision.read.geometry import CellFrames, cell_frames, circle_points, project_grid
from vision.read.heights import HeightFit, SetMemory, fit_heights
from vision.read.observation import CellReading, Observation
from vision.read.sampling import LabPatch, lab_patch
from vision.read.silhouette import HeightProfiles, height_profiles
from vision.read.stats import median
from vision.read.top import (
    TopFeatures,
    outline_fit_profile,
    top_features,
    top_footprint,
    top_outline_offsets,
)
from vision.read.visibility import OcclusionMask
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES

log = logging.getLogger(__name__)

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class CellFeatures:
    """Everything measured on one frame, before decisions (kept for evaluation and tuning)."""

    frames: CellFrames
    profiles: HeightProfiles
    colours: CellColours
    height_m: FloatArray
    occupied_probability: FloatArray
    visible: FloatArray
    top_visible: FloatArray
    top: TopFeatures
    patch: LabPatch
    heights: HeightFit
    colour_distance: FloatArray
    outline_max: FloatArray
    #: (16, 3) Lab colour of the near face of each cell's piece at its fitted height
    #: (``appearance.body_colour``); the top's colour is ``top.top_lab``.
    side_lab: FloatArray
    #: The occlusion silhouettes of the pieces at ``height_m`` on ``frames``
    #: (``OcclusionMask.polygons``), for later masks of the same pieces.
    silhouettes: Mapping[tuple[int, float], NDArray[np.int32]] | None = None
    #: (16, 5, 3) where the near-side samples of ``side_lab`` stand, as horizontal vectors
    #: from each cell's axis (``appearance.body_colour_points``; None: 0.42 F on every cell;
    #: ``ReaderConfig.side_top_footprint_min_elevation_deg``).
    side_offsets_m: FloatArray | None = None


def _logistic(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0))))


def measure_cells(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ReaderConfig | None = None,
    *, memory: SetMemory | None = None, known_tall: FloatArray | None = None,
) -> CellFeatures:
    """Measure occupancy, height, visibility and top-face evidence on every cell.

    Cells are visited from the camera outwards: a cell's evidence only uses image points that
    no nearer piece (already decided) stands in front of, and its own piece, once decided, is
    added to the occlusion mask for the cells behind it. With a ``memory`` (``watch``: one
    per session, ``vision.read.heights.SetMemory``), the set's footprint size, two heights
    and their finer scales are chosen on the scores of every reading so far, not this
    frame's alone. ``known_tall`` (16,): 1 / 0 for a piece known to be tall / short, NaN
    elsewhere (``watch``: the game record); the set's two heights are fitted with those
    pieces at their known heights (``vision.read.heights.fit_heights``).
    """
    config = config or ReaderConfig()
    check_frame(frame_bgr)
    frames = cell_frames(view, config.footprint_frac_of_ring)
    f = frames.footprint_m
    # Region that can hold the board and the tallest piece on any cell.
    pts = np.vstack([
        view.corners_px(),
        view.cell_centers_px(config.max_height_f * f * 1.2),
    ])
    x0, y0 = pts.min(axis=0) - np.max(frames.footprint_px)
    x1, y1 = pts.max(axis=0) + np.max(frames.footprint_px)
    f_px = float(median(frames.footprint_px, axis=0))
    patch = lab_patch(frame_bgr, (x0, y0, x1, y1), config.blur_f * f_px,
                      scale=config.max_footprint_px / max(f_px, 1e-6))
    scaled = [dataclasses.replace(frames, footprint_m=f * s) for s in config.footprint_scales]
    # Occupancy masks use the nominal-size hypothesis (the scale nearest 1).
    nominal = int(np.argmin(np.abs(np.log(np.asarray(config.footprint_scales)))))
    profiles = height_profiles(view, scaled[nominal], patch, config)
    score = profiles.score()
    colours = cell_colours(view, frames, patch)
    coarse = np.geomspace(profiles.heights_m[0], profiles.heights_m[-1], config.n_outline_heights)
    outline_nominal = outline_fit_profile(view, frames, patch, coarse)
    # Where each candidate top's centre appears: evidence hidden behind nearer pieces is void.
    top_centres = view.project(
        (frames.centers_m[:, None, :] + coarse[None, :, None] * np.array([0.0, 0.0, 1.0]))
        .reshape(-1, 3)).reshape(16, len(coarse), 2)
    # Pass 1: occupancy with every nearer piece at its own best height, kept within the
    # typical range (the set's heights are not known yet).
    own = np.array([np.interp(profiles.heights_m, coarse, o) for o in outline_nominal])
    own_best = profiles.heights_m[np.argmax(score + config.outline_weight * own, axis=1)]
    short = np.clip(own_best, config.typical_short_f * f, config.typical_tall_f * f)
    occupied_p, colour_d, visible, outline_max = _occupancy_pass(
        view, frames, colours, outline_nominal, top_centres, short, config)
    occupied = occupied_p >= config.occupied_probability
    taking_part = occupied & (visible >= 0.5)
    # The footprint size is only searched when enough pieces vouch for it (and only those
    # readings' scores are pooled for it, so every size's sum holds the same readings).
    if memory is not None:
        memory.begin(np.packbits(taking_part).tobytes())
    search = np.count_nonzero(taking_part) >= config.min_pieces_for_size
    size_memory = memory if search else None
    fit = fit_heights(score, profiles.heights_m, taking_part, scaled[nominal].footprint_m,
                      config, size_memory, ("size",), known_tall)
    frames = scaled[nominal]
    if search:
        for k, frames_s in enumerate(scaled):
            if k == nominal:
                continue
            profiles_s = height_profiles(view, frames_s, patch, config)
            fit_s = fit_heights(profiles_s.score(), profiles_s.heights_m, taking_part,
                                frames_s.footprint_m, config, size_memory, ("size",), known_tall)
            if fit_s.support > fit.support:
                fit, frames, profiles = fit_s, frames_s, profiles_s
    # Refine with the top-outline evidence at the chosen footprint size.
    outline = outline_fit_profile(view, frames, patch, coarse)
    outline_k = np.array([np.interp(profiles.heights_m, coarse, o) for o in outline])
    combined = profiles.score() + config.outline_weight * outline_k
    fit = fit_heights(combined, profiles.heights_m, taking_part, frames.footprint_m, config,
                      memory, ("combined",), known_tall)
    f = frames.footprint_m
    fit = _refine_heights(view, frames, patch, fit, taking_part, config, memory)
    height = np.where(fit.tall_probability >= 0.5, fit.tall_m, fit.short_m)
    # Pass 2: occupancy and visibility again, now with the fitted heights of nearer pieces
    # (the silhouettes at those heights projected once for this pass and the tops' check).
    silhouettes = OcclusionMask(view, frames, heights_m=height).polygons
    occupied_p, colour_d, visible, outline_max = _occupancy_pass(
        view, frames, colours, outline_nominal, top_centres, height, config, silhouettes)
    top_visible = _top_visibility(view, frames, occupied_p >= config.occupied_probability,
                                  height, silhouettes)
    top = top_features(view, frames, patch, height,
                       middle_wall_spread=config.hole_wall_middle_spread,
                       wall_glint_samples=config.hole_wall_glint_samples,
                       wall_glint_from=config.hole_wall_glint_from)
    side_offsets = _side_offsets(view, frames, patch, height, taking_part, top_visible,
                                 config, memory)
    side = body_colour(view, frames, patch, height, offsets_m=side_offsets)
    return CellFeatures(frames, profiles, colours, height, occupied_p, visible, top_visible, top,
                        patch, fit, colour_d, outline_max, side, silhouettes=silhouettes,
                        side_offsets_m=side_offsets)


def _side_offsets(
    view: BoardView, frames: CellFrames, patch: LabPatch, height: FloatArray,
    taking_part: NDArray[np.bool_], top_visible: FloatArray, config: ReaderConfig,
    memory: SetMemory | None,
) -> FloatArray | None:
    """(16, 5, 3) where each cell's near-side colour samples stand (``CellFeatures``): on
    the cells seen from ``config.side_top_footprint_min_elevation_deg`` up, under the edge
    of the piece's top outline (``top.top_outline_offsets``) fitted at the footprint measured
    from all the tops (``top.top_footprint``); elsewhere at 0.42 F. None (0.42 F everywhere)
    when that elevation is 90 or no top can be measured."""
    if config.side_top_footprint_min_elevation_deg >= 90.0:
        return None
    steep = frames.top_sine >= np.sin(np.radians(config.side_top_footprint_min_elevation_deg))
    if not steep.any():
        return None
    tops = taking_part & (top_visible >= 0.5) & (frames.top_sine >= config.min_top_sine)
    pool = None
    if memory is not None:
        key = ("top_size", round(frames.footprint_m, 7))
        pool = lambda fits: memory.pool(key, fits)  # noqa: E731
    f_top = top_footprint(view, frames, patch, height, tops, config.side_top_footprint_scales,
                          pool)
    if f_top is None:
        return None
    edge = top_outline_offsets(view, dataclasses.replace(frames, footprint_m=f_top), patch,
                               height, BODY_ANGLES)
    default = circle_points(frames, 0.42 * frames.footprint_m, np.zeros(1), BODY_ANGLES)[:, 0]
    default = default - frames.centers_m[:, None, :]
    return np.where(steep[:, None, None], edge, default)


def _refine_heights(
    view: BoardView, frames: CellFrames, patch: LabPatch, fit: HeightFit,
    cells: NDArray[np.bool_], config: ReaderConfig, memory: SetMemory | None = None,
) -> HeightFit:
    """Refine the set's two heights finer than the search grid: each height is scaled by the
    factor whose top outlines fit its pieces best (a top plane off by a tenth of F already
    blurs the square corners and the hole; with a ``memory``, best over every reading of
    that height so far)."""
    factors = np.asarray(config.height_refine_factors)
    tall = fit.tall_probability >= 0.5
    groups = (("short_m", fit.short_m, cells & ~tall), ("tall_m", fit.tall_m, cells & tall))
    candidates = np.concatenate([h0 * factors for _, h0, _ in groups])
    prof = outline_fit_profile(view, frames, patch, candidates)
    k = len(factors)
    refined = [fit.short_m, fit.tall_m]
    for g, (_, h0, members) in enumerate(groups):
        if np.any(members):
            fits = prof[members][:, g * k : (g + 1) * k].sum(axis=0)
            if memory is not None:
                fits = memory.pool(("refine", g, round(h0, 7), round(frames.footprint_m, 7)),
                                   fits)
            best = int(np.argmax(fits))
            refined[g] = float(h0 * factors[best])
    return dataclasses.replace(fit, short_m=refined[0], tall_m=refined[1])


def _occupancy_pass(
    view: BoardView, frames: CellFrames, colours: CellColours, outline: FloatArray,
    top_centres: FloatArray, heights_m: FloatArray, config: ReaderConfig,
    silhouettes: Mapping[tuple[int, float], NDArray[np.int32]] | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Walk the cells from the camera outwards: occupancy from the footprint samples and the
    candidate tops that no nearer (occupied) piece hides, and each piece's visible fraction.

    Returns occupancy probabilities, footprint colour distances (NaN when hidden), visible
    fractions and the best unhidden outline fit, all (16,). ``silhouettes``: the mask's
    polygons at ``heights_m`` when already projected (``OcclusionMask.polygons``).
    """
    dist = colours.board_distance()
    mask = OcclusionMask(view, frames, heights_m=heights_m, polygons=silhouettes)
    occupied_p = np.zeros(16)
    colour_d = np.full(16, np.nan)
    visible = np.ones(16)
    outline_max = np.zeros(16)
    n_body = colours.body_px.shape[1]
    # Footprint samples and candidate tops of each cell, looked up in the mask together.
    pixels, inside = mask.mask_pixels(np.concatenate([colours.body_px, top_centres], axis=1))
    for i in np.argsort(frames.depth_m):
        uncovered = mask.uncovered_pixels(pixels[i], inside[i])
        free, seen = uncovered[:n_body], uncovered[n_body:]
        if np.count_nonzero(free) >= 3:
            colour_d[i] = float(median(dist[i][free], axis=0))
        outline_max[i] = float(np.max(outline[i][seen])) if np.any(seen) else 0.0
        occupied_p[i] = occupancy_probability(colour_d[i], outline_max[i], config)
        visible[i] = mask.visible_fraction(int(i), float(heights_m[i]))
        if occupied_p[i] >= config.occupied_probability:
            mask.add(int(i), float(heights_m[i]))
    return occupied_p, colour_d, visible, outline_max


def _top_visibility(
    view: BoardView, frames: CellFrames, occupied: NDArray[np.bool_], heights_m: FloatArray,
    silhouettes: Mapping[tuple[int, float], NDArray[np.int32]] | None = None,
) -> FloatArray:
    """(16,) share of each top face's centre region not hidden by nearer pieces
    (``silhouettes`` as in :func:`_occupancy_pass`)."""
    f = frames.footprint_m
    a = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    pts = project_grid(view, circle_points(frames, 0.3 * f, heights_m[:, None], a))[:, 0]
    mask = OcclusionMask(view, frames, heights_m=heights_m, polygons=silhouettes)
    pixels, inside = mask.mask_pixels(pts)
    out = np.ones(16)
    for i in np.argsort(frames.depth_m):
        if occupied[i]:
            out[i] = float(np.mean(mask.uncovered_pixels(pixels[i], inside[i])))
            mask.add(int(i), float(heights_m[i]))
    return out


def occupancy_probability(colour_distance: float, outline_fit: float,
                          config: ReaderConfig) -> float:
    """Probability that a cell holds a piece, from two independent cues.

    ``colour_distance``: how unlike the bare board its footprint looks (Lab units; NaN when
    nearer pieces hide the footprint); ``outline_fit``: how well a top outline (disc or square
    of the set's size) fits some plane above the cell (0..1). Logistic in both, weights in
    ``config``.
    """
    logit = config.occupancy_bias + config.occupancy_outline_weight * outline_fit
    if np.isfinite(colour_distance):
        logit += config.occupancy_colour_weight * min(colour_distance, 40.0)
    else:
        logit += config.occupancy_hidden_bias
    return float(_logistic(np.array(logit)))


def two_group_probability(
    values: FloatArray, usable: NDArray[np.bool_], threshold: float, width: float,
    min_separation: float,
) -> FloatArray:
    """Probability of the "high" value of a two-valued attribute, relative to the board.

    When the usable pieces fall into two clear groups (best two-class split whose means differ
    by ``min_separation`` and whose gap exceeds the spread inside the groups), the boundary
    moves to the middle of that gap - but only within one ``width`` of the physical
    ``threshold``, which otherwise decides alone (lighting and resolution shift a hole's
    darkness or a corner's contrast for every piece of a board alike).
    """
    vals = np.sort(values[usable])
    t = threshold
    if len(vals) >= 4:
        best_k = best_split(vals)
        lo, hi = vals[:best_k], vals[best_k:]
        gap = hi.min() - lo.max()
        spread = max(float(np.std(lo)), float(np.std(hi)))
        if hi.mean() - lo.mean() >= min_separation and gap > spread:
            t = float(np.clip(0.5 * (hi.min() + lo.max()), threshold - width, threshold + width))
    return _logistic((values - t) / width)


def read_cells(
    frame_bgr: NDArray[np.uint8], view: BoardView, config: ReaderConfig | None = None
) -> Observation:
    """Read every cell of the board seen in ``frame_bgr`` through ``view``.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board's ``BoardView`` (from the board finder, or from a label).
    config : reader knobs; defaults to ``ReaderConfig()``.

    Returns
    -------
    Observation with 16 ``CellReading``s (row-major), pieces decoded jointly.
    """
    config = config or ReaderConfig()
    return observe_cells(measure_cells(frame_bgr, view, config), view, config)


def observe_cells(
    feats: CellFeatures, view: BoardView, config: ReaderConfig | None = None, *,
    decode: bool = True,
) -> Observation:
    """The decisions of :func:`read_cells` on features already measured (``measure_cells``).

    ``decode=False`` leaves the pieces undecoded (every ``piece`` None, the odds and
    occupancy probabilities as with decoding), for a caller that decodes fused odds itself
    (``vision.learn.fuse.read_cells_fused``; the joint decoding is a tenth of a millisecond
    to half a millisecond it would throw away)."""
    config = config or ReaderConfig()
    occupied = feats.occupied_probability >= config.occupied_probability
    idx = np.flatnonzero(occupied)
    usable = feats.visible[idx] >= config.min_visible_fraction
    p_tall = feats.heights.tall_probability[idx]
    # The top face (lit from above, seen from any angle) and the near side together.
    lightness = 0.5 * (feats.side_lab[:, 0] + feats.top.top_lab[:, 0])
    p_dark = dark_probability(lightness[idx], usable, feats.colours.scene_white, config,
                              float(feats.colours.bare[0]))
    top_ok = (feats.visible[idx] >= config.min_visible_fraction) & (
        feats.frames.top_sine[idx] >= config.min_top_sine) & (feats.top_visible[idx] >= 0.5)
    p_hollow = two_group_probability(
        feats.top.hole_darkening[idx], top_ok, config.hole_darkening,
        config.hole_darkening_width, config.hole_group_separation)
    p_square = two_group_probability(
        feats.top.squareness[idx], top_ok, config.square_margin, config.square_margin_width,
        config.square_group_separation)
    odds: list[dict[str, float | None]] = []
    for n, i in enumerate(idx):
        seen = bool(feats.visible[i] >= config.min_visible_fraction)
        top_seen = seen and bool(
            feats.frames.top_sine[i] >= config.min_top_sine and feats.top_visible[i] >= 0.5
        )
        odds.append({
            "color": float(p_dark[n]) if seen else None,
            "shape": float(p_square[n]) if top_seen else None,
            "height": float(p_tall[n]) if seen else None,
            "top": float(p_hollow[n]) if top_seen else None,
        })
    decoded = decode_pieces(odds) if decode else [None] * len(odds)
    centers = view.cell_centers_px()
    readings = []
    by_index = dict(zip(idx.tolist(), zip(odds, decoded, strict=True), strict=True))
    for ci, cell in enumerate(ALL_CELLS):
        center = (float(centers[ci, 0]), float(centers[ci, 1]))
        if ci in by_index:
            cell_odds, dec = by_index[ci]
            readings.append(CellReading(
                cell, center, float(feats.occupied_probability[ci]), cell_odds,
                float(feats.visible[ci]),
                *((dec.piece, dec.known, dec.confidence) if dec is not None
                  else (None, frozenset(), 0.0)),
            ))
        else:
            # how much of a piece there would be seen: nearer pieces hide a cell read empty
            # too, and the fused reading and the live tracker take the lower estimate
            readings.append(CellReading(
                cell, center, float(feats.occupied_probability[ci]),
                dict.fromkeys(ATTRIBUTES), float(feats.visible[ci]), None, frozenset(), 0.0,
            ))
    return Observation(tuple(readings), view)
