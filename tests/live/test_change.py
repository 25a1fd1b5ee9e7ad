"""Which free cell explains what changed in the image (``vision.live.change``)."""

import cv2
import numpy as np
import pytest

from tests.locate.synth import make_view
from vision.live.change import (
    ChangeConfig,
    change_scores,
    covered_change,
    least_visible_shares,
    silhouette_polygon,
)
from vision.rules.board import ALL_CELLS, Cell

SCALE = 0.25  # the motion gate's small copy: 320 px wide for a 1280 px frame
CFG = ChangeConfig()


def _mask(view, cell, height_m, hidden_by=()):
    """The pixels a piece on ``cell`` changes, less what ``hidden_by`` (cell, height) hide."""
    shape = (180, 320)
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, silhouette_polygon(view, cell, CFG.piece_diameter_m, height_m,
                                                SCALE), 1)
    for other, h in hidden_by:
        cv2.fillConvexPoly(mask, silhouette_polygon(view, other, CFG.piece_diameter_m, h,
                                                    SCALE), 0)
    return mask.astype(bool)


def _front_and_behind(view):
    """Two neighbouring cells along the line of sight: (nearer the camera, behind it)."""
    centres = np.array([(*view.spec.cell_center(c), 0.0) for c in ALL_CELLS])
    depth = dict(zip(ALL_CELLS, view.camera.depth(centres), strict=True))
    px = dict(zip(ALL_CELLS, view.cell_centers_px(), strict=True))
    pairs = [(a, b) for a in ALL_CELLS for b in ALL_CELLS
             if abs(a.row - b.row) + abs(a.col - b.col) == 1 and depth[a] < depth[b]]
    # the pair most nearly one above the other in the image
    return min(pairs, key=lambda p: abs(px[p[0]][0] - px[p[1]][0]))


@pytest.mark.parametrize("elevation", [30.0, 55.0, 80.0])
def test_a_new_piece_in_view_scores_its_own_cell_best(elevation):
    view = make_view(elevation_deg=elevation, azimuth_deg=20.0)
    cell = Cell.from_name("b3")
    scores = change_scores(_mask(view, cell, CFG.tall_height_m), SCALE, view, {})
    ranked = sorted(scores, key=scores.get, reverse=True)
    assert ranked[0] == cell and scores[cell] > 0.9
    assert scores[ranked[1]] < 0.75 * scores[cell]


def test_a_piece_behind_a_tall_one_scores_by_the_part_that_shows():
    # A short piece put behind a standing tall piece shows only its top: its cell scores
    # best once the tall piece's silhouette is taken out of the prediction, and the
    # standing piece's own cell gets no score at all.
    view = make_view(elevation_deg=35.0, azimuth_deg=10.0)
    front, behind = _front_and_behind(view)
    changed = _mask(view, behind, CFG.short_height_m, hidden_by=[(front, CFG.tall_height_m)])
    assert changed.any()
    scores = change_scores(changed, SCALE, view, {front: True})
    assert front not in scores
    assert max(scores, key=scores.get) == behind and scores[behind] > 0.9
    # Without knowing the front piece stands there, the hidden piece explains it worse.
    blind = change_scores(changed, SCALE, view, {})
    assert blind[behind] < scores[behind]


def test_a_new_front_piece_is_not_taken_for_the_cell_behind_it():
    # The phantom of low views: a piece put in front covers the cell behind it in the image.
    view = make_view(elevation_deg=30.0, azimuth_deg=10.0)
    front, behind = _front_and_behind(view)
    scores = change_scores(_mask(view, front, CFG.tall_height_m), SCALE, view, {})
    assert scores[front] > 0.9 and scores[behind] < 0.75 * scores[front]


def test_nothing_changed_scores_zero_everywhere():
    view = make_view()
    scores = change_scores(np.zeros((180, 320), bool), SCALE, view, {Cell.from_name("a1"): False})
    assert len(scores) == 15 and set(scores.values()) == {0.0}


def test_config_rejects_bad_sizes():
    with pytest.raises(ValueError):
        ChangeConfig(short_height_m=0.07, tall_height_m=0.04)
    with pytest.raises(ValueError):
        ChangeConfig(piece_diameter_m=0.0)


