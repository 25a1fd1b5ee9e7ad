"""StateTracker: turns a stream of per-frame cell readings into game events.

The tracker owns time, and takes the clock as an argument, so a video replay is deterministic
and tests drive it frame by frame. It trusts what the game allows: placed pieces never move,
one piece arrives per turn, each of the 16 pieces exists once. It commits a placement only when
the scene is settled (no hand or motion over the board for ``min_stable_s`` with the same
occupancy) and decodes the new piece from every settled frame, excluding the pieces already
placed. Contradictions raise ``warning`` events, never silent changes. Only the rules core (via
:class:`vision.game.model.Game`) decides what a Quarto is; whether to *announce* it is decided
by how sure the readings are of the line (:mod:`vision.live.linegate`): a line the record
holds but the readings doubt is held with a warning, never shouted. Which newly occupied cells
are moves at all (not a flicker, a doubtful cell or an echo of the piece that arrived) is
decided by :class:`vision.live.arrivals.ArrivalFilter`; the knobs are in
:mod:`vision.live.tracker_config`.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from vision.game.model import Event, Game
from vision.geometry.board_view import BoardView
from vision.live.arrivals import ArrivalFilter, can_echo, differences
from vision.live.change import ChangeMap, CoveredChange, least_visible_shares, sole_explainer
from vision.live.evidence import (
    CellEvidence,
    FlatIn,
    Scored,
    SummedEvidence,
    joint_posteriors,
    line_confidence,
    log_odds,
    own_view_cap,
    readings_from_pieces,
    value_probability,
)
from vision.live.linegate import LineGate
from vision.live.repair import propose_repair, recorded_cell_score
from vision.live.tracker_config import TrackerConfig
from vision.read.observation import Observation
from vision.rules.board import ALL_CELLS, Cell
from vision.rules.lines import Rules
from vision.rules.pieces import ALL_PIECES, ATTRIBUTES, VALUES, Piece, attribute_bit

__all__ = ["StateTracker", "TrackerConfig", "readings_from_pieces"]

logger = logging.getLogger(__name__)


@dataclass
class _Recording:
    """How a recorded cell's piece was recorded: the readings of the settle that committed
    it, when, and the cell's fresh readings since (two separate views of one piece)."""

    readings: CellEvidence
    at: float
    since: CellEvidence
    #: the piece those readings recorded (the record may have been corrected since)
    piece: Piece | None = None
    #: the settles the cell stood occupied before it was recorded, one reading per settle
    #: (see ``StateTracker._unrecorded``); None: recorded in the first settle it stood
    before: CellEvidence | None = None
    #: how much of the piece was in view (visible fraction) when it was recorded
    seen: float = 1.0
    #: how far a point one pitch above the cell moved in the image, in pitches, in the view
    #: that recorded it (:func:`foot_tilt`; None: no view known)
    tilt: float | None = None
    #: the still scene it was recorded in (``StateTracker._scene``): the same while no hand
    #: came and the view did not move
    scene: int = 0
    #: committed in one settle with another move, not the one the image changed on most:
    #: one hand places one piece, so it may be a phantom (``gate_co_arrival_part_view``)
    co_arrival: bool = False


