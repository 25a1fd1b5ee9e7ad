"""Rasteriser: planes by per-pixel ray casting and texture warps, objects by the painter's
algorithm, with an ID buffer drawn by the same calls.

The colour canvas is ``(H, W, 3) float32`` linear RGB; the ID buffer ``(H, W) uint16`` holds
the ``Drawable.ident + part`` of the surface each pixel shows (0: table or room, 1: board).
Polygons are filled without anti-aliasing (so colour and ID agree exactly); the camera blur
applied afterwards softens the edges like a lens does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry.camera import Camera
from vision.render.materials import HOLE_SHADING
from vision.render.meshes import PART_TOP, Drawable
from vision.render.shading import Lighting, Occluders

ID_BOARD = 1
NEAR_M = 0.03  # nearest depth drawn, metres: closer faces would smear across the frame


_SHIFT = 4  # fixed-point bits for sub-pixel polygon vertices
_SC = float(1 << _SHIFT)


@dataclass(frozen=True)
class PlaneHits:
    """Where each pixel's ray meets a horizontal plane (z = const), at some grid step."""

    x: np.ndarray  # (h, w) float32 world x, metres
    y: np.ndarray
    dist: np.ndarray  # distance along the ray, metres
    valid: np.ndarray  # bool: the ray goes down to the plane (in front of the camera)


def plane_hits(camera: Camera, size_wh: tuple[int, int], z: float, step: int = 1) -> PlaneHits:
    """Intersect the (pinhole) ray of every ``step``-th pixel with the plane at height ``z``.

    Parameters
    ----------
    camera : Camera
        Pinhole camera (distortion is applied later to the finished image).
    size_wh : tuple of int
        Full image size; the grid is ``ceil(h / step) x ceil(w / step)`` pixel-block centres.
    """
    w, h = size_wh
    K = camera.intrinsics
    us = (np.arange(0, w, step, dtype=np.float32) + (step - 1) / 2.0 - K.cx) / K.fx
    vs = (np.arange(0, h, step, dtype=np.float32) + (step - 1) / 2.0 - K.cy) / K.fy
    Rt = camera.pose.R.T.astype(np.float32)
    C = camera.pose.camera_center
    d = [Rt[k, 0] * us[None, :] + Rt[k, 1] * vs[:, None] + Rt[k, 2] for k in range(3)]
    dz = d[2]
    safe = np.where(dz < -1e-6, dz, -1e-6).astype(np.float32)
    t = (np.float32(z - C[2]) / safe).astype(np.float32)
    valid = dz < -1e-6
    norm = np.sqrt(d[0] ** 2 + d[1] ** 2 + dz**2)
    return PlaneHits(
        (C[0] + t * d[0]).astype(np.float32),
        (C[1] + t * d[1]).astype(np.float32),
        (t * norm).astype(np.float32),
        valid,
    )


