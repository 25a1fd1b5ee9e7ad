"""Accuracy ratchet: committed expected scores that the reader must not fall below.

Two fixed sets: the bundled ``sample_images/`` (renders with labels, read with the label's own
camera so the ratchet measures the reader alone), and painted scenes generated here from fixed
seeds (always available). Scores may only improve: when they do, refresh the file with
``QV_UPDATE_RATCHET=1 pytest tests/read/test_accuracy_ratchet.py`` and commit it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers import check_ratchet
from tests.read.synth import make_view, paint
from vision.evaluation.labels import iter_labelled_images
from vision.evaluation.runner import evaluate_labels
from vision.read import read_cells
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ALL_PIECES, ATTRIBUTES

EXPECTED = Path(__file__).with_name("expected_scores.json")
SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _summary(overall: dict[str, object]) -> dict[str, object]:
    attr = overall["attribute_errors"]
    assert isinstance(attr, dict)
    return {
        "occupancy_errors": overall["occupancy_errors"],
        "pieces_wrong": overall["pieces_any_attribute_wrong"],
        "boards_fully_right": overall["boards_fully_right"],
        "attribute_errors": {a: attr[a]["wrong"] for a in ATTRIBUTES},
    }


def _painted_scores() -> dict[str, object]:
    occ = wrong = right = 0
    per = dict.fromkeys(ATTRIBUTES, 0)
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        view = make_view(elevation_deg=float(rng.uniform(40, 80)),
                         azimuth_deg=float(rng.uniform(-180, 180)))
        n = int(rng.integers(3, 9))
        cells = rng.choice(16, size=n, replace=False)
        pieces = rng.choice(16, size=n, replace=False)
        scene = {ALL_CELLS[int(c)]: ALL_PIECES[int(p)] for c, p in zip(cells, pieces, strict=True)}
        obs = read_cells(paint(view, scene, seed=seed), view)
        board_ok = True
        for reading in obs.cells:
            truth = scene.get(reading.cell)
            if (truth is None) != (reading.piece is None):
                occ += 1
                board_ok = False
                continue
            if truth is None:
                continue
            bad = [a for a in ATTRIBUTES if reading.attribute(a) != truth.value(a)]
            for a in bad:
                per[a] += 1
            if bad:
                wrong += 1
                board_ok = False
        right += board_ok
    return {"occupancy_errors": occ, "pieces_wrong": wrong, "boards_fully_right": right,
            "attribute_errors": per}


def _check(name: str, got: dict[str, Any]) -> None:
    check_ratchet(EXPECTED, name, got)


def test_painted_scenes_do_not_get_worse() -> None:
    _check("painted_scenes", _painted_scores())


@pytest.mark.skipif(not any(SAMPLES.glob("*.json")), reason="sample_images/ has no labels")
def test_sample_images_do_not_get_worse() -> None:
    labels = [lb for lb in iter_labelled_images(SAMPLES) if lb.board_view is not None]
    run = evaluate_labels(labels, oracle_board=True)
    overall = run.report.as_dict()["overall"]
    assert isinstance(overall, dict)
    _check("sample_images", _summary(overall))
