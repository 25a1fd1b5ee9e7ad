"""Board-level colour evidence: a piece is judged against the two groups the others form."""

from __future__ import annotations

import numpy as np
import pytest

from vision.learn.board_colours import board_colour_evidence, colour_coordinates, group_evidence
from vision.learn.config import BoardColourConfig
from vision.learn.fuse import with_board_colours

LIGHT = np.array([78.0, 4.0, 30.0])  # pale maple
DARK = np.array([45.0, 22.0, 34.0])  # stained walnut, as warm as an orange table


def board(dark: list[bool], *, seed: int = 0, noise: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([DARK if d else LIGHT for d in dark]) + rng.normal(0, noise, (len(dark), 3))


DARKS = [True, False, True, False, True, False, True]


def test_a_piece_the_reader_doubts_is_pulled_to_the_group_it_matches() -> None:
    lab = board(DARKS)
    # The reader is sure of every piece but the first, a dark one it reads as light.
    p_dark = np.array([0.2] + [0.95 if d else 0.05 for d in DARKS[1:]])
    ev = board_colour_evidence([lab], p_dark, np.ones(len(DARKS), bool))
    assert ev[0] > 3.0
    # The others are confirmed in their own groups.
    assert all((e > 0) == d for e, d in zip(ev[1:], DARKS[1:], strict=True))


def test_a_dimmer_lamp_does_not_change_the_evidence() -> None:
    lab = board(DARKS, seed=1)
    p_dark = np.array([0.5] + [0.9 if d else 0.1 for d in DARKS[1:]])
    ok = np.ones(len(DARKS), bool)
    bright = board_colour_evidence([lab], p_dark, ok)
    dim = lab.copy()
    dim[:, 0] = 0.6 * (dim[:, 0] + 10.0) - 10.0  # lightness as a ratio: 60 % of the light
    np.testing.assert_allclose(board_colour_evidence([dim], p_dark, ok), bright, atol=1e-9)
    np.testing.assert_allclose(colour_coordinates(dim)[:, 0] - colour_coordinates(lab)[:, 0],
                               40.0 * np.log(0.6))


def reference_evidence(x: np.ndarray, p: np.ndarray, ok: np.ndarray,
                       cfg: BoardColourConfig) -> np.ndarray:
    """``group_evidence`` written out piece by piece, as its docstring says."""
    n, d = x.shape
    out = np.zeros(n)
    ok = ok & np.all(np.isfinite(x), axis=1)
    for i in np.flatnonzero(ok):
        o = ok.copy()
        o[i] = False
        xo, po = x[o], p[o]
        wf = np.clip(po, cfg.prior_floor, 1 - cfg.prior_floor)
        stats = []
        for w_mean, w_read in ((wf, po), (1 - wf, 1 - po)):
            mu = (w_mean[:, None] * xo).sum(0) / max(w_mean.sum(), 1e-9)
            stats.append((w_read.sum(), mu, (w_read * ((xo - mu) ** 2).sum(1)).sum()))
        (nd, md, sd), (nl, ml, sl) = stats
        s2 = (sd + sl + cfg.prior_pieces * d * cfg.colour_spread ** 2) / (
            d * (max(len(xo) - 2, 0) + cfg.prior_pieces))
        if nd < cfg.min_group or nl < cfg.min_group:
            continue
        vd, vl = s2 * (1 + 1 / nd), s2 * (1 + 1 / nl)
        e = (-0.5 * ((x[i] - md) ** 2).sum() / vd - 0.5 * d * np.log(vd)
             + 0.5 * ((x[i] - ml) ** 2).sum() / vl + 0.5 * d * np.log(vl))
        out[i] = np.clip(e, -cfg.max_evidence, cfg.max_evidence)
    return out


def test_group_evidence_matches_the_piece_by_piece_definition() -> None:
    rng = np.random.default_rng(7)
    cfg = BoardColourConfig()
    for _ in range(60):
        n = int(rng.integers(1, 17))
        dark = rng.random(n) < 0.5
        x = colour_coordinates(board(list(dark), seed=int(rng.integers(1 << 30)),
                                     noise=float(rng.uniform(0.5, 8.0))))
        x[rng.random(n) < 0.1] = np.nan
        p = np.clip(np.where(dark, 0.9, 0.1) + rng.normal(0, 0.15, n), 0, 1)
        ok = rng.random(n) < 0.9
        np.testing.assert_allclose(group_evidence(x, p, ok, cfg),
                                   reference_evidence(x, p, ok, cfg), atol=1e-9)


def test_no_evidence_without_both_groups_among_the_others() -> None:
    lab = board([True, True, True, True])
    ev = board_colour_evidence([lab], np.array([0.5, 0.95, 0.95, 0.95]), np.ones(4, bool))
    assert ev[0] == 0.0
    # A lone piece has nothing to compare with; unusable pieces neither give nor get evidence.
    assert np.all(board_colour_evidence([lab[:1]], np.array([0.5]), np.ones(1, bool)) == 0.0)
    ok = np.array([False, True, True, True])
    assert board_colour_evidence([board(DARKS[:4])], np.full(4, 0.5), ok)[0] == 0.0


def test_parts_add_up_and_unmeasured_parts_are_skipped() -> None:
    lab = board(DARKS, seed=2)
    p_dark = np.array([0.5] + [0.95 if d else 0.05 for d in DARKS[1:]])
    ok = np.ones(len(DARKS), bool)
    one = board_colour_evidence([lab], p_dark, ok)
    two = board_colour_evidence([lab, lab], p_dark, ok)
    np.testing.assert_allclose(two, 2.0 * one)
    missing = lab.copy()
    missing[0] = np.nan
    np.testing.assert_allclose(board_colour_evidence([lab, missing], p_dark, ok)[0], one[0])


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError, match="one length"):
        board_colour_evidence([np.zeros((3, 3))], np.zeros(4), np.ones(4, bool))
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        board_colour_evidence([np.zeros((4, 2))], np.zeros(4), np.ones(4, bool))
    with pytest.raises(ValueError, match="colour_spread"):
        BoardColourConfig(colour_spread=0.0)