def plane_irradiance(
    hits: PlaneHits,
    z: float,
    lighting: Lighting,
    shadows: np.ndarray,
    contact: np.ndarray,
    eye: np.ndarray,
    gloss: float,
    shininess: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Irradiance ``(h, w, 3)`` and specular radiance ``(h, w, 3)`` of a horizontal plane.

    ``shadows`` ``(L, h, w)`` and ``contact`` ``(h, w)`` set the output grid; ``hits`` may be
    coarser (light falls off smoothly, so it is computed sparsely and interpolated).
    """
    hh, ww = shadows.shape[1:]
    ch, cw = hits.x.shape

    def up(a: np.ndarray) -> np.ndarray:
        a = a.reshape(-1, ch, cw).astype(np.float32)
        if (ch, cw) == (hh, ww):
            return a
        return np.stack([cv2.resize(x, (ww, hh), interpolation=cv2.INTER_LINEAR) for x in a])

    pts = np.column_stack([hits.x.ravel(), hits.y.ravel(), np.full(ch * cw, z, np.float32)]).astype(
        np.float64
    )
    normals = np.zeros_like(pts)
    normals[:, 2] = 1.0
    lit = (1.0 - shadows).astype(np.float32)
    direct = up(lighting.direct(pts, normals)) * lit
    irr = np.empty((hh, ww, 3), np.float32)
    irr[:] = lighting.ambient.astype(np.float32)
    for li, colour in enumerate(lighting.colours.astype(np.float32)):
        irr += direct[li][:, :, None] * colour
    irr *= (1.0 - contact)[:, :, None]
    spec = np.zeros_like(irr)
    if gloss > 0:
        s = up(lighting.specular(pts, normals, eye, shininess))
        for li, colour in enumerate(lighting.colours.astype(np.float32)):
            spec += (gloss * s[li] * lit[li])[:, :, None] * colour
    return irr.astype(np.float32), spec.astype(np.float32)


def texture_to_board_homography(camera: Camera, side_m: float, n: int) -> np.ndarray:
    """Homography from board-texture texels to (pinhole) pixels; see ``board_texture``."""
    s = side_m / n
    A = np.array(
        [[s, 0.0, -side_m / 2.0 + 0.5 * s], [0.0, -s, side_m / 2.0 - 0.5 * s], [0.0, 0.0, 1.0]]
    )
    return camera.board_homography() @ A


class Painter:
    """Draws drawables back to front into a colour canvas and an ID buffer."""

    def __init__(
        self,
        canvas: np.ndarray | None,
        ids: np.ndarray,
        camera: Camera,
        lighting: Lighting | None,
        offset_xy: tuple[float, float] = (0.0, 0.0),
        occluders: Occluders | None = None,
    ) -> None:
        self.canvas = canvas
        self.ids = ids
        self.camera = camera
        self.lighting = lighting
        self.eye = camera.pose.camera_center
        self.offset = np.asarray(offset_xy, dtype=np.float64)
        self.occluders = occluders

    def _px(self, pts: np.ndarray) -> np.ndarray:
        return self.camera.project(pts) - self.offset

    def _fill(self, poly_px: np.ndarray, colour: np.ndarray | None, ident: int) -> None:
        pts = np.round(poly_px * _SC).astype(np.int32)
        if self.canvas is not None and colour is not None:
            cv2.fillConvexPoly(
                self.canvas,
                pts,
                (float(colour[0]), float(colour[1]), float(colour[2])),
                cv2.LINE_8,
                _SHIFT,
            )
        cv2.fillConvexPoly(self.ids, pts, int(ident), cv2.LINE_8, _SHIFT)

    def draw(self, d: Drawable) -> None:
        """Front-facing faces of ``d``, then its bore (inner wall, then the visible bottom)."""
        visible = []
        for g in d.groups:
            _F, K, _ = g.verts.shape
            centres = g.verts.mean(axis=1)
            front = np.einsum("fk,fk->f", g.normals, self.eye[None, :] - centres) > 1e-9
            if not g.cull:
                front[:] = True
            # Near-plane guard: faces reaching behind (or almost onto) the lens are dropped, not
            # projected through it (an arm passing beside the camera).
            depth = self.camera.depth(g.verts.reshape(-1, 3)).reshape(-1, K)
            front &= depth.min(axis=1) > NEAR_M
            if front.any():
                visible.append((g, np.nonzero(front)[0], centres))
        vis_all = None
        shading = self.canvas is not None and self.lighting is not None
        if shading and self.occluders is not None and d.kind == "piece" and visible:
            assert self.lighting is not None
            pts = np.concatenate([c[idx] for _, idx, c in visible])
            vis_all = self.occluders.visibility(pts, self.lighting, d.ident)
        start = 0
        for g, idx, centres in visible:
            K = g.verts.shape[1]
            px = self._px(g.verts[idx].reshape(-1, 3)).reshape(len(idx), K, 2)
            colours = None
            if shading:
                assert self.lighting is not None
                alb = g.albedo if g.albedo.ndim == 1 else g.albedo[idx]
                alb = np.broadcast_to(alb, (len(idx), 3))
                vis = None if vis_all is None else vis_all[:, start : start + len(idx)]
                colours = self.lighting.shade_faces(
                    centres[idx], g.normals[idx], alb, g.gloss, g.shininess, self.eye, vis
                )
            start += len(idx)
            for k in range(len(idx)):
                self._fill(px[k], None if colours is None else colours[k], d.ident + g.part)
        if d.hole is not None:
            self._draw_hole(d)

    def _draw_hole(self, d: Drawable) -> None:
        hole = d.hole
        assert hole is not None
        ang = np.linspace(0, 2 * math.pi, 28, endpoint=False)
        ring = np.column_stack([np.cos(ang), np.sin(ang), np.zeros(28)]) * hole.radius
        rim_3d = hole.center + ring
        bottom_3d = rim_3d - np.array([0, 0, hole.depth])
        # Near-plane guard as for the faces: a bore behind the lens (a spare piece beside or
        # behind the camera) projected through it would cover the whole frame.
        if self.camera.depth(np.vstack([rim_3d, bottom_3d])).min() <= NEAR_M:
            return
        rim = self._px(rim_3d)
        bottom = self._px(bottom_3d)
        wall_c = shade_c = lit_c = None
        if self.canvas is not None and self.lighting is not None:
            up = np.array([[0.0, 0.0, 1.0]])
            lit = self.lighting.shade_faces(
                hole.center[None], up, hole.albedo[None], 0.0, 1.0, self.eye
            )[0]
            amb = hole.albedo * self.lighting.ambient
            hs = hole.shading or HOLE_SHADING
            gain = hs.bounce_gain(hole.albedo)
            wall_c = gain * (hs.wall_ambient * amb + hs.wall_direct * lit)
            shade_c = gain * (hs.bottom_ambient * amb + hs.bottom_shadow_direct * lit)
            lit_c = gain * (hs.bottom_ambient * amb + hs.bottom_lit_direct * lit)
        self._fill(rim, wall_c, d.ident + PART_TOP)
        _, inter = cv2.intersectConvexConvex(rim.astype(np.float32), bottom.astype(np.float32))
        if inter is None or len(inter) < 3:
            return
        inter = inter.reshape(-1, 2).astype(np.float32)
        self._fill(inter.astype(np.float64), shade_c, d.ident + PART_TOP)
        if self.canvas is None or self.lighting is None:
            return
        # The key lamp shines through the opening onto part of the bottom: a lit crescent.
        lamp = self.lighting.positions[int(np.argmax(self.lighting.colours[:, 1]))]
        top_pts = hole.center + ring
        z_b = hole.center[2] - hole.depth
        if lamp[2] <= hole.center[2] + 1e-3:
            return
        k = (z_b - lamp[2]) / (top_pts[:, 2] - lamp[2])
        spot = self._px(lamp[None, :] + (top_pts - lamp[None, :]) * k[:, None])
        _, lit_poly = cv2.intersectConvexConvex(inter, spot.astype(np.float32))
        if lit_poly is not None and len(lit_poly) >= 3:
            self._fill(lit_poly.reshape(-1, 2).astype(np.float64), lit_c, d.ident + PART_TOP)


def sort_back_to_front(drawables: list[Drawable], camera: Camera) -> list[Drawable]:
    """Painter's order: farthest anchor first (objects on a plane rarely interpenetrate)."""
    if not drawables:
        return []
    depth = camera.depth(np.array([d.anchor for d in drawables]))
    return [drawables[i] for i in np.argsort(-depth, kind="stable")]


def drawable_bbox(
    d: Drawable, camera: Camera, size_wh: tuple[int, int], *, clip: bool = True
) -> tuple[int, int, int, int] | None:
    """Integer pixel box ``(x0, y0, x1, y1)`` (exclusive end) of ``d``, clipped to the image
    unless ``clip`` is False (then only kept within a few image sizes of it)."""
    pts = np.concatenate([g.verts.reshape(-1, 3) for g in d.groups])
    if np.any(camera.depth(pts) <= 1e-3):
        return None
    px = camera.project(pts)
    x0, y0 = np.floor(px.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 2
    w, h = size_wh
    lo_x, lo_y, hi_x, hi_y = (0, 0, w, h) if clip else (-w, -h, 2 * w, 2 * h)
    x0, y0, x1, y1 = max(x0, lo_x), max(y0, lo_y), min(x1, hi_x), min(y1, hi_y)
    if x1 <= x0 or y1 <= y0:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def alone_pixel_counts(d: Drawable, camera: Camera, size_wh: tuple[int, int]) -> tuple[int, int]:
    """Pixels of ``d`` (all parts, top part) when drawn with nothing in front of it, counting
    the parts beyond the image edge too (a piece half out of the picture is half visible)."""
    box = drawable_bbox(d, camera, size_wh, clip=False)
    if box is None:
        return 0, 0
    x0, y0, x1, y1 = box
    ids = np.zeros((y1 - y0, x1 - x0), np.uint16)
    Painter(None, ids, camera, None, (x0, y0)).draw(d)
    total = int(np.count_nonzero(ids))
    top = int(np.count_nonzero(ids == d.ident + PART_TOP))
    return total, top


def apply_grain(
    canvas: np.ndarray,
    ids: np.ndarray,
    d: Drawable,
    camera: Camera,
    rng: np.random.Generator,
    foot_m: float,
) -> None:
    """Modulate a wooden object's pixels with grain running along its axis.

    Notes
    -----
    Long-grain on the sides: stripes perpendicular to the projected axis, bent by a slow wave.
    End-grain on the top: arcs of growth rings around an off-centre pith. Done in image space
    on the object's box only, so its cost is tiny.
    """
    if d.grain <= 0:
        return
    h, w = ids.shape
    box = drawable_bbox(d, camera, (w, h))
    if box is None:
        return
    x0, y0, x1, y1 = box
    sub_ids = ids[y0:y1, x0:x1]
    side = sub_ids == d.ident
    top = sub_ids == d.ident + PART_TOP
    if not (side.any() or top.any()):
        return
    base = d.contact[0] if d.contact is not None else d.anchor
    p0, p1 = camera.project(np.array([base, base + np.array([0.0, 0.0, foot_m])]))
    axis = p1 - p0
    scale_px = float(np.linalg.norm(axis)) + 1e-6
    axis /= scale_px
    perp = np.array([-axis[1], axis[0]])
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    s = (xx - p0[0]) * perp[0] + (yy - p0[1]) * perp[1]
    t = (xx - p0[0]) * axis[0] + (yy - p0[1]) * axis[1]
    period = scale_px / float(rng.uniform(2.5, 4.5))
    phase = float(rng.uniform(0, 2 * math.pi))
    bend = 0.6 * period * np.sin(t / (3.5 * period) + phase)
    f2 = float(rng.uniform(2.3, 3.7))
    u = (s + bend) * (2 * math.pi / period) + phase
    stripes = 0.65 * np.sin(u) + 0.35 * np.sin(f2 * u + 1.7 * phase)
    mod = 1.0 + d.grain * 0.7 * stripes
    if top.any():
        c = np.array([xx[top].mean(), yy[top].mean()]) + rng.normal(0, 0.7 * scale_px, 2)
        rings = np.sin(np.hypot(xx - c[0], yy - c[1]) * (2 * math.pi / (0.6 * period)) + phase)
        mod = np.where(top, 1.0 + 0.5 * d.grain * rings, mod)
    sel = side | top
    sub = canvas[y0:y1, x0:x1]
    sub[sel] *= mod[sel][:, None]
