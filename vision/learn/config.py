"""Every constant of the learned cell reader, with its physical meaning, in typed objects.

Sampling sizes are in board metres (the ``BoardView`` is metric), so the classifier sees the same
rows and columns for a tall piece whatever the camera distance, angle or resolution. Changing a
``SamplingConfig`` field changes the feature layout: the model must then be retrained (the model
file stores the configuration it was trained with and refuses a mismatch).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class SamplingConfig:
    """Where the image is sampled around each cell (see ``vision.learn.sampling``)."""

    #: Half width of the camera-facing "billboard" through the cell centre, metres. Pieces are
    #: 27-34 mm across (renderer and photoreal sets); 32 mm shows both edges plus some board.
    billboard_half_width_m: float = 0.032
    #: Columns of the billboard (lateral offsets across the piece, 4.3 mm apart: enough to see
    #: the vertical edge between two faces of a square piece).
    billboard_cols: int = 16
    #: Top of the billboard above the board, metres: tall pieces are 63-71 mm; 105 mm leaves
    #: room for what stands above them (background) so "tall" is an edge, not a fill.
    billboard_top_m: float = 0.105
    #: Rows of the billboard (heights, 7 mm apart with the default top).
    billboard_rows: int = 16
    #: Heights of the horizontal polar grids, metres: the board surface (cell marking, piece
    #: base), and three candidates around a short top (32-41 mm in the sets we know) and a tall
    #: top (62-71 mm): a wrong height shifts the grid by (error / tan(elevation)), so candidates
    #: 5 mm apart keep one within 2.5 mm of any top.
    top_heights_m: tuple[float, ...] = (0.0, 0.032, 0.037, 0.042, 0.062, 0.067, 0.072)
    #: Radii of the polar rings around the cell's vertical axis, metres: from the hole's centre
    #: (holes are 16-22 mm across) out past a square top's corners (up to 24 mm).
    polar_radii_m: tuple[float, ...] = (
        0.002, 0.005, 0.008, 0.011, 0.013, 0.015, 0.017, 0.019, 0.021, 0.024
    )
    #: Points per ring. Rings are summarised by rotation-invariant statistics (mean, spread and
    #: the magnitudes of the 1st, 2nd and 4th angular harmonics: a square top shows the 4th),
    #: so a square piece reads the same at any yaw.
    polar_angles: int = 16
    #: A pyramid level is chosen per cell so that neighbouring samples are at least this many
    #: pixels apart at that level (the pyramid's smoothing then acts as the anti-alias filter).
    min_step_px: float = 1.5
    #: Deepest pyramid level used (level k halves the resolution k times).
    max_level: int = 3
    #: Lab scale: colour differences are divided by this many Lab units (L is 0..100).
    lab_scale: float = 40.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                if not value or any(v < 0 for v in value):
                    raise ValueError(f"{f.name} must be non-empty and non-negative, got {value!r}")
            elif value < 0 or (f.name != "max_level" and value == 0):
                raise ValueError(f"{f.name} must be positive, got {value!r}")
        if self.billboard_cols < 2 or self.billboard_rows < 2:
            raise ValueError("the billboard needs at least 2 points per side")
        if self.polar_angles < 8:
            raise ValueError(
                f"polar_angles must be at least 8 (4th harmonic), got {self.polar_angles}"
            )

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-able form (stored beside the model weights)."""
        d = asdict(self)
        d["top_heights_m"] = list(self.top_heights_m)
        d["polar_radii_m"] = list(self.polar_radii_m)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> SamplingConfig:
        kwargs = dict(d)
        for key in ("top_heights_m", "polar_radii_m"):
            kwargs[key] = tuple(kwargs[key])  # type: ignore[arg-type]
        return cls(**kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class LearnedReaderConfig:
    """Decision knobs of :func:`vision.learn.read_cells_learned`. Validated on construction."""

    #: A cell is occupied when the calibrated P(occupied) reaches this (equal costs for a
    #: missed and a false piece).
    occupied_threshold: float = 0.5
    #: The top (solid/hollow) is reported unknown when the predicted share of the top face in
    #: view is below this. Kept low: an unknown top that the scorer judges counts as wrong,
    #: while a guess on a hidden top costs nothing.
    min_top_visible: float = 0.2
    #: The other attributes are reported unknown when the predicted share of the piece in view
    #: is below this (the piece is almost completely behind a nearer one).
    min_visible: float = 0.1
    #: Odds are kept inside [p_floor, 1 - p_floor] before joint decoding: a model is never
    #: surer than its validation error rate allows.
    p_floor: float = 0.005

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{f.name} must be within [0, 1], got {value!r}")
        if self.p_floor >= 0.5:
            raise ValueError(f"p_floor must be below 0.5, got {self.p_floor!r}")
