"""``find_board``: the board located in one frame with no help.

Steps (each in its own module):

1. candidate rings: ellipses (and square cells) in a downscaled grey image (``candidates``);
2. grid hypotheses: first a small network marks the likely cell centres in the whole frame
   (``board_net``) and lattices are grown through its peaks (``peak_grid``); when one holds
   12 peaks it is fitted and judged (steps 3-4) with the peaks as the independent evidence,
   and a sure board ends the search there. Otherwise pairs of neighbouring rings predict
   the 4x4 lattice, grown one step at a time from the pair so perspective cannot lead it
   astray; a lattice of rings too small for the cells is also tried as every other cell of
   a 45-degree grid (``lattice``). Only when no lattice holds 10 rings, board outlines (big
   convex quadrilaterals) predict the grid for each board family too (``quad``);
3. for the best hypotheses the grid is aligned to the cell outlines' edges, one marking
   (edge or line, one polarity; the one whose matches agree on one grid) for all cells,
   starting from the cells whose rings were found and growing outwards (``fit``);
4. each fitted grid is judged: outline support against a half-cell control and against the
   positions around it, enough cells seen, no chequer pattern, a board
   outline or big circle around it, and the ring support again with the outline points
   along the board's edge left out (a box's edge is no ring) (``verify``, ``layout``); the
   best one wins (ring candidates on the grid add to its score), and the search ends early
   at a grid clear enough that nothing would beat it; a network grid that is not sure still
   beats a ring-search grid elsewhere on the image that is judged lower;
5. seen from high up, a Gigamic grid whose big circle is poorly found is checked against
   the grid the board's four sides place (``_outline_grid``: the tops of a crowded board
   pull grids off where the rings barely show); the chosen grid is fitted again on the
   rings' near sides only, which the pieces can neither hide nor imitate (``fit.NearArcs``;
   from 60 degrees up, lower too with ``near_arc_low_views``); then the fit is
   repeated at full resolution in a window around the grid, and the camera (focal length
   unless calibrated, and pose) is fitted to the matched ring-edge points directly
   (``pose``).

When steps 2-4 find nothing, they are run again on enlarged parts of the frame where the
network's peaks cluster (``_zoom_search``): a board small in the frame and seen from low
down shows its rings too small at the working scale. A grid judged there is finished on
the frame (step 5) like any other. When that finds nothing too, grids are placed inside the
board's outlines refined onto straight edges (``_outline_search``): a crowded board seen
from low down hides most rings, while its four sides and the pieces' feet on its cells
(the network's peaks) stay in view; such a grid must find the board's sides again where
it puts them. Last, the network's full lattices are fitted again from each ring size and
cell shape in turn (``_radius_search``, off unless ``radius_search_steps`` is set): a
lattice a few tenths of a pitch off sizes its cells on the pieces' outlines, and a fit
from the rings' own size can still find them. After everything else (off unless
``near_outline_search``), the board's outline is completed from the three sides a low camera
sees past the pieces, at several focal lengths, and grids are placed inside it
(``_near_outline_search``): the far side of a crowded board seen from low down runs behind
its pieces.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_spec import LAYOUT_DIAGONAL, BoardSpec
from vision.geometry.board_view import BoardNotFound, BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.io import MIN_SIDE_PX
from vision.io import check_frame as check_image
from vision.locate.candidates import Ellipse, find_ellipses, median
from vision.locate.config import LocateConfig
from vision.locate.fit import (
    GRID_NODES,
    EdgeConfig,
    EdgeMatches,
    NearArcs,
    cell_outline,
    coarse_align,
    edge_correspondences,
    edge_search,
    fit_rings,
    grow_fit,
    image_normals,
    sample,
)
from vision.locate.lattice import (
    LatticeHypothesis,
    apply_h,
    lattice_hypotheses,
    shift_h,
    usable_h,
    window_nodes_near,
    window_offsets,
)
from vision.locate.layout import LayoutFit, board_to_grid, fit_layout, frame_correspondences
from vision.locate.peak_grid import (
    drift_pitch,
    frame_peaks,
    peak_hypotheses,
    peaks_on_grid,
    size_outlines,
)
from vision.locate.pose import (
    camera_elevation_deg,
    camera_from_points,
    intrinsics_for,
    pose_from_homography,
    refine_pose,
)
from vision.locate.quad import (
    board_quads,
    chroma_channels,
    complete_square,
    far_side,
    near_sides,
    quad_distance,
    quad_grids,
    quad_hypotheses,
    refine_quad,
)
from vision.locate.verify import (
    best_window,
    chequer_contrast,
    contrast_clear_of_outline,
    diagonal_chequer,
    grid_contrast,
    near_arc_contrast,
    near_arc_support,
    plausible_grid,
    ring_support,
)

FloatArray = NDArray[np.float64]
log = logging.getLogger(__name__)

_MIRROR = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 3.0], [0.0, 0.0, 1.0]])


def check_frame(frame: NDArray[np.uint8]) -> None:
    """Raise ``ValueError`` unless ``frame`` is an (H, W, 3) uint8 BGR image big enough to
    hold a board (``vision.io.MIN_SIDE_PX``)."""
    check_image(frame, "frame", MIN_SIDE_PX)


def _pitch_px(H: FloatArray) -> float:
    p = apply_h(H, np.array([[1.5, 1.5], [2.5, 1.5], [1.5, 2.5]]))
    u, v = p[1] - p[0], p[2] - p[0]
    return math.sqrt(abs(float(u[0] * v[1] - u[1] * v[0])))


def _undistort(frame: NDArray[np.uint8], intr: Intrinsics | None) -> NDArray[np.uint8]:
    if intr is None or not intr.has_distortion:
        return frame
    return cv2.undistort(frame, intr.matrix, intr.dist)


def candidates_on_grid(ells: list[Ellipse], H: FloatArray, radius: float,
                       config: LocateConfig) -> int:
    """How many cells of the grid ``H`` hold a ring candidate of the size the grid predicts."""
    idx, nodes = window_nodes_near(np.array([e.center for e in ells]), H,
                                   config.inlier_tol_pitch)
    cells = set()
    for k, n0 in zip(idx, nodes, strict=True):
        p = apply_h(H, np.array([n0, n0 + np.array([radius, 0.0]), n0 + np.array([0.0, radius])]))
        u, v = p[1] - p[0], p[2] - p[0]
        expected = math.sqrt(abs(u[0] * v[1] - u[1] * v[0]))
        if abs(math.sqrt(ells[k].a * ells[k].b) / max(expected, 1e-9) - 1.0) < config.size_tol:
            cells.add((int(n0[0]), int(n0[1])))
    return len(cells)


def fit_grid(gray_work: NDArray[np.float32], hyps: list[LatticeHypothesis],
             config: LocateConfig, edge: EdgeConfig, ells: list[Ellipse] | None = None,
             peaks: FloatArray | None = None,
             ) -> tuple[FloatArray, float, float, EdgeConfig, LayoutFit] | None:
    """Best (H, radius, score, edge config with the cell shape) over lattice hypotheses and
    window placements (work pixels). ``ells`` (ring candidates) and ``peaks`` (cell-centre
    peaks) are the independent evidence the judge counts on a grid."""
    scored: list[tuple[float, FloatArray, float, EdgeConfig, NDArray[np.int64],
                       LatticeHypothesis]] = []
    for hyp in hyps:
        e = replace(edge, shape=hyp.shape)
        if hyp.source == "outline":  # rough: no cell was seen
            hyp = replace(hyp, H=coarse_align(gray_work, hyp.H, hyp.radius, e,
                                              config.coarse_scales, config.coarse_shifts),
                          support=None)
        for off in window_offsets(hyp.grid):
            H = shift_h(hyp.H, off)
            # A sized peak lattice has its support measured already (the same number).
            sup = (hyp.support if hyp.support is not None and off == (0, 0)
                   else ring_support(gray_work, H, hyp.radius, e, tol_px=2.0))
            # Rings seen are fitted first, the grid grown from them; a guess that placed
            # no ring exactly (outline, peaks) is fitted everywhere from the longest reach.
            seeds = hyp.grid + np.array(off) if hyp.source == "rings" else hyp.grid[:0]
            scored.append((sup, H, hyp.radius, e, seeds, hyp))
    scored.sort(key=lambda s: -s[0])
    best: tuple[FloatArray, float, float, EdgeConfig, LayoutFit] | None = None
    for _, H, radius, edge, seeds, hyp in scored[: config.max_refined_hypotheses]:
        pitch = _pitch_px(H)
        schedule = (config.peak_reach_schedule
                    if hyp.source == "peaks" and config.peak_reach_schedule is not None
                    else config.reach_schedule)
        reaches = tuple(max(1.0, f * pitch) for f in schedule)
        Hf, rf, _, edge = grow_fit(gray_work, H, radius, reaches, edge, seeds, measure=False)
        cells: list[FloatArray] = []  # the judged grid's own cells' edge offsets
        for _round in range(3):
            cells.clear()
            (dx, dy), inner, outer = best_window(gray_work, Hf, rf, edge,
                                                 config.window_shift_margin, cells)
            if (dx, dy) == (0, 0) or _round == 2:
                break
            # Node (dx, dy) of the old grid becomes the new origin.
            Hf = Hf @ np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
            Hf, rf, _, edge = fit_rings(gray_work, Hf, rf, reaches[-2:], edge, measure=False)
        if (dx, dy) != (0, 0):
            # Recompute the window figures for the grid as it now stands.
            cells.clear()
            _, inner, outer = best_window(gray_work, Hf, rf, edge, config.window_shift_margin,
                                          cells)
        if hyp.source == "peaks" and drift_pitch(Hf, H) > config.peak_max_drift_pitch:
            # The network placed every cell; edges that pull the grid off those places
            # are the outlines of pieces, not of cells.
            log.debug("rejected: the fit left the cell centres the network found")
            continue
        judged = _judge(gray_work, Hf, rf, edge, inner, outer, ells or [],
                        np.zeros((0, 2)) if peaks is None else peaks, config, cells[0])
        if judged is not None and (best is None or judged[0] > best[2]):
            best = (Hf, rf, judged[0], edge, judged[1])
            if best[2] >= config.sure_board_score:
                break  # no other grid would beat a board this clear
    return best


def _apart(H_a: FloatArray, H_b: FloatArray) -> float:
    """Distance between the centres of two grids, in pitches of the second."""
    centre = np.array([[1.5, 1.5]])
    return float(np.linalg.norm(apply_h(H_a, centre) - apply_h(H_b, centre))) / _pitch_px(H_b)


def edge_threshold(gray_f: NDArray[np.float32], config: LocateConfig) -> float:
    """The weakest intensity step (grey levels per pixel) taken as an edge in a smoothed
    image: ``edge_noise_factor`` times its noise, within ``[min_edge_step_floor,
    min_edge_step]``.

    The noise is the median length of the gradient on a sparse grid of pixels (every
    fourth row and column): most of a frame is flat, so the median is the noise's, whatever
    edges and texture the rest holds (texture only raises it, towards the upper bound).
    """
    g = gray_f[: gray_f.shape[0] - 1 : 4, : gray_f.shape[1] - 1 : 4]
    gx = gray_f[: gray_f.shape[0] - 1 : 4, 1::4][:, : g.shape[1]] - g
    gy = gray_f[1::4, : gray_f.shape[1] - 1 : 4][: g.shape[0]] - g
    noise = median(np.hypot(gx, gy).ravel()) if g.size else config.min_edge_step
    return float(np.clip(config.edge_noise_factor * noise, config.min_edge_step_floor,
                         config.min_edge_step))


def _judge(gray_work: NDArray[np.float32], Hf: FloatArray, rf: float, edge: EdgeConfig,
           inner: float, outer: float, ells: list[Ellipse], peaks: FloatArray,
           config: LocateConfig, cells: FloatArray | None = None, near_arcs: bool = False,
           ) -> tuple[float, LayoutFit] | None:
    """Score of a fitted grid as a board, or None when it fails a check. ``cells``: the
    grid's 16 cells' edge offsets at 1.5 px (``best_window``'s ``cells_out``), when known:
    they are not searched again. ``near_arcs``: the score's ring contrast is read on the
    outlines' sides facing the camera's foot (``near_arc_contrast``; the checks are the
    same)."""
    size_wh = (gray_work.shape[1], gray_work.shape[0])
    if not plausible_grid(Hf, size_wh, config.min_ring_axis_px, config.max_foreshortening):
        log.debug("rejected: implausible grid")
        return None
    if chequer_contrast(gray_work, Hf) > config.max_chequer_contrast:
        log.debug("rejected: chequered pattern")
        return None
    if diagonal_chequer(gray_work, Hf, rf, edge, config.max_chequer_contrast):
        log.debug("rejected: chequered pattern seen along its diagonals")
        return None
    n_cand = max(candidates_on_grid(ells, Hf, rf, config), peaks_on_grid(peaks, Hf, config))
    if n_cand < config.min_candidates_on_grid:
        log.debug("rejected: %d ring candidates on the grid", n_cand)
        return None
    on_sup, off_sup = grid_contrast(gray_work, Hf, rf, edge, offsets=cells)
    # Enough cells must show most of their outline (texture spreads weak support evenly).
    seen = int((on_sup >= config.cell_seen_support).sum())
    if seen < config.min_cells_seen:
        log.debug("rejected: %d cells seen (%s)", seen, edge.mode)
        return None
    # The grid must stand out both from itself moved half a cell and from the ring of
    # positions around it (a pattern that goes on is not a board).
    contrast = min(float(on_sup.mean() - off_sup.mean()), inner - outer)
    if contrast < config.min_ring_contrast:
        log.debug("rejected: ring contrast %.2f", contrast)
        return None
    lay = fit_layout(gray_work, Hf, config, replace(edge, mode="edge", polarity=0))
    if lay.frame_score < config.min_frame_support:
        log.debug("rejected: no board around the grid (%.2f)", lay.frame_score)
        return None
    # The rings' own evidence: not where the board's edge runs.
    to_board = np.asarray(np.linalg.inv(board_to_grid(lay.rotation_deg)), dtype=np.float64)
    clear = contrast_clear_of_outline(gray_work, Hf, rf, edge, to_board, lay.side / 2.0,
                                      config.outline_clearance_pitch, offsets=cells)
    contrast = min(contrast, clear)
    if contrast < config.min_ring_contrast:
        log.debug("rejected: ring contrast clear of the outline %.2f", clear)
        return None
    if near_arcs:
        # What the pieces leave of the rings: their near sides (``near_outline_arc_contrast``).
        # The foot under the default field of view (a direction is all that is needed).
        foot, _ = _camera_foot(Hf, 1.0, None, size_wh, config)
        contrast = near_arc_contrast(gray_work, Hf, rf, foot, config.near_arc_min_cos, edge)
    # Rings found independently as closed ellipses of the right size, or cells the network
    # marked, are the most specific evidence; each adds a little.
    return contrast + lay.frame_score + config.candidate_weight * n_cand, lay


def smoothed(gray: NDArray[np.uint8], sigma_px: float) -> NDArray[np.float32]:
    """``cv2.GaussianBlur(gray.astype(np.float32), (0, 0), sigma_px)``, filtered straight from
    the 8-bit image, in about half the time (OpenCV's separable filter converts the bytes
    itself, without a float copy of the image). The same kernel (GaussianBlur's size and
    float32 taps for float images) and border: the same bits when the width is a multiple
    of 32 pixels (the 960-pixel working image), within 5e-5 grey levels otherwise (OpenCV's
    vectorised loops end differently)."""
    ksize = int(np.rint(sigma_px * 8 + 1)) | 1
    kernel = cv2.getGaussianKernel(ksize, sigma_px, cv2.CV_32F)
    return np.asarray(cv2.sepFilter2D(gray, cv2.CV_32F, kernel, kernel,
                                      borderType=cv2.BORDER_REFLECT_101), dtype=np.float32)


def find_board(
    frame: NDArray[np.uint8], *, intrinsics: Intrinsics | None = None,
    config: LocateConfig | None = None,
) -> BoardView | BoardNotFound:
    """Locate the Quarto board in a frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8
        BGR image.
    intrinsics : Intrinsics, optional
        Calibrated camera; without it the focal length is estimated from the board.
    config : LocateConfig, optional

    Returns
    -------
    BoardView or BoardNotFound
        The camera model and board pose, or a falsy result saying why none was found.
    """
    check_frame(frame)
    config = config or LocateConfig()
    h, w = frame.shape[:2]
    if intrinsics is not None and intrinsics.size_wh != (w, h):
        raise ValueError(
            f"calibration is for {intrinsics.size_wh[0]}x{intrinsics.size_wh[1]} images, "
            f"frame is {w}x{h}"
        )
    frame = _undistort(frame, intrinsics)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, config.work_width_px / w)
    work = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_AREA)
    work_f, edge = _work_edges(work, config)
    held: list[Fitted] = []
    fitted, peaks, reason = _find_grid(frame, work, work_f, edge, scale, config, held)
    # The fallbacks' grids are not refitted on the near arcs from low down: a zoomed board's
    # rings are too small in the working image, and the outline search places its grid by
    # the board's sides, as ``_outline_grid`` does.
    low_views = fitted is not None
    if fitted is None and config.zoom_fallback:
        fitted = _zoom_search(frame, peaks[0], scale, config, held)
        if fitted is not None:
            # The crop's grid is finished on the frame itself, with the frame's edge
            # threshold and line width (the crop's marking and cell shape are kept).
            fitted = (*fitted[:3], replace(fitted[3], min_edge=edge.min_edge,
                                           line_halfwidth_px=edge.line_halfwidth_px),
                      fitted[4])
    starts: list[FloatArray] = []
    if fitted is None and config.outline_search:
        fitted = _outline_search(frame, work, work_f, edge, peaks, config, starts)
    if fitted is None and config.radius_search_steps:
        fitted = _radius_search(work_f, edge, peaks, config)
    if fitted is None and held:
        # The network's unsure grid whose board outline lies elsewhere, when no other
        # search found a board (``peak_unsure_corner_last``).
        # (An enlarged crop's is finished on the frame, as the enlarged search's grids.)
        log.debug("guard corner: the refused grid taken last (%.2f)", held[0][2])
        fitted = (*held[0][:3], replace(held[0][3], min_edge=edge.min_edge,
                                        line_halfwidth_px=edge.line_halfwidth_px), held[0][4])
        low_views = True
    if fitted is None and config.near_outline_search:
        fitted = _near_outline_search(frame, work, work_f, edge, peaks, config, starts)
    if fitted is None:
        return BoardNotFound(reason)
    H_work, radius, score, edge, lay = fitted
    placed = False
    if config.outline_grid:
        H_new, lay = _outline_grid(work_f, H_work, radius, edge, lay, scale, intrinsics, (w, h),
                                   config)
        placed = H_new is not H_work
        H_work = H_new
    if config.line_marking_recheck and edge.mode == "edge" and not placed:
        # (A grid the board's outline placed is not fitted again, as on the near arcs.)
        H_work, radius, edge, lay = _line_marking_recheck(work_f, H_work, radius, edge, lay,
                                                          peaks[0], config)
    if config.near_arc_refit and not placed:
        H_work, radius = _refit_near_arcs(work_f, H_work, radius, edge, scale, intrinsics,
                                          (w, h), config, low_views)
    if config.occupancy_refit:
        H_work, radius = _refit_empty_cells(work_f, H_work, radius, edge, scale, intrinsics,
                                            (w, h), config)
    if config.ring_descent:
        H_work, radius = _ring_descent(work_f, H_work, radius, edge, scale, intrinsics,
                                       (w, h), config)
    # Full resolution: same fit, short reaches, for sub-pixel centres.
    S = np.diag([1.0 / scale, 1.0 / scale, 1.0])
    H = S @ H_work
    # Only the grid's surroundings are smoothed and read (the board is often a small part
    # of the frame); T maps frame pixels to pixels of that window.
    x0, y0, x1, y1 = _grid_window(H, (w, h), config.full_res_margin_px)
    T = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    full_f = smoothed(gray[y0:y1, x0:x1], config.full_smooth_sigma_px)
    full_edge = replace(edge, line_halfwidth_px=edge.line_halfwidth_px / scale)
    if scale < 1.0:
        H_win, radius, _, _ = fit_rings(full_f, T @ H, radius, config.full_res_reaches_px,
                                        full_edge, measure=False)
        H = np.linalg.inv(T) @ H_win
        if not plausible_grid(H, (w, h), config.min_ring_axis_px, config.max_foreshortening):
            return BoardNotFound("grid fit degenerated at full resolution")
    view: BoardView | None = None
    for _round in range(config.camera_rounds):
        # Match the ring edges to the current model, fit the camera to them; the camera's
        # own grid then gathers the next matches.
        rings = edge_correspondences(full_f, T @ H, radius, config.full_res_reaches_px[-1],
                                     full_edge).shifted(np.array([x0, y0], np.float64))
        if (config.frame_in_camera_fit and not config.camera_rings_first
                and _round == config.camera_rounds - 1):
            # The last round's camera is fitted to these rings with the board's outline
            # (``_fit_with_frame``) straight away, the outline searched along the rings'
            # homography (``camera_rings_first``).
            break
        # The distortion is fitted once, with the widest base the board offers: with its
        # outline when that is searched next.
        view, H = build_view(H, radius, lay, (w, h), intrinsics, config,
                             min(1.0, score / config.full_score), rings,
                             fit_distortion=not config.frame_in_camera_fit)
    if config.frame_in_camera_fit:
        view = _fit_with_frame(work_f, scale, H, radius, lay, (w, h), intrinsics, config,
                               score, edge, rings, view)
    assert view is not None
    return view


Fitted = tuple[FloatArray, float, float, EdgeConfig, LayoutFit]


def _work_edges(work: NDArray[np.uint8], config: LocateConfig,
                ) -> tuple[NDArray[np.float32], EdgeConfig]:
    """The working image smoothed, and the edge search's settings for it (its own noise
    sets the weakest edge): what steps 2-4 read, for the frame or an enlarged crop."""
    work_f = smoothed(work, config.smooth_sigma_px)
    return work_f, EdgeConfig(min_edge=edge_threshold(work_f, config),
                              radius_range=config.ring_radius_range,
                              line_share=config.marking_line_share,
                              line_both_sides=config.line_both_sides,
                              cell_share=config.marking_cell_share,
                              screen_near=config.marking_screen_near)


def _board_square(H: FloatArray, rotation_deg: float, side: float) -> FloatArray:
    """The (4, 2) corners in the image of the square board of ``side`` pitches around the
    grid ``H`` (grid -> image) of a layout turned by ``rotation_deg``."""
    half = side / 2.0
    return apply_h(H @ board_to_grid(rotation_deg),
                   np.array([[-half, -half], [half, -half], [half, half], [-half, half]]))


def _find_grid(frame: NDArray[np.uint8], work: NDArray[np.uint8], work_f: NDArray[np.float32],
               edge: EdgeConfig, scale: float, config: LocateConfig,
               held: list[Fitted] | None = None,
               ) -> tuple[Fitted | None, tuple[FloatArray, FloatArray], str]:
    """Steps 2-4 on one image: the judged grid (work pixels, radius, score, edge config,
    layout) or None, the network's peaks (work pixels, scores), and why none was found.
    ``work`` is ``frame`` in grey scaled by ``scale``; ``work_f`` it smoothed. The network's
    unsure grid refused by the corner check (``_unsure_misplaced``) is appended to ``held``
    when ``peak_unsure_corner_last`` (``find_board`` takes it when nothing else is found)."""
    peaks = frame_peaks(frame, scale, config)
    hyps = peak_hypotheses(peaks[0], peaks[1], config)
    fitted = unsure = None
    if hyps and hyps[0].inliers >= config.peak_full_lattice:
        # The network found the grid: the ring search runs only if its fit is not sure.
        hyps = size_outlines([h for h in hyps if h.inliers >= config.peak_full_lattice],
                             work_f, edge, config)
        fitted = fit_grid(work_f, hyps, config, edge, peaks=peaks[0])
        if fitted is not None and fitted[2] < config.sure_board_score:
            unsure, fitted = fitted, None
    if fitted is None:
        fitted, n_hyps, n_ells = _search(frame, work, work_f, edge, config)
        if unsure is not None and (
                (unsure[2] >= config.min_peak_board_score
                 and (fitted is None or fitted[2] < config.min_board_score))
                or (fitted is not None
                    and config.min_board_score <= fitted[2] < unsure[2]
                    and _apart(fitted[0], unsure[0]) > 1.0)):
            # Rings too few for the ring search (a low view, a crowded board): the
            # network's grid, when its own evidence is clear enough. Also when the ring
            # search settled elsewhere (a chequered cloth beside the board) with less
            # evidence: of two places, the better judged.
            if _unsure_misplaced(work_f, unsure, edge, config):
                log.debug("guard corner: the network's unsure grid refused (%.2f)", unsure[2])
                if held is not None and config.peak_unsure_corner_last:
                    held.append(unsure)
            else:
                fitted = unsure
        if fitted is None:
            return None, peaks, (
                f"no grid of rings among {n_ells} ring candidates and no board outline"
                if n_hyps == 0 else
                f"no grid of cells with a board around it ({n_hyps} hypotheses checked)")
    if fitted[2] < config.min_board_score:
        return None, peaks, f"the best grid has too little evidence (score {fitted[2]:.2f})"
    return fitted, peaks, ""


def _unsure_misplaced(work_f: NDArray[np.float32], unsure: Fitted, edge: EdgeConfig,
                      config: LocateConfig) -> bool:
    """Whether the network's unsure grid (work pixels), scoring under
    ``peak_unsure_corner_score``, has the board's sides found more than
    ``peak_unsure_max_corner_pitch`` from where it puts them (``outline_corner_pitch``;
    sides not found say nothing)."""
    if (not math.isfinite(config.peak_unsure_max_corner_pitch)
            or unsure[2] >= config.peak_unsure_corner_score):
        return False
    corner = outline_corner_pitch(work_f, unsure[0], unsure[4], edge, config)
    return config.peak_unsure_max_corner_pitch < corner < math.inf


def zoom_regions(peaks: FloatArray, size_wh: tuple[int, int], config: LocateConfig,
                 ) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1, frame pixels) worth searching again enlarged: around each
    cluster of at least ``zoom_min_peaks`` cell-centre peaks (``peaks`` in frame pixels),
    each of ``zoom_extents`` times the cluster's extent, of the frame's proportions; the
    clusters with most peaks first, at most ``zoom_max_regions`` of them; none that would
    not enlarge the image by at least ``zoom_min_gain`` over the working image."""
    if len(peaks) < config.zoom_min_peaks:
        return []
    w, h = size_wh
    # Single-linkage clusters: peaks closer than ``zoom_link`` times the typical distance
    # from a peak to its nearest one are one cluster.
    d = np.hypot(*(peaks[:, None, :] - peaks[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    near = d <= config.zoom_link * float(np.median(d.min(axis=1)))
    label = np.arange(len(peaks))
    while True:
        nxt = np.array([min(label[k], int(label[near[k]].min(initial=label[k])))
                        for k in range(len(peaks))])
        nxt = nxt[nxt]
        if np.array_equal(nxt, label):
            break
        label = nxt
    clusters = sorted((np.flatnonzero(label == c) for c in np.unique(label)),
                      key=lambda idx: (-len(idx), int(idx[0])))
    boxes = []
    for idx in clusters[: config.zoom_max_regions]:
        if len(idx) < config.zoom_min_peaks:
            break
        pts = peaks[idx]
        centre = (pts.min(axis=0) + pts.max(axis=0)) / 2.0
        for extent in config.zoom_extents:
            ext = np.ptp(pts, axis=0) * extent
            cw = min(max(float(ext[0]), float(ext[1]) * w / h), float(w))
            gain = config.work_width_px / cw / min(1.0, config.work_width_px / w)
            if gain < config.zoom_min_gain:
                continue
            ch = cw * h / w
            x0 = round(float(np.clip(centre[0] - cw / 2.0, 0.0, w - cw)))
            y0 = round(float(np.clip(centre[1] - ch / 2.0, 0.0, h - ch)))
            boxes.append((x0, y0, min(w, x0 + round(cw)), min(h, y0 + round(ch))))
    return boxes


def _zoom_search(frame: NDArray[np.uint8], peaks_work: FloatArray, scale: float,
                 config: LocateConfig, held: list[Fitted] | None = None) -> Fitted | None:
    """The search again on enlarged parts of the frame where the network marked cells
    (``zoom_regions``), for a board too small in the frame for its rings to be seen at
    the working scale: each part of the (undistorted) frame is scaled to the working
    width and searched and judged as a frame of its own (steps 2-4, never a zoom again).
    The first grid judged a board, in the frame's work pixels, or None. A crop's grid held
    back by the corner check (``_find_grid``'s ``held``) is appended to ``held``."""
    h, w = frame.shape[:2]
    peaks = (peaks_work + 0.5) / scale - 0.5  # frame pixels
    for x0, y0, x1, y1 in zoom_regions(peaks, (w, h), config):
        z = config.work_width_px / (x1 - x0)
        crop = cv2.resize(frame[y0:y1, x0:x1], None, fx=z, fy=z,
                          interpolation=cv2.INTER_AREA if z < 1.0 else cv2.INTER_LINEAR)
        work = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        work_f, edge = _work_edges(work, config)
        crop_held: list[Fitted] = []
        fitted, _, _ = _find_grid(crop, work, work_f, edge, 1.0, config, crop_held)
        # Crop pixels -> frame work pixels (pixel centres: x_frame + 0.5 = (x_crop + 0.5) / z
        # + x0), then frame -> work pixels as the finder maps back (``S`` in ``find_board``).
        to_work = np.diag([scale, scale, 1.0]) @ np.array(
            [[1.0 / z, 0.0, x0 + 0.5 / z - 0.5], [0.0, 1.0 / z, y0 + 0.5 / z - 0.5],
             [0.0, 0.0, 1.0]])
        if fitted is None or fitted[2] < config.zoom_min_score:
            if held is not None and crop_held and crop_held[0][2] >= config.zoom_min_score:
                H = to_work @ crop_held[0][0]
                held.append((H / H[2, 2], *crop_held[0][1:]))
            continue
        H = to_work @ fitted[0]
        log.debug("board found in the enlarged region %s (x%.2f)", (x0, y0, x1, y1), z)
        return (H / H[2, 2], *fitted[1:])
    return None


def _refined_quads(frame: NDArray[np.uint8], work: NDArray[np.uint8],
                   work_f: NDArray[np.float32], edge: EdgeConfig,
                   peaks: tuple[FloatArray, FloatArray], config: LocateConfig,
                   starts_out: list[FloatArray] | None = None) -> list[FloatArray]:
    """Board outlines (work pixels) refined onto the straight edges along them
    (``refine_quad``), those within ``quad_refine_tol_px`` of one already kept left out.
    They start from the outlines of regions (``board_quads``) and from the squares the
    network's peak lattices imply (each family's nominal side, and a tenth larger: a
    lattice partly on the pieces' feet is a few tenths of a pitch off, within the reach of
    the refinement, while the board's own region is often cut by its pieces)."""
    kept: list[FloatArray] = []
    starts = _outline_starts(frame, work, peaks, config)
    if starts_out is not None:
        starts_out.extend(starts)  # kept for the near-side search (the same starts)
    for q in starts:
        if not np.all(np.isfinite(q)):
            continue
        for refined in refine_quad(work_f, q, edge.min_edge, config):
            if all(quad_distance(refined, k) > config.quad_refine_tol_px for k in kept):
                kept.append(refined)
    return kept


def _outline_starts(frame: NDArray[np.uint8], work: NDArray[np.uint8],
                    peaks: tuple[FloatArray, FloatArray], config: LocateConfig,
                    ) -> list[FloatArray]:
    """The rough board outlines (work pixels) the outline searches start from: the regions'
    quadrilaterals (``board_quads``) and the squares around the network's peak lattices
    (each family's nominal side times ``outline_search_square_scales``)."""
    qscale = min(1.0, config.quad_width_px / work.shape[1])
    small = work if qscale == 1.0 else cv2.resize(work, None, fx=qscale, fy=qscale,
                                                   interpolation=cv2.INTER_AREA)
    colour = _shrink(frame, (small.shape[1], small.shape[0]))
    starts = [q / qscale for q in board_quads(small, config, colour)]
    families = {rotation: side for rotation, side, _, _ in config.board_families}
    lattices = (peak_hypotheses(peaks[0], peaks[1],
                                replace(config, peak_max_lattices=config.outline_search_lattices))
                if config.outline_search_lattices else [])
    for hyp in lattices:
        for rotation, side in families.items():
            for grow in config.outline_search_square_scales:
                starts.append(_board_square(hyp.H, rotation, side * grow))
    return starts


def outline_corner_pitch(work_f: NDArray[np.float32], H: FloatArray, lay: LayoutFit,
                         edge: EdgeConfig, config: LocateConfig) -> float:
    """How far (pitches) the board's four sides, searched around the square the grid ``H``
    and layout ``lay`` imply (``refine_quad``), put its farthest corner from that square's;
    infinite when a side is not found. Small when the board's outline is seen whole and
    where the grid puts it."""
    corners = _board_square(H, lay.rotation_deg, lay.side)
    if not np.all(np.isfinite(corners)):
        return math.inf
    quads = refine_quad(work_f, corners, edge.min_edge, config)
    if not quads:
        return math.inf
    return min(float(np.hypot(*(q - corners).T).max()) for q in quads) / _pitch_px(H)


def _judged_inside(quads: Sequence[FloatArray], work_f: NDArray[np.float32],
                   edge: EdgeConfig, peaks: tuple[FloatArray, FloatArray],
                   config: LocateConfig, max_grids: int,
                   sides_agree: Callable[[FloatArray, LayoutFit], bool],
                   near_arcs: bool = False) -> Fitted | None:
    """The best judged grid placed inside one of the board outlines ``quads`` (work pixels),
    as the outline searches place them (``_outline_search``, ``_near_outline_search``), or
    None: for each outline and board family the grid centred and turned with the square,
    its side over the pitch the one whose cells hold most of the network's peaks (then most
    ring support); the ``max_grids`` grids holding the most peaks, each as it stands and
    fitted to the cell outlines from the longest reach, judged with the peaks counted on
    their cells, and kept only when ``sides_agree(H, layout)`` (the board's sides found
    again where the grid puts them). The caller applies its own score bar. ``near_arcs``:
    judged on the rings' near sides (``_judge``)."""
    size_wh = (work_f.shape[1], work_f.shape[0])
    placed: list[tuple[int, float, FloatArray, float, EdgeConfig]] = []
    for quad in quads:
        for rotation, _, radius, shape in config.board_families:
            lo, hi = (config.diagonal_side_range if rotation == 45.0
                      else config.axis_side_range)
            grids = quad_grids(quad, np.arange(lo, hi + 1e-9, config.outline_search_side_step),
                               rotation)
            if not grids:
                continue
            n_peaks = np.array([peaks_on_grid(peaks[0], H, config) for H in grids])
            if n_peaks.max() < config.min_candidates_on_grid:
                continue  # the judge would refuse every one
            e = replace(edge, shape=shape)
            most = np.flatnonzero(n_peaks == n_peaks.max())
            support = [ring_support(work_f, grids[k], radius, e, tol_px=2.0) for k in most]
            k = int(most[int(np.argmax(support))])
            if plausible_grid(grids[k], size_wh, config.min_ring_axis_px,
                              config.max_foreshortening):
                placed.append((int(n_peaks[k]), max(support), grids[k], radius, e))
    placed.sort(key=lambda c: (-c[0], -c[1]))
    best: Fitted | None = None
    no_shift = 1e9  # ``best_window``'s margin: this window's own figures, never another's
    for _, _, H0, radius, e in placed[:max_grids]:
        reaches = tuple(max(1.0, f * _pitch_px(H0)) for f in config.reach_schedule)
        Hf, rf, _, ef = grow_fit(work_f, H0, radius, reaches, e,
                                 np.zeros((0, 2), dtype=np.int64), measure=False)
        for H, r, ee in ((H0, radius, e), (Hf, rf, ef)):
            cells: list[FloatArray] = []
            _, inner, outer = best_window(work_f, H, r, ee, no_shift, cells)
            judged = _judge(work_f, H, r, ee, inner, outer, [], peaks[0], config, cells[0],
                            near_arcs=near_arcs)
            if judged is None or (best is not None and judged[0] <= best[2]):
                continue
            if not sides_agree(H, judged[1]):
                continue
            best = (H, r, judged[0], ee, judged[1])
    return best


def _outline_search(frame: NDArray[np.uint8], work: NDArray[np.uint8],
                    work_f: NDArray[np.float32], edge: EdgeConfig,
                    peaks: tuple[FloatArray, FloatArray], config: LocateConfig,
                    starts_out: list[FloatArray] | None = None) -> Fitted | None:
    """The grid placed inside a board's outline, for a crowded board seen from low down
    whose rings are mostly hidden (``outline_search*`` in ``LocateConfig``): the best
    judged grid (work pixels) whose board's four sides are found where it puts them, or
    None.

    For each refined outline and board family the grid is centred and turned with the
    square, its side over the pitch the one whose cells hold most of the network's peaks
    (``peaks``: work pixels and scores; then most ring support). The grids holding the
    most peaks, each as it stands and fitted to the cell outlines from the longest reach,
    are judged (the peaks counted on their cells, ``_judge``) and must find the board's
    outline again around themselves (``outline_corner_pitch``)."""
    quads = _refined_quads(frame, work, work_f, edge, peaks, config, starts_out)
    best = _judged_inside(quads, work_f, edge, peaks, config, config.outline_search_max_grids,
                          lambda H, lay: not outline_corner_pitch(work_f, H, lay, edge, config)
                          > config.outline_search_max_corner_pitch)
    if best is None or best[2] < config.min_board_score:
        return None
    log.debug("board placed inside its outline (score %.2f)", best[2])
    return best


def near_side_pitch(work_f: NDArray[np.float32], H: FloatArray, lay: LayoutFit,
                    edge: EdgeConfig, config: LocateConfig,
                    chroma: Sequence[NDArray[np.float32]] = ()) -> float:
    """How far (pitches) the board's three sides a low camera sees past the pieces (the near
    side and the two running away from it, ``quad.near_sides``), searched around the square
    the grid ``H`` and layout ``lay`` imply, lie from that square's: the larger of the two
    near corners' distances and the far corners' distances from the lateral lines found;
    infinite when a side is not found. ``chroma``: the sides' edges searched in these
    chroma channels too (``quad.near_sides``)."""
    corners = _board_square(H, lay.rotation_deg, lay.side)
    if not np.all(np.isfinite(corners)):
        return math.inf
    k = far_side(corners)
    a, d, c, b = (corners[(k + j) % 4] for j in range(4))
    best = math.inf
    for b2, c2, a2, d2 in near_sides(work_f, corners, edge.min_edge, config,
                                          nearest=True, chroma=chroma,
                                          face_top=not config.near_outline_check_nearest):
        gap = [float(np.hypot(*(b2 - b))), float(np.hypot(*(c2 - c)))]
        for p, q, far in ((b2, a2, a), (c2, d2, d)):
            v = (q - p) / max(float(np.hypot(*(q - p))), 1e-9)
            gap.append(abs(float(v[0] * (far - p)[1] - v[1] * (far - p)[0])))
        best = min(best, max(gap))
    return best / _pitch_px(H)


def _near_outline_search(frame: NDArray[np.uint8], work: NDArray[np.uint8],
                         work_f: NDArray[np.float32], edge: EdgeConfig,
                         peaks: tuple[FloatArray, FloatArray], config: LocateConfig,
                         starts: list[FloatArray] | None = None) -> Fitted | None:
    """The grid placed inside a board outline completed from its three sides a low camera
    sees past the pieces (``near_outline_*`` in ``LocateConfig``): the best judged grid
    (work pixels) whose near sides are found where it puts them, or None.

    Seen from 25-32 degrees, a crowded board's far side runs behind the pieces, so its
    outline is not found whole (``_outline_search``); its near side and the two sides
    running away from the camera are (a piece standing on a cell never hides the board's
    edge nearest the camera). Those three lines fix the square up to the camera's focal
    length (``quad.complete_square``), tried over ``near_outline_hfovs``; the grids inside
    are placed, fitted and judged as ``_outline_search`` does, and must find the three sides
    again around themselves (``near_side_pitch``). ``starts``: the rough outlines
    (``_outline_starts``) when the outline search made them already."""
    size_wh = (work_f.shape[1], work_f.shape[0])
    chroma = (chroma_channels(frame, size_wh, config.smooth_sigma_px)
              if config.near_outline_chroma else [])
    quads: list[FloatArray] = []
    for start in starts if starts else _outline_starts(frame, work, peaks, config):
        if not np.all(np.isfinite(start)):
            continue
        found = near_sides(work_f, start, edge.min_edge, config)
        if chroma:
            found += near_sides(work_f, start, edge.min_edge, config, chroma=chroma)
        for b, c, a2, d2 in found:
            for hfov in config.near_outline_hfovs:
                intr = Intrinsics.from_fov(size_wh, hfov)
                q = complete_square(b, c, a2, d2, intr.fx, (intr.cx, intr.cy))
                if (q is not None and np.all(np.isfinite(q))
                        and cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2))
                        and all(quad_distance(q, k) > config.quad_refine_tol_px
                                for k in quads)):
                    quads.append(q)
    best = _judged_inside(quads, work_f, edge, peaks, config, config.near_outline_max_grids,
                          lambda H, lay: not near_side_pitch(work_f, H, lay, edge, config,
                                                             chroma)
                          > config.near_outline_max_corner_pitch,
                          near_arcs=config.near_outline_arc_contrast)
    if best is None or best[2] < config.near_outline_min_score:
        return None
    log.debug("board placed inside its near sides (score %.2f)", best[2])
    return best


def _radius_search(work_f: NDArray[np.float32], edge: EdgeConfig,
                   peaks: tuple[FloatArray, FloatArray], config: LocateConfig,
                   ) -> Fitted | None:
    """The network's full lattices (``peak_full_lattice`` peaks or more) fitted again from
    every cell shape and each of ``radius_search_steps`` ring radii over
    ``ring_radius_range``, each start fitted and judged alone as ``fit_grid`` does (the
    peaks counted, the fit kept near the lattice); the best grid judged at
    ``min_peak_board_score`` or more (work pixels), or None.

    ``size_outlines`` sizes a lattice's cells by the radius whose outlines meet the most
    edges where the lattice lies; on a crowded board seen from low down the lattice lies a
    few tenths of a pitch off and the pieces' outlines make those edges, and the fit from
    that radius stays on them, while the fit from the rings' own size finds the rings."""
    hyps = [h for h in peak_hypotheses(peaks[0], peaks[1], config)
            if h.inliers >= config.peak_full_lattice]
    radii = np.linspace(*config.ring_radius_range, config.radius_search_steps)
    best: Fitted | None = None
    for hyp in hyps:
        for shape in ("circle", "square"):
            for r in radii:
                start = replace(hyp, radius=float(r), shape=shape, support=None)
                f = fit_grid(work_f, [start], config, edge, peaks=peaks[0])
                if f is not None and (best is None or f[2] > best[2]):
                    best = f
    if best is None or best[2] < config.min_peak_board_score:
        return None
    log.debug("board found from a lattice sized again (score %.2f)", best[2])
    return best


def _line_marking_recheck(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    lay: LayoutFit, peaks: FloatArray, config: LocateConfig,
) -> tuple[FloatArray, float, EdgeConfig, LayoutFit]:
    """The judged grid (work pixels) whose marking is an edge, fitted again from it as a
    thin line of each polarity (``reach_schedule``), each judged with the network's
    ``peaks`` as the evidence, as the grid itself is again: the best refit replaces the grid
    when it is judged more than ``line_marking_recheck_margin`` higher
    (``line_marking_recheck``); otherwise the grid, radius, marking and layout unchanged.

    A step edge is what a piece's silhouette and foot make on the board, where the rings'
    arcs are; an engraved or printed ring is a line, which no piece makes. The marking is
    chosen by the matches' agreement on one grid (``fit._best_marking``), and a crowded
    board's silhouettes agree well enough to pull the grid off."""
    cells: list[FloatArray] = []
    _, inner, outer = best_window(work_f, H_work, radius, edge, 1e9, cells)
    own = _judge(work_f, H_work, radius, edge, inner, outer, [], peaks, config, cells[0])
    bar = (own[0] if own is not None else -math.inf) + config.line_marking_recheck_margin
    best: tuple[float, FloatArray, float, EdgeConfig, LayoutFit] | None = None
    reaches = tuple(max(1.0, f * _pitch_px(H_work)) for f in config.reach_schedule)
    for polarity in (1, -1):
        Hf, rf, _, ef = fit_rings(work_f, H_work, radius, reaches,
                                  replace(edge, mode="line", polarity=polarity), measure=False)
        cells.clear()
        _, inner, outer = best_window(work_f, Hf, rf, ef, 1e9, cells)
        judged = _judge(work_f, Hf, rf, ef, inner, outer, [], peaks, config, cells[0])
        if judged is not None and judged[0] > bar and (best is None or judged[0] > best[0]):
            best = (judged[0], Hf, rf, ef, judged[1])
    if best is None:
        return H_work, radius, edge, lay
    log.debug("the grid refitted on a line marking (%.2f over %.2f)", best[0], bar)
    return best[1], best[2], best[3], best[4]


def _refit_near_arcs(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    scale: float, intrinsics: Intrinsics | None, size_wh: tuple[int, int],
    config: LocateConfig, low_views: bool = True,
) -> tuple[FloatArray, float]:
    """The grid (work pixels) fitted again to the near side of each cell outline only
    (``fit.NearArcs``): pieces lean away from the camera's foot, so only their rings' near
    sides are never hidden or imitated by them. The foot is found from the grid under the
    calibrated camera or, without one, the default field of view (a direction is all that
    is needed). Views from ``near_arc_min_elevation_deg`` up fit the ring radius too; lower
    ones (``near_arc_low_views`` and ``low_views``) hold it, and the grid is kept when the
    refit degenerates."""
    foot, elevation = _camera_foot(H_work, scale, intrinsics, size_wh, config)
    if elevation < config.near_arc_min_elevation_deg:
        if not (config.near_arc_low_views and low_views):
            return H_work, radius
        # From low down the near arcs are thin and all on one side of their rings: a
        # ring's size and its place along the line of sight trade off, so the radius the
        # whole outlines gave is held (``radius_range`` empty: the fit keeps its radius).
        edge = replace(edge, radius_range=(radius, radius))
    return _plausible_refit(work_f, H_work, radius, edge, config, config.near_arc_reaches,
                            arcs=NearArcs(foot, config.near_arc_min_cos))


def _plausible_refit(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    config: LocateConfig, reach_pitches: tuple[float, ...], *,
    nodes: FloatArray = GRID_NODES, arcs: NearArcs | None = None,
) -> tuple[FloatArray, float]:
    """``fit_rings`` from the grid (work pixels) at reaches of ``reach_pitches`` of its
    pitch, on ``nodes``' outlines (or ``arcs`` of them); the grid unchanged when the refit
    is not a plausible board."""
    pitch = _pitch_px(H_work)
    reaches = tuple(max(1.0, f * pitch) for f in reach_pitches)
    H_new, r_new, _, _ = fit_rings(work_f, H_work, radius, reaches, edge, nodes=nodes,
                                   measure=False, arcs=arcs)
    work_wh = (work_f.shape[1], work_f.shape[0])
    if not plausible_grid(H_new, work_wh, config.min_ring_axis_px, config.max_foreshortening):
        return H_work, radius
    return H_new, r_new


def occupied_cells(work_f: NDArray[np.float32], H_work: FloatArray, foot: FloatArray,
                   config: LocateConfig) -> NDArray[np.bool_]:
    """(16,) which cells of the grid ``H_work`` (work pixels; ``GRID_NODES`` order) hold a
    piece, by their grey level: the median over a disc of 0.22 pitch around the cell's
    centre on the board plane (a piece stands there from any view: its foot, body or top)
    against the board's own, the median of the board just outside the outer rings on the
    side facing the camera's ``foot`` (grid units; pieces lean away from it, so none covers
    that side); a cell whose grey differs from the board's by more than
    ``occupancy_grey_share`` of it is taken as occupied."""
    ang = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    ring = np.column_stack([np.cos(ang), np.sin(ang)])
    disc = np.vstack([[0.0, 0.0], 0.12 * ring, 0.22 * np.roll(ring, 1, axis=0)])
    # The board beyond the outer rings (whose outer edges lie 1.95 pitches out), along
    # 32 directions; those within 60 degrees of the foot's.
    a = np.linspace(0.0, 2.0 * math.pi, 32, endpoint=False)
    out = np.column_stack([np.cos(a), np.sin(a)])
    to_foot = foot - 1.5
    near = out @ to_foot >= 0.5 * max(float(np.hypot(*to_foot)), 1e-9)
    if float(np.hypot(*to_foot)) < 1.0:
        near[:] = True  # the camera above the grid: no piece leans over the board
    band = 1.5 + np.vstack([2.05 * out[near], 2.15 * out[near]])
    pts = np.vstack([(GRID_NODES[:, None, :] + disc[None]).reshape(-1, 2), band])
    px = apply_h(H_work, pts)
    grey = sample(work_f, px[:, 0], px[:, 1])
    n_cell = len(GRID_NODES) * len(disc)
    cells = np.median(grey[:n_cell].reshape(len(GRID_NODES), -1), axis=1)
    board = float(np.median(grey[n_cell:]))
    return np.asarray(np.abs(cells - board) > config.occupancy_grey_share * max(board, 1.0))


def _refit_empty_cells(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    scale: float, intrinsics: Intrinsics | None, size_wh: tuple[int, int],
    config: LocateConfig,
) -> tuple[FloatArray, float]:
    """The grid (work pixels) fitted again to the outlines of the cells judged empty
    (``occupied_cells``) only, when at least ``occupancy_refit_min_empty`` are, spread over
    three rows and three columns; otherwise the grid unchanged. A dark piece's foot and
    silhouette on a light board are edges of the polarity of an engraved ring's outer edge,
    where its arcs are; an empty cell's outline is the ring's alone."""
    foot, _ = _camera_foot(H_work, scale, intrinsics, size_wh, config)
    occupied = occupied_cells(work_f, H_work, foot, config)
    empty = GRID_NODES[~occupied]
    if (not occupied.any() or len(empty) < config.occupancy_refit_min_empty
            or len(np.unique(empty[:, 0])) < 3 or len(np.unique(empty[:, 1])) < 3):
        return H_work, radius
    return _plausible_refit(work_f, H_work, radius, edge, config,
                            config.occupancy_refit_reaches, nodes=empty)


def ring_descent_support(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    foot: FloatArray, config: LocateConfig,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Each cell's ring searched down the image of the vertical (``LocateConfig.
    ring_descent``): the rings of the plane below the grid ``H_work`` (work pixels) seen on
    the grid's own plane, each cell's moved towards the camera's ``foot`` (grid units) by
    ``shifts`` pitches and shrunk alike (a plane lowered is the judged one scaled about the
    foot), scored on their near arcs (``fit.NearArcs``).

    Returns
    -------
    shifts : (S,) float
        The shifts searched (pitches towards the foot), from ``ring_descent_rise`` above
        the grid (negative: a ring's peak at no shift is then seen whole, both sides).
    support : (16, S) float
        Share of each cell's near-arc samples with an edge of the marking within
        ``ring_descent_tol_px`` (samples outside the image count as missing).
    toward : (16, 2) float
        Each cell's unit direction towards the foot (grid units; 0 for cells within half
        a pitch of it, which are not moved).
    """
    step = config.ring_descent_step
    lo = -step * math.ceil(config.ring_descent_rise / step - 1e-9)
    shifts = lo + step * np.arange(round((config.ring_descent_max_shift - lo) / step) + 1)
    off, rad = cell_outline(radius, edge.samples_per_ring, edge.shape)
    d = foot[None, :] - GRID_NODES
    dist = np.hypot(d[:, 0], d[:, 1])
    far = dist >= 0.5  # cells over the foot barely move: a lowered plane is scaled about it
    u = np.where(far[:, None], d / np.maximum(dist, 1e-9)[:, None], 0.0)
    centres = GRID_NODES[:, None, :] + shifts[None, :, None] * u[:, None, :]
    lam = np.where(far[:, None], 1.0 - shifts[None, :] / np.maximum(dist, 1e-9)[:, None], 1.0)
    lam = np.maximum(lam, 0.5)
    # Near arcs: the samples whose outward normal faces the foot (every sample near it).
    keep = ((rad @ u.T) >= config.near_arc_min_cos) | ~far[None, :]  # (n, 16)
    n_s, n_r = len(shifts), len(off)
    pts = centres[:, :, None, :] + (radius * lam)[:, :, None, None] * (off / radius)[None, None]
    pts = pts.reshape(-1, 2)
    nrm_grid = np.broadcast_to(rad[None, None], (16, n_s, n_r, 2)).reshape(-1, 2)
    use = np.broadcast_to(keep.T[:, None, :], (16, n_s, n_r)).reshape(-1)
    px = apply_h(H_work, pts)
    h, w = work_f.shape
    inside = use & (px[:, 0] >= 1) & (px[:, 0] < w - 1) & (px[:, 1] >= 1) & (px[:, 1] < h - 1)
    hit = np.zeros(len(px), dtype=np.float64)
    if inside.any():
        nrm = image_normals(H_work, pts[inside], nrm_grid[inside], pts_px=px[inside])
        if config.ring_descent_strength:
            hit[inside] = _marking_response(work_f, px[inside], nrm, edge)
        else:
            found, _ = edge_search(work_f, px[inside], nrm, config.ring_descent_tol_px, edge)
            hit[inside] = np.isfinite(found)
    n_use = np.maximum(keep.sum(axis=0), 1)  # (16,)
    support = hit.reshape(16, n_s, n_r).sum(axis=2) / n_use[:, None]
    return (np.asarray(shifts, dtype=np.float64), np.asarray(support, dtype=np.float64),
            np.asarray(u, dtype=np.float64))


def _marking_response(gray_f: NDArray[np.float32], px: FloatArray, nrm: FloatArray,
                      edge: EdgeConfig) -> FloatArray:
    """(N,) the marking's own response right at each point (no search): a step's
    derivative along the normal (``edge.polarity``; either sign when 0) or a line's
    contrast against both sides, in grey levels, 0 where of the wrong sign."""
    k = edge.line_halfwidth_px if edge.mode == "line" else 1.0
    a = sample(gray_f, px[:, 0] - k * nrm[:, 0], px[:, 1] - k * nrm[:, 1]).astype(np.float64)
    b = sample(gray_f, px[:, 0] + k * nrm[:, 0], px[:, 1] + k * nrm[:, 1]).astype(np.float64)
    if edge.mode == "line":
        c = sample(gray_f, px[:, 0], px[:, 1]).astype(np.float64)
        r = c - 0.5 * (a + b)
    else:
        r = 0.5 * (b - a)
    return np.abs(r) if edge.polarity == 0 else np.maximum(edge.polarity * r, 0.0)


def ring_descent_picks(shifts: FloatArray, support: FloatArray,
                       config: LocateConfig) -> FloatArray:
    """(16,) each cell's ring in ``ring_descent_support``'s profile: the shift of the
    lowest ring (the largest shift) at a local maximum of the support holding at least
    ``ring_descent_keep`` of the cell's best and ``ring_descent_min_support``, taken at the
    middle of the run of shifts within 0.05 of that maximum (the edge search's tolerance
    makes a ring's peak a plateau a few steps wide); NaN where no shift qualifies."""
    picks = np.full(len(support), np.nan)
    for c, prof in enumerate(support):
        best = float(prof.max())
        lo = max(config.ring_descent_keep * best, config.ring_descent_min_support)
        left = np.concatenate([[-np.inf], prof[:-1]])
        right = np.concatenate([prof[1:], [-np.inf]])
        ok = np.flatnonzero((prof >= left) & (prof >= right) & (prof >= lo))
        if not len(ok):
            continue
        k = int(ok[-1])
        top = prof[k] - (config.ring_descent_peak_share * prof[k]
                         if config.ring_descent_strength else 0.05)
        a = k
        while a > 0 and prof[a - 1] >= top:
            a -= 1
        b = k
        while b < len(prof) - 1 and prof[b + 1] >= top:
            b += 1
        if (a == 0 or b == len(prof) - 1
                or shifts[b] - shifts[a] > config.ring_descent_max_plateau):
            # Still rising at either end of the search (the next ring's), or no one
            # place: a plateau wider than a ring's peak (an outline sliding along itself).
            continue
        picks[c] = 0.5 * (shifts[a] + shifts[b])
    return picks


def _ring_descent(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    scale: float, intrinsics: Intrinsics | None, size_wh: tuple[int, int],
    config: LocateConfig,
) -> tuple[FloatArray, float]:
    """The grid (work pixels) refitted through each cell's own ring, found down the image
    of the vertical (``LocateConfig.ring_descent``), when enough cells are sure and they
    say the grid stands above the board; otherwise the grid unchanged."""
    if edge.shape != "circle":
        # A square outline slid along its own sides keeps its support: no place to pick.
        return H_work, radius
    foot, _ = _camera_foot(H_work, scale, intrinsics, size_wh, config)
    shifts, support, toward = ring_descent_support(work_f, H_work, radius, edge, foot, config)
    picks = ring_descent_picks(shifts, support, config)
    sure = np.flatnonzero(np.isfinite(picks))
    if len(sure) < config.ring_descent_min_cells:
        return H_work, radius
    img = apply_h(H_work, GRID_NODES[sure] + picks[sure][:, None] * toward[sure])
    # The cells that agree on one board plane (RANSAC, within ``ring_descent_agree`` of a
    # pitch); each cell's pick alone may be a neighbour's arc or a piece's edge.
    tol = config.ring_descent_agree * _pitch_px(H_work)
    H_new, mask = cv2.findHomography(GRID_NODES[sure], img, cv2.RANSAC, tol)
    if H_new is None or mask is None or not usable_h(H_new):
        return H_work, radius
    inl = mask.ravel().astype(bool)
    if inl.sum() < config.ring_descent_min_cells:
        return H_work, radius
    moved = picks[sure][inl]
    if float(np.median(moved)) < config.ring_descent_min_shift:
        return H_work, radius
    if (config.ring_descent_min_occupied
            and occupied_cells(work_f, H_work, foot, config).sum()
            < config.ring_descent_min_occupied):
        # Only pieces stand above the board to lift a grid off it: on a board judged (nearly)
        # empty, a "lower ring" is another of the board's own markings.
        return H_work, radius
    H_new, _ = cv2.findHomography(GRID_NODES[sure][inl], img[inl], 0)
    if H_new is None or not usable_h(H_new):
        return H_work, radius
    work_wh = (work_f.shape[1], work_f.shape[0])
    if not plausible_grid(H_new, work_wh, config.min_ring_axis_px, config.max_foreshortening):
        return H_work, radius
    log.debug("ring descent: %d sure cells, median shift %.3f", len(sure), np.median(moved))
    if not config.ring_descent_reaches:
        return H_new, radius
    foot_new, _ = _camera_foot(H_new, scale, intrinsics, size_wh, config)
    return _plausible_refit(work_f, H_new, radius, edge, config, config.ring_descent_reaches,
                            arcs=NearArcs(foot_new, config.near_arc_min_cos))


def _camera_foot(H_work: FloatArray, scale: float, intrinsics: Intrinsics | None,
                 size_wh: tuple[int, int], config: LocateConfig) -> tuple[FloatArray, float]:
    """The point of the board below the camera (grid units) and the camera's elevation
    (degrees) implied by a grid (work pixels), under the calibrated camera or, without one,
    the default field of view (a direction is all the callers need)."""
    K = (intrinsics or Intrinsics.from_fov(size_wh, config.default_hfov_deg)).matrix
    S = np.diag([1.0 / scale, 1.0 / scale, 1.0])
    camera = pose_from_homography(S @ H_work, K).camera_center  # grid units
    foot = camera[:2]
    return foot, math.degrees(math.atan2(abs(camera[2]), math.hypot(*(foot - 1.5))))


def _outline_grid(
    work_f: NDArray[np.float32], H_work: FloatArray, radius: float, edge: EdgeConfig,
    lay: LayoutFit, scale: float, intrinsics: Intrinsics | None, size_wh: tuple[int, int],
    config: LocateConfig,
) -> tuple[FloatArray, LayoutFit]:
    """The grid (work pixels) and layout placed by the board's outline instead of the
    judged grid, when the big circle says the judged grid is off and the outline's grid
    finds it clearly better (``outline_grid*`` in ``LocateConfig``); otherwise the judged
    grid and layout unchanged (the same objects).

    The board's four sides are found along the judged grid's outline (``refine_quad``),
    and the grid inside them is the layout's, centred and turned with the square; its one
    unknown, the board's side over the pitch, is the one whose rings' near sides
    (``fit.NearArcs``, which no piece hides or imitates) are found on the most points."""
    if (lay.layout != LAYOUT_DIAGONAL
            or lay.circle_score >= config.outline_grid_max_circle):
        return H_work, lay
    foot, elevation = _camera_foot(H_work, scale, intrinsics, size_wh, config)
    if elevation < config.outline_grid_min_elevation_deg:
        return H_work, lay
    corners = _board_square(H_work, lay.rotation_deg, lay.side)
    quads = refine_quad(work_f, corners, edge.min_edge, config)
    if not quads:
        return H_work, lay
    lo, hi = config.diagonal_side_range
    sides = np.arange(lo, hi + 1e-9, config.outline_grid_ratio_step)
    grids = [H for q in quads for H in quad_grids(q, sides, lay.rotation_deg)]
    # Any step of either sign: the judged grid's marking was chosen over whole outlines,
    # tops included, and a ring's near side shows as a line's edge or a recess's alike.
    support = near_arc_support(work_f, grids, radius, NearArcs(foot, config.near_arc_min_cos),
                               replace(edge, mode="edge", polarity=0))
    H_new = grids[int(np.argmax(support))]
    lay_new = fit_layout(work_f, H_new, config, edge)
    if (lay_new.layout == LAYOUT_DIAGONAL
            and lay_new.circle_score >= lay.circle_score + config.outline_grid_min_gain):
        return H_new, lay_new
    return H_work, lay


def _fit_with_frame(
    work_f: NDArray[np.float32], scale: float, H: FloatArray, radius: float, lay: LayoutFit,
    size_wh: tuple[int, int], intrinsics: Intrinsics | None, config: LocateConfig,
    score: float, edge: EdgeConfig, rings: EdgeMatches, view: BoardView | None,
) -> BoardView:
    """The camera fitted to the ring edges plus the board's outline and big circle (see
    :func:`frame_correspondences`), found along the grid ``H`` (full-resolution pixels);
    when too little of them is seen, to the rings alone (with the distortion). ``view``:
    a camera fitted to the rings before (the fit's start), or None.

    The outline is searched in the smoothed working image: its edges are long and strong,
    and five pitches of base make half-resolution edges precise enough."""
    S = np.diag([scale, scale, 1.0])
    for k in range(config.frame_rounds):
        frame = frame_correspondences(
            work_f, S @ H, lay, edge, config.frame_reach_pitch * _pitch_px(S @ H),
            min_share=config.frame_min_share, tol_pitch=config.frame_tol_pitch,
            n=config.outline_samples, span=config.outline_span)
        if len(frame.grid) < config.frame_min_points:
            if k and view is not None:
                return view
            # The outline is not seen: the rings alone, with the distortion.
            return build_view(H, radius, lay, size_wh, intrinsics, config,
                              min(1.0, score / config.full_score), rings, start=view)[0]
        frame = frame._replace(image=frame.image / scale)
        view, H = build_view(H, radius, lay, size_wh, intrinsics, config,
                             min(1.0, score / config.full_score),
                             EdgeMatches.join(rings, frame), start=view)
    assert view is not None
    return view


def _search(frame: NDArray[np.uint8], work: NDArray[np.uint8], work_f: NDArray[np.float32],
            edge: EdgeConfig, config: LocateConfig,
            ) -> tuple[tuple[FloatArray, float, float, EdgeConfig, LayoutFit] | None, int, int]:
    """The search from ring candidates: their lattices, and board outlines where no lattice
    holds enough rings, all fitted and judged with the ring candidates as the independent
    evidence. Returns the best fit (or None), the number of hypotheses and of candidates.
    The best fit is refused when its layout is axis-aligned with a side under
    ``ring_search_min_axis_side`` pitches (the outer cells' outline, not a board's).

    The network's lattices are not tried again here: on the development renders, adding
    them found 3 more boards of 250 and misplaced 3 (a lattice partly on piece tops, fitted
    to the pieces' outlines), against none misplaced without them.
    """
    ells = find_ellipses(work, config)
    hyps = lattice_hypotheses(ells, config, keep=config.max_lattice_hypotheses)
    if not hyps or max(h.inliers for h in hyps) < config.rings_fix_grid:
        # Rings are scarce: board outlines guess the grid too.
        qscale = min(1.0, config.quad_width_px / work.shape[1])
        small = work if qscale == 1.0 else cv2.resize(work, None, fx=qscale, fy=qscale,
                                                       interpolation=cv2.INTER_AREA)
        colour = _shrink(frame, (small.shape[1], small.shape[0]))
        kept: list[FloatArray] = []
        for q in board_quads(small, config, colour):
            hyps.extend(quad_hypotheses(q / qscale, config))
            for refined in refine_quad(work_f, q / qscale, edge.min_edge, config):
                # Rough outlines of one board often refine to the same lines: judge it once.
                if all(quad_distance(refined, k) > config.quad_refine_tol_px for k in kept):
                    kept.append(refined)
                    hyps.extend(quad_hypotheses(refined, config))
    if not hyps:
        return None, 0, len(ells)
    best = fit_grid(work_f, hyps, config, edge, ells)
    if (best is not None and best[4].rotation_deg == 0.0
            and best[4].side < config.ring_search_min_axis_side):
        # No board family is axis-aligned and this small: the "board" is the outer cells'
        # own outline, the grid on the tops of tall pieces, whose rims are the rings seen.
        log.debug("guard axis-side: the ring search's grid refused (%.2f, axis side %.2f)",
                  best[2], best[4].side)
        best = None
    return best, len(hyps), len(ells)


def _shrink(image: NDArray[np.uint8], size_wh: tuple[int, int]) -> NDArray[np.uint8]:
    """``image`` averaged down to ``size_wh`` (area interpolation), halved exactly first
    while it is at least twice as big: OpenCV's area resize is ~3x faster for whole
    factors, and the two steps average the same pixels to within a grey level or two."""
    while image.shape[1] >= 2 * size_wh[0] and image.shape[0] >= 2 * size_wh[1]:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2),
                           interpolation=cv2.INTER_AREA)
    return cv2.resize(image, size_wh, interpolation=cv2.INTER_AREA)


