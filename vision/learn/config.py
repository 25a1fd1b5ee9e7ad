"""Decision knobs of the learned cell reader, with their meaning, in a typed object. (Where the
image is sampled is ``vision.learn.patches.PatchConfig``, stored with the model it trained.)"""

from __future__ import annotations

from dataclasses import dataclass, fields


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
