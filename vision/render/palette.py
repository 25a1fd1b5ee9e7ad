"""The wide colour palette: boards, markings and piece sets of any hue and lightness.

The classic palette (:mod:`vision.render.materials`) draws from a few colours seen on real
sets, so a network trained on it can learn absolute colours ("light = paler than the board").
Home-made and printed sets break that: yellow against blue plastic on a grey board, orange-brown
against white on a dark board, mid-brown "light" wood on a pale wooden board, painted boards of
any colour. This palette samples colours continuously in CIE L*C*h (D65), where lightness is the
attribute that names a piece ``light`` or ``dark``; the only rule kept is the one that defines a
Quarto set: the light pieces are lighter than the dark ones by a visible margin
(:data:`WIDE.min_piece_gap_l`). The board may be lighter than both, darker than both, or between.

Colours are returned as linear RGB (the renderer's shading space), always inside the sRGB gamut:
a colour whose chroma does not fit at its lightness and hue keeps its lightness and hue and loses
chroma.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.render.materials import RGB, PieceFinish

#: Linear sRGB from CIE XYZ (D65), IEC 61966-2-1.
_XYZ_TO_RGB = np.array(
    [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
)
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


@dataclass(frozen=True)
class WidePaletteConfig:
    """Ranges of the wide palette, in CIE L* (0 black .. 100 white) and C* (chroma) units."""

    min_piece_gap_l: float = 20.0  # light minus dark piece lightness: tells the two apart
    max_piece_gap_l: float = 75.0  # wider than black vs white plastic never happens
    dark_piece_l: tuple[float, float] = (5.0, 65.0)  # a "dark" piece can be mid-grey or tan
    light_piece_min_l: float = 35.0  # a "light" piece is at least a mid-brown wood
    max_piece_l: float = 96.0  # white plastic, a little below a perfect diffuser
    neutral_prob: float = 0.3  # black, white, grey pieces or boards (chroma below 6)
    max_chroma: float = 75.0  # saturated paint; the gamut limits it further
    board_l: tuple[float, float] = (10.0, 95.0)  # painted boards: near black to white
    mark_min_gap_l: float = 25.0  # a marking told apart by lightness alone
    mark_hue_min_gap_l: float = 8.0  # a coloured marking (red rings on green) may be as light
    engraving_gap_l: tuple[float, float] = (15.0, 35.0)  # a V-cut shows the wood below the stain
    recess_shade: tuple[float, float] = (0.55, 0.85)  # recessed cell: its floor lies in shadow
    light_wood_l: tuple[float, float] = (42.0, 86.0)  # mid-brown walnut-stained to pale maple
    dark_wood_l: tuple[float, float] = (12.0, 45.0)
    # Hue and chroma of woods, as measured on the classic palette's sRGB colours: light woods
    # are yellowish (beech 79 deg, orange 62), dark woods redder (walnut 57, red-brown 36).
    light_wood_hue_deg: tuple[float, float] = (58.0, 90.0)
    light_wood_chroma: tuple[float, float] = (15.0, 55.0)
    dark_wood_hue_deg: tuple[float, float] = (30.0, 65.0)
    dark_wood_chroma: tuple[float, float] = (8.0, 40.0)


WIDE = WidePaletteConfig()


def lab_to_linear(lab: tuple[float, float, float] | np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) -> linear RGB, unclipped (may leave 0..1 when out of gamut)."""
    lightness, a, b = (float(v) for v in np.asarray(lab, dtype=np.float64))
    fy = (lightness + 16.0) / 116.0
    f = np.array([fy + a / 500.0, fy, fy - b / 200.0])
    d = 6.0 / 29.0
    xyz = np.where(f > d, f**3, 3.0 * d * d * (f - 4.0 / 29.0)) * _WHITE_D65
    return np.asarray(_XYZ_TO_RGB @ xyz, dtype=np.float64)


def linear_lightness(rgb: tuple[float, float, float] | np.ndarray) -> float:
    """CIE L* of a linear RGB colour (its relative luminance Y on the L* scale)."""
    r, g, b = (float(v) for v in np.asarray(rgb, dtype=np.float64))
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    d = 6.0 / 29.0
    f = y ** (1.0 / 3.0) if y > d**3 else y / (3.0 * d * d) + 4.0 / 29.0
    return 116.0 * f - 16.0


