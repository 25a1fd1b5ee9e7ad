"""Camera intrinsics from views of a printed chessboard.

:class:`ChessboardCalibrator` collects views one at a time (from image files or a live
camera), reports progress and how well the views cover the image, and solves with
``cv2.calibrateCamera`` once enough views are in.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry.camera import Intrinsics

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChessboardConfig:
    """The printed target and what counts as enough views."""

    #: Inner corners per row and column of the printed chessboard.
    pattern_cols: int = 9
    pattern_rows: int = 6
    #: Side of one square, metres (only scales the reported extrinsics).
    square_m: float = 0.025
    #: Fewest views before solving; 10-20 views from varied angles are typical.
    min_views: int = 8
    #: The image is split into this many cells per side for the coverage figure.
    coverage_grid: int = 4
    #: A new view closer than this share of the image diagonal to an earlier one (mean corner
    #: movement) adds little: skipped when collecting from a live camera.
    min_novelty: float = 0.05

    def __post_init__(self) -> None:
        if self.pattern_cols < 3 or self.pattern_rows < 3:
            raise ValueError("the chessboard needs at least 3x3 inner corners, got "
                             f"{self.pattern_cols}x{self.pattern_rows}")
        if self.square_m <= 0:
            raise ValueError(f"square_m must be positive, got {self.square_m}")
        if self.min_views < 3:
            raise ValueError(f"min_views must be >= 3, got {self.min_views}")


@dataclass(frozen=True)
class CalibrationResult:
    intrinsics: Intrinsics
    rms_px: float
    views: int
    coverage: float


@dataclass
class ChessboardCalibrator:
    """Collect chessboard views and solve for the intrinsics."""

    config: ChessboardConfig = field(default_factory=ChessboardConfig)
    size_wh: tuple[int, int] | None = None
    image_points: list[NDArray[np.float32]] = field(default_factory=list)

    @property
    def views(self) -> int:
        return len(self.image_points)

    def detect(self, image: NDArray[np.uint8]) -> NDArray[np.float32] | None:
        """Sub-pixel inner corners (N, 2) of the chessboard in ``image``, or None."""
        if image.ndim == 3:
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        elif image.ndim == 2:
            gray = image
        else:
            raise ValueError(f"image must be (H, W) or (H, W, 3), got {image.shape}")
        pattern = (self.config.pattern_cols, self.config.pattern_rows)
        flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
        ok, corners = cv2.findChessboardCorners(gray, pattern, flags=flags)
        if not ok:
            return None
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)
        corners = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), crit)
        return corners.reshape(-1, 2).astype(np.float32)

    def add(self, image: NDArray[np.uint8], *, require_novel: bool = False) -> bool:
        """Detect the chessboard and keep the view; False when not found (or not new)."""
        h, w = image.shape[:2]
        if self.size_wh is None:
            self.size_wh = (w, h)
        elif self.size_wh != (w, h):
            raise ValueError(f"all views must have one size: {self.size_wh} then {(w, h)}")
        corners = self.detect(image)
        if corners is None:
            return False
        if require_novel and self.image_points:
            diag = float(np.hypot(w, h))
            moved = min(float(np.mean(np.linalg.norm(corners - p, axis=1)))
                        for p in self.image_points)
            if moved < self.config.min_novelty * diag:
                return False
        self.image_points.append(corners)
        return True

    def coverage(self) -> float:
        """Share of the image's coverage cells that some detected corner falls in (0..1)."""
        if not self.image_points or self.size_wh is None:
            return 0.0
        g = self.config.coverage_grid
        w, h = self.size_wh
        pts = np.vstack(self.image_points)
        ix = np.clip((pts[:, 0] / w * g).astype(int), 0, g - 1)
        iy = np.clip((pts[:, 1] / h * g).astype(int), 0, g - 1)
        return len(set(zip(ix.tolist(), iy.tolist(), strict=True))) / float(g * g)

    def object_points(self) -> NDArray[np.float32]:
        c, r, s = self.config.pattern_cols, self.config.pattern_rows, self.config.square_m
        grid = np.mgrid[0:c, 0:r].T.reshape(-1, 2) * s
        return np.column_stack([grid, np.zeros(len(grid))]).astype(np.float32)

    def solve(self) -> CalibrationResult:
        """Run ``cv2.calibrateCamera`` on the collected views."""
        if self.views < self.config.min_views or self.size_wh is None:
            raise ValueError(f"need at least {self.config.min_views} chessboard views, "
                             f"have {self.views}")
        obj = [self.object_points()] * self.views
        imgs = [p.reshape(-1, 1, 2) for p in self.image_points]
        rms, K, dist, _, _ = cv2.calibrateCamera(obj, imgs, self.size_wh, None, None)
        d = tuple(float(v) for v in np.asarray(dist).ravel()[:5])
        d = d + (0.0,) * (5 - len(d))
        intr = Intrinsics(float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                          self.size_wh, d)
        log.info("calibrated from %d views, rms %.3f px", self.views, rms)
        return CalibrationResult(intr, float(rms), self.views, self.coverage())
