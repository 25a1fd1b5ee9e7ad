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

import functools
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

from vision.geometry.board_view import BoardView
from vision.read.observation import CellReading, Observation
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.pieces import ALL_PIECES, ATTRIBUTES, VALUES, Piece, attribute_bit


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

    def add_log_odds(self, values: Mapping[str, float]) -> None:
        """Add one reading given as attribute log-odds (absent attributes: not read), such
        as another evidence's :meth:`read_means` (a whole settle counted as one reading)."""
        self.frames += 1
        for name in ATTRIBUTES:
            if name in values:
                self.log_odds[name].append(float(values[name]))

    def copy(self, window: int | None = None) -> CellEvidence:
        """A copy keeping the latest ``window`` readings of each attribute (default: the
        same window)."""
        out = CellEvidence(self.window if window is None else window)
        for name in ATTRIBUTES:
            out.log_odds[name].extend(self.log_odds[name])
        out.frames = self.frames
        return out

    @property
    def read_fully(self) -> bool:
        """Every attribute read at least once."""
        return all(self.log_odds[name] for name in ATTRIBUTES)

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
    log-likelihoods add, as for independent readings, each times its weight (default 1; a
    view that repeats another adds less). Scores like :class:`CellEvidence`."""

    def __init__(self, *parts: CellEvidence, weights: Sequence[float] | None = None) -> None:
        self.parts = parts
        self.weights = tuple(weights) if weights is not None else (1.0,) * len(parts)
        if len(self.weights) != len(parts):
            raise ValueError(f"{len(parts)} parts but {len(self.weights)} weights")

    def score(self, piece: Piece) -> float:
        """Log-likelihood of ``piece`` up to a constant shared by all pieces."""
        return sum(w * part.score(piece) for w, part in zip(self.weights, self.parts,
                                                            strict=True))


class Scored(Protocol):
    """Anything that scores pieces as :class:`CellEvidence` does."""

    def score(self, piece: Piece) -> float: ...


class FlatIn:
    """An evidence with the readings of some attributes set aside: its score of a piece
    is the same whatever the piece's value of those attributes (a flat likelihood in
    them), and as the evidence's in the others.

    The evidences here score a piece by a sum over its attributes of terms that change
    sign with the attribute's value (``±lo / 2``, weighted sums of them), so the mean of
    the scores of a piece and of the piece with an attribute flipped drops that
    attribute's term exactly and leaves the others'."""

    def __init__(self, evidence: Scored, attributes: Iterable[str]) -> None:
        self.evidence = evidence
        self.masks = sorted({attribute_bit(a) for a in attributes})

    def score(self, piece: Piece) -> float:
        """Log-likelihood of ``piece`` up to a constant, flat in the set-aside attributes."""
        codes = {piece.code}
        for mask in self.masks:
            codes |= {code ^ mask for code in codes}
        return sum(self.evidence.score(Piece(code)) for code in codes) / len(codes)


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


@functools.cache
def _piece_counts() -> np.ndarray:
    """How many pieces each subset (bit mask) of the 16 holds."""
    every = np.arange(1 << len(ALL_PIECES), dtype=np.int64)
    return ((every[:, None] >> np.arange(len(ALL_PIECES))) & 1).sum(axis=1)


@functools.cache
def _assignment_steps(layer: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to give one more piece to a set of ``layer`` pieces already placed.

    Returns ``(src, dst, piece)``: the bit mask of the pieces used before, after, and the
    index of the piece added, over all masks of ``layer`` bits and all pieces not in them.
    """
    n = len(ALL_PIECES)
    masks = np.flatnonzero(_piece_counts() == layer).astype(np.int64)
    pieces = np.arange(n)
    free = (masks[:, None] >> pieces[None, :]) & 1 == 0
    src = np.broadcast_to(masks[:, None], free.shape)[free]
    piece = np.broadcast_to(pieces[None, :], free.shape)[free]
    return src.astype(np.int32), (src | (1 << piece)).astype(np.int32), piece.astype(np.int32)


