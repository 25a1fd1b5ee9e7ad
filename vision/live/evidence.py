"""What the readings of one cell say about its piece, over several frames.

A reading gives, per attribute, the probability of its second value (dark, square, tall,
hollow). Successive frames of a still scene repeat the same view, so their errors are not
independent: :class:`CellEvidence` scores pieces by the *mean* log-odds of the latest
readings, never their sum. :func:`piece_posterior` turns that score into probabilities over
the pieces still possible for the cell (each piece exists once), and :func:`line_confidence`
says how sure the readings are that a line's four pieces really share the value that makes
it a Quarto: the one number an announcement must clear.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from vision.geometry.board_view import BoardView
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ALL_PIECES, ATTRIBUTES, VALUES, Piece


class CellEvidence:
    """Attribute log-odds of one cell over the latest ``window`` readings of each attribute.

    Scored by their *mean*: successive frames of a still scene repeat the same view, so their
    errors are not independent and summing them would be overconfident; only the latest
    ``window`` readings count, so a re-check sees the present, not an average with the past.
    """

    def __init__(self, window: int = 6) -> None:
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window!r}")
        self.window = window
        self.log_odds: dict[str, deque[float]] = {a: deque(maxlen=window) for a in ATTRIBUTES}
        self.frames = 0

    def add(self, reading: CellReading, p_clip: float) -> None:
        """Add one frame's reading; odds are clipped to ``[p_clip, 1 - p_clip]``."""
        self.frames += 1
        for name in ATTRIBUTES:
            p = reading.attribute_probability.get(name)
            if p is None or math.isnan(p):
                continue
            self.log_odds[name].append(log_odds(float(p), p_clip))

    def copy(self, window: int | None = None) -> CellEvidence:
        """A copy keeping the latest ``window`` readings of each attribute (default: the
        same window)."""
        out = CellEvidence(self.window if window is None else window)
        for name in ATTRIBUTES:
            out.log_odds[name].extend(self.log_odds[name])
        out.frames = self.frames
        return out

    def mean(self, name: str) -> float:
        """Mean log-odds of the attribute's second value (0 when never read)."""
        values = self.log_odds[name]
        return sum(values) / len(values) if values else 0.0

    def read_means(self) -> dict[str, float]:
        """Mean log-odds of each attribute read at least once (unread ones are absent)."""
        return {name: self.mean(name) for name in ATTRIBUTES if self.log_odds[name]}

    def score(self, piece: Piece) -> float:
        """Log-likelihood of ``piece`` up to a constant shared by all pieces."""
        total = 0.0
        for i, name in enumerate(ATTRIBUTES):
            lo = self.mean(name)  # log p(second value) - log p(first value)
            total += lo / 2.0 if piece.code & (1 << i) else -lo / 2.0
        return total


class SummedEvidence:
    """Separate views of one piece (say the settle that recorded it and a later one): their
    log-likelihoods add, as for independent readings. Scores like :class:`CellEvidence`."""

    def __init__(self, *parts: CellEvidence) -> None:
        self.parts = parts

    def score(self, piece: Piece) -> float:
        """Log-likelihood of ``piece`` up to a constant shared by all pieces."""
        return sum(part.score(piece) for part in self.parts)


def log_odds(p: float, clip: float) -> float:
    """log(p / (1 - p)) with ``p`` clipped to ``[clip, 1 - clip]``."""
    p = min(max(p, clip), 1.0 - clip)
    return math.log(p / (1.0 - p))


def piece_posterior(evidence: CellEvidence, candidates: Iterable[Piece]) -> dict[Piece, float]:
    """Probability of each candidate piece given the evidence (uniform prior over them).

    Parameters
    ----------
    evidence : the cell's readings.
    candidates : the pieces that can stand on the cell (not recorded on another cell).

    Returns
    -------
    dict
        Piece -> probability, summing to 1 (empty when there is no candidate).
    """
    pieces = list(candidates)
    if not pieces:
        return {}
    scores = [evidence.score(p) for p in pieces]
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return {p: w / total for p, w in zip(pieces, weights, strict=True)}


