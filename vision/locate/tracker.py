"""Keeping the board pose from frame to frame, cheaply, and finding it again after a bump.

Per frame the tracker does two cheap checks against the state it had when the board was
found:

- a global shift of a small thumbnail (phase correlation): a camera bump moves everything;
- how much of each predicted cell-ring outline still lies on image edges (a few hundred
  profile samples at full resolution): a board pushed on the table, or a hand over it, lowers
  it while the rest of the image stays put.

A shift beyond ``max_shift_px`` is a bump only if the kept pose no longer explains the image:
a hand passing over the board also moves the thumbnail's correlation peak, but the cells it
does not cover keep their rings exactly where the kept pose puts them (*witness* cells). With
enough witnesses the shift is a hand; without, a full search runs at once. Low ring support
for longer than ``max_low_support_s`` (a hand stays briefly, a moved board for good) triggers
a search too. Whatever triggered it, a re-found pose replaces the kept one only when it
explains the frame's ring edges clearly better than the kept pose (a grid fitted to a hand's
edges does not), and a board found again after it was lost must be found at the same place
on two successive frames (a misfit on a moving hand does not stay put). While a search fails
and the camera did not move, the last pose is kept.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardNotFound, BoardView
from vision.geometry.camera import Camera, Intrinsics
from vision.locate.config import BumpConfig, LocateConfig, TrackerConfig
from vision.locate.finder import check_frame, find_board
from vision.locate.fit import EdgeConfig, edge_search
from vision.locate.pose import grid_points, pose_from_points

FloatArray = NDArray[np.float64]
log = logging.getLogger(__name__)

Finder = Callable[..., BoardView | BoardNotFound]

_SAMPLES_PER_RING = 16


def ring_samples(view: BoardView, n: int = _SAMPLES_PER_RING) -> tuple[FloatArray, FloatArray]:
    """(16 n, 2) pixel points on the predicted cell rings (cell-major, ``ALL_CELLS`` order)
    and their unit image normals."""
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
    bump_config : BumpConfig, optional
        Knobs of the bump verifier.
    """

    def __init__(self, config: TrackerConfig | None = None,
                 locate_config: LocateConfig | None = None,
                 intrinsics: Intrinsics | None = None, finder: Finder = find_board,
                 bump_config: BumpConfig | None = None) -> None:
        self.config = config or TrackerConfig()
        self.locate_config = locate_config or LocateConfig()
        self.bump_config = bump_config or BumpConfig()
        self.intrinsics = intrinsics
        self.finder = finder
        self.view: BoardView | None = None
        self.searches = 0
        #: Shifts of the thumbnail that the witness cells showed to be a hand, not a bump.
        self.rejected_bumps = 0
        #: Re-found poses rejected because they did not explain the rings better.
        self.rejected_poses = 0
        self._ref: NDArray[np.float32] | None = None
        self._ref_support = 1.0
        self._ref_cells: FloatArray = np.ones(16)
        self._samples: tuple[FloatArray, FloatArray] | None = None
        self._low_since: float | None = None
        self._last_search = -math.inf
        self._lost: BoardView | None = None  # a find after a loss, waiting for a second one
        #: ``_lost`` is a pose found after the loss, to be confirmed on the very next frame
        #: (not the kept pose, nor after the retry interval)
        self._confirming = False
        self._kept: BoardView | None = None  # the pose lost to a bump that found nothing better
        self._kept_ref: NDArray[np.float32] | None = None  # the thumbnail it was tracked on
        self._was_found = False
        self._moving = False  # the pose was found during a bump: refit when still
        #: since when the image has stayed shifted from the reference while still (a small
        #: camera move the ring witnesses took for a hand)
        self._offset_since: float | None = None
        #: the previous frame's thumbnail since the pose was adopted (None right after)
        self._prev_thumb: NDArray[np.float32] | None = None
        #: the latest calm frame with its trusted pose (``carry_over_bump``), and the one
        #: frozen when a bump began, to carry the pose over the bump
        self._calm: tuple[NDArray[np.uint8], BoardView, float] | None = None
        self._anchor: tuple[NDArray[np.uint8], BoardView, float] | None = None
        #: poses carried over a bump and kept instead of the re-found grid
        self.carried = 0
        self._edge = EdgeConfig(min_edge=self.locate_config.min_edge_step)

    def _thumb(self, frame: NDArray[np.uint8]) -> NDArray[np.float32]:
        h, w = frame.shape[:2]
        tw = self.config.thumb_width_px
        th = max(8, round(h * tw / w))
        small = cv2.resize(frame, (tw, th), interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)

    def _cell_support(
        self, frame: NDArray[np.uint8], samples: tuple[FloatArray, FloatArray] | None = None
    ) -> FloatArray:
        """(16,) share of each cell's ring samples that lie on an image edge."""
        samples = samples if samples is not None else self._samples
        if samples is None:
            raise ValueError("no pose to measure ring support for")
        pts, nrm = samples
        # Sample the BGR frame at the points only: no full-frame conversion needed.
        off, _ = edge_search(frame, pts, nrm, 1.5, self._edge)
        return np.isfinite(off).reshape(16, -1).mean(axis=1)

    def _adopt(self, frame: NDArray[np.uint8], view: BoardView) -> None:
        """Make ``view`` the tracked pose, with this frame as the reference."""
        self.view = view
        self._ref = self._thumb(frame)
        self._samples = ring_samples(view)
        self._ref_cells = self._cell_support(frame)
        self._ref_support = max(float(self._ref_cells.mean()), 1e-3)
        self._low_since = None
        self._lost = None
        self._confirming = False
        self._kept = None
        self._was_found = True
        self._prev_thumb = None

    def _find(self, frame: NDArray[np.uint8], t: float) -> BoardView | BoardNotFound:
        self._last_search = t
        self.searches += 1
        config = self.locate_config
        if self._was_found and config.near_outline_search:
            # The board was found before, so the usual searches find it again once the hand
            # or the bump has passed; the near-side search, which costs seconds on a frame no
            # search places (a hand over a crowded board), would stall the live loop.
            config = replace(config, near_outline_search=False)
        return self.finder(frame, intrinsics=self.intrinsics, config=config)

    def _witnesses(self, cells: FloatArray) -> int:
        """How many cells still show their ring where the kept pose puts it."""
        b = self.bump_config
        return int(np.count_nonzero(
            (cells >= b.witness_support) & (cells >= b.witness_ratio * self._ref_cells)
        ))

    def _explains_better(
        self, frame: NDArray[np.uint8], found: BoardView, kept_support: float,
        gain: float | None = None,
    ) -> bool:
        """Does ``found`` put clearly more ring samples on edges in ``frame`` than the kept
        pose (``kept_support``) does (``gain`` times as many; default
        ``BumpConfig.min_gain``)?"""
        new = float(self._cell_support(frame, ring_samples(found)).mean())
        ok = new >= (self.bump_config.min_gain if gain is None else gain) * kept_support
        if not ok:
            log.info("re-found pose explains %.2f of the ring samples, the kept one %.2f: "
                     "kept", new, kept_support)
        return ok

    def reset(self) -> None:
        """Forget the board: the next update searches from scratch."""
        self.view = None
        self._ref = None
        self._low_since = None
        self._last_search = -math.inf
        self._lost = None
        self._confirming = False
        self._kept = None
        self._was_found = False
        self._moving = False
        self._prev_thumb = None
        self._offset_since = None
        self._calm = None
        self._anchor = None

    def update(self, frame: NDArray[np.uint8], t: float) -> BoardView | BoardNotFound:
        """The board in this frame (``t``: seconds of source time)."""
        check_frame(frame)
        cfg = self.config
        if self.view is None or self._ref is None:
            return self._search_lost(frame, t)
        thumb = self._thumb(frame)
        if thumb.shape != self._ref.shape:
            self.reset()
            return self._search_lost(frame, t)
        scale = frame.shape[1] / thumb.shape[1]
        prev, self._prev_thumb = self._prev_thumb, thumb
        if self._moving and _still(prev, thumb, scale, self.bump_config.calm_shift_px):
            # The pose was found while the camera moved (a bump): fit it again on the first
            # still frame, where the image is sharp and stays put.
            return self._refit(frame, t)
        dx, dy, shift = _shift(self._ref, thumb, scale)
        cells = self._cell_support(frame)
        support = float(cells.mean())
        if shift <= cfg.max_shift_px:
            self._offset_since = None
        else:
            witnesses = self._witnesses(cells)
            if witnesses >= self.bump_config.min_witnesses and not _moved_whole(
                self._ref, thumb, dx, dy, self.bump_config
            ):
                # The image moved but these rings did not: something moved over the board.
                self.rejected_bumps += 1
                log.debug("shift %.1f px at t=%.2f but %d cells keep their rings: no bump",
                          shift, t, witnesses)
                if self._steady_offset(prev, thumb, scale, t):
                    return self._refit(frame, t)
            else:
                return self._on_bump(frame, t, shift, support)
        ratio = support / self._ref_support
        if ratio >= cfg.min_support_ratio:
            self._low_since = None
            if shift < self.bump_config.calm_shift_px:
                rate = self.bump_config.reference_rate
                self._ref_cells = (1.0 - rate) * self._ref_cells + rate * cells
                if cfg.carry_over_bump and not self._moving:
                    # (a reference to the frame: nothing is copied)
                    self._calm = (frame, self.view, t)
            return self.view
        if self._low_since is None:
            self._low_since = t
        if t - self._low_since >= cfg.max_low_support_s and t - self._last_search >= max(
            cfg.retry_interval_s, cfg.max_low_support_s
        ):
            return self._on_low_support(frame, t, support)
        return self.view

    def _steady_offset(self, prev: NDArray[np.float32] | None, thumb: NDArray[np.float32],
                       scale: float, t: float) -> bool:
        """Has the image stayed shifted from the reference, and still, for
        ``BumpConfig.steady_offset_s``? A camera moved by a few pixels leaves its rings
        within the witnesses' reach, so a small bump looks like a hand; but a hand over the
        board moves, and a still, shifted image is a moved camera. Refitting then (a search,
        the kept pose kept unless the new one is near or explains the rings better) costs
        nothing when it was a hand at rest after all."""
        if not _still(prev, thumb, scale, self.bump_config.calm_shift_px):
            self._offset_since = None
            return False
        if self._offset_since is None:
            self._offset_since = t
        if (t - self._offset_since >= self.bump_config.steady_offset_s
                and t - self._last_search >= self.config.retry_interval_s):
            self._offset_since = None
            log.info("image stayed shifted at t=%.2f: refitting the pose", t)
            return True
        return False

    # -- the three reasons to search ----------------------------------------------------------
    def _search_lost(self, frame: NDArray[np.uint8], t: float) -> BoardView | BoardNotFound:
        """No pose: search. After a loss, accept a pose found at the same place twice (the
        second search on the next frame)."""
        kept = self._kept
        if kept is not None and self._samples is not None and self._still_as_kept(frame):
            cells = self._cell_support(frame)
            if (
                self._witnesses(cells) >= self.bump_config.min_witnesses
                and cells.mean() >= self.config.min_support_ratio * self._ref_support
            ):
                # The rings are back where the kept pose puts them: the camera did not move.
                self.view, self._ref, self._kept, self._lost = kept, self._thumb(frame), None, None
                self._anchor = None
                return kept
        # A pose found once after the loss is checked on the next frame, whatever the retry
        # interval: waiting for the next search (fresh game 1023017: 0.2 s) let the next
        # turn's hand cover the board first, and the bump was recovered only 1.5 s after it.
        confirming, self._confirming = self._confirming, False
        if not confirming and t - self._last_search < self.config.retry_interval_s:
            return BoardNotFound("searching for the board")
        found = self._find(frame, t)
        if not found:
            return found
        assert isinstance(found, BoardView)
        pending = self._lost
        after_loss = self._was_found
        if after_loss and (
            pending is None
            or _displacement_px(found, pending) > self.bump_config.agree_pitch * _pitch_px(pending)
        ):
            self._lost = found
            self._confirming = True
            return BoardNotFound("board found again; confirming on the next frame")
        self._adopt(frame, found)
        self._moving = after_loss  # lost on a bump: the camera may still be settling
        return found

    def _on_bump(
        self, frame: NDArray[np.uint8], t: float, shift: float, kept_support: float
    ) -> BoardView | BoardNotFound:
        """The image moved and the kept pose lost its rings: the camera moved."""
        log.info("camera moved by %.1f px at t=%.2f: searching", shift, t)
        kept = self.view
        assert kept is not None
        if self._anchor is None and not self._moving:
            # The bump began: the last calm frame and its pose are what is carried over it.
            self._anchor = self._calm
        found = self._find(frame, t)
        if found:
            assert isinstance(found, BoardView)
            near = _displacement_px(found, kept) <= (
                self.config.max_refind_shift_pitch * _pitch_px(kept)
            )
            if near or self._explains_better(frame, found, kept_support):
                self._adopt(frame, found)
                self._moving = True
                return found
            self.rejected_poses += 1
            found = BoardNotFound("re-found pose does not explain the rings")
        # The kept pose lost its rings and no better one was found: the board is lost. Search
        # again on the next frames; a board found twice at the same place, or once where the
        # kept pose was (the camera did not move after all), is taken.
        self._kept_ref = self._ref
        self.view = None
        self._ref = None
        self._low_since = None
        self._lost = kept
        self._kept = kept
        return found

    def _still_as_kept(self, frame: NDArray[np.uint8]) -> bool:
        """Is the image where it was when the kept pose was lost (no camera move)?

        Rings on edges at the kept pose are not enough: the lattice repeats, so a camera
        moved by about one cell puts other rings where the kept pose expects them.
        """
        ref = self._kept_ref
        thumb = self._thumb(frame)
        if ref is None or ref.shape != thumb.shape:
            return False
        return _shift(ref, thumb, frame.shape[1] / thumb.shape[1])[2] <= self.config.max_shift_px

    def _refit(self, frame: NDArray[np.uint8], t: float) -> BoardView:
        """Search once more on a still frame after a bump; keep the better of the two (with
        ``carry_over_bump``, of the three: also the pose carried over the bump)."""
        kept = self.view
        assert kept is not None
        self._moving = False
        # (Only over a bump: a refit after a steady small offset keeps the search's rule.)
        anchor, self._anchor = self._anchor, None
        best = kept
        found = self._find(frame, t)
        if found:
            assert isinstance(found, BoardView)
            kept_support = float(self._cell_support(frame).mean())
            near = _displacement_px(found, kept) <= (
                self.config.max_refind_shift_pitch * _pitch_px(kept)
            )
            if near or self._explains_better(frame, found, kept_support):
                best = found
        if self.config.carry_over_bump and anchor is not None and anchor[0] is not frame:
            carried = carry_view(anchor[0], anchor[1], frame, self.bump_config)
            b = self.bump_config
            if carried is not None and _displacement_px(carried, best) > (
                b.carry_agree_pitch * _pitch_px(best)
            ):
                # They disagree: the one that explains this frame's rings, a tie going to
                # the pose fitted on the calm frame. (When they agree, the grid fitted to
                # this frame's own rings is the finer.)
                own = float(self._cell_support(frame, ring_samples(best)).mean())
                new = float(self._cell_support(frame, ring_samples(carried)).mean())
                log.info("pose carried over the bump from t=%.2f to t=%.2f explains %.2f of "
                         "the ring samples, the re-found one %.2f", anchor[2], t, new, own)
                if new >= b.carry_min_support_ratio * own:
                    self.carried += 1
                    best = carried
        self._adopt(frame, best)  # still: this frame is the better reference
        return best

    def _on_low_support(
        self, frame: NDArray[np.uint8], t: float, kept_support: float
    ) -> BoardView:
        """The rings stayed hidden for a while, the camera still: a hand, or a moved board."""
        cfg = self.config
        kept = self.view
        assert kept is not None and self._low_since is not None
        found = self._find(frame, t)
        if not found:
            return kept  # camera still: keep the pose (a hand, most likely)
        assert isinstance(found, BoardView)
        # The camera is still: a grid found elsewhere is more likely a misfit on a hand than
        # a moved board, unless the rings stayed hidden long and the new grid explains the
        # ring edges clearly better.
        far = _displacement_px(found, kept) > cfg.max_refind_shift_pitch * _pitch_px(kept)
        if far and (
            t - self._low_since < cfg.board_moved_s
            or not self._explains_better(frame, found, kept_support)
        ):
            self.rejected_poses += 1
            return kept
        if not far and not self._explains_better(frame, found, kept_support,
                                                 self.bump_config.near_gain):
            # Found where it was: the board did not move, pieces and hands hide its rings.
            # The kept pose was fitted with more of them in view; keep it, with this frame
            # as the reference (a pose refitted on every crowded frame would move the
            # readings for nothing).
            self._adopt(frame, kept)
            return kept
        self._adopt(frame, found)
        return found


