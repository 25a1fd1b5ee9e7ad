"""Joint decoding: the 16 pieces are all different, so the pieces on the board are an
assignment of distinct pieces to the occupied cells, not independent guesses.

Each occupied cell gives independent attribute odds; the log-likelihood of piece ``k`` on cell
``i`` is the sum over the *readable* attributes of ``log p`` or ``log (1 - p)``. The best
assignment (Hungarian algorithm, numpy only) picks distinct pieces. An attribute that could not
be read stays unknown unless the other cells force it: when every piece still available that
agrees with what was read shares one value, that value is no guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.rules.pieces import ALL_PIECES, ATTRIBUTES, VALUES, Piece

#: Odds are clipped to this range so one overconfident reading cannot veto an assignment.
_P_MIN = 0.02

FloatArray = NDArray[np.float64]

#: The second value of every attribute (the one whose probability the odds give).
_SECOND: dict[str, str] = {a: VALUES[a][1] for a in ATTRIBUTES}
#: (16, 4) whether each piece has the second value of each attribute.
_BITS = np.array([[p.value(a) == _SECOND[a] for a in ATTRIBUTES] for p in ALL_PIECES])


@dataclass(frozen=True)
class DecodedPiece:
    """The piece assigned to one cell, which attributes are known, and the confidence."""

    piece: Piece
    known: frozenset[str]
    confidence: float


def hungarian(cost: FloatArray) -> NDArray[np.int64]:
    """Minimum-cost assignment of the rows of ``cost`` (n x m, n <= m) to distinct columns.

    Returns the (n,) column chosen for each row. Shortest augmenting paths with potentials,
    O(n^2 m); fine for the 16 x 16 problems here.

    Notes
    -----
    It runs on Python floats: for the readers' 16 x 16 problems several times faster than on
    16-element numpy arrays.
    """
    c = np.asarray(cost, dtype=np.float64)
    if c.ndim != 2 or c.shape[0] > c.shape[1]:
        raise ValueError(f"cost must be an n x m array with n <= m, got shape {c.shape}")
    n, m = c.shape
    rows = c.tolist()
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row (1-based) matched to column j
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = rows[i0 - 1]
            ui0 = u[i0]
            delta = inf
            j1 = 1  # the first column when every candidate is inf
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    result = np.zeros(n, dtype=np.int64)
    for j in range(1, m + 1):
        if p[j]:
            result[p[j] - 1] = j - 1
    return result


def piece_log_likelihood(odds: Sequence[Mapping[str, float | None]]) -> FloatArray:
    """(n, 16) log-likelihood of each of the 16 pieces for each cell's attribute odds."""
    ll = np.zeros((len(odds), len(ALL_PIECES)))
    for i, cell_odds in enumerate(odds):
        for j, attr in enumerate(ATTRIBUTES):
            prob = cell_odds.get(attr)
            if prob is None:
                continue
            q = float(min(max(prob, _P_MIN), 1.0 - _P_MIN))  # np.clip's value, no array
            ll[i] += np.where(_BITS[:, j], np.log(q), np.log(1.0 - q))
    return ll


def occupancy_weighted(ll: FloatArray, occupied: Sequence[float]) -> FloatArray:
    """(n, 16) log-likelihoods ``ll`` of cells that may be empty: cell ``i`` holds a piece with
    probability ``occupied[i]``, and then its readings are ``ll[i]``; otherwise what was read
    there says nothing of any piece (each of the 16 equally likely, 1/16). A cell sure to
    hold a piece keeps its row; a doubtful one (a phantom, or a piece hardly told from the
    board) claims no piece strongly, so when two cells contend for one piece the one surely
    there wins it.

    Raises
    ------
    ValueError
        When ``occupied`` does not give one probability in [0, 1] per row.
    """
    q = np.asarray(occupied, dtype=np.float64)
    if q.shape != (ll.shape[0],) or np.any(~(q >= 0.0) | ~(q <= 1.0)):
        raise ValueError(f"need one probability in [0, 1] per cell, got {occupied!r}")
    out = np.array(ll, dtype=np.float64)
    doubtful = q < 1.0
    if np.any(doubtful):
        qd = q[doubtful, None]
        with np.errstate(divide="ignore"):
            out[doubtful] = np.logaddexp(np.log(qd) + out[doubtful],
                                         np.log1p(-qd) - np.log(len(ALL_PIECES)))
    return out


def decode_pieces(
    odds: Sequence[Mapping[str, float | None]], occupied: Sequence[float] | None = None,
) -> list[DecodedPiece]:
    """Assign distinct pieces to cells given each cell's attribute odds.

    Parameters
    ----------
    odds : one mapping per occupied cell (at most 16): attribute -> probability of its second
        value, or ``None`` when unreadable.
    occupied : optional P(occupied) of each of those cells: the assignment then weighs each
        cell's claim by it (:func:`occupancy_weighted`). None: every cell counts as surely
        occupied (as before session 34).

    Returns
    -------
    One ``DecodedPiece`` per input, in order. With more than 16 inputs (an impossible board) the
    extra cells are decoded independently.
    """
    n = len(odds)
    if n == 0:
        return []
    ll = piece_log_likelihood(odds)
    if occupied is not None:
        ll = occupancy_weighted(ll, occupied)
    cols = hungarian(-ll) if n <= len(ALL_PIECES) else np.argmax(ll, axis=1)
    taken = set(int(c) for c in cols)
    out = []
    for i in range(n):
        piece = ALL_PIECES[int(cols[i])]
        # Pieces this cell could hold: its own, or any piece no other cell holds.
        pool = [ALL_PIECES[k] for k in range(len(ALL_PIECES)) if k == cols[i] or k not in taken]
        known = set()
        conf = 1.0
        for attr in ATTRIBUTES:
            prob = odds[i].get(attr)
            value = piece.value(attr)
            if prob is not None:
                known.add(attr)
                q = float(prob) if value == _SECOND[attr] else 1.0 - float(prob)
                conf *= q
            else:
                # Forced when every still-available piece that matches the readable attributes
                # has the same value here.
                compatible = [
                    p for p in pool
                    if all(
                        odds[i].get(a) is None or p.value(a) == piece.value(a)
                        for a in ATTRIBUTES
                    )
                ]
                if all(p.value(attr) == value for p in compatible):
                    known.add(attr)
        unknown = len(ATTRIBUTES) - len(known)
        out.append(DecodedPiece(piece, frozenset(known), conf * 0.5**unknown))
    return out
