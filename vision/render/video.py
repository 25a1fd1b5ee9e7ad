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
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.render.compose import SceneRenderer, piece_ident
from vision.render.effects import NoisePool, develop
from vision.render.film import GameFilm, VideoConfig, ease
from vision.render.games import GamePlan, Timing, expected_events, plan_game
from vision.render.hands import ID_HAND
from vision.render.labels import board_label, camera_label, write_label
from vision.render.meshes import Drawable, piece_drawable
from vision.render.raster import Painter, apply_grain, drawable_bbox, sort_back_to_front
from vision.render.rig import blend_cameras, camera_sample_from
from vision.render.scene import Scene, SceneOptions, sample_scene
from vision.render.shading import Occluders, shadow_masks
from vision.rules.lines import Rules

logger = logging.getLogger(__name__)


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
    pieces_beside: bool = False,
    config: VideoConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Render a scripted game to ``out_path`` (MP4, 'mp4v') and its sidecar ``.json``.

    Returns the sidecar label: fps, frame count, size, per-camera-segment camera and cells,
    moves (cell, piece, ``t_placed``, ``t_hand_left``), the expected events (DESIGN.md section
    4, from the rules core), camera bumps, lighting changes, hovers and nudges.
    ``pieces_beside`` stands the unplayed pieces beside the board, where hands fetch them
    (listed in the label with the time each is picked up).
    """
    cfg = config or VideoConfig()
    if pieces_beside:
        cfg = dataclasses.replace(cfg, pieces_beside=True)
    out = Path(out_path)
    if out.suffix.lower() != ".mp4":
        raise ValueError(f"out_path must end in .mp4, got {str(out)!r}")
    # Fetching a piece from beside the board makes each reach longer.
    timing = Timing(reach=(1.5, 2.0)) if cfg.pieces_beside else None
    plan = plan_game(seed, script, max_moves=max_moves, timing=timing)
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
    board_mask: np.ndarray | None = None
    last_over: dict[int, float] = {}  # gesture index -> last time a hand covered the board
    try:
        for k in range(n_frames):
            t = k / fps
            seg, blend = film.camera_at(t)
            cam = (
                film.cameras[seg]
                if blend >= 1.0
                else blend_cameras(film.cameras[0], film.cameras[1], blend)
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
                    board_mask = _board_mask(rend)
                assert static_lin is not None
                static_dev, _ = develop(
                    static_lin, eff, rend.lighting.illuminant, None, exposure_scale=exp
                )
            assert static_lin is not None and static_ids is not None and static_dev is not None
            frame = static_dev.copy()
            if dynamic:
                over = _composite(
                    frame,
                    static_lin,
                    static_ids,
                    static_drawables,
                    dynamic,
                    rend,
                    eff,
                    exp,
                    scene.texture_seed,
                    board_mask,
                )
                if over:
                    for i, g in enumerate(plan.gestures):
                        if g.t_start <= t < g.t_hand_left:
                            last_over[i] = t
            writer.write(noise.apply(frame))
            if progress is not None:
                progress(k + 1, n_frames)
    finally:
        writer.release()
    measured = _hands_cleared(plan, last_over, fps)
    label = _video_label(out, seed, script, measured, plan, scene, film, fps, n_frames)
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
    return float(cache[0] * (cache[state] / cache[0]) ** ease(s)), True


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
    board_mask: np.ndarray | None,
) -> bool:
    """Draw hands and moving pieces over the static layer; develop only their region.

    Returns whether any hand pixel covers the board's outline in the image.
    """
    cam = rend.pin
    w, h = cam.intrinsics.size_wh
    boxes = [b for b in (drawable_bbox(d, cam, (w, h)) for d in dynamic) if b is not None]
    if not boxes:
        return False
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
    # Same painter as the static layer (cast shadows between pieces), so redrawn pieces match.
    occluders = Occluders.from_drawables([d for d in statics + dynamic if d.kind == "piece"])
    painter = Painter(lin, ids, cam, rend.lighting, occluders=occluders)
    for d in sort_back_to_front(dynamic, cam):
        _draw_with_grain(painter, d, texture_seed)
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
        _draw_with_grain(painter, d, texture_seed)
    if len(xs):
        # The hand's shadow takes away the lamps' direct light from everything but the hand.
        dark_full = cv2.resize(dark, (ws * step, hs * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
        dark_full = np.where(ids == ID_HAND, 0.0, dark_full).astype(np.float32)
        lin *= (1.0 - dark_full)[:, :, None]
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
    if board_mask is None:
        return False
    return bool(np.any((ids[y0:y1, x0:x1] == ID_HAND) & (board_mask[y0:y1, x0:x1] > 0)))


def _draw_with_grain(painter: Painter, d: Drawable, texture_seed: int) -> None:
    painter.draw(d)
    if d.grain > 0 and painter.canvas is not None:
        foot = 2.0 * d.contact[1] if d.contact is not None else 0.03
        rng = np.random.default_rng([texture_seed, d.ident])
        apply_grain(painter.canvas, painter.ids, d, painter.camera, rng, foot)


def _board_mask(rend: SceneRenderer) -> np.ndarray | None:
    """Pixels inside the board's top outline (pinhole canvas)."""
    if rend.scene.spec is None:
        return None
    w, h = rend.pin.intrinsics.size_wh
    mask = np.zeros((h, w), np.uint8)
    corners = rend.pin.project(rend.scene.spec.corners())
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    return mask


