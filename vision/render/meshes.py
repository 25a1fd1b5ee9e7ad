"""Small polygon meshes: pieces, the board's sides, clutter and tubes (pens, arms, fingers).

A mesh is a list of :class:`FaceGroup` (faces with the same vertex count, one normal each) plus
at most one :class:`Hole` (the bore of a hollow piece or a mug), wrapped in a
:class:`Drawable` that the rasteriser sorts by depth and draws back to front.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.render.materials import HoleShading, PieceSet
from vision.render.scene import Clutter, Placement, piece_footprint

PART_SIDE = 0
PART_TOP = 1

#: Faces around a round piece: flat-shaded facets this narrow look smooth after camera blur.
ROUND_SEGMENTS = 36


@dataclass(frozen=True)
class PieceShape:
    """Small details of a turned or sawn Quarto piece (shares of its footprint width)."""

    sanded_corner: float = 0.06  # square pieces: corner bevel, share of the side
    groove_width: float = 0.03  # the turned line, share of the footprint (at least 0.7 mm)
    groove_min_m: float = 0.0007
    groove_shade: float = 0.3  # the groove's floor gets this share of the light
    row_height: float = 0.4  # side rows for cast shadows, share of the footprint
    top_bevel_brightness: float = 1.05  # the bevelled top edge catches a little more light
    shininess_wood: float = 14.0  # waxed wood: broad, faint highlight
    shininess_plastic: float = 40.0  # plastic: tighter highlight


PIECE_SHAPE = PieceShape()


@dataclass
class FaceGroup:
    """``F`` planar faces of ``K`` vertices each, world metres, with outward normals."""

    verts: np.ndarray  # (F, K, 3)
    normals: np.ndarray  # (F, 3)
    albedo: np.ndarray  # (3,) or (F, 3) linear RGB
    part: int = PART_SIDE
    gloss: float = 0.05  # specular strength
    shininess: float = 20.0  # Phong exponent
    cull: bool = True  # skip faces turned away from the camera


@dataclass
class Hole:
    """A cylindrical bore going down from a top face."""

    center: np.ndarray  # (3,) centre of the opening
    radius: float
    depth: float
    albedo: np.ndarray
    shading: HoleShading | None = None  # None: the classic dark bore (HOLE_SHADING)


@dataclass
class Drawable:
    """One object: its faces, an optional bore, and what the rasteriser needs to know."""

    ident: int  # value in the ID buffer (parts add PART_*)
    groups: list[FaceGroup]
    anchor: np.ndarray  # (3,) point used for depth sorting
    hole: Hole | None = None
    grain: float = 0.0  # wood-grain contrast drawn over its side and top
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    receiver_z: float = 0.0  # height of the surface it stands on (takes its shadow)
    contact: tuple[np.ndarray, float] | None = None  # base centre and radius for contact shadow
    kind: str = "piece"  # piece | clutter | hand


def circle(radius: float, n: int) -> np.ndarray:
    """(n, 2) counter-clockwise points."""
    a = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([np.cos(a), np.sin(a)]) * radius


def rounded_rect(half_x: float, half_y: float, radius: float, per_corner: int = 6) -> np.ndarray:
    """Counter-clockwise outline of a rectangle with rounded corners, (n, 2)."""
    radius = min(radius, half_x, half_y)
    pts = []
    for cx, cy, a0 in (
        (half_x - radius, half_y - radius, 0.0),
        (-half_x + radius, half_y - radius, 90.0),
        (-half_x + radius, -half_y + radius, 180.0),
        (half_x - radius, -half_y + radius, 270.0),
    ):
        for a in np.linspace(math.radians(a0), math.radians(a0 + 90.0), per_corner):
            pts.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return np.array(pts)


def _place(xy: np.ndarray, z: float, pos: np.ndarray, yaw_deg: float) -> np.ndarray:
    a = math.radians(yaw_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    p = xy @ rot.T + pos[:2]
    return np.column_stack([p, np.full(len(p), pos[2] + z)])


def prism_sides(
    footprint: np.ndarray,
    z0: float,
    z1: float,
    pos: np.ndarray,
    yaw_deg: float,
    top_scale: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Side quads of a vertical prism over a CCW ``footprint`` from z0 to z1.

    ``top_scale`` shrinks the upper outline (a bevel). Returns verts (F, 4, 3), normals (F, 3).
    """
    lo = _place(footprint, z0, pos, yaw_deg)
    hi = _place(footprint * top_scale, z1, pos, yaw_deg)
    nxt = np.roll(np.arange(len(footprint)), -1)
    verts = np.stack([lo, lo[nxt], hi[nxt], hi], axis=1)
    e1 = verts[:, 1] - verts[:, 0]
    e2 = verts[:, 3] - verts[:, 0]
    normals = np.cross(e1, e2)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12
    return verts, normals


