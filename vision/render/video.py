"""Whole games as MP4 videos with ground truth: ``render_game(out, seed, script) -> label``.

Speed comes from layers: the static scene (board, placed pieces, clutter) is rendered and
developed once per (camera, lighting, set of placed pieces); each frame copies it, darkens it
under the hand's shadow, draws the hand and the moving piece, redraws the placed pieces that
stand in front of them, and develops only that region. Sensor noise is added per frame.
Lens distortion is off in videos (every frame would need a full remap).
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.geometry.camera import Camera, Pose
from vision.render.compose import SceneRenderer, piece_ident
from vision.render.effects import NoisePool, develop
from vision.render.games import GamePlan, Gesture, expected_events, plan_game
from vision.render.hands import HandLook, HandPose, hand_drawables, sample_hand_look
from vision.render.labels import board_label, camera_label, write_label
from vision.render.meshes import Drawable, piece_drawable
from vision.render.raster import Painter, apply_grain, drawable_bbox, sort_back_to_front
from vision.render.scene import CameraSample, Light, Placement, Scene, SceneOptions, sample_scene
from vision.render.shading import shadow_masks
from vision.rules.board import Cell
from vision.rules.lines import Rules

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class VideoConfig:
    """Framing and motion of game videos."""

    elevation_deg: tuple[float, float] = (30.0, 75.0)  # players' webcams look down obliquely
    board_fill: tuple[float, float] = (0.35, 0.65)  # leave room for the hands around the board
    carry_clearance_m: float = 0.04  # a carried piece passes this high above the tall pieces
    exit_distance_m: float = 0.55  # a hand that has left is this far from the board centre
    exit_height_m: float = 0.22
    bump_rotation_deg: tuple[float, float] = (2.0, 5.0)  # a knocked webcam turns this much
    bump_shift_m: tuple[float, float] = (0.01, 0.03)  # ... and moves this far
    bump_duration_s: float = 0.3
    exposure_adapt_s: float = 0.6  # auto exposure settles this long after a lamp goes on


def _ease(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3.0 - 2.0 * x)


def _camera_sample(camera: Camera, roll_deg: float) -> CameraSample:
    c = camera.pose.camera_center
    dist = float(np.linalg.norm(c))
    el = math.degrees(math.asin(max(-1.0, min(1.0, c[2] / dist))))
    az = math.degrees(math.atan2(c[1], c[0])) % 360.0
    return CameraSample(camera, el, az, dist, roll_deg)


def _bumped(camera: Camera, rng: np.random.Generator, cfg: VideoConfig) -> Camera:
    axis = rng.normal(0, 1, 3)
    axis /= np.linalg.norm(axis)
    ang = math.radians(float(rng.uniform(*cfg.bump_rotation_deg)))
    rot, _ = cv2.Rodrigues(axis * ang)
    shift = rng.normal(0, 1, 3)
    shift = shift / np.linalg.norm(shift) * float(rng.uniform(*cfg.bump_shift_m))
    R = rot @ camera.pose.R
    centre = camera.pose.camera_center + shift
    return Camera(camera.intrinsics, Pose(R, -R @ centre))


def _blend_cameras(a: Camera, b: Camera, s: float) -> Camera:
    rel = b.pose.R @ a.pose.R.T
    rvec, _ = cv2.Rodrigues(rel)
    part, _ = cv2.Rodrigues(rvec * s)
    R = part @ a.pose.R
    centre = (1 - s) * a.pose.camera_center + s * b.pose.camera_center
    return Camera(a.intrinsics, Pose(R, -R @ centre))


class GameFilm:
    """Evaluates a :class:`GamePlan` at any time: camera, lights, pieces and hands."""

    def __init__(self, seed: int, plan: GamePlan, scene: Scene, cfg: VideoConfig) -> None:
        self.plan, self.scene, self.cfg = plan, scene, cfg
        rng = np.random.default_rng([seed, 202])
        spec = scene.spec
        assert spec is not None
        pset = scene.piece_set
        az = math.radians(scene.camera.azimuth_deg + 90.0 + float(rng.normal(0, 20)))
        self.player_dirs = [
            np.array([math.cos(az), math.sin(az)]),
            -np.array([math.cos(az), math.sin(az)]),
        ]
        self.looks: list[HandLook] = [sample_hand_look(rng), sample_hand_look(rng)]
        self.final: dict[int, Placement] = {}  # by gesture position
        for i, g in enumerate(plan.gestures):
            if g.kind == "move" and g.piece is not None:
                foot = (
                    pset.square_side_m
                    if g.piece.value("shape") == "square"
                    else pset.round_diameter_m
                )
                slack = max(0.0, (spec.cell_diameter_m - foot) / 2.0)
                off = rng.normal(0, 0.25 * slack, 2).clip(-0.6 * slack, 0.6 * slack)
                xy = spec.cell_center(g.cell) + off
                yaw = spec.grid_rotation_deg + float(rng.normal(0, 6))
                self.final[i] = Placement(g.piece, (float(xy[0]), float(xy[1]), 0.0), yaw, g.cell)
        self.carry_z = pset.tall_height_m + cfg.carry_clearance_m
        cams = [scene.camera.camera]
        if plan.camera_bumps:
            cams.append(_bumped(cams[0], rng, cfg))
        self.cameras = cams
        self.lamp = Light(
            "lamp",
            (
                float(rng.uniform(-0.5, 0.5)),
                float(rng.uniform(-0.5, 0.5)),
                float(rng.uniform(0.45, 0.8)),
            ),
            float(rng.uniform(2600, 3300)),
            float(rng.uniform(1.2, 2.2)),
            float(rng.uniform(0.03, 0.06)),
        )

    # -- state at time t -----------------------------------------------------------------------
    def camera_at(self, t: float) -> tuple[int, float]:
        """(segment index, blend 0..1 towards it during a bump)."""
        if not self.plan.camera_bumps or t < self.plan.camera_bumps[0]:
            return 0, 1.0
        s = (t - self.plan.camera_bumps[0]) / self.cfg.bump_duration_s
        return 1, min(1.0, s)

    def lights_on(self, t: float) -> bool:
        return bool(self.plan.lighting_changes) and t >= self.plan.lighting_changes[0]

    def placements_at(self, t: float) -> tuple[list[Placement], list[Drawable]]:
        """Static placements and dynamic drawables (hands, carried or pushed piece) at ``t``."""
        static: dict[Cell, Placement] = {}
        dynamic: list[Drawable] = []
        pset = self.scene.piece_set
        for i, g in enumerate(self.plan.gestures):
            if g.kind == "move" and t >= g.t_placed:
                static[g.cell] = self.final[i]
            if g.kind == "nudge" and t >= g.t_over and g.cell in static:
                p = static[g.cell]
                s = _ease((t - g.t_over) / max(g.t_placed - g.t_over, 1e-3))
                xy = (p.position_m[0] + s * g.nudge_m[0], p.position_m[1] + s * g.nudge_m[1], 0.0)
                static[g.cell] = dataclasses.replace(
                    p, position_m=xy, yaw_deg=p.yaw_deg + s * g.nudge_yaw_deg
                )
        for i, g in enumerate(self.plan.gestures):
            if not g.t_start <= t < g.t_hand_left:
                continue
            pose, carried = self._hand(i, g, t, static)
            dynamic += hand_drawables(pose, self.looks[g.player])
            if carried is not None:
                d = piece_drawable(piece_ident(carried.piece.code), carried, pset)
                if carried.position_m[2] > 1e-4:
                    d.receiver_z, d.contact = 0.0, None
                dynamic.append(d)
        return list(static.values()), dynamic

    def _hand(
        self, i: int, g: Gesture, t: float, static: dict[Cell, Placement]
    ) -> tuple[HandPose, Placement | None]:
        pset = self.scene.piece_set
        spec = self.scene.spec
        assert spec is not None
        reach = -self.player_dirs[g.player]
        out = self.player_dirs[g.player] * self.cfg.exit_distance_m
        exit_pt = np.array([out[0], out[1], self.cfg.exit_height_m])
        target = self.final.get(i) if g.kind == "move" else None
        if g.kind == "nudge":
            p = static.get(g.cell)
            base = np.array(p.position_m if p else (*spec.cell_center(g.cell), 0.0))
            push = np.array([*g.nudge_m, 0.0])
            push_dir = push / (np.linalg.norm(push) + 1e-9)
            foot = pset.round_diameter_m
            touch = (
                base - push_dir * (foot / 2 + 0.012) + np.array([0, 0, pset.short_height_m * 0.5])
            )
            if t < g.t_over:
                grip = exit_pt + (touch - exit_pt) * _ease((t - g.t_start) / (g.t_over - g.t_start))
            elif t < g.t_placed:
                grip = touch + push * _ease((t - g.t_over) / (g.t_placed - g.t_over))
            else:
                start = touch + push
                grip = start + (exit_pt - start) * _ease(
                    (t - g.t_placed) / (g.t_hand_left - g.t_placed)
                )
            r = push_dir[:2] if np.linalg.norm(push) > 0 else reach
            return HandPose(tuple(grip), (float(r[0]), float(r[1])), 0.012, 30.0), None
        assert g.piece is not None
        tall = g.piece.value("height") == "tall"
        height = pset.tall_height_m if tall else pset.short_height_m
        foot = pset.square_side_m if g.piece.value("shape") == "square" else pset.round_diameter_m
        cell_xy = np.array(target.position_m[:2]) if target else spec.cell_center(g.cell)
        yaw = target.yaw_deg if target else spec.grid_rotation_deg
        down = np.array([cell_xy[0], cell_xy[1], 0.0])
        over = down + np.array([0, 0, self.carry_z])
        start = exit_pt - np.array([0, 0, 0.75 * height])
        grip_up = np.array([0, 0, 0.75 * height])
        if t < g.t_over:
            s = _ease((t - g.t_start) / (g.t_over - g.t_start))
            base = start + (over - start) * s + np.array([0, 0, 0.04 * math.sin(math.pi * s)])
            opening = foot
        elif g.kind == "hover" and t < g.t_placed:
            base = over + np.array([0.003 * math.sin(7 * t), 0.003 * math.cos(5 * t), 0.0])
            opening = foot
        elif g.kind == "hover":
            s = _ease((t - g.t_placed) / (g.t_hand_left - g.t_placed))
            base = over + (start - over) * s
            opening = foot
        elif t < g.t_placed:
            base = over + (down - over) * _ease((t - g.t_over) / (g.t_placed - g.t_over))
            opening = foot
        else:
            s = _ease((t - g.t_placed) / (g.t_hand_left - g.t_placed))
            grip = down + grip_up + (exit_pt - down - grip_up) * s
            opening = foot + 0.025 * min(1.0, 3 * s)
            return HandPose(tuple(grip), (float(reach[0]), float(reach[1])), opening), None
        carried = Placement(
            g.piece, (float(base[0]), float(base[1]), float(max(base[2], 0.0))), yaw, None
        )
        grip = base + grip_up
        return HandPose(tuple(grip), (float(reach[0]), float(reach[1])), opening), carried


def render_game(
    out_path: str | Path,
    seed: int,
    script: str = "random",
    *,
    size_wh: tuple[int, int] = (1280, 720),
    fps: float = 15.0,
    style: str | None = None,
    max_moves: int = 16,
    min_duration_s: float | None = None,
    config: VideoConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Render a scripted game to ``out_path`` (MP4, 'mp4v') and its sidecar ``.json``.

    Returns the sidecar label: fps, frame count, size, per-camera-segment camera and cells,
    moves (cell, piece, ``t_placed``, ``t_hand_left``), the expected events (DESIGN.md section
    4, from the rules core), camera bumps, lighting changes, hovers and nudges.
    """
    cfg = config or VideoConfig()
    out = Path(out_path)
    if out.suffix.lower() != ".mp4":
        raise ValueError(f"out_path must end in .mp4, got {str(out)!r}")
    plan = plan_game(seed, script, max_moves=max_moves)
    # The video lasts a whole number of frames; the game (if still open) ends with it.
    n_frames = math.ceil(max(plan.duration, min_duration_s or 0.0) * fps)
    plan.duration = n_frames / fps
    plan.events = expected_events(plan, Rules.classic())
    opts = SceneOptions(
        size_wh=size_wh,
        style=style,
        n_pieces=(0, 0),
        off_board_prob=0.0,
        distortion_prob=0.0,
        elevation_deg=cfg.elevation_deg,
        board_fill=cfg.board_fill,
        max_clutter=2,
    )
    scene = sample_scene(seed, opts, board_pieces={})
    scene = dataclasses.replace(scene, effects=dataclasses.replace(scene.effects, motion_len=0))
    film = GameFilm(seed, plan, scene, cfg)
    renderers = [SceneRenderer(scene)]
    if plan.lighting_changes:
        renderers.append(
            SceneRenderer(dataclasses.replace(scene, lights=(*scene.lights, film.lamp)))
        )
    w, h = size_wh
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), float(fps), (w, h))
    if not writer.isOpened():
        raise OSError(f"cannot open a video writer for {out}")
    noise = NoisePool(np.random.default_rng([seed, 303]), (w, h), scene.effects.iso_gain)
    exposures: dict[int, float] = {}
    cache_key: tuple[Any, ...] | None = None
    static_lin = static_ids = static_dev = None
    static_drawables: list[Drawable] = []
    try:
        for k in range(n_frames):
            t = k / fps
            seg, blend = film.camera_at(t)
            cam = (
                film.cameras[seg]
                if blend >= 1.0
                else _blend_cameras(film.cameras[0], film.cameras[1], blend)
            )
            light_state = int(film.lights_on(t))
            rend = renderers[light_state]
            static_pl, dynamic = film.placements_at(t)
            exp, adapting = _exposure(exposures, rend, film, light_state, t, cfg)
            key = (
                seg,
                round(blend, 4),
                light_state,
                tuple(sorted((p.piece.code, p.position_m, p.yaw_deg) for p in static_pl)),
            )
            eff = scene.effects
            if blend < 1.0:
                eff = dataclasses.replace(
                    eff, motion_len=9, motion_angle_deg=float(30 + 100 * blend)
                )
            if key != cache_key or adapting:
                if key != cache_key:
                    if rend.camera is not cam:
                        rend.set_camera(cam)
                    statics = [
                        piece_drawable(piece_ident(p.piece.code), p, scene.piece_set)
                        for p in static_pl
                    ]
                    static_lin, static_ids = rend.render_linear(statics + rend.clutter)
                    static_drawables = statics
                    cache_key = key
                assert static_lin is not None
                static_dev, _ = develop(
                    static_lin, eff, rend.lighting.illuminant, None, exposure_scale=exp
                )
            assert static_lin is not None and static_ids is not None and static_dev is not None
            frame = static_dev.copy()
            if dynamic:
                _composite(
                    frame,
                    static_lin,
                    static_ids,
                    static_drawables,
                    dynamic,
                    rend,
                    eff,
                    exp,
                    scene.texture_seed,
                )
            writer.write(noise.apply(frame))
            if progress is not None:
                progress(k + 1, n_frames)
    finally:
        writer.release()
    label = _video_label(out, seed, script, plan, scene, film, fps, n_frames)
    write_label(out.with_suffix(".json"), label)
    return label


