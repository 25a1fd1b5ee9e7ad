"""A learned cell reader: a small convolutional network trained only on our seeded renders,
reading each cell through rectified patches in board metres (a camera-facing billboard and
horizontal planes at the board, short-top and tall-top heights) with colours relative to the
board's own.

Entry point: :func:`read_cells_learned` (frame + ``BoardView`` -> ``Observation``), a drop-in
alternative to ``vision.read.read_cells``; :func:`predict_cells` gives the raw per-cell odds;
:func:`read_cells_fused` runs both readers and pools their odds (the most accurate option on
our renders and photoreal_dev).
"""

from vision.learn.cnn import CnnModelError, ConvCellModel, default_cnn, load_cnn
from vision.learn.config import BoardColourConfig, LearnedReaderConfig
from vision.learn.fuse import HAND_LEARNED_WEIGHTS, fuse_observations, read_cells_fused
from vision.learn.patches import PatchConfig
from vision.learn.reader import predict_cells, read_cells_learned

__all__ = [
    "HAND_LEARNED_WEIGHTS",
    "BoardColourConfig",
    "CnnModelError",
    "ConvCellModel",
    "LearnedReaderConfig",
    "PatchConfig",
    "default_cnn",
    "fuse_observations",
    "load_cnn",
    "predict_cells",
    "read_cells_fused",
    "read_cells_learned",
]
