"""Which free cell a turn's piece went to, judged from what changed in the image.

The motion gate keeps the last settled scene as its reference (``MotionGate.changed``): when
the hand has left, the pixels that differ from it are the new piece and its shadow. A piece
on a cell would show as its silhouette less what the pieces nearer the camera hide of it.
Each free cell is scored by how well that visible silhouette matches the changed pixels (the
Dice overlap of the two masks, the better of a short and a tall piece).

This sees a piece the reader misses: one standing behind others, of which only the top shows
above them, reads empty or unsure, but the image around its top did change. It also tells a
phantom (a cell behind a new piece that reads occupied because the new piece covers it):
the change is the front piece's silhouette, which a piece on the hidden cell cannot match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.rules.board import ALL_CELLS, Cell


@dataclass(frozen=True)
class ChangeConfig:
    """Piece sizes of the silhouettes (m): a typical set's footprint and two heights."""

    piece_diameter_m: float = 0.03
    short_height_m: float = 0.037
    tall_height_m: float = 0.067

    def __post_init__(self) -> None:
        if not (self.piece_diameter_m > 0 and 0 < self.short_height_m < self.tall_height_m):
            raise ValueError("ChangeConfig: sizes must be > 0 and short below tall")


def silhouette_outline(view: BoardView, cell: Cell, diameter_m: float, height_m: float,
                       scale: float = 1.0, n: int = 16) -> NDArray[np.float32]:
    """(K, 1, 2) convex outline of a cylinder standing on ``cell`` (its foot and top
    circles, ``n`` points each), in pixels of an image ``scale`` times the frame."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = diameter_m / 2.0
    foot = np.column_stack([r * np.cos(a), r * np.sin(a)]) + view.spec.cell_center(cell)
    pts = np.vstack([np.column_stack([foot, np.zeros(n)]),
                     np.column_stack([foot, np.full(n, height_m)])])
    return np.asarray(cv2.convexHull((view.project(pts) * scale).astype(np.float32)),
                      np.float32)


def silhouette_polygon(view: BoardView, cell: Cell, diameter_m: float, height_m: float,
                       scale: float = 1.0) -> NDArray[np.int32]:
    """:func:`silhouette_outline` rounded to whole pixels (for ``cv2.fillConvexPoly``)."""
    outline = silhouette_outline(view, cell, diameter_m, height_m, scale)[:, 0, :]
    return np.asarray(np.rint(outline), dtype=np.int32)


def sole_explainer(scores: Mapping[Cell, float], min_score: float, ratio: float) -> Cell | None:
    """The cell that alone explains what changed: the best of ``scores`` when it reaches
    ``min_score`` and no other cell scores ``ratio`` of it (ties go to the first cell in
    board order), else None."""
    if not scores:
        return None
    ranked = sorted(scores, key=lambda c: (-scores[c], c))
    best = ranked[0]
    second = scores[ranked[1]] if len(ranked) > 1 else 0.0
    if scores[best] < min_score or second >= ratio * scores[best]:
        return None
    return best


def _depths(view: BoardView) -> dict[Cell, float]:
    """Each cell centre's depth from the camera."""
    centres = np.array([(*view.spec.cell_center(c), 0.0) for c in ALL_CELLS])
    return dict(zip(ALL_CELLS, view.camera.depth(centres), strict=True))


class _Silhouettes:
    """Filled silhouettes of pieces standing on cells, in an image ``scale`` times the
    frame's pixels (``shape``), and the union of those nearer the camera than a cell."""

    def __init__(self, view: BoardView, shape: tuple[int, int], scale: float,
                 standing: Mapping[Cell, bool], config: ChangeConfig) -> None:
        self.view, self.shape, self.scale, self.config = view, shape, scale, config
        self.heights = (config.short_height_m, config.tall_height_m)
        self.depth = _depths(view)
        self.front = {c: self.fill(c, self.heights[int(tall)]) for c, tall in standing.items()}

    def fill(self, cell: Cell, height: float) -> NDArray[np.bool_]:
        mask = np.zeros(self.shape, np.uint8)
        cv2.fillConvexPoly(mask, silhouette_polygon(self.view, cell, self.config.piece_diameter_m,
                                                    height, self.scale), 1)
        return mask.astype(bool)

    def hidden(self, cell: Cell) -> NDArray[np.bool_]:
        """What the standing pieces nearer the camera than ``cell`` cover."""
        out = np.zeros(self.shape, bool)
        for other, mask in self.front.items():
            if self.depth[other] < self.depth[cell]:
                out |= mask
        return out


