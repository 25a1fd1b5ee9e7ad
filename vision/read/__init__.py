"""Reading the pieces: occupancy and the four attributes of every cell.

Entry point: :func:`read_cells` (frame + ``BoardView`` -> ``Observation``).
"""

from vision.read.config import ReaderConfig
from vision.read.observation import CellReading, Observation
from vision.read.reader import measure_cells, read_cells

__all__ = ["CellReading", "Observation", "ReaderConfig", "measure_cells", "read_cells"]
