"""Keeping the board pose from frame to frame, cheaply, and finding it again after a bump.

Per frame the tracker does two cheap checks against the state it had when the board was
found:

- a global shift of a small thumbnail (phase correlation): a camera bump moves everything;
- how much of the predicted cell-ring outline still lies on image edges (a few hundred
  profile samples at full resolution): a board pushed on the table, or a hand over it, lowers
  it while the rest of the image stays put.

A shift beyond ``max_shift_px`` triggers a full search at once; low ring support for longer
than ``max_low_support_s`` (a hand stays briefly, a moved board for good) triggers one too.
While a search fails and the camera did not move, the last pose is kept.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardNotFound, BoardView
from vision.geometry.camera import Intrinsics
from vision.locate.config import LocateConfig, TrackerConfig
from vision.locate.finder import check_frame, find_board
from vision.locate.fit import EdgeConfig, edge_search

FloatArray = NDArray[np.float64]
log = logging.getLogger(__name__)

Finder = Callable[..., BoardView | BoardNotFound]

_SAMPLES_PER_RING = 16


def ring_samples(view: BoardView, n: int = _SAMPLES_PER_RING) -> tuple[FloatArray, FloatArray]:
    """(16 n, 2) pixel points on the predicted cell rings and their unit image normals."""
    spec = view.spec
    r = spec.cell_diameter_m / 2.0
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    u = np.column_stack([np.cos(a), np.sin(a)])
    centres = spec.cell_centers()
    inner = (centres[:, None, :] + 0.97 * r * u[None]).reshape(-1, 2)
    outer = (centres[:, None, :] + 1.03 * r * u[None]).reshape(-1, 2)
    p0, p1 = view.project(inner), view.project(outer)
    mid = 0.5 * (p0 + p1)
    d = p1 - p0
    return mid, d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)[:, None]


class BoardTracker:
    """Board pose over a frame sequence: ``update(frame, t)`` per frame.

    Parameters
    ----------
    config : TrackerConfig, optional
    locate_config : LocateConfig, optional
        Passed to the full search.
    intrinsics : Intrinsics, optional
        Calibrated camera, passed to the full search.
    finder : callable, optional
        The full search (default :func:`vision.locate.find_board`); tests may inject one.
    """

    def __init__(self, config: TrackerConfig | None = None,
                 locate_config: LocateConfig | None = None,
                 intrinsics: Intrinsics | None = None, finder: Finder = find_board) -> None:
        self.config = config or TrackerConfig()
        self.locate_config = locate_config or LocateConfig()
        self.intrinsics = intrinsics
        self.finder = finder
        self.view: BoardView | None = None
        self.searches = 0
        self._ref: NDArray[np.float32] | None = None
        self._ref_support = 1.0
        self._samples: tuple[FloatArray, FloatArray] | None = None
        self._low_since: float | None = None
        self._last_search = -math.inf
        self._edge = EdgeConfig(min_edge=self.locate_config.min_edge_step)

    def _thumb(self, frame: NDArray[np.uint8]) -> NDArray[np.float32]:
        h, w = frame.shape[:2]
        tw = self.config.thumb_width_px
        th = max(8, round(h * tw / w))
        small = cv2.resize(frame, (tw, th), interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)

    def _support(self, frame: NDArray[np.uint8]) -> float:
        assert self._samples is not None
        pts, nrm = self._samples
        # Sample the BGR frame at the points only: no full-frame conversion needed.
        off, _ = edge_search(frame, pts, nrm, 1.5, self._edge)
        return float(np.isfinite(off).mean())

    def _search(self, frame: NDArray[np.uint8], t: float) -> BoardView | BoardNotFound:
        self._last_search = t
        self.searches += 1
        found = self.finder(frame, intrinsics=self.intrinsics, config=self.locate_config)
        if found:
            assert isinstance(found, BoardView)
            self.view = found
            self._ref = self._thumb(frame)
            self._samples = ring_samples(found)
            self._ref_support = max(self._support(frame), 1e-3)
            self._low_since = None
        return found

    def reset(self) -> None:
        """Forget the board: the next update searches from scratch."""
        self.view = None
        self._ref = None
        self._low_since = None
        self._last_search = -math.inf

    def update(self, frame: NDArray[np.uint8], t: float) -> BoardView | BoardNotFound:
        """The board in this frame (``t``: seconds of source time)."""
        check_frame(frame)
        cfg = self.config
        if self.view is None or self._ref is None:
            if t - self._last_search < cfg.retry_interval_s:
                return BoardNotFound("searching for the board")
            return self._search(frame, t)
        thumb = self._thumb(frame)
        if thumb.shape != self._ref.shape:
            self.reset()
            return self._search(frame, t)
        (dx, dy), _resp = cv2.phaseCorrelate(self._ref, thumb)
        scale = frame.shape[1] / thumb.shape[1]
        if math.hypot(dx, dy) * scale > cfg.max_shift_px:
            log.info("camera moved by (%.1f, %.1f) px at t=%.2f: searching", dx * scale,
                     dy * scale, t)
            found = self._search(frame, t)
            if not found:
                # The camera moved: the old pose is wrong. Search again on the next frames.
                self.reset()
                self._last_search = t
            return found
        ratio = self._support(frame) / self._ref_support
        if ratio >= cfg.min_support_ratio:
            self._low_since = None
            return self.view
        if self._low_since is None:
            self._low_since = t
        if t - self._low_since >= cfg.max_low_support_s and t - self._last_search >= max(
            cfg.retry_interval_s, cfg.max_low_support_s
        ):
            kept = self.view
            state = (self._ref, self._samples, self._ref_support)
            found = self._search(frame, t)
            if not found:
                self.view = kept  # camera still: keep the pose (a hand, most likely)
                return kept
            assert isinstance(found, BoardView)
            if (
                _displacement_px(found, kept) > cfg.max_refind_shift_pitch * _pitch_px(kept)
                and t - self._low_since < cfg.board_moved_s
            ):
                # The camera is still and the rings were hidden only briefly (a hand): a grid
                # found elsewhere is more likely a misfit on the hand than a moved board.
                self.view = kept
                self._ref, self._samples, self._ref_support = state
                return kept
            return found
        return self.view


def _pitch_px(view: BoardView) -> float:
    """Mean image distance between row-neighbouring cell centres."""
    c = view.cell_centers_px().reshape(4, 4, 2)
    return float(np.mean(np.linalg.norm(np.diff(c, axis=1), axis=2)))


def _displacement_px(a: BoardView, b: BoardView) -> float:
    """Largest distance from a cell centre of ``a`` to the nearest cell centre of ``b``
    (independent of how the two label their cells)."""
    pa, pb = a.cell_centers_px(), b.cell_centers_px()
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=2)
    return float(d.min(axis=1).max())
