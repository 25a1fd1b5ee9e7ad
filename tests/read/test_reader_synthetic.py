"""The reader on painted scenes with exact ground truth (no renderer needed)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.read.synth import make_view, paint
from vision.read import Observation, ReaderConfig, read_cells
from vision.read.reader import measure_cells
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ATTRIBUTES, Piece

SCENE = {
    Cell(0, 0): Piece.from_symbol("LRTH"),
    Cell(1, 2): Piece.from_symbol("DSSS"),
    Cell(2, 1): Piece.from_symbol("LSSH"),
    Cell(3, 3): Piece.from_symbol("DRTS"),
    Cell(3, 0): Piece.from_symbol("LRSS"),
    Cell(0, 3): Piece.from_symbol("DSTH"),
}


@pytest.fixture(scope="module")
def reading() -> tuple[Observation, np.ndarray]:
    view = make_view()
    image = paint(view, SCENE, seed=1)
    return read_cells(image, view), image


def test_occupancy_is_exact(reading: tuple[Observation, np.ndarray]) -> None:
    obs, _ = reading
    assert len(obs) == 16
    got = {c.cell for c in obs.cells if c.occupied}
    assert got == set(SCENE)


def test_every_attribute_read(reading: tuple[Observation, np.ndarray]) -> None:
    obs, _ = reading
    wrong = []
    for cell, piece in SCENE.items():
        r = obs.reading(cell)
        for attr in ATTRIBUTES:
            if r.attribute(attr) != piece.value(attr):
                wrong.append((cell.name, attr, piece.value(attr), r.attribute(attr)))
    assert not wrong


def test_decoded_pieces_are_distinct(reading: tuple[Observation, np.ndarray]) -> None:
    obs, _ = reading
    pieces = [c.piece for c in obs.cells if c.piece is not None]
    assert len(set(pieces)) == len(pieces)


def test_centres_are_the_board_view_projection(reading: tuple[Observation, np.ndarray]) -> None:
    obs, _ = reading
    assert obs.board_view is not None
    expected = obs.board_view.cell_centers_px()
    got = np.array([c.center_px for c in obs.cells])
    assert np.allclose(got, expected)


def test_empty_board_reads_empty() -> None:
    view = make_view(elevation_deg=70.0, azimuth_deg=-35.0)
    obs = read_cells(paint(view, {}, seed=2), view)
    assert not any(c.occupied for c in obs.cells)
    assert obs.pieces == {}


def test_colour_is_relative_to_the_scene() -> None:
    """Darkening the whole image (a dimmer room) must not flip light and dark."""
    view = make_view(elevation_deg=60.0)
    image = paint(view, SCENE, seed=3)
    dim = (image.astype(np.float64) * 0.45).astype(np.uint8)
    obs = read_cells(dim, view)
    for cell, piece in SCENE.items():
        assert obs.reading(cell).attribute("color") == piece.value("color"), cell.name


def test_bad_frames_raise_value_error() -> None:
    view = make_view()
    with pytest.raises(ValueError, match="frame_bgr"):
        read_cells(np.zeros((720, 1280), np.uint8), view)
    with pytest.raises(ValueError, match="uint8"):
        read_cells(np.zeros((720, 1280, 3), np.float32), view)


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="typical_tall_f"):
        ReaderConfig(typical_tall_f=10.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        ReaderConfig(blur_f=-1.0)
    with pytest.raises(ValueError, match="occupied_probability"):
        ReaderConfig(occupied_probability=1.5)
    with pytest.raises(ValueError, match="footprint_scales"):
        ReaderConfig(footprint_scales=())


@pytest.mark.parametrize("kind", ["tiny", "black", "white", "noise"])
def test_degenerate_frames_read_as_empty(kind: str) -> None:
    view = make_view()
    rng = np.random.default_rng(9)
    frame = {
        "tiny": np.zeros((10, 10, 3), np.uint8),
        "black": np.zeros((720, 1280, 3), np.uint8),
        "white": np.full((720, 1280, 3), 255, np.uint8),
        "noise": rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8),
    }[kind]
    obs = read_cells(frame, view)
    assert len(obs) == 16
    assert not any(c.occupied for c in obs.cells)


def test_from_above_the_near_side_is_sampled_under_the_tops_outline() -> None:
    """Seen from 82-86 degrees, a set wider than the size search allows (1.2 x nominal) sits
    at the search's smallest footprint, so the near-side samples at 0.42 F fall on the top,
    which shows the lamp (a glossy dark piece's top painted white). Placed under the top's
    measured outline (``side_top_footprint_min_elevation_deg``), they see the dark side."""
    scene = {Cell(0, 0): Piece.from_symbol("LRTS"), Cell(1, 2): Piece.from_symbol("DSTS"),
             Cell(2, 1): Piece.from_symbol("LSTS"), Cell(3, 3): Piece.from_symbol("DRTS"),
             Cell(3, 0): Piece.from_symbol("LRSS"), Cell(1, 1): Piece.from_symbol("DRSS")}
    dark_tall = ALL_CELLS.index(Cell(3, 3))
    for elevation in (82.0, 86.0):
        view = make_view(elevation_deg=elevation)
        image = paint(view, scene, seed=1, footprint_scale=1.2, top_bgr=(235, 235, 235))
        off = measure_cells(image, view, ReaderConfig())
        on = measure_cells(image, view,
                           ReaderConfig(side_top_footprint_min_elevation_deg=75.0))
        assert off.side_offsets_m is None and on.side_offsets_m is not None
        top = float(off.top.top_lab[dark_tall, 0])
        assert top > 80.0
        assert off.side_lab[dark_tall, 0] > 0.8 * top
        assert on.side_lab[dark_tall, 0] < 0.5 * top
