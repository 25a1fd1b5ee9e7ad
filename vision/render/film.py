"""A scripted game over time: camera, lamps, placed pieces and hands at any instant.

:class:`GameFilm` turns a :class:`~vision.render.games.GamePlan` (moves and gestures with
times) into what stands where at time ``t``; :mod:`vision.render.video` draws it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from vision.render.compose import piece_ident
from vision.render.games import GamePlan, Gesture
from vision.render.hands import HandLook, HandPose, hand_drawables, sample_hand_look
from vision.render.meshes import Drawable, piece_drawable
from vision.render.rig import bump_camera
from vision.render.scene import Light, Placement, Scene, off_board_placements
from vision.rules.board import Cell
from vision.rules.pieces import ALL_PIECES


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
    pieces_beside: bool = False  # unplayed pieces stand beside the board; hands pick them up
    pick_share: float = 0.45  # share of the reach spent getting to the piece beside the board


def ease(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3.0 - 2.0 * x)


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
            cams.append(bump_camera(cams[0], rng, cfg.bump_rotation_deg, cfg.bump_shift_m))
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
        # Unplayed pieces beside the board (own random stream: other videos stay the same).
        self.spots: dict[int, Placement] = {}
        self.pick_time: dict[int, float] = {}  # piece code -> when the hand lifts it
        self.first_gesture: dict[int, int] = {}  # piece code -> gesture that fetches it
        if cfg.pieces_beside:
            spot_rng = np.random.default_rng([seed, 204])
            table_z = -scene.board_thickness_m
            for pl in off_board_placements(spot_rng, spec, pset, list(ALL_PIECES), table_z):
                self.spots[pl.piece.code] = pl
            for i, g in enumerate(plan.gestures):
                if g.piece is not None and g.piece.code not in self.first_gesture:
                    self.first_gesture[g.piece.code] = i
                    self.pick_time[g.piece.code] = g.t_start + cfg.pick_share * (
                        g.t_over - g.t_start
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
                s = ease((t - g.t_over) / max(g.t_placed - g.t_over, 1e-3))
                xy = (p.position_m[0] + s * g.nudge_m[0], p.position_m[1] + s * g.nudge_m[1], 0.0)
                static[g.cell] = dataclasses.replace(
                    p, position_m=xy, yaw_deg=p.yaw_deg + s * g.nudge_yaw_deg
                )
        beside = [p for code, p in self.spots.items() if t < self.pick_time.get(code, math.inf)]
        for i, g in enumerate(self.plan.gestures):
            if not g.t_start <= t < g.t_hand_left:
                continue
            pose, carried = self._hand(i, g, t, static)
            dynamic += hand_drawables(pose, self.looks[g.player])
            if carried is not None:
                d = piece_drawable(piece_ident(carried.piece.code), carried, pset)
                if abs(carried.position_m[2]) > 1e-4:
                    d.receiver_z = 0.0  # lifted: its shadow falls on the board
                dynamic.append(d)
        return list(static.values()) + beside, dynamic

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
                grip = exit_pt + (touch - exit_pt) * ease((t - g.t_start) / (g.t_over - g.t_start))
            elif t < g.t_placed:
                grip = touch + push * ease((t - g.t_over) / (g.t_placed - g.t_over))
            else:
                start = touch + push
                grip = start + (exit_pt - start) * ease(
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
        spot = self.spots.get(g.piece.code)
        fetch = spot is not None and self.first_gesture.get(g.piece.code) == i
        if fetch and t < self.pick_time[g.piece.code]:
            # Reaching for the piece beside the board: the hand comes, the piece stands.
            assert spot is not None
            pick = np.array(spot.position_m) + grip_up
            s = ease((t - g.t_start) / (self.pick_time[g.piece.code] - g.t_start))
            grip = exit_pt + (pick + np.array([0, 0, 0.02]) - exit_pt) * s
            return HandPose(tuple(grip), (float(reach[0]), float(reach[1])), foot + 0.02), None
        if t < g.t_over:
            t0 = self.pick_time[g.piece.code] if fetch else g.t_start
            if fetch:
                assert spot is not None
                start = np.array(spot.position_m)
            s = ease((t - t0) / (g.t_over - t0))
            base = start + (over - start) * s + np.array([0, 0, 0.04 * math.sin(math.pi * s)])
            opening = foot
        elif g.kind == "hover" and t < g.t_placed:
            base = over + np.array([0.003 * math.sin(7 * t), 0.003 * math.cos(5 * t), 0.0])
            opening = foot
        elif g.kind == "hover":
            s = ease((t - g.t_placed) / (g.t_hand_left - g.t_placed))
            base = over + (start - over) * s
            opening = foot
        elif t < g.t_placed:
            base = over + (down - over) * ease((t - g.t_over) / (g.t_placed - g.t_over))
            opening = foot
        else:
            s = ease((t - g.t_placed) / (g.t_hand_left - g.t_placed))
            grip = down + grip_up + (exit_pt - down - grip_up) * s
            opening = foot + 0.025 * min(1.0, 3 * s)
            return HandPose(tuple(grip), (float(reach[0]), float(reach[1])), opening), None
        carried = Placement(g.piece, (float(base[0]), float(base[1]), float(base[2])), yaw, None)
        grip = base + grip_up
        return HandPose(tuple(grip), (float(reach[0]), float(reach[1])), opening), carried
