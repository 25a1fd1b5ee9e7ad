"""Fusing two readings of the same frame (e.g. the hand-crafted and the learned reader).

Each reader gives, per cell, P(occupied) and P(second value) of every attribute. Fusion adds
their log-odds with weights (a weighted product of experts; weights below 1 discount readers
that are known to be overconfident), then decodes the occupied cells jointly again with
``vision.read.decode.decode_pieces``. An attribute unknown to one reader takes the other's
odds; unknown to both, it stays unknown.

:func:`read_cells_fused`, the reader ``analyze`` and ``watch`` use, also brightens a frame
whose board the camera left dark (``vision.read.exposure``) and, before decoding, adds what
the colours of all the pieces on the board say about each one's light/dark
(``vision.learn.board_colours``), and calibrates the odds by how much of each piece is in view
(``vision.learn.odds_calibration``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.io import check_frame
from vision.learn.board_colours import board_colour_evidence
from vision.learn.board_heights import logsumexp
from vision.learn.cnn import ConvCellModel
from vision.learn.config import (
    BoardColourConfig,
    FarSideConfig,
    LearnedReaderConfig,
    TopRimConfig,
    WallHeightConfig,
)
from vision.learn.hole_size import HoleSizeConfig, hole_height_evidence
from vision.learn.odds_calibration import OddsCalibration
from vision.learn.top_rim import top_rim_evidence, top_rim_scores
from vision.learn.wall_height import wall_height_evidence, wall_heights
from vision.read.appearance import body_colour_points
from vision.read.config import ReaderConfig
from vision.read.decode import decode_pieces
from vision.read.exposure import ExposureConfig, normalise_exposure
from vision.read.geometry import CellFrames
from vision.read.heights import SetMemory
from vision.read.observation import CellReading, Observation
from vision.read.reader import CellFeatures
from vision.read.top import top_colour_points
from vision.read.top_band import TopBandConfig, band_features, band_log_odds, guided_heights
from vision.read.visibility import OcclusionMask
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ATTRIBUTES, Piece

if TYPE_CHECKING:
    from vision.learn.reader import PlaneMemory

#: Probabilities are kept this far from 0 and 1 before taking log-odds.
_EPS = 1e-4
#: The attributes read on the top face (``LearnedReaderConfig.fused_hand_top_max_nats``).
_TOP_FACE = ("top", "shape")

#: Log-odds weights (hand-crafted reader, learned reader) of :func:`read_cells_fused`, chosen
#: on held-out validation renders (seeds 102250-102499, never trained on; not on photoreal_dev
#: or real photos): of hand-crafted weights 0, 0.1, 0.2, 0.25, 0.35 and 0.5 (learned 1 minus
#: that), 0.2 had the fewest pieces with an attribute wrong with both convolutional models
#: trained (4.2% against 5.6% for the network alone and 8.0% at 0.5).
HAND_LEARNED_WEIGHTS: tuple[float, float] = (0.2, 0.8)

#: The packaged odds calibration, built once (not on every frame).
_DEFAULT_CALIBRATION = OddsCalibration()

#: The band cue between a piece's two possible tops (``vision.read.top_band``), as
#: :func:`read_cells_fused` uses it unless told otherwise.
DEFAULT_TOP_BAND = TopBandConfig()
#: The hollow tops' bore sizes near straight above (``vision.learn.hole_size``), on by
#: default (session 34: helper-34e built it, the lead turned it on after the fresh renders).
DEFAULT_HOLE_SIZE = HoleSizeConfig()


def _logit(p: float) -> float:
    q = min(max(p, _EPS), 1.0 - _EPS)
    return math.log(q / (1.0 - q))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def _shifted(p: float, nats: float) -> float:
    """Probability ``p`` with ``nats`` of evidence added to its log-odds."""
    return _sigmoid(_logit(p) + nats)


def fuse_observations(
    first: Observation, second: Observation, *, weights: tuple[float, float] = (0.5, 0.5)
) -> Observation:
    """Combine two observations of the same board (same cells, same ``BoardView``).

    Parameters
    ----------
    first, second : readings of one frame; either may be empty (the other is returned).
    weights : log-odds weights of the two readers (0.5, 0.5 is the geometric mean of odds).

    Raises
    ------
    ValueError
        When a weight is negative or both are zero.
    """
    _check_weights(weights)
    if not first:
        return second
    if not second:
        return first
    occ, odds = _fused_odds(first, second, weights)
    return _decoded(first, second, occ, odds)


def _check_weights(weights: tuple[float, float]) -> None:
    w1, w2 = weights
    if w1 < 0 or w2 < 0 or w1 + w2 == 0:
        raise ValueError(f"weights must be non-negative and not both zero, got {weights!r}")


def _fused_odds(
    first: Observation, second: Observation, weights: tuple[float, float],
    first_top_max_nats: float = 0.0,
) -> tuple[list[float], list[dict[str, float | None]]]:
    """Per cell: fused P(occupied) and fused P(second value) of every attribute
    (``first_top_max_nats``: bound on the first reader's top and shape log-odds, 0 none;
    ``LearnedReaderConfig.fused_hand_top_max_nats``)."""
    w1, w2 = weights
    occ = []
    odds: list[dict[str, float | None]] = []
    for a, b in zip(first.cells, second.cells, strict=True):
        occ.append(_sigmoid(w1 * _logit(a.occupied_probability)
                            + w2 * _logit(b.occupied_probability)))
        cell: dict[str, float | None] = {}
        for attr in ATTRIBUTES:
            pa = a.attribute_probability.get(attr)
            pb = b.attribute_probability.get(attr)
            if pa is None and pb is None:
                cell[attr] = None
            elif pa is None or pb is None:
                cell[attr] = pb if pa is None else pa
            else:
                la = _logit(pa)
                if first_top_max_nats > 0 and attr in _TOP_FACE:
                    la = min(max(la, -first_top_max_nats), first_top_max_nats)
                cell[attr] = _sigmoid(w1 * la + w2 * _logit(pb))
        odds.append(cell)
    return occ, odds


def _decoded(
    first: Observation, second: Observation, occ: list[float],
    odds: list[dict[str, float | None]], guessed_tops: list[bool] | None = None,
    weigh_occupancy: bool = False,
) -> Observation:
    """The occupied cells decoded jointly from fused odds (``guessed_tops``: cells whose top
    odds are marked ``guessed``; ``weigh_occupancy``: each cell's claim weighed by its
    P(occupied), ``LearnedReaderConfig.decode_by_occupancy``)."""
    occupied = [i for i, p in enumerate(occ) if p >= 0.5]
    sure = [occ[i] for i in occupied] if weigh_occupancy else None
    decoded = dict(zip(occupied, decode_pieces([odds[i] for i in occupied], sure), strict=True))
    readings = []
    for i, (a, b) in enumerate(zip(first.cells, second.cells, strict=True)):
        d = decoded.get(i)
        readings.append(CellReading(
            cell=a.cell,
            center_px=a.center_px,
            occupied_probability=occ[i],
            attribute_probability=odds[i],
            visible_fraction=min(a.visible_fraction, b.visible_fraction),
            piece=None if d is None else d.piece,
            known=frozenset(ATTRIBUTES) if d is None else d.known,
            confidence=0.0 if d is None else d.confidence,
            guessed=frozenset({"top"}) if guessed_tops and guessed_tops[i] else frozenset(),
        ))
    return Observation(tuple(readings), first.board_view)


def with_board_colours(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    parts: list[NDArray[np.float64]], config: BoardColourConfig,
    known_dark: list[float | None] | None = None,
) -> list[dict[str, float | None]]:
    """``odds`` with the board's colour evidence (``vision.learn.board_colours``) added to
    every known P(dark); unknown colours stay unknown.

    ``known_dark`` gives, per cell, 1 for a piece known to be dark, 0 for a light one, None
    where nothing is known (``watch``: the game record): known pieces anchor the two groups
    (see ``board_colour_evidence``). When any piece is known, the evidence is added with
    ``config.record_weight`` instead of ``config.weight``."""
    known = None if known_dark is None or all(k is None for k in known_dark) else np.array(
        [np.nan if k is None else float(k) for k in known_dark])
    weight = config.weight if known is None else config.record_weight
    if weight == 0:
        return odds
    p_dark = np.array([0.5 if o["color"] is None else float(o["color"]) for o in odds])
    usable = np.array([o["color"] is not None and p >= 0.5 and v >= config.min_visible
                       for o, p, v in zip(odds, occ, visible, strict=True)])
    evidence = board_colour_evidence(parts, p_dark, usable, config, known)
    out = []
    for o, e in zip(odds, evidence, strict=True):
        cell = dict(o)
        if cell["color"] is not None and e != 0.0:
            cell["color"] = _shifted(float(cell["color"]), weight * float(e))
        out.append(cell)
    return out


def read_cells_fused(
    frame_bgr: NDArray[np.uint8],
    view: BoardView,
    *,
    weights: tuple[float, float] = HAND_LEARNED_WEIGHTS,
    model: ConvCellModel | None = None,
    config: LearnedReaderConfig | None = None,
    colours: BoardColourConfig | None = None,
    exposure: ExposureConfig | None = None,
    calibration: OddsCalibration | None = None,
    planes: PlaneMemory | None = None,
    heights: SetMemory | None = None,
    known: Mapping[Cell, Piece] | None = None,
    guess_hidden_tops: bool = False,
    top_band: TopBandConfig | None = None,
    hole_size: HoleSizeConfig | None = None,
) -> Observation:
    """Read a board with both the hand-crafted and the learned reader (the reader ``analyze``
    and ``watch`` use).

    A frame whose board is exposed darker than the readers were taught on is brightened first
    (``vision.read.exposure``). The two readings are fused (:func:`fuse_observations`), what
    the colours of all the pieces on the board say about each one's light/dark is added
    (``vision.learn.board_colours``; colours measured by the hand-crafted reader, see
    :func:`measured_colours`), and the occupied cells are decoded jointly.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board; a falsy one (``BoardNotFound``) gives ``Observation.empty()``.
    weights : log-odds weights (hand-crafted, learned).
    model, config : the learned reader's network and knobs (default: packaged, defaults).
    colours : knobs of the board colour evidence (``weight=0`` switches it off).
    exposure : knobs of the brightening (``max_gain=1`` switches it off).
    calibration : temperatures of the attribute odds by visible fraction
        (``vision.learn.odds_calibration``; default: the packaged fit,
        ``OddsCalibration.identity()`` switches it off).
    planes : the learned reader's plane-scale memory (``vision.learn.reader.PlaneMemory``).
    heights : the hand-crafted reader's memory of the set's footprint size and heights
        (``vision.read.heights.SetMemory``; ``watch`` keeps one per session).
    known : pieces whose colour is known, by cell (``watch``: the game record's settled
        pieces); they anchor the board's two colour groups (``with_board_colours``). None or
        empty: the groups are formed by the readings alone (``analyze``).
    guess_hidden_tops : a top the network reckons mostly out of view
        (``LearnedReaderConfig.fused_min_top_visible``) is reported unknown (False, the
        default: ``analyze``) or keeps the fused odds, marked ``guessed`` (True: ``watch``,
        whose record takes the likeliest piece either way, and whose line check announces
        no Quarto resting on a guessed value, ``TrackerConfig.gate_unseen_values``).
    top_band : knobs of the height evidence from the band between each piece's two possible
        tops (``vision.read.top_band``; default :data:`DEFAULT_TOP_BAND`, ``weight=0``
        switches it off).
    hole_size : knobs of the height evidence from the hollow tops' bore sizes near straight
        above (``vision.learn.hole_size``; default :data:`DEFAULT_HOLE_SIZE`, weight 1; ``weight=0``
        switches it off).

    Returns
    -------
    Observation with 16 ``CellReading`` s.

    Raises
    ------
    ValueError
        When ``frame_bgr`` is not an (H, W, 3) uint8 image or a weight is negative.
    """
    from vision.learn.reader import read_cells_learned
    from vision.read.reader import measure_cells, observe_cells

    _check_weights(weights)
    check_frame(frame_bgr)
    if not view:
        return Observation.empty()
    frame_bgr, _ = normalise_exposure(frame_bgr, view, exposure)
    feats = measure_cells(frame_bgr, view, memory=heights)
    # Each reader's own decoding is not needed: the fused odds are decoded below.
    hand = observe_cells(feats, view, decode=False)
    learned = read_cells_learned(frame_bgr, view, model=model, config=config, planes=planes,
                                 decode=False)
    reader = config or LearnedReaderConfig()
    if reader.hand_height_min_separation_pitch > 0:
        hand = _hand_heights_apart(hand, feats, view, reader.hand_height_min_separation_pitch)
    occ, odds = _fused_odds(hand, learned, weights, reader.fused_hand_top_max_nats)
    if reader.far_side.enabled:
        occ = _far_side_checked(occ, odds, feats, frame_bgr, view, reader.far_side)
    unseen = _unseen_tops(learned, reader)
    if not guess_hidden_tops:
        odds = [{**o, "top": None} if u else o for o, u in zip(odds, unseen, strict=True)]
    visible = [min(a.visible_fraction, b.visible_fraction)
               for a, b in zip(hand.cells, learned.cells, strict=True)]
    cfg = colours or BoardColourConfig()
    known_dark = None if not known else [
        None if (piece := known.get(r.cell)) is None else float(piece.value("color") == "dark")
        for r in hand.cells]
    parts = measured_colours(feats, cfg)
    if (cfg.height_checked_parts or cfg.unread_cell_parts) and not cfg.resampled_parts:
        parts = _height_checked(
            parts, hand, odds, checked=cfg.height_checked_parts,
            sampled_tall=feats.heights.tall_probability if cfg.unread_cell_parts else None)
    if cfg.occluded_parts or cfg.resampled_parts:
        parts = _unoccluded(parts, feats, view, occ, odds, known, cfg)
    odds = with_board_colours(odds, occ, visible, parts, cfg, known_dark)
    odds = (calibration or _DEFAULT_CALIBRATION).apply(odds, visible)
    band = DEFAULT_TOP_BAND if top_band is None else top_band
    if band.weight > 0:
        odds = with_top_band(odds, occ, visible, feats, view, band)
    holes = DEFAULT_HOLE_SIZE if hole_size is None else hole_size
    if holes.weight > 0:
        odds = with_hole_sizes(odds, occ, visible, frame_bgr, view, holes)
    if reader.wall_height.weight > 0:
        odds = with_wall_heights(odds, occ, visible, frame_bgr, view, reader.wall_height)
    if reader.top_rim.weight > 0:
        odds = with_top_rims(odds, occ, visible, frame_bgr, view, feats, reader.top_rim)
    guessed = [u and o["top"] is not None for o, u in zip(odds, unseen, strict=True)]
    return _decoded(hand, learned, occ, odds, guessed,
                    weigh_occupancy=reader.decode_by_occupancy)


def top_separation_pitch(view: BoardView, short_m: float, tall_m: float) -> NDArray[np.float64]:
    """(16,) image distance between the centres of a short and a tall top on each cell, in
    cell pitches as seen there (the mean image length of one pitch along the two grid axes)."""
    centres = view.spec.cell_centers()
    pitch = view.spec.cell_pitch_m

    def px(offset: NDArray[np.float64], z: float) -> NDArray[np.float64]:
        xy = centres + offset
        return view.project(np.column_stack([xy, np.full(len(xy), z)]))

    zero = np.zeros(2)
    apart = np.linalg.norm(px(zero, tall_m) - px(zero, short_m), axis=1)
    # The two grid axes on the board (the grid may be rotated): along rows and columns.
    axes = centres[[1, 4]] - centres[0]
    axes = axes / np.linalg.norm(axes, axis=1, keepdims=True) * pitch
    base = px(zero, 0.0)
    scale = 0.5 * sum(np.linalg.norm(px(a, 0.0) - base, axis=1) for a in axes)
    return np.asarray(apart / np.maximum(scale, 1e-9))


def _hand_heights_apart(hand: Observation, feats: CellFeatures, view: BoardView,
                        min_pitch: float) -> Observation:
    """``hand`` with its short/tall unread (None) on cells where the two fitted heights' top
    centres lie under ``min_pitch`` pitches apart in the image
    (``LearnedReaderConfig.hand_height_min_separation_pitch``)."""
    apart = top_separation_pitch(view, feats.heights.short_m, feats.heights.tall_m)
    cells = tuple(
        dataclasses.replace(r, attribute_probability={**r.attribute_probability, "height": None})
        if apart[i] < min_pitch and r.attribute_probability.get("height") is not None else r
        for i, r in enumerate(hand.cells))
    return Observation(cells, hand.board_view)


def _far_side_checked(occ: list[float], odds: list[dict[str, float | None]],
                      feats: CellFeatures, frame_bgr: NDArray[np.uint8], view: BoardView,
                      config: FarSideConfig) -> list[float]:
    """``occ`` with the far-side check applied (``vision.learn.far_side``): pieces read at
    the fused height, the strip hidden by a short piece of the set, each height as fitted but
    at least ``config.min_heights_rings``."""
    from vision.learn.far_side import far_side_shift

    fit = feats.heights
    ring = view.spec.cell_diameter_m
    short_m = max(fit.short_m, config.min_heights_rings[0] * ring)
    tall_m = max(fit.tall_m, config.min_heights_rings[1] * ring)
    heights = np.array([tall_m if (o.get("height") or 0.0) >= 0.5 else short_m for o in odds])
    shift = far_side_shift(view, feats.frames, frame_bgr, np.asarray(occ), heights, short_m,
                           config)
    return [p if s == 0.0 else _shifted(p, float(s))
            for p, s in zip(occ, shift, strict=True)]


def with_top_band(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    feats: CellFeatures, view: BoardView, config: TopBandConfig,
) -> list[dict[str, float | None]]:
    """``odds`` with the band cue's log-likelihood ratio (``vision.read.top_band``) added,
    at ``config.weight``, to the height of every occupied cell seen at least
    ``config.min_visible`` from at most ``config.max_elevation_deg`` whose two possible tops
    lie ``config.min_gap_f`` footprints apart or more; other cells keep theirs."""
    p_tall = np.array([0.5 if o["height"] is None else float(o["height"]) for o in odds])
    seen = np.array([o["height"] is not None and p >= 0.5 and v >= config.min_visible
                     for o, p, v in zip(odds, occ, visible, strict=True)])
    if not seen.any():
        return odds
    pr = feats.profiles
    pair = guided_heights(pr.score(), pr.heights_m, p_tall, seen, feats.frames.footprint_m)
    short_m, tall_m = pair or (feats.heights.short_m, feats.heights.tall_m)
    features, gap_f = band_features(view, feats.frames, feats.patch, short_m, tall_m, pr.rim,
                                    pr.side, pr.spread, pr.heights_m, p_tall, seen)
    llr = band_log_odds(features, config)
    low = feats.frames.top_sine <= math.sin(math.radians(config.max_elevation_deg))
    out = []
    for i, o in enumerate(odds):
        if seen[i] and low[i] and gap_f[i] >= config.min_gap_f:
            o = {**o, "height": _shifted(float(p_tall[i]), config.weight * float(llr[i]))}
        out.append(o)
    return out


def with_hole_sizes(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    frame_bgr: NDArray[np.uint8], view: BoardView, config: HoleSizeConfig,
) -> list[dict[str, float | None]]:
    """``odds`` with the bore-size evidence (``vision.learn.hole_size``) added at
    ``config.weight`` to the height of every cell it measured; other cells keep theirs."""
    llr = hole_height_evidence(frame_bgr, view, odds, occ, visible, config)
    return _with_height_evidence(odds, llr, config.weight)


def _with_height_evidence(
    odds: list[dict[str, float | None]], llr: Sequence[float] | NDArray[np.float64],
    weight: float,
) -> list[dict[str, float | None]]:
    """``odds`` with ``weight`` times each cell's height log-likelihood ratio added to its
    height (cells with no evidence, or no height read, keep theirs)."""
    out = []
    for o, e in zip(odds, llr, strict=True):
        if e != 0.0 and o["height"] is not None:
            o = {**o, "height": _shifted(float(o["height"]), weight * float(e))}
        out.append(o)
    return out


def with_wall_heights(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    frame_bgr: NDArray[np.uint8], view: BoardView, config: WallHeightConfig,
) -> list[dict[str, float | None]]:
    """``odds`` with the near-wall evidence (``vision.learn.wall_height``) added at
    ``config.weight`` to the height of every cell it measured; other cells keep theirs."""
    has_height = np.array([o["height"] is not None for o in odds])
    measure = (has_height & (np.asarray(occ) >= config.min_occupied)
               & (np.asarray(visible) >= config.min_visible))
    hollow = np.array([(o["top"] or 0.0) >= 0.5 for o in odds])
    heights = wall_heights(frame_bgr, view, measure, hollow, config)
    p_tall = np.array([0.5 if o["height"] is None else float(o["height"]) for o in odds])
    llr = wall_height_evidence(heights, p_tall, view.spec.cell_diameter_m, config)
    return _with_height_evidence(odds, llr, config.weight)


def top_rim_cells(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    feats: CellFeatures, config: TopRimConfig,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """The cells the top-outline evidence measures (a height read, occupied, in view, seen
    from ``config.min_elevation_deg`` up) and which of them are square and hollow (fused
    odds at least even)."""
    steep = feats.frames.top_sine >= math.sin(math.radians(config.min_elevation_deg))
    measure = np.array([o["height"] is not None and p >= config.min_occupied
                        and v >= config.min_visible
                        for o, p, v in zip(odds, occ, visible, strict=True)]) & steep
    square = np.array([(o["shape"] or 0.0) >= 0.5 for o in odds])
    hollow = np.array([(o["top"] or 0.0) >= 0.5 for o in odds])
    return measure, square, hollow


def with_top_rims(
    odds: list[dict[str, float | None]], occ: list[float], visible: list[float],
    frame_bgr: NDArray[np.uint8], view: BoardView, feats: CellFeatures, config: TopRimConfig,
) -> list[dict[str, float | None]]:
    """``odds`` with the top-outline evidence (``vision.learn.top_rim``) between the set's
    two fitted heights added at ``config.weight`` to the height of every cell it measured;
    other cells keep theirs."""
    measure, square, hollow = top_rim_cells(odds, occ, visible, feats, config)
    if not measure.any():
        return odds
    fit = feats.heights
    if not config.pair_scales:
        scores, _ = top_rim_scores(frame_bgr, view, feats.frames, (fit.short_m, fit.tall_m),
                                   measure, square, hollow, config)
    else:
        p_tall = np.array([0.5 if o["height"] is None else float(o["height"]) for o in odds])
        scores, _ = top_rim_scaled_pair(frame_bgr, view, feats.frames,
                                        (fit.short_m, fit.tall_m), measure, square, hollow,
                                        p_tall, config)
    llr = top_rim_evidence(scores, square, config)
    return _with_height_evidence(odds, llr, config.weight)


def top_rim_scaled_pair(
    frame_bgr: NDArray[np.uint8], view: BoardView, frames: CellFrames, pair_m: tuple[float, float],
    measure: NDArray[np.bool_], square: NDArray[np.bool_], hollow: NDArray[np.bool_],
    p_tall: NDArray[np.float64], config: TopRimConfig,
) -> tuple[NDArray[np.float64], tuple[float, float]]:
    """The top-outline scores (16, 2, S) at the set's pair ``pair_m``, each height times the
    factor of ``config.pair_scales`` that the pieces seen from below
    ``config.pair_max_elevation_deg`` support best (``TopRimConfig.pair_scales``): each
    piece's likelihood is the mixture of its short and tall outline fits (each summed over
    its widths, times ``config.slope``) weighed by its ``p_tall``, summed over the pieces,
    plus the factors' log priors, the pair's ratio within ``config.pair_min_ratio`` to
    ``pair_max_ratio``; and the two factors (1.0 where too few pieces vote)."""
    ks = np.asarray(config.pair_scales, np.float64)
    low = frames.top_sine < math.sin(math.radians(config.pair_max_elevation_deg))
    voters = measure & low
    k_best = (1.0, 1.0)
    if np.count_nonzero(voters) >= config.pair_min_cells:
        coarse = dataclasses.replace(config, scales=config.pair_widths,
                                     n_points=config.pair_n_points,
                                     max_offset_m=config.offset_step_m)
        heights = [h * float(k) for k in ks for h in pair_m]
        scores, _ = top_rim_scores(frame_bgr, view, frames, heights, voters, square, hollow,
                                   coarse)
        done: NDArray[np.bool_] = np.asarray(np.isfinite(scores).all(axis=(1, 2)))
        if np.count_nonzero(done) >= config.pair_min_cells:
            per_height = logsumexp(np.where(done[:, None, None], scores, 0.0), axis=2)[done]
            p = np.clip(p_tall[done], config.pair_p_floor, 1.0 - config.pair_p_floor)
            # (N, short factor, tall factor): each piece short at one, tall at the other
            mix = np.logaddexp(
                np.log(1.0 - p)[:, None, None] + config.slope * per_height[:, 0::2, None],
                np.log(p)[:, None, None] + config.slope * per_height[:, None, 1::2])
            prior = -0.5 * (np.log(ks) / config.pair_scale_sigma) ** 2
            ratio = (pair_m[1] * ks[None, :]) / (pair_m[0] * ks[:, None])
            total = np.where((ratio >= config.pair_min_ratio) & (ratio <= config.pair_max_ratio),
                             mix.sum(axis=0) + prior[:, None] + prior[None, :], -np.inf)
            if np.isfinite(total).any():
                a, b = np.unravel_index(int(np.argmax(total)), total.shape)
                k_best = (float(ks[a]), float(ks[b]))
    scores, _ = top_rim_scores(frame_bgr, view, frames,
                               (pair_m[0] * k_best[0], pair_m[1] * k_best[1]), measure, square,
                               hollow, config)
    return scores, k_best


def _unseen_tops(learned: Observation, config: LearnedReaderConfig) -> list[bool]:
    """Per cell, whether the network reckons the top mostly out of view: it refused the top
    (under ``config.min_top_visible``, or the piece hardly seen at all) or marked it
    ``guessed`` (under ``config.fused_min_top_visible``). All False when that is 0 (off).

    The hand-crafted reader's top is no better there: its own estimate of how much of the
    top is in view misses most tops hidden behind a nearer piece at low angles (it counts
    only the pieces it reads as occupied, at the heights it fits)."""
    if config.fused_min_top_visible <= 0:
        return [False] * len(learned.cells)
    return [b.attribute_probability.get("top") is None or "top" in b.guessed
            for b in learned.cells]


def _height_checked(parts: list[NDArray[np.float64]], hand: Observation,
                    odds: list[dict[str, float | None]], *, checked: bool = True,
                    sampled_tall: NDArray[np.float64] | None = None,
                    ) -> list[NDArray[np.float64]]:
    """``parts`` less the cells whose fused height and the geometric reader's fall on
    opposite sides of even (``checked``): its colours were sampled at the height it fitted,
    not the piece's (``BoardColourConfig.height_checked_parts``). With ``sampled_tall`` (the
    geometric fit's P(tall) of every cell, the height its samples were taken at), the same
    check also covers the cells the geometric reader did not read (no height: read empty or
    hidden) that hold a fused reading (``BoardColourConfig.unread_cell_parts``)."""
    wrong = np.zeros(len(odds), bool)
    for i, (r, o) in enumerate(zip(hand.cells, odds, strict=True)):
        fused, own = o.get("height"), r.attribute_probability.get("height")
        if fused is None:
            continue
        if own is not None and checked:
            wrong[i] = (own >= 0.5) != (fused >= 0.5)
        elif own is None and sampled_tall is not None:
            wrong[i] = (float(sampled_tall[i]) >= 0.5) != (fused >= 0.5)
    if not wrong.any():
        return parts
    return [np.where(wrong[:, None], np.nan, part) for part in parts]


def _unoccluded(parts: list[NDArray[np.float64]], feats: CellFeatures, view: BoardView,
                occ: list[float], odds: list[dict[str, float | None]],
                known: Mapping[Cell, Piece] | None, config: BoardColourConfig,
                ) -> list[NDArray[np.float64]]:
    """``parts`` (top, near side) with the sample points that fall on a nearer piece left
    out (``BoardColourConfig.occluded_parts``); the parts of cells read empty
    (``occ`` under 0.5, which the colour groups leave out) are returned as measured.

    The geometric reader samples every cell's top and near side at the height it fitted there
    and judges what hides them only by the pieces it read itself, at its own heights (a cell it
    reads empty has its top never checked, and no near side is checked point by point: only
    the piece's whole silhouette is). Here the pieces in front are those of the fused reading
    (or of ``known``, the game record), each at its own height (the record's, else the fused
    reading's, else the fit's, in the set's two fitted heights), drawn nearest first. A part
    some of whose points fall on a nearer silhouette is measured again (median Lab) on the
    points clear of them, or dropped when fewer than ``min_top_visible`` (top) or
    ``min_side_visible`` (side) of its points are clear. The cell's own piece never hides
    its own samples; a part with every point clear keeps the reader's value.

    With ``resampled_parts``, a cell whose piece's height (the record's, else the fused
    reading's) is not the one the reader sampled at has both parts measured again at the
    piece's height, the same way (the top only where it is not seen edge-on, the reader's
    ``min_top_sine``), instead of the reader's samples above or inside the piece."""
    fit = feats.heights
    frames = feats.frames
    heights = np.array(feats.height_m, np.float64)
    present = np.array([p >= 0.5 for p in occ])
    for i, o in enumerate(odds):
        piece = known.get(ALL_CELLS[i]) if known else None
        tall = o.get("height")
        if piece is not None:
            present[i] = True
            tall = float(piece.value("height") == "tall")
        if tall is not None:
            heights[i] = fit.tall_m if tall >= 0.5 else fit.short_m
    sampled = np.asarray(feats.height_m, np.float64)
    moved = np.zeros(16, bool)
    if config.resampled_parts:
        moved = heights != sampled
        sampled = np.where(moved, heights, sampled)
    points = [top_colour_points(view, frames, sampled),
              body_colour_points(view, frames, sampled, feats.side_offsets_m)]
    top_seen = frames.top_sine >= ReaderConfig().min_top_sine
    least = (config.min_top_visible, config.min_side_visible)
    # The reader's silhouettes when the pieces stand at its heights (the same polygons).
    same = getattr(feats, "silhouettes", None) is not None and np.array_equal(
        heights, np.asarray(feats.height_m, np.float64))
    mask = OcclusionMask(view, frames, heights_m=heights,
                         polygons=feats.silhouettes if same else None)
    looked_up = [mask.mask_pixels(p) for p in points]
    out = [np.array(p, np.float64) for p in parts]
    for i in np.argsort(frames.depth_m):
        # A cell read empty takes no part in the colour groups (``with_board_colours``
        # uses only cells with P(occupied) >= 0.5): its parts are not measured again.
        measured = occ[i] >= 0.5
        for k, (pixels, inside) in enumerate(looked_up if measured else ()):
            clear = mask.uncovered_pixels(pixels[i], inside[i]) | ~inside[i]
            if not moved[i] and (clear.all() or np.isnan(out[k][i]).all()):
                continue
            vals, valid = feats.patch.sample(points[k][i][clear])
            if (np.mean(clear) < least[k] or np.count_nonzero(valid) < 3
                    or (moved[i] and k == 0 and not top_seen[i])):
                out[k][i] = np.nan
            else:
                out[k][i] = np.median(vals[valid].astype(np.float64), axis=0)
        if present[i]:
            mask.add(int(i), float(heights[i]))
    return out


def measured_colours(feats: CellFeatures, config: BoardColourConfig) -> list[NDArray[np.float64]]:
    """The geometric reader's top and near-side colours of every cell, (16, 3) Lab each, NaN
    where that part is not seen well enough to stand for the piece (see ``BoardColourConfig``)."""
    top_seen = ((feats.top_visible >= config.min_top_visible)
                & (feats.frames.top_sine >= ReaderConfig().min_top_sine))
    side_seen = feats.visible >= config.min_side_visible
    top = np.where(top_seen[:, None], np.asarray(feats.top.top_lab, np.float64), np.nan)
    side = np.where(side_seen[:, None], feats.side_lab, np.nan)
    return [top, side]