def test_fused_odds_take_the_evidence_and_unknown_colours_stay_unknown() -> None:
    lab = board(DARKS, seed=3)
    odds: list[dict[str, float | None]] = [
        {"color": 0.3 if i == 0 else (0.95 if d else 0.05)} for i, d in enumerate(DARKS)]
    odds.append({"color": None})
    lab = np.vstack([lab, LIGHT])
    n = len(odds)
    out = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], BoardColourConfig())
    assert out[0]["color"] is not None and out[0]["color"] > 0.5
    assert out[-1]["color"] is None
    off = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], BoardColourConfig(weight=0.0))
    assert off[0]["color"] == 0.3
    # Empty cells (P(occupied) < 0.5) and hidden pieces take no part.
    empty = with_board_colours(odds, [0.1] * n, [1.0] * n, [lab], BoardColourConfig())
    assert empty[0]["color"] == 0.3
    hidden = with_board_colours(odds, [0.9] * n, [0.2] + [1.0] * (n - 1), [lab],
                                BoardColourConfig())
    assert hidden[0]["color"] == 0.3


def test_a_group_made_of_floor_weight_alone_is_no_group() -> None:
    """Fifteen pieces all read light: the "dark group" would be 15 x 5 % of them."""
    lab = board([False] * 16, seed=4)
    p = np.full(16, 0.01)
    p[0] = 0.5
    assert np.all(board_colour_evidence([lab], p, np.ones(16, bool)) == 0.0)