class StateTracker:
    """Feed it one observation per frame with :meth:`update`; it returns the events.

    Parameters
    ----------
    rules : the rules in force.
    config : the knobs; defaults suit 10-30 fps sources.
    game : a game in progress to continue (after a restart); ``None`` waits for an empty board.
    by_hand : cells of ``game`` whose pieces the user set by hand (see
        :meth:`correct_by_hand`).
    """

    def __init__(
        self,
        rules: Rules | None = None,
        config: TrackerConfig | None = None,
        game: Game | None = None,
        *,
        by_hand: Iterable[Cell] = (),
    ) -> None:
        self.rules = rules or Rules()
        self.config = config or TrackerConfig()
        self.game: Game | None = game
        self._window_start: float | None = None
        self._window_frames = 0
        self._pattern: tuple[bool, ...] | None = None
        self._evidence: dict[Cell, CellEvidence] = {}
        # Each cell's readings in the last settle that read it (``gate_reads_against``).
        self._last_settle: dict[Cell, CellEvidence] = {}
        self._missing_since: dict[Cell, float] = {}
        self._warned: set[str] = set()
        self._weak_since: dict[Cell, float] = {}  # newest piece read weakly, since
        self._first_seen: dict[Cell, float] = {}  # new, not yet committed pieces
        #: when each cell was first read occupied in a calm frame (no hand), since last empty:
        #: orders two pieces that arrive in one settle (two turns went by without a settle)
        self._calm_seen: dict[Cell, float] = {}
        self._history: dict[Cell, CellEvidence] = {}  # fresh readings across windows
        #: cells that stood occupied through settles without being recorded (an echo held,
        #: a flicker, a refused cell): each such settle's mean readings, one reading per
        #: settle. Placed pieces never move, so when such a cell is recorded later these are
        #: earlier views of its piece (or of what a neighbour showed there)
        self._unrecorded: dict[Cell, CellEvidence] = {}
        self._window_settled = False  # the present window has settled
        self._arrival_odds: dict[Cell, float] = {}  # pieces that appeared with others
        #: the largest visible fraction each occupied cell was read at in this view (since
        #: the last bump): a correction must not come from a worse view than the record's
        self._clearest: dict[Cell, float] = {}
        #: recorded cells whose piece was a guess when committed (read weakly or in part):
        #: no view of theirs is worth protecting from a correction
        self._guessed: set[Cell] = set()
        #: how each recorded cell's piece was recorded (readings, time, readings since)
        self._recordings: dict[Cell, _Recording] = {}
        #: each corrected cell's piece its last correction replaced, with the recording it
        #: applies to (``TrackerConfig.repair_hold_reversals``)
        self._replaced: dict[Cell, tuple[Piece, _Recording | None]] = {}
        #: reversals proposed and held back: (cell, piece) -> the settle window (its start)
        #: that first proposed it
        self._held_reversals: dict[tuple[Cell, Piece], float] = {}
        self._hand_since_settle = True  # a hand (busy frames) since the last settled frame
        #: the first busy frame since the last settled frame, and whether a hand had come
        #: before it; a busy spell shorter than ``min_hand_s`` is no hand
        self._busy_from: tuple[float, bool] | None = None
        self._in_busy = False
        #: each cell's occupied probability on the last settled frame
        self._settled_occ: dict[Cell, float] = {}
        self._change: Mapping[Cell, float] | None = None  # this frame's change scores
        #: this frame's change under the front pieces' silhouettes (``covered_change``)
        self._covered: Mapping[Cell, CoveredChange] | None = None
        #: this frame's changed mask, when kept (``co_arrival_own_change``)
        self._change_map: ChangeMap | None = None
        #: ``least_visible_shares`` for a view and the record's standing pieces (the last
        #: asked: several cells of one settle ask it)
        self._shares: tuple[BoardView, frozenset[tuple[Cell, bool]], dict[Cell, float]] | None
        self._shares = None
        #: the cell the last hidden arrival took by its rise's uniqueness alone
        #: (``TrackerConfig.hidden_arrival_unique_rise``), for the warning's wording
        self._rise_only: Cell | None = None
        self._echo_seen: tuple[Cell, Cell] | None = None  # (hidden arrival, its echo)
        #: the cell the last hidden arrival took on the change under the front pieces'
        #: silhouettes (``TrackerConfig.hidden_arrival_covered_change``), for the warning
        self._covered_only: Cell | None = None
        #: cells recorded by a hidden arrival: their piece is a guess from no reading. True:
        #: taken on the image's change with little or no reading of its own
        #: (``TrackerConfig.change_arrival_weak``): no line through it is announced
        self._hidden_guess: dict[Cell, bool] = {}
        #: per cell, the attributes some reading gave with their part in view (a value, not
        #: marked ``guessed`` by the reader), since the game started: a line resting on a
        #: value never seen on one of its cells is not announced (``gate_unseen_values``)
        self._seen_in_view: dict[Cell, set[str]] = {}
        #: the pieces of a game continued after a restart: seen before this tracker began
        self._seen_before: set[Cell] = set() if game is None else {
            c for c in ALL_CELLS if game.board[c] is not None}
        self._view_moved = True  # the view moved (bump, board lost) since the last settle
        #: counts the still scenes: one more each time a hand came (a busy spell of
        #: ``min_hand_s`` or more) or the view moved (``gate_guess_still_scene``)
        self._scene = 0
        #: cells whose piece the user set by hand: no reading overrules them
        self._by_hand: set[Cell] = set(by_hand)
        #: cells whose move the user took back: not taken as a move again while they still
        #: read occupied (see :meth:`undo_by_hand`)
        self._refused: set[Cell] = set()
        self._arrivals = ArrivalFilter(self.config)  # flickers, doubtful cells, echoes
        self._last_observation: Observation | None = None
        self._gate = LineGate(self.config.quarto_confidence)
        self._last_t = 0.0
        #: True until a board starts the first game (shown to the user).
        self.waiting_for_empty = game is None
        #: Pieces already on the board when watching begins are taken over as a game in
        #: progress (order unknown) instead of waiting for an empty board.
        self.adopt_on_start = True

    # -- public -------------------------------------------------------------------------------
    @property
    def settled(self) -> bool:
        cfg = self.config
        return (
            self._window_start is not None
            and self._window_frames >= cfg.min_stable_frames
            and self._last_t - self._window_start >= cfg.min_stable_s
        )

    @property
    def awaiting_move(self) -> bool:
        """A hand came and went since the last settled frame, in a game going on: the next
        settle decides the turn's move (what ``update``'s ``change`` is for)."""
        return self._hand_since_settle and self.game is not None and not self.game.over

    @property
    def settled_pieces(self) -> dict[Cell, Piece]:
        """The record's pieces that were read when committed or set by hand (not a guess from
        no reading, a hidden arrival): what the reader may take as known."""
        if self.game is None:
            return {}
        doubtful = self._hidden_guess.keys() - self._by_hand
        return {cell: piece for cell, piece in self.game.board.items() if cell not in doubtful}

    def update(self, observation: Observation, now: float, *, busy: bool = False,
               change: Mapping[Cell, float] | None = None,
               covered: Mapping[Cell, CoveredChange] | None = None,
               change_map: ChangeMap | None = None) -> list[Event]:
        """Advance to source time ``now`` with this frame's reading.

        ``busy`` means a hand or motion over the board (the reading is not trusted). An empty
        observation (no board, or not read this frame) still advances time. ``change`` scores
        each free cell by how well a piece there explains what changed in the image since
        the last settled scene (``vision.live.change.change_scores``; None: not measured);
        ``covered`` the change under the pieces in front of each free cell
        (``vision.live.change.covered_change``; None: not measured); ``change_map`` the
        changed mask itself, kept for ``TrackerConfig.co_arrival_own_change`` (None: not
        kept).
        """
        self._last_t = float(now)
        if busy or not observation:
            if self._busy_from is None:
                self._busy_from = (float(now), self._hand_since_settle)
            self._in_busy = True
            self._hand_since_settle = True
            self._change = None
            self._covered = None
            self._change_map = None
            self._reset_window()
            return []
        if self._in_busy:
            self._in_busy = False
            assert self._busy_from is not None
            start, hand_before = self._busy_from
            if now - start >= self.config.min_hand_s:
                self._scene += 1  # a hand may have moved something: another scene
            if not hand_before and now - start < self.config.min_hand_s:
                # Too brief for a hand to bring a piece and leave: a lamp switched on (every
                # pixel moves for a frame), or the board lost for a frame.
                self._hand_since_settle = False
        self._change = change
        self._covered = covered
        self._change_map = change_map
        pattern = self._occupancy_pattern(observation)
        if pattern != self._pattern:
            self._reset_window()
            self._pattern = pattern
        if self._window_start is None:
            self._window_start = float(now)
        self._window_frames += 1
        for cell, occupied in zip(ALL_CELLS, pattern, strict=True):
            if occupied:
                self._calm_seen.setdefault(cell, float(now))
            else:
                self._calm_seen.pop(cell, None)
        fresh = observation is not self._last_observation  # a new reading, not a repeat
        self._last_observation = observation
        cfg = self.config
        for cell, reading, occupied in zip(ALL_CELLS, observation.cells, pattern, strict=True):
            if not occupied:
                self._clearest.pop(cell, None)
            else:
                self._clearest[cell] = max(self._clearest.get(cell, 0.0), reading.visible_fraction)
                self._seen_in_view.setdefault(cell, set()).update(
                    a for a, p in reading.attribute_probability.items()
                    if p is not None and a not in reading.guessed)
                self._evidence.setdefault(cell, CellEvidence(cfg.evidence_frames)).add(
                    reading, cfg.p_clip
                )
                if fresh:
                    self._history.setdefault(cell, CellEvidence(cfg.history_frames)).add(
                        reading, cfg.p_clip
                    )
                    if cell in self._recordings:
                        self._recordings[cell].since.add(reading, cfg.p_clip)
        if not self.settled:
            return []
        self._window_settled = True
        return self._announce(self._on_settled(observation, float(now)), float(now))

    def correct_by_hand(self, attribute: str, now: float) -> list[Event]:
        """The user says the last move's piece has the other value of ``attribute`` (a key in
        the live window). The piece that has it is recorded instead; if that piece stands on
        another cell, the two cells trade pieces. Both are logged as ``correction`` events
        and are never changed again by a reading (the user sees the pieces; a reading that
        misread a piece once will misread it again). A line the corrected piece completes is
        raised at once, without the readings' line check."""
        game = self.game
        if game is None or game.over or not game.moves:
            return []
        cell = game.moves[-1].cell
        old = game.board[cell]
        assert old is not None
        new = Piece(old.code ^ attribute_bit(attribute))
        changes = {cell: new}
        changes.update({c: old for c, p in game.board.items() if p == new})
        events = game.correct(changes, now, f"{attribute} corrected by hand")
        for changed in changes:
            self._by_hand.add(changed)
            self._guessed.discard(changed)
            self._hidden_guess.pop(changed, None)
        self._gate.keep_only(game.claimable_lines)
        return events

    def undo_by_hand(self, now: float) -> list[Event]:
        """The user takes back the last move (a key in the live window): a piece that is not
        there (a hand or a neighbour read as one), or one that belongs to another turn.

        The cell is then refused as a move while it keeps reading occupied, or the same
        reading would record it again at the next settle. It is taken again once it has been
        seen empty, or when a hand comes and goes and no other cell shows the turn's piece
        (a piece put on it then)."""
        game = self.game
        if game is None or not game.moves or game.result not in (None, "draw"):
            return []
        cell = game.moves[-1].cell
        events = game.undo(now, "undone by hand")
        self._refused.add(cell)
        self._by_hand.discard(cell)
        self._recordings.pop(cell, None)
        self._arrival_odds.pop(cell, None)
        self._guessed.discard(cell)
        self._hidden_guess.pop(cell, None)
        self._gate.keep_only(game.claimable_lines)
        return events

    def view_moved(self) -> None:
        """The camera or the board moved, or the board was lost: several moves may have come
        unseen before the next settle (see ``TrackerConfig.hold_co_arrivals_when_steady``)."""
        self._view_moved = True
        self._clearest.clear()
        self._scene += 1

    def finish(self, now: float) -> list[Event]:
        """The source ended: close the game in progress (``abandoned`` or ``quarto``)."""
        if self.game is None or self.game.over:
            return []
        return self._announce(self.game.end(now), now)

    def line_confidence(self, event: Event) -> float:
        """How sure the readings are of the line of a ``quarto`` event (0..1).

        Every occupied cell gets a posterior over the 16 pieces from its own readings across
        frames, and the posteriors are decoded together (:func:`joint_posteriors`: no piece
        stands on two cells), so a piece read surely on another cell is not a candidate for an
        ambiguous one. The confidence is the probability that the line's four pieces have the
        shared value, times, for pieces that appeared in one settle with others, the chance
        that each is the one piece that arrived then (one piece per turn). The check is there
        to catch a wrong record, so it leans on readings only, never on the recorded pieces:
        excluding those would make the last pieces of a game certain whatever they look like.

        It is the lower of two readings of the board: each cell's readings across settles
        (they remember a piece now hidden) and the present settle's (a piece that changed
        since, say a misread phantom that a real piece later replaced, shows there); a cell
        not read in the present settle counts with its history in both. A line cell's
        probability of the shared value is capped by the settles it stood occupied before it
        was recorded when they lean against it (``gate_unrecorded_views``; and by its own
        views since, ``gate_own_views``).

        A line through a piece taken from the image's change alone, with little or no
        reading of its own (``TrackerConfig.change_arrival_weak``), gets 0: the readings on
        such a cell are mostly of the pieces in front, and its piece was never seen; so does
        a line resting on a value never seen on a cell (``gate_unseen_values``) or never read
        clearly on a guess (``gate_guess_part_view``). Unless the other cells' readings
        leave that value certain (``gate_forced_values``): the line is also judged on the
        board decoded with those readings set aside (:meth:`_forced_confidence`), still from
        readings only, and stands on either.
        """
        game = self.game
        if game is None:
            return 0.0
        line = [Cell(int(r), int(c)) for r, c in event["cells"]]
        forced = self.config.gate_forced_values > 0
        hidden = any(self._hidden_guess.get(cell) for cell in line)
        if hidden and not forced:
            return 0.0  # a piece taken from the image's change, never read: not shouted
        cells = sorted({cell for cell, _ in game.board.items()} | set(line))
        shared = event.get("shared", {})
        if any(self._reads_against(cell, a, value) for cell in line
               for a, value in shared.items()):
            return 0.0  # the camera reads a line cell's value the other way now
        arrival = math.prod(self._arrival_odds.get(cell, 1.0) for cell in line)
        caps: list[dict[str, float]] = [{} for _ in line]
        if self.config.gate_own_views or self.config.gate_unrecorded_views:
            views = [self._capping_views(c) for c in line]
            caps = [{a: own_view_cap(v, a, value) for a, value in shared.items()} for v in views]
        # The values of line cells no reading showed: a piece taken from the image's change,
        # never read, a value never seen, or a guess's value never read clearly. Each
        # counts as 0; with ``gate_forced_values``, the board is read a second way too, with
        # those readings set aside, where each counts as what the other cells' readings
        # leave it when that is certain; the line stands on either.
        unread = {cell: self._unread_values(cell, shared) for cell in line}
        unread_caps = [{**cap, **dict.fromkeys(unread[cell], 0.0)}
                       for cell, cap in zip(line, caps, strict=True)]
        best = math.inf
        for branch in self._line_evidence(cells):
            joint = dict(zip(cells, joint_posteriors(branch), strict=True))
            sure = 0.0 if hidden else line_confidence([joint[c] for c in line], shared,
                                                      unread_caps)
            if forced and any(unread.values()) and all(
                    self._holds_a_piece(cell, event) for cell in line if unread[cell]):
                sure = max(sure, self._forced_confidence(line, cells, branch, shared, unread,
                                                         caps))
            best = min(best, sure)
        return arrival * best

    def _holds_a_piece(self, cell: Cell, event: Event) -> bool:
        """Whether a piece stands on ``cell`` by more than the record's word, as an
        elimination presumes (``gate_forced_values``): a reading showed part of it in view
        (the cell read occupied; or it was recorded before a restart), or it is the move
        that made the line (a hand came and went, and the turn's piece went there). A move
        taken from an old change, never read since, may be a phantom's (fresh low-angle
        1030102: a nudge's change gave b1 a move at 28.0 s; b1 read empty, 0.04 at 0.75 in
        view, until its real piece came at 48.5 s; by elimination its line was shouted at
        46.1 s, before the piece)."""
        if self._co_arrival_unseen(cell):
            return False  # one hand, one piece: this one may be a phantom
        game = self.game
        if game is not None and any(m.cell == cell and m.index == event.get("after_move")
                                    for m in game.moves):
            return True
        if self._hidden_guess.get(cell):
            return False  # its readings are of the pieces in front
        return cell in self._seen_before or bool(self._seen_in_view.get(cell))

    def _forced_confidence(self, line: Sequence[Cell], cells: Sequence[Cell],
                           branch: Sequence[Scored], shared: Mapping[str, str],
                           unread: Mapping[Cell, Sequence[str]],
                           caps: Sequence[Mapping[str, float]]) -> float:
        """The line confidence from the board ``branch`` reads decoded with the readings
        that show nothing of their piece set aside (:meth:`_forced_posteriors`), each unread
        value counting with what the other cells' readings leave it when that is at least
        ``gate_forced_values``, else 0 (``caps``: the line cells' other caps)."""
        joint = self._forced_posteriors(cells, branch, unread)
        forced_caps: list[dict[str, float]] = []
        for cell, cap in zip(line, caps, strict=True):
            forced_caps.append(dict(cap))
            for a in unread[cell]:
                p = value_probability(joint[cell], a, shared[a])
                if p < self.config.gate_forced_values:
                    forced_caps[-1][a] = 0.0  # not left certain: a guess at which piece came
        return line_confidence([joint[c] for c in line], shared, forced_caps)

    def _reads_against(self, cell: Cell, attribute: str, value: str) -> bool:
        """Whether ``cell``'s readings in the present settle (or, while a hand is over the
        board, the last settle that read it) lean against ``value`` of ``attribute`` by
        ``gate_reads_against`` nats or more (never when off), the cell seen about as
        fully as ever (``repair_view_drop``), as :meth:`_own_views` asks."""
        margin = self.config.gate_reads_against
        if margin <= 0.0:
            return False
        evidence = self._evidence.get(cell)
        if evidence is None or not evidence.frames:
            evidence = self._last_settle.get(cell)
        if evidence is None or not evidence.frames:
            return False
        if self._seen_now(cell) < self._clearest.get(cell, 0.0) - self.config.repair_view_drop:
            return False  # a poorer view than the clearest must not deny it (as a repair asks)
        return _leans_to(evidence, attribute, value) <= -margin

    def _unread_values(self, cell: Cell, shared: Mapping[str, str]) -> list[str]:
        """The attributes of ``shared`` that no reading of ``cell``'s piece showed: all of
        them for a piece taken from the image's change alone, else those never seen
        (``gate_unseen_values``) or, on a guess, never read clearly
        (``gate_guess_part_view``)."""
        if self._hidden_guess.get(cell) or self._co_arrival_unseen(cell):
            return list(shared)
        unread = {*self._unseen_values(cell, shared), *self._unclear_guess_values(cell, shared),
                  *self._eliminated_values(cell, shared), *self._echo_values(cell, shared)}
        return [a for a in shared if a in unread]

    def _part_view(self, cell: Cell, recording: _Recording, share: float) -> bool:
        """Whether ``cell``'s piece was seen under ``share`` of it when recorded and now."""
        return share > 0 and max(recording.seen, self._seen_now(cell)) < share

    def _co_arrival_unseen(self, cell: Cell) -> bool:
        """Whether ``cell``'s piece came in one settle with another move, not the one the
        image changed on most, and is seen only in part (``gate_co_arrival_part_view``): one
        hand places one piece, so it may be a phantom, its readings of what stands near."""
        recording = self._recordings.get(cell)
        return (self.config.gate_co_arrival_part_view and cell not in self._by_hand
                and recording is not None and recording.co_arrival
                and self._part_view(cell, recording, self.config.gate_guess_part_view))

    def _echo_values(self, cell: Cell, shared: Mapping[str, str]) -> list[str]:
        """The attributes of ``shared`` that ``cell``'s part view already read so (by
        ``gate_guess_colour_lean`` at least) in the settles it stood occupied unrecorded
        before its piece was recorded (``gate_echo_part_view``): the reading is of what
        stood in front or beside, not of the piece."""
        cfg = self.config
        recording = self._recordings.get(cell)
        if (not cfg.gate_echo_part_view or cell in self._by_hand or recording is None
                or recording.before is None or not recording.before.frames
                or not self._part_view(cell, recording, cfg.gate_guess_part_view)):
            return []
        return [a for a, value in shared.items()
                if _leans_to(recording.before, a, value) >= cfg.gate_guess_colour_lean]

    def _forced_posteriors(self, cells: Sequence[Cell], branch: Sequence[Scored],
                           unread: Mapping[Cell, Sequence[str]]
                           ) -> dict[Cell, dict[Piece, float]]:
        """The posteriors of ``cells``, decoded together from the board ``branch`` reads
        with the readings that show nothing of their piece set aside (a flat likelihood):
        the attributes of ``unread`` on their cells, and wholly every piece taken from the
        image's change alone (its readings are of the pieces in front). An unread value is
        then what the other cells' readings leave (``gate_forced_values``)."""
        flat: list[Scored] = []
        own_view = self.config.gate_forced_own_view
        for cell, evidence in zip(cells, branch, strict=True):
            aside = list(ATTRIBUTES) if self._hidden_guess.get(cell) else unread.get(cell, [])
            recording = self._recordings.get(cell)
            if (aside and recording is not None and cell not in self._by_hand
                    and self._part_view(cell, recording, own_view)):
                # A sliver: its shape, height and top are guesses too (``gate_forced_own_view``).
                aside = [a for a in ATTRIBUTES if a != "color" or a in aside]
            flat.append(FlatIn(evidence, aside) if aside else evidence)
        return dict(zip(cells, joint_posteriors(flat), strict=True))

    def line_unseen(self, event: Event) -> str | None:
        """What of a ``quarto`` event's line the camera never showed, in words for the
        held line's warning (None when every value it rests on was seen): a piece taken
        from the image's change alone, or a shared value left unknown or only guessed on a
        cell (``gate_unseen_values``). Such a line cannot be confirmed from the image, so
        the players are asked to look."""
        line = [Cell(int(r), int(c)) for r, c in event["cells"]]
        for cell in line:
            if self._hidden_guess.get(cell):
                return f"the piece on {cell.name} was never in view"
        for cell in line:
            if self._co_arrival_unseen(cell):
                return (f"the piece on {cell.name} came with another in one hand's turn and "
                        f"was seen only in part: it may not be there")
        shared = event.get("shared", {})
        for cell in line:
            unseen = self._unseen_values(cell, shared)
            if unseen:
                return f"the {' and '.join(unseen)} of the piece on {cell.name} was never in view"
        for cell in line:
            unclear = self._unclear_guess_values(cell, shared)
            if unclear:
                return (f"the piece on {cell.name} was recorded as a guess and its "
                        f"{' and '.join(unclear)} never read clearly")
        for cell in line:
            echoed = self._echo_values(cell, shared)
            if echoed:
                return (f"the {' and '.join(echoed)} of the piece on {cell.name} read so before "
                        f"the piece came there, and it was seen only in part since")
        for cell in line:
            eliminated = self._eliminated_values(cell, shared)
            if eliminated:
                value = " and ".join(shared[a] for a in eliminated)
                guesses = " and ".join(c.name for c in self._rival_guesses(cell, eliminated))
                return (f"the piece on {cell.name} reads {value} only by elimination through "
                        f"the guess on {guesses}")
        return None

    def _eliminated_values(self, cell: Cell, shared: Mapping[str, str]) -> list[str]:
        """The attributes of ``shared`` that ``cell``'s piece, not itself a guess, holds only
        by elimination through a guess (``gate_guess_elimination``): the piece differing
        from it in that attribute alone is the record's guess on another cell, and the
        cell's own readings never showed the value clearly, judged as a guess's are
        (``gate_guess_part_view``). Such a value is held like a guess's."""
        if not self.config.gate_guess_elimination or cell in self._by_hand:
            return []
        recording = self._recordings.get(cell)
        if recording is None or self._counts_as_guess(cell, recording):
            return []  # a guess: held by its own rule
        through = [a for a in shared if self._rival_guesses(cell, [a])]
        if not through:
            return []
        return self._unclear_guess_values(cell, {a: shared[a] for a in through}, as_guess=True)

    def _rival_guesses(self, cell: Cell, attributes: Sequence[str]) -> list[Cell]:
        """The other cells recorded as guesses (read in part, or taken from the image's
        change alone) whose piece is ``cell``'s with one of ``attributes`` flipped."""
        game = self.game
        piece = None if game is None else game.board[cell]
        if game is None or piece is None:
            return []
        rivals = {Piece(piece.code ^ attribute_bit(a)) for a in attributes}
        guesses = (self._guessed | set(self._hidden_guess)) - self._by_hand - {cell}
        return sorted(c for c in guesses if game.board[c] in rivals)

    def _unclear_guess_values(self, cell: Cell, shared: Mapping[str, str],
                              as_guess: bool = False) -> list[str]:
        """The attributes of ``shared`` that a piece recorded as a guess and seen only in
        part never showed clearly (``gate_guess_part_view``): its shape, height or top, when
        the recording settle and the readings since, summed as the line confidence sums them
        (once, if they are one unchanged part view), lean to the value by less than
        ``decision_margin``; and, seen in part or whole, its height at the camera's foot
        unless the recording settle read it (``gate_guess_foot_tilt``). ``as_guess``: judge
        ``cell`` as a guess whether or not it was recorded as one (``_eliminated_values``)."""
        cfg = self.config
        recording = self._recordings.get(cell)
        if (cell in self._by_hand or recording is None
                or not (as_guess or self._counts_as_guess(cell, recording))):
            return []
        seen = self._seen_now(cell)
        foot = self._guess_height_at_foot(cell, recording, shared)
        if (cfg.gate_guess_part_view <= 0
                or max(recording.seen, seen) >= cfg.gate_guess_part_view):
            return ["height"] if foot else []  # seen well enough once: odds as they say
        views = [v for v in (recording.readings, recording.since) if v.frames]
        once = (recording.seen < cfg.min_visible_fraction and seen < cfg.min_visible_fraction
                and abs(seen - recording.seen) <= cfg.repair_view_drop)
        if cfg.gate_guess_still_scene and recording.scene == self._scene:
            once = True  # nothing moved since: the frames since repeat the recording's view
        weight = 1.0 / max(len(views), 1) if once else 1.0
        unclear = []
        parts: tuple[str, ...] = _PART_ATTRIBUTES
        if cfg.gate_guess_shape_as_colour:
            parts = tuple(a for a in parts if a != "shape")  # shows on any band, as colour
        for a, value in shared.items():
            lean = weight * sum(_leans_to(v, a, value) for v in views)
            if a in parts:
                needed = cfg.decision_margin
            elif max(recording.seen, seen) < cfg.gate_guess_colour_view:
                needed = cfg.gate_guess_colour_lean
            else:
                continue
            if lean < needed or (a == "height" and foot):
                unclear.append(a)
        return unclear

    def _guess_height_at_foot(self, cell: Cell, recording: _Recording,
                              shared: Mapping[str, str]) -> bool:
        """Whether a line on the height of ``cell``'s guessed piece rests on readings near
        the camera's foot that never measured it (``gate_guess_foot_tilt``): the cell is at
        the foot in the view that recorded the piece and in the present one, and the
        recording's readings leaned to the line's height by less than ``decision_margin``."""
        limit = self.config.gate_guess_foot_tilt
        if limit <= 0 or "height" not in shared:
            return False
        now = self._tilt_now(cell)
        if recording.tilt is None or now is None or max(recording.tilt, now) >= limit:
            return False
        return _leans_to(recording.readings, "height", shared["height"]) < (
            self.config.decision_margin)

    def _tilt_now(self, cell: Cell) -> float | None:
        """:func:`foot_tilt` of ``cell`` in the latest reading's view (None: no view)."""
        observation = self._last_observation
        view = None if observation is None else observation.board_view
        return None if view is None else foot_tilt(view, cell)

    def _counts_as_guess(self, cell: Cell, recording: _Recording) -> bool:
        """Whether ``cell``'s piece counts as a guess for ``gate_guess_part_view``: it was
        recorded as one, or (``gate_guess_rival_on_guess``) the readings that recorded it
        separate it by less than ``decision_margin`` from a piece the record gave to a
        cell recorded as a guess: its margin rested on that guess (low-angle fresh game
        1031105: a phantom recorded as a guess, later given d4's true piece, left d4's
        misread record looking sure)."""
        if cell in self._guessed:
            return True
        game = self.game
        if not self.config.gate_guess_rival_on_guess or game is None:
            return False
        piece = game.board[cell]
        rivals = [rival for c in self._guessed if c != cell and c not in self._by_hand
                  and (rival := game.board[c]) is not None]
        if piece is None or not rivals:
            return False
        own = recording.readings.score(piece)
        return any(own - recording.readings.score(r) < self.config.decision_margin
                   for r in rivals)

    def _unseen_values(self, cell: Cell, shared: Mapping[str, str]) -> list[str]:
        """The attributes of ``shared`` that no reading of ``cell``'s piece showed in view
        (``gate_unseen_values``; none when that is off); none for a piece recorded before a
        restart (seen then)."""
        if not self.config.gate_unseen_values or cell in self._seen_before:
            return []
        seen = self._seen_in_view.get(cell, set())
        return [a for a in shared if a not in seen]

    def _capping_views(self, cell: Cell) -> list[CellEvidence]:
        """The views of ``cell`` whose dissent caps its share of a line's confidence: its
        own views (``gate_own_views``) and the settles it stood occupied before it was
        recorded (``gate_unrecorded_views``)."""
        views = self._own_views(cell) if self.config.gate_own_views else []
        recording = self._recordings.get(cell)
        if (self.config.gate_unrecorded_views and recording is not None
                and recording.before is not None):
            views.append(recording.before)
        return views

    def _own_views(self, cell: Cell) -> list[CellEvidence]:
        """The separate views of ``cell``'s piece that :func:`own_view_cap` weighs: the
        settle that recorded it (unless the record was corrected since: a correction
        overruled that view), and, while the cell is seen now about as fully as ever in
        this view (as a repair asks, ``repair_view_drop``), its fresh readings since and
        the present settle's. A piece put in front later hides part of a recorded one; that
        poorer view must not deny what a fuller one read (fresh game 1026015: d3 read dark
        when it came, light from behind the pieces put later, and the real "all dark" line
        was held)."""
        views: list[CellEvidence] = []
        recording = self._recordings.get(cell)
        game = self.game
        if recording is not None and game is not None and game.board[cell] == recording.piece:
            views.append(recording.readings)
        present = self._evidence.get(cell)
        if present is None or self._last_observation is None:
            return views
        if self._seen_now(cell) < self._clearest.get(cell, 0.0) - self.config.repair_view_drop:
            return views
        if recording is not None:
            views.append(recording.since)
        elif cell in self._history:
            views.append(self._history[cell])
        views.append(present)
        return views

    def _decoded_boards(self, cells: Sequence[Cell]) -> list[dict[Cell, dict[Piece, float]]]:
        """Each of :meth:`_line_evidence`'s two readings of ``cells``, decoded together
        (:func:`joint_posteriors`): cell -> posterior over the pieces."""
        return [dict(zip(cells, joint_posteriors(branch), strict=True))
                for branch in self._line_evidence(cells)]

    def _line_evidence(self, cells: Sequence[Cell]
                       ) -> list[list[CellEvidence | SummedEvidence]]:
        """The two readings of the board :meth:`line_confidence` takes the lower of."""
        empty = CellEvidence(self.config.evidence_frames)
        if not self.config.gate_counts_recorded:
            return [[first.get(c) or second.get(c) or empty for c in cells]
                    for first, second in ((self._history, self._evidence),
                                          (self._evidence, self._history))]
        across: list[CellEvidence | SummedEvidence] = []
        present: list[CellEvidence | SummedEvidence] = []
        start = self._window_start if self._window_start is not None else math.inf
        for c in cells:
            recording = self._recordings.get(c)
            now = self._evidence.get(c)
            if recording is None:
                # Not recorded by this tracker (taken over mid-game): as without the record.
                across.append(self._history.get(c) or now or empty)
                present.append(now or self._history.get(c) or empty)
                continue
            recorded, since = recording.readings, recording.since
            once = self._one_part_view(c, recording)
            across.append(_views(recorded, since, once=once))
            if recording.at >= start:
                present.append(now or recorded)  # recorded in this settle: one view
            else:
                present.append(_views(recorded, now or since, once=once))
        return [across, present]

    def _one_part_view(self, cell: Cell, recording: _Recording) -> bool:
        """Whether ``cell``'s piece has been seen only in part (under
        ``min_visible_fraction``) when recorded and now, from the same view as it was
        recorded (``gate_part_views_once``)."""
        cfg = self.config
        if not cfg.gate_part_views_once:
            return False
        seen = self._seen_now(cell)
        return (recording.seen < cfg.min_visible_fraction and seen < cfg.min_visible_fraction
                and abs(seen - recording.seen) <= cfg.repair_view_drop)

    # -- internals ----------------------------------------------------------------------------
    def _announce(self, events: list[Event], now: float) -> list[Event]:
        """The record's events with unconfirmed lines held back (and later released), and
        a warning for each line a new move may have made that the record does not hold."""
        # (Pieces taken over mid-game make no Quarto among them; no warning either.)
        events = events + [warning for event in events
                           if event.get("type") == "move" and not event.get("adopted")
                           for warning in self._possible_lines(event, now)]
        out, messages = self._gate.filter(events, self.line_confidence, self.line_unseen)
        if self.game is not None:
            for message in messages:
                out += self.game.warn(now, message)
            if not self.game.over:
                out += self._gate.release(self.line_confidence, now)
        return out

    def _occupancy_pattern(self, observation: Observation) -> tuple[bool, ...]:
        """Which cells read occupied, each within ``occupancy_hysteresis`` of the threshold
        keeping the state it had in the window so far."""
        cfg = self.config
        pattern = []
        for k, reading in enumerate(observation.cells):
            p = reading.occupied_probability
            near = abs(p - cfg.occupied_probability) < cfg.occupancy_hysteresis
            if self._pattern is not None and near:
                pattern.append(self._pattern[k])
            else:
                pattern.append(p >= cfg.occupied_probability)
        return tuple(pattern)

    def _reset_window(self) -> None:
        if self._window_settled and self.game is not None:
            # A settle ends: the cells it read occupied that the record does not hold keep
            # its readings, as one view (the settle's mean).
            board = self.game.board
            for cell, evidence in self._evidence.items():
                means = evidence.read_means()
                if board[cell] is not None or not means:
                    continue
                before = self._unrecorded.get(cell)
                if before is None or _shows_another(before, means):
                    # A piece never changes: a cell that reads otherwise in several
                    # attributes from one settle to the next showed something else before
                    # (a neighbour's echo, then a piece put on it). Only the latest run counts.
                    before = self._unrecorded[cell] = CellEvidence(self.config.history_frames)
                before.add_log_odds(means)
        self._window_settled = False
        self._window_start = None
        self._window_frames = 0
        self._pattern = None
        self._last_settle.update((c, e) for c, e in self._evidence.items() if e.frames)
        self._evidence = {}

    def _on_settled(self, observation: Observation, now: float) -> list[Event]:
        assert self._pattern is not None
        occupied = {cell for cell, occ in zip(ALL_CELLS, self._pattern, strict=True) if occ}
        events: list[Event] = []
        if self.game is None or self.game.over:
            if occupied and (self.game is not None or not self.adopt_on_start):
                return events  # after a game: the next one starts on an empty board
            self.game = Game(self.rules)
            self.waiting_for_empty = False
            self._warned.clear()
            self._new_game_evidence(occupied)
            centers = [r.center_px for r in observation.cells]
            events = self.game.start(now, centers)
            if occupied:
                # Watching began mid-game: take over what stands there, order unknown.
                pieces = self._decode_all(sorted(occupied))
                names = ", ".join(c.name for c, _ in pieces)
                events += self.game.warn(
                    now,
                    f"watching began with {len(pieces)} piece(s) on the board ({names}); "
                    "taken over in an unknown order, no Quarto raised for them",
                )
                events += self.game.adopt(pieces, now)
            return events
        game = self.game
        recorded = {cell for cell, _ in game.board.items()}
        if not occupied and recorded:
            events += game.end(now)
            self.game = Game(self.rules)
            self._warned.clear()
            self._new_game_evidence(occupied)
            self._missing_since.clear()
            self._first_seen.clear()
            self._weak_since.clear()
            events += self.game.start(now, [r.center_px for r in observation.cells])
            return events
        withdrawn = self._withdraw_vanished(observation, recorded - occupied, now)
        if withdrawn:
            events += withdrawn
            recorded = {cell for cell, _ in game.board.items()}
        events += self._check_missing(observation, recorded - occupied, now)
        for cell in [c for c in self._first_seen if c not in occupied]:
            del self._first_seen[cell]  # it went away again: not a placement
            self._weak_since.pop(cell, None)
        self._arrivals.keep_occupied(occupied)
        for cell in [c for c in self._history if c not in occupied | recorded]:
            del self._history[cell]  # seen empty: its readings belong to no piece
        for cell in [c for c in self._unrecorded if c not in occupied]:
            del self._unrecorded[cell]
        self._refused &= occupied  # seen empty: a piece put there later is a move
        # Busy frames came but too briefly for a hand (``min_hand_s``): a lamp, a flick.
        brief = self._busy_from is not None and not self._hand_since_settle
        flickers = set(self._arrivals.flicker)
        unrecorded = sorted(occupied - recorded - self._refused)
        standing = (self._standing_unchanged(unrecorded, flickers)
                    if self.config.standing_phantom_stays_aside else set())
        new_cells = self._arrivals.likely(observation, unrecorded,
                                          hand_since_settle=self._hand_since_settle,
                                          pending=self._first_seen, brief_busy=brief,
                                          standing=standing)
        if self.config.flicker_needs_change:
            new_cells = self._unchanged_flickers(new_cells, flickers)
        if self.config.weak_in_view_needs_change:
            new_cells = self._unchanged_weak(observation, new_cells)
        if self.config.changed_beside_unchanged:
            new_cells = self._changed_beside_unchanged(
                observation, new_cells, occupied - recorded - self._refused)
        if self.config.phantom_arrival_in_front:
            front = self._phantom_in_front(observation, new_cells,
                                           occupied - recorded - self._refused)
            if front is not None:
                self._arrivals.take_set_aside(front)
                new_cells = sorted([*new_cells, front])
        new_cells, echoes, arrival = self._arrivals.one_arrival(
            observation, new_cells, self._log_odds, hand_since_settle=self._hand_since_settle,
            view_steady=not self._view_moved, change=self._change)
        if self.config.co_arrival_own_change:
            unchanged, shown = self._unchanged_co_arrivals(new_cells)
            if unchanged and shown is not None:
                new_cells = [c for c in new_cells if c not in unchanged]
                for cell in unchanged:
                    self._arrivals.held_back[cell] = self._log_odds(cell)
                events += self._not_a_move(
                    unchanged, "unchanged", now,
                    f"read occupied together with {shown.name}, but the image did not change "
                    "there as a piece put there would change it; not taken as a move (one "
                    "piece arrives per turn); re-checked after the next hand")
        if echoes and arrival is not None:
            events += self._not_a_move(
                echoes, "held", now,
                f"looked occupied together with {arrival.name}; not taken as a move (one "
                "piece arrives per turn: a neighbour cell seeing the new piece)")
        if (not new_cells and not echoes and not self._first_seen and self._refused
                and self._hand_since_settle):
            # A hand came and went and nothing else shows the turn's piece: it went on a
            # cell the user had refused (or the hand only hovered; the user can take it back
            # again). One piece per turn: the surest of them.
            cell = max(sorted(self._refused),
                       key=lambda c: observation.reading(c).occupied_probability)
            self._refused.discard(cell)
            new_cells = [cell]
        if not new_cells and not echoes and not self._first_seen:
            set_aside = occupied - recorded - self._refused - set(self._arrivals.held_back)
            hidden, unseen = self._hidden_arrival(observation, occupied | recorded, set_aside)
            withheld = self._arrivals.withheld
            if (hidden is None and withheld is not None and withheld not in occupied | recorded
                    and self._occupancy_rise(observation, withheld) > 0.0):
                # A held echo would have been taken for this hand; the image changed on
                # ``withheld`` alone, and its reading rose: that is where the piece went.
                hidden = withheld
                how = (f", the image changed on {hidden.name} alone and it reads more "
                       "occupied than before, though unsurely")
            elif hidden is not None and self._echo_seen is not None:
                how = (f", the image changed most on {hidden.name}, mostly hidden, and "
                       f"{self._echo_seen[1].name} behind it reads its piece")
            elif hidden is not None and hidden == self._covered_only:
                how = (f" and the image changed only where {hidden.name}'s piece would rise "
                       "above the pieces in front of it")
            elif hidden is not None and hidden == self._rise_only:
                how = (f" and only {hidden.name}, hidden behind other pieces, reads more "
                       "occupied than before (nothing of it in view changed)")
            elif hidden is not None and hidden in set_aside:
                how = (f", the image changed on {hidden.name} alone, which read occupied "
                       "before the hand too (set aside as a neighbour's view or a flicker)")
            elif hidden is not None:
                how = (f" and only {hidden.name} changed, partly hidden behind other pieces "
                       "and read unsurely")
            if hidden is None and self.config.retake_rising_guess:
                events += self._retake_guess(observation, now)
            if hidden is not None:
                events += self._warn_once("hidden:" + hidden.name, now,
                                          f"a hand came and went{how}: taken as the move")
                events += self._place_new([hidden], now, wait=False)
                if self.game.board[hidden] is not None:
                    self._hidden_guess[hidden] = unseen
        elif new_cells:
            events += self._place_new(new_cells, now)
        self._hand_since_settle = False
        self._busy_from = None
        self._view_moved = False
        self._settled_occ = {r.cell: r.occupied_probability for r in observation.cells}
        events += self._recheck(observation, occupied & recorded, now)
        return events

    def _retake_guess(self, observation: Observation, now: float) -> list[Event]:
        """A turn that showed no new cell, and one cell recorded earlier as a hidden guess
        (a hidden arrival, no reading of its own) now reads much more occupied (log-odds up
        by ``hidden_arrival_min_rise``): the piece went there now, so the guess was taken
        a turn early (a nudge's or shadow's change). The guess's move is taken back with
        the moves after it, and those are placed again in order, the guessed cell last: the
        record's order then follows the pieces' (``TrackerConfig.retake_rising_guess``).
        Nothing is done when the re-placed moves would make or unmake a line."""
        game = self.game
        if (game is None or not self.awaiting_move or self._view_moved
                or not self._settled_occ or game.claimable_lines):
            return []
        rising = [c for c in sorted(self._hidden_guess) if game.board[c] is not None
                  and self._occupancy_rise(observation, c) >= self.config.hidden_arrival_min_rise]
        if len(rising) != 1:
            return []
        cell = rising[0]
        index = next(i for i, m in enumerate(game.moves) if m.cell == cell)
        later = game.moves[index + 1:]
        if not later:
            return []  # the guess is the last move: the order stands
        guess = game.moves[index]
        order = [(m.cell, m.piece) for m in later] + [(guess.cell, guess.piece)]
        trial = Game.replay(game.events, self.rules)
        for _ in range(len(later) + 1):
            trial.undo(now)
        for c, p in order:
            made = trial.place(c, p, now)
            if any(e["type"] in ("quarto", "quarto_missed", "game_end") for e in made):
                return []
        events = game.warn(now, f"{cell.name}, recorded as a hidden guess at move "
                                f"{guess.index}, reads occupied anew after this hand: its "
                                "piece came now; the moves since are placed again in order")
        for _ in range(len(later) + 1):
            events += game.undo(now, "re-taken: a hidden guess came a turn early")
        for c, p in order:
            events += game.place(c, p, now)
        self._gate.keep_only(game.claimable_lines)
        return events

    def _take_back_guess(self, cell: Cell, evidence: CellEvidence, best: Piece,
                         now: float) -> tuple[Piece | None, list[Event]]:
        """A new piece on ``cell`` that reads clearly (by ``decision_margin``) as the piece
        guessed for a hidden cell, rather than as ``best`` (the likeliest unplayed piece):
        the guess, made from no reading at all, gives way. The hidden cell is corrected to
        ``best`` (as much a guess as before); returns the piece freed for ``cell``."""
        game = self.game
        assert game is not None
        cells = set(self._hidden_guess)
        if self.config.take_back_unread_guess:
            cells |= {c for c in self._guessed if c not in self._by_hand and self._unread(c)}
        guessed = {p: c for c in sorted(cells) if (p := game.board[c]) is not None}
        if not guessed:
            return None, []
        piece = max(guessed, key=evidence.score)
        if evidence.score(piece) - evidence.score(best) < self.config.decision_margin:
            return None, []
        hidden = guessed[piece]
        events = game.warn(now, f"{cell.name} reads clearly as {piece}, the piece guessed for "
                                f"{hidden.name} (hidden); {hidden.name} now holds a guess, "
                                f"{best}")
        return piece, events + game.correct({hidden: best}, now, _TAKEN_BACK)

    def _unread(self, cell: Cell) -> bool:
        """No attribute of ``cell``'s piece has been read since it was recorded."""
        evidence = self._evidence.get(cell)
        return evidence is None or not any(evidence.log_odds[name] for name in ATTRIBUTES)

    def _trade_with_guess(self, cell: Cell, evidence: CellEvidence, best: Piece,
                          now: float, unplayed: Sequence[Piece] = ()
                          ) -> tuple[Piece | None, Piece | None, list[Event]]:
        """A new piece on ``cell`` that reads more like a piece recorded earlier as a guess
        (read weakly or in part) than like ``best`` (its likeliest unplayed piece), when the
        two cells' readings together say so: this cell's preference for the recorded piece
        outweighs the earlier cell's for it over ``best`` (scored as a repair scores, with the
        readings that recorded the earlier piece). Then the two trade: the earlier cell is
        corrected to ``best`` and the recorded piece is returned for ``cell``.

        No margin is asked beyond the two readings' balance: the earlier piece was a guess,
        so keeping it is no safer than changing it, and this cell must be decided now
        either way. (Otherwise a weak guess pushes the clearer reading to its second choice,
        and the two stay swapped: fresh games 1016003, 1016016.)

        With ``TrackerConfig.trade_guess_own_best`` the earlier cell may instead take any
        of ``unplayed`` (the pieces still free, ``best`` among them), the one its own
        readings prefer, when that makes the exchange better still. Returns the piece for
        ``cell`` and the one given to the earlier cell (None, None: no trade) and the
        events."""
        game = self.game
        assert game is not None
        if not evidence.read_fully:
            return None, None, []

        def earlier(other: Cell, piece: Piece) -> float:
            """``other``'s score as a repair scores it."""
            recorded = self._recordings.get(other)
            return recorded_cell_score(self._evidence[other], piece,
                                       None if recorded is None else recorded.readings,
                                       self.config.repair_recorded_weight)

        offers = [best]
        if self.config.trade_guess_own_best:
            offers += [p for p in unplayed if p != best]
        gain, chosen, given = 0.0, None, best
        for other in sorted(self._guessed - self._hidden_guess.keys()):
            piece, seen = game.board[other], self._evidence.get(other)
            if piece is None or seen is None or not seen.read_fully:
                continue
            for offer in offers:
                here = (evidence.score(piece) - evidence.score(best)
                        + earlier(other, offer) - earlier(other, piece))
                if here > gain:
                    gain, chosen, given = here, other, offer
        if chosen is None:
            return None, None, []
        piece = game.board[chosen]
        assert piece is not None
        if given == best:
            message = (f"{cell.name} reads more like {piece}, recorded as a guess on "
                       f"{chosen.name}, than like {best}: the two trade places")
        else:
            message = (f"{cell.name} reads more like {piece}, recorded as a guess on "
                       f"{chosen.name}, than like {best}: {cell.name} takes it, and "
                       f"{chosen.name} reads more like {given}")
        events = game.warn(now, message)
        events += game.correct({chosen: given}, now, _TRADED)
        self._gate.keep_only(game.claimable_lines)
        return piece, given, events

    def _unchanged_weak(self, observation: Observation, new_cells: list[Cell]) -> list[Cell]:
        """``new_cells`` less those read weakly though mostly in view where the image did
        not change over the turn, which are set aside as doubtful
        (``TrackerConfig.weak_in_view_needs_change``). In view by the reader's share, or
        with ``TrackerConfig.weak_in_view_least_visible`` by the larger of that and the
        share the recorded pieces nearer the camera leave of a piece there."""
        cfg = self.config
        change = self._change
        if not change or not self._hand_since_settle or self._view_moved:
            return new_cells
        least = (self._least_shares(observation) if cfg.weak_in_view_least_visible else None
                 ) or {}
        unchanged = set()
        for cell in new_cells:
            reading = observation.reading(cell)
            shown = max(reading.visible_fraction, least.get(cell, 0.0))
            if (cell not in self._first_seen
                    and shown >= cfg.hidden_arrival_max_visible
                    and reading.occupied_probability < cfg.new_piece_probability
                    and change.get(cell, 0.0) < cfg.change_arrival_min):
                unchanged.add(cell)
        self._arrivals.doubtful |= unchanged
        return [c for c in new_cells if c not in unchanged]

    def _standing_unchanged(self, cells: Sequence[Cell], flickers: set[Cell]) -> set[Cell]:
        """Of ``cells`` (unrecorded, read occupied now), those set aside before this hand
        (``flickers``, or doubtful) that read occupied on the last settle before it and on
        which the image did not change over the turn as a piece there would: neither its
        change score (``change_arrival_min``) nor the change under the pieces in front of it
        (:meth:`_covered_change_behind`). Only after a hand, with the change measured and
        the view steady (``TrackerConfig.standing_phantom_stays_aside``)."""
        cfg = self.config
        change = self._change
        if not change or not self._hand_since_settle or self._view_moved:
            return set()
        aside = flickers | self._arrivals.doubtful
        return {c for c in cells if c in aside and c not in self._first_seen
                and self._settled_occ.get(c, 0.0) >= cfg.occupied_probability
                and change.get(c, 0.0) < cfg.change_arrival_min
                and not self._covered_change_behind(c)}

    def _covered_change_behind(self, cell: Cell) -> bool:
        """Whether the image changed under the pieces in front of ``cell`` as a piece there
        would change it, as :meth:`_covered_arrival` counts it (mostly hidden,
        ``covered_change_min`` of its silhouette, more than on the front silhouettes outside
        it)."""
        under = (self._covered or {}).get(cell)
        return under is not None and self._covers_a_piece(under)

    def _covers_a_piece(self, under: CoveredChange) -> bool:
        """Whether the change under the pieces in front of a mostly hidden cell is as a piece
        there would make it (``covered_change_max_visible``, ``covered_change_min``, and
        more inside its silhouette than on the front silhouettes outside it)."""
        cfg = self.config
        return (under.visible < cfg.covered_change_max_visible
                and under.inside >= cfg.covered_change_min and under.outside < under.inside)

    def _unchanged_flickers(self, new_cells: list[Cell], flickers: set[Cell]) -> list[Cell]:
        """``new_cells`` less the flickers (``flickers``: cells that read occupied before
        this hand with no hand to bring a piece) taken after the hand for reading surely,
        on which the image did not change over the turn as a piece there would change it:
        neither its change score (``change_arrival_min``) nor the change under the pieces
        in front of it, as :meth:`_covered_arrival` counts it (``covered_change_min`` of
        its silhouette, more than on the front silhouettes outside it: a lamp changes
        those along their whole outline); they stay flickers
        (``TrackerConfig.flicker_needs_change``). Only with the change measured and the
        view steady."""
        cfg = self.config
        change = self._change
        if not change or not self._hand_since_settle or self._view_moved:
            return new_cells
        covered = self._covered or {}
        unchanged = set()
        for cell in new_cells:
            under = covered.get(cell)
            behind = (under is not None and under.visible < cfg.covered_change_max_visible
                      and under.inside >= cfg.covered_change_min
                      and under.outside < under.inside)
            if (cell in flickers and cell not in self._first_seen
                    and change.get(cell, 0.0) < cfg.change_arrival_min and not behind):
                unchanged.add(cell)
        self._arrivals.flicker |= unchanged
        return [c for c in new_cells if c not in unchanged]

    def _unchanged_co_arrivals(self, new_cells: list[Cell]) -> tuple[list[Cell], Cell | None]:
        """Of ``new_cells`` (two or more taken in the first settle after a hand, the view
        steady, the changed mask kept), those that read empty on the settled frame before
        the hand and on which the image did not change as a piece put there would change
        it, while it did so on another of them (``TrackerConfig.co_arrival_own_change``);
        and that other cell (the best shown; None when no cell is held). One hand brings
        one piece, and a cell seen empty before it holds no piece of an earlier turn: such
        a cell reads a neighbour's new piece or its shadow."""
        cfg = self.config
        cmap = self._change_map
        none: tuple[list[Cell], Cell | None] = ([], None)
        if (len(new_cells) < 2 or cmap is None or not self._hand_since_settle
                or self._view_moved or not self._settled_occ):
            return none
        own: dict[Cell, tuple[float, float]] = {}
        alone: dict[Cell, float] = {}
        for cell in new_cells:
            own[cell] = cmap.unexplained(cell, [c for c in new_cells if c != cell],
                                         cfg.co_arrival_core)
            alone[cell] = cmap.unexplained(cell, [], cfg.co_arrival_core)[0]
        unchanged = [c for c in new_cells
                     if own[c][1] >= cfg.co_arrival_min_left
                     and own[c][0] < cfg.co_arrival_own_share
                     and self._settled_occ.get(c, 1.0) < cfg.co_arrival_empty_before
                     and c not in self._unrecorded and c not in self._first_seen]
        shown = [c for c in new_cells if c not in unchanged
                 and alone[c] >= cfg.co_arrival_own_share]
        if not unchanged or not shown:
            return none
        arrival = max(shown, key=lambda c: alone[c])
        # ...and the change scores agree: the arrival's silhouette explains the change, the
        # held cell's not half as well (``change_arrival_ratio``; a light piece on a light
        # board changes little of its own silhouette, fresh game 1036015's d3 0.25, but its
        # whole outline: change score 0.38)
        scores = self._change or {}
        bar = cfg.change_arrival_ratio * scores.get(arrival, 0.0)
        unchanged = [c for c in unchanged if scores.get(c, math.inf) < bar]
        return (unchanged, arrival) if unchanged else none

    def _changed_beside_unchanged(self, observation: Observation, new_cells: list[Cell],
                                  unrecorded: set[Cell]) -> list[Cell]:
        """``new_cells`` and the cell set aside as doubtful in this settle (read clearly,
        under ``sure_piece_probability``, beside surer new cells) on which alone the image
        changed over the turn, when none of the surer new cells changed: those are pieces of
        earlier turns whose settles were missed (a lamp, a quick hand), not this hand's
        piece, so the cell is no shadow or half view of it but where this hand's piece went
        (``TrackerConfig.changed_beside_unchanged``)."""
        cfg = self.config
        change = self._change
        if (not new_cells or not change or not self._hand_since_settle or self._view_moved):
            return new_cells
        if any(change.get(c, 0.0) >= cfg.change_arrival_min for c in new_cells):
            return new_cells
        best = sole_explainer(change, cfg.change_arrival_min, cfg.change_arrival_ratio)
        # best changed, so it is none of new_cells (none of which did)
        if (best is None or best not in unrecorded
                or best not in self._arrivals.doubtful or best in self._first_seen
                or observation.reading(best).occupied_probability < cfg.new_piece_probability):
            return new_cells
        self._arrivals.take_set_aside(best)
        return sorted([*new_cells, best])

    def _phantom_in_front(self, observation: Observation, fresh: Sequence[Cell],
                          unrecorded: set[Cell]) -> Cell | None:
        """On the first settle after a hand, with the view steady: the cell set aside as a
        phantom (read occupied on the settle before the hand, a flicker or doubtful) that
        stands in front of a fresh cell, whose piece that cell can see (:func:`can_echo`),
        whose reading rose (``change_arrival_weak_rise``) and which explains the image's
        change at least as well as any fresh cell, and by ``change_arrival_weak_min``: the
        piece went on the phantom, and the cell behind reads it
        (``TrackerConfig.phantom_arrival_in_front``). None when there is no such cell or
        more than one."""
        cfg = self.config
        view = observation.board_view
        change = self._change
        if (not fresh or not change or not self._hand_since_settle or self._view_moved
                or not isinstance(view, BoardView)):
            return None
        aside = self._arrivals.flicker | self._arrivals.doubtful
        best = max(change.get(c, 0.0) for c in fresh)
        found = [c for c in sorted(unrecorded - set(fresh))
                 if c in aside and c not in self._arrivals.held_back
                 and self._settled_occ.get(c, 0.0) >= cfg.occupied_probability
                 and change.get(c, 0.0) >= max(best, cfg.change_arrival_weak_min)
                 and self._occupancy_rise(observation, c) >= cfg.change_arrival_weak_rise
                 and any(can_echo(view, f, c, cfg) for f in fresh)]
        return found[0] if len(found) == 1 else None

    def _hidden_arrival(self, observation: Observation, taken: set[Cell],
                        set_aside: set[Cell]) -> tuple[Cell | None, bool]:
        """The move of a turn that showed none: a hand came and went, no cell reads
        occupied anew, and exactly one free cell, mostly hidden behind other pieces
        (visible fraction below ``hidden_arrival_max_visible``), reads much more likely
        occupied than on the last settled frame before the hand (log-odds up by
        ``hidden_arrival_min_rise``). A piece placed behind others is seen only in part and
        may stay below the occupancy threshold; a hand that only hovered leaves the board's
        readings as they were. Else the cell the image changed on alone
        (:meth:`_changed_arrival`; ``set_aside``: unrecorded cells that read occupied but
        were not taken as moves, which may be it too). Also says whether the cell was taken
        with little or no reading of its own (:meth:`_changed_arrival`'s weak case)."""
        cfg = self.config
        self._rise_only = None
        self._echo_seen = None
        self._covered_only = None
        if not self.awaiting_move or self._view_moved or not self._settled_occ:
            return None, False
        # The reader's own share here, not ``_arrival_visible``'s: a rise with no image change
        # to back it may be a reading drifting near its floor (fresh 1032005: a hand
        # hovering off the board).
        found = [reading.cell for reading in observation.cells
                 if reading.cell not in taken
                 and reading.visible_fraction < cfg.hidden_arrival_max_visible
                 and self._occupancy_rise(observation, reading.cell)
                 >= cfg.hidden_arrival_min_rise]
        if len(found) == 1:
            source = (self._echo_source(observation, found[0], taken)
                      if cfg.hidden_arrival_echo_to_change else None)
            if source is not None:
                self._echo_seen = (source, found[0])
                return source, True
            return found[0], False
        if found:
            return None, False
        cell, weak = self._changed_arrival(observation, taken, set_aside)
        if cell is None and cfg.hidden_arrival_covered_change:
            cell = self._covered_only = self._covered_arrival()
            weak = cell is not None
        if cell is None and cfg.hidden_arrival_unique_rise:
            cell = self._rise_only = self._unique_rise(observation, taken)
            weak = cell is not None
        return cell, weak

    def _echo_source(self, observation: Observation, risen: Cell,
                     taken: set[Cell]) -> Cell | None:
        """The free cell whose piece ``risen`` (the plain hidden arrival's cell) reads, if
        any (``TrackerConfig.hidden_arrival_echo_to_change``): the one the image changed
        on most, by a whole piece's share and more than on ``risen``, mostly hidden, its
        own occupancy risen too, and with ``risen`` able to see a piece on it. A short
        piece straight behind a tall one shows its top above the front piece, over the
        cell behind it in the image, which reads it."""
        cfg = self.config
        change = self._change
        view = observation.board_view
        if not change or not self._hand_since_settle or not isinstance(view, BoardView):
            return None
        free = sorted(c for c in change if c not in taken)
        if not free:
            return None
        best = max(free, key=lambda c: change[c])
        if (best == risen or change[best] < cfg.change_arrival_weak_min
                or change.get(risen, 0.0) >= change[best]
                or self._occupancy_rise(observation, best) < cfg.change_arrival_weak_rise
                or self._arrival_visible(observation, best) >= cfg.hidden_arrival_max_visible
                or not can_echo(view, risen, best, cfg)):
            return None
        return best

    def _covered_arrival(self) -> Cell | None:
        """After a hand, the one unrecorded cell (not refused; it may read occupied as a
        phantom, set aside or held as an echo) mostly hidden behind recorded pieces
        (``covered_change_max_visible``) on which the image changed where the front pieces'
        modelled silhouettes cover its piece's (``covered_change_min`` of its silhouette),
        more than on those silhouettes outside it, while no other such cell changed
        ``change_arrival_ratio`` as much (``TrackerConfig.hidden_arrival_covered_change``).
        The change scores see only a cell's modelled visible part; a short piece behind a
        real tall piece narrower and lower than the model shows its top inside the model's
        front silhouette."""
        cfg = self.config
        if not self._hand_since_settle or not self._covered:
            return None
        found = {c: k.inside for c, k in self._covered.items()
                 if c not in self._refused and self._covers_a_piece(k)}
        if not found:
            return None
        cell = max(sorted(found), key=lambda c: found[c])
        if any(k.inside >= cfg.change_arrival_ratio * found[cell]
               for c, k in self._covered.items() if c != cell and c not in self._refused):
            return None
        return cell

    def _unique_rise(self, observation: Observation, taken: set[Cell]) -> Cell | None:
        """After a hand, the one free cell mostly hidden (the reader's share) whose occupancy
        rose at least ``unique_rise_min`` nats while every other free cell rose less than
        ``unique_rise_ratio`` of that, reading ``unique_rise_level`` or more now
        (``TrackerConfig.hidden_arrival_unique_rise``). A short piece straight behind a tall
        one shows nothing or a sliver, and its shadow falls outside the silhouettes the
        change scores model; the other free cells' readings stay as they were. The image's
        change is not asked: a piece behind others changes the silhouettes of the cells in
        front of it, which read empty in view."""
        cfg = self.config
        if not self._hand_since_settle:
            return None
        free = [r.cell for r in observation.cells if r.cell not in taken]
        rises = {c: self._occupancy_rise(observation, c) for c in free}
        if not rises:
            return None
        cell = max(free, key=lambda c: rises[c])
        rise = rises[cell]
        if (rise < cfg.unique_rise_min
                or any(rises[c] >= cfg.unique_rise_ratio * rise for c in free if c != cell)
                or observation.reading(cell).visible_fraction >= cfg.hidden_arrival_max_visible
                or observation.reading(cell).occupied_probability < cfg.unique_rise_level):
            return None
        return cell

    def _changed_arrival(self, observation: Observation, taken: set[Cell],
                         set_aside: set[Cell]) -> tuple[Cell | None, bool]:
        """The free cell that alone explains what changed in the image over the turn, if its
        occupancy rose too (see ``TrackerConfig.change_arrival_min``). Or, with
        ``change_arrival_weak``, a cell mostly hidden that explains it alone as a whole
        piece would (``change_arrival_weak_min``): free with a smaller rise
        (``change_arrival_weak_rise``), or one of ``set_aside`` (unrecorded cells that read
        occupied before the hand but were not taken as moves: their reading cannot rise);
        returns the cell and whether it was taken so."""
        cfg = self.config
        if not cfg.change_arrival_weak:
            set_aside = set()
        scores = {c: s for c, s in (self._change or {}).items()
                  if c not in taken or c in set_aside}
        best = sole_explainer(self._without_seen_empty_rivals(observation, scores, set_aside),
                              cfg.change_arrival_min, cfg.change_arrival_ratio)
        if best is None:
            return None, False
        rise = self._occupancy_rise(observation, best)
        if best not in set_aside and rise >= cfg.hidden_arrival_min_rise:
            return best, False
        assert self._change is not None
        weak = (cfg.change_arrival_weak
                and self._change[best] >= cfg.change_arrival_weak_min
                and self._arrival_visible(observation, best) < cfg.hidden_arrival_max_visible
                and (best in set_aside or rise >= cfg.change_arrival_weak_rise))
        return (best, True) if weak else (None, False)

    def _without_seen_empty_rivals(self, observation: Observation, scores: dict[Cell, float],
                                   set_aside: set[Cell]) -> dict[Cell, float]:
        """``scores`` (the change scores of the free cells :meth:`_changed_arrival` weighs)
        less the rivals that could not be where the piece went and whose change the leading
        cell's piece accounts for (``TrackerConfig.change_arrival_skip_seen_empty``): a
        piece there would be in view (:meth:`_arrival_visible`), yet the cell reads empty
        and its occupancy did not rise as a hidden piece's does (``hidden_arrival_min_rise``),
        and it can see a piece on the leading cell (:func:`can_echo`), whose change is a
        whole piece's (``change_arrival_weak_min``). Cells set aside before the hand are
        never left out, nor any without a board view."""
        cfg = self.config
        view = observation.board_view
        if not cfg.change_arrival_skip_seen_empty or not isinstance(view, BoardView):
            return scores
        rivals = {c for c in scores if c not in set_aside
                  and observation.reading(c).occupied_probability < cfg.occupied_probability
                  and self._occupancy_rise(observation, c) < cfg.hidden_arrival_min_rise
                  and self._arrival_visible(observation, c) >= cfg.hidden_arrival_max_visible}
        others = [c for c in scores if c not in rivals]
        if not rivals or not others:
            return scores
        lead = max(others, key=lambda c: scores[c])
        if scores[lead] < cfg.change_arrival_weak_min:
            return scores
        return {c: s for c, s in scores.items()
                if c not in rivals or not can_echo(view, c, lead, cfg)}

    def _arrival_visible(self, observation: Observation, cell: Cell) -> float:
        """How much of a piece arriving on the free ``cell`` would be in view, as the weak
        change arrival tests it: the reader's share, or with
        ``TrackerConfig.hidden_arrival_least_visible`` the smaller of that and the share the
        recorded pieces nearer the camera leave of a piece of either height there."""
        seen = observation.reading(cell).visible_fraction
        least = (self._least_shares(observation) if self.config.hidden_arrival_least_visible
                 else None)
        return seen if least is None else min(seen, least.get(cell, seen))

    def _least_shares(self, observation: Observation) -> dict[Cell, float] | None:
        """``least_visible_shares`` of the free cells behind the record's standing pieces in
        ``observation``'s view (None without a game or a board view), computed once per view
        and record."""
        view = observation.board_view
        if self.game is None or not isinstance(view, BoardView):
            return None
        standing = {c: p.value("height") == "tall" for c, p in self.game.board.items()}
        key = frozenset(standing.items())
        if self._shares is None or self._shares[0] is not view or self._shares[1] != key:
            self._shares = (view, key, least_visible_shares(view, standing))
        return self._shares[2]

    def _occupancy_rise(self, observation: Observation, cell: Cell) -> float:
        """How much ``cell``'s occupancy log-odds rose since the last settled frame
        (-inf when that frame did not read it)."""
        before = self._settled_occ.get(cell)
        if before is None:
            return -math.inf
        now = observation.reading(cell).occupied_probability
        return log_odds(now, 1e-3) - log_odds(before, 1e-3)

    def _views_before(self, cell: Cell, recording: CellEvidence) -> CellEvidence | None:
        """The settles ``cell`` stood occupied unrecorded before ``recording`` recorded its
        piece, when they show the same thing (see :func:`_shows_another`)."""
        before = self._unrecorded.pop(cell, None)
        if before is None or _shows_another(before, recording.read_means()):
            return None
        return before

    def _seen_now(self, cell: Cell) -> float:
        """How much of ``cell``'s piece the latest reading sees (visible fraction)."""
        observation = self._last_observation
        return 1.0 if not observation else observation.reading(cell).visible_fraction

    def _log_odds(self, cell: Cell) -> dict[str, float]:
        """Mean log-odds of each attribute read on ``cell`` in this settle (absent: unread)."""
        evidence = self._evidence.get(cell)
        return {} if evidence is None else evidence.read_means()

    def _new_game_evidence(self, occupied: set[Cell]) -> None:
        """A game starts: only the pieces standing now keep their readings."""
        self._by_hand.clear()
        self._refused.clear()
        self._guessed.clear()
        self._recordings.clear()
        self._replaced.clear()
        self._held_reversals.clear()
        self._hidden_guess.clear()
        self._seen_before.clear()
        self._last_settle.clear()
        self._seen_in_view = {c: a for c, a in self._seen_in_view.items() if c in occupied}
        self._history = {c: e for c, e in self._history.items() if c in occupied}
        self._unrecorded = {c: e for c, e in self._unrecorded.items() if c in occupied}
        self._arrival_odds.clear()
        self._arrivals.clear()
        self._gate.clear()
        self._calm_seen = {c: t for c, t in self._calm_seen.items() if c in occupied}

    def _decode_all(self, cells: Sequence[Cell]) -> list[tuple[Cell, Piece]]:
        """Distinct pieces for ``cells`` from their evidence, greedily by best margin."""
        free = list(ALL_PIECES)
        out: list[tuple[Cell, Piece]] = []
        for cell in cells:
            evidence = self._evidence.get(cell) or CellEvidence(self.config.evidence_frames)
            best = max(free, key=evidence.score)
            free.remove(best)
            out.append((cell, best))
        return out

    def _place_new(self, new_cells: Sequence[Cell], now: float, *,
                   wait: bool = True) -> list[Event]:
        """Commit the pieces on ``new_cells`` in the order they first appeared (first read
        occupied in a frame with no hand; two pieces first seen in the same frame are in an
        order that is a guess, with a warning).

        A piece that cannot be read surely waits while it is the newest, for ``weak_commit_s``
        at most, and is then committed with its likeliest reading and a warning naming the
        cell (also at once when a later piece arrives, so the move order stays right).
        ``wait=False`` commits at once (a piece that will not read better: hidden).
        """
        game = self.game
        assert game is not None
        events: list[Event] = []
        for cell in new_cells:
            # Seen standing in a calm moment before this settle (between two hands): that
            # is when it arrived.
            self._first_seen.setdefault(cell, self._calm_seen.get(cell, now))
        ordered = sorted(new_cells, key=lambda c: (self._first_seen[c], c))
        unplayed = game.board.unplayed()
        same_time = [c for c in ordered if self._first_seen[c] == self._first_seen[ordered[-1]]]
        if len(same_time) > 1:
            names = ", ".join(c.name for c in same_time)
            events += self._warn_once(
                "multi:" + names,
                now,
                f"{len(same_time)} pieces appeared at once ({names}); their order is a guess",
            )
        group_size = Counter(self._first_seen[c] for c in ordered)
        doubtful: set[Cell] = set()
        if self.config.gate_co_arrival_part_view and len(ordered) > 1:
            # One hand places one piece: of moves committed in one settle, the one the image
            # changed on most is the hand's; the others may be phantoms.
            change = self._change or {}
            hands = max(ordered, key=lambda c: change.get(c, 0.0)) if change else None
            doubtful = {c for c in ordered if c != hands}
        for i, cell in enumerate(ordered):
            newest = i == len(ordered) - 1
            evidence = self._evidence.get(cell) or CellEvidence(self.config.evidence_frames)
            ranked = sorted(unplayed, key=evidence.score, reverse=True)
            if not ranked:
                events += self._warn_once(
                    f"full:{cell.name}", now, f"a 17th piece seen on {cell.name}; ignored"
                )
                continue
            best = ranked[0]
            margin = evidence.score(best) - evidence.score(ranked[1]) if len(ranked) > 1 else 1e9
            swapped, swap_events = self._take_back_guess(cell, evidence, best, now)
            if swapped is not None:
                # The piece read here was the guess on a hidden cell; that cell now holds
                # ``best``, and this cell takes the piece it read.
                events += swap_events
                unplayed.remove(best)
                unplayed.append(swapped)
                best, margin = swapped, math.inf
            if margin < self.config.decision_margin and newest and len(same_time) == 1 and wait:
                since = self._weak_since.setdefault(cell, now)
                if now - since < self.config.weak_commit_s:
                    continue
            self._weak_since.pop(cell, None)
            traded, given, trade_events = self._trade_with_guess(cell, evidence, best, now,
                                                                 unplayed)
            if traded is not None:
                assert given is not None
                events += trade_events
                unplayed.remove(given)
                unplayed.append(traded)
                best, margin = traded, evidence.score(traded) - evidence.score(best)
            unseen = [name for name in ATTRIBUTES if not evidence.log_odds[name]]
            if unseen:
                events += self._warn_once(
                    f"unseen:{cell.name}",
                    now,
                    f"new piece on {cell.name}: {' and '.join(unseen)} not seen (hidden?); "
                    f"recorded the likeliest unplayed piece, {best}; re-checked when visible",
                )
            # A later move is committed: pieces of earlier settles have been seen standing
            # through a new settle, so they are real; only the newest arrivals stay in doubt.
            for old in [c for c in self._arrival_odds if c not in ordered]:
                del self._arrival_odds[old]
            together = group_size[self._first_seen.pop(cell)]
            if margin < self.config.decision_margin or unseen:
                self._guessed.add(cell)
            if margin < self.config.decision_margin and not unseen:
                events += self._warn_once(
                    f"guess:{cell.name}",
                    now,
                    f"piece on {cell.name} only partly read; recorded the likeliest, {best}",
                )
            if together > 1:
                # Exactly one piece arrives per turn: of pieces that appeared in one settle,
                # each is the one that arrived with probability 1/k (the others are a
                # reader's phantom, or a move whose settle was missed).
                self._arrival_odds[cell] = 1.0 / together
            # The cell's history starts with the readings that recorded its piece: what it
            # held before (a neighbour's echo, a phantom, a hand) was not this piece.
            self._history[cell] = evidence.copy(self.config.history_frames)
            self._recordings[cell] = _Recording(
                evidence.copy(), now, CellEvidence(self.config.history_frames), best,
                before=self._views_before(cell, evidence),
                seen=self._seen_now(cell), tilt=self._tilt_now(cell), scene=self._scene,
                co_arrival=cell in doubtful)
            events += game.place(cell, best, now)
            unplayed.remove(best)
        return events

    def _withdraw_vanished(self, observation: Observation, gone: set[Cell],
                           now: float) -> list[Event]:
        """Take back the last move when its piece is gone after a hand came and went.

        Placed pieces never move, so the last recorded piece read clearly empty on a cell in
        view, on the first settle after a hand, was never a piece: a hand that stood still
        over the board (a hover) read as one, or a piece put down and picked up again in the
        same turn. The move is withdrawn (an ``undo`` event, with a warning), so that the
        turn's real move takes its place and the moves after it keep their turns.

        A move taken from a turn that showed no new piece (a hidden arrival) is never
        withdrawn so: its cell did not read occupied when it was taken either."""
        game = self.game
        cfg = self.config
        if (game is None or not game.moves or not self._hand_since_settle
                or cfg.vanished_max_occupied <= 0.0):
            return []
        last = game.moves[-1]
        if last.cell not in gone or last.cell in self._hidden_guess:
            return []
        reading = observation.reading(last.cell)
        if (reading.visible_fraction < cfg.min_visible_fraction
                or reading.occupied_probability > cfg.vanished_max_occupied):
            return []
        # (A game over never gets here: the tracker starts the next one first.)
        events = game.warn(
            now,
            f"the piece recorded on {last.cell.name} ({last.piece}) is gone: a hand was "
            "read as a piece, or the piece was taken back; move withdrawn",
        )
        events += game.undo(now, "gone after a hand came and went")
        # What a later piece on this cell must not inherit. (Its history, clearest view and
        # missing-piece timer clear themselves once the cell is neither recorded nor read
        # occupied.)
        self._recordings.pop(last.cell, None)
        self._arrival_odds.pop(last.cell, None)
        self._guessed.discard(last.cell)
        self._hidden_guess.pop(last.cell, None)
        self._gate.keep_only(game.claimable_lines)
        return events

    def _check_missing(self, observation: Observation, gone: set[Cell], now: float) -> list[Event]:
        events: list[Event] = []
        for cell in list(self._missing_since):
            if cell not in gone:
                del self._missing_since[cell]
        for cell in gone:
            reading = observation.reading(cell)
            if reading.visible_fraction < self.config.min_visible_fraction:
                continue  # hidden behind another piece: not seeing it is expected
            since = self._missing_since.setdefault(cell, now)
            if now - since >= self.config.missing_warn_s:
                piece = self.game.board[cell] if self.game else None
                events += self._warn_once(
                    f"missing:{cell.name}",
                    now,
                    f"piece {piece} on {cell.name} is not seen; kept the recorded piece",
                )
        return events

    def _recheck(self, observation: Observation, cells: set[Cell], now: float) -> list[Event]:
        game = self.game
        assert game is not None
        events: list[Event] = []
        if self._window_start is None or now - self._window_start < self.config.recheck_s:
            return events
        events += self._repair(observation, cells, now)
        for cell in sorted(cells - self._by_hand):
            recorded = game.board[cell]
            evidence = self._evidence.get(cell)
            if recorded is None or evidence is None:
                continue
            best = max(ALL_PIECES, key=evidence.score)
            if best == recorded:
                continue
            reading = observation.reading(cell)
            if reading.visible_fraction < self.config.min_visible_fraction:
                continue
            if _probability_of(evidence, best, recorded) < self.config.recheck_confidence:
                continue
            events += self._warn_once(
                f"changed:{cell.name}:{best.code}",
                now,
                f"piece at {cell.name} reads as {best}; kept the recorded {recorded}",
            )
        return events

    def _repair(self, observation: Observation, cells: set[Cell], now: float) -> list[Event]:
        """Correct the record where the recorded cells, decoded together from their present
        readings, clearly name other pieces (:mod:`vision.live.repair`).

        Only cells seen now about as fully as ever in this view take part: a piece placed
        in front later hides part of a recorded one, and that poorer view must not overturn
        what a fuller one read clearly (others keep their pieces, which stay taken). A piece
        recorded as a guess (read weakly or in part) takes part from any view. With
        ``repair_waits_for_pending`` nothing is corrected while a new piece waits to be
        committed (it is still among the unplayed pieces the decode hands out)."""
        game = self.game
        cfg = self.config
        if game is None or game.over or cfg.repair_confidence >= 1.0:
            return []
        if cfg.repair_waits_for_pending and self._first_seen:
            return []  # a piece waits to be committed: the unplayed pieces are not known
        visible = {}
        for cell in cells:
            seen = observation.reading(cell).visible_fraction
            as_full = seen >= self._clearest.get(cell, 0.0) - cfg.repair_view_drop
            if (cell in self._evidence and seen >= cfg.min_visible_fraction
                    and (as_full or cell in self._guessed) and cell not in self._by_hand):
                visible[cell] = self._evidence[cell]
        record = dict(game.board.items())
        p = cfg.repair_confidence
        repair = propose_repair(record, visible, min_gain=math.log(p / (1.0 - p)),
                                max_cells=cfg.repair_max_cells,
                                recorded_by={c: r.readings for c, r in self._recordings.items()},
                                recorded_weight=cfg.repair_recorded_weight)
        if repair is None:
            return []
        if cfg.repair_hold_reversals and self._hold_reversal(repair.changes):
            return []
        for cell in repair.changes:
            self._replaced[cell] = (record[cell], self._recordings.get(cell))
        what = "; ".join(f"{cell.name} reads as {piece}, recorded {record[cell]}"
                         for cell, piece in sorted(repair.changes.items()))
        sure = 1.0 / (1.0 + math.exp(-min(repair.gain, 50.0)))
        events = game.warn(
            now, f"the board contradicts the record ({what}): corrected (confidence {sure:.3f})"
        )
        events += game.correct(repair.changes, now, "re-read on a settled view")
        self._gate.keep_only(game.claimable_lines)
        return events

    def _hold_reversal(self, changes: Mapping[Cell, Piece]) -> bool:
        """Whether to hold back a proposed correction that gives a cell back the piece its
        last correction replaced: it goes ahead only once every such cell's reversal was
        also proposed in an earlier settle window (``repair_hold_reversals``)."""
        window = self._window_start
        assert window is not None
        reversals = []
        for cell, piece in changes.items():
            replaced = self._replaced.get(cell)
            if (replaced is not None and replaced[0] == piece
                    and replaced[1] is self._recordings.get(cell)):
                reversals.append((cell, piece))
        if all(self._held_reversals.get(key, window) < window for key in reversals):
            for key in reversals:
                del self._held_reversals[key]
            return False
        for key in reversals:
            self._held_reversals.setdefault(key, window)
        return True

    def _possible_lines(self, move: Event, now: float) -> list[Event]:
        """Warnings for the complete lines through ``move``'s cell that the record does not
        make a Quarto but the readings do with at least ``possible_line_warning``.

        The record holds each guessed piece as its likeliest unplayed reading, one cell at a
        time; the readings of all the occupied cells decoded together
        (:meth:`_decoded_boards`, the lower of the two readings, as :meth:`line_confidence`
        takes it) can lean to another piece there, one that completes a line. Such a line
        is never announced (the record decides what is shouted), but the players are told
        where to look before the turn ends."""
        game = self.game
        threshold = self.config.possible_line_warning
        if game is None or threshold <= 0.0:
            return []
        cell = Cell(int(move["row"]), int(move["col"]))
        board = game.board
        made = {quarto.line for quarto in self.rules.lines_created(board, cell)}
        lines = [line for line in self.rules.lines_through(cell)
                 if line not in made and all(board[c] is not None for c in line.cells)]
        if not lines:
            return []
        boards = self._decoded_boards(sorted(c for c, _ in board.items()))
        events: list[Event] = []
        for line in lines:
            p, attribute, value = max(
                (min(line_confidence([joint[c] for c in line.cells], {a: v})
                     for joint in boards), a, v)
                for a in self.rules.attributes for v in VALUES[a])
            if p < threshold:
                continue
            names = "-".join(c.name for c in line.cells)
            odd = [c.name for c in line.cells
                   if (piece := board[c]) is not None and piece.value(attribute) != value]
            events += self._warn_once(
                f"possible:{names}:{move.get('index')}", now,
                f"possible Quarto {names} (all {value}) not announced: the record has "
                f"{' and '.join(odd)} otherwise, but the readings lean to {value} there "
                f"({p:.2f}); check {' and '.join(odd)}")
        return events

    def _forget_new(self, cell: Cell) -> None:
        """Forget when ``cell`` was first seen occupied (and weakly): it is held back, not new."""
        self._first_seen.pop(cell, None)
        self._weak_since.pop(cell, None)

    def _not_a_move(self, cells: Sequence[Cell], kind: str, now: float,
                    why: str) -> list[Event]:
        """``cells``, new beside the turn's arrival, forgotten as new (``_forget_new``), and
        one warning naming them (``why`` follows their names), once per ``kind`` and cells."""
        for cell in cells:
            self._forget_new(cell)
        names = ", ".join(c.name for c in cells)
        return self._warn_once(f"{kind}:{names}", now, f"{names} {why}")

    def _warn_once(self, key: str, now: float, message: str) -> list[Event]:
        if key in self._warned or self.game is None:
            return []
        self._warned.add(key)
        logger.info("warning: %s", message)
        return self.game.warn(now, message)


