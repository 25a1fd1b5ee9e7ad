"""Training targets from labelled renders (per-cell targets and target weights) and board poses
jittered the way the board finder errs.

The classifier is trained only on our own seeded renderer (``vision.render``); the labels are
read with ``vision.evaluation.labels.load_label``, the loader every evaluation uses.
"""

from __future__ import annotations

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
OUTPUTS: tuple[str, ...] = ("occupied", *ATTRIBUTES, "visible", "top_visible")


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
    pose = view.camera.pose
    # Board points X map to the camera as R (rot X + shift) + t.
    new = Pose(pose.R @ rot, pose.t + pose.R @ shift)
    return BoardView(Camera(view.camera.intrinsics, new), view.spec, view.calibrated, view.score)


def cell_targets(
    label: Label, cfg: TargetConfig | None = None
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(16, len(OUTPUTS)) targets and weights of one label's cells (``ALL_CELLS`` order)."""
    cfg = cfg or TargetConfig()
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
    return y, w
