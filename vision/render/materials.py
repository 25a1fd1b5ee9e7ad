"""Materials: colours of piece sets, boards and lights, and the sizes of a piece set.

Colours are written as sRGB bytes (what a photo shows, easy to check against a picture) and
converted once to linear RGB, the space all shading happens in. Piece colours were chosen by
looking at real sets: Gigamic's current edition (pale beech vs brown), the older black edition
(honey/orange vs red-brown/purple), home-made and plastic sets.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

RGB = tuple[float, float, float]

#: Light woods (sRGB bytes): pale beech, beech, honey, orange, maple.
LIGHT_WOODS: tuple[tuple[int, int, int], ...] = (
    (232, 204, 158),
    (221, 184, 132),
    (224, 162, 78),
    (232, 134, 48),
    (226, 194, 120),
)
#: Dark woods: walnut, brown, red-brown, purple-brown, chocolate.
DARK_WOODS: tuple[tuple[int, int, int], ...] = (
    (98, 62, 40),
    (122, 74, 46),
    (118, 40, 30),
    (80, 30, 44),
    (62, 40, 30),
)
#: Plastic sets as (light, dark) pairs.
PLASTIC_PAIRS: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((236, 234, 228), (38, 38, 42)),
    ((226, 206, 170), (176, 32, 30)),
    ((238, 202, 44), (40, 72, 170)),
    ((230, 218, 190), (70, 70, 74)),
)


def srgb_to_linear(rgb_bytes: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    """sRGB bytes (R, G, B) -> linear RGB floats in 0..1."""
    c = np.asarray(rgb_bytes, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def kelvin_to_rgb(temperature_k: float) -> np.ndarray:
    """Linear RGB of a black body at ``temperature_k``, normalised so green is 1.

    Tanner Helland's fit to the Planckian locus (sRGB bytes), good to a few percent for
    1000-12000 K, which is all a room light needs.
    """
    t = temperature_k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = (
        (99.4708025861 * math.log(t) - 161.1195681661)
        if t <= 66
        else 288.1221695283 * (t - 60) ** -0.0755148492
    )
    b = (
        255.0
        if t >= 66
        else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    )
    lin = srgb_to_linear(np.clip([r, g, b], 1.0, 255.0).astype(np.float64))
    return lin / lin[1]


@dataclass(frozen=True)
class HoleShading:
    """How much light reaches inside the bore of a hollow piece (shares of the light a top
    face gets): its wall sees only a sliver of the room, its bottom is lit only where a lamp
    shines straight through the opening.

    ``bounce`` is the share of the light leaving the bore's surface that lands on it again
    (interreflection: more in a narrow, deep bore). A surface of albedo ``a`` then carries
    ``1 / (1 - bounce * a)`` times its direct light: a pale wooden bore glows, a dark one
    stays dark (the light also takes on the wood's colour, channel by channel).
    """

    wall_ambient: float = 0.5
    wall_direct: float = 0.1
    bottom_ambient: float = 0.4
    bottom_shadow_direct: float = 0.05
    bottom_lit_direct: float = 0.7
    bounce: float = 0.0

    def bounce_gain(self, albedo: np.ndarray) -> np.ndarray:
        """Per-channel radiance gain of the interreflections inside the bore."""
        a = np.clip(np.asarray(albedo, dtype=np.float64), 0.0, 1.0)
        return np.asarray(1.0 / (1.0 - self.bounce * a))


#: The bore as classic scenes draw it: direct light and sky only, no interreflection.
HOLE_SHADING = HoleShading()


def sample_hole_shading(rng: np.random.Generator) -> HoleShading:
    """A bore of some other depth and finish (``SceneOptions(hole_light="varied")``).

    Real bores range from deep, narrow and dark to shallow dimples whose floor sees most of
    the room; path-traced and photographed pale-wood bores glow from interreflection. The
    shares are drawn from the dark classic bore up to a shallow, well-lit one.
    """
    return HoleShading(
        wall_ambient=float(rng.uniform(0.4, 0.85)),
        wall_direct=float(rng.uniform(0.05, 0.35)),
        bottom_ambient=float(rng.uniform(0.3, 0.85)),
        bottom_shadow_direct=float(rng.uniform(0.03, 0.25)),
        bottom_lit_direct=float(rng.uniform(0.6, 0.95)),
        bounce=float(rng.uniform(0.0, 0.8)),
    )


@dataclass(frozen=True)
class PieceFinish:
    """What a piece set looks like: its material, two albedos (linear RGB) and surface."""

    material: str  # wood | plastic
    light_rgb: RGB
    dark_rgb: RGB
    gloss: float  # specular strength: wax on wood, shine of plastic
    grain: float  # wood-grain contrast (0 for plastic)


@dataclass(frozen=True)
class PieceSet:
    """Sizes and colours of one physical set (all 16 pieces)."""

    material: str  # wood | plastic
    light_rgb: RGB  # linear albedo
    dark_rgb: RGB
    round_diameter_m: float
    square_side_m: float
    short_height_m: float
    tall_height_m: float
    hole_diameter_frac: float  # of the footprint width
    hole_depth_m: float
    groove: bool  # the turned line around each piece
    groove_tall_frac: float  # groove height as a share of a tall piece's height
    groove_short_frac: float
    chamfer_m: float  # bevel on the top edge
    gloss: float  # specular strength: wax on wood, shine of plastic
    grain: float  # wood-grain contrast (0 for plastic)
    hole_shading: HoleShading | None = None  # None: HOLE_SHADING

    def label(self) -> dict[str, object]:
        extra: dict[str, object] = {}
        if self.hole_shading is not None:
            extra["hole_shading"] = asdict(self.hole_shading)
        return {
            "material": self.material,
            "round_diameter_m": self.round_diameter_m,
            "square_side_m": self.square_side_m,
            "short_height_m": self.short_height_m,
            "tall_height_m": self.tall_height_m,
            "hole_diameter_frac": self.hole_diameter_frac,
            "hole_depth_m": self.hole_depth_m,
            "seam": self.groove,
            "groove_tall_frac": self.groove_tall_frac,
            "groove_short_frac": self.groove_short_frac,
            **extra,
        }


def classic_piece_finish(rng: np.random.Generator, style: str) -> PieceFinish:
    """Colours of a set from the classic palettes (:data:`LIGHT_WOODS`, :data:`DARK_WOODS`,
    :data:`PLASTIC_PAIRS`), each jittered by a few sRGB levels."""
    plastic = style == "diy_axis" and rng.random() < 0.5
    if plastic:
        light_b, dark_b = PLASTIC_PAIRS[int(rng.integers(len(PLASTIC_PAIRS)))]
        material, gloss, grain = "plastic", float(rng.uniform(0.15, 0.35)), 0.0
    else:
        # Gigamic pairs: pale beech with brown/walnut, or honey/orange with red/purple-brown.
        li = int(rng.integers(len(LIGHT_WOODS)))
        di = int(rng.integers(len(DARK_WOODS)))
        light_b, dark_b = LIGHT_WOODS[li], DARK_WOODS[di]
        material, gloss, grain = (
            "wood",
            float(rng.uniform(0.03, 0.12)),
            float(rng.uniform(0.1, 0.22)),
        )
    jitter = rng.normal(0.0, 6.0, (2, 3))
    light = srgb_to_linear(np.clip(np.array(light_b) + jitter[0], 0, 255))
    dark = srgb_to_linear(np.clip(np.array(dark_b) + jitter[1], 0, 255))
    return PieceFinish(
        material,
        (float(light[0]), float(light[1]), float(light[2])),
        (float(dark[0]), float(dark[1]), float(dark[2])),
        gloss,
        grain,
    )


def sample_piece_set(
    rng: np.random.Generator,
    style: str,
    cell_diameter_m: float,
    finish: PieceFinish | None = None,
) -> PieceSet:
    """A set that fits the board: square side 0.56-0.70 of the cell ring, round pieces 1.0-1.24
    times as wide as square ones.

    Sets differ in that proportion: an early edition's round pieces are about as wide as its
    square ones, the photorealistic renders' are 1.01-1.24 times as wide (median 1.11, 0.67-0.85
    of the ring). Heights follow the square side. ``finish`` gives the colours (drawn from the
    classic palettes when None, before the sizes, so classic scenes keep their random stream;
    the sizes take the same draws as before 2026-11, so every later draw is unchanged).
    """
    if finish is None:
        finish = classic_piece_finish(rng, style)
    foot = cell_diameter_m * float(rng.uniform(0.56, 0.70))
    short = foot * float(rng.uniform(1.0, 1.5))
    tall = short * float(rng.uniform(1.5, 2.1))
    round_over_square = float(rng.uniform(1.0, 1.24))  # the draw the square/round ratio had
    return PieceSet(
        material=finish.material,
        light_rgb=finish.light_rgb,
        dark_rgb=finish.dark_rgb,
        round_diameter_m=foot * round_over_square,
        square_side_m=foot,
        short_height_m=short,
        tall_height_m=tall,
        hole_diameter_frac=float(rng.uniform(0.55, 0.67)),
        hole_depth_m=short * float(rng.uniform(0.25, 0.45)),
        groove=bool(rng.random() < 0.85),
        groove_tall_frac=float(rng.uniform(0.36, 0.44)),
        groove_short_frac=float(rng.uniform(0.7, 0.8)),
        chamfer_m=foot * float(rng.uniform(0.02, 0.06)),
        gloss=finish.gloss,
        grain=finish.grain,
    )


def board_look(rng: np.random.Generator, style: str) -> dict[str, object]:
    """Colours of a board: top, markings, edge (linear RGB) and how cells are marked."""

    def lin(b: tuple[float, float, float]) -> list[float]:
        return [
            float(v) for v in srgb_to_linear(np.clip(np.array(b) + rng.normal(0, 4, 3), 0, 255))
        ]

    if style == "gigamic_black":
        top = [(34, 35, 40), (30, 33, 46), (26, 28, 30), (36, 38, 56)][int(rng.integers(4))]
        ring = [(212, 168, 88), (200, 150, 70), (226, 132, 52)][int(rng.integers(3))]
        edge = [(222, 112, 44), (176, 44, 32), (200, 84, 40)][int(rng.integers(3))]
        return {
            "top": lin(top),
            "marking": lin(ring),
            "edge": lin(edge),
            "cells": "ring",
            "grain": 0.0,
            "text": bool(rng.random() < 0.5),
            "line_mm": float(rng.uniform(0.8, 1.3)),
        }
    if style == "wood_light":
        top = LIGHT_WOODS[int(rng.integers(len(LIGHT_WOODS)))]
        return {
            "top": lin(top),
            "marking": lin(tuple(0.62 * np.array(top))),
            "edge": lin(tuple(0.85 * np.array(top))),
            "cells": "engraved",
            "grain": float(rng.uniform(0.2, 0.35)),
            "text": False,
            "line_mm": float(rng.uniform(1.0, 1.6)),
        }
    if style == "wood_dark":
        top = [(112, 52, 36), (92, 56, 38), (128, 70, 44)][int(rng.integers(3))]
        return {
            "top": lin(top),
            "marking": lin(tuple(np.minimum(255, 1.6 * np.array(top)))),
            "edge": lin(tuple(0.8 * np.array(top))),
            "cells": "engraved",
            "grain": float(rng.uniform(0.2, 0.35)),
            "text": False,
            "line_mm": float(rng.uniform(1.0, 1.6)),
        }
    if style == "diy_axis":
        kind = str(rng.choice(["painted", "inlay", "plywood"]))
        if kind == "painted":
            top = [(236, 234, 228), (196, 198, 200), (70, 120, 80), (60, 90, 150), (230, 220, 190)][
                int(rng.integers(5))
            ]
            mark = (40, 40, 40) if sum(top) > 450 else (230, 230, 230)
            return {
                "top": lin(top),
                "marking": lin(mark),
                "edge": lin(tuple(0.8 * np.array(top))),
                "cells": str(rng.choice(["ring", "disc", "square"])),
                "grain": 0.0,
                "text": False,
                "line_mm": float(rng.uniform(1.0, 2.5)),
            }
        if kind == "inlay":
            return {
                "top": lin((84, 46, 40)),
                "marking": lin((214, 184, 136)),
                "edge": lin((70, 40, 34)),
                "cells": "disc",
                "grain": 0.18,
                "text": False,
                "line_mm": 1.0,
            }
        return {
            "top": lin((214, 186, 140)),
            "marking": lin((60, 44, 34)),
            "edge": lin((190, 160, 120)),
            "cells": "square",
            "grain": 0.12,
            "text": False,
            "line_mm": float(rng.uniform(1.0, 2.0)),
        }
    raise ValueError(f"unknown board style {style!r}")
