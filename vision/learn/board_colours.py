"""Light or dark from the colours of all the pieces on one board.

All the light pieces of a set are made of one material and all the dark pieces of another, so
under one light the pieces of one colour look alike, whatever the lamp, the wood or the paint.
A single cell's patch cannot use this: a dark wood piece against an orange table, or a light
piece in a lamp's shadow, looks like the other colour in absolute terms. The other pieces on
the board show what the two materials look like here and now.

For every piece, this module estimates the two materials' colours from the *other* pieces
(each counted in the dark group with the reader's own P(dark), in the light group with the
rest), and asks how much better the dark material than the light one explains the piece's own
measured colour. Each measured part of a piece (its top face, its near side) is a separate
measurement; their evidence adds up. The result is a log-likelihood ratio to add to the
reader's log-odds of dark.

Where the colours of some pieces are already known (in ``watch``, the pieces of the game
record, read over many frames and held to the 16-distinct-pieces rule), they anchor the
groups: such a piece counts wholly in its recorded group, whatever this frame's reader says
of it. A lamp switched on changes every piece's colour together, and the groups are measured
in the same frame, so they stay valid under any light. An anchor that the other pieces' groups
clearly contradict (a piece recorded wrongly) is not trusted and counts as read.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.learn.config import BoardColourConfig
from vision.read.sampling import log_lightness

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def colour_coordinates(lab: FloatArray) -> FloatArray:
    """Lab colours as the model compares them.

    Parameters
    ----------
    lab : (N, 3) CIE Lab colours (L in 0..100).

    Returns
    -------
    (N, 3): lightness as a ratio, ``40 log(L + 10)`` (a dimmer lamp scales every surface's
    light alike; one unit is about one L unit at mid-dark tones), and the chroma ``a``, ``b``
    as they are.

    Raises
    ------
    ValueError
        When ``lab`` is not (N, 3).
    """
    lab = np.asarray(lab, np.float64)
    if lab.ndim != 2 or lab.shape[1] != 3:
        raise ValueError(f"expected (N, 3) Lab colours, got shape {lab.shape}")
    return log_lightness(lab)


def group_evidence(
    x: FloatArray, p_dark: FloatArray, usable: BoolArray, config: BoardColourConfig,
    anchored: BoolArray | None = None,
) -> FloatArray:
    """Log-likelihood ratio (dark vs light) of each piece's colour given the two groups the
    other usable pieces form.

    Parameters
    ----------
    x : (N, d) colour coordinates (:func:`colour_coordinates`); rows with a NaN are unusable.
    p_dark : (N,) the reader's P(dark) of each piece.
    usable : (N,) pieces that take part.
    config : model knobs.
    anchored : (N,) pieces whose ``p_dark`` is known (0 or 1), not read: their weights are
        not kept off 0 and 1 (default: none).

    Returns
    -------
    (N,) evidence, clipped to +- ``max_evidence``; 0 for unusable pieces and where the
    others do not hold ``min_group`` pieces' worth of each colour.

    Notes
    -----
    Each other piece ``j`` counts in the dark group with weight ``p_j`` (its P(dark)) and in
    the light group with ``1 - p_j``. The groups' colours are weighted means; for them the
    weights are kept within ``prior_floor`` of 0 and 1, so no single reading pins a group
    down. The two groups share one spread ``s^2``: the others' scatter around their own
    group's mean (weights ``p_j``, ``1 - p_j`` as read), pooled with ``prior_pieces`` pieces'
    worth of the prior spread ``colour_spread``, over the degrees of freedom left after the
    two means. A group's mean is itself uncertain, so it predicts a new piece with variance
    ``s^2 (1 + 1 / n)`` (``n`` its pieces' worth). The evidence is the difference of the two
    Gaussian log densities at the piece's own colour. Everything is computed leaving the
    piece itself out.
    """
    x = np.asarray(x, np.float64)
    n, d = x.shape
    ok = np.asarray(usable, bool) & np.all(np.isfinite(x), axis=1)
    p = np.clip(np.nan_to_num(np.asarray(p_dark, np.float64), nan=0.5), 0.0, 1.0)
    floored = np.clip(p, config.prior_floor, 1.0 - config.prior_floor)
    if anchored is not None:
        floored = np.where(np.asarray(anchored, bool), p, floored)
    xs = np.where(ok[:, None], x, 0.0)
    sq = (xs ** 2).sum(axis=1)

    def leave_one_out(w: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Per piece: the others' summed weight and weighted sum of colours."""
        w = np.where(ok, w, 0.0)
        return w.sum() - w, (w[:, None] * xs).sum(axis=0)[None, :] - w[:, None] * xs

    groups = []
    for wf, wr in ((floored, p), (1.0 - floored, 1.0 - p)):
        n_f, s_f = leave_one_out(wf)
        mean = s_f / np.maximum(n_f, 1e-9)[:, None]
        # Scatter of the others around this mean, with their weights as read:
        # sum_j w_j |x_j - mu|^2 = sum w |x|^2 - 2 mu . sum w x + |mu|^2 sum w.
        n_r, s_r = leave_one_out(wr)
        w_r = np.where(ok, wr, 0.0)
        second = (w_r * sq).sum() - w_r * sq
        scatter = np.maximum(second - 2.0 * (mean * s_r).sum(axis=1)
                             + n_r * (mean ** 2).sum(axis=1), 0.0)
        groups.append((n_r, mean, scatter))
    (n_d, mu_d, ss_d), (n_l, mu_l, ss_l) = groups
    others = ok.sum() - ok.astype(np.float64)
    dof = np.maximum(others - 2.0, 0.0) + config.prior_pieces
    s2 = (ss_d + ss_l + config.prior_pieces * d * config.colour_spread ** 2) / (d * dof)
    v_d = s2 * (1.0 + 1.0 / np.maximum(n_d, 1e-9))
    v_l = s2 * (1.0 + 1.0 / np.maximum(n_l, 1e-9))
    log_d = -0.5 * ((x - mu_d) ** 2).sum(axis=1) / v_d - 0.5 * d * np.log(v_d)
    log_l = -0.5 * ((x - mu_l) ** 2).sum(axis=1) / v_l - 0.5 * d * np.log(v_l)
    judged = ok & (n_d >= config.min_group) & (n_l >= config.min_group)
    out = np.zeros(n)
    out[judged] = np.clip((log_d - log_l)[judged], -config.max_evidence, config.max_evidence)
    return out


def board_colour_evidence(
    parts: list[FloatArray],
    p_dark: FloatArray,
    usable: BoolArray,
    config: BoardColourConfig | None = None,
    known_dark: FloatArray | None = None,
) -> FloatArray:
    """Log-likelihood ratio (dark vs light) that the other pieces' colours add to each cell.

    Parameters
    ----------
    parts : measured Lab colours, one (N, 3) array per part of a piece (e.g. top face, near
        side); a row of NaN is a part that was not measured.
    p_dark : (N,) the reader's P(dark) of each piece (the soft group labels of the others).
    usable : (N,) pieces that take part (occupied and visible enough).
    config : model knobs.
    known_dark : (N,) 1 for a piece known to be dark, 0 for one known to be light, NaN for
        the rest (default: none known). A known piece counts in its group with weight 1
        instead of its ``p_dark`` unless the groups the *other* pieces form contradict its
        known colour by more than ``config.anchor_doubt`` (summed over the parts): a piece
        recorded wrongly must not pull its group's colour.

    Returns
    -------
    (N,) evidence in natural log-odds (summed over the parts, each clipped); 0 for unusable
    pieces and when the other pieces do not form both groups.

    Raises
    ------
    ValueError
        On arrays of different lengths or a part that is not (N, 3).
    """
    cfg = config or BoardColourConfig()
    p = np.asarray(p_dark, np.float64)
    ok = np.asarray(usable, bool)
    if len(ok) != len(p) or any(len(np.asarray(a)) != len(p) for a in parts):
        raise ValueError(f"parts, p_dark and usable must have one length, got "
                         f"{[len(np.asarray(a)) for a in parts]}, {len(p)}, {len(ok)}")
    coords = [colour_coordinates(lab) for lab in parts]

    def evidence(p_groups: FloatArray, anchored: BoolArray | None) -> FloatArray:
        total = np.zeros(len(p))
        for x in coords:
            total += group_evidence(x, p_groups, ok, cfg, anchored)
        return total

    if known_dark is None:
        return evidence(p, None)
    known = np.asarray(known_dark, np.float64)
    if len(known) != len(p):
        raise ValueError(f"known_dark must have the length of p_dark, got {len(known)}, {len(p)}")
    anchored = np.isfinite(known) & ok
    if not anchored.any():
        return evidence(p, None)
    p_known = np.where(anchored, np.clip(np.nan_to_num(known), 0.0, 1.0), p)
    # Each anchor judged by the groups the others form (itself left out, as always): one the
    # board clearly places in the other group is not trusted, and counts as read.
    check = evidence(p_known, anchored)
    sign = np.where(p_known >= 0.5, 1.0, -1.0)
    trusted = anchored & (sign * check >= -cfg.anchor_doubt)
    if np.array_equal(trusted, anchored):
        return check
    return evidence(np.where(trusted, p_known, p), trusted)
