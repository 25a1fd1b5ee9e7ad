"""Accuracy ratchet of the learned reader: committed expected scores it must not fall below.

Two sets, both read with the label's own camera (the reader alone): the bundled
``sample_images/`` (renders of seeds 1-20, never trained on) and, when present,
``../shared/photoreal_dev`` (evaluation only: nothing is trained or tuned on it). Scores may only
improve: after retraining, refresh with ``QV_UPDATE_RATCHET=1 pytest tests/learn`` and commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import pytest

from tests.helpers import check_ratchet
from vision.evaluation.labels import iter_labelled_images
from vision.evaluation.runner import EvaluationRun, predicted_cells
from vision.evaluation.score import score_image
from vision.learn import read_cells_learned
from vision.rules.pieces import ATTRIBUTES

EXPECTED = Path(__file__).with_name("expected_scores.json")
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
PHOTOREAL = ROOT.parent / "shared" / "photoreal_dev"


def _scores(folder: Path) -> dict[str, Any]:
    run = EvaluationRun()
    for label in iter_labelled_images(folder):
        frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
        if frame is None or label.board_view is None:
            continue
        obs = read_cells_learned(frame, label.board_view)
        run.report.add(label, score_image(label, predicted_cells(obs)))
    t = run.report.overall.as_dict()
    attr = t["attribute_errors"]
    assert isinstance(attr, dict)
    return {
        "occupancy_errors": t["occupancy_errors"],
        "pieces_wrong": t["pieces_any_attribute_wrong"],
        "boards_fully_right": t["boards_fully_right"],
        "attribute_errors": {a: attr[a]["wrong"] for a in ATTRIBUTES},
    }


def _check(name: str, got: dict[str, Any]) -> None:
    check_ratchet(EXPECTED, name, got)


@pytest.mark.skipif(not any(SAMPLES.glob("*.json")), reason="sample_images/ has no labels")
def test_sample_images_do_not_get_worse() -> None:
    _check("sample_images", _scores(SAMPLES))


@pytest.mark.slow
@pytest.mark.skipif(not PHOTOREAL.is_dir(), reason="../shared/photoreal_dev is absent")
def test_photoreal_dev_does_not_get_worse() -> None:
    _check("photoreal_dev", _scores(PHOTOREAL))
