"""Training targets from labelled renders (per-cell targets and target weights) and board poses
jittered the way the board finder errs.

The classifier is trained only on our own seeded renderer (``vision.render``); the labels are
read with ``vision.evaluation.labels.load_label``, the loader every evaluation uses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.labels import Label
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Pose
from vision.rules.pieces import ATTRIBUTES, VALUES

#: The classifier's outputs, in column order: P(occupied), P(second value) of each attribute
#: (dark, square, tall, hollow), and the predicted shares of the piece and of its top in view.
REQUIRED_OUTPUTS: tuple[str, ...] = ("occupied", *ATTRIBUTES, "visible", "top_visible")
#: All outputs of a current model: the required ones, then ``top_size``, the apparent size of
#: the piece's top (see :func:`encode_top_size`), which lets the reader compare the pieces of
#: one board (``vision.learn.board_heights``). Models without it still load.
OUTPUTS: tuple[str, ...] = (*REQUIRED_OUTPUTS, "top_size")

#: ``top_size`` is the natural log of the top's apparent width (round diameter or square side)
#: as projected onto the board plane from the camera, in cell-ring diameters, mapped linearly
#: from this range onto [0, 1] (so that the network's sigmoid can carry it). The width is 0.54
#: to 0.66 ring diameters; perspective enlarges a top 3 to 50 % over its true width.
TOP_SIZE_LOG_RANGE: tuple[float, float] = (-0.8, 0.2)


def encode_top_size(log_size: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """Log apparent top width (ring diameters) -> the ``top_size`` output's [0, 1] scale."""
    lo, hi = TOP_SIZE_LOG_RANGE
    return np.clip((np.asarray(log_size, np.float64) - lo) / (hi - lo), 0.0, 1.0)


def decode_top_size(value: NDArray[np.float64] | float) -> NDArray[np.float64]:
    """The ``top_size`` output -> log apparent top width in ring diameters."""
    lo, hi = TOP_SIZE_LOG_RANGE
    return lo + np.asarray(value, np.float64) * (hi - lo)


def apparent_top_log_size(width_m: float, top_height_m: float, camera_height_m: float,
                          ring_diameter_m: float) -> float:
    """Log of the width of a top at ``top_height_m`` seen from a camera ``camera_height_m``
    above the board, projected onto the board plane (central projection from the camera
    centre scales a horizontal plane at height h by C / (C - h)), in ring diameters."""
    if camera_height_m <= top_height_m or width_m <= 0 or ring_diameter_m <= 0:
        raise ValueError(f"camera height {camera_height_m!r} m must exceed the top's "
                         f"{top_height_m!r} m, and widths must be positive")
    scale = camera_height_m / (camera_height_m - top_height_m)
    return float(np.log(width_m * scale / ring_diameter_m))


@dataclass(frozen=True)
class JitterConfig:
    """Board-pose errors simulated in training, as the board finder makes them."""

    #: Std of the board's in-plane shift, in cell pitches (a few % of the cell spacing).
    shift_pitch: float = 0.025
    #: Std of the rotation about the board normal, degrees.
    spin_deg: float = 0.6
    #: Std of the tilt about the board's in-plane axes, degrees.
    tilt_deg: float = 0.4
    #: Std of the board-height error, metres.
    lift_m: float = 0.0005
    #: Scale (Laplace) of the error of the focal length's natural log, at elevations up to
    #: ``focal_flat_deg`` and straight above: the uncalibrated finder takes the focal length
    #: from the board's foreshortening, which fades as the camera rises, so its errors grow
    #: with the elevation and have a long tail. 0 draws no focal error (and nothing from the
    #: generator, so the other draws stay as they were).
    focal_log_scale_low: float = 0.0
    focal_log_scale_top: float = 0.0
    #: The elevation (degrees) from which the scale grows, linearly, to the top one at 90.
    focal_flat_deg: float = 60.0


@dataclass(frozen=True)
class TargetConfig:
    """Which labels teach which output."""

    #: Attributes are taught only on pieces at least this visible (most of a hidden piece's
    #: pixels belong to the piece in front of it).
    min_visible: float = 0.3
    #: The top is taught only when at least this share of it is in view (the scorer's limit).
    min_top_visible: float = 0.5


