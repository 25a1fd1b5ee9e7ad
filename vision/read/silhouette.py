"""Height evidence: where the top of each piece's silhouette is.

For a candidate height ``z`` the far half of the top rim (radius ``F/2`` at height ``z``) is the
upper boundary of the silhouette seen from any camera above the board: just inside it lies the
piece (its top face), just outside it the background. The two vertical side generators (at
``+-F/2`` along ``side``) bound the body below the top. So for each cell and each candidate
height we measure contrasts across the predicted silhouette:

- ``rim``: across the far top rim at ``z`` (peaks at the true height);
- ``side``: across the side generators at ``z`` (high below the true height, low above it);
- ``spread``: how uneven the ring at 0.4 F on the plane ``z`` is (low on a top face).

Contrasts are Lab distances between a sample just inside and one just outside the predicted
edge; the median over the rim points ignores a neighbour that happens to stand behind part of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.read.config import ReaderConfig
from vision.read.geometry import CellFrames, circle_points, project_grid
from vision.read.sampling import LabPatch, lab_distance
from vision.read.stats import median, nanmedian

FloatArray = NDArray[np.float64]

#: Weights of the side-edge drop and of the top ring's unevenness against the rim contrast.
_W_SIDE = 0.5
_W_SPREAD = 1.0


@dataclass(frozen=True)
class HeightProfiles:
    """Edge contrasts (Lab units) per cell (16) and candidate height (K).

    ``rim``, ``side`` and ``spread`` are (16, K); ``side_min`` is the weaker of the two side
    edges, (16, K); ``heights_m`` is (K,).
    """

    heights_m: FloatArray
    rim: FloatArray
    side: FloatArray
    side_min: FloatArray
    spread: FloatArray

    def score(self) -> FloatArray:
        """(16, K) support for each height: rim contrast, plus how much the side contrast drops
        above that height compared with below it, minus the top ring's unevenness."""
        side = self.side
        k = side.shape[1]
        csum = np.cumsum(side, axis=1)
        below = csum / np.arange(1, k + 1)[None, :]
        total = csum[:, -1:]
        n_above = np.arange(k - 1, -1, -1)[None, :]
        above = np.where(n_above > 0, (total - csum) / np.maximum(n_above, 1), 0.0)
        return np.asarray(self.rim + _W_SIDE * (below - above) - _W_SPREAD * self.spread)


def height_profiles(
    view: BoardView, frames: CellFrames, patch: LabPatch, config: ReaderConfig
) -> HeightProfiles:
    """Measure rim, side and top-ring contrasts for every cell and candidate height."""
    f = frames.footprint_m
    heights = np.linspace(config.min_height_f * f, config.max_height_f * f, config.n_heights)
    half = np.radians(config.far_arc_half_angle_deg)
    arc = np.linspace(-half, half, config.n_arc_points)
    r = f / 2.0
    sides = np.array([np.pi / 2.0, -np.pi / 2.0])
    ring = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    j = len(arc)
    # All sample circles at once (one projection): the far rim just inside and just outside
    # the top's edge, the side generators inside and outside (the side generator of a square
    # piece turned 45 degrees lies at 0.71 F: sampled wider), and the ring on the top at 0.4 F.
    angles = np.concatenate([arc, arc, sides, sides, ring])
    radii = np.repeat([r - config.edge_in_offset_f * f, r + config.edge_out_offset_f * f,
                       r - 0.15 * f, 0.75 * f, 0.4 * f], [j, j, 2, 2, len(ring)])
    values, valid = patch.sample(project_grid(view, circle_points(frames, radii, heights,
                                                                  angles)))
    v_rim_in, v_rim_out = values[:, :, :j], values[:, :, j : 2 * j]
    v_side_in, v_side_out = values[:, :, 2 * j : 2 * j + 2], values[:, :, 2 * j + 2 : 2 * j + 4]
    v_band = values[:, :, 2 * j + 4 :]
    ok_rim = valid[:, :, :j] & valid[:, :, j : 2 * j]
    ok_side = valid[:, :, 2 * j : 2 * j + 2] & valid[:, :, 2 * j + 2 : 2 * j + 4]
    d_rim = np.where(ok_rim, lab_distance(v_rim_in, v_rim_out), np.nan)
    d_side = np.where(ok_side, lab_distance(v_side_in, v_side_out), 0.0)
    rim = np.nan_to_num(nanmedian(d_rim, axis=2))  # no rim point in the frame: 0
    band_med = median(v_band, axis=2, keepdims=True)
    spread = median(lab_distance(v_band, band_med), axis=2)
    return HeightProfiles(
        heights,
        rim.astype(np.float64),
        np.mean(d_side, axis=2).astype(np.float64),
        np.min(d_side, axis=2).astype(np.float64),
        spread.astype(np.float64),
    )

