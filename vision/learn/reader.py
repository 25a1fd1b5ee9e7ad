"""The learned cell reader: frame + ``BoardView`` -> ``Observation``, like
``vision.read.read_cells``, from a classifier trained on our renders.

Each cell's rectified patches (``vision.learn.patches``) go through the packaged convolutional
network (``vision.learn.cnn``), which gives calibrated P(occupied), P(dark), P(square),
P(tall), P(hollow), the predicted shares of the piece and of its top in view, and the apparent
size of its top. P(tall) then takes in what the other tops of the board say
(``vision.learn.board_heights``: seen from above, only perspective tells tall from short, and
only relative to the set's own width). An attribute whose part is predicted out of view is
reported unknown. The occupied cells are then decoded jointly (the 16 pieces are all
different) by ``vision.read.decode.decode_pieces``.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.learn.board_heights import board_height_evidence
from vision.learn.cnn import ConvCellModel, default_cnn
from vision.learn.config import LearnedReaderConfig
from vision.learn.dataset import decode_top_size
from vision.learn.patches import cell_patches
from vision.learn.sampling import Pyramid, cell_frames
from vision.read.decode import decode_pieces
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES

log = logging.getLogger(__name__)


def predict_cells(
    frame_bgr: NDArray[np.uint8], view: BoardView, *, model: ConvCellModel | None = None
) -> NDArray[np.float32]:
    """(16, len(model.outputs)) calibrated probabilities of every cell (``ALL_CELLS`` order)."""
    return (model or default_cnn()).predict(frame_bgr, view)[0]


def _with_board_heights(
    raw: NDArray[np.float32], prob: NDArray[np.float64], col: dict[str, int], view: BoardView,
    cfg: LearnedReaderConfig, known_tall: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """P(tall) of every cell with the evidence of the other tops' sizes added
    (``vision.learn.board_heights``); cells without a measured top keep theirs.
    ``known_tall`` (1 / 0, NaN where unknown: the game record) weighs the known pieces in
    the other pieces' two size groups at their known heights instead of the network's
    P(tall); each cell's own P(tall) is still the network's."""
    p_tall = prob[:, col["height"]]
    weights = p_tall if known_tall is None else np.where(
        np.isfinite(known_tall), np.nan_to_num(known_tall), p_tall)
    usable = ((prob[:, col["occupied"]] >= cfg.occupied_threshold)
              & (prob[:, col["top_visible"]] >= cfg.board_heights.min_top_visible)
              & (prob[:, col["visible"]] >= cfg.min_visible))
    evidence = board_height_evidence(
        decode_top_size(raw[:, col["top_size"]].astype(np.float64)),
        prob[:, col["shape"]] >= 0.5,
        weights,
        usable,
        camera_height_m=float(view.camera.pose.camera_center[2]),
        ring_diameter_m=view.spec.cell_diameter_m,
        config=cfg.board_heights,
    )
    z = _logit(p_tall) + cfg.board_heights.weight * evidence
    return np.asarray(np.clip(1.0 / (1.0 + np.exp(-z)), cfg.p_floor, 1.0 - cfg.p_floor))


def _logit(p: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(np.log(p / (1.0 - p)))


def _sureness(values: list[NDArray[np.float64]]) -> float:
    """Mean negative entropy (nats) of the probabilities: 0 when every reading is certain,
    -log 2 when every one is a coin toss."""
    p = np.concatenate(values)
    return float(np.mean(p * np.log(p) + (1.0 - p) * np.log(1.0 - p)))


class PlaneMemory:
    """How surely the tops of one set were read at each plane scale, over many readings.

    A set of pieces does not change during a game, so ``watch`` keeps one memory per
    session and the plane scale is chosen from every reading so far rather than from one
    frame (:func:`read_cells_learned`, ``planes=``): one frame's few pieces choose by
    chance when the scales read nearly alike.
    """

    def __init__(self) -> None:
        self._total: dict[float, float] = {}
        self._count: dict[float, int] = {}

    def add(self, sureness: dict[float, float], readings: int) -> None:
        """One frame's mean sureness per scale, over ``readings`` readings."""
        for scale, value in sureness.items():
            self._total[scale] = self._total.get(scale, 0.0) + value * readings
            self._count[scale] = self._count.get(scale, 0) + readings

    def means(self) -> dict[float, float]:
        """Mean sureness per reading at each scale seen."""
        return {s: self._total[s] / self._count[s] for s in self._total if self._count[s]}