def test_known_pieces_anchor_the_groups_where_the_reader_is_fooled_by_a_lamp() -> None:
    """Under a warm lamp the reader takes every dark piece for a light one (P(dark) 0.15):
    the soft groups have no dark member, but the record knows which pieces are dark."""
    dark = [True, False, True, False, True, False, True]
    lab = board(dark, seed=5)
    p = np.where(dark, 0.15, 0.05)  # piece 0 is the new one, the others are recorded
    ok = np.ones(len(dark), bool)
    assert board_colour_evidence([lab], p, ok)[0] == 0.0  # no dark group to compare with
    known = np.where(dark, 1.0, 0.0)
    known[0] = np.nan
    ev = board_colour_evidence([lab], p, ok, known_dark=known)
    assert ev[0] > 3.0
    # The known pieces are confirmed in their own groups.
    assert all((e > 0) == d for e, d in zip(ev[1:], dark[1:], strict=True))


def test_without_known_pieces_the_evidence_is_as_before() -> None:
    lab = board(DARKS, seed=6)
    p = np.array([0.3] + [0.9 if d else 0.1 for d in DARKS[1:]])
    ok = np.ones(len(DARKS), bool)
    before = board_colour_evidence([lab, lab], p, ok)
    np.testing.assert_array_equal(
        board_colour_evidence([lab, lab], p, ok, known_dark=np.full(len(DARKS), np.nan)), before)
    # A known piece that takes no part (hidden, empty) anchors nothing either.
    known = np.full(len(DARKS), np.nan)
    known[1] = 0.0
    hidden = ok.copy()
    hidden[1] = False
    np.testing.assert_array_equal(
        board_colour_evidence([lab], p, hidden, known_dark=known),
        board_colour_evidence([lab], p, hidden))


def test_a_piece_recorded_in_the_wrong_group_does_not_anchor_it() -> None:
    """Piece 1 is light and read light, but recorded dark: the others' groups place it
    clearly among the light ones, so it counts as read, not as recorded."""
    dark = [True, False, True, False, True, False, True, False, True]
    lab = board(dark, seed=8)
    p = np.where(dark, 0.95, 0.05)
    p[0] = 0.3  # the new piece, dark, read doubtfully
    ok = np.ones(len(dark), bool)
    known = np.where(dark, 1.0, 0.0)
    known[0] = np.nan
    wrong = known.copy()
    wrong[1] = 1.0
    as_read = known.copy()
    as_read[1] = np.nan
    np.testing.assert_allclose(board_colour_evidence([lab], p, ok, known_dark=wrong),
                               board_colour_evidence([lab], p, ok, known_dark=as_read))
    # Trusted, the wrong anchor would have pulled the dark group towards the light colour.
    trusting = BoardColourConfig(anchor_doubt=1e9, max_evidence=1e6)
    assert (board_colour_evidence([lab], p, ok, trusting, known_dark=wrong)[0]
            < board_colour_evidence([lab], p, ok, trusting, known_dark=as_read)[0] - 0.5)


def test_anchors_are_not_kept_off_zero_and_one() -> None:
    """``group_evidence``'s anchored pieces count wholly in their group: the piece-by-piece
    definition with the floor lifted for them."""
    rng = np.random.default_rng(11)
    cfg = BoardColourConfig(max_evidence=1e6)
    dark = list(rng.random(9) < 0.5)
    dark[1], dark[2] = True, False
    x = colour_coordinates(board(dark, seed=12, noise=3.0))
    p = np.where(dark, 1.0, 0.0)
    ok = np.ones(9, bool)
    anchored = np.ones(9, bool)
    # With every piece at exactly 0 or 1 and anchored, the floor plays no part: the means
    # are plain group means, which a floor of (almost) nothing reproduces.
    tiny = BoardColourConfig(prior_floor=1e-12, max_evidence=1e6)
    np.testing.assert_allclose(group_evidence(x, p, ok, cfg, anchored),
                               reference_evidence(x, p, ok, tiny), atol=1e-6)
    assert not np.allclose(group_evidence(x, p, ok, cfg), group_evidence(x, p, ok, cfg, anchored))