def piece_drawable(
    ident: int, placement: Placement, pset: PieceSet, shape: PieceShape = PIECE_SHAPE
) -> Drawable:
    """Mesh of one Quarto piece: body split at the groove, a bevelled top, maybe a bore."""
    piece = placement.piece
    pos = np.asarray(placement.position_m, dtype=np.float64)
    foot = piece_footprint(pset, piece)
    tall = piece.value("height") == "tall"
    height = pset.tall_height_m if tall else pset.short_height_m
    albedo = np.asarray(pset.light_rgb if piece.value("color") == "light" else pset.dark_rgb)
    if piece.value("shape") == "round":
        outline = circle(foot / 2.0, ROUND_SEGMENTS)
    else:
        h = foot / 2.0
        b = 2.0 * shape.sanded_corner * h
        outline = np.array(
            [
                [h, -h + b],
                [h, h - b],
                [h - b, h],
                [-h + b, h],
                [-h, h - b],
                [-h, -h + b],
                [-h + b, -h],
                [h - b, -h],
            ]
        )
    c = pset.chamfer_m
    top_scale = 1.0 - 2.0 * c / foot
    groups: list[FaceGroup] = []
    gloss = pset.gloss
    shin = shape.shininess_plastic if pset.material == "plastic" else shape.shininess_wood
    bands: list[tuple[float, float, float]] = []  # (z0, z1, shade)
    if pset.groove:
        g = (pset.groove_tall_frac if tall else pset.groove_short_frac) * height
        gw = max(shape.groove_min_m, shape.groove_width * foot) / 2.0
        dark = shape.groove_shade
        bands = [(0.0, g - gw, 1.0), (g - gw, g + gw, dark), (g + gw, height - c, 1.0)]
    else:
        bands = [(0.0, height - c, 1.0)]
    for z0, z1, shade in bands:
        # Tall bands are cut into rows so shadows of neighbours can fall on part of a side.
        rows = max(1, round((z1 - z0) / (shape.row_height * foot)))
        for k in range(rows):
            za, zb = z0 + (z1 - z0) * k / rows, z0 + (z1 - z0) * (k + 1) / rows
            v, n = prism_sides(outline, za, zb, pos, placement.yaw_deg)
            groups.append(FaceGroup(v, n, albedo * shade, PART_SIDE, gloss * shade, shin))
    v, n = prism_sides(outline, height - c, height, pos, placement.yaw_deg, top_scale)
    groups.append(FaceGroup(v, n, albedo * shape.top_bevel_brightness, PART_TOP, gloss, shin))
    cap = _place(outline * top_scale, height, pos, placement.yaw_deg)[None]
    groups.append(FaceGroup(cap, np.array([[0.0, 0.0, 1.0]]), albedo, PART_TOP, gloss, shin))
    hole = None
    if piece.value("top") == "hollow":
        hole = Hole(
            pos + np.array([0, 0, height]),
            pset.hole_diameter_frac * foot / 2.0,
            pset.hole_depth_m,
            albedo,
            pset.hole_shading,
        )
    return Drawable(
        ident,
        groups,
        pos + np.array([0, 0, height / 2.0]),
        hole,
        grain=pset.grain,
        receiver_z=float(pos[2]),
        contact=(pos, foot / 2.0),
    )


def board_sides(
    spec_side_m: float, thickness_m: float, corner_radius_m: float, edge_rgb: np.ndarray
) -> FaceGroup:
    """The board's rim, from its top surface (z = 0) down to the table."""
    outline = rounded_rect(spec_side_m / 2.0, spec_side_m / 2.0, corner_radius_m)
    v, n = prism_sides(outline, -thickness_m, 0.0, np.zeros(3), 0.0)
    return FaceGroup(v, n, np.asarray(edge_rgb), PART_SIDE, 0.04, 10.0)


