"""Calibrating the fused attribute odds by how much of the piece is in view.

The fused reader's P(second value) is a weighted product of two readers' odds. Neither reader
knows how often it is wrong when half the piece is behind a nearer one, and the fusion weights
were chosen for the number of pieces read right, not for honest odds. Measured on calibration
renders (``benchmarks/calibrate_odds.py``), the odds of a piece seen whole are *under*-confident
(a reading of 0.9 is right nearly always) while those of a partly hidden piece are
*over*-confident (its shape and top are guessed from a sliver). Downstream, odds are taken at
their word: the joint decoding weighs cells against each other by them, and the live tracker
announces a Quarto only when the product of four of them clears a threshold; a piece half
hidden must not carry a false line on a sure-looking guess.

:class:`OddsCalibration` divides each attribute's log-odds by a temperature that depends on
the attribute and on the band of the piece's predicted visible fraction (temperature above 1
softens, below 1 sharpens). The packaged temperatures were fitted by maximum likelihood on
calibration renders, never on the evaluation sets.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from vision.rules.pieces import ATTRIBUTES

#: Upper bounds of the visible-fraction bands (the last band runs to 1).
VISIBLE_EDGES: tuple[float, ...] = (0.3, 0.5, 0.7, 0.9)

#: Temperatures per attribute and band (``len(VISIBLE_EDGES) + 1`` each), fitted by
#: ``python benchmarks/calibrate_odds.py --cache DIR`` on calibration renders 1280000-1280299
#: with the packaged network and fusion weights (checked on 1280300-1280449: log-loss of all
#: attributes 0.077 -> 0.070, readings claiming 0.9 or more wrong 29 -> 25 of about 4170).
#: Under half visible, odds soften (1.0-2.2); seen well, they sharpen (0.55-0.9).
FITTED_TEMPERATURES: dict[str, tuple[float, ...]] = {
    "color": (1.68, 1.64, 1.06, 1.15, 0.87),
    "shape": (1.38, 1.55, 0.67, 0.85, 0.55),
    "height": (1.03, 1.34, 0.77, 0.78, 0.86),
    "top": (2.22, 1.44, 0.78, 0.81, 0.57),
}

_EPS = 1e-6


@dataclass(frozen=True)
class OddsCalibration:
    """Temperatures of the attribute log-odds, per attribute and visible-fraction band.

    Parameters
    ----------
    visible_edges : increasing upper bounds of the bands, within (0, 1).
    temperatures : attribute -> one positive temperature per band (``len(edges) + 1``);
        an attribute left out is not changed.
    """

    visible_edges: tuple[float, ...] = VISIBLE_EDGES
    temperatures: Mapping[str, tuple[float, ...]] = field(
        default_factory=lambda: dict(FITTED_TEMPERATURES))

    def __post_init__(self) -> None:
        edges = self.visible_edges
        if any(not 0.0 < e < 1.0 for e in edges) or any(
                a >= b for a, b in itertools.pairwise(edges)):
            raise ValueError(f"visible_edges must increase within (0, 1), got {edges!r}")
        for name, temps in self.temperatures.items():
            if name not in ATTRIBUTES:
                raise ValueError(f"unknown attribute {name!r}; expected one of {ATTRIBUTES}")
            if len(temps) != len(edges) + 1 or any(not t > 0 for t in temps):
                raise ValueError(f"{name}: need {len(edges) + 1} positive temperatures, "
                                 f"got {temps!r}")

    @classmethod
    def identity(cls) -> OddsCalibration:
        """No change (every temperature 1)."""
        return cls(temperatures={})

    def band(self, visible: float) -> int:
        """Index of the band holding ``visible`` (NaN counts as fully visible)."""
        if math.isnan(visible):
            return len(self.visible_edges)
        return bisect.bisect_right(self.visible_edges, visible)

    def temperature(self, attribute: str, visible: float) -> float:
        temps = self.temperatures.get(attribute)
        return 1.0 if temps is None else float(temps[self.band(visible)])

    def apply(
        self, odds: Sequence[Mapping[str, float | None]], visible: Sequence[float]
    ) -> list[dict[str, float | None]]:
        """``odds`` (per cell, P(second value) of each attribute) with every known value's
        log-odds divided by its temperature; unknown values stay unknown."""
        out: list[dict[str, float | None]] = []
        for cell, v in zip(odds, visible, strict=True):
            new = dict(cell)
            for name, p in cell.items():
                t = self.temperature(name, float(v))
                if p is None or t == 1.0:
                    continue
                q = min(max(float(p), _EPS), 1.0 - _EPS)
                new[name] = 1.0 / (1.0 + math.exp(-math.log(q / (1.0 - q)) / t))
            out.append(new)
        return out


#: Upper bounds of the visible-fraction bands of :class:`LowViewOdds` (the last runs to 1).
LOW_VIEW_EDGES: tuple[float, ...] = (0.3, 0.45, 0.6)

#: Temperatures of :class:`LowViewOdds`, per attribute and band (``len(LOW_VIEW_EDGES) + 1``
#: each). Fitted by ``python benchmarks/calibrate_low_view.py --folder DIR ...`` on the
#: readings of cells seen from at most 45 degrees in dev stills 1360000-1360499 (every
#: elevation) and 3481000-3481120 (25-45 degrees), even seeds (checked on the odd ones).
#: Only the lowest band is tempered, and only the attributes read from a sliver of outline
#: and colour: there both halves fitted above 1 (colour 1.52 / 1.33, shape 1.22 / 1.59,
#: height 1.92 / 1.59). From 0.3 up the odds were honest or under-confident (shape 0.84 /
#: 0.60 at 0.3-0.45) and the top below 0.3 too (0.70 / 0.81): those stay 1, never sharpened
#: (a sharpening fitted on about 80 readings a half would be noise, and the opposite of what
#: a hidden piece needs).
LOW_VIEW_TEMPERATURES: dict[str, tuple[float, ...]] = {
    "color": (1.52, 1.0, 1.0, 1.0),
    "shape": (1.22, 1.0, 1.0, 1.0),
    "height": (1.92, 1.0, 1.0, 1.0),
}


@dataclass(frozen=True)
class LowViewOdds:
    """A second temperature for the fused odds of pieces seen from a low angle.

    The packaged :class:`OddsCalibration` was fitted on renders of every elevation, where most
    partly hidden pieces are seen from above the middle. From a low angle the piece behind a
    tall one is cut by it along its whole height, and the reader's own visible fraction (what
    the temperature is chosen by) misses part of that: it counts only the pieces read as
    occupied, at the heights it fits. So at a low angle a band of the reader's visible
    fraction holds more truly hidden pieces than the same band over all elevations, and the
    odds of what is read from the silhouette are surer than they should be.

    Applied to the final fused odds (after the calibration and the height cues, as the
    joint decoding and the live tracker take them) of every cell seen from at most
    ``max_elevation_deg`` (0: off), each attribute's log-odds divided by its temperature in
    the band of the piece's visible fraction.

    Parameters
    ----------
    max_elevation_deg : cells seen at this elevation or lower are tempered; 0 switches it off.
    calibration : the temperatures, by attribute and band (``visible_edges``).
    """

    max_elevation_deg: float = 0.0
    calibration: OddsCalibration = field(default_factory=lambda: OddsCalibration(
        visible_edges=LOW_VIEW_EDGES, temperatures=dict(LOW_VIEW_TEMPERATURES)))

    def __post_init__(self) -> None:
        if not 0.0 <= self.max_elevation_deg <= 90.0:
            raise ValueError(f"max_elevation_deg must be within [0, 90], got "
                             f"{self.max_elevation_deg!r}")

    def apply(
        self, odds: Sequence[Mapping[str, float | None]], visible: Sequence[float],
        elevation_deg: Sequence[float],
    ) -> list[dict[str, float | None]]:
        """``odds`` with the cells seen from at most ``max_elevation_deg`` tempered (the
        others, and every cell when off, returned unchanged)."""
        if self.max_elevation_deg <= 0:
            return [dict(o) for o in odds]
        low = [e <= self.max_elevation_deg for e in elevation_deg]
        tempered = self.calibration.apply(odds, visible)
        return [t if lo else dict(o) for o, t, lo in zip(odds, tempered, low, strict=True)]