def carry_view(before: NDArray[np.uint8], view: BoardView, after: NDArray[np.uint8],
               config: BumpConfig | None = None) -> BoardView | None:
    """``view`` (the board in frame ``before``) carried over to frame ``after`` through the
    image motion of the board's plane, or None when that motion is not measured well.

    A moved camera moves the image of a plane by a homography, whatever the move; the
    board's top (and the table around it, a centimetre lower) is that plane. ORB features
    of ``before`` inside the board's outline are matched to those of ``after``, the
    homography fitted by RANSAC (pieces stand off the plane and a hand may have moved:
    their matches are the outliers) and refined on every pixel of the board's region
    (``cv2.findTransformECC``: feature positions alone left it up to a tenth of a pitch
    off; refused when the regions then correlate worse than ``carry_min_correlation``,
    e.g. a hand over the board), and the camera, with ``view``'s intrinsics, fitted to
    a grid of board points carried by it. The board's geometry and the lens stay those of
    ``view``: a bump moves the camera, nothing else.
    """
    b = config or BumpConfig()
    spec = view.spec
    board_xy = grid_points(spec.side_m / 2.0)
    outline = view.project(board_xy[[0, 4, 24, 20]])
    if not np.all(np.isfinite(outline)):
        return None
    g0 = cv2.cvtColor(before, cv2.COLOR_BGR2GRAY)
    g1 = cv2.cvtColor(after, cv2.COLOR_BGR2GRAY)
    mask = np.zeros(g0.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(outline).astype(np.int32), 255)
    grow = max(1, round(b.carry_margin_pitch * _pitch_px(view)))
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1,) * 2))
    orb = cv2.ORB.create(nfeatures=b.carry_features)
    k0, d0 = orb.detectAndCompute(g0, mask)
    orb = cv2.ORB.create(nfeatures=2 * b.carry_features)
    k1, d1 = orb.detectAndCompute(g1, None)
    if d0 is None or d1 is None or len(k0) < b.carry_min_inliers:
        return None
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(d0, d1)
    if len(matches) < b.carry_min_inliers:
        return None
    src = np.array([k0[m.queryIdx].pt for m in matches], np.float32)
    dst = np.array([k1[m.trainIdx].pt for m in matches], np.float32)
    H, inl = cv2.findHomography(src, dst, cv2.RANSAC, b.carry_ransac_px)
    if H is None or inl is None:
        return None
    n = int(inl.sum())
    if n < b.carry_min_inliers or n < b.carry_min_inlier_share * len(matches):
        log.info("bump carry: %d of %d matches on one plane: not carried", n, len(matches))
        return None
    if b.carry_ecc_scale > 0:
        H = _ecc_refine(g0, g1, mask, H, b)
        if H is None:
            return None
    img = cv2.perspectiveTransform(view.project(board_xy).reshape(-1, 1, 2), H).reshape(-1, 2)
    if not np.all(np.isfinite(img)):
        return None
    intr = view.camera.intrinsics
    pose = pose_from_points(board_xy, img, intr.matrix, intr.dist, view.camera.pose)
    if pose is None:
        return None
    carried = BoardView(Camera(intr, pose), spec, calibrated=view.calibrated, score=view.score)
    if carried.camera.pose.camera_center[2] <= 0:
        return None
    return carried


