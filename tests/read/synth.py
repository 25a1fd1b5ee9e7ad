"""A tiny synthetic scene painter for reader tests: flat-shaded pieces on a plain board.

Pieces are painted far to near with the camera model of a ``BoardView`` (body = projected
hull of the bottom and top outlines, top face lighter, a dark hole for hollow pieces), so the
ground truth is exact and the test does not depend on the renderer.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.rules.board import Cell
from vision.rules.pieces import Piece

F_FRAC = 0.72  # footprint / ring diameter, the reader's nominal value


def make_view(elevation_deg: float = 55.0, azimuth_deg: float = 20.0,
              distance_m: float = 0.55, size_wh: tuple[int, int] = (1280, 720)) -> BoardView:
    el, az = np.radians(elevation_deg), np.radians(azimuth_deg)
    eye = distance_m * np.array([np.sin(az) * np.cos(el), -np.cos(az) * np.cos(el), np.sin(el)])
    cam = Camera(Intrinsics.from_fov(size_wh, 60.0), Pose.look_at(eye, np.zeros(3)))
    return BoardView(cam, BoardSpec.gigamic(), calibrated=True)


def _outline(view: BoardView, cell: Cell, piece: Piece, z: float, f: float,
             scale: float = 1.0) -> np.ndarray:
    cx, cy = view.spec.cell_center(cell)
    if piece.value("shape") == "square":
        a = np.radians(view.spec.grid_rotation_deg) + np.array([0.25, 0.75, 1.25, 1.75]) * np.pi
        a = np.repeat(a, 1)
        r = 0.45 * f * np.sqrt(2.0) * scale
    else:
        a = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
        r = 0.5 * f * scale
    pts = np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(len(a), z)])
    return view.project(pts)


def paint(view: BoardView, pieces: dict[Cell, Piece], *, short_f: float = 1.1,
          tall_f: float = 2.1, seed: int = 0, footprint_scale: float = 1.0,
          top_bgr: tuple[int, int, int] | None = None) -> np.ndarray:
    """A (H, W, 3) uint8 BGR image of ``pieces`` standing on a dark board in a grey room
    (``footprint_scale``: the set's footprint against the reader's nominal one; ``top_bgr``:
    every top face painted that colour, as a lamp mirrored in glossy tops)."""
    w, h = view.camera.intrinsics.size_wh
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 170, np.uint8)
    cv2.fillConvexPoly(img, np.round(view.corners_px()).astype(np.int32), (40, 38, 36))
    for cell in view.cells:
        ring = np.round(view.cell_ring_px(cell)).astype(np.int32)
        cv2.polylines(img, [ring], True, (60, 170, 200), 2, cv2.LINE_AA)
    f = F_FRAC * view.spec.cell_diameter_m * footprint_scale
    order = sorted(pieces, key=lambda c: -float(
        view.camera.depth(np.array([[*view.spec.cell_center(c), 0.0]]))[0]))
    for cell in order:
        piece = pieces[cell]
        hgt = (tall_f if piece.value("height") == "tall" else short_f) * f
        light = piece.value("color") == "light"
        body = np.array((150, 200, 225) if light else (40, 60, 110), np.float64)
        bottom = _outline(view, cell, piece, 0.0, f)
        top = _outline(view, cell, piece, hgt, f)
        hull = cv2.convexHull(np.vstack([bottom, top]).astype(np.float32))
        cv2.fillConvexPoly(img, np.round(hull.reshape(-1, 2)).astype(np.int32),
                           tuple(int(v) for v in body * 0.8), cv2.LINE_AA)
        top_colour = top_bgr or tuple(int(v) for v in np.minimum(body * 1.15, 255))
        cv2.fillPoly(img, [np.round(top).astype(np.int32)], top_colour, cv2.LINE_AA)
        if piece.value("top") == "hollow":
            cx, cy = view.spec.cell_center(cell)
            a = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)
            hole = view.project(np.column_stack([cx + 0.3 * f * np.cos(a),
                                                 cy + 0.3 * f * np.sin(a), np.full(32, hgt)]))
            cv2.fillPoly(img, [np.round(hole).astype(np.int32)],
                         tuple(int(v) for v in body * 0.3), cv2.LINE_AA)
    noise = rng.normal(0.0, 2.0, img.shape)
    img = np.clip(img.astype(np.float64) + noise, 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(img, (3, 3), 0.8)