def _hands_cleared(plan: GamePlan, last_over: dict[int, float], fps: float) -> GamePlan:
    """The plan with each gesture's ``t_hand_left`` measured from the pixels: the first frame
    after its piece is down (hover: after it turns back; nudge: after the push) in which no
    hand covers the board, which is what a watcher can see."""
    gestures = []
    for i, g in enumerate(plan.gestures):
        cleared = max(g.t_placed, last_over.get(i, g.t_placed) + 1.0 / fps)
        gestures.append(dataclasses.replace(g, t_hand_left=round(min(cleared, g.t_hand_left), 3)))
    measured = dataclasses.replace(plan, gestures=gestures)
    measured.events = expected_events(measured, Rules.classic())
    return measured


def _video_label(
    out: Path,
    seed: int,
    script: str,
    plan: GamePlan,
    scripted: GamePlan,
    scene: Scene,
    film: GameFilm,
    fps: float,
    n_frames: int,
) -> dict[str, Any]:
    """The sidecar label; ``plan`` has the measured hand times, ``scripted`` the planned ones."""
    exits = {(g.kind, g.t_start): g.t_hand_left for g in scripted.gestures}
    segments = []
    starts = [0.0] + [round(t + film.cfg.bump_duration_s, 3) for t in plan.camera_bumps]
    for cam, t0 in zip(film.cameras, starts, strict=True):
        sc = dataclasses.replace(scene, camera=camera_sample_from(cam, scene.camera.roll_deg))
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
            "t_hand_left": g.t_hand_left,  # no hand over the board any more (from the pixels)
            "t_hand_enter": g.t_start,
            "t_hand_exit": exits[(g.kind, g.t_start)],  # the hand is out of the scene
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
                "t_hand_left": g.t_hand_left,
                "t_end": exits[(g.kind, g.t_start)],
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
                "t_hand_left": g.t_hand_left,
                "t_end": exits[(g.kind, g.t_start)],
                "offset_m": list(g.nudge_m),
                "yaw_deg": g.nudge_yaw_deg,
            }
            for g in plan.gestures
            if g.kind == "nudge"
        ],
        "pieces_beside": [
            {
                **p.piece.attributes,
                "piece_id": p.piece.code,
                "position_m": [round(v, 5) for v in p.position_m],
                "t_picked": round(film.pick_time.get(code, plan.duration), 3),
            }
            for code, p in sorted(film.spots.items())
        ],
        "renderer": "vision.render",
    }
