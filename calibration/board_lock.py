"""The board lock: four board corners clicked in a window (or given on the command line)."""

from __future__ import annotations

import logging

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.io import BoardLock

log = logging.getLogger(__name__)

WINDOW = "quarto-vision: click the 4 board corners (Backspace undo, Esc cancel)"


def parse_corners(text: str) -> NDArray[np.float64]:
    """'x1,y1 x2,y2 x3,y3 x4,y4' (or 8 comma/space separated numbers) to (4, 2) floats."""
    parts = [p for p in text.replace(",", " ").replace(";", " ").split() if p]
    try:
        vals = [float(p) for p in parts]
    except ValueError as exc:
        raise ValueError(
            f"corners must be 8 numbers 'x1,y1 x2,y2 x3,y3 x4,y4', got {text!r}") from exc
    if len(vals) != 8:
        raise ValueError(f"corners must be 8 numbers (4 x,y pairs), got {len(vals)} in {text!r}")
    return np.array(vals, dtype=np.float64).reshape(4, 2)


def order_corners(corners_px: NDArray[np.float64]) -> NDArray[np.float64]:
    """Corners in order round the board (by angle about their centroid), first = top-left-most."""
    c = np.asarray(corners_px, dtype=np.float64)
    centre = c.mean(axis=0)
    ang = np.arctan2(c[:, 1] - centre[1], c[:, 0] - centre[0])
    c = c[np.argsort(ang)]
    start = int(np.argmin(c.sum(axis=1)))
    return np.roll(c, -start, axis=0)


def click_corners(image: NDArray[np.uint8], layout: str) -> BoardLock | None:
    """Show ``image`` and let the user click the four board corners; None when cancelled."""
    points: list[tuple[float, float]] = []

    def on_mouse(event: int, x: int, y: int, flags: int, param: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(points) < 4:
            points.append((float(x), float(y)))

    cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)
    cv2.setMouseCallback(WINDOW, on_mouse)
    try:
        while True:
            shown = image.copy()
            for p in points:
                cv2.circle(shown, (int(p[0]), int(p[1])), 6, (0, 0, 255), 2)
            if len(points) > 1:
                cv2.polylines(shown, [np.array(points, np.int32)], len(points) == 4,
                              (0, 255, 255), 2)
            cv2.imshow(WINDOW, shown)
            key = cv2.waitKey(30) & 0xFF
            if key == 27:
                return None
            if key in (8, 127) and points:
                points.pop()
            if len(points) == 4 and key in (13, 10, 32):
                break
    finally:
        cv2.destroyWindow(WINDOW)
    return BoardLock(order_corners(np.array(points)), layout)
