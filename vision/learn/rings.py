"""Rotation-robust summaries of the polar rings sampled around each cell's axis.

Two kinds, both computed per candidate top height:

- ring statistics: per ring radius, the mean colour, the spread of lightness and its angular
  harmonics (1st and 2nd fixed to the camera-facing frame, 4th as an amplitude, so a square
  top reads the same at any yaw);
- edge statistics: for each angle, the radius where the colour changes most between the
  outer rings (the top face's outline), then the mean, spread and harmonics of that outline
  radius. A piece standing off the cell centre mostly shifts the outline's 1st harmonic, while
  a square outline shows in the 4th harmonic whatever its yaw and offset; the mean outline
  radius measured on a plane below or above the true top grows or shrinks with perspective,
  which tells tall from short even from straight above.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Statistics kept per polar ring: mean L, a, b; spread of L; the 1st and 2nd angular harmonics
#: of L as (cosine, sine) parts in the cell's camera-facing frame (a top displaced towards the
#: camera, an elongated view: these do not depend on the piece's yaw); and the amplitude of the
#: 4th harmonic (a square top, whatever its yaw).
RING_STATS = 9
#: Sign each ring statistic takes in the mirror image (angle theta -> pi - theta).
RING_MIRROR_SIGN = np.array([1, 1, 1, 1, -1, 1, 1, -1, 1], dtype=np.float32)


#: Statistics kept per height for the outline: mean and spread of the outline radius, its 1st
#: and 2nd harmonics as (cosine, sine) parts, the amplitude of its 4th harmonic, and the mean
#: edge strength.
EDGE_STATS = 8
#: Sign each outline statistic takes in the mirror image (angle theta -> pi - theta).
EDGE_MIRROR_SIGN = np.array([1, 1, -1, 1, 1, -1, 1, 1], dtype=np.float32)
#: Outlines are searched between rings at least this far from the axis, metres: holes are at
#: most 11 mm in radius, tops at least 13.5 mm.
EDGE_MIN_RADIUS_M = 0.0105
#: Outline radii are expressed in units of this length, metres (about a piece's radius).
_RADIUS_UNIT_M = 0.015


def _harmonics(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1st, 2nd (complex, sine sign flipped so angles grow counter-clockwise) and 4th
    (amplitude) harmonics of (..., A) values along the last axis."""
    spectrum = np.fft.rfft(values, axis=-1) * (2.0 / values.shape[-1])
    return np.conj(spectrum[..., 1]), np.conj(spectrum[..., 2]), np.abs(spectrum[..., 4])


def ring_statistics(rel: np.ndarray, valid: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Rotation-invariant summary of polar rings.

    Parameters
    ----------
    rel : (..., A, 3) relative Lab values around each ring (A points, evenly spaced angles).
    valid : (..., A) False where a point fell outside the frame (its value is ignored).

    Returns
    -------
    (..., RING_STATS): mean L, a, b; standard deviation of L; cosine and sine parts of the 1st
    and 2nd angular harmonics of L; amplitude of the 4th. Angles start on the lateral axis, so
    the 1st and 2nd harmonics are fixed to the view; a yaw of a square piece only shifts the
    phase of its 4th harmonic.
    """
    w = valid.astype(np.float64)
    n = np.maximum(w.sum(axis=-1), 1.0)
    mean = (rel * w[..., None]).sum(axis=-2) / n[..., None]
    centred = (rel[..., 0] - mean[..., 0:1]) * w
    std = np.sqrt((centred**2).sum(axis=-1) / n)
    h1, h2, h4 = _harmonics(centred)
    return np.concatenate(
        [mean, std[..., None], np.stack([h1.real, h1.imag, h2.real, h2.imag, h4], axis=-1)],
        axis=-1,
    )


def edge_statistics(
    rel: np.ndarray, valid: NDArray[np.bool_], radii_m: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Outline statistics of the rings of one height.

    Parameters
    ----------
    rel : (..., Q, A, 3) relative Lab values, Q ring radii (increasing), A angles.
    valid : (..., Q, A) False where a point fell outside the frame.
    radii_m : (Q,) the ring radii.

    Returns
    -------
    (..., EDGE_STATS) statistics of the outline radius r(theta): mean and standard deviation
    (in units of 15 mm), 1st and 2nd harmonics (cosine, sine), 4th harmonic amplitude, and the
    mean edge strength (Lab distance between neighbouring rings, in units of the Lab scale).

    Notes
    -----
    r(theta) is the strength-squared-weighted mean of the mid-radii between neighbouring rings
    beyond ``EDGE_MIN_RADIUS_M``; a step touching an invalid point has no strength.
    """
    radii = np.asarray(radii_m, dtype=np.float64)
    sel = radii >= EDGE_MIN_RADIUS_M
    if sel.sum() < 2:
        raise ValueError("need at least two ring radii beyond the hole for outline statistics")
    r = radii[sel]
    prof = rel[..., sel, :, :]
    ok = valid[..., sel, :]
    step = np.linalg.norm(np.diff(prof, axis=-3), axis=-1) * (ok[..., 1:, :] & ok[..., :-1, :])
    mid = 0.5 * (r[1:] + r[:-1])
    weight = step**2 + 1e-9
    radius = (weight * mid[:, None]).sum(axis=-2) / weight.sum(axis=-2) / _RADIUS_UNIT_M
    strength = step.max(axis=-2)
    mean = radius.mean(axis=-1)
    h1, h2, h4 = _harmonics(radius - mean[..., None])
    return np.stack(
        [mean, radius.std(axis=-1), h1.real, h1.imag, h2.real, h2.imag, h4,
         strength.mean(axis=-1)],
        axis=-1,
    )


#: Sharpness of the choice of the top's height among the candidates: weights grow by e for
#: every 0.1 (Lab scale units) of extra mean edge strength.
_HEIGHT_SHARPNESS = 10.0


def aligned_outline(
    edges: np.ndarray, heights_m: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Outline statistics at the most likely top height, and that height.

    Parameters
    ----------
    edges : (..., H, EDGE_STATS) outline statistics per candidate height.
    heights_m : (H,) the candidate heights; those at the board surface (0) are not tops.

    Returns
    -------
    (..., EDGE_STATS + 1): the statistics averaged over the candidate top heights with weights
    growing with their mean edge strength (the top's rim is the sharpest outline where the
    plane meets the true top), then that weighted height in units of 50 mm.
    """
    h = np.asarray(heights_m, dtype=np.float64)
    tops = h > 0
    e = edges[..., tops, :]
    score = _HEIGHT_SHARPNESS * e[..., -1]
    w = np.exp(score - score.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    stats = (w[..., None] * e).sum(axis=-2)
    height = (w * h[tops]).sum(axis=-1) / 0.05
    return np.concatenate([stats, height[..., None]], axis=-1)
