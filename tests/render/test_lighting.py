"""``SceneOptions(lighting="dim")``: a dim room the camera underexposes, the rest unchanged."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.render import render_still
from vision.render.scene import SceneOptions, sample_scene

SMALL = SceneOptions(size_wh=(320, 180), n_pieces=(8, 8))


def test_dim_lighting_changes_only_exposure_and_gain() -> None:
    usual = sample_scene(21, SMALL)
    dim = sample_scene(21, dataclasses.replace(SMALL, lighting="dim"))
    assert dim.placements == usual.placements
    assert dim.lights == usual.lights
    assert np.array_equal(dim.camera.camera.pose.R, usual.camera.camera.pose.R)
    assert dim.texture_seed == usual.texture_seed
    assert -1.8 <= dim.effects.exposure_bias_ev <= -0.6
    assert dim.effects.iso_gain >= 4.0
    same = dataclasses.replace(dim.effects, exposure_bias_ev=usual.effects.exposure_bias_ev,
                               iso_gain=usual.effects.iso_gain)
    assert same == usual.effects


def test_dim_renders_are_darker_and_labelled() -> None:
    img_usual, _ = render_still(21, options=SMALL)
    img_dim, label = render_still(21, options=dataclasses.replace(SMALL, lighting="dim"))
    assert img_dim.mean() < 0.85 * img_usual.mean()
    assert label["postprocess"]["exposure_bias_ev"] <= -0.6


def test_unknown_lighting_is_rejected() -> None:
    with pytest.raises(ValueError, match="lighting"):
        SceneOptions(lighting="disco")
