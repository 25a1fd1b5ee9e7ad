"""Drawing what the reader believes about each cell. Returns a new image.

For every occupied cell: the predicted top outline of the decoded piece (circle or square at
its height, from the ``BoardView``), a thin line down to its base, and a 4-letter code
(L/D, R/S, S/T, S/H; ``?`` for an attribute that could not be read) with the confidence.
Empty cells get a small cross at their centre.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.config import ReaderConfig
from vision.read.observation import CellReading, Observation
from vision.rules.pieces import ATTRIBUTES

#: Colours (BGR).
LIGHT_BGR = (80, 230, 255)
DARK_BGR = (255, 120, 40)
UNKNOWN_BGR = (200, 200, 200)
EMPTY_BGR = (0, 200, 0)

_LETTERS = {"color": ("L", "D"), "shape": ("R", "S"), "height": ("S", "T"), "top": ("S", "H")}


def reading_code(reading: CellReading) -> str:
    """The 4-letter code of a reading, ``?`` where an attribute is unknown ('' when empty)."""
    if reading.piece is None:
        return ""
    out = []
    for attr in ATTRIBUTES:
        value = reading.attribute(attr)
        if value is None:
            out.append("?")
        else:
            out.append(_LETTERS[attr][int(reading.piece.value(attr) != _first(attr))])
    return "".join(out)


def _first(attr: str) -> str:
    from vision.rules.pieces import VALUES

    return VALUES[attr][0]


def draw_pieces(
    image: NDArray[np.uint8], observation: Observation, *, config: ReaderConfig | None = None,
    short_height_m: float | None = None, tall_height_m: float | None = None,
) -> NDArray[np.uint8]:
    """A copy of ``image`` with each cell's reading drawn on it.

    Parameters
    ----------
    image : (H, W, 3) uint8 BGR image the observation was read from.
    observation : the reader's result; an empty observation draws nothing.
    config : reader configuration (nominal piece size for the outlines).
    short_height_m, tall_height_m : heights to draw the tops at (default: nominal 1.1 F and
        2.1 F).

    Returns
    -------
    (H, W, 3) uint8, a new image; ``image`` is not modified.
    """
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 \
            or image.dtype != np.uint8:
        shape = getattr(image, "shape", None)
        raise ValueError(f"image must be (H, W, 3) uint8 BGR, got {shape}")
    out = image.copy()
    view = observation.board_view
    if not observation or view is None:
        return out
    config = config or ReaderConfig()
    f = config.footprint_frac_of_ring * view.spec.cell_diameter_m
    heights = {"short": short_height_m or 1.1 * f, "tall": tall_height_m or 2.1 * f}
    h, w = out.shape[:2]
    thick = max(1, round(min(h, w) / 500))
    scale = max(0.35, min(h, w) / 1400)
    for reading in observation.cells:
        cx, cy = reading.center_px
        centre = (round(cx), round(cy))
        if reading.piece is None:
            s = max(2, 3 * thick)
            cv2.drawMarker(out, centre, EMPTY_BGR, cv2.MARKER_TILTED_CROSS, 2 * s, thick)
            continue
        colour = {"light": LIGHT_BGR, "dark": DARK_BGR, None: UNKNOWN_BGR}[
            reading.attribute("color")]
        z = heights[reading.attribute("height") or "short"]
        outline = _top_outline(view, reading, f, z)
        cv2.polylines(out, [np.round(outline).astype(np.int32)], True, colour, thick,
                      cv2.LINE_AA)
        top_c = view.cell_center_px(reading.cell, z)
        cv2.line(out, centre, (int(top_c[0]), int(top_c[1])), colour, 1, cv2.LINE_AA)
        text = f"{reading_code(reading)} {reading.confidence:.2f}"
        org = (int(top_c[0]) - int(30 * scale), int(np.min(outline[:, 1])) - 4)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 2,
                    cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    return out


def _top_outline(view: object, reading: CellReading, f: float, z: float) -> NDArray[np.float64]:
    """(N, 2) image outline of the decoded piece's top: a circle, or a square along the grid."""
    from vision.geometry.board_view import BoardView

    assert isinstance(view, BoardView)
    cx, cy = view.spec.cell_center(reading.cell)
    if reading.attribute("shape") == "square":
        a = np.radians(view.spec.grid_rotation_deg) + np.array([0.25, 0.75, 1.25, 1.75]) * np.pi
        r = 0.45 * f * np.sqrt(2.0)
    else:
        a = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)
        r = 0.5 * f
    pts = np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(len(a), z)])
    return view.project(pts)