def _read_tops_on_best_planes(
    frame_bgr: NDArray[np.uint8], view: BoardView, model: ConvCellModel,
    prob: NDArray[np.float64], col: dict[str, int], cfg: LearnedReaderConfig,
    memory: PlaneMemory | None = None, pyramid: Pyramid | None = None,
) -> None:
    """Read shape and top again on planes at other heights; keep the surest (in place).

    The network reads a top on horizontal planes at a short and a tall piece's height
    (``PatchConfig.plane_heights_m``). A set whose pieces are much lower or higher than those
    shows its tops out of place and blurred there, and round and square, solid and hollow
    get harder to tell. Each of ``cfg.plane_scales`` scales both heights (a set's heights
    scale together); the scale under which the occupied cells' shape and top are read most
    surely (mean negative entropy over the cells in view, the top only where it is in view;
    with a ``memory``, over every reading it holds too) is the one nearest the set; when it
    beats the model's own planes by ``cfg.plane_search_margin``, its shape and top odds are
    averaged into the first reading's. It runs only below
    ``cfg.plane_search_max_elevation_deg``, where a wrong plane moves a top far. Height,
    colour, occupancy and visibility stay with the model's own planes, which they were
    calibrated on (heights read on moved planes got worse on dev renders).
    """
    seen = ((prob[:, col["occupied"]] >= cfg.occupied_threshold)
            & (prob[:, col["visible"]] >= cfg.min_visible))
    rows = np.flatnonzero(seen)
    if len(rows) == 0:
        return
    elevation = np.degrees(np.median(cell_frames(view).elevation_rad[rows]))
    if elevation >= cfg.plane_search_max_elevation_deg:
        return
    top_seen = prob[rows, col["top_visible"]] >= cfg.min_top_visible
    shape_c, top_c = col["shape"], col["top"]

    def parts(p: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        return [p[:, shape_c], p[top_seen, top_c]]

    sureness = {1.0: _sureness(parts(prob[rows]))}
    readings: dict[float, NDArray[np.float64]] = {}
    for scale in cfg.plane_scales:
        if scale == 1.0:
            continue
        heights = tuple(h * scale for h in model.patches.plane_heights_m)
        patches = cell_patches(frame_bgr, view, cells=rows.tolist(),
                               config=replace(model.patches, plane_heights_m=heights),
                               pyramid=pyramid)
        pyramid = patches.pyramid
        p = model.predict_patches(patches.images, patches.scalars, cfg.cnn_engine)
        readings[scale] = np.clip(p.astype(np.float64), cfg.p_floor, 1.0 - cfg.p_floor)
        sureness[scale] = _sureness(parts(readings[scale]))
    if memory is not None:
        memory.add(sureness, len(rows) + int(top_seen.sum()))
        sureness = memory.means()
    pick = max(readings, key=lambda s: sureness[s], default=None)
    if pick is None or sureness[pick] <= sureness[1.0] + cfg.plane_search_margin:
        return
    best = readings[pick]
    # The mean of the two readings' log-odds, not the new one alone: the surest of a few
    # readings is surer than it should be, and the line check trusts these odds.
    for c, sel in ((shape_c, slice(None)), (top_c, top_seen)):
        here = rows[sel]
        z = 0.5 * (_logit(prob[here, c]) + _logit(best[sel, c]))
        prob[here, c] = 1.0 / (1.0 + np.exp(-z))


def read_cells_learned(
    frame_bgr: NDArray[np.uint8],
    view: BoardView,
    *,
    model: ConvCellModel | None = None,
    config: LearnedReaderConfig | None = None,
    planes: PlaneMemory | None = None,
    decode: bool = True,
    known_tall: NDArray[np.float64] | None = None,
) -> Observation:
    """Read all 16 cells of a board with the learned classifier.

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board (camera and pose). A falsy view (``BoardNotFound``) gives
        ``Observation.empty()``.
    model : the classifier (default: the packaged convolutional network).
    config : decision knobs.
    planes : the plane-scale memory of the set being read (``watch`` keeps one per session),
        so that the scale follows every reading so far; default: this frame alone.
    decode : False leaves the pieces undecoded (every ``piece`` None; odds, occupancy and
        visible fractions as with decoding), for a caller that decodes fused odds itself
        (``vision.learn.fuse.read_cells_fused``).
    known_tall : (16,) 1 / 0 for a piece known to be tall / short, NaN elsewhere (``watch``:
        the game record); the board's top-size groups weigh known pieces at those heights.

    Returns
    -------
    Observation with 16 ``CellReading``s; ``attribute_probability`` holds the probability of
    each attribute's second value (dark, square, tall, hollow), or ``None`` when unknown.

    Raises
    ------
    ValueError
        When ``frame_bgr`` is not an (H, W, 3) uint8 image or ``view`` is not a BoardView.
    """
    if not view:
        return Observation.empty()
    if not isinstance(view, BoardView):
        raise ValueError(f"view must be a BoardView, got {type(view).__name__}")
    cfg = config or LearnedReaderConfig()
    m = model or default_cnn()
    # The patches' pyramid serves the other planes.
    raw, patches = m.predict_frame(frame_bgr, view, cfg.cnn_engine)
    centers_px = patches.centers_px
    prob = np.clip(raw.astype(np.float64), cfg.p_floor, 1.0 - cfg.p_floor)
    col = {name: m.column(name) for name in m.outputs}
    if cfg.plane_scales:
        _read_tops_on_best_planes(frame_bgr, view, m, prob, col, cfg, planes, patches.pyramid)
    if "top_size" in col and cfg.board_heights.weight > 0:
        prob[:, col["height"]] = _with_board_heights(raw, prob, col, view, cfg, known_tall)
    odds: list[dict[str, float | None]] = []
    for i in range(len(ALL_CELLS)):
        cell_odds: dict[str, float | None] = {a: float(prob[i, col[a]]) for a in ATTRIBUTES}
        if prob[i, col["visible"]] < cfg.min_visible:
            cell_odds = dict.fromkeys(ATTRIBUTES)
        elif prob[i, col["top_visible"]] < cfg.min_top_visible:
            cell_odds["top"] = None
        odds.append(cell_odds)
    occ_p = prob[:, col["occupied"]]
    occupied = [i for i in range(len(ALL_CELLS)) if occ_p[i] >= cfg.occupied_threshold]
    decoded = (dict(zip(occupied, decode_pieces([odds[i] for i in occupied]), strict=True))
               if decode else {})
    readings = []
    for i, cell in enumerate(ALL_CELLS):
        d = decoded.get(i)
        readings.append(
            CellReading(
                cell=cell,
                center_px=(float(centers_px[i, 0]), float(centers_px[i, 1])),
                occupied_probability=float(prob[i, col["occupied"]]),
                attribute_probability=odds[i],
                visible_fraction=(float(prob[i, col["visible"]])
                                  if occ_p[i] >= cfg.occupied_threshold else 1.0),
                piece=None if d is None else d.piece,
                known=frozenset(ATTRIBUTES) if d is None else d.known,
                confidence=0.0 if d is None else d.confidence,
                guessed=(frozenset({"top"}) if odds[i]["top"] is not None
                         and prob[i, col["top_visible"]] < cfg.fused_min_top_visible
                         else frozenset()),
            )
        )
    log.debug("learned reader: %d occupied cells", len(occupied))
    return Observation(tuple(readings), view)