def joint_posteriors(
    evidences: Sequence[Scored],
) -> list[dict[Piece, float]]:
    """Piece posteriors of several cells read together: no piece stands on two cells.

    The exact marginals of the distinct assignments of pieces to the cells, each assignment
    weighted by the product of its cells' likelihoods (a piece not given to any cell is off
    the board). They are computed over the subsets of the 16 pieces, forward (the first *i*
    cells take the pieces of a subset) and backward (the other cells take pieces outside it):
    about half a million steps for a full board, a few milliseconds. It uses the readings of
    every cell, never the record, so a cell read surely elsewhere pulls its piece away from
    an ambiguous cell, and on a full board a piece nobody can see is what the others leave.

    (Sessions 10-16 approximated these marginals with 30 Sinkhorn sweeps. On a full board
    with one piece hidden the sweeps are far from converged: they left the hidden piece at
    0.2 where the exact marginal is 0.99, and a true line was held unannounced, 1016014.)

    Parameters
    ----------
    evidences : one per occupied cell (at most 16).

    Returns
    -------
    list of dict
        Piece -> probability per cell, each summing to 1.
    """
    n = len(evidences)
    if n > len(ALL_PIECES):
        raise ValueError(f"at most {len(ALL_PIECES)} cells, got {n}")
    if not evidences:
        return []
    scores = np.array([[e.score(p) for p in ALL_PIECES] for e in evidences])
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    size = 1 << len(ALL_PIECES)
    # forward[i][m]: weight of giving cells 0..i-1 the pieces of mask m (up to a scale per i)
    forward: list[np.ndarray] = [np.zeros(size) for _ in range(n + 1)]
    forward[0][0] = 1.0
    for i in range(n):
        src, dst, piece = _assignment_steps(i)
        forward[i + 1] = np.bincount(dst, forward[i][src] * w[i, piece], minlength=size)
        forward[i + 1] /= forward[i + 1].max()
    # backward: weight of giving cells i..n-1 pieces outside mask m (up to a scale per i)
    backward: np.ndarray = np.zeros(size)
    backward[forward[n] > 0] = 1.0
    rows = np.zeros_like(w)
    for i in range(n - 1, -1, -1):
        src, dst, piece = _assignment_steps(i)
        through = forward[i][src] * backward[dst]  # cell i takes `piece`, the rest around it
        rows[i] = w[i] * np.bincount(piece, through, minlength=len(ALL_PIECES))
        backward = np.bincount(src, w[i, piece] * backward[dst], minlength=size)
        backward = backward / backward.max()
    rows /= rows.sum(axis=1, keepdims=True)
    return [dict(zip(ALL_PIECES, map(float, row), strict=True)) for row in rows]


def value_probability(posterior: Mapping[Piece, float], attribute: str, value: str) -> float:
    """Probability that the piece has ``attribute == value`` under ``posterior``."""
    if value not in VALUES.get(attribute, ()):
        raise ValueError(f"{value!r} is not a value of attribute {attribute!r}")
    return sum(p for piece, p in posterior.items() if piece.value(attribute) == value)


def line_confidence(
    posteriors: Sequence[Mapping[Piece, float]],
    shared: Mapping[str, str],
    caps: Sequence[Mapping[str, float]] | None = None,
) -> float:
    """How sure the readings are that the line's pieces share one of the ``shared`` values.

    Parameters
    ----------
    posteriors : one piece posterior per cell of the line.
    shared : the attribute values the recorded pieces share (what makes the line a Quarto).
    caps : per cell, attribute -> the most the cell's probability of that shared value may
        be (absent: no cap). See :func:`own_view_cap`.

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
        for i, posterior in enumerate(posteriors):
            cap = 1.0 if caps is None else caps[i].get(attribute, 1.0)
            p *= min(value_probability(posterior, attribute, value), cap)
        best = max(best, p)
    return best


def own_view_cap(views: Iterable[CellEvidence], attribute: str, value: str) -> float:
    """The most a cell's probability of ``attribute == value`` may be, given its own views.

    Each view is one look at the cell's piece on its own (the settle that recorded it, the
    settles since, the present one), read alone (every piece possible, so the attribute's
    mean log-odds). Decoding the board together can make a cell sure of a value its own
    readings never gave it (another cell's readings claim the alternative piece); that fills
    in a cell nobody sees, but it must not overrule a cell whose own views say otherwise. So
    when some view leans against the value (gives it less than 1/2), the cell counts with
    that view's probability; when none does, there is no cap (1.0).
    """
    lowest = 1.0
    for view in views:
        if not view.log_odds[attribute]:
            continue  # not read in this view
        lo = view.mean(attribute)
        p_second = 1.0 / (1.0 + math.exp(-lo))
        p = p_second if VALUES[attribute].index(value) == 1 else 1.0 - p_second
        lowest = min(lowest, p)
    return lowest if lowest < 0.5 else 1.0


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
