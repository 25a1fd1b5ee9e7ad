"""Reading the pieces: occupancy and the four attributes of every cell.

Entry point: :func:`read_cells` (frame + ``BoardView`` -> ``Observation``), which is
:func:`measure_cells` followed by :func:`observe_cells`; :func:`normalise_exposure` brightens a
frame whose board the camera left dark.
"""

from vision.read.config import ReaderConfig
from vision.read.exposure import ExposureConfig, normalise_exposure
from vision.read.observation import CellReading, Observation
from vision.read.reader import measure_cells, observe_cells, read_cells

__all__ = [
    "CellReading",
    "ExposureConfig",
    "Observation",
    "ReaderConfig",
    "measure_cells",
    "normalise_exposure",
    "observe_cells",
    "read_cells",
]
