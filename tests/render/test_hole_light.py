"""Light inside the bores of hollow pieces: the classic dark bore and ``hole_light="varied"``."""

from __future__ import annotations

import numpy as np
import pytest

from vision.render import render_still
from vision.render.materials import HOLE_SHADING, HoleShading, sample_hole_shading
from vision.render.scene import SceneOptions, sample_scene

VARIED = SceneOptions(hole_light="varied", n_pieces=(16, 16), off_board_prob=0.0)


def test_interreflection_brightens_pale_bores_more_than_dark_ones() -> None:
    hs = HoleShading(bounce=0.6)
    gain = hs.bounce_gain(np.array([0.7, 0.4, 0.05]))
    assert gain[0] > gain[1] > gain[2] > 1.0
    assert gain[0] == pytest.approx(1.0 / (1.0 - 0.42))
    assert np.allclose(HOLE_SHADING.bounce_gain(np.array([0.9, 0.5, 0.1])), 1.0)


def test_sampled_bores_range_from_the_classic_one_to_well_lit() -> None:
    rng = np.random.default_rng(0)
    shades = [sample_hole_shading(rng) for _ in range(200)]
    bottoms = np.array([s.bottom_ambient for s in shades])
    assert bottoms.min() < HOLE_SHADING.bottom_ambient + 0.05 < bottoms.max()
    assert max(s.bounce for s in shades) > 0.5
    assert all(0.0 <= s.bounce < 1.0 for s in shades)


def test_varied_holes_keep_everything_else_of_the_scene() -> None:
    dark = sample_scene(11, SceneOptions(n_pieces=(16, 16), off_board_prob=0.0))
    varied = sample_scene(11, VARIED)
    assert dark.piece_set.hole_shading is None
    assert varied.piece_set.hole_shading is not None
    assert varied.placements == dark.placements
    assert np.array_equal(varied.camera.camera.pose.R, dark.camera.camera.pose.R)
    assert varied.texture_seed == dark.texture_seed


def test_varied_holes_are_labelled_and_change_only_the_bores() -> None:
    img_dark, _ = render_still(11, options=SceneOptions(n_pieces=(16, 16), off_board_prob=0.0))
    img_varied, label = render_still(11, options=VARIED)
    assert set(label["pieces_set"]["hole_shading"]) >= {"bounce", "bottom_ambient"}
    changed = np.abs(img_varied.astype(int) - img_dark.astype(int)).max(axis=2) > 12
    # Some pixels change (8 of the 16 pieces are hollow), but only a small share of the image.
    assert 0 < changed.mean() < 0.05


def test_unknown_hole_light_is_rejected() -> None:
    with pytest.raises(ValueError, match="hole_light"):
        SceneOptions(hole_light="neon")