def _grid_window(H: FloatArray, size_wh: tuple[int, int], margin_px: float,
                 ) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) holding the grid extended by one cell on every side (the
    cell outlines reach half a cell beyond the outer centres), plus ``margin_px``."""
    return _box(apply_h(H, np.array([[-1.0, -1.0], [4.0, -1.0], [4.0, 4.0], [-1.0, 4.0]])),
                size_wh, margin_px)


def _box(ext: FloatArray, size_wh: tuple[int, int], margin_px: float,
         ) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1) around points plus a margin, inside the image (the whole
    image when a point is not finite)."""
    w, h = size_wh
    if not np.all(np.isfinite(ext)):
        return 0, 0, w, h
    lo = np.floor(ext.min(axis=0) - margin_px)
    hi = np.ceil(ext.max(axis=0) + margin_px)
    x0, y0 = int(np.clip(lo[0], 0, w - 1)), int(np.clip(lo[1], 0, h - 1))
    x1, y1 = int(np.clip(hi[0], x0 + 1, w)), int(np.clip(hi[1], y0 + 1, h))
    return x0, y0, x1, y1


def build_view(
    H_grid: FloatArray, radius: float, lay: LayoutFit, size_wh: tuple[int, int],
    intrinsics: Intrinsics | None, config: LocateConfig, support: float,
    matches: EdgeMatches | None = None, start: BoardView | None = None,
    fit_distortion: bool = True,
) -> tuple[BoardView, FloatArray]:
    """BoardView from a grid homography (full-resolution pixels) and a layout.

    With ``matches`` (model points in grid units matched to image edge points) the camera is
    fitted to them directly; otherwise it is decomposed from the homography. ``start``: a
    view of the same board fitted before, whose camera the fit starts from.
    ``fit_distortion``: try a radial distortion when uncalibrated (see ``LocateConfig``).
    Also returns the grid homography the camera implies (for another round of matching).
    """
    p = config.nominal_pitch_for(lay.layout)
    to_grid = board_to_grid(lay.rotation_deg) @ np.diag([1.0 / p, 1.0 / p, 1.0])
    probe = intrinsics or Intrinsics.from_fov(size_wh, config.default_hfov_deg)
    if pose_from_homography(H_grid @ to_grid, probe.matrix).camera_center[2] < 0:
        # The lattice was found mirrored (rows counted the other way): flip it.
        to_grid = _MIRROR @ to_grid
    H_board = H_grid @ to_grid
    default = Intrinsics.from_fov(size_wh, config.default_hfov_deg)
    if intrinsics is None:
        intr, _ = intrinsics_for(H_board, size_wh, config.default_hfov_deg,
                                 config.hfov_range_deg, config.max_focal_elevation_deg)
    else:
        intr = intrinsics
    pose: Pose | None = None
    if matches is not None and len(matches.grid) >= config.min_camera_points:
        from_grid = np.linalg.inv(to_grid)
        board_xy = apply_h(from_grid, matches.grid)
        normals, groups, dirs = matches.full()
        fit = partial(camera_from_points, board_xy, matches.image,
                      normals=normals, groups=groups, slide_dirs=dirs @ from_grid[:2, :2].T)
        K0, pose0 = intr.matrix, None
        if start is not None:
            K0, pose0 = start.camera.intrinsics.matrix, start.camera.pose
        K, cam_pose, rms, k1 = fit(K0, fix_focal=intrinsics is not None, pose0=pose0)
        if intrinsics is None and fit_distortion and config.fit_radial_distortion:
            # A wide lens bends the board's lines; a k1 is kept when it explains the edges
            # clearly better (an undistorted view gains ~0 from the extra parameter).
            K_d, pose_d, rms_d, k1_d = fit(K, fix_focal=False, pose0=cam_pose, fit_k1=True)
            lo, hi = config.k1_range
            if rms_d < config.distortion_rms_ratio * rms and lo <= k1_d <= hi:
                K, cam_pose, k1 = K_d, pose_d, k1_d
        f = float(K[0, 0])
        hfov = math.degrees(2.0 * math.atan(size_wh[0] / 2.0 / f)) if f > 0 else math.nan
        ill = (camera_elevation_deg(cam_pose) > config.max_fit_focal_elevation_deg
               or not config.hfov_range_deg[0] <= hfov <= config.hfov_range_deg[1])
        if intrinsics is None and ill:
            # A field of view no camera has (a fit gone wrong): keep the default one.
            K, cam_pose, _, k1 = fit(default.matrix, fix_focal=True)
        if cam_pose.camera_center[2] > 0:
            pose = cam_pose
            if intrinsics is None:
                intr = Intrinsics(float(K[0, 0]), float(K[1, 1]), default.cx, default.cy,
                                  default.size_wh, (k1, 0.0, 0.0, 0.0, 0.0))
    if pose is None:
        # No camera fitted to the ring edges: the pose from the homography (``intr`` is
        # still the one it was fitted with; only an accepted camera fit replaces both).
        pose, _ = refine_pose(H_board, intr.matrix, 2.0 * p)
    spec = BoardSpec(
        side_m=lay.side * p,
        cell_pitch_m=p,
        cell_diameter_m=2.0 * radius * p,
        grid_rotation_deg=lay.rotation_deg,
        big_circle_radius_m=lay.big_circle * p,
    )
    view = BoardView(Camera(intr, pose), spec, calibrated=intrinsics is not None,
                     score=float(support))
    H_cam = view.camera.board_homography() @ np.linalg.inv(to_grid)
    return view, H_cam / H_cam[2, 2]
