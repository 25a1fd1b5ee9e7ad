"""Scene -> linear image and ID buffer: the table, the board, then objects back to front.

:class:`SceneRenderer` keeps everything that does not change while a scene is filmed (textures,
meshes, the camera with its distortion margin) so a video can render its static layer once and
add hands and a moving piece per frame.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry.camera import Camera, Intrinsics
from vision.render.effects import distortion_maps, required_margin
from vision.render.meshes import (
    Drawable,
    board_sides,
    clutter_drawable,
    piece_drawable,
    rounded_rect,
)
from vision.render.raster import (
    ID_BOARD,
    Painter,
    alone_pixel_counts,
    apply_grain,
    plane_hits,
    plane_irradiance,
    sort_back_to_front,
    texture_to_board_homography,
)
from vision.render.scene import Scene
from vision.render.shading import Lighting, Occluders, ShadowConfig, contact_mask, shadow_masks
from vision.render.textures import board_texture, room_texture, table_texture

logger = logging.getLogger(__name__)

ID_HAND = 4
ID_CLUTTER = 8  # + 4 * index
ID_PIECE = 32  # + 4 * piece code


@dataclass(frozen=True)
class RenderConfig:
    """Resolution and material knobs of the rasteriser."""

    table_texel_m: float = 0.0015  # table texture resolution: grain still visible near the board
    max_table_texels: int = 1600  # cap for huge (studio) tables
    board_texels_per_px: float = 1.1  # board texture size relative to its image width
    board_texels_range: tuple[int, int] = (384, 1600)
    shade_step: int = 2  # plane lighting is computed every this many pixels (it is smooth)
    table_gloss: float = 0.04  # varnish on tables: a soft highlight of the lamps
    board_gloss: float = 0.05  # lacquered board top
    dof_strength: float = 1.6  # how fast the table blurs with distance beyond the board
    max_canvas_ratio: float = 1.4  # pinhole canvas (with distortion margin) vs frame, in pixels


def piece_ident(code: int) -> int:
    return ID_PIECE + 4 * code


class SceneRenderer:
    """Renders one :class:`Scene` (its camera may be swapped for a bumped one)."""

    def __init__(
        self, scene: Scene, config: RenderConfig | None = None, camera: Camera | None = None
    ) -> None:
        self.scene = scene
        self.cfg = config or RenderConfig()
        self.shadow_cfg = ShadowConfig()
        self.lighting = Lighting(scene.lights, scene.ambient)
        self.set_camera(camera or scene.camera.camera)
        rng = np.random.default_rng(scene.texture_seed)
        self.table_z = -scene.board_thickness_m if scene.spec is not None else 0.0
        hx, hy = scene.table_half_extent_m
        if scene.table_kind == "studio":
            hx, hy = 4.0, 4.0
        self.table_half = (hx, hy)
        self.table_res = max(self.cfg.table_texel_m, 2 * max(hx, hy) / self.cfg.max_table_texels)
        shape = (int(2 * hy / self.table_res), int(2 * hx / self.table_res))
        alb = table_texture(rng, scene.table_kind, shape, self.table_res)
        self.table_rgba = np.dstack([alb, np.ones(shape, np.float32)])
        # The room is out of focus: a quarter-resolution image, enlarged when used.
        self.room = room_texture(rng, (self.size_wh[1] // 4 + 1, self.size_wh[0] // 4 + 1))
        if scene.table_kind == "studio":
            self.room[:] = alb.mean(axis=(0, 1))
        self.corner_radius = float(scene.board_look["corner_radius_m"])  # type: ignore[arg-type]
        self.board_rgba: np.ndarray | None = None
        self.pieces: dict[int, Drawable] = {}
        if scene.spec is not None:
            n = self._board_texels()
            self.board_rgba = board_texture(
                rng, scene.spec, scene.board_look, n, self.corner_radius
            )
            self.board_side = board_sides(
                scene.spec.side_m,
                scene.board_thickness_m,
                self.corner_radius,
                np.asarray(scene.board_look["edge"]),
            )
        for pl in scene.placements:
            self.pieces[pl.piece.code] = piece_drawable(
                piece_ident(pl.piece.code), pl, scene.piece_set
            )
        self.clutter = [
            clutter_drawable(ID_CLUTTER + 4 * i, c, self.table_z)
            for i, c in enumerate(scene.clutter[:6])
        ]

    # -- camera ------------------------------------------------------------------------------
    def set_camera(self, camera: Camera) -> None:
        """Use ``camera`` (with distortion) for the finished image; render through a pinhole.

        Barrel distortion pulls content from beyond the frame, so the pinhole canvas gets a
        margin; when that margin would make the canvas much larger than the frame, the canvas
        is rendered at a lower scale (the periphery is compressed by the lens anyway).
        """
        self.camera = camera
        intr = camera.intrinsics
        self.margin = required_margin(intr)
        m = self.margin
        w, h = intr.size_wh
        self.size_wh = (w, h)
        big_w, big_h = w + 2 * m, h + 2 * m
        s = min(1.0, math.sqrt(self.cfg.max_canvas_ratio * w * h / (big_w * big_h)))
        pin = Intrinsics(
            intr.fx * s,
            intr.fy * s,
            (intr.cx + m) * s,
            (intr.cy + m) * s,
            (round(big_w * s), round(big_h * s)),
        )
        self.pin = Camera(pin, camera.pose)
        self.maps = None
        self.frame_mask: np.ndarray | None = None  # canvas pixels that reach the final frame
        if intr.has_distortion:
            mx, my = distortion_maps(intr, m)
            self.maps = (mx * np.float32(s), my * np.float32(s))
            edge = np.concatenate(
                [
                    np.column_stack([self.maps[0][0, :], self.maps[1][0, :]]),
                    np.column_stack([self.maps[0][:, -1], self.maps[1][:, -1]]),
                    np.column_stack([self.maps[0][-1, ::-1], self.maps[1][-1, ::-1]]),
                    np.column_stack([self.maps[0][::-1, 0], self.maps[1][::-1, 0]]),
                ]
            )
            self.frame_mask = np.zeros((pin.size_wh[1], pin.size_wh[0]), np.uint8)
            cv2.fillPoly(self.frame_mask, [np.round(edge).astype(np.int32)], 1)
        self.px_per_m = pin.fx / max(float(np.linalg.norm(camera.pose.camera_center)), 0.05)

    def _board_texels(self) -> int:
        assert self.scene.spec is not None
        px = self.pin.project(self.scene.spec.corners())
        width = float(np.ptp(px[:, 0]) + np.ptp(px[:, 1])) / 1.4
        lo, hi = self.cfg.board_texels_range
        return int(np.clip(width * self.cfg.board_texels_per_px, lo, hi))

    # -- rendering ---------------------------------------------------------------------------
    def drawables(self, codes: set[int] | None = None) -> list[Drawable]:
        """Static objects: the pieces in ``codes`` (all when None) and the clutter."""
        ds = [d for c, d in self.pieces.items() if codes is None or c in codes]
        return ds + self.clutter

    def render_linear(self, drawables: list[Drawable]) -> tuple[np.ndarray, np.ndarray]:
        """Linear RGB canvas ``(H', W', 3) float32`` and ID buffer of the pinhole frame."""
        cam = self.pin
        w, h = cam.intrinsics.size_wh
        step = self.cfg.shade_step
        hs, ws = -(-h // step), -(-w // step)
        eye = cam.pose.camera_center
        spec = self.scene.spec
        on_board = [d for d in drawables if d.receiver_z >= -1e-6]
        board_occ: list[tuple[np.ndarray, float]] = []
        if spec is not None:
            ol = rounded_rect(spec.side_m / 2, spec.side_m / 2, self.corner_radius, 3)
            board_occ = [(np.column_stack([ol, np.zeros(len(ol))]), self.table_z)]
        args = (self.lighting, cam, (hs, ws), 1.0 / step, self.px_per_m, self.shadow_cfg)
        sh_table = shadow_masks(drawables, *args, extra_occluders=board_occ)
        contact = contact_mask(drawables, cam, (hs, ws), 1.0 / step, self.shadow_cfg)
        # Table and room.
        hits = plane_hits(cam, (w, h), self.table_z, 1)
        res = self.table_res
        hx, hy = self.table_half
        mx = (hits.x + hx) / res - 0.5
        my = (hy - hits.y) / res - 0.5
        mx[~hits.valid] = -10
        tex = cv2.remap(
            self.table_rgba,
            mx,
            my,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        coarse = plane_hits(cam, (w, h), self.table_z, 2 * step)
        irr, spec_t = plane_irradiance(
            coarse, self.table_z, self.lighting, sh_table, contact, eye, self.cfg.table_gloss, 60.0
        )
        irr_full = cv2.resize(irr, (w, h), interpolation=cv2.INTER_LINEAR)
        spec_full = cv2.resize(spec_t, (w, h), interpolation=cv2.INTER_LINEAR)
        table = tex[:, :, :3] * irr_full + spec_full
        room = self._room_canvas((w, h))
        a = tex[:, :, 3:4]
        canvas = table * a + room * (1.0 - a)
        # Depth of field: the far table and the room are out of focus.
        focus = float(np.linalg.norm(eye))
        blur = self.scene.effects.background_blur
        if blur > 0.3:
            far = np.clip((hits.dist / focus - 1.0) * self.cfg.dof_strength, 0, 1)
            far[~hits.valid] = 1.0
            far = np.maximum(far, 1.0 - a[:, :, 0])
            blurred = cv2.GaussianBlur(canvas, (0, 0), blur * w / 1280.0)
            canvas = canvas + (blurred - canvas) * far[:, :, None]
        canvas = np.ascontiguousarray(canvas, dtype=np.float32)
        ids = np.zeros((h, w), np.uint16)
        occluders = Occluders.from_drawables([d for d in drawables if d.kind == "piece"])
        painter = Painter(canvas, ids, cam, self.lighting, occluders=occluders)
        if spec is not None and self.board_rgba is not None:
            painter.draw(Drawable(ID_BOARD, [self.board_side], np.zeros(3), kind="board"))
            self._draw_board_top(canvas, ids, on_board, contact, (hs, ws))
        for d in sort_back_to_front(drawables, cam):
            painter.draw(d)
            if d.grain > 0:
                foot = 2.0 * d.contact[1] if d.contact is not None else 0.03
                apply_grain(
                    canvas,
                    ids,
                    d,
                    cam,
                    np.random.default_rng([self.scene.texture_seed, d.ident]),
                    foot,
                )
        return canvas, ids

    def _room_canvas(self, size_wh: tuple[int, int]) -> np.ndarray:
        w, h = size_wh
        room = self.room
        if room.shape[:2] != (h, w):
            room = cv2.resize(room, (w, h), interpolation=cv2.INTER_LINEAR)
        level = self.lighting.ambient * 1.3 + 0.4 * self.lighting.colours.sum(axis=0)
        return room * level[None, None, :].astype(np.float32)

    def _draw_board_top(
        self,
        canvas: np.ndarray,
        ids: np.ndarray,
        on_board: list[Drawable],
        contact: np.ndarray,
        coarse_hw: tuple[int, int],
    ) -> None:
        assert self.board_rgba is not None and self.scene.spec is not None
        cam = self.pin
        w, h = cam.intrinsics.size_wh
        step = self.cfg.shade_step
        n = self.board_rgba.shape[0]
        H = texture_to_board_homography(cam, self.scene.spec.side_m, n)
        top = cv2.warpPerspective(
            self.board_rgba,
            H,
            (w, h),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        args = (self.lighting, cam, coarse_hw, 1.0 / step, self.px_per_m, self.shadow_cfg)
        sh_board = shadow_masks(on_board, *args)
        coarse = plane_hits(cam, (w, h), 0.0, 2 * step)
        irr, spec_b = plane_irradiance(
            coarse,
            0.0,
            self.lighting,
            sh_board,
            contact,
            cam.pose.camera_center,
            self.cfg.board_gloss,
            40.0,
        )
        irr = cv2.resize(irr, (w, h), interpolation=cv2.INTER_LINEAR)
        spec_b = cv2.resize(spec_b, (w, h), interpolation=cv2.INTER_LINEAR)
        a = top[:, :, 3:4]
        colour = top[:, :, :3] * irr + spec_b
        np.copyto(canvas, canvas * (1.0 - a) + colour * a)
        ids[a[:, :, 0] > 0.5] = ID_BOARD

    def visibility(
        self, ids: np.ndarray, drawables: list[Drawable]
    ) -> dict[int, tuple[float, float]]:
        """(visible fraction, top visible fraction) of each piece drawable, by ident.

        Pixels showing the piece in the full render over pixels it covers when drawn alone.
        """
        seen_ids = ids if self.frame_mask is None else ids * self.frame_mask
        counts = np.bincount(seen_ids.ravel(), minlength=ID_PIECE + 4 * 16 + 4)
        out: dict[int, tuple[float, float]] = {}
        w, h = self.pin.intrinsics.size_wh
        for d in drawables:
            if d.kind != "piece":
                continue
            total, top = alone_pixel_counts(d, self.pin, (w, h))
            seen = int(counts[d.ident] + counts[d.ident + 1])
            seen_top = int(counts[d.ident + 1])
            vf = min(1.0, seen / total) if total else 0.0
            tvf = min(1.0, seen_top / top) if top else 0.0
            out[d.ident] = (vf, tvf)
        return out

    def to_camera_frame(self, canvas: np.ndarray) -> np.ndarray:
        """Apply the lens distortion (or just crop the margin) to get the final frame size."""
        if self.maps is not None:
            return cv2.remap(
                canvas,
                self.maps[0],
                self.maps[1],
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
        return canvas
