"""The learned reader end to end on seeded renders, with the packaged model."""

from __future__ import annotations

import numpy as np
import pytest

from vision.evaluation.labels import Label, load_label
from vision.geometry.board_view import BoardNotFound
from vision.learn import default_cnn, predict_cells, read_cells_learned
from vision.learn.dataset import OUTPUTS, REQUIRED_OUTPUTS
from vision.read.observation import Observation
from vision.rules.board import ALL_CELLS
from vision.rules.pieces import ATTRIBUTES

#: Fresh seeds (never trained on: training uses 100000-199999), steep enough to see every top.
SEEDS = (900011, 900012)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[np.ndarray, Label]]:
    from vision.render import SceneOptions, render_still, write_still

    out = []
    folder = tmp_path_factory.mktemp("learn_renders")
    for seed in SEEDS:
        opts = SceneOptions(elevation_deg=(50.0, 75.0), n_pieces=(6, 10), board_fill=(0.4, 0.6))
        image, raw = render_still(seed, options=opts)
        path = write_still(folder / f"{seed}.jpg", image, raw)
        out.append((image, load_label(path.with_suffix(".json"))))
    return out


def test_packaged_model_loads() -> None:
    m = default_cnn()
    # A model without the top_size output still loads (the board-level height evidence is
    # then left out).
    assert m.outputs in (OUTPUTS, REQUIRED_OUTPUTS)
    assert m.nets and m.nets[0].n_outputs == len(m.outputs)


def test_reads_renders_mostly_right(scenes: list[tuple[np.ndarray, Label]]) -> None:
    occ_right = cells = attr_right = attrs = 0
    for image, label in scenes:
        assert label.board_view is not None
        obs = read_cells_learned(image, label.board_view)
        assert [c.cell for c in obs.cells] == list(ALL_CELLS)
        for truth, got in zip(label.cells, obs.cells):
            cells += 1
            occ_right += (truth.piece is None) == (got.piece is None)
            if truth.piece is None or got.piece is None or truth.visible_fraction < 0.6:
                continue
            for a in ATTRIBUTES:
                attrs += 1
                attr_right += got.attribute(a) == truth.piece.value(a)
    assert occ_right >= 0.9 * cells
    assert attrs >= 8 and attr_right >= 0.8 * attrs


def test_readings_are_probabilities_and_deterministic(
    scenes: list[tuple[np.ndarray, Label]]
) -> None:
    image, label = scenes[0]
    assert label.board_view is not None
    a = predict_cells(image, label.board_view)
    b = predict_cells(image.copy(), label.board_view)
    assert a.shape == (16, len(default_cnn().outputs)) and np.array_equal(a, b)
    assert np.all((a >= 0) & (a <= 1))
    obs = read_cells_learned(image, label.board_view)
    for c in obs.cells:
        assert 0.0 <= c.occupied_probability <= 1.0
        for p in c.attribute_probability.values():
            assert p is None or 0.0 < p < 1.0
        if c.piece is not None:
            assert 0.0 < c.confidence <= 1.0
    pieces = [c.piece for c in obs.cells if c.piece is not None]
    assert len(pieces) == len(set(pieces))  # joint decoding: all different


def test_no_board_gives_an_empty_observation() -> None:
    obs = read_cells_learned(np.zeros((72, 128, 3), np.uint8), BoardNotFound("test"))  # type: ignore[arg-type]
    assert isinstance(obs, Observation) and not obs


def test_bad_input_raises(scenes: list[tuple[np.ndarray, Label]]) -> None:
    image, label = scenes[0]
    assert label.board_view is not None
    with pytest.raises(ValueError, match="frame_bgr"):
        read_cells_learned(image[..., 0], label.board_view)
    with pytest.raises(ValueError, match="frame_bgr"):
        read_cells_learned(image.astype(np.float32), label.board_view)
    with pytest.raises(ValueError, match="view"):
        read_cells_learned(image, "board")  # type: ignore[arg-type]


def test_patches_of_some_cells_are_those_among_all(
    scenes: list[tuple[np.ndarray, Label]]
) -> None:
    from vision.learn.patches import cell_patches

    image, label = scenes[0]
    assert label.board_view is not None
    every = cell_patches(image, label.board_view)
    rows = [9, 0, 15, 4]
    some = cell_patches(image, label.board_view, cells=rows)
    assert np.array_equal(some.images, every.images[rows])
    assert np.array_equal(some.scalars, every.scalars[rows])
    assert np.allclose(some.centers_px, every.centers_px[rows])


COLUMNS = ("occupied", "color", "shape", "height", "top", "visible", "top_visible")
COL = {name: i for i, name in enumerate(COLUMNS)}


def _fake_plane_model(readings: dict[float, tuple[float, float]]):
    """A stand-in network whose (shape, top) reading depends on its plane scale: ``readings``
    maps a scale to them, any other scale reads (0.6, 0.45). Its patch images carry the scale
    (see :func:`_fake_planes`)."""
    from vision.learn.patches import PatchConfig

    class Fake:
        patches = PatchConfig()
        outputs = COLUMNS

        def predict_patches(self, images: np.ndarray, scalars: np.ndarray,
                            engine: str = "opencv") -> np.ndarray:
            scale = round(float(images[0, 0, 0, 0]), 3)
            shape, top = readings.get(scale, (0.6, 0.45))
            out = np.full((len(images), len(COLUMNS)), 0.5, np.float32)
            out[:, COL["shape"]] = shape
            out[:, COL["top"]] = top
            out[:, COL["height"]] = 0.1  # must not be taken from the search
            return out

    return Fake()


