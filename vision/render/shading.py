"""Light transport, simplified: Lambert plus a soft Blinn-Phong highlight from a few lamps,
hemispherical ambient from the room, and soft cast shadows as blurred projected polygons.

All quantities are linear RGB. A lamp's strength is the illuminance it gives at the board centre
(so lamps far away and close lamps are directly comparable); it falls off with the inverse
square of the distance from there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry.camera import Camera
from vision.render.meshes import Drawable
from vision.render.scene import Light


@dataclass(frozen=True)
class ShadowConfig:
    """Knobs of the shadow approximation."""

    typical_occluder_m: float = 0.045  # height of a typical piece: sets the penumbra width
    min_sigma_px: float = 1.0  # even a tiny lamp gives a slightly soft edge after the lens
    contact_scale: float = 1.3  # contact shadow radius as a share of the footprint radius
    contact_strength: float = 0.55  # how much light the contact shadow takes away
    hand_height_m: float = 0.1  # hands hover this high: their shadows are blurrier


class Lighting:
    """Lamps and ambient light of one scene, ready to shade points and faces."""

    def __init__(self, lights: tuple[Light, ...], ambient: float) -> None:
        if not lights:
            raise ValueError("lights must hold at least one light")
        self.positions = np.array([lt.position_m for lt in lights], dtype=np.float64)
        self.colours = np.array([lt.rgb * lt.illuminance for lt in lights], dtype=np.float64)
        self.radii = np.array([lt.radius_m for lt in lights], dtype=np.float64)
        self.ref_dist = np.linalg.norm(self.positions, axis=1)
        mix = self.colours.sum(axis=0)
        self.ambient = ambient * mix / max(float(mix[1]), 1e-6) * float(self.colours[:, 1].sum())
        self.illuminant = mix / max(float(mix[1]), 1e-6)

    def direct(self, points: np.ndarray, normals: np.ndarray) -> np.ndarray:
        """Per-light scalar irradiance ``(L, N)``: cosine times inverse-square falloff."""
        to_light = self.positions[:, None, :] - points[None, :, :]  # (L, N, 3)
        r = np.linalg.norm(to_light, axis=2) + 1e-9
        cos = np.einsum("lnk,nk->ln", to_light, normals) / r
        return np.clip(cos, 0.0, None) * (self.ref_dist[:, None] / r) ** 2

    def specular(
        self,
        points: np.ndarray,
        normals: np.ndarray,
        eye: np.ndarray,
        shininess: float | np.ndarray,
    ) -> np.ndarray:
        """Per-light Blinn-Phong highlight ``(L, N)`` (energy-normalised lobe)."""
        to_light = self.positions[:, None, :] - points[None, :, :]
        r = np.linalg.norm(to_light, axis=2, keepdims=True) + 1e-9
        view = eye[None, :] - points
        view /= np.linalg.norm(view, axis=1, keepdims=True) + 1e-9
        half = to_light / r + view[None]
        half /= np.linalg.norm(half, axis=2, keepdims=True) + 1e-9
        nh = np.clip(np.einsum("lnk,nk->ln", half, normals), 0.0, None)
        shin = np.asarray(shininess, dtype=np.float64)
        return nh**shin * (shin + 2.0) / 8.0 * (self.ref_dist[:, None] / r[..., 0]) ** 2

    def shade_faces(
        self,
        centres: np.ndarray,
        normals: np.ndarray,
        albedo: np.ndarray,
        gloss: float,
        shininess: float,
        eye: np.ndarray,
        visibility: np.ndarray | None = None,
    ) -> np.ndarray:
        """Outgoing linear RGB of flat faces ``(N, 3)``; ``visibility`` ``(L, N)`` in 0..1 is
        how much of each lamp a face sees past other objects (cast shadows)."""
        d = self.direct(centres, normals)  # (L, N)
        if visibility is not None:
            d = d * visibility
        hemi = 0.65 + 0.35 * normals[:, 2:3]  # walls see less of the bright room than tops
        rgb = albedo * (self.ambient[None, :] * hemi + d.T @ self.colours)
        if gloss > 0:
            s = self.specular(centres, normals, eye, shininess)
            if visibility is not None:
                s = s * visibility
            rgb = rgb + gloss * (s.T @ self.colours)
        return rgb


@dataclass(frozen=True)
class Occluders:
    """Standing objects as vertical cylinders, for shadows cast on other objects' faces."""

    centres: np.ndarray  # (M, 2)
    radii: np.ndarray  # (M,)
    z0: np.ndarray  # (M,)
    z1: np.ndarray  # (M,)
    idents: np.ndarray  # (M,)

    @classmethod
    def from_drawables(cls, drawables: list[Drawable]) -> Occluders:
        rows = []
        for d in drawables:
            if d.contact is None:
                continue
            base, radius = d.contact
            top = max(float(g.verts[..., 2].max()) for g in d.groups)
            rows.append((base[0], base[1], radius, base[2], top, d.ident))
        a = np.array(rows, dtype=np.float64).reshape(-1, 6)
        return cls(a[:, :2], a[:, 2], a[:, 3], a[:, 4], a[:, 5].astype(int))

    def visibility(
        self,
        points: np.ndarray,
        lighting: Lighting,
        skip_ident: int,
        spread: tuple[tuple[float, float], ...] = ((0, 0), (1, 0), (-0.5, 0.87), (-0.5, -0.87)),
    ) -> np.ndarray:
        """``(L, N)`` share of each lamp's samples that ``points`` see unblocked.

        Notes
        -----
        Each lamp is sampled at its centre and three points on a circle of its radius (soft
        penumbrae); a sample is blocked when the segment to it passes through a cylinder:
        the overlap of the segment's parameter ranges inside the circle (a quadratic) and
        inside the height span.
        """
        keep = self.idents != skip_ident
        n, L = len(points), len(lighting.positions)
        out = np.ones((L, n))
        if not keep.any() or n == 0:
            return out
        c, r = self.centres[keep], self.radii[keep]
        z0, z1 = self.z0[keep], self.z1[keep]
        p = points[:, None, :]  # (N, 1, 3)
        for li, (lpos, lrad) in enumerate(zip(lighting.positions, lighting.radii, strict=True)):
            seen = np.zeros(n)
            for ox, oy in spread:
                d = (lpos + np.array([ox * lrad, oy * lrad, 0.0]))[None, None, :] - p  # (N,1,3)
                fx, fy = p[..., 0] - c[None, :, 0], p[..., 1] - c[None, :, 1]  # (N, M)
                a = d[..., 0] ** 2 + d[..., 1] ** 2 + 1e-12
                b = 2 * (fx * d[..., 0] + fy * d[..., 1])
                cc = fx**2 + fy**2 - r[None, :] ** 2
                disc = b * b - 4 * a * cc
                sq = np.sqrt(np.clip(disc, 0, None))
                s1, s2 = (-b - sq) / (2 * a), (-b + sq) / (2 * a)
                dz = np.where(np.abs(d[..., 2]) < 1e-9, 1e-9, d[..., 2])
                t0 = (z0[None, :] - p[..., 2]) / dz
                t1 = (z1[None, :] - p[..., 2]) / dz
                lo = np.maximum.reduce([s1, np.minimum(t0, t1), np.full_like(s1, 1e-4)])
                hi = np.minimum.reduce([s2, np.maximum(t0, t1), np.ones_like(s1)])
                blocked = ((disc > 0) & (lo < hi)).any(axis=1)
                seen += ~blocked
            out[li] = seen / len(spread)
        return out


