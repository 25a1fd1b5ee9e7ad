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
    #: Columns of the billboard (lateral offsets across the piece).
    billboard_cols: int = 10
    #: Top of the billboard above the board, metres: tall pieces are 63-71 mm; 105 mm leaves
    #: room for what stands above them (background) so "tall" is an edge, not a fill.
    billboard_top_m: float = 0.105
    #: Rows of the billboard (heights, 7 mm apart with the default top).
    billboard_rows: int = 16
    #: Heights of the horizontal grids, metres: the board surface (cell marking, piece base), a
    #: short piece's top (32-41 mm) and a tall piece's top (63-71 mm).
    plane_heights_m: tuple[float, ...] = (0.0, 0.037, 0.068)
    #: Half size of each horizontal grid, metres (a piece's top is 14-17 mm in half width).
    plane_half_size_m: float = 0.02
    #: Points per side of each horizontal grid (5 mm apart by default: a hole of 16-22 mm
    #: spans 3-4 samples).
    plane_points: int = 9
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
        if self.billboard_cols < 2 or self.billboard_rows < 2 or self.plane_points < 2:
            raise ValueError("grids need at least 2 points per side")

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-able form (stored beside the model weights)."""
        d = asdict(self)
        d["plane_heights_m"] = list(self.plane_heights_m)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> SamplingConfig:
        kwargs = dict(d)
        kwargs["plane_heights_m"] = tuple(kwargs["plane_heights_m"])  # type: ignore[arg-type]
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