def test_fused_odds_with_known_pieces_take_the_record_weight() -> None:
    dark = [True, False, True, False, True, False, True]
    lab = board(dark, seed=9)
    n = len(dark)
    odds: list[dict[str, float | None]] = [{"color": 0.15 if d else 0.05} for d in dark]
    known: list[float | None] = [None] + [1.0 if d else 0.0 for d in dark[1:]]
    cfg = BoardColourConfig(weight=0.25, record_weight=0.5)  # the defaults
    soft = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], cfg)
    assert soft[0]["color"] == 0.15
    anchored = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], cfg, known)
    ev = board_colour_evidence([lab], np.array([o["color"] for o in odds]), np.ones(n, bool),
                               cfg, np.array([np.nan if k is None else k for k in known]))
    logit = np.log(0.15 / 0.85) + 0.5 * ev[0]
    assert anchored[0]["color"] == pytest.approx(1.0 / (1.0 + np.exp(-logit)))
    assert anchored[0]["color"] > 0.5
    # Nothing known: the reading alone, at the usual weight.
    none = with_board_colours(odds, [0.9] * n, [1.0] * n, [lab], cfg, [None] * n)
    assert none == soft


def test_colours_sampled_at_a_height_the_fused_reading_rejects_take_no_part() -> None:
    """Fresh game 1031013 move 7: the geometric reader fitted a dark short piece tall and
    sampled its "top" on the light wood behind it; the groups then turned the network's
    dark reading light. With ``height_checked_parts`` the samples of a cell whose fused
    height and the geometric fit disagree are dropped."""
    from vision.learn.fuse import _height_checked
    from vision.read.observation import CellReading, Observation
    from vision.rules.board import ALL_CELLS

    darks = [True, False, True, False, True, False, True, True]
    lab = board(darks, seed=5)
    lab[0] = LIGHT  # the misplaced sample: what stands behind the piece, not the piece
    n = len(darks)
    # The network reads cell 0 dark (fused 0.9), short (0.1); the geometric fit says tall.
    odds: list[dict[str, float | None]] = [
        {"color": 0.9 if i == 0 else (0.95 if d else 0.05), "height": 0.1 if i == 0 else 0.2}
        for i, d in enumerate(darks)]
    hand = Observation(tuple(
        CellReading(cell=c, center_px=(0.0, 0.0), occupied_probability=0.9 if i < n else 0.0,
                    attribute_probability={"height": 0.95 if i == 0 else 0.1})
        for i, c in enumerate(ALL_CELLS)), None)
    cfg = BoardColourConfig()
    parts = [np.vstack([lab, np.full((16 - n, 3), np.nan)])]
    odds16 = odds + [{"color": None, "height": None}] * (16 - n)
    occ = [0.9] * n + [0.0] * (16 - n)
    seen = [1.0] * 16
    # The record (``watch``) anchors the others' colours; cell 0 is the new piece.
    known: list[float | None] = [None] + [float(d) for d in darks[1:]] + [None] * (16 - n)
    plain = with_board_colours(odds16, occ, seen, parts, cfg, known)
    assert plain[0]["color"] is not None and plain[0]["color"] < 0.5  # turned light
    checked = with_board_colours(odds16, occ, seen, _height_checked(parts, hand, odds16), cfg,
                                 known)
    assert checked[0]["color"] == 0.9  # no part of its own: the reading stands
    # The others keep their samples and their evidence.
    assert checked[2] == plain[2]
    assert not np.isnan(_height_checked(parts, hand, odds16)[0][1:n]).any()


