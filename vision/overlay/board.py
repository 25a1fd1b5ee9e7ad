"""Drawing a found board: outline, cell rings and cell names. Returns a new image."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardNotFound, BoardView

#: Colours (BGR) of the overlay.
OUTLINE_BGR = (255, 0, 255)
RING_BGR = (0, 255, 255)
NAME_BGR = (255, 255, 255)
NOT_FOUND_BGR = (0, 0, 255)


def draw_board(image: NDArray[np.uint8], view: BoardView | BoardNotFound, *,
               names: bool = True) -> NDArray[np.uint8]:
    """A copy of ``image`` with the board outline, the 16 cell rings and their names drawn.

    Parameters
    ----------
    image : (H, W, 3) uint8
        BGR image the view was found in.
    view : BoardView or BoardNotFound
        When not found, the reason is written on the image instead.
    names : bool
        Write each cell's name ('a1'..'d4') at its centre.

    Returns
    -------
    (H, W, 3) uint8
        A new image; ``image`` is not modified.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be (H, W, 3) uint8 BGR, got {image.dtype} {image.shape}")
    out = image.copy()
    h, w = out.shape[:2]
    thick = max(1, round(min(h, w) / 400))
    font = max(0.4, min(h, w) / 1200)
    if not view:
        reason = getattr(view, "reason", "board not found")
        cv2.putText(out, f"no board: {reason}", (10, int(30 * font + 10)),
                    cv2.FONT_HERSHEY_SIMPLEX, font, NOT_FOUND_BGR, thick, cv2.LINE_AA)
        return out
    assert isinstance(view, BoardView)
    shift = 4  # fixed-point bits: sub-pixel drawing
    k = float(1 << shift)
    corners = view.corners_px()
    cv2.polylines(out, [np.round(corners * k).astype(np.int32)], True, OUTLINE_BGR, thick,
                  cv2.LINE_AA, shift)
    centers = view.cell_centers_px()
    for cell, c in zip(view.cells, centers, strict=True):
        ring = view.cell_ring_px(cell)
        cv2.polylines(out, [np.round(ring * k).astype(np.int32)], True, RING_BGR, thick,
                      cv2.LINE_AA, shift)
        if names:
            (tw, th), _ = cv2.getTextSize(cell.name, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
            org = (int(c[0] - tw / 2), int(c[1] + th / 2))
            cv2.putText(out, cell.name, org, cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0),
                        thick + 2, cv2.LINE_AA)
            cv2.putText(out, cell.name, org, cv2.FONT_HERSHEY_SIMPLEX, font, NAME_BGR, thick,
                        cv2.LINE_AA)
    return out