def _ecc_refine(g0: NDArray[np.uint8], g1: NDArray[np.uint8], mask: NDArray[np.uint8],
                H: FloatArray, config: BumpConfig) -> FloatArray | None:
    """The homography ``H`` (``g0`` -> ``g1`` pixels) refined on every pixel of ``mask``
    (``cv2.findTransformECC``) at ``config.carry_ecc_scale`` of full resolution."""
    s = config.carry_ecc_scale
    x, y, w, h = cv2.boundingRect(mask)
    S = np.array([[s, 0, 0], [0, s, 0], [0, 0, 1.0]])
    T0 = np.array([[1, 0, -x], [0, 1, -y], [0, 0, 1.0]])
    a = cv2.resize(g0[y:y + h, x:x + w], None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    m = cv2.resize(mask[y:y + h, x:x + w], (a.shape[1], a.shape[0]),
                   interpolation=cv2.INTER_NEAREST)
    b_img = cv2.resize(g1, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    # ECC's warp maps template (the still frame's) coordinates to input (the crop of the
    # calm frame): the inverse of the crop's motion.
    M = S @ T0 @ np.linalg.inv(H) @ np.linalg.inv(S)
    M = np.asarray(M / M[2, 2], np.float32)
    try:
        cc, M = cv2.findTransformECC(b_img, a, M, cv2.MOTION_HOMOGRAPHY,
                                    (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-5),
                                    m, 5)
    except cv2.error:
        return None
    if cc < config.carry_min_correlation:
        log.info("bump carry: ECC correlation %.3f: not carried", cc)
        return None
    return np.asarray(np.linalg.inv(np.linalg.inv(T0) @ np.linalg.inv(S)
                                    @ M.astype(np.float64) @ S), np.float64)


def _shift(
    ref: NDArray[np.float32], thumb: NDArray[np.float32], scale: float
) -> tuple[float, float, float]:
    """Translation (dx, dy) of ``thumb`` against ``ref`` in thumbnail pixels, and its length
    in full-resolution pixels (``scale`` = frame width / thumbnail width)."""
    (dx, dy), _ = cv2.phaseCorrelate(ref, thumb)
    return dx, dy, math.hypot(dx, dy) * scale


def _still(prev: NDArray[np.float32] | None, thumb: NDArray[np.float32], scale: float,
           calm_px: float) -> bool:
    """Did the image stay put since the previous thumbnail (a shift under ``calm_px``
    full-resolution pixels)?"""
    return (prev is not None and prev.shape == thumb.shape
            and _shift(prev, thumb, scale)[2] < calm_px)


def _moved_whole(
    ref: NDArray[np.float32], thumb: NDArray[np.float32], dx: float, dy: float,
    config: BumpConfig,
) -> bool:
    """Does the whole image follow the shift ``(dx, dy)`` (a moved camera), rather than a
    part of it (a hand moving over the board)?

    A camera move translates everything, so in most textured parts of the frame the
    reference moved by the shift matches better than the reference left in place; a hand
    changes its own region only, and there moving the reference helps nothing, while it
    spoils the still rest. Counted per tile (``BumpConfig.whole_tiles``), since a bump also
    tilts the camera a little and a pure shift then explains each part, not the whole, well.
    This matters because the ring lattice repeats: a camera moved by about one cell leaves
    rings where the kept pose expects them, so ring witnesses alone would call it a hand.
    """
    h, w = ref.shape
    moved = cv2.warpAffine(
        ref, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (w, h),
        borderMode=cv2.BORDER_REPLICATE,
    )
    mx, my = math.ceil(abs(dx)) + 1, math.ceil(abs(dy)) + 1
    n = config.whole_tiles
    if h - 2 * my < n or w - 2 * mx < n:
        return False
    before = np.abs(thumb - ref)[my:h - my, mx:w - mx]
    after = np.abs(thumb - moved)[my:h - my, mx:w - mx]
    ys = np.linspace(0, before.shape[0], n + 1).astype(int)
    xs = np.linspace(0, before.shape[1], n + 1).astype(int)
    follow = stay = 0
    for i in range(n):
        for j in range(n):
            tile = (slice(ys[i], ys[i + 1]), slice(xs[j], xs[j + 1]))
            b, a = float(before[tile].mean()), float(after[tile].mean())
            follow += a < config.follow_ratio * b
            stay += b < config.follow_ratio * a
    return follow > stay and follow >= config.min_follow_share * n * n


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