def test_colours_of_a_cell_the_geometric_reader_read_empty_are_height_checked_too() -> None:
    """Fresh game 1032020 move 11: a dark short piece half hidden behind a light tall one. In
    the frames the geometric reader read its cell empty (no height, no colour), its samples,
    taken at the height its fit gave the cell (tall), were of the light pieces around it, and
    the groups turned the network's weak dark (+0.45) into -5.6 light. The height check of
    ``height_checked_parts`` skips a cell without a geometric height; with
    ``unread_cell_parts`` (``sampled_tall``: the fit's P(tall) of every cell) such a cell's
    samples are checked against the fused height as well."""
    from vision.learn.fuse import _height_checked
    from vision.read.observation import CellReading, Observation
    from vision.rules.board import ALL_CELLS
    from vision.rules.pieces import ATTRIBUTES

    darks = [True, False, True, False, True, False, True, True]
    lab = board(darks, seed=7)
    lab[0] = LIGHT  # sampled on the light pieces in front and behind, not the piece
    lab[1] = LIGHT  # cell 1 also read empty, but sampled at its own (short) height
    n = len(darks)
    odds: list[dict[str, float | None]] = [
        {"color": 0.6 if i == 0 else (0.95 if d else 0.05), "height": 0.1 if i < 2 else 0.2}
        for i, d in enumerate(darks)]
    # The geometric reader reads cells 0 and 1 empty: every attribute None.
    hand = Observation(tuple(
        CellReading(cell=c, center_px=(0.0, 0.0),
                    occupied_probability=0.2 if i < 2 else (0.9 if i < n else 0.0),
                    attribute_probability=(dict.fromkeys(ATTRIBUTES) if i < 2 or i >= n
                                           else {"height": 0.1}))
        for i, c in enumerate(ALL_CELLS)), None)
    sampled_tall = np.array([0.9] + [0.1] * 15)  # cell 0 sampled tall, the rest short
    cfg = BoardColourConfig()
    assert not cfg.unread_cell_parts
    parts = [np.vstack([lab, np.full((16 - n, 3), np.nan)])]
    odds16 = odds + [{"color": None, "height": None}] * (16 - n)
    occ = [0.9] * n + [0.0] * (16 - n)
    seen = [1.0] * 16
    known: list[float | None] = [None] + [float(d) for d in darks[1:]] + [None] * (16 - n)
    height_only = _height_checked(parts, hand, odds16)
    assert np.array_equal(height_only[0], parts[0], equal_nan=True)  # nothing to check
    plain = with_board_colours(odds16, occ, seen, height_only, cfg, known)
    assert plain[0]["color"] is not None and plain[0]["color"] < 0.5  # turned light
    dropped = _height_checked(parts, hand, odds16, sampled_tall=sampled_tall)
    checked = with_board_colours(odds16, occ, seen, dropped, cfg, known)
    assert checked[0]["color"] == 0.6  # no part of its own: the reading stands
    assert checked[2] == plain[2]
    # Cell 1, sampled at the height the fused reading gives it, keeps its samples, and so
    # do all the others.
    assert not np.isnan(dropped[0][1:n]).any()
    assert np.array_equal(np.isnan(dropped[0][n:]), np.isnan(parts[0][n:]))


def _front_and_behind(frames: object) -> tuple[int, int]:
    """A cell of the nearest row and the cell straight behind it (the same column, seen with
    the camera looking along the columns)."""
    from vision.read.geometry import CellFrames

    assert isinstance(frames, CellFrames)
    order = np.argsort(frames.depth_m)
    front = int(order[0])
    same_col = [i for i in range(16) if i != front
                and abs(frames.centers_m[i, 0] - frames.centers_m[front, 0]) < 1e-6]
    behind = min(same_col, key=lambda i: frames.depth_m[i])
    return front, behind