#: Attributes read otherwise from one settle to the next that say a cell shows another thing.
_NEW_THING_DIFFERENCES = 2
_TAKEN_BACK = "a hidden piece's guess taken back by a clear reading"
_TRADED = "traded with a later piece that reads more like it"


def _shows_another(before: CellEvidence, means: Mapping[str, float]) -> bool:
    """Whether a settle's readings of a cell (``means``) differ from the latest settle of
    ``before`` in ``_NEW_THING_DIFFERENCES`` attributes or more: a piece never changes, so
    the earlier settles showed something else there (a neighbour's echo, before a piece was
    put on the cell)."""
    last = {name: lo[-1] for name, lo in before.log_odds.items() if lo}
    return differences(last, dict(means)) >= _NEW_THING_DIFFERENCES


#: The attributes shown by particular parts of a piece (outline, top edge, top face), which a
#: piece mostly hidden may not show; its colour shows on any part (``gate_guess_part_view``).
_PART_ATTRIBUTES = ("shape", "height", "top")


def foot_tilt(view: BoardView, cell: Cell) -> float:
    """How far a point one pitch above ``cell``'s centre lies from the centre in the image,
    in pitches (the mean image distance from the cell's centre to its neighbours'): about
    the tangent of the viewing ray's angle from vertical there, 0 at the camera's foot. A
    set's tall and short tops lie this times their height difference (in pitches) apart."""
    pitch_m = view.spec.cell_pitch_m
    here = view.cell_center_px(cell)
    up = view.cell_center_px(cell, pitch_m)
    near = [Cell(cell.row + dr, cell.col + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= cell.row + dr < 4 and 0 <= cell.col + dc < 4]
    pitch_px = sum(math.dist(here, view.cell_center_px(c)) for c in near) / len(near)
    return math.dist(here, up) / pitch_px if pitch_px > 0 else math.inf


def _leans_to(view: CellEvidence, attribute: str, value: str) -> float:
    """How far (nats) ``view``'s mean log-odds of ``attribute`` lean to ``value`` (0 when
    the attribute was not read in it)."""
    lo = view.mean(attribute)
    return lo if VALUES[attribute].index(value) == 1 else -lo


def _views(*views: CellEvidence, once: bool = False) -> SummedEvidence:
    """Separate views of one piece, summed; ``once``: they repeat one view, so they count as
    one (the mean of those that read anything)."""
    read = [v for v in views if v.frames]
    weight = 1.0 / max(len(read), 1) if once else 1.0
    return SummedEvidence(*views, weights=[weight] * len(views))


def _probability_of(evidence: CellEvidence, a: Piece, b: Piece) -> float:
    """P(a) / (P(a) + P(b)) under the summed evidence."""
    d = evidence.score(a) - evidence.score(b)
    return 1.0 / (1.0 + math.exp(-max(min(d, 50.0), -50.0)))
