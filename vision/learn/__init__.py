"""A learned cell reader: a small classifier trained only on our seeded renders, reading each
cell through geometry-normalised samples (a camera-facing billboard and horizontal grids in
board metres) with colours relative to the board's own.

Entry point: :func:`read_cells_learned` (frame + ``BoardView`` -> ``Observation``), a drop-in
alternative to ``vision.read.read_cells``; :func:`predict_cells` gives the raw per-cell odds;
:func:`read_cells_fused` runs both readers and pools their odds (the most accurate option on
our renders and photoreal_dev).
"""

from vision.learn.config import LearnedReaderConfig, SamplingConfig
from vision.learn.fuse import HAND_LEARNED_WEIGHTS, fuse_observations, read_cells_fused
from vision.learn.model import CellModel, ModelError, default_model, load_model
from vision.learn.reader import predict_cells, read_cells_learned

__all__ = [
    "HAND_LEARNED_WEIGHTS",
    "CellModel",
    "LearnedReaderConfig",
    "ModelError",
    "SamplingConfig",
    "default_model",
    "fuse_observations",
    "load_model",
    "predict_cells",
    "read_cells_fused",
    "read_cells_learned",
]