def _exposure(
    cache: dict[int, float],
    rend: SceneRenderer,
    film: GameFilm,
    state: int,
    t: float,
    cfg: VideoConfig,
) -> tuple[float, bool]:
    """Auto exposure per lighting state, settling smoothly after a lamp goes on."""
    if state not in cache:
        probe = rend.render_linear(rend.clutter)[0]
        cache[state] = develop(probe, film.scene.effects, rend.lighting.illuminant, None)[1]
    if state == 0 or 0 not in cache:
        return cache[state], False
    s = (t - film.plan.lighting_changes[0]) / cfg.exposure_adapt_s
    if s >= 1.0:
        return cache[state], False
    return float(cache[0] * (cache[state] / cache[0]) ** _ease(s)), True


def _composite(
    frame: np.ndarray,
    static_lin: np.ndarray,
    static_ids: np.ndarray,
    statics: list[Drawable],
    dynamic: list[Drawable],
    rend: SceneRenderer,
    eff: Any,
    exposure: float,
    texture_seed: int,
) -> None:
    """Draw hands and moving pieces over the static layer; develop only their region."""
    cam = rend.pin
    w, h = cam.intrinsics.size_wh
    boxes = [b for b in (drawable_bbox(d, cam, (w, h)) for d in dynamic) if b is not None]
    if not boxes:
        return
    lin = static_lin.copy()
    ids = static_ids.copy()
    # The hand's shadow: remove the lamps' direct share of light where it falls.
    step = 2
    hs, ws = -(-h // step), -(-w // step)
    masks = shadow_masks(
        dynamic, rend.lighting, cam, (hs, ws), 1.0 / step, rend.px_per_m, rend.shadow_cfg
    )
    d0 = (
        rend.lighting.direct(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]))[:, 0]
        * rend.lighting.colours[:, 1]
    )
    share = d0 / (d0.sum() + rend.lighting.ambient[1])
    dark = np.tensordot(share.astype(np.float32), masks, axes=(0, 0))
    ys, xs = np.nonzero(dark > 0.01)
    if len(xs):
        boxes.append(
            (
                int(xs.min()) * step,
                int(ys.min()) * step,
                int(xs.max() + 1) * step,
                int(ys.max() + 1) * step,
            )
        )
        dark_full = cv2.resize(dark, (ws * step, hs * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
        lin *= (1.0 - dark_full)[:, :, None]
    painter = Painter(lin, ids, cam, rend.lighting)
    for d in sort_back_to_front(dynamic, cam):
        painter.draw(d)
        if d.grain > 0:
            apply_grain(lin, ids, d, cam, np.random.default_rng([texture_seed, d.ident]), 0.03)
    far = max(float(cam.depth(d.anchor[None])[0]) for d in dynamic)
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[2] for b in boxes)
    y1 = max(b[3] for b in boxes)
    nearer = [d for d in statics if float(cam.depth(d.anchor[None])[0]) < far]
    for d in sort_back_to_front(nearer, cam):
        b = drawable_bbox(d, cam, (w, h))
        if b is None or b[2] < x0 or b[0] > x1 or b[3] < y0 or b[1] > y1:
            continue
        painter.draw(d)
        if d.grain > 0:
            foot = 2.0 * d.contact[1] if d.contact is not None else 0.03
            apply_grain(lin, ids, d, cam, np.random.default_rng([texture_seed, d.ident]), foot)
    m = 8
    x0, y0, x1, y1 = max(0, x0 - m), max(0, y0 - m), min(w, x1 + m), min(h, y1 + m)
    region, _ = develop(
        lin[y0:y1, x0:x1],
        eff,
        rend.lighting.illuminant,
        None,
        exposure_scale=exposure,
        origin_xy=(x0, y0),
        full_wh=(w, h),
    )
    frame[y0 + 3 : y1 - 3, x0 + 3 : x1 - 3] = region[3:-3, 3:-3]


def _video_label(
    out: Path,
    seed: int,
    script: str,
    plan: GamePlan,
    scene: Scene,
    film: GameFilm,
    fps: float,
    n_frames: int,
) -> dict[str, Any]:
    segments = []
    starts = [0.0] + [round(t + film.cfg.bump_duration_s, 3) for t in plan.camera_bumps]
    for cam, t0 in zip(film.cameras, starts, strict=True):
        sc = dataclasses.replace(scene, camera=_camera_sample(cam, scene.camera.roll_deg))
        board, corners, cells = board_label(sc, cam)
        segments.append(
            {
                "t_start": t0,
                "camera": camera_label(sc),
                "board_corners_px": corners,
                "cells": cells,
                "board": board,
            }
        )
    moves = [
        {
            "index": g.index,
            "row": g.cell.row,
            "col": g.cell.col,
            "name": g.cell.name,
            "piece": g.piece.attributes if g.piece else None,
            "t_placed": g.t_placed,
            "t_hand_left": g.t_hand_left,
            "t_hand_enter": g.t_start,
        }
        for g in plan.moves
    ]
    first = segments[0]
    return {
        "video": out.name,
        "width": scene.size_wh[0],
        "height": scene.size_wh[1],
        "fps": fps,
        "frame_count": n_frames,
        "duration_s": round(n_frames / fps, 3),
        "seed": seed,
        "script": script,
        "board_style": scene.style,
        "camera": first["camera"],
        "board_corners_px": first["board_corners_px"],
        "cells": first["cells"],
        "board": first["board"],
        "pieces_set": scene.piece_set.label(),
        "segments": segments,
        "moves": moves,
        "events": plan.events,
        "camera_bumps": plan.camera_bumps,
        "lighting_changes": plan.lighting_changes,
        "hovers": [
            {
                "row": g.cell.row,
                "col": g.cell.col,
                "name": g.cell.name,
                "t_start": g.t_start,
                "t_end": g.t_hand_left,
            }
            for g in plan.gestures
            if g.kind == "hover"
        ],
        "nudges": [
            {
                "row": g.cell.row,
                "col": g.cell.col,
                "name": g.cell.name,
                "t_start": g.t_start,
                "t_end": g.t_hand_left,
                "offset_m": list(g.nudge_m),
                "yaw_deg": g.nudge_yaw_deg,
            }
            for g in plan.gestures
            if g.kind == "nudge"
        ],
        "renderer": "vision.render",
    }