def test_a_free_cell_behind_a_tall_piece_shows_least_of_a_short_piece():
    # What a piece arriving on a free cell could show: behind a standing tall piece a short
    # one is hidden far more than a tall one, and the share is the smaller; behind a short
    # piece more of it shows; with nothing in front all of it; standing cells get none.
    view = make_view(elevation_deg=35.0, azimuth_deg=10.0)
    front, behind = _front_and_behind(view)
    tall = least_visible_shares(view, {front: True})
    short = least_visible_shares(view, {front: False})
    assert front not in tall and len(tall) == 15
    own = _mask(view, behind, CFG.short_height_m)
    left = _mask(view, behind, CFG.short_height_m, hidden_by=[(front, CFG.tall_height_m)])
    assert tall[behind] == pytest.approx(left.sum() / own.sum(), abs=0.05)
    high = _mask(view, behind, CFG.tall_height_m, hidden_by=[(front, CFG.tall_height_m)])
    assert tall[behind] < high.sum() / _mask(view, behind, CFG.tall_height_m).sum() - 0.05
    assert tall[behind] < short[behind] - 0.1
    assert least_visible_shares(view, {})[behind] == 1.0


def test_the_top_of_a_piece_behind_a_narrower_front_piece_counts_as_covered_change():
    # Fresh game 1035003 (42 degrees): a short piece put straight behind a recorded tall one
    # showed the strip of its top above the real front piece, which is narrower and lower
    # than the modelled one (30 mm, 67 mm): every changed pixel lay inside the model's front
    # silhouette, so the change scores gave its cell 0.00. ``covered_change`` counts them.
    view = make_view(elevation_deg=40.0, azimuth_deg=10.0)
    front, behind = _front_and_behind(view)
    standing = {front: True}
    # What changed: the new piece where the model's front piece covers it but the real,
    # narrower and lower front piece (25 mm, 60 mm) does not.
    piece = _mask(view, behind, CFG.short_height_m)
    shape = piece.shape
    real = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(real, silhouette_polygon(view, front, 0.025, 0.06, SCALE), 1)
    changed = piece & _mask(view, front, CFG.tall_height_m) & ~real.astype(bool)
    assert changed.any()
    assert change_scores(changed, SCALE, view, standing)[behind] == 0.0  # the model hides it
    covered = covered_change(changed, SCALE, view, standing)
    assert covered[behind].inside > 0.05 and covered[behind].outside < covered[behind].inside
    assert 0.0 < covered[behind].visible < 1.0
    # A nudge of the front piece: its outline changes all round, outside the cell too.
    ring = _mask(view, front, CFG.tall_height_m) & ~_mask(view, front, CFG.tall_height_m * 0.8)
    ring |= cv2.dilate(ring.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    nudged = covered_change(ring, SCALE, view, standing)
    assert nudged[behind].outside > nudged[behind].inside
    # Nothing changed, or no standing piece in front: no entry.
    assert covered_change(np.zeros(shape, bool), SCALE, view, standing) == {}
    assert behind not in covered_change(changed, SCALE, view, {})


@pytest.mark.parametrize("elevation", [35.0, 75.0])
def test_a_neighbours_new_piece_leaves_a_free_cell_unchanged_where_its_own_piece_would_stand(
        elevation):
    # ``ChangeMap.unexplained``: a piece put on a cell changes nearly all of its own short
    # silhouette; the cell behind (or in front of) it, with the new piece's tall silhouette
    # taken out, keeps nearly all of its own unchanged; both changed when both were put.
    from vision.live.change import ChangeMap

    view = make_view(elevation_deg=elevation, azimuth_deg=10.0)
    front, behind = _front_and_behind(view)
    for new, other in ((front, behind), (behind, front)):
        changed = _mask(view, new, CFG.tall_height_m)
        cmap = ChangeMap(changed, SCALE, view, {})
        share, left = cmap.unexplained(new, [], 0.7)
        assert share > 0.95 and left == 1.0
        share, left = cmap.unexplained(other, [new], 0.7)
        assert share < 0.05 or left < 0.3
        both = ChangeMap(changed | _mask(view, other, CFG.short_height_m), SCALE, view, {})
        share, left = both.unexplained(other, [new], 0.7)
        assert left == 0.0 or share > 0.95
    # a standing piece nearer the camera hides what it covers: not counted either way (at
    # 35 degrees a tall piece in front covers part of the cell behind; at 75 none of it)
    hidden = ChangeMap(np.zeros((180, 320), bool), SCALE, view, {front: True})
    share, left = hidden.unexplained(behind, [], 0.7)
    assert share == 0.0 and (left < 0.9 if elevation < 50 else left == 1.0)