def lch_to_linear(lightness: float, chroma: float, hue_deg: float) -> RGB:
    """Linear RGB of L*C*h, with the chroma reduced (lightness and hue kept) into the gamut."""
    if not 0.0 <= lightness <= 100.0:
        raise ValueError(f"lightness must be within [0, 100], got {lightness!r}")
    h = math.radians(hue_deg)
    lo, hi = 0.0, max(0.0, chroma)
    rgb = lab_to_linear((lightness, hi * math.cos(h), hi * math.sin(h)))
    if not (rgb.min() >= 0.0 and rgb.max() <= 1.0):
        for _ in range(24):  # bisect the largest chroma inside the gamut
            mid = 0.5 * (lo + hi)
            trial = lab_to_linear((lightness, mid * math.cos(h), mid * math.sin(h)))
            if trial.min() >= 0.0 and trial.max() <= 1.0:
                lo = mid
            else:
                hi = mid
        rgb = lab_to_linear((lightness, lo * math.cos(h), lo * math.sin(h)))
    c = np.clip(rgb, 0.0, 1.0)
    return (float(c[0]), float(c[1]), float(c[2]))


def _chroma(rng: np.random.Generator, cfg: WidePaletteConfig) -> float:
    if rng.random() < cfg.neutral_prob:
        return float(rng.uniform(0.0, 6.0))
    return float(rng.uniform(6.0, cfg.max_chroma))


def _any_colour(rng: np.random.Generator, lightness: float, cfg: WidePaletteConfig) -> RGB:
    return lch_to_linear(lightness, _chroma(rng, cfg), float(rng.uniform(0.0, 360.0)))


def _wood(rng: np.random.Generator, lightness: float, cfg: WidePaletteConfig) -> RGB:
    """A wood of this lightness: light woods' hues and chromas above L* 45, dark woods' below."""
    light = lightness >= 45.0
    hue = cfg.light_wood_hue_deg if light else cfg.dark_wood_hue_deg
    chroma = cfg.light_wood_chroma if light else cfg.dark_wood_chroma
    return lch_to_linear(lightness, float(rng.uniform(*chroma)), float(rng.uniform(*hue)))


def _shade(rgb: RGB, factor: float) -> list[float]:
    return [float(v) * factor for v in rgb]


def _marking(rng: np.random.Generator, top_l: float, cfg: WidePaletteConfig) -> RGB:
    """A marking that stands out from a board of lightness ``top_l``: by lightness (either
    way, as far as the board leaves room) or by hue at a similar lightness."""
    if rng.random() < 0.7:
        darker = top_l - cfg.mark_min_gap_l >= 2.0
        lighter = top_l + cfg.mark_min_gap_l <= 98.0
        if darker and (not lighter or rng.random() < 0.5):
            mark_l = float(rng.uniform(2.0, top_l - cfg.mark_min_gap_l))
        else:
            mark_l = float(rng.uniform(top_l + cfg.mark_min_gap_l, 98.0))
        return _any_colour(rng, mark_l, cfg)
    sign = 1.0 if top_l < 50.0 else -1.0
    mark_l = top_l + sign * float(rng.uniform(cfg.mark_hue_min_gap_l, cfg.mark_min_gap_l))
    return lch_to_linear(mark_l, float(rng.uniform(40.0, cfg.max_chroma)), rng.uniform(0, 360))


