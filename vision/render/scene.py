"""Scene sampling: every random choice about a still is made here, from one Generator.

A :class:`Scene` is a plain description (board, piece set, placements, table, clutter, lights,
camera, camera effects); the other modules of this package turn it into pixels and a label.
Physical sizes are metres in the board frame (origin at the centre of the board's top surface,
+z up), colours are linear RGB in 0..1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from vision.geometry.board_spec import BoardSpec
from vision.render.materials import (
    PieceSet,
    board_look,
    kelvin_to_rgb,
    sample_hole_shading,
    sample_piece_set,
)
from vision.render.palette import wide_board_look, wide_piece_finish
from vision.render.rig import CameraSample, sample_camera
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ALL_PIECES, Piece

BOARD_STYLES: tuple[str, ...] = ("gigamic_black", "wood_light", "wood_dark", "diy_axis")
_STYLE_WEIGHTS = (0.45, 0.2, 0.15, 0.2)
TABLE_KINDS: tuple[str, ...] = (
    "wood_planks",
    "dark_wood",
    "laminate",
    "cloth",
    "checker_cloth",
    "stone",
    "studio",
)
_TABLE_WEIGHTS = (0.25, 0.15, 0.15, 0.12, 0.08, 0.1, 0.15)
CLUTTER_KINDS: tuple[str, ...] = ("mug", "box", "pen", "book", "phone")
#: ``classic``: the colours of real sets (:mod:`vision.render.materials`); ``wide``: boards,
#: markings and piece pairs of any hue and lightness (:mod:`vision.render.palette`).
PALETTES: tuple[str, ...] = ("classic", "wide")
#: Kinds of light inside the bores of hollow pieces (``SceneOptions.hole_light``).
HOLE_LIGHTS: tuple[str, ...] = ("dark", "varied")
#: "usual": the sampled light and exposure; "dim": a dim room the camera underexposes
#: (exposure bias -1.8 to -0.6 EV, sensor gain near its top), training renders for the
#: dark-on-black scenes the usual sampling rarely makes.
LIGHTINGS: tuple[str, ...] = ("usual", "dim")
#: How sensor noise is drawn (:func:`vision.render.effects.develop`): "pixel" (the default and
#: the only one until session 38: independent noise at every pixel, mostly shared by the three
#: channels, added after white balance) or "bayer" (noise at each photosite of an RGGB mosaic
#: in the camera's raw values, white balance after it, then demosaiced: the blotchy colour
#: grain of a real small sensor in a dim room).
SENSORS: tuple[str, ...] = ("pixel", "bayer")


@dataclass(frozen=True)
class SceneOptions:
    """What a caller may fix about a still; everything else is sampled.

    Ranges are inclusive ``(low, high)``; ``style=None`` samples a board style.
    """

    size_wh: tuple[int, int] = (1280, 720)
    style: str | None = None
    board: bool = True  # False: a table without any board (for "no board" tests)
    elevation_deg: tuple[float, float] = (25.0, 90.0)  # camera above the board plane
    hfov_deg: tuple[float, float] = (55.0, 80.0)  # webcams and phones
    board_fill: tuple[float, float] = (0.25, 0.85)  # board's share of the image width
    n_pieces: tuple[int, int] = (0, 16)  # pieces standing in cells
    off_board_prob: float = 0.6  # chance that the unplayed pieces stand beside the board
    max_clutter: int = 3  # objects on the table besides the set
    distortion_prob: float = 0.25  # chance of visible radial lens distortion
    hand_prob: float = 0.0  # chance of a hand over the board in a still
    palette: str = "classic"  # colours of boards and sets: one of PALETTES
    #: Light inside the bores of hollow pieces: "dark" (the classic bore: sky and direct light
    #: only) or "varied" (depth, finish and interreflection drawn per set; training renders).
    hole_light: str = "dark"
    lighting: str = "usual"
    sensor: str = "pixel"  # one of SENSORS; "pixel" renders every seed exactly as before

    def __post_init__(self) -> None:
        w, h = self.size_wh
        if w < 64 or h < 64:
            raise ValueError(f"size_wh must be at least 64x64, got {self.size_wh!r}")
        if self.style is not None and self.style not in BOARD_STYLES:
            raise ValueError(f"style must be one of {BOARD_STYLES}, got {self.style!r}")
        if self.palette not in PALETTES:
            raise ValueError(f"palette must be one of {PALETTES}, got {self.palette!r}")
        if self.hole_light not in HOLE_LIGHTS:
            raise ValueError(f"hole_light must be one of {HOLE_LIGHTS}, got {self.hole_light!r}")
        if self.lighting not in LIGHTINGS:
            raise ValueError(f"lighting must be one of {LIGHTINGS}, got {self.lighting!r}")
        if self.sensor not in SENSORS:
            raise ValueError(f"sensor must be one of {SENSORS}, got {self.sensor!r}")
        lo, hi = self.elevation_deg
        if not 5.0 <= lo <= hi <= 90.0:
            raise ValueError(f"elevation_deg must satisfy 5 <= low <= high <= 90, got {(lo, hi)!r}")
        lo, hi = self.board_fill
        if not 0.05 <= lo <= hi <= 0.95:
            raise ValueError(f"board_fill must be within [0.05, 0.95], got {(lo, hi)!r}")
        lo_n, hi_n = self.n_pieces
        if not 0 <= lo_n <= hi_n <= 16:
            raise ValueError(f"n_pieces must satisfy 0 <= low <= high <= 16, got {(lo_n, hi_n)!r}")


@dataclass(frozen=True)
class Placement:
    """One piece standing somewhere: in a cell (``cell`` set) or beside the board."""

    piece: Piece
    position_m: tuple[float, float, float]  # base centre
    yaw_deg: float
    cell: Cell | None = None


@dataclass(frozen=True)
class Light:
    """A small area light treated as a point for shading, with a radius for soft shadows."""

    kind: str  # ceiling | lamp | window
    position_m: tuple[float, float, float]
    temperature_k: float
    illuminance: float  # relative illuminance it gives at the board centre
    radius_m: float  # emitter size: sets the width of shadow penumbrae

    @property
    def rgb(self) -> np.ndarray:
        return kelvin_to_rgb(self.temperature_k)


@dataclass(frozen=True)
class Clutter:
    kind: str
    position_m: tuple[float, float]
    yaw_deg: float
    size_m: tuple[float, float, float]  # x extent, y extent, height
    rgb: tuple[float, float, float]


@dataclass(frozen=True)
class Effects:
    """Camera simulation settings (see :mod:`vision.render.effects`)."""

    exposure_bias_ev: float
    wb_strength: float  # 1: the camera removes the light's colour cast completely
    iso_gain: float  # noise multiplier: dim scenes are noisier
    blur_sigma: float  # defocus, pixels
    motion_len: int  # motion blur length, pixels (0: none)
    motion_angle_deg: float
    vignetting: float  # darkening of the corners, 0..1
    jpeg_quality: int
    saturation: float
    background_blur: float  # depth-of-field blur of the far table, pixels
    contrast: float = 0.0  # strength of the camera's S-shaped tone curve, 0..1
    sensor: str = "pixel"  # how the sensor noise is drawn: one of SENSORS


@dataclass(frozen=True)
class Scene:
    seed: int
    size_wh: tuple[int, int]
    style: str | None
    spec: BoardSpec | None
    board_thickness_m: float
    board_look: dict[str, object]
    piece_set: PieceSet
    placements: tuple[Placement, ...]
    table_kind: str
    table_half_extent_m: tuple[float, float]
    clutter: tuple[Clutter, ...]
    lights: tuple[Light, ...]
    ambient: float  # fill light from the room, relative to the lamps' illuminance
    camera: CameraSample
    effects: Effects
    texture_seed: int
    hand: dict[str, object] | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def on_board(self) -> tuple[Placement, ...]:
        return tuple(p for p in self.placements if p.cell is not None)

    @property
    def off_board(self) -> tuple[Placement, ...]:
        return tuple(p for p in self.placements if p.cell is None)


# -- sampling -----------------------------------------------------------------------------------
def sample_scene(
    seed: int, options: SceneOptions | None = None, *, board_pieces: dict[Cell, Piece] | None = None
) -> Scene:
    """Draw a random scene from ``seed``; same seed and options, same scene.

    ``board_pieces`` fixes which pieces stand in which cells (used by game videos); otherwise
    ``options.n_pieces`` of the 16 pieces are spread over random cells.
    """
    opts = options or SceneOptions()
    rng = np.random.default_rng(seed)
    style = opts.style or str(rng.choice(BOARD_STYLES, p=_STYLE_WEIGHTS))
    if style == "diy_axis":
        spec = BoardSpec.axis_aligned(float(rng.uniform(0.24, 0.29)))
    else:
        side = float(rng.uniform(0.25, 0.29))
        spec = BoardSpec(
            side_m=side,
            cell_pitch_m=side * float(rng.uniform(0.176, 0.184)),
            cell_diameter_m=side * float(rng.uniform(0.16, 0.17)),
            grid_rotation_deg=45.0,
            big_circle_radius_m=side * float(rng.uniform(0.955, 0.975)) / 2.0,
        )
    thickness = float(rng.uniform(0.010, 0.018))
    wide = opts.palette == "wide"
    look = wide_board_look(rng, style) if wide else board_look(rng, style)
    look["corner_radius_m"] = float(rng.uniform(0.004, 0.014))
    finish = wide_piece_finish(rng, style) if wide else None
    pset = sample_piece_set(rng, style, spec.cell_diameter_m, finish)
    if board_pieces is None:
        n = int(rng.integers(opts.n_pieces[0], opts.n_pieces[1] + 1))
        cells = [ALL_CELLS[i] for i in rng.permutation(16)[:n]]
        pieces = [ALL_PIECES[i] for i in rng.permutation(16)[:n]]
        board_pieces = dict(zip(cells, pieces, strict=True))
    if not opts.board:
        board_pieces = {}
    placements = [
        _cell_placement(rng, spec, pset, cell, piece)
        for cell, piece in sorted(board_pieces.items())
    ]
    unplayed = [p for p in ALL_PIECES if p not in board_pieces.values()]
    if opts.board and unplayed and rng.random() < opts.off_board_prob:
        placements += off_board_placements(rng, spec, pset, unplayed, -thickness)
    table_kind = str(rng.choice(TABLE_KINDS, p=_TABLE_WEIGHTS))
    table_half = (float(rng.uniform(0.5, 1.1)), float(rng.uniform(0.4, 0.8)))
    clutter = _sample_clutter(rng, spec, placements, int(rng.integers(0, opts.max_clutter + 1)))
    lights, ambient = _sample_lights(rng)
    cam = sample_camera(
        rng,
        opts.size_wh,
        spec.side_m,
        elevation_deg=opts.elevation_deg,
        hfov_deg=opts.hfov_deg,
        board_fill=opts.board_fill,
        distortion_prob=opts.distortion_prob,
    )
    effects = _sample_effects(rng, lights)
    texture_seed = int(rng.integers(0, 2**31 - 1))
    if opts.hole_light == "varied":  # drawn last: the other draws stay those of "dark"
        pset = replace(pset, hole_shading=sample_hole_shading(rng))
    if opts.lighting == "dim":  # drawn after all others, as the bores are
        effects = replace(effects, exposure_bias_ev=float(rng.uniform(-1.8, -0.6)),
                          iso_gain=1.0 + 5.0 * float(rng.uniform(0.6, 1.0)))
    if opts.sensor != "pixel":  # no draw: the scene is the same, only its grain differs
        effects = replace(effects, sensor=opts.sensor)
    return Scene(
        seed=int(seed),
        size_wh=opts.size_wh,
        style=style if opts.board else None,
        spec=spec if opts.board else None,
        board_thickness_m=thickness,
        board_look=look,
        piece_set=pset,
        placements=tuple(placements),
        table_kind=table_kind,
        table_half_extent_m=table_half,
        clutter=tuple(clutter),
        lights=tuple(lights),
        ambient=ambient,
        camera=cam,
        effects=effects,
        texture_seed=texture_seed,
        hand=None,
    )


def piece_footprint(pset: PieceSet, piece: Piece) -> float:
    """Width of the piece's footprint (diameter or side), metres."""
    return pset.square_side_m if piece.value("shape") == "square" else pset.round_diameter_m


