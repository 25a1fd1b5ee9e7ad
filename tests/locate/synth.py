"""Synthetic board images drawn with the camera model (no renderer needed); and a seeded
render read back with its label, with the worst cell error of a found board."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.evaluation.board import cell_errors
from vision.evaluation.labels import Label, load_label
from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose

if TYPE_CHECKING:
    from vision.render.scene import SceneOptions


def make_view(
    elevation_deg: float = 50.0, azimuth_deg: float = 30.0, distance_m: float = 0.6,
    hfov_deg: float = 65.0, spec: BoardSpec | None = None,
    size_wh: tuple[int, int] = (1280, 720),
    target: tuple[float, float] = (0.0, 0.0), roll_deg: float = 0.0,
) -> BoardView:
    spec = spec or BoardSpec.gigamic()
    e, a = math.radians(elevation_deg), math.radians(azimuth_deg)
    eye = np.array([
        target[0] + distance_m * math.cos(e) * math.sin(a),
        target[1] - distance_m * math.cos(e) * math.cos(a),
        distance_m * math.sin(e),
    ])
    up = np.array([0.0, 0.0, 1.0]) if elevation_deg < 89.0 else np.array([0.0, 1.0, 0.0])
    pose = Pose.look_at(eye, np.array([target[0], target[1], 0.0]), up=up, roll_deg=roll_deg)
    return BoardView(Camera(Intrinsics.from_fov(size_wh, hfov_deg), pose), spec, calibrated=True)


def _poly(view: BoardView, pts_xy: NDArray[np.float64], z: float = 0.0) -> NDArray[np.int32]:
    px = view.project(np.column_stack([pts_xy, np.full(len(pts_xy), z)]))
    return np.round(px * 16).astype(np.int32)


def draw_board(
    view: BoardView, *, seed: int = 0, board_bgr: tuple[int, int, int] = (45, 40, 40),
    ring_bgr: tuple[int, int, int] = (80, 190, 220),
    table_bgr: tuple[int, int, int] = (170, 180, 185),
    pieces: tuple[int, ...] = (), hand: bool = False, noise: float = 4.0,
) -> NDArray[np.uint8]:
    """A 1280x720-style image of the board seen by ``view``.

    ``pieces`` lists row-major cell indices holding a (drawn) cylinder; ``hand`` adds a skin-
    coloured blob over one board corner.
    """
    rng = np.random.default_rng(seed)
    w, h = view.camera.intrinsics.size_wh
    img = np.empty((h, w, 3), np.uint8)
    img[:] = table_bgr
    # Table texture: low-frequency stripes.
    yy, xx = np.mgrid[0:h, 0:w]
    stripes = (12 * np.sin(xx / 37.0 + 0.3 * np.sin(yy / 53.0))).astype(np.int16)
    img = np.clip(img.astype(np.int16) + stripes[..., None], 0, 255).astype(np.uint8)
    spec = view.spec
    s = spec.side_m / 2.0
    # Board body: side faces as a darker prism, then the top.
    thick = 0.015
    top = np.array([[-s, -s], [s, -s], [s, s], [-s, s]])
    for z, col in ((-thick, (30, 90, 200)), (0.0, board_bgr)):
        cv2.fillPoly(img, [_poly(view, top, z)], col, cv2.LINE_AA, 4)
    a = np.linspace(0, 2 * math.pi, 180, endpoint=False)
    circle = np.column_stack([np.cos(a), np.sin(a)])
    lw = max(1, round(w / 640))
    if spec.big_circle_radius_m > 0:
        cv2.polylines(img, [_poly(view, spec.big_circle_radius_m * circle)], True, ring_bgr, lw,
                      cv2.LINE_AA, 4)
    r = spec.cell_diameter_m / 2.0
    centres = spec.cell_centers()
    for c in centres:
        cv2.polylines(img, [_poly(view, c + r * circle)], True, ring_bgr, lw, cv2.LINE_AA, 4)
    # Pieces: cylinders drawn far to near so nearer ones cover farther ones.
    depth = view.camera.depth(np.column_stack([centres, np.zeros(16)]))
    for k in sorted(pieces, key=lambda k: -depth[k]):
        c = centres[k]
        pr = 0.016
        base = _poly(view, c + pr * circle)
        top_ = _poly(view, c + pr * circle, 0.06)
        hull = cv2.convexHull(np.vstack([base, top_]))
        col = (60, 120, 170) if k % 2 else (40, 50, 90)
        cv2.fillPoly(img, [hull], col, cv2.LINE_AA, 4)
        cv2.fillPoly(img, [top_], tuple(min(255, v + 40) for v in col), cv2.LINE_AA, 4)
    if hand:
        corner = view.project(np.array([[s, s, 0.0]]))[0]
        centre = view.project(np.array([[0.0, 0.0, 0.0]]))[0]
        p = corner + 0.25 * (centre - corner)
        size = float(np.linalg.norm(centre - corner))
        axes = (int(0.35 * size), int(0.2 * size))
        cv2.ellipse(img, (int(p[0]), int(p[1])), axes, 30, 0, 360, (120, 150, 210), -1,
                    cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape), 0, 255)
    return img.astype(np.uint8)


def draw_empty_table(seed: int = 0, size_wh: tuple[int, int] = (1280, 720)) -> NDArray[np.uint8]:
    """A table with a few random shapes and no board."""
    rng = np.random.default_rng(seed)
    w, h = size_wh
    img = np.full((h, w, 3), 160, np.uint8)
    for _ in range(25):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        col = tuple(int(v) for v in rng.integers(0, 255, 3))
        if rng.random() < 0.5:
            ax = (int(rng.integers(5, 60)), int(rng.integers(5, 60)))
            cv2.ellipse(img, c, ax, float(rng.uniform(0, 180)), 0, 360, col,
                        int(rng.integers(1, 4)))
        else:
            corner = (c[0] + int(rng.integers(10, 120)), c[1] + int(rng.integers(10, 80)))
            cv2.rectangle(img, c, corner, col, -1)
    return np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)


def render_labelled(seed: int, folder: Path, options: SceneOptions | None = None,
                    ) -> tuple[NDArray[np.uint8], Label]:
    """A seeded render written as JPEG with its sidecar label (as the evaluation reads
    renders), read back: the frame and its label."""
    from vision.render import render_still
    from vision.render.still import write_still

    image, raw = render_still(seed, options=options)
    path = write_still(folder / f"{seed}.jpg", image, raw)
    frame = cv2.imread(str(path))
    assert frame is not None, path
    return frame, load_label(path.with_suffix(".json"))


def max_cell_error(view: BoardView, label: Label) -> float:
    """The worst cell centre's distance from the label's, in cell spacings."""
    true = np.array([c.center_px for c in label.cells])
    return float(cell_errors(view.cell_centers_px(), true).max() / label.cell_spacing_px)


#: The near-side search's session-39 knobs (helper-39d, on since session 39) switched off:
#: for tests of other searches whose "nothing found" the near-side search would now answer
#: (with a grid about right: 1357079 0.10 pitch off; a small board 0.29 off, 2750010).
NEAR_OUTLINE_S38 = {
    "near_outline_arc_contrast": False,
    "near_outline_near_frame": False,
    "near_outline_arc_gates": False,
    "near_outline_peak_box_scales": (),
    "near_outline_face_max_share": float("inf"),
}