def wide_board_look(
    rng: np.random.Generator, style: str, cfg: WidePaletteConfig = WIDE
) -> dict[str, object]:
    """Colours of a board (the keys of :func:`vision.render.materials.board_look`), widened.

    ``gigamic_black``: any dark top with rings of any light colour; ``wood_light`` and
    ``wood_dark``: woods of a continuous range, engraved or with recessed cells (a shaded disc
    of the top's own colour); ``diy_axis``: painted or wooden tops of any colour, with rings,
    discs, squares or recesses in any contrasting colour.
    """
    line_mm = float(rng.uniform(0.8, 2.5))
    edge_shade = float(rng.uniform(0.6, 0.95))
    if style == "gigamic_black":
        top_l = float(rng.uniform(8.0, 32.0))
        top = lch_to_linear(top_l, float(rng.uniform(0.0, 20.0)), float(rng.uniform(0, 360)))
        mark = _any_colour(rng, float(rng.uniform(top_l + cfg.mark_min_gap_l, 90.0)), cfg)
        cells, grain, text = "ring", 0.0, bool(rng.random() < 0.5)
    elif style in ("wood_light", "wood_dark"):
        rng_l = cfg.light_wood_l if style == "wood_light" else cfg.dark_wood_l
        top_l = float(rng.uniform(*rng_l))
        top = _wood(rng, top_l, cfg)
        grain, text = float(rng.uniform(0.15, 0.35)), False
        if rng.random() < 0.6:
            # The cut shows the wood under the finish: darker on light wood, lighter under a
            # dark stain.
            cells = "engraved"
            cut = float(rng.uniform(*cfg.engraving_gap_l))
            mark = _wood(rng, top_l - cut if style == "wood_light" else top_l + cut, cfg)
        else:
            cells = "disc"  # recessed cells: the floor lies in the rim's shadow
            mark = tuple(_shade(top, float(rng.uniform(*cfg.recess_shade))))  # type: ignore[assignment]
    elif style == "diy_axis":
        top_l = float(rng.uniform(*cfg.board_l))
        if rng.random() < 0.75:
            top, grain = _any_colour(rng, top_l, cfg), 0.0
        else:
            top, grain = _wood(rng, top_l, cfg), float(rng.uniform(0.08, 0.25))
        text = False
        if rng.random() < 0.25:
            cells = "disc"
            mark = tuple(_shade(top, float(rng.uniform(*cfg.recess_shade))))  # type: ignore[assignment]
        else:
            cells = str(rng.choice(["ring", "disc", "square"]))
            mark = _marking(rng, top_l, cfg)
    else:
        raise ValueError(f"unknown board style {style!r}")
    return {
        "top": list(top),
        "marking": list(mark),
        "edge": _shade(top, edge_shade),
        "cells": cells,
        "grain": grain,
        "text": text,
        "line_mm": line_mm,
    }


def wide_piece_finish(
    rng: np.random.Generator, style: str, cfg: WidePaletteConfig = WIDE
) -> PieceFinish:
    """Two piece colours of any hue whose lightness differs by at least ``min_piece_gap_l``.

    Plastic or painted sets (half of ``diy_axis`` sets, a fifth of the others) take any hue and
    lightness each; wooden sets pair a light wood from mid-brown to pale with a darker wood or
    black paint. Nothing ties them to the board: either may be lighter or darker than it.
    """
    plastic = rng.random() < (0.5 if style == "diy_axis" else 0.2)
    if plastic:
        dark_l = float(rng.uniform(*cfg.dark_piece_l))
        low = max(dark_l + cfg.min_piece_gap_l, cfg.light_piece_min_l)
        light_l = float(rng.uniform(low, min(cfg.max_piece_l, dark_l + cfg.max_piece_gap_l)))
        light = _any_colour(rng, light_l, cfg)
        dark = _any_colour(rng, dark_l, cfg)
        return PieceFinish("plastic", light, dark, float(rng.uniform(0.1, 0.35)), 0.0)
    light_l = float(rng.uniform(*cfg.light_wood_l))
    light = _wood(rng, light_l, cfg)
    if rng.random() < 0.2:  # black-stained or painted dark pieces
        dark = lch_to_linear(float(rng.uniform(6.0, 20.0)), float(rng.uniform(0.0, 5.0)), 0.0)
    else:
        high = min(cfg.dark_wood_l[1], light_l - cfg.min_piece_gap_l)
        dark = _wood(rng, float(rng.uniform(cfg.dark_wood_l[0], high)), cfg)
    return PieceFinish(
        "wood", light, dark, float(rng.uniform(0.03, 0.12)), float(rng.uniform(0.1, 0.22))
    )