def tube(
    points: np.ndarray,
    radii: np.ndarray,
    albedo: np.ndarray,
    *,
    segments: int = 14,
    flatten: float = 1.0,
    up: np.ndarray | None = None,
    gloss: float = 0.03,
    caps: bool = True,
) -> list[FaceGroup]:
    """A bent tube through ``points`` (L, 3) with ``radii`` (L,): pens, arms, fingers.

    ``flatten`` < 1 squashes the cross-section along ``up`` (a palm is wider than thick).
    """
    points = np.asarray(points, np.float64)
    L = len(points)
    rings = []
    up0 = np.array([0.0, 0.0, 1.0]) if up is None else np.asarray(up, np.float64)
    ang = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    for i in range(L):
        d = points[min(i + 1, L - 1)] - points[max(i - 1, 0)]
        d /= np.linalg.norm(d) + 1e-12
        a = np.cross(d, up0)
        if np.linalg.norm(a) < 1e-6:
            a = np.cross(d, np.array([1.0, 0.0, 0.0]))
        a /= np.linalg.norm(a)
        b = np.cross(a, d)
        rings.append(
            points[i] + radii[i] * (np.outer(np.cos(ang), a) + flatten * np.outer(np.sin(ang), b))
        )
    R = np.array(rings)  # (L, S, 3)
    nxt = np.roll(np.arange(segments), -1)
    quads = np.stack([R[:-1], R[:-1][:, nxt], R[1:][:, nxt], R[1:]], axis=2).reshape(-1, 4, 3)
    centres = ((points[:-1] + points[1:]) / 2.0)[:, None, :].repeat(segments, 1).reshape(-1, 3)
    normals = quads.mean(axis=1) - centres
    normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-12
    groups = [FaceGroup(quads, normals, np.asarray(albedo), PART_SIDE, gloss, 12.0)]
    if caps:
        for i, sgn in ((0, -1.0), (L - 1, 1.0)):
            d = points[min(i + 1, L - 1)] - points[max(i - 1, 0)]
            d = d / (np.linalg.norm(d) + 1e-12) * sgn
            groups.append(
                FaceGroup(R[i][None], d[None], np.asarray(albedo), PART_SIDE, gloss, 12.0)
            )
    return groups


def clutter_drawable(ident: int, item: Clutter, table_z: float) -> Drawable:
    """Everyday objects on the table: mug, box, pen, book, phone."""
    sx, sy, sz = item.size_m
    pos = np.array([item.position_m[0], item.position_m[1], table_z])
    albedo = np.asarray(item.rgb)
    if item.kind == "mug":
        outline = circle(sx / 2.0, 28)
        v, n = prism_sides(outline, 0.0, sz, pos, item.yaw_deg)
        rim = _place(outline, sz, pos, item.yaw_deg)[None]
        groups = [
            FaceGroup(v, n, albedo, PART_SIDE, 0.25, 40.0),
            FaceGroup(rim, np.array([[0.0, 0.0, 1.0]]), albedo, PART_TOP, 0.25, 40.0),
        ]
        hole = Hole(pos + np.array([0, 0, sz]), sx / 2.0 * 0.88, sz * 0.9, albedo * 0.8)
        return Drawable(
            ident,
            groups,
            pos + np.array([0, 0, sz / 2]),
            hole,
            receiver_z=table_z,
            contact=(pos, sx / 2.0),
            kind="clutter",
        )
    if item.kind == "pen":
        a = math.radians(item.yaw_deg)
        d = np.array([math.cos(a), math.sin(a), 0.0]) * sx / 2.0
        r = sy / 2.0
        pts = np.array([pos - d, pos + d]) + np.array([0, 0, r])
        groups = tube(pts, np.array([r, r]), albedo, segments=10, gloss=0.2)
        return Drawable(
            ident, groups, pos + np.array([0, 0, r]), receiver_z=table_z, kind="clutter"
        )
    outline = rounded_rect(sx / 2.0, sy / 2.0, 0.004 if item.kind != "book" else 0.001, 3)
    v, n = prism_sides(outline, 0.0, sz, pos, item.yaw_deg)
    top = _place(outline, sz, pos, item.yaw_deg)[None]
    side_albedo = np.array([0.75, 0.72, 0.65]) if item.kind == "book" else albedo
    top_albedo = np.array([0.015, 0.015, 0.02]) if item.kind == "phone" else albedo
    groups = [
        FaceGroup(v, n, side_albedo, PART_SIDE, 0.05, 20.0),
        FaceGroup(
            top,
            np.array([[0.0, 0.0, 1.0]]),
            top_albedo,
            PART_TOP,
            0.5 if item.kind == "phone" else 0.05,
            60.0,
        ),
    ]
    return Drawable(
        ident, groups, pos + np.array([0, 0, sz / 2]), receiver_z=table_z, kind="clutter"
    )