@pytest.fixture
def fake_planes(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Patches that carry their plane scale, and cells seen at an elevation the test sets
    (``fake_planes["deg"]``, 30 by default)."""
    import types

    import vision.learn.reader as reader_module
    from vision.learn.patches import CellPatches, PatchConfig

    base = PatchConfig()
    elevation = {"deg": 30.0}

    def fake_patches(frame, view, *, config, cells, pyramid=None):
        scale = config.plane_heights_m[2] / base.plane_heights_m[2]
        return CellPatches(np.full((len(cells), 4, 32, 32), scale, np.float32),
                           np.zeros((len(cells), 9), np.float32), np.zeros(len(cells)),
                           np.zeros((len(cells), 2)))

    def fake_frames(view):
        return types.SimpleNamespace(elevation_rad=np.full(16, np.radians(elevation["deg"])))

    monkeypatch.setattr(reader_module, "cell_patches", fake_patches)
    monkeypatch.setattr(reader_module, "cell_frames", fake_frames)
    return elevation


def _search(model, prob: np.ndarray, memory=None, **knobs: float) -> None:
    from vision.learn.config import LearnedReaderConfig
    from vision.learn.reader import _read_tops_on_best_planes

    cfg = LearnedReaderConfig(plane_scales=(0.75, 1.2), **knobs)
    frame = np.zeros((8, 8, 3), np.uint8)
    _read_tops_on_best_planes(frame, None, model, prob, COL, cfg, memory)  # type: ignore[arg-type]


def _mean_odds(a: float, b: float) -> float:
    z = 0.5 * (np.log(a / (1 - a)) + np.log(b / (1 - b)))
    return float(1.0 / (1.0 + np.exp(-z)))


def test_plane_search_takes_shape_and_top_from_the_surest_planes(
    fake_planes: dict[str, float]
) -> None:
    model = _fake_plane_model({0.75: (0.97, 0.02)})

    def first_reading() -> np.ndarray:
        prob = np.full((16, len(COLUMNS)), 0.5)
        prob[:, COL["occupied"]] = [0.9] * 6 + [0.1] * 10  # six pieces
        prob[:, COL["visible"]] = 0.9
        prob[:, COL["top_visible"]] = [0.9] * 5 + [0.05] * 11  # the sixth top is hidden
        prob[:, COL["shape"]] = 0.55
        prob[:, COL["top"]] = 0.5
        prob[:, COL["height"]] = 0.8
        return prob

    prob = first_reading()
    _search(model, prob)
    # the first reading's and the surest planes' log-odds, averaged
    assert np.allclose(prob[:6, COL["shape"]], _mean_odds(0.55, 0.97))
    assert np.allclose(prob[:5, COL["top"]], _mean_odds(0.5, 0.02))
    assert prob[5, COL["top"]] == 0.5  # a top out of view keeps its reading
    assert np.allclose(prob[6:, COL["shape"]], 0.55)  # empty cells untouched
    assert np.allclose(prob[:, COL["height"]], 0.8)  # heights stay with the model's planes

    # Seen from high up, other planes hardly move a top: no search.
    fake_planes["deg"] = 60.0
    prob = first_reading()
    _search(model, prob)
    assert np.array_equal(prob, first_reading())
    fake_planes["deg"] = 30.0

    # A gain under the margin is not taken (here the first reading is nearly as sure).
    prob = first_reading()
    prob[:6, COL["shape"]] = 0.96
    prob[:5, COL["top"]] = 0.03
    before = prob.copy()
    _search(model, prob, plane_search_margin=0.05)
    assert np.array_equal(prob, before)
    _search(model, prob, plane_search_margin=0.0)
    assert np.allclose(prob[:6, COL["shape"]], _mean_odds(0.96, 0.97))

    # When the model's own planes read surest, nothing changes.
    model = _fake_plane_model({1.0: (0.97, 0.02)})
    prob = first_reading()
    prob[:6, COL["shape"]] = 0.99
    before = prob.copy()
    _search(model, prob)
    assert np.array_equal(prob, before)


def test_plane_memory_chooses_from_every_reading(fake_planes: dict[str, float]) -> None:
    from vision.learn.reader import PlaneMemory

    memory = PlaneMemory()
    memory.add({1.0: -0.5, 0.75: -0.2}, 10)
    memory.add({1.0: -0.3, 0.75: -0.4}, 30)
    assert memory.means() == pytest.approx({1.0: -0.35, 0.75: -0.35})

    # Many readings so far were surest at 0.75; this frame alone favours 1.2.
    model = _fake_plane_model({0.75: (0.7, 0.5), 1.2: (0.9, 0.5)})
    prob = np.full((16, len(COLUMNS)), 0.5)
    prob[:4, COL["occupied"]] = 0.9
    prob[:, COL["visible"]] = prob[:, COL["top_visible"]] = 0.9
    prob[:4, COL["shape"]] = 0.6
    memory = PlaneMemory()
    memory.add({1.0: -0.6, 0.75: -0.1, 1.2: -0.6}, 200)
    _search(model, prob, memory)
    # averaged with 0.75's reading
    assert np.allclose(prob[:4, COL["shape"]], _mean_odds(0.6, 0.7))
    assert set(memory.means()) == {1.0, 0.75, 1.2}


def test_plane_scales_are_checked() -> None:
    from vision.learn.config import LearnedReaderConfig

    assert LearnedReaderConfig(plane_scales=()).plane_scales == ()
    with pytest.raises(ValueError, match="plane_scales"):
        LearnedReaderConfig(plane_scales=(0.0,))
