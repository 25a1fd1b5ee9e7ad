"""Ground truth: the sidecar JSON of a render, in the schema of ``../shared/photoreal_dev``.

``vision.evaluation.labels.load_label`` reads every label written here. Pixel positions use the
recorded camera, lens distortion included, so they match the finished image.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from vision.geometry.camera import Camera
from vision.render.meshes import Drawable
from vision.render.scene import Placement, Scene
from vision.rules.board import ALL_CELLS


def _r(v: float, nd: int = 2) -> float:
    return round(float(v), nd)


def _xy(p: np.ndarray, nd: int = 2) -> list[float]:
    return [_r(p[0], nd), _r(p[1], nd)]


def camera_label(scene: Scene) -> dict[str, Any]:
    """Intrinsics, pose and the sampling parameters of the scene's camera."""
    cam = scene.camera.camera
    K = cam.intrinsics
    out: dict[str, Any] = {
        "fx": K.fx,
        "fy": K.fy,
        "cx": K.cx,
        "cy": K.cy,
        "elevation_deg": scene.camera.elevation_deg,
        "azimuth_deg": scene.camera.azimuth_deg,
        "distance_m": scene.camera.distance_m,
        "R": cam.pose.R.tolist(),
        "t": cam.pose.t.tolist(),
        "hfov_deg": K.hfov_deg,
        "location": cam.pose.camera_center.tolist(),
        "roll_deg": scene.camera.roll_deg,
    }
    if K.has_distortion:
        out["dist_coeffs"] = [float(c) for c in K.dist_coeffs]
    return out


def piece_label(
    placement: Placement, drawable: Drawable, camera: Camera, visibility: tuple[float, float]
) -> dict[str, Any]:
    """One piece: attributes, visibility, where it is in the image and on the board."""
    pts = np.concatenate([g.verts.reshape(-1, 3) for g in drawable.groups])
    px = camera.project(pts)
    base = camera.project(np.asarray(placement.position_m)[None])[0]
    out: dict[str, Any] = dict(placement.piece.attributes)
    out.update(
        {
            "visible_fraction": round(visibility[0], 4),
            "top_visible_fraction": round(visibility[1], 4),
            "piece_id": placement.piece.code,
            "bbox_px": [
                _r(px[:, 0].min()),
                _r(px[:, 1].min()),
                _r(px[:, 0].max()),
                _r(px[:, 1].max()),
            ],
            "base_center_px": _xy(base),
            "position_m": [_r(v, 5) for v in placement.position_m],
            "yaw_deg": _r(placement.yaw_deg),
        }
    )
    return out


def board_label(
    scene: Scene, camera: Camera
) -> tuple[dict[str, Any] | None, list[list[float]] | None, list[dict[str, Any]]]:
    """``board``, ``board_corners_px`` and the 16 ``cells`` without pieces (or Nones/[])."""
    spec = scene.spec
    if spec is None:
        return None, None, []
    board = {
        "side_m": spec.side_m,
        "thickness_m": scene.board_thickness_m,
        "cell_diameter_m": spec.cell_diameter_m,
        "cell_pitch_m": spec.cell_pitch_m,
        "grid_rotation_deg": spec.grid_rotation_deg,
        "big_circle_radius_m": spec.big_circle_radius_m,
        "cell_marking": str(scene.board_look.get("cells")),
        "corner_radius_m": float(scene.board_look.get("corner_radius_m", 0.0)),  # type: ignore[arg-type]
    }
    corners = [_xy(p) for p in camera.project(spec.corners())]
    centres = camera.project(spec.cell_centers())
    cells = [
        {"row": c.row, "col": c.col, "center_px": _xy(centres[i]), "piece": None}
        for i, c in enumerate(ALL_CELLS)
    ]
    return board, corners, cells


def still_label(
    scene: Scene,
    drawables: dict[int, Drawable],
    visibility: dict[int, tuple[float, float]],
    image_name: str | None = None,
) -> dict[str, Any]:
    """The full sidecar label of a still.

    ``drawables`` and ``visibility`` are keyed by the index of the placement in
    ``scene.placements``; visibility is (visible fraction, top visible fraction).
    """
    cam = scene.camera.camera
    w, h = scene.size_wh
    board, corners, cells = board_label(scene, cam)
    off: list[dict[str, Any]] = []
    for i, pl in enumerate(scene.placements):
        lab = piece_label(pl, drawables[i], cam, visibility.get(i, (0.0, 0.0)))
        if pl.cell is not None:
            cells[pl.cell.row * 4 + pl.cell.col]["piece"] = lab
        else:
            off.append(
                {
                    k: lab[k]
                    for k in (
                        "color",
                        "shape",
                        "height",
                        "top",
                        "piece_id",
                        "position_m",
                        "base_center_px",
                        "visible_fraction",
                    )
                }
            )
    eff = scene.effects
    label: dict[str, Any] = {
        "image": image_name,
        "width": w,
        "height": h,
        "board_style": scene.style,
        "camera": camera_label(scene),
        "board_corners_px": corners,
        "cells": cells,
        "off_board_pieces": len(off),
        "off_board_detail": off,
        "board": board,
        "pieces_set": scene.piece_set.label(),
        "scene": {
            "table": scene.table_kind,
            "clutter": [c.kind for c in scene.clutter],
            "lights": [
                {
                    "kind": lt.kind,
                    "temperature_k": round(lt.temperature_k),
                    "irradiance": round(lt.illuminance, 3),
                    "spot": False,
                    "position_m": list(lt.position_m),
                }
                for lt in scene.lights
            ],
            "ambient": scene.ambient,
            "hand": scene.hand is not None,
            "exposure_bias_ev": eff.exposure_bias_ev,
        },
        "seed": scene.seed,
        "renderer": "vision.render",
        "postprocess": {
            "wb_strength": eff.wb_strength,
            "exposure_bias_ev": eff.exposure_bias_ev,
            "iso_gain": eff.iso_gain,
            "blur_sigma": eff.blur_sigma,
            "motion_len": eff.motion_len,
            "motion_angle_deg": eff.motion_angle_deg,
            "vignetting": eff.vignetting,
            "jpeg_quality": eff.jpeg_quality,
            "saturation": eff.saturation,
            "background_blur": eff.background_blur,
            "contrast": eff.contrast,
        },
    }
    if eff.sensor != "pixel":  # the default leaves every label as it was
        label["postprocess"]["sensor"] = eff.sensor
    return label


def write_label(path: str | Path, label: dict[str, Any]) -> None:
    """Write ``label`` as indented JSON (numbers as plain floats)."""
    Path(path).write_text(json.dumps(label, indent=1, default=_json_default) + "\n")


def _json_default(obj: object) -> object:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")