def test_colour_samples_on_a_nearer_piece_are_left_out() -> None:
    """Fresh game 1032020 move 11: a dark short piece half hidden behind a light tall one had
    its near-side colour sampled partly on the light piece in front (the geometric reader had
    read its cell empty, and never checks a near side point by point). With
    ``occluded_parts`` the sample points of a cell's top and near side that fall on a nearer
    piece's silhouette (the fused reading's or the record's pieces, each at its own height)
    are left out: the part is measured on the others, or dropped when too few are left. The
    cell's own piece never counts, nor does an empty cell in front."""
    from types import SimpleNamespace
    from typing import cast

    import cv2

    from tests.read.synth import make_view
    from vision.learn.fuse import _unoccluded
    from vision.read.geometry import cell_frames, silhouette_polygon
    from vision.read.heights import HeightFit
    from vision.read.reader import CellFeatures
    from vision.read.sampling import LabPatch
    from vision.rules.board import ALL_CELLS
    from vision.rules.pieces import Piece

    assert not BoardColourConfig().occluded_parts  # off by default (on within resampling)
    cfg = BoardColourConfig(occluded_parts=True, resampled_parts=False)

    def run(elevation: float, distance: float, occ_front: float, tall_front: float | None,
            known: dict | None = None, drawn_tall: bool = True, occ_behind: float = 0.9,
            ) -> tuple[list[np.ndarray], list[np.ndarray], int, int]:
        view = make_view(elevation_deg=elevation, azimuth_deg=0.0, distance_m=distance)
        frames = cell_frames(view, 0.72)
        f = frames.footprint_m
        front, behind = _front_and_behind(frames)
        # The image: dark everywhere but the light piece in front.
        lab = np.tile(DARK.astype(np.float32), (720, 1280, 1))
        poly = silhouette_polygon(view, frames, front, 1.1 * f, (2.1 if drawn_tall else 1.1) * f)
        inside = np.zeros((720, 1280), np.uint8)
        cv2.fillConvexPoly(inside, np.round(poly).astype(np.int32), 1)
        lab[inside > 0] = LIGHT
        # Every cell sampled at the short height (what the fit gave them).
        feats = cast(CellFeatures, SimpleNamespace(
            heights=HeightFit(1.1 * f, 2.1 * f, np.zeros(16)), frames=frames,
            height_m=np.full(16, 1.1 * f), patch=LabPatch(lab, (0, 0)), side_offsets_m=None))
        parts = [np.tile(DARK, (16, 1)), np.tile(DARK, (16, 1))]
        parts[1][behind] = 0.5 * (LIGHT + DARK)  # the reader's sample: half the piece in front
        occ = [0.0] * 16
        occ[front], occ[behind] = occ_front, occ_behind
        odds: list[dict[str, float | None]] = [{"color": None, "height": None}] * 16
        odds[front] = {"color": 0.1, "height": tall_front}
        odds[behind] = {"color": 0.6, "height": 0.1}
        return parts, _unoccluded(parts, feats, view, occ, odds, known, cfg), front, behind

    # Low view, a short piece in front hiding a fifth of the near side behind it: that side
    # is measured on the rest, its own colour.
    parts, out, front, behind = run(30.0, 0.5, 0.9, 0.1, drawn_tall=False)
    np.testing.assert_allclose(out[1][behind], DARK, atol=1.0)
    others = [i for i in range(16) if i != behind]
    np.testing.assert_array_equal(out[1][others], parts[1][others])
    np.testing.assert_array_equal(out[0], parts[0])  # every top in the clear
    # The same cell read empty takes no part in the colour groups: its parts come back as
    # measured, not measured again.
    parts, out, front, behind = run(30.0, 0.5, 0.9, 0.1, drawn_tall=False, occ_behind=0.1)
    np.testing.assert_array_equal(out[1], parts[1])
    # A tall piece in front at 45 degrees: most of the near side behind it is the tall one's,
    # too little is left (under ``min_side_visible``): dropped. The top is clear: kept.
    parts, out, front, behind = run(45.0, 0.4, 0.9, 0.9)
    assert np.isnan(out[1][behind]).all()
    np.testing.assert_array_equal(out[0], parts[0])
    np.testing.assert_array_equal(out[1][front], parts[1][front])  # nothing before it
    # The fused reading has no piece in front: every sample kept as the reader took it.
    parts, out, *_ = run(45.0, 0.4, 0.1, None)
    np.testing.assert_array_equal(out[1], parts[1])
    # The record's piece stands in front even where this frame reads the cell empty, at the
    # record's height (tall), whatever the fused height odds.
    known = {ALL_CELLS[front]: Piece.from_name("light round tall solid")}
    parts, out, front, behind = run(45.0, 0.4, 0.1, 0.1, known)
    assert np.isnan(out[1][behind]).all()
    # A short piece in front (at its own height) hides none of it there.
    parts, out, front, behind = run(45.0, 0.4, 0.9, 0.1, drawn_tall=False)
    np.testing.assert_array_equal(out[1], parts[1])