def joint_posteriors(
    evidences: Sequence[CellEvidence | SummedEvidence], iterations: int = 30
) -> list[dict[Piece, float]]:
    """Piece posteriors of several cells read together: no piece stands on two cells.

    The exact marginals of a distinct assignment are a matrix permanent; this takes the usual
    Sinkhorn approximation: the cells' likelihoods over the 16 pieces are scaled alternately
    so that each cell's row sums to 1 and no piece's column sums to more than 1 (a piece may
    also be off the board). It uses the readings of every cell, never the record, so a cell
    read surely elsewhere pulls its piece away from an ambiguous cell, while a cell whose own
    readings contradict what is left keeps part of its own belief.

    Parameters
    ----------
    evidences : one per occupied cell (at most 16).
    iterations : Sinkhorn sweeps (the scaling converges in a few tens).

    Returns
    -------
    list of dict
        Piece -> probability per cell, each summing to 1.
    """
    if len(evidences) > len(ALL_PIECES):
        raise ValueError(f"at most {len(ALL_PIECES)} cells, got {len(evidences)}")
    if not evidences:
        return []
    scores = np.array([[e.score(p) for p in ALL_PIECES] for e in evidences])
    k = np.exp(scores - scores.max(axis=1, keepdims=True))
    for _ in range(iterations):
        k /= k.sum(axis=1, keepdims=True)
        k /= np.maximum(k.sum(axis=0, keepdims=True), 1.0)
    k /= k.sum(axis=1, keepdims=True)
    return [dict(zip(ALL_PIECES, map(float, row), strict=True)) for row in k]


def value_probability(posterior: Mapping[Piece, float], attribute: str, value: str) -> float:
    """Probability that the piece has ``attribute == value`` under ``posterior``."""
    if value not in VALUES.get(attribute, ()):
        raise ValueError(f"{value!r} is not a value of attribute {attribute!r}")
    return sum(p for piece, p in posterior.items() if piece.value(attribute) == value)


def line_confidence(
    posteriors: Sequence[Mapping[Piece, float]], shared: Mapping[str, str]
) -> float:
    """How sure the readings are that the line's pieces share one of the ``shared`` values.

    Parameters
    ----------
    posteriors : one piece posterior per cell of the line.
    shared : the attribute values the recorded pieces share (what makes the line a Quarto).

    Returns
    -------
    float
        The largest, over the shared values, of the product of the cells' probabilities of
        having it (cells are read separately, so their errors are close to independent; two
        shared values are not, so the best single one is taken, not their union).
    """
    best = 0.0
    for attribute, value in shared.items():
        p = 1.0
        for posterior in posteriors:
            p *= value_probability(posterior, attribute, value)
        best = max(best, p)
    return best


def readings_from_pieces(
    pieces: Mapping[Cell, Piece | None],
    *,
    confidence: float = 0.95,
    unknown: Mapping[Cell, Sequence[str]] | None = None,
    visible: Mapping[Cell, float] | None = None,
    odds: Mapping[Cell, Mapping[str, float | None]] | None = None,
    centers_px: Sequence[Sequence[float]] | None = None,
    board_view: BoardView | None = None,
) -> Observation:
    """An Observation that reads ``pieces`` with the given per-attribute ``confidence``.

    For tests and replays of labelled data: ``unknown`` lists attributes read as ``None``;
    ``visible`` sets predicted visible fractions; ``odds`` overrides attribute odds per cell;
    ``centers_px`` gives the cells' image centres (row-major; default: a made-up grid);
    ``board_view`` the board they were read on (default: none).
    """
    cells = []
    for cell in ALL_CELLS:
        piece = pieces.get(cell)
        cell_odds: dict[str, float | None] = {}
        if piece is not None:
            for name in ATTRIBUTES:
                second = bool(piece.code & (1 << ATTRIBUTES.index(name)))
                cell_odds[name] = confidence if second else 1.0 - confidence
            for name in (unknown or {}).get(cell, ()):
                cell_odds[name] = None
            cell_odds.update((odds or {}).get(cell, {}))
        cells.append(
            CellReading(
                cell=cell,
                center_px=(
                    (100.0 + 50 * cell.col, 100.0 + 50 * cell.row)
                    if centers_px is None
                    else (float(centers_px[cell.index][0]), float(centers_px[cell.index][1]))
                ),
                occupied_probability=0.97 if piece is not None else 0.03,
                attribute_probability=cell_odds,
                visible_fraction=(visible or {}).get(cell, 1.0),
                piece=piece,
                confidence=confidence if piece is not None else 0.0,
            )
        )
    return Observation(tuple(cells), board_view)
