"""Seeded photographic-looking renderer of Quarto scenes, with exact ground truth.

Public API::

    from vision.render import render_still, write_still, SceneOptions, ELEVATION_BANDS
    image_bgr, label = render_still(seed, style="gigamic_black", elevation_deg=(25, 40))
    write_still("out/0001.jpg", image_bgr, label)
    label = render_game("out/game.mp4", seed, "missed")  # + out/game.json

Modules, one concern each: ``scene`` (sampling), ``materials`` (colours, set sizes),
``palette`` (the wide colours of ``SceneOptions(palette="wide")``),
``textures`` (table/board/wood), ``meshes`` (pieces, clutter, tubes), ``shading`` (lights,
shadows), ``raster`` (planes, painter's algorithm, ID buffer), ``compose`` (a scene into a
linear image), ``effects`` (camera simulation), ``labels`` (sidecar JSON), ``still``,
``hands``, ``games`` (scripts) and ``video``.
"""

from vision.render.scene import BOARD_STYLES, SceneOptions, sample_scene
from vision.render.still import ELEVATION_BANDS, render_scene, render_still, write_still
from vision.render.video import render_game

__all__ = [
    "BOARD_STYLES",
    "ELEVATION_BANDS",
    "SceneOptions",
    "render_game",
    "render_scene",
    "render_still",
    "sample_scene",
    "write_still",
]