def change_scores(changed: NDArray[np.bool_], scale: float, view: BoardView,
                  standing: Mapping[Cell, bool], config: ChangeConfig | None = None,
                  ) -> dict[Cell, float]:
    """Dice overlap (0..1) of the changed pixels with each free cell's visible silhouette.

    Parameters
    ----------
    changed : mask of the pixels that differ from the settled reference, in the gate's small
        copy of the frame (``scale`` times the frame's pixels).
    standing : the cells that hold a piece, and whether it is tall; they hide what stands
        behind them and get no score.
    """
    return measure_change(changed, scale, view, standing, config).scores


@dataclass(frozen=True)
class CoveredChange:
    """What changed over a free cell's piece where the change scores do not look: the
    changed pixels inside the full short silhouette of a piece on the cell that the
    modelled silhouettes of the standing pieces nearer the camera cover (``inside``), and
    those on the same front silhouettes outside it (``outside``), both as shares of that
    full silhouette's area, and the share of the silhouette the front pieces leave in view
    (``visible``)."""

    inside: float
    outside: float
    visible: float


def covered_change(changed: NDArray[np.bool_], scale: float, view: BoardView,
                   standing: Mapping[Cell, bool], config: ChangeConfig | None = None,
                   ) -> dict[Cell, CoveredChange]:
    """Per free cell with a standing piece nearer the camera over its short silhouette, the
    changed pixels that :func:`change_scores` leaves out because the front pieces' modelled
    silhouettes cover them (:class:`CoveredChange`).

    The silhouettes are a generic piece's (``ChangeConfig``: 30 mm wide, 67 mm tall), wider
    and taller than many sets' pieces, so a short piece put straight behind a recorded tall
    one shows the strip of its top above the front piece inside the modelled front
    silhouette, where its own visible silhouette is empty (fresh game 1035003: 93 changed
    pixels, 0 in the visible part). A nudge of the front piece changes along the front
    piece's whole outline, as much outside the cell's silhouette as inside it.
    """
    return measure_change(changed, scale, view, standing, config, covered=True).covered or {}


class ChangeMap:
    """One changed mask kept with what it was measured on, to be asked later which cell's
    change another cell's piece explains (:meth:`unexplained`): the tracker asks it only on
    a settle that shows two new cells after one hand (``TrackerConfig.co_arrival_own_change``).
    """

    def __init__(self, changed: NDArray[np.bool_], scale: float, view: BoardView,
                 standing: Mapping[Cell, bool], config: ChangeConfig | None = None,
                 pieces: _Silhouettes | None = None) -> None:
        self.changed, self.scale, self.view = changed, scale, view
        self.standing = dict(standing)
        self.config = config or ChangeConfig()
        self._pieces = pieces  # the standing pieces' silhouettes, built once when first asked

    def _silhouettes(self) -> _Silhouettes:
        if self._pieces is None:
            self._pieces = _Silhouettes(self.view, self.changed.shape, self.scale,
                                        self.standing, self.config)
        return self._pieces

    def unexplained(self, cell: Cell, others: Sequence[Cell], core: float = 1.0
                    ) -> tuple[float, float]:
        """How much of a piece put on the free ``cell`` would have changed the image where
        nothing else explains a change: the changed share of the part of its short
        silhouette (a generic piece's, its width ``core`` times ``piece_diameter_m``) that
        neither the standing pieces nearer the camera nor a tall piece on any of ``others``
        (free cells, say one whose new piece could cast this change) cover; and that part's
        share of the whole silhouette (how much there is to judge by).

        A piece of either height covers at least its short silhouette in the image (the
        tall one's outline holds the short one's), so a piece put on ``cell`` since the
        reference changes nearly all of that part, while a neighbour's new piece changes
        it only where its shadow falls (fresh game 1036018's first move: the shadow of a
        tall piece on c1 over a corner of d1)."""
        cfg = self.config
        shape = self.changed.shape
        pieces = self._silhouettes()
        own = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(own, silhouette_polygon(self.view, cell, core * cfg.piece_diameter_m,
                                                   cfg.short_height_m, self.scale), 1)
        mask = own.astype(bool)
        area = int(np.count_nonzero(mask))
        if area == 0:
            return 0.0, 0.0
        left = mask & ~pieces.hidden(cell)
        for other in others:
            if other != cell and other not in self.standing:
                left &= ~pieces.fill(other, cfg.tall_height_m)
        n_left = int(np.count_nonzero(left))
        if n_left == 0:
            return 0.0, 0.0
        return int(np.count_nonzero(left & self.changed)) / n_left, n_left / area


