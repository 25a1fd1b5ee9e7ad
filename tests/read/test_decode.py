"""Joint decoding: the Hungarian assignment and distinct pieces with unknown attributes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.read.decode import (
    decode_pieces,
    hungarian,
    occupancy_weighted,
    piece_log_likelihood,
)
from vision.rules.pieces import ALL_PIECES, ATTRIBUTES, VALUES, Piece


@pytest.mark.parametrize("seed", range(20))
def test_hungarian_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    m = int(rng.integers(n, 7))
    cost = rng.random((n, m))
    cols = hungarian(cost)
    assert len(set(cols.tolist())) == n
    best = min(sum(cost[i, p[i]] for i in range(n))
               for p in itertools.permutations(range(m), n))
    assert sum(cost[i, cols[i]] for i in range(n)) == pytest.approx(best)


def _hungarian_arrays(c: np.ndarray) -> np.ndarray:
    """Reference: shortest augmenting paths with potentials on numpy arrays (the library's
    implementation until it moved to Python floats for speed)."""
    n, m = c.shape
    inf = np.inf
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=np.int64)  # p[j]: row (1-based) matched to column j
    way = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = c[i0 - 1, :] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = int(way[j0])
            p[j0] = p[j1]
            j0 = j1
    result = np.zeros(n, dtype=np.int64)
    for j in range(1, m + 1):
        if p[j]:
            result[p[j] - 1] = j - 1
    return result


def test_scalar_hungarian_is_the_array_one() -> None:
    """The Python-float version against the array version: the same assignment, ties and
    the readers' clipped log-odds costs included."""
    rng = np.random.default_rng(31)
    for trial in range(600):
        n = int(rng.integers(0, 17))
        m = int(rng.integers(max(n, 1), 33))
        cost = rng.normal(size=(n, m))
        if trial % 3 == 0:
            cost = np.round(cost, 1)  # many ties
        if trial % 3 == 1:
            cost = -np.log(np.clip(rng.random((n, m)), 0.02, 0.98)) * rng.integers(0, 4, (n, m))
        np.testing.assert_array_equal(hungarian(cost), _hungarian_arrays(cost))
    # Non-finite costs too.
    cost = rng.random((4, 6))
    cost[1, 2] = np.inf
    np.testing.assert_array_equal(hungarian(cost), _hungarian_arrays(cost))


def test_hungarian_rejects_bad_shape() -> None:
    with pytest.raises(ValueError, match="n <= m"):
        hungarian(np.zeros((3, 2)))


def _odds(piece: Piece, p: float = 0.9) -> dict[str, float | None]:
    return {a: (p if piece.value(a) in ("dark", "square", "tall", "hollow") else 1 - p)
            for a in ATTRIBUTES}


def test_confident_readings_decode_to_themselves() -> None:
    pieces = list(ALL_PIECES[:7])
    decoded = decode_pieces([_odds(p) for p in pieces])
    assert [d.piece for d in decoded] == pieces
    assert all(d.known == frozenset(ATTRIBUTES) for d in decoded)


def test_two_cells_wanting_one_piece_get_distinct_pieces() -> None:
    a = Piece.from_symbol("LRSS")
    strong = _odds(a, 0.99)
    weak = _odds(a, 0.7)
    weak["top"] = 0.45  # barely prefers solid: hollow is its second choice
    decoded = decode_pieces([strong, weak])
    assert decoded[0].piece == a
    assert decoded[1].piece == Piece.from_symbol("LRSH")


def test_unknown_attribute_stays_unknown_unless_forced() -> None:
    piece = Piece.from_symbol("DSTH")
    odds = _odds(piece)
    odds["top"] = None
    (only,) = decode_pieces([odds])
    assert "top" not in only.known
    # With the other fifteen pieces on the board, the last one is forced.
    others = [p for p in ALL_PIECES if p != piece]
    decoded = decode_pieces([_odds(p, 0.95) for p in others] + [odds])
    assert decoded[-1].piece == piece
    assert "top" in decoded[-1].known


def test_confidence_drops_with_unknowns() -> None:
    piece = Piece.from_symbol("LRTS")
    full = decode_pieces([_odds(piece)])[0].confidence
    odds = _odds(piece)
    odds["shape"] = None
    partial = decode_pieces([odds])[0].confidence
    assert partial < full


def test_occupancy_weighting_keeps_sure_cells_and_flattens_empty_ones() -> None:
    odds = [dict.fromkeys(ATTRIBUTES, 0.9), {"color": 0.2, "shape": None, "height": 0.7,
                                             "top": 0.6}]
    ll = piece_log_likelihood(odds)
    np.testing.assert_array_equal(occupancy_weighted(ll, [1.0, 1.0]), ll)
    empty = occupancy_weighted(ll, [0.0, 1.0])
    np.testing.assert_allclose(empty[0], np.log(1.0 / 16.0))
    np.testing.assert_array_equal(empty[1], ll[1])
    # In between: the mixture of the reading and "nothing there", row by row.
    half = occupancy_weighted(ll, [0.5, 0.7])
    np.testing.assert_allclose(np.exp(half), [0.5 * np.exp(ll[0]) + 0.5 / 16.0,
                                              0.7 * np.exp(ll[1]) + 0.3 / 16.0])
    # A doubtful cell's readings still rank the pieces as before.
    assert (np.argsort(half[0]) == np.argsort(ll[0])).all()
    for bad in ([0.5], [0.5, 1.2], [0.5, float("nan")]):
        with pytest.raises(ValueError, match="probability"):
            occupancy_weighted(ll, bad)


def test_a_doubtful_cell_does_not_take_the_piece_a_sure_cell_shows() -> None:
    """Two cells read the same piece (all second values): the first is surely occupied and
    reads it at 0.93, the second may be empty (a phantom) but reads it at 0.95. Counting
    both as occupied, the surer reading wins and the plainly seen piece is changed; weighed
    by occupancy, the sure cell keeps its piece and the doubtful one takes the next best."""
    target = Piece.from_attributes({a: VALUES[a][1] for a in ATTRIBUTES})
    odds = [dict.fromkeys(ATTRIBUTES, 0.93), dict.fromkeys(ATTRIBUTES, 0.95)]
    plain = decode_pieces(odds)
    assert plain[1].piece == target and plain[0].piece != target
    weighed = decode_pieces(odds, [0.99, 0.6])
    assert weighed[0].piece == target and weighed[1].piece != target
    # Both sure: as without weights.
    assert [d.piece for d in decode_pieces(odds, [1.0, 1.0])] == [d.piece for d in plain]
