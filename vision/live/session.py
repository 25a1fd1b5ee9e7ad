"""The live loop, one frame at a time: board tracking, motion gate, cell reading, state
tracking, then the outputs (game record, key frames, event sink, alerts).

:class:`WatchSession` holds all state on the caller's thread and knows nothing about windows
or terminals: :meth:`WatchSession.process` returns what happened in a :class:`FrameResult`, and
the CLI shows it. Reading the cells is the expensive step, so it runs only while the scene is
settling or, on a still scene, every ``reread_s`` to re-check the recorded pieces.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.game.model import Event, Game
from vision.game.record import GameRecorder, find_unfinished, read_record
from vision.geometry.board_view import BoardView
from vision.geometry.camera import Camera, Intrinsics, Pose
from vision.live.alerts import AlertPolicy, EventScheduler
from vision.live.change import ChangeMeasures, measure_change
from vision.live.motion import GateResult, MotionConfig, MotionGate
from vision.live.sources import Frame
from vision.live.tracker import StateTracker, TrackerConfig
from vision.locate.config import TrackerConfig as BoardTrackerConfig
from vision.read.observation import Observation
from vision.rules.board import Cell
from vision.rules.lines import Rules
from vision.rules.pieces import Piece

logger = logging.getLogger(__name__)

Locator = Callable[[NDArray[np.uint8], float], object]  # (frame, t) -> BoardView | BoardNotFound
#: (frame, view, known) -> Observation; ``known``: the pieces the game record holds surely,
#: by cell (``StateTracker.settled_pieces``), which a reader may use or ignore.
Reader = Callable[[NDArray[np.uint8], BoardView, Mapping[Cell, Piece]], Observation]


@dataclass(frozen=True)
class SessionConfig:
    """Knobs of the live loop."""

    #: On a still, settled scene, re-read the cells this often (s) to re-check the record.
    reread_s: float = 0.5
    #: A re-found board whose cells moved less than this (px) is the same view: keep it, so
    #: a search during a hand (low ring support) does not restart the motion reference.
    view_jitter_px: float = 2.0
    #: JPEG quality of the key frame saved per move.
    keyframe_quality: int = 85
    #: The hand-crafted reader fits the set's footprint size and two heights on every
    #: reading of the session (``vision.read.heights.SetMemory``, each still scene counted
    #: once) instead of on each frame alone, so the short/tall calls and the occlusion
    #: layout do not jump between reads of an unchanged board (session 31, fresh game
    #: 1030000). Used by :func:`default_session`. Off: on 78 games it halved those jumps
    #: but moved part-hidden pieces' guesses both ways (exact -1, one false alarm more;
    #: docs/design.md, session 31).
    pool_set_geometry: bool = False
    #: ``watch``'s reader adds the hollow tops' bore-size height evidence near straight above
    #: (``vision.learn.hole_size``, on in ``analyze``). Off: on six dev games at 78-88
    #: degrees (3034950-955) it changed no score, and it cost a still scene's loop about a
    #: quarter of its speed (3034952: 38-45 -> 29-33 frames/s CPU, under the 30 frames/s
    #: the live issue asks for; docs/design.md, session 34 (lead)).
    hole_sizes: bool = False
    #: ``LearnedReaderConfig.hand_height_min_separation_pitch`` for ``watch``'s reader (0:
    #: off, the default; session 37, helper-37h).
    hand_height_min_separation_pitch: float = 0.0
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    motion: MotionConfig = field(default_factory=MotionConfig)
    #: Knobs of :func:`default_session`'s board tracker (``vision.locate.tracker``; e.g.
    #: ``carry_over_bump``), not of the game-state tracker above.
    board_tracker: BoardTrackerConfig = field(default_factory=BoardTrackerConfig)


@dataclass(frozen=True)
class FrameResult:
    """What one frame changed: the events raised (after the alert delay), and the beliefs."""

    events: list[Event]
    view: BoardView | None
    observation: Observation
    gate: GateResult | None
    read: bool


def rotate_view(view: BoardView, quarter_turns: int) -> BoardView:
    """The same physical board with its cell labelling turned by ``quarter_turns`` x 90 deg."""
    a = math.radians(90.0 * (quarter_turns % 4))
    rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0, 0, 1]])
    pose = Pose(view.camera.pose.R @ rz, view.camera.pose.t)
    return BoardView(Camera(view.camera.intrinsics, pose), view.spec, view.calibrated, view.score)


def align_view(
    new: BoardView, old: BoardView | None, ref_centers_px: NDArray[np.float64] | None = None
) -> BoardView:
    """Relabel ``new`` so its cells match ``old``'s in the image, or the (16, 2) cell centres
    ``ref_centers_px`` recorded at the game's start: a found-again board keeps the game's
    labelling (one labelling for a whole game, also across a restart)."""
    if old is None and ref_centers_px is None:
        return new
    ref = old.cell_centers_px() if old is not None else np.asarray(ref_centers_px, float)
    best = min(
        range(4), key=lambda k: float(np.sum((rotate_view(new, k).cell_centers_px() - ref) ** 2))
    )
    return rotate_view(new, best) if best else new


def _moved_px(a: BoardView, b: BoardView) -> float:
    """Largest image displacement of a cell centre between two views of the board."""
    return float(np.max(np.linalg.norm(a.cell_centers_px() - b.cell_centers_px(), axis=1)))


class WatchSession:
    """One ``watch`` run. Feed frames with :meth:`process`; call :meth:`close` at the end.

    Parameters
    ----------
    locator : per-frame board tracking, ``(frame, t) -> BoardView | BoardNotFound``.
    reader : ``(frame, view, known) -> Observation``, ``known`` the pieces the game record
        holds surely (``StateTracker.settled_pieces``): the fused reader judges a new piece's
        colour against what the recorded pieces' two materials look like in this very frame.
    log_dir : where game records and key frames go (None: no record).
    rules, policy, config : the rules in force, the alert policy, the knobs.
    sink : called with every event as it is raised (``--events``, terminal, alerts).
    resume : continue an unfinished game found in ``log_dir``.
    """

    def __init__(
        self,
        locator: Locator,
        reader: Reader,
        *,
        log_dir: Path | None,
        rules: Rules | None = None,
        policy: AlertPolicy | None = None,
        config: SessionConfig | None = None,
        sink: Callable[[Event], None] | None = None,
        source: str | None = None,
        resume: bool = True,
    ) -> None:
        self.locator = locator
        self.reader = reader
        self.log_dir = log_dir
        self.rules = rules or Rules()
        self.config = config or SessionConfig()
        self.scheduler = EventScheduler(policy or AlertPolicy())
        self.sink = sink
        self.source = source
        self.gate = MotionGate(self.config.motion)
        self.view: BoardView | None = None
        self.observation = Observation.empty()
        self.recorder: GameRecorder | None = None
        self.resumed_from: Path | None = None
        self._last_read = -math.inf
        self._raw_view: BoardView | None = None  # the locator's view before relabelling
        self._lost_view: BoardView | None = None  # the last view before the board was lost
        self._resume_centers: NDArray[np.float64] | None = None  # labelling of a resumed game
        self._resume_by_hand: set[Cell] = set()  # cells a resumed game's user corrected
        game = self._resume() if (resume and log_dir is not None) else None
        self.tracker = StateTracker(self.rules, self.config.tracker, game,
                                    by_hand=self._resume_by_hand)

    # -- resume -------------------------------------------------------------------------------
    def _resume(self) -> Game | None:
        assert self.log_dir is not None
        path = find_unfinished(self.log_dir)
        if path is None:
            return None
        record = read_record(path)
        if record.rules != self.rules:
            logger.warning("unfinished game %s has other rules; starting fresh", path.name)
            return None
        game = record.game()
        for event in record.events:  # the corrections made by hand still stand
            if event.get("type") == "correction" and str(event.get("reason")).endswith("by hand"):
                self._resume_by_hand.add(Cell.from_name(str(event["name"])))
            elif event.get("type") == "undo":
                self._resume_by_hand.discard(Cell.from_name(str(event["name"])))
        start = next((e for e in record.events if e.get("type") == "game_start"), None)
        if start and start.get("cells"):
            self._resume_centers = np.array([c["center_px"] for c in start["cells"]], float)
        self.recorder = GameRecorder.resume(path)
        self.resumed_from = path
        logger.info("resuming %s after move %d", path.name, len(game.moves))
        return game

    # -- per frame ----------------------------------------------------------------------------
    def process(self, frame: Frame) -> FrameResult:
        t = frame.t
        image = frame.image
        found = self.locator(image, t)
        if not found:
            if self.view is not None:
                self._lost_view = self.view  # keeps the game's labelling while lost
            self.view = None
            self.observation = Observation.empty()
            self.gate.reset()
            self.tracker.view_moved()
            events = self.tracker.update(self.observation, t, busy=True)
            return FrameResult(self._output(events, t, image), None, self.observation, None, False)
        assert isinstance(found, BoardView)
        if self.view is None or found is not self._raw_view:
            self._raw_view = found
            aligned = align_view(found, self.view or self._lost_view, self._resume_centers)
            if self.view is None or _moved_px(aligned, self.view) > self.config.view_jitter_px:
                if self.view is not None:
                    self.gate.reset()  # the camera or the board moved: new reference
                    self.tracker.view_moved()
                self.view = aligned
        gate = self.gate.update(image, self.view, t)
        read = False
        if gate.busy:
            events = self.tracker.update(Observation.empty(), t, busy=True)
        else:
            if not self.tracker.settled or t - self._last_read >= self.config.reread_s:
                self.observation = self.reader(image, self.view, self.tracker.settled_pieces)
                self._last_read = t
                read = True
            measured = self._change()
            events = self.tracker.update(
                self.observation, t, change=None if measured is None else measured.scores,
                covered=None if measured is None else measured.covered,
                change_map=None if measured is None else measured.map)
            if self.tracker.settled:
                self.gate.rebase()
        return FrameResult(self._output(events, t, image), self.view, self.observation, gate, read)

    def _change(self) -> ChangeMeasures | None:
        """How well a piece on each free cell explains what changed since the settled scene,
        and (when the tracker asks, ``TrackerConfig.hidden_arrival_covered_change``) the
        change under the pieces in front of each free cell, in one pass: measured only on
        the frames that may settle a turn (where its move is decided)."""
        game = self.tracker.game
        changed = self.gate.changed
        if (game is None or not self.tracker.awaiting_move or self.tracker.settled
                or changed is None or self.view is None):
            return None
        standing = {cell: piece.value("height") == "tall" for cell, piece in game.board.items()}
        return measure_change(changed[0], changed[1], self.view, standing,
                              covered=self.tracker.config.hidden_arrival_covered_change,
                              keep_map=self.tracker.config.co_arrival_own_change)

    def undo_last(self, t: float) -> list[Event]:
        """A by-hand correction from the live window: take back the last move (it stays
        taken back while its cell reads as it did; see ``StateTracker.undo_by_hand``)."""
        return self._output(self.tracker.undo_by_hand(t), t, None)

    def correct_last(self, attribute: str, t: float) -> list[Event]:
        """A by-hand correction from the live window: the last move's piece has the other
        value of ``attribute`` (see ``StateTracker.correct_by_hand``)."""
        return self._output(self.tracker.correct_by_hand(attribute, t), t, None)

    def close(self, t: float) -> list[Event]:
        """End of source: raise pending delayed events, close the game and its record."""
        events = self.scheduler.flush() + self.tracker.finish(t)
        out = self._output(events, t, None, scheduled=True)
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        return out

    # -- outputs ------------------------------------------------------------------------------
    def _output(
        self,
        events: list[Event],
        t: float,
        image: NDArray[np.uint8] | None,
        scheduled: bool = False,
    ) -> list[Event]:
        game = self.tracker.game
        if game is not None and any(e.get("type") in ("correction", "undo") for e in events):
            # A Quarto still waiting for its delay whose line the corrected record no longer
            # gives is never heard (it would otherwise be flushed by these very events).
            self.scheduler.keep_only(game.claimable_lines)
        ready = events if scheduled else self.scheduler.push(events, t) + self.scheduler.due(t)
        for event in ready:
            self._record(event, image)
            if self.sink is not None:
                self.sink(event)
        return ready

    def _record(self, event: Event, image: NDArray[np.uint8] | None) -> None:
        if self.log_dir is None:
            return
        if event.get("type") == "game_start":
            if self.recorder is not None:
                self.recorder.close()
            self.recorder = GameRecorder.create(self.log_dir, self.rules, source=self.source)
        if self.recorder is None:
            return
        self.recorder.write(event)
        if event.get("type") == "move" and image is not None:
            folder = self.recorder.path.with_suffix("")
            folder.mkdir(exist_ok=True)
            path = folder / f"move-{int(event['index']):02d}-{event['name']}.jpg"
            cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, self.config.keyframe_quality])
        if event.get("type") == "game_end":
            self.recorder.close()
            self.recorder = None


def default_session(
    *,
    log_dir: Path | None,
    locator: Locator | None = None,
    intrinsics: Intrinsics | None = None,
    rules: Rules | None = None,
    policy: AlertPolicy | None = None,
    sink: Callable[[Event], None] | None = None,
    source: str | None = None,
    resume: bool = True,
    config: SessionConfig | None = None,
) -> WatchSession:
    """A session with the real board tracker (or ``locator``, e.g. a board lock) and the fused
    cell reader: what ``watch`` runs (``config``: the live loop's knobs, default
    :class:`SessionConfig`)."""
    from vision.learn.config import LearnedReaderConfig
    from vision.learn.fuse import read_cells_fused
    from vision.learn.hole_size import HoleSizeConfig
    from vision.learn.reader import PlaneMemory
    from vision.locate.tracker import BoardTracker
    from vision.read.heights import SetMemory

    knobs = config or SessionConfig()
    planes = PlaneMemory()
    heights = SetMemory() if knobs.pool_set_geometry else None
    holes = None if knobs.hole_sizes else HoleSizeConfig(weight=0.0)
    learned = (None if knobs.hand_height_min_separation_pitch == 0 else LearnedReaderConfig(
        hand_height_min_separation_pitch=knobs.hand_height_min_separation_pitch))
    return WatchSession(
        locator or BoardTracker(knobs.board_tracker, intrinsics=intrinsics).update,
        # One set of pieces per session: its top planes are chosen from every reading. The
        # record's pieces anchor the board's colour groups. A top the reader reckons hidden
        # keeps its guess for the record, marked so that no Quarto rests on it alone. With
        # ``pool_set_geometry`` the hand-crafted reader's set geometry (size, heights) is
        # likewise fitted on every reading, so the occlusion layout does not jump between
        # reads of a still scene.
        lambda frame, view, known: read_cells_fused(frame, view, planes=planes, heights=heights,
                                                    known=known, guess_hidden_tops=True,
                                                    hole_size=holes, config=learned),
        log_dir=log_dir,
        rules=rules,
        policy=policy,
        sink=sink,
        source=source,
        resume=resume,
        config=config,
    )


def watch_video(
    path: str | Path,
    *,
    log_dir: Path | None = None,
    start_s: float = 0.0,
    session: WatchSession | None = None,
    config: SessionConfig | None = None,
) -> list[Event]:
    """Run a whole video file through a session (no window) and return every event raised
    (``session`` default: :func:`default_session` with ``config``)."""
    from vision.live.sources import VideoSource

    source = VideoSource(path)
    if start_s > 0:
        source.seek(start_s)
    session = session or default_session(
        log_dir=log_dir, source=source.description, resume=log_dir is not None, config=config
    )
    events: list[Event] = []
    t = 0.0
    try:
        for frame in source:
            t = frame.t
            events += session.process(frame).events
    finally:
        events += session.close(t)
        source.close()
    return events
