"""Seeded stills: ``render_still(seed) -> (image_bgr, label)`` and writing them to disk."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.render.compose import RenderConfig, SceneRenderer, piece_ident
from vision.render.effects import develop, jpeg_round_trip
from vision.render.labels import still_label, write_label
from vision.render.scene import Scene, SceneOptions, sample_scene

logger = logging.getLogger(__name__)

#: Elevation bands used in evaluation reports (``vision.evaluation.labels.elevation_band``).
ELEVATION_BANDS: dict[str, tuple[float, float]] = {
    "25-40": (25.0, 40.0),
    "40-60": (40.0, 60.0),
    "60-90": (60.0, 90.0),
}


def render_scene(
    scene: Scene, *, config: RenderConfig | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render an already sampled scene: ``(image (H, W, 3) uint8 BGR, label dict)``."""
    renderer = SceneRenderer(scene, config)
    drawables = renderer.drawables()
    extra = []
    if scene.hand is not None:
        from vision.render.hands import still_hand_drawables

        extra = still_hand_drawables(scene.hand)
    canvas, ids = renderer.render_linear(drawables + extra)
    vis_by_ident = renderer.visibility(ids, drawables)
    linear = renderer.to_camera_frame(canvas)
    rng = np.random.default_rng([scene.seed, 1])
    image, _ = develop(linear, scene.effects, renderer.lighting.illuminant, rng)
    image = jpeg_round_trip(image, scene.effects.jpeg_quality)
    by_index = {i: renderer.pieces[pl.piece.code] for i, pl in enumerate(scene.placements)}
    vis = {i: vis_by_ident[piece_ident(pl.piece.code)] for i, pl in enumerate(scene.placements)}
    label = still_label(scene, by_index, vis)
    return image, label


def render_still(
    seed: int,
    *,
    size_wh: tuple[int, int] | None = None,
    style: str | None = None,
    elevation_deg: tuple[float, float] | None = None,
    options: SceneOptions | None = None,
    config: RenderConfig | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """A seeded still of a Quarto scene and its exact label (photoreal_dev schema).

    Parameters
    ----------
    seed : int
        Everything random derives from ``numpy.random.default_rng(seed)``: same seed, same pixels.
    size_wh, style, elevation_deg
        Shortcuts (default: those of ``options``, 1280x720) overriding the same fields of
        ``options`` (``style`` one of ``BOARD_STYLES``; ``elevation_deg`` a ``(low, high)``
        band such as ``ELEVATION_BANDS["25-40"]``).
    options : SceneOptions, optional
        Everything else a caller may fix (board fill, piece count, no board, ...).

    Returns
    -------
    image : (H, W, 3) uint8 BGR, already JPEG-compressed once at the scene's quality.
    label : dict, ready for :func:`write_still`; its ``image`` field is filled in there.
    """
    opts = options or SceneOptions()
    changes: dict[str, Any] = {}
    if size_wh is not None:
        changes["size_wh"] = tuple(size_wh)
    if style is not None:
        changes["style"] = style
    if elevation_deg is not None:
        changes["elevation_deg"] = tuple(elevation_deg)
    opts = dataclasses.replace(opts, **changes)
    scene = sample_scene(seed, opts)
    if opts.hand_prob > 0 and np.random.default_rng([seed, 7]).random() < opts.hand_prob:
        from vision.render.hands import sample_still_hand

        scene = dataclasses.replace(
            scene, hand=sample_still_hand(np.random.default_rng([seed, 8]), scene)
        )
    return render_scene(scene, config=config)


def write_still(path: str | Path, image: np.ndarray, label: dict[str, Any]) -> Path:
    """Write ``image`` as JPEG at the label's quality and the label beside it (same stem)."""
    path = Path(path)
    if path.suffix.lower() not in (".jpg", ".jpeg"):
        raise ValueError(f"path must end in .jpg, got {str(path)!r}")
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be (H, W, 3) uint8 BGR, got {image.shape} {image.dtype}")
    path.parent.mkdir(parents=True, exist_ok=True)
    quality = int(label.get("postprocess", {}).get("jpeg_quality", 92))
    if not cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, quality]):
        raise OSError(f"cannot write image {path}")
    label = dict(label, image=path.name)
    write_label(path.with_suffix(".json"), label)
    return path
