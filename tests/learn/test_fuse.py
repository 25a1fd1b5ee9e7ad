"""Fusing two observations: log-odds pooling, unknowns, joint decoding, bad weights."""

from __future__ import annotations

import numpy as np
import pytest

from vision.learn.fuse import fuse_observations
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES


def observation(occ: float, odds: dict[str, float | None]) -> Observation:
    return Observation(tuple(
        CellReading(cell=c, center_px=(float(c.col), float(c.row)), occupied_probability=(
            occ if c.row == 0 else 0.01), attribute_probability=dict(odds))
        for c in ALL_CELLS))


def test_agreeing_readers_reinforce_and_disagreeing_cancel() -> None:
    a = observation(0.8, {"color": 0.9, "shape": 0.9, "height": 0.2, "top": None})
    b = observation(0.8, {"color": 0.9, "shape": 0.1, "height": 0.2, "top": 0.7})
    fused = fuse_observations(a, b, weights=(1.0, 1.0))
    r = fused.cells[0]
    assert r.occupied_probability > 0.9
    assert r.attribute_probability["color"] == pytest.approx(81 / 82)
    assert r.attribute_probability["shape"] == pytest.approx(0.5)
    assert r.attribute_probability["top"] == pytest.approx(0.7)  # only b could see it
    assert len(fused.pieces) == 4 and len(set(fused.pieces.values())) == 4
    assert all(fused.cells[i].piece is None for i in range(4, 16))


def test_unknown_to_both_stays_unknown() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9) | {"top": None})
    fused = fuse_observations(a, a)
    assert fused.cells[0].attribute_probability["top"] is None


def test_empty_side_returns_the_other() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9))
    assert fuse_observations(Observation.empty(), a) is a
    assert fuse_observations(a, Observation.empty()) is a


def test_bad_weights_raise() -> None:
    a = observation(0.9, dict.fromkeys(ATTRIBUTES, 0.9))
    with pytest.raises(ValueError, match="weights"):
        fuse_observations(a, a, weights=(-1.0, 1.0))
    with pytest.raises(ValueError, match="weights"):
        fuse_observations(a, a, weights=(0.0, 0.0))


def test_fused_reader_runs_both_readers() -> None:
    import numpy as np

    from tests.learn.test_sampling import make_view
    from vision.learn import read_cells_fused

    view = make_view()
    image = np.full((360, 640, 3), 90, np.uint8)
    obs = read_cells_fused(image, view)
    assert len(obs) == 16 and obs.board_view is view


def test_fused_reader_without_its_extra_steps_is_the_plain_fusion() -> None:
    """``read_cells_fused`` with the board colours, the brightening, the odds calibration and
    the top-outline evidence switched off gives exactly what fusing the two readers'
    observations gives."""
    from pathlib import Path

    import cv2
    import numpy as np

    from vision.evaluation.labels import load_label
    from vision.learn import read_cells_fused, read_cells_learned
    from vision.learn.config import BoardColourConfig, LearnedReaderConfig, TopRimConfig
    from vision.learn.fuse import HAND_LEARNED_WEIGHTS
    from vision.learn.odds_calibration import OddsCalibration
    from vision.read import read_cells
    from vision.read.exposure import ExposureConfig

    root = Path(__file__).resolve().parents[2] / "sample_images"
    label = load_label(root / "gigamic_black_full_000004.json")
    image, view = cv2.imread(str(label.image_path)), label.board_view
    assert view
    off = read_cells_fused(image, view, colours=BoardColourConfig(weight=0.0),
                           exposure=ExposureConfig(max_gain=1.0),
                           calibration=OddsCalibration.identity(),
                           config=LearnedReaderConfig(decode_by_occupancy=False,
                                                      top_rim=TopRimConfig(weight=0.0)))
    plain = fuse_observations(read_cells(image, view), read_cells_learned(image, view),
                              weights=HAND_LEARNED_WEIGHTS)
    for a, b in zip(off.cells, plain.cells, strict=True):
        assert a.piece == b.piece
        assert a.occupied_probability == pytest.approx(b.occupied_probability)
        for attr in ATTRIBUTES:
            pa, pb = a.attribute_probability[attr], b.attribute_probability[attr]
            assert (pa is None) == (pb is None)
            if pa is not None:
                assert np.isclose(pa, pb)


def test_fused_reader_checks_the_frame_and_a_missing_board_reads_nothing() -> None:
    import numpy as np

    from tests.learn.test_sampling import make_view
    from vision.geometry.board_view import BoardNotFound
    from vision.learn import read_cells_fused

    image = np.full((360, 640, 3), 90, np.uint8)
    assert len(read_cells_fused(image, BoardNotFound("no board"))) == 0
    with pytest.raises(ValueError, match="frame_bgr"):
        read_cells_fused(np.zeros((360, 640), np.uint8), BoardNotFound("no board"))
    with pytest.raises(ValueError, match="frame_bgr"):
        read_cells_fused(image[..., :2].copy(), make_view())


