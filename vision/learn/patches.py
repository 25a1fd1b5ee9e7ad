"""Rectified image patches of every cell, for the convolutional cell classifier.

Each cell is resampled onto four small grids fixed in *board metres* and turned towards the
camera (the frames of ``vision.learn.sampling``), so a piece looks the same to the network
whatever the camera distance, azimuth or resolution:

- a camera-facing "billboard" through the cell centre (columns are lateral offsets, image right
  to the right; rows are heights above the board, top row first): the silhouette, its height
  and the side faces;
- three horizontal planes at the board surface, at a short piece's top and at a tall piece's
  top (columns lateral, rows from far to near, so the camera is always below the patch): seen
  through the camera, the plane at the right height shows the top face sharp and in place, with
  its outline (round or square) and its hole.

The four grids are tiled 2 x 2 into one image per cell. Channels are the CIE Lab difference to
the board's own colour (divided by ``lab_scale``) plus a validity mask (0 outside the frame), so
a lamp, a white balance or another wood shifts board and pieces together. A mirror image of the
scene (columns reversed) is as likely as the scene, which training uses to double the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

from vision.geometry.board_view import BoardView
from vision.io import check_frame
from vision.learn.sampling import (
    CellFrames,
    Pyramid,
    board_colours,
    cell_frames,
    lateral_step_px,
    reference_points_m,
)

FloatArray = NDArray[np.float64]

#: Scalars given to the network beside the patches (in this order).
PATCH_SCALARS: tuple[str, ...] = (
    "local_dL", "local_da", "local_db",  # board around the cell minus the board's median
    "board_L", "board_a", "board_b",  # the board's median colour
    "sin_elevation", "cos_elevation",  # camera elevation seen from the cell
    "log_px_per_cm",  # image resolution at the cell (log2 pixels per lateral centimetre)
)

#: Channels of a patch image: Lab differences to the board, and the in-frame mask.
PATCH_CHANNELS = 4


@dataclass(frozen=True)
class PatchConfig:
    """Where each cell's patches are sampled. Changing a field changes what the network sees:
    the model must then be retrained (the model file stores the configuration)."""

    #: Samples per patch side (3.5 mm apart on the planes: a hole is 4-6 samples across); the
    #: tiled image is twice this on each side.
    size: int = 16
    #: Half width of the billboard, metres: pieces are 27-34 mm across; 36 mm shows both edges
    #: and some of the neighbours' space.
    billboard_half_width_m: float = 0.036
    #: Top of the billboard, metres: tall pieces are 63-71 mm; 105 mm shows what is above them.
    billboard_top_m: float = 0.105
    #: Half width of the horizontal planes, metres: a square top's corner is up to 24 mm out.
    plane_half_width_m: float = 0.026
    #: Heights of the horizontal planes, metres: the board (the piece's foot, the cell ring),
    #: a short top (32-41 mm in the sets we know) and a tall top (62-71 mm).
    plane_heights_m: tuple[float, ...] = (0.0, 0.037, 0.067)
    #: A pyramid level is chosen per cell so that neighbouring plane samples are at least this
    #: many pixels apart (the pyramid's smoothing is the anti-alias filter).
    min_step_px: float = 1.2
    #: Deepest pyramid level used.
    max_level: int = 3
    #: Lab scale: colour differences are divided by this many Lab units (L is 0..100).
    lab_scale: float = 40.0

    def __post_init__(self) -> None:
        if self.size < 8 or self.size % 4:
            raise ValueError(f"size must be a multiple of 4 and at least 8, got {self.size}")
        if len(self.plane_heights_m) != 3 or any(h < 0 for h in self.plane_heights_m):
            raise ValueError(f"plane_heights_m needs 3 heights >= 0, got {self.plane_heights_m}")
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, tuple) and (value < 0 or (f.name != "max_level"
                                                               and value == 0)):
                raise ValueError(f"{f.name} must be positive, got {value!r}")

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["plane_heights_m"] = list(self.plane_heights_m)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> PatchConfig:
        kwargs = dict(d)
        kwargs["plane_heights_m"] = tuple(kwargs["plane_heights_m"])  # type: ignore[arg-type]
        return cls(**kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CellPatches:
    """Patches of the 16 cells of one frame (``ALL_CELLS`` order).

    Attributes
    ----------
    images : (16, PATCH_CHANNELS, 2 * size, 2 * size) float32 tiled patches.
    scalars : (16, len(PATCH_SCALARS)) float32.
    elevation_deg : (16,) camera elevation seen from each cell centre.
    centers_px : (16, 2) cell centres on the board surface, pixels.
    pyramid : the frame's pyramid the patches were sampled from (``cell_patches`` takes it
        back for further patches of the same frame).
    """

    images: NDArray[np.float32]
    scalars: NDArray[np.float32]
    elevation_deg: FloatArray
    centers_px: FloatArray
    pyramid: Pyramid | None = field(default=None, repr=False, compare=False)


def patch_points_m(frames: CellFrames, cfg: PatchConfig) -> FloatArray:
    """(16, 4, size, size, 3) board-metre sample points: billboard, then the three planes."""
    n = cfg.size
    up = np.array([0.0, 0.0, 1.0])
    s = np.linspace(-cfg.billboard_half_width_m, cfg.billboard_half_width_m, n)
    z = np.linspace(cfg.billboard_top_m, 0.0, n)
    q = np.linspace(-cfg.plane_half_width_m, cfg.plane_half_width_m, n)
    out = np.empty((len(frames.centers), 1 + len(cfg.plane_heights_m), n, n, 3))
    # One coordinate at a time (the same sums as on (..., 3) points, whose broadcasts run
    # numpy's loops three values at a time): the billboard c + s lat + z up, then each
    # plane c + q lat - q' tow + h up. Rows of a plane run far -> near (the camera is below
    # the patch), hence "- reversed q".
    for k in range(3):
        c = frames.centers[:, k, None, None]
        lat = frames.lateral[:, k, None, None]
        tow = frames.toward[:, k, None, None]
        out[:, 0, :, :, k] = c + s[None, None, :] * lat + z[None, :, None] * up[k]
        for j, h in enumerate(cfg.plane_heights_m):
            out[:, 1 + j, :, :, k] = (c + q[None, None, :] * lat
                                      - q[None, ::-1, None] * tow + h * up[k])
    return out


def cell_patches(
    frame_bgr: NDArray[np.uint8], view: BoardView, *, config: PatchConfig | None = None,
    cells: Sequence[int] | None = None, pyramid: Pyramid | None = None,
) -> CellPatches:
    """Tiled, board-relative patches of the 16 cells (or of ``cells`` only).

    Parameters
    ----------
    frame_bgr : (H, W, 3) uint8 BGR image.
    view : the board (camera and pose) the cells are read with.
    config : patch layout; must be the one the model was trained with.
    cells : indices (``ALL_CELLS`` order) of the cells wanted, in the order wanted; each
        one's patch is the same as among all 16 (default: all 16).
    pyramid : the ``pyramid`` of earlier patches of this same frame (``CellPatches``): used
        when it holds every point these patches need (the same values as a new one; about
        0.5 ms saved), otherwise a new one is built.

    Raises
    ------
    ValueError
        When ``frame_bgr`` is not an (H, W, 3) uint8 image or ``view`` is not a BoardView.
    """
    cfg = config or PatchConfig()
    if not isinstance(view, BoardView):
        raise ValueError(f"view must be a BoardView, got {type(view).__name__}")
    check_frame(frame_bgr)
    frames = cell_frames(view)
    rows = np.arange(len(frames.centers)) if cells is None else np.asarray(cells, np.int64)
    n, k = cfg.size, len(rows)
    pts_m = patch_points_m(frames, cfg).reshape(len(frames.centers), -1, 3)[rows]
    step_m = 2.0 * cfg.plane_half_width_m / (n - 1)
    step_px = lateral_step_px(view, frames, step_m)
    level = np.floor(np.log2(np.maximum(step_px, 1e-6) / cfg.min_step_px)).astype(np.int64)
    level = np.clip(level, 0, cfg.max_level)
    ref_m, corners = reference_points_m(view)

    n_pts = pts_m.shape[1]
    all_px = view.project(np.vstack([pts_m.reshape(-1, 3), ref_m]))
    # The pyramid is only built around the points that fall in the frame.
    h, w = frame_bgr.shape[:2]
    # Column by column: numpy's reductions over an axis of length 2 cost ten times more.
    px, py = all_px[:, 0], all_px[:, 1]
    inside = (px >= -0.5) & (py >= -0.5) & (px <= w - 0.5) & (py <= h - 0.5)
    window = None
    if inside.any():
        px, py = px[inside], py[inside]
        window = (float(px.min()), float(py.min()), float(px.max()), float(py.max()))
    pyr = pyramid
    if pyr is None or not pyr.covers(frame_bgr, cfg.max_level, window):
        pyr = Pyramid(frame_bgr, cfg.max_level, window_xyxy=window)
    lv = np.concatenate([np.repeat(level[rows], n_pts),
                         np.full(len(ref_m), int(np.median(level)))])
    lab, valid = pyr.sample_lab(all_px, lv)
    cell_lab = lab[: k * n_pts].reshape(k, n_pts, 3)
    cell_valid = valid[: k * n_pts].reshape(k, n_pts)
    if cells is not None and not valid[k * n_pts:].any():
        # No board point between the cells in view: the board's colour falls back on every
        # cell's samples, so the patches of a few cells need those of all 16.
        whole = cell_patches(frame_bgr, view, config=cfg, pyramid=pyr)
        return CellPatches(whole.images[rows], whole.scalars[rows],
                           whole.elevation_deg[rows], whole.centers_px[rows], whole.pyramid)
    board, local = board_colours(lab[k * n_pts:], valid[k * n_pts:], corners[rows], cell_lab,
                                 cell_valid)

    # Channels: the Lab difference from the board's colour (0 where not valid), then the
    # validity. The four grids of a cell are tiled 2x2 (billboard, then the three planes,
    # row by row). Written one channel at a time: the same values as taking (k, P, 3)
    # differences and transposing them, a tenth of the time.
    images = np.empty((k, PATCH_CHANNELS, 2 * n, 2 * n), np.float32)
    tiles = images.reshape(k, PATCH_CHANNELS, 2, n, 2, n)  # (cell, ch, tile row, row, ...)
    invalid = ~cell_valid
    for c in range(PATCH_CHANNELS):
        if c < 3:
            plane = cell_lab[..., c] - board[c]
            plane /= cfg.lab_scale
            plane[invalid] = 0.0
        else:
            plane = cell_valid.astype(np.float32)
        # (cell, tile row, tile column, row, column) -> (cell, tile row, row, tile column,
        # column).
        tiles[:, c] = plane.reshape(k, 2, 2, n, n).transpose(0, 1, 3, 2, 4)
    scalars = np.column_stack([
        (local - board[None, :]) / cfg.lab_scale,
        np.tile([board[0] / 50.0 - 1.0, board[1] / cfg.lab_scale, board[2] / cfg.lab_scale],
                (k, 1)),
        np.sin(frames.elevation_rad[rows]),
        np.cos(frames.elevation_rad[rows]),
        np.log2(np.maximum(step_px[rows] / (100.0 * step_m), 1e-3)) / 4.0,
    ]).astype(np.float32)
    return CellPatches(images, scalars, np.degrees(frames.elevation_rad[rows]),
                       view.project(frames.centers[rows]), pyr)


def mirror_patches(images: NDArray[np.float32]) -> NDArray[np.float32]:
    """The patches of the mirror-image scene: every grid's columns reversed (the tiles keep
    their places, so the two tiles of a row are reversed one by one)."""
    n = images.shape[-1] // 2
    out = images.copy()
    out[..., :n] = images[..., n - 1::-1]
    out[..., n:] = images[..., :n - 1:-1]
    return out
