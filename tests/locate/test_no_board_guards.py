"""Square things that are not boards: a box, a phone, a coloured mat with spare pieces.

A grid laid over any rectangle finds "cell outlines" on its edges and corners; what refuses
it is ring evidence measured clear of the outline, the ring of positions around the 4x4
and the chequer test (no ring candidate needs to fall on the grid for a board to count).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tests.locate.synth import make_view
from vision.locate import find_board


def _square(view, half: float, z: float = 0.0) -> np.ndarray:
    pts = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]])
    return np.round(view.project(pts) * 16).astype(np.int32)


def _scene(seed: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    view = make_view(float(rng.uniform(30, 80)), float(rng.uniform(0, 90)),
                     distance_m=float(rng.uniform(0.5, 0.8)))
    img = np.empty((720, 1280, 3), np.float64)
    img[:] = rng.uniform(120, 200, 3)
    yy, xx = np.mgrid[0:720, 0:1280]
    img += (10.0 * np.sin(xx / 29.0 + 0.4 * np.sin(yy / 47.0)))[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    dark = tuple(int(v) for v in rng.uniform(15, 60, 3))
    if kind == "box":
        cv2.fillPoly(img, [_square(view, 0.12, -0.03)], (10, 10, 10), cv2.LINE_AA, 4)
        cv2.fillPoly(img, [_square(view, 0.12)], dark, cv2.LINE_AA, 4)
    elif kind == "phone":
        cv2.fillPoly(img, [_square(view, 0.09)], dark, cv2.LINE_AA, 4)
        cv2.fillPoly(img, [_square(view, 0.075)], (90, 60, 40), cv2.LINE_AA, 4)
    else:  # a coloured mat with spare pieces standing on it in rows
        cv2.fillPoly(img, [_square(view, 0.13)], (40, 140, 60), cv2.LINE_AA, 4)
        a = np.linspace(0, 2 * math.pi, 60, endpoint=False)
        for x in (-0.06, 0.0, 0.06):
            for y in (-0.06, 0.06):
                ring = np.column_stack([x + 0.017 * np.cos(a), y + 0.017 * np.sin(a),
                                        np.zeros(60)])
                px = np.round(view.project(ring) * 16).astype(np.int32)
                cv2.fillPoly(img, [px], (30, 60, 150), cv2.LINE_AA, 4)
    noise = rng.normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("kind", ["box", "phone", "mat"])
@pytest.mark.parametrize("seed", [0, 1])
def test_square_things_that_are_not_boards_are_not_found(kind, seed):
    assert not find_board(_scene(seed, kind))