def test_a_top_the_network_sees_mostly_hidden_is_unknown_or_marked_guessed() -> None:
    """A top the network predicts under half in view is reported unknown by the fused
    reading (``analyze``), the hand-crafted reader's top not taken alone there, or keeps its
    odds marked ``guessed`` (``watch``). Sample: c3 is a light round short solid piece with
    0.5% of its top in view; the fusion called it hollow (0.87)."""
    from pathlib import Path

    import cv2

    from vision.evaluation.labels import load_label
    from vision.learn import read_cells_fused
    from vision.learn.config import LearnedReaderConfig
    from vision.rules.board import Cell

    root = Path(__file__).resolve().parents[2] / "sample_images"
    label = load_label(root / "gigamic_black_occluded_000017.json")
    image, view = cv2.imread(str(label.image_path)), label.board_view
    assert view
    c3 = ALL_CELLS.index(Cell.from_name("c3"))
    truth = next(c for c in label.cells if c.cell == ALL_CELLS[c3])
    assert truth.piece is not None and truth.top_visible_fraction < 0.05
    unknown = read_cells_fused(image, view)
    guessed = read_cells_fused(image, view, guess_hidden_tops=True)
    off = read_cells_fused(image, view, config=LearnedReaderConfig(fused_min_top_visible=0.0))
    assert unknown.cells[c3].attribute_probability["top"] is None
    assert unknown.cells[c3].attribute("top") == "solid"  # filled in by the other pieces
    assert off.cells[c3].attribute_probability["top"] == pytest.approx(0.873, abs=0.01)
    assert guessed.cells[c3].guessed == {"top"} and not off.cells[c3].guessed
    for a, b, c in zip(unknown.cells, guessed.cells, off.cells, strict=True):
        assert b.attribute_probability == c.attribute_probability  # odds as without the rule
        assert b.piece == c.piece
        for attr in ("color", "shape", "height"):
            assert a.attribute_probability[attr] == c.attribute_probability[attr]
        if b.guessed:
            assert a.attribute_probability["top"] is None


def test_fused_decoding_weighs_each_cell_by_its_occupancy(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """``LearnedReaderConfig.decode_by_occupancy`` (on by default): on, the joint decoding
    gets every decoded cell's fused P(occupied); off, none (every cell surely occupied)."""
    from pathlib import Path

    import cv2

    import vision.learn.fuse as fuse
    from vision.evaluation.labels import load_label
    from vision.learn import read_cells_fused
    from vision.learn.config import LearnedReaderConfig

    root = Path(__file__).resolve().parents[2] / "sample_images"
    label = load_label(root / "gigamic_black_full_000004.json")
    image, view = cv2.imread(str(label.image_path)), label.board_view
    assert view
    seen: list[object] = []
    real = fuse.decode_pieces

    def spy(odds, occupied=None):  # type: ignore[no-untyped-def]
        seen.append(occupied)
        return real(odds, occupied)

    monkeypatch.setattr(fuse, "decode_pieces", spy)
    on = read_cells_fused(image, view, config=LearnedReaderConfig(decode_by_occupancy=True))
    occ = [c.occupied_probability for c in on.cells if c.occupied_probability >= 0.5]
    assert seen[-1] == occ and len(occ) > 0
    read_cells_fused(image, view, config=LearnedReaderConfig(decode_by_occupancy=False))
    assert seen[-1] is None
    read_cells_fused(image, view)
    assert seen[-1] == occ


def test_top_separation_shrinks_towards_straight_above() -> None:
    """A short and a tall top on one cell lie apart in the image by the parallax of their
    heights: most of a pitch from 40 degrees, almost nothing near the camera's foot from
    straight above (where ``hand_height_min_separation_pitch`` mutes the hand-crafted
    reader's short/tall)."""
    from tests.read.synth import make_view
    from vision.learn.fuse import top_separation_pitch

    low = top_separation_pitch(make_view(elevation_deg=40.0), 0.037, 0.067)
    high = top_separation_pitch(make_view(elevation_deg=89.0), 0.037, 0.067)
    assert low.min() > 0.3
    assert high.min() < 0.05 < high.max() < 0.3
    # The same heights: no separation at all.
    assert np.allclose(top_separation_pitch(make_view(), 0.05, 0.05), 0.0)
    # Cells farther from the camera's foot show more parallax (straight above the centre,
    # the four corner cells are the farthest).
    assert high[[0, 3, 12, 15]].min() > high[[5, 6, 9, 10]].max()


def test_hand_heights_apart_leaves_only_close_tops_unread() -> None:
    from types import SimpleNamespace

    from tests.read.synth import make_view
    from vision.learn.fuse import _hand_heights_apart, top_separation_pitch

    view = make_view(elevation_deg=89.0)
    apart = top_separation_pitch(view, 0.037, 0.067)
    cut = float(np.median(apart))
    hand = Observation(tuple(
        CellReading(c, (0.0, 0.0), 0.9, {"color": 0.2, "shape": 0.3, "height": 0.99,
                                         "top": 0.4}, 1.0)
        for c in ALL_CELLS), view)
    feats = SimpleNamespace(heights=SimpleNamespace(short_m=0.037, tall_m=0.067))
    out = _hand_heights_apart(hand, feats, view, cut)  # type: ignore[arg-type]
    for i, r in enumerate(out.cells):
        assert r.attribute_probability["height"] == (None if apart[i] < cut else 0.99)
        assert r.attribute_probability["color"] == 0.2