def jitter_view(view: BoardView, rng: np.random.Generator, cfg: JitterConfig) -> BoardView:
    """The same board seen through a slightly wrong pose (shift, spin, tilt, lift)."""
    p = view.spec.cell_pitch_m
    shift = np.array([
        rng.normal(0.0, cfg.shift_pitch * p),
        rng.normal(0.0, cfg.shift_pitch * p),
        rng.normal(0.0, cfg.lift_m),
    ])
    rx, ry, rz = np.radians([rng.normal(0, cfg.tilt_deg), rng.normal(0, cfg.tilt_deg),
                             rng.normal(0, cfg.spin_deg)])
    rot, _ = cv2.Rodrigues(np.array([rx, ry, rz]))
    if cfg.focal_log_scale_low > 0 or cfg.focal_log_scale_top > 0:
        view = refocus_view(view, float(np.exp(rng.laplace(0.0, _focal_scale(view, cfg)))))
    pose = view.camera.pose
    # Board points X map to the camera as R (rot X + shift) + t.
    new = Pose(pose.R @ rot, pose.t + pose.R @ shift)
    return BoardView(Camera(view.camera.intrinsics, new), view.spec, view.calibrated, view.score)


def view_elevation_deg(view: BoardView) -> float:
    """The camera's elevation over the board plane, seen from the board's centre, degrees."""
    centre = view.camera.pose.camera_center
    return float(np.degrees(np.arctan2(abs(centre[2]), np.hypot(centre[0], centre[1]))))


def _focal_scale(view: BoardView, cfg: JitterConfig) -> float:
    rise = max(0.0, view_elevation_deg(view) - cfg.focal_flat_deg) / (90.0 - cfg.focal_flat_deg)
    return cfg.focal_log_scale_low + min(rise, 1.0) * (
        cfg.focal_log_scale_top - cfg.focal_log_scale_low)


def refocus_view(view: BoardView, factor: float) -> BoardView:
    """The board seen through a focal length ``factor`` times the view's, posed so that the
    board plane's image stays where it is (``vision.locate.pose.refine_pose``: the pose
    under the new focal length that best matches the plane's homography), as an
    uncalibrated fit that gets the focal length wrong still fits the rings: what moves is
    everything above the plane, the pieces' tops most."""
    # Imported here: vision.locate imports this package's network code.
    from vision.locate.pose import refine_pose

    intr = view.camera.intrinsics
    new_intr = dataclasses.replace(intr, fx=intr.fx * factor, fy=intr.fy * factor)
    pose, _ = refine_pose(view.camera.board_homography(), new_intr.matrix,
                          0.45 * view.spec.side_m)
    return BoardView(Camera(new_intr, pose), view.spec, view.calibrated, view.score)


def cell_targets(
    label: Label, cfg: TargetConfig | None = None
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(16, len(OUTPUTS)) targets and weights of one label's cells (``ALL_CELLS`` order)."""
    cfg = cfg or TargetConfig()
    size = _top_sizes(label)
    if len(label.cells) != 16:
        raise ValueError(f"{label.path}: expected 16 cells, got {len(label.cells)}")
    y = np.zeros((16, len(OUTPUTS)), np.float32)
    w = np.zeros_like(y)
    for c in label.cells:
        i = c.cell.row * 4 + c.cell.col
        y[i, 0] = c.piece is not None
        w[i, 0] = 1.0
        if c.piece is None:
            continue
        for k, attr in enumerate(ATTRIBUTES, start=1):
            y[i, k] = c.piece.value(attr) == VALUES[attr][1]
            ok = c.visible_fraction >= cfg.min_visible
            if attr == "top":
                ok = ok and c.top_visible_fraction >= cfg.min_top_visible
            w[i, k] = float(ok)
        y[i, 5] = c.visible_fraction
        y[i, 6] = c.top_visible_fraction
        w[i, 5] = w[i, 6] = 1.0
        if size is not None and c.top_visible_fraction >= cfg.min_top_visible:
            y[i, 7] = size[c.piece.value("shape")][c.piece.value("height")]
            w[i, 7] = 1.0
    return y, w


def _top_sizes(label: Label) -> dict[str, dict[str, float]] | None:
    """Encoded ``top_size`` target of each (shape, height) of the label's piece set, or None
    when the label does not give the set's sizes (then the output is not taught)."""
    pset = label.raw.get("pieces_set")
    if not isinstance(pset, dict) or label.board_view is None:
        return None
    try:
        widths = {"round": float(pset["round_diameter_m"]),
                  "square": float(pset["square_side_m"])}
        heights = {"short": float(pset["short_height_m"]), "tall": float(pset["tall_height_m"])}
    except (KeyError, TypeError, ValueError):
        return None
    cam_z = float(label.board_view.camera.pose.camera_center[2])
    ring = label.board_view.spec.cell_diameter_m
    return {
        shape: {h: float(encode_top_size(apparent_top_log_size(wd, hh, cam_z, ring)))
                for h, hh in heights.items()}
        for shape, wd in widths.items()
    }