def _shadow_polygon(
    verts: np.ndarray, light: np.ndarray, z: float, camera: Camera
) -> np.ndarray | None:
    """Image outline of the shadow that points ``verts`` cast on the plane at height ``z``."""
    v = verts[verts[:, 2] < light[2] - 1e-3]
    if len(v) < 3:
        return None
    k = (z - light[2]) / (v[:, 2] - light[2])
    on_plane = light[None, :] + (v - light[None, :]) * k[:, None]
    if np.any(camera.depth(on_plane) <= 1e-3):
        return None
    px = camera.project(on_plane).astype(np.float32)
    return cv2.convexHull(px)


def shadow_masks(
    drawables: list[Drawable],
    lighting: Lighting,
    camera: Camera,
    size_hw: tuple[int, int],
    scale: float,
    px_per_m: float,
    config: ShadowConfig,
    extra_occluders: list[tuple[np.ndarray, float]] | None = None,
) -> np.ndarray:
    """Soft shadow masks ``(L, h, w)`` in 0..1 at ``scale`` of the image size.

    Each occluder's vertices are projected from the lamp onto the surface it stands on; the
    convex hull is filled and blurred by the penumbra width ``radius * height / lamp height``.
    ``extra_occluders`` are (vertices, receiving height) pairs such as the board itself.
    """
    h, w = size_hw
    out = np.zeros((len(lighting.positions), h, w), np.float32)
    sc = 16.0 * scale
    for li, lpos in enumerate(lighting.positions):
        for hands in (False, True):
            mask = np.zeros((h, w), np.float32)
            items = [
                (np.concatenate([g.verts.reshape(-1, 3) for g in d.groups]), d.receiver_z)
                for d in drawables
                if (d.kind == "hand") == hands
            ]
            if not hands and extra_occluders:
                items += extra_occluders
            for verts, z in items:
                poly = _shadow_polygon(verts, lpos, z, camera)
                if poly is not None:
                    cv2.fillConvexPoly(
                        mask, np.round(poly * sc).astype(np.int32), 1.0, cv2.LINE_AA, 4
                    )
            occ = config.hand_height_m if hands else config.typical_occluder_m
            pen_m = lighting.radii[li] * occ / max(lpos[2] - occ, 0.05)
            sigma = max(config.min_sigma_px * scale, pen_m * px_per_m * scale)
            if mask.any():
                mask = cv2.GaussianBlur(mask, (0, 0), sigma)
            np.maximum(out[li], mask, out=out[li])
    return out


def contact_mask(
    drawables: list[Drawable],
    camera: Camera,
    size_hw: tuple[int, int],
    scale: float,
    config: ShadowConfig,
) -> np.ndarray:
    """Ambient occlusion under each standing object: a blurred disc around its base."""
    h, w = size_hw
    mask = np.zeros((h, w), np.float32)
    ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    sigmas = []
    for d in drawables:
        if d.contact is None:
            continue
        base, radius = d.contact
        r = radius * config.contact_scale
        ring = np.column_stack(
            [base[0] + r * np.cos(ang), base[1] + r * np.sin(ang), np.full(24, base[2])]
        )
        px = camera.project(ring) * scale
        cv2.fillConvexPoly(mask, np.round(px * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        sigmas.append(float(np.ptp(px[:, 0])) * 0.12)
    if sigmas:
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.8, float(np.median(sigmas))))
    return mask * config.contact_strength