def _cell_placement(
    rng: np.random.Generator, spec: BoardSpec, pset: PieceSet, cell: Cell, piece: Piece
) -> Placement:
    """A piece put down by hand: a small offset from the cell centre and a small turn."""
    slack = max(0.0, (spec.cell_diameter_m - piece_footprint(pset, piece)) / 2.0)
    offset = rng.normal(0.0, 0.25 * slack, 2).clip(-0.6 * slack, 0.6 * slack)
    x, y = spec.cell_center(cell) + offset
    yaw = spec.grid_rotation_deg + float(rng.normal(0.0, 6.0))
    return Placement(piece, (float(x), float(y), 0.0), yaw, cell)


def off_board_placements(
    rng: np.random.Generator,
    spec: BoardSpec,
    pset: PieceSet,
    unplayed: list[Piece],
    table_z: float,
) -> list[Placement]:
    """Unplayed pieces standing in loose rows beside one or two board edges, on the table."""
    # Spacing from the smaller (square) footprint, so rows of wide sets still fit beside the
    # board; never closer than a round piece's width and a tenth.
    gap = max(pset.square_side_m * float(rng.uniform(1.25, 1.7)), 1.1 * pset.round_diameter_m)
    sides = rng.permutation(4)[: int(rng.integers(1, 3))]
    order = list(rng.permutation(len(unplayed)))
    groups = [order] if len(sides) == 1 else [order[: len(order) // 2], order[len(order) // 2 :]]
    out: list[Placement] = []
    half = spec.side_m / 2.0
    for side, group in zip(sides, groups, strict=False):
        per_row = int(rng.integers(3, 6))
        start = float(rng.uniform(-half, max(-half, half - gap * min(per_row, len(group)))))
        dist0 = half + float(rng.uniform(0.025, 0.06))
        for k, idx in enumerate(group):
            along = start + (k % per_row) * gap + float(rng.normal(0, 0.08 * gap))
            across = dist0 + (k // per_row) * gap + float(rng.normal(0, 0.08 * gap))
            ang = math.pi / 2.0 * int(side)
            x = across * math.cos(ang) - along * math.sin(ang)
            y = across * math.sin(ang) + along * math.cos(ang)
            out.append(Placement(unplayed[int(idx)], (x, y, table_z), float(rng.uniform(0, 90))))
    return out


def _sample_clutter(
    rng: np.random.Generator, spec: BoardSpec, placements: list[Placement], n: int
) -> list[Clutter]:
    taken = [(p.position_m[0], p.position_m[1]) for p in placements if p.cell is None]
    out: list[Clutter] = []
    half = spec.side_m / 2.0
    sizes = {
        "mug": (0.085, 0.085, 0.095),
        "box": (0.14, 0.09, 0.05),
        "pen": (0.14, 0.01, 0.01),
        "book": (0.21, 0.15, 0.025),
        "phone": (0.15, 0.072, 0.009),
    }
    for _ in range(n):
        kind = str(rng.choice(CLUTTER_KINDS))
        sx, sy, sz = sizes[kind]
        for _attempt in range(10):
            r = half + 0.08 + float(rng.uniform(0.0, 0.25))
            a = float(rng.uniform(0, 2 * math.pi))
            x, y = r * math.cos(a) * 1.3, r * math.sin(a) * 1.3
            if all(math.hypot(x - tx, y - ty) > 0.08 + max(sx, sy) / 2 for tx, ty in taken):
                taken.append((x, y))
                grey = float(rng.uniform(0.02, 0.6))
                tint = rng.uniform(0.6, 1.0, 3)  # everyday objects: mostly muted colours
                c = grey * tint / tint.max()
                rgb = (float(c[0]), float(c[1]), float(c[2]))
                out.append(Clutter(kind, (x, y), float(rng.uniform(0, 180)), (sx, sy, sz), rgb))
                break
    return out


def _sample_lights(rng: np.random.Generator) -> tuple[list[Light], float]:
    n = int(rng.choice([1, 2, 3], p=[0.4, 0.4, 0.2]))
    lights: list[Light] = []
    for i in range(n):
        kind = str(rng.choice(["ceiling", "lamp", "window"], p=[0.45, 0.3, 0.25]))
        a = float(rng.uniform(0, 2 * math.pi))
        if kind == "ceiling":
            r, z, temp, rad = (
                rng.uniform(0.0, 1.4),
                rng.uniform(1.3, 2.2),
                rng.uniform(2700, 5000),
                rng.uniform(0.1, 0.4),
            )
        elif kind == "lamp":
            r, z, temp, rad = (
                rng.uniform(0.25, 0.8),
                rng.uniform(0.35, 0.9),
                rng.uniform(2400, 3600),
                rng.uniform(0.02, 0.07),
            )
        else:
            r, z, temp, rad = (
                rng.uniform(1.5, 3.0),
                rng.uniform(0.6, 1.6),
                rng.uniform(5000, 7500),
                rng.uniform(0.4, 0.9),
            )
        strength = 1.0 if i == 0 else float(rng.uniform(0.2, 0.7))
        lights.append(
            Light(
                kind,
                (float(r * math.cos(a)), float(r * math.sin(a)), float(z)),
                float(temp),
                strength,
                float(rad),
            )
        )
    ambient = float(rng.uniform(0.07, 0.3))
    return lights, ambient


def _sample_effects(rng: np.random.Generator, lights: list[Light]) -> Effects:
    dim = float(rng.uniform(0.0, 1.0)) ** 2  # most scenes well lit, some dim
    return Effects(
        exposure_bias_ev=float(rng.normal(0.0, 0.35)),
        wb_strength=float(rng.uniform(0.55, 0.95)),
        iso_gain=1.0 + 5.0 * dim,
        blur_sigma=float(rng.uniform(0.45, 1.3)),
        motion_len=int(rng.integers(3, 12)) if rng.random() < 0.12 else 0,
        motion_angle_deg=float(rng.uniform(0, 180)),
        vignetting=float(rng.uniform(0.0, 0.45)),
        jpeg_quality=int(rng.integers(72, 95)),
        saturation=float(rng.uniform(0.9, 1.12)),
        background_blur=float(rng.uniform(0.5, 4.0)),
        contrast=float(rng.uniform(0.2, 0.6)),
    )
