"""The far-side check: a cell read occupied whose board strip just behind it (hidden by any
piece standing there) shows the empty cells' marking is made less likely occupied; a real
piece's strip is its own body and is left alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.evaluation.labels import load_label
from vision.learn.config import FarSideConfig, LearnedReaderConfig
from vision.learn.far_side import far_side_shift, inside_polygon, sample_lab
from vision.read.config import ReaderConfig
from vision.read.geometry import cell_frames
from vision.rules.board import ALL_CELLS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
ON = FarSideConfig(enabled=True)


def _scene(name: str):  # type: ignore[no-untyped-def]
    """A bundled low view (37 degrees, 4 pieces) with the label's occupancy and heights."""
    label = load_label(SAMPLES / name)
    view = label.board_view
    assert view is not None
    frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
    sizes = label.raw["pieces_set"]
    by_cell = {c.cell: c for c in label.cells}
    truth = np.array([by_cell[c].piece is not None for c in ALL_CELLS])
    tall = np.array([by_cell[c].piece is not None
                     and by_cell[c].piece.value("height") == "tall" for c in ALL_CELLS])
    heights = np.where(tall, sizes["tall_height_m"], sizes["short_height_m"])
    frames = cell_frames(view, ReaderConfig().footprint_frac_of_ring)
    return view, frames, frame, truth, heights, float(sizes["short_height_m"])


def test_an_empty_cell_read_occupied_is_lowered_and_real_pieces_are_not() -> None:
    view, frames, frame, truth, heights, short_m = _scene("gigamic_black_low_000001.json")
    lowered = []
    for i in range(16):
        occ = np.where(truth, 0.99, 0.01)
        occ[i] = 0.8 if not truth[i] else 0.6  # a phantom, or a real piece read weakly
        shift = far_side_shift(view, frames, frame, occ, heights, short_m, ON)
        assert np.count_nonzero(shift) <= 1 and shift[i] in (0.0, -ON.weight)
        if shift[i] != 0.0:
            lowered.append(ALL_CELLS[i].name)
            assert not truth[i], f"{ALL_CELLS[i].name}: a real piece lowered"
    # Most of the 12 empty cells show their far strip from 37 degrees.
    assert len(lowered) >= 8


def test_nothing_without_empty_cells_to_compare_or_when_nothing_is_read() -> None:
    view, frames, frame, _, heights, short_m = _scene("gigamic_black_low_000001.json")
    assert not far_side_shift(view, frames, frame, np.full(16, 0.8), heights, short_m,
                              ON).any()
    assert not far_side_shift(view, frames, frame, np.full(16, 0.01), heights, short_m,
                              ON).any()


def test_sample_lab_and_inside_polygon() -> None:
    frame = np.zeros((20, 30, 3), np.uint8)
    frame[:, 15:] = 255
    lab, inside = sample_lab(frame, np.array([[5.0, 5.0], [25.0, 5.0], [40.0, 5.0]]))
    assert lab[0, 0] == pytest.approx(0.0, abs=1e-3) and lab[1, 0] == pytest.approx(100.0, abs=0.1)
    assert inside.tolist() == [True, True, False]
    square = np.array([[10, 10], [20, 10], [20, 20], [10, 20]], np.int32)
    got = inside_polygon(np.array([[15.0, 15.0], [5.0, 15.0], [20.0, 20.0]]), square)
    assert got.tolist() == [True, False, True]


def test_config_is_validated_and_off_by_default() -> None:
    assert not LearnedReaderConfig().far_side.enabled
    with pytest.raises(ValueError):
        FarSideConfig(min_points=1)
    with pytest.raises(ValueError):
        FarSideConfig(radii_rings=())
    with pytest.raises(ValueError):
        FarSideConfig(weight=-1.0)


def test_read_cells_fused_applies_the_shift_only_when_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.learn.far_side as far_side
    from vision.learn.fuse import read_cells_fused

    label = load_label(SAMPLES / "gigamic_black_low_000001.json")
    assert label.board_view is not None
    frame = cv2.imread(str(label.image_path), cv2.IMREAD_COLOR)
    off = read_cells_fused(frame, label.board_view)
    occupied = [i for i, r in enumerate(off.cells) if r.piece is not None]
    target = occupied[0]
    seen = {}

    def fake(view, frames, frame_bgr, occ, heights, short_m, config):  # type: ignore[no-untyped-def]
        seen["short_m"] = short_m
        out = np.zeros(16)
        out[target] = -50.0
        return out

    monkeypatch.setattr(far_side, "far_side_shift", fake)
    same = read_cells_fused(frame, label.board_view)
    assert [r.piece for r in same.cells] == [r.piece for r in off.cells] and not seen
    on = read_cells_fused(frame, label.board_view,
                          config=LearnedReaderConfig(far_side=FarSideConfig(enabled=True)))
    assert on.cells[target].piece is None
    assert seen["short_m"] >= 0.9 * label.board_view.spec.cell_diameter_m
    assert [r.piece for k, r in enumerate(on.cells) if k != target] == \
        [r.piece for k, r in enumerate(off.cells) if k != target]
