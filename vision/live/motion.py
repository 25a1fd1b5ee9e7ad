"""Is something moving over the board, or standing there that is not a piece?

Two cheap tests on a small grey copy of the frame, inside the board's region of interest (the
board and the space a tall piece can cover above it):

- *motion*: the share of pixels that changed since the previous frame (a hand moving);
- *change*: the area that differs from the reference, the last settled scene, measured in
  piece silhouettes. One new piece changes about one silhouette (plus its shadow); a hand and
  forearm change several, even when they hold still over a cell.

The reference follows the settled scene (:meth:`MotionGate.rebase`) and is compared under the
current lighting (a gain and offset matched over the region), so a lamp switched on does not
count as a change. A still change that a smooth brightness field explains (a lamp's pool of
light) becomes the new reference after ``relit_rebase_s``; any other still change (a moved
object) after ``rebase_s``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.live.change import silhouette_outline
from vision.rules.board import ALL_CELLS


@dataclass(frozen=True)
class MotionConfig:
    """Knobs of the motion gate."""

    #: Width (px) of the grey copy the tests run on: a hand stays hundreds of pixels big.
    work_width: int = 320
    #: Grey-level change (of 255) that counts as changed: above sensor noise and JPEG ripple.
    pixel_threshold: int = 22
    #: The mask the change scores are measured on (:attr:`MotionGate.changed`) counts a pixel
    #: changed relative to its own brightness instead: by this share of its grey level (the
    #: brighter of reference and frame; 22 of 128 at mid-grey, as ``pixel_threshold``), at
    #: most ``pixel_threshold`` and at least ``score_noise_factor`` times the region's noise,
    #: never under ``score_min_threshold`` grey levels. A piece's image is the light it
    #: reflects, so a dark piece put on a black board in dim light changes its pixels by a
    #: share of their level (25 -> 38 grey levels on fresh game 1030009), under any fixed bar
    #: above a bright scene's noise. A soft shadow or a lamp's pool changes the board by a
    #: share of its light too, but smoothly: the difference is measured against the reference
    #: under the smooth field of brightness that explains it (``light_tile_px``), which a
    #: piece, a few tiles at most, does not move. 0 switches it off (the gate's own mask).
    score_contrast: float = 0.17
    #: Noise of the region: the scatter (1.4826 x median absolute deviation) of the
    #: difference to the reference, where most pixels did not change.
    score_noise_factor: float = 4.0
    score_min_threshold: float = 5.0
    #: Share of the region's pixels changing frame-to-frame that counts as motion.
    motion_fraction: float = 0.003
    #: Changed area versus the reference, in tall-piece silhouettes, above which something
    #: bigger than one new piece is there (a hand).
    max_piece_areas: float = 1.8
    #: Seconds of stillness after which a big change becomes the new reference (lighting).
    rebase_s: float = 1.5
    #: ...or after this much, when a smooth field of brightness (a lamp's pool of light)
    #: explains the change but for at most ``relit_piece_areas`` silhouettes: one new piece
    #: with its shadow plus the shadows of the standing pieces shifted by the new light
    #: (about one more). A still hand leaves its whole outline (5 and more on renders).
    relit_rebase_s: float = 0.5
    relit_piece_areas: float = 3.0
    #: ...or when what the field leaves crosses the edge of the board's region by at most
    #: this many silhouettes: a hand comes with an arm from outside the region (still hands
    #: on renders: 1.8-6 silhouettes of change connected to the edge), while a lamp also
    #: moves the shadows of every standing piece, inside the region (a lamp over 5 pieces:
    #: 4-5 silhouettes in all, under 0.7 at the edge; a piece by the edge can touch it).
    relit_edge_areas: float = 1.0
    #: Tile size (px of the grey copy) of that field, median-smoothed over 3x3 tiles so a
    #: hand covering a few tiles is outvoted.
    light_tile_px: int = 20
    #: Seconds of stillness before the first reference (at start, after a bump) is taken.
    adopt_s: float = 0.2
    #: Height (m) of the space above the board included in the region (a tall piece).
    roi_height_m: float = 0.09
    #: Footprint diameter and height (m) of the silhouette used as the unit of area (a tall
    #: piece on the cell nearest the camera, where a piece looks largest).
    piece_diameter_m: float = 0.032
    piece_height_m: float = 0.07

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) < 0 or (f.name != "score_contrast"
                                              and getattr(self, f.name) == 0):
                raise ValueError(
                    f"MotionConfig.{f.name} must be > 0, got {getattr(self, f.name)!r}"
                )


@dataclass(frozen=True)
class GateResult:
    busy: bool
    motion: float  # share of region pixels changed since the previous frame
    change_areas: float  # area changed since the reference, in piece silhouettes
    reason: str = ""


class MotionGate:
    """Per-frame busy test. ``update(frame, view, now)``; ``rebase(...)`` when settled."""

    def __init__(self, config: MotionConfig | None = None) -> None:
        self.config = config or MotionConfig()
        self._prev: NDArray[np.int16] | None = None
        self._reference: NDArray[np.int16] | None = None
        self._mask: NDArray[np.bool_] | None = None
        self._mask_key: tuple[tuple[int, ...], BoardView | None] | None = None
        self._edge: NDArray[np.bool_] | None = None  # just outside the region (cached)
        self._piece_area = 1.0
        self._still_since: float | None = None
        self._scale = 1.0
        self._changed: NDArray[np.bool_] | None = None
        #: what ``_changed`` was measured against: (frame, expected, region), for the scores
        self._changed_from: tuple[NDArray[np.int16], NDArray[np.int16],
                                  NDArray[np.bool_]] | None = None
        self._score_mask: NDArray[np.bool_] | None = None

    def _small(self, frame: NDArray[np.uint8]) -> NDArray[np.int16]:
        h, w = frame.shape[:2]
        self._scale = self.config.work_width / float(w)
        size = (self.config.work_width, max(1, round(h * self._scale)))
        grey = cv2.cvtColor(
            cv2.resize(frame, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
        )
        return cv2.GaussianBlur(grey, (5, 5), 0).astype(np.int16)

    def _region(self, shape: tuple[int, ...], view: BoardView | None) -> NDArray[np.bool_]:
        # the key holds the view itself (not its id, which a new view could reuse)
        key = (tuple(shape), view)
        if self._mask is not None and self._mask_key is not None and (
            self._mask_key[0] == key[0] and self._mask_key[1] is view
        ):
            return self._mask
        mask = np.zeros(shape[:2], dtype=np.uint8)
        if view is None:
            mask[:] = 1
            self._piece_area = 0.02 * mask.size
        else:
            corners = view.spec.corners()
            pts = (
                np.vstack(
                    [
                        view.project(np.column_stack([corners, np.zeros(4)])),
                        view.project(
                            np.column_stack([corners, np.full(4, self.config.roi_height_m)])
                        ),
                    ]
                )
                * self._scale
            )
            hull = cv2.convexHull(pts.astype(np.float32)).astype(np.int32)
            cv2.fillConvexPoly(mask, hull, 1)
            self._piece_area = max(4.0, _silhouette_area(view, self.config) * self._scale**2)
        self._mask = mask.astype(bool)
        self._mask_key = key
        self._edge = None
        return self._mask

    def update(self, frame: NDArray[np.uint8], view: BoardView | None, now: float) -> GateResult:
        """Measure this frame; busy when something moves or a non-piece stands on the board."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"frame must be (H, W, 3) BGR, got shape {frame.shape}")
        small = self._small(frame)
        region = self._region(small.shape, view)
        self._changed = None
        self._changed_from = None
        self._score_mask = None
        cfg = self.config
        n = max(1, int(region.sum()))
        motion = 1.0
        if self._prev is not None and self._prev.shape == small.shape:
            moved = np.abs(small - self._prev) > cfg.pixel_threshold
            motion = float(np.count_nonzero(moved & region)) / n
        self._prev = small
        if motion > cfg.motion_fraction:
            self._still_since = None
        elif self._still_since is None:
            self._still_since = now
        if self._reference is None or self._reference.shape != small.shape:
            # A new reference only from a scene that has been still for a while: never from
            # a frame with a hand moving through it (after a bump or a re-found board).
            if self._still_since is not None and now - self._still_since >= cfg.adopt_s:
                self._reference = small
            return GateResult(True, motion, 0.0, "new reference")
        expected = self._reference
        changed = self._changed_mask(small, expected, region)
        change_areas = self._areas(changed)
        if motion > cfg.motion_fraction or self._still_since is None:
            return GateResult(True, motion, change_areas, "motion")
        if change_areas > cfg.max_piece_areas:
            # compare under the current lighting only when it matters (2 ms a frame)
            expected = _relit(self._reference, small, region)
            changed = self._changed_mask(small, expected, region)
            change_areas = self._areas(changed)
        # Still, and a little more than a piece: a piece with its shadow, unless part of it
        # comes in across the edge of the region (a still hand's arm).
        if (cfg.max_piece_areas < change_areas <= cfg.relit_piece_areas
                and self._edge_areas(changed) <= cfg.relit_edge_areas):
            self._changed = changed
            self._changed_from = (small, expected, region)
            return GateResult(False, motion, change_areas, "piece and shadow")
        if change_areas > cfg.max_piece_areas:
            still_s = now - self._still_since
            if cfg.relit_rebase_s <= still_s < cfg.rebase_s:
                lit = _light_field(self._reference, small, cfg.light_tile_px)
                left = self._changed_mask(small, lit, region)
                if (self._areas(left) <= cfg.relit_piece_areas
                        or self._edge_areas(left) <= cfg.relit_edge_areas):
                    self._reference = small  # a lamp's pool of light, no hand
                    return GateResult(False, motion, 0.0, "relit")
            if still_s >= cfg.rebase_s:
                self._reference = small  # a still, lasting change: lighting, or a moved object
                return GateResult(False, motion, 0.0, "rebased")
            return GateResult(True, motion, change_areas, "large change")
        self._changed = changed
        self._changed_from = (small, expected, region)
        return GateResult(False, motion, change_areas)

    @property
    def changed(self) -> tuple[NDArray[np.bool_], float] | None:
        """What differs from the settled reference on the last frame that was still with no
        more change than one piece and its shadow (None otherwise): the mask in the gate's
        small copy and that copy's scale (its pixels per frame pixel). A pixel counts
        changed relative to its own brightness and the region's noise
        (``MotionConfig.score_contrast``), measured only when asked for."""
        if self._changed is None:
            return None
        if self._score_mask is None:
            self._score_mask = self._changed
            if self.config.score_contrast > 0 and self._changed_from is not None:
                self._score_mask = self._relative_mask(*self._changed_from)
        return self._score_mask, self._scale

    def _relative_mask(self, small: NDArray[np.int16], expected: NDArray[np.int16],
                       region: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Pixels of ``small`` inside the region that differ from ``expected`` by more than
        ``score_contrast`` of their grey level (see ``MotionConfig.score_contrast``)."""
        cfg = self.config
        # a soft shadow or a lamp's pool of light changes the board by a share of its light
        # too, but smoothly: what a smooth field explains is taken out first
        diff = small - _light_field(expected, small, cfg.light_tile_px)
        inside = diff[region]
        noise = 0.0
        if inside.size:
            noise = 1.4826 * float(np.median(np.abs(inside - np.median(inside))))
        floor = max(cfg.score_min_threshold, cfg.score_noise_factor * noise)
        level = np.maximum(small, expected).astype(np.float32)
        bar = np.clip(cfg.score_contrast * level, floor, max(floor, cfg.pixel_threshold))
        return (np.abs(diff) > bar) & region

    def _changed_mask(
        self, small: NDArray[np.int16], expected: NDArray[np.int16], region: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """Pixels of ``small`` inside the region that differ from ``expected``."""
        return (np.abs(small - expected) > self.config.pixel_threshold) & region

    def _areas(self, changed: NDArray[np.bool_]) -> float:
        """Area of a pixel mask, in piece silhouettes."""
        return float(np.count_nonzero(changed)) / self._piece_area

    def _edge_areas(self, changed: NDArray[np.bool_]) -> float:
        """Area of the parts of ``changed`` (connected, 8-neighbours) that reach the edge of
        the region, in pieces: where an arm comes in."""
        assert self._mask is not None
        if self._edge is None or self._edge.shape != self._mask.shape:
            # outside the region, or the frame's border (an arm also comes in across it)
            outside = np.pad((~self._mask).astype(np.uint8), 1, constant_values=1)
            grown = cv2.dilate(outside, np.ones((5, 5), np.uint8))[1:-1, 1:-1]
            self._edge = grown.astype(bool)
        n, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
        if n <= 1:
            return 0.0
        touching = np.unique(labels[self._edge & (labels > 0)])
        return float(np.count_nonzero(np.isin(labels, touching))) / self._piece_area

    def rebase(self) -> None:
        """Take the last frame as the reference (call while the scene is settled)."""
        if self._prev is not None:
            self._reference = self._prev

    def reset(self) -> None:
        """Forget everything (after a camera bump)."""
        self._changed = None
        self._changed_from = None
        self._score_mask = None
        self._prev = None
        self._reference = None
        self._mask = None
        self._mask_key = None
        self._edge = None
        self._still_since = None


def _relit(
    reference: NDArray[np.int16], current: NDArray[np.int16], region: NDArray[np.bool_]
) -> NDArray[np.int16]:
    """The reference as it looks under the current lighting: a gain and offset over the region.

    A lamp switched on or a cloud brightens or darkens the whole scene at once, close to
    ``current = gain * reference + offset``; a hand or a new piece changes a small part of it.
    Matching the quartiles of the two (robust to anything covering less than a quarter of the
    region) takes out the first and keeps the second, so a lighting change does not read as a
    large change for ``rebase_s`` and hold back the next settle.
    """
    ref = reference[region]
    cur = current[region]
    if ref.size < 16:
        return reference
    r25, r50, r75 = np.percentile(ref, (25, 50, 75))
    c25, c50, c75 = np.percentile(cur, (25, 50, 75))
    gain = (c75 - c25) / (r75 - r25) if r75 - r25 >= 4.0 else 1.0
    gain = float(np.clip(gain, 0.5, 2.0))
    offset = float(c50 - gain * r50)
    return np.rint(reference * gain + offset).astype(np.int16)


def _light_field(
    reference: NDArray[np.int16], current: NDArray[np.int16], tile: int
) -> NDArray[np.int16]:
    """The reference under a smoothly varying change of brightness (a lamp's pool of light).

    The shift is the median difference per ``tile`` x ``tile`` block, smoothed by a 3x3 median
    over blocks (a hand over a few blocks is outvoted) and interpolated back to full size.
    """
    h, w = reference.shape
    gh, gw = h // tile, w // tile
    if gh < 3 or gw < 3:
        return _relit(reference, current, np.ones(reference.shape, bool))
    diff = (current - reference).astype(np.float32)
    blocks = diff[: gh * tile, : gw * tile].reshape(gh, tile, gw, tile)
    shift = cv2.medianBlur(np.median(blocks, axis=(1, 3)).astype(np.float32), 3)
    field = cv2.resize(shift, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.rint(reference + field).astype(np.int16)


def _silhouette_area(view: BoardView, cfg: MotionConfig) -> float:
    """Image area (px^2) of a tall piece standing on the cell that looks largest (nearest
    the camera): a new piece changes at most that much of the image, wherever it stands."""
    return max(float(cv2.contourArea(silhouette_outline(
        view, cell, cfg.piece_diameter_m, cfg.piece_height_m, n=24))) for cell in ALL_CELLS)