def test_colours_sampled_at_another_height_than_the_pieces_are_measured_again() -> None:
    """Fresh game 1032020 move 11: the geometric reader read the dark short piece's cell empty
    and sampled it at the tall height its fit gave the cell; the "top" there was the light
    piece behind. With ``resampled_parts`` a cell whose piece's height (the record's, else the
    fused reading's) is not the one sampled has its top and near side measured again at the
    piece's height: its own colour. Without it the reader's samples stand (or are dropped by
    the height checks)."""
    from types import SimpleNamespace
    from typing import cast

    import cv2

    from tests.read.synth import make_view
    from vision.learn.fuse import _unoccluded
    from vision.read.geometry import cell_frames, silhouette_polygon
    from vision.read.heights import HeightFit
    from vision.read.reader import CellFeatures
    from vision.read.sampling import LabPatch
    from vision.rules.board import ALL_CELLS
    from vision.rules.pieces import Piece

    view = make_view(elevation_deg=45.0, azimuth_deg=0.0, distance_m=0.4)
    frames = cell_frames(view, 0.72)
    f = frames.footprint_m
    cell, _ = _front_and_behind(frames)  # nothing stands before it
    # A dark short piece on a light scene.
    lab = np.tile(LIGHT.astype(np.float32), (720, 1280, 1))
    inside = np.zeros((720, 1280), np.uint8)
    cv2.fillConvexPoly(inside, np.round(silhouette_polygon(view, frames, cell, f, 1.1 * f))
                       .astype(np.int32), 1)
    lab[inside > 0] = DARK
    sampled = np.full(16, 1.1 * f)
    sampled[cell] = 2.1 * f  # the fit gave the cell the tall height
    feats = cast(CellFeatures, SimpleNamespace(
        heights=HeightFit(1.1 * f, 2.1 * f, np.zeros(16)), frames=frames, height_m=sampled,
        patch=LabPatch(lab, (0, 0)), side_offsets_m=None))
    parts = [np.tile(LIGHT, (16, 1)), np.tile(LIGHT, (16, 1))]  # sampled above the piece
    occ = [0.0] * 16
    occ[cell] = 0.9
    odds: list[dict[str, float | None]] = [{"color": None, "height": None}] * 16
    odds[cell] = {"color": 0.6, "height": 0.1}  # the fused reading: short
    # Off: the occlusion check alone keeps the samples (nothing stands in front).
    off = BoardColourConfig(occluded_parts=True, resampled_parts=False)
    out = _unoccluded(parts, feats, view, occ, odds, None, off)
    np.testing.assert_array_equal(out[0], parts[0])
    np.testing.assert_array_equal(out[1], parts[1])
    # On: measured again at the short height, on the piece itself.
    cfg = BoardColourConfig()
    assert cfg.resampled_parts  # on by default
    out = _unoccluded(parts, feats, view, occ, odds, None, cfg)
    np.testing.assert_allclose(out[0][cell], DARK, atol=1.0)
    np.testing.assert_allclose(out[1][cell], DARK, atol=1.0)
    others = [i for i in range(16) if i != cell]
    np.testing.assert_array_equal(out[0][others], parts[0][others])
    # The record's height wins over the fused reading's: recorded tall, sampled tall, kept.
    known = {ALL_CELLS[cell]: Piece.from_name("dark round tall solid")}
    out = _unoccluded(parts, feats, view, occ, odds, known, cfg)
    np.testing.assert_array_equal(out[0][cell], parts[0][cell])