class ChangeMeasures(NamedTuple):
    """:func:`change_scores` and (when asked) :func:`covered_change` of one changed mask,
    and (when asked) the mask itself (:class:`ChangeMap`)."""

    scores: dict[Cell, float]
    covered: dict[Cell, CoveredChange] | None
    map: ChangeMap | None = None


def measure_change(changed: NDArray[np.bool_], scale: float, view: BoardView,
                   standing: Mapping[Cell, bool], config: ChangeConfig | None = None, *,
                   covered: bool = False, keep_map: bool = False) -> ChangeMeasures:
    """:func:`change_scores` and, with ``covered``, :func:`covered_change` in one pass over
    the free cells, on one set of silhouettes (the live loop wants both on the same frames);
    with ``keep_map``, the mask kept for later questions (:class:`ChangeMap`)."""
    cfg = config or ChangeConfig()
    n_changed = int(np.count_nonzero(changed))
    under: dict[Cell, CoveredChange] | None = {} if covered else None
    if n_changed == 0:
        kept = ChangeMap(changed, scale, view, standing, cfg) if keep_map else None
        return ChangeMeasures({c: 0.0 for c in ALL_CELLS if c not in standing}, under, kept)
    pieces = _Silhouettes(view, changed.shape, scale, standing, cfg)
    kept = ChangeMap(changed, scale, view, standing, cfg, pieces) if keep_map else None
    scores: dict[Cell, float] = {}
    for cell in ALL_CELLS:
        if cell in standing:
            continue
        hidden = pieces.hidden(cell)
        fills = [pieces.fill(cell, h) for h in pieces.heights]  # short, tall
        best = 0.0
        for fill in fills:
            visible = fill & ~hidden
            n_visible = int(np.count_nonzero(visible))
            if n_visible:
                both = int(np.count_nonzero(visible & changed))
                best = max(best, 2.0 * both / (n_visible + n_changed))
        scores[cell] = best
        if under is not None:
            found = _covered(changed, hidden, fills[0])
            if found is not None:
                under[cell] = found
    return ChangeMeasures(scores, under, kept)


def _covered(changed: NDArray[np.bool_], hidden: NDArray[np.bool_],
             own: NDArray[np.bool_]) -> CoveredChange | None:
    """:class:`CoveredChange` of a free cell whose full short silhouette is ``own`` and
    which the front pieces cover where ``hidden`` (None: nothing of it covered)."""
    area = int(np.count_nonzero(own))
    cover = own & hidden
    if area == 0 or not np.any(cover):
        return None
    inside = int(np.count_nonzero(changed & cover))
    outside = int(np.count_nonzero(changed & hidden & ~own))
    return CoveredChange(inside / area, outside / area,
                         1.0 - int(np.count_nonzero(cover)) / area)


#: Shares in view are measured at this fraction of the frame's pixels (enough for shares).
_SHARE_SCALE = 0.25


def least_visible_shares(view: BoardView, standing: Mapping[Cell, bool],
                         config: ChangeConfig | None = None) -> dict[Cell, float]:
    """Per free cell, the share of a piece put there that the ``standing`` pieces nearer
    the camera (cell -> whether tall) leave in view, at the less visible of the two heights:
    how much of a piece that could arrive there, whatever its height, would show."""
    cfg = config or ChangeConfig()
    w, h = view.camera.intrinsics.size_wh
    shape = (max(1, int(h * _SHARE_SCALE) + 1), max(1, int(w * _SHARE_SCALE) + 1))
    pieces = _Silhouettes(view, shape, _SHARE_SCALE, standing, cfg)
    shares: dict[Cell, float] = {}
    for cell in ALL_CELLS:
        if cell in standing:
            continue
        hidden = pieces.hidden(cell)
        least = 1.0
        for height in pieces.heights:
            own = pieces.fill(cell, height)
            area = int(np.count_nonzero(own))
            if area:
                least = min(least, 1.0 - int(np.count_nonzero(own & hidden)) / area)
        shares[cell] = least
    return shares
