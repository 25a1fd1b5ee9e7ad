"""Finding the board: candidate rings, grid fit, layout, pose and focal length, tracking.

Public entry points: :func:`find_board` (one frame, no help), :class:`BoardTracker` (a frame
sequence), :func:`view_from_corners` (the manual board lock) and :class:`LocateConfig`.
"""

from vision.locate.config import LocateConfig, TrackerConfig
from vision.locate.finder import find_board
from vision.locate.lock import view_from_corners
from vision.locate.tracker import BoardTracker

__all__ = ["BoardTracker", "LocateConfig", "TrackerConfig", "find_board", "view_from_corners"]
