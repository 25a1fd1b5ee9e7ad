"""Which newly occupied cells are moves: one piece arrives per turn, brought by a hand.

The state tracker (:mod:`vision.live.tracker`) asks this filter, on each settled frame, which
of the cells that read occupied but hold no recorded piece to take as moves. These readings
of a real scene are not placements:

- a *flicker*: a cell that turns occupied while the scene stayed settled (no hand since the
  last settled frame), a re-read crossing the threshold; after the next hand it is taken only
  if it then reads surely occupied (a piece put there);
- a *doubtful* cell: read weakly occupied (below ``new_piece_probability``) in the settle where
  another cell reads clearly occupied, say the far cell half covered by a tall piece just
  placed in front of it, or below ``sure_piece_probability`` where another reads that
  surely (the new piece's shadow on a neighbour cell; with ``held_echo_sets_no_bar`` an echo
  held back from an earlier turn sets no such bar); it waits until seen empty or read
  clearly;
- an *echo*: of cells new in one settle, the one read most surely occupied is the arrival
  (on a steady view, the one whose silhouette best matches what changed in the image over
  the turn, when that was measured: :mod:`vision.live.change`).
  While the view stayed put since the last settle, a hand brought one piece, so every other
  new cell that can see part of it (:func:`can_echo`: its footprint meets the piece's image)
  is an echo whatever it reads as (``hold_co_arrivals_when_steady``), and so is a cell in
  front of it that reads like it (it sees the piece above its own footprint); a new cell
  that cannot is a move of its own (two turns without a settle between them: a quick hand, a lamp
  switched on). After a camera bump several moves may have come unseen,
  and only a cell that reads as the same piece is an echo (``max_echo_differences``; the 16
  pieces are all different, so both cannot be right). An echo is held back until seen
  empty, and taken on the first settle after a hand that brought nothing else (a piece put
  on that very cell; of several, the one whose reading changed most since it was held;
  ``min_release_differences`` can ask for a changed reading). The hand's own piece can
  show a settle late (the first settle after the hand does not read it yet): while the
  released echo still waits to be committed (read weakly) and another new cell shows, the
  echo is held back again, so one hand does not give two moves. Nor is an echo released
  when the image changed over the turn on another free cell alone (``change``, see
  :mod:`vision.live.change`): the hand's piece went there, unread, and the tracker takes that
  cell if its reading rose (:attr:`ArrivalFilter.withheld`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping

import numpy as np

from vision.geometry.board_view import BoardView
from vision.live.change import sole_explainer
from vision.live.tracker_config import TrackerConfig
from vision.read.observation import Observation
from vision.rules.board import Cell

#: Mean log-odds of each attribute read on a cell in the present settle (absent: unread).
LogOdds = Callable[[Cell], dict[str, float]]


def can_echo(view: BoardView, cell: Cell, arrival: Cell, config: TrackerConfig) -> bool:
    """Whether a piece standing on ``arrival`` can cover part of ``cell`` in the image.

    Seen from the camera centre ``C`` (height ``c`` above the board), a point of the piece
    at height ``z`` lies in the image where the board-plane point ``N + (P - N) c / (c - z)``
    does (``N`` the camera's foot on the board, ``P`` the point's own foot), and a width
    scales by the same factor. So the piece's image, traced on the board plane, is the
    union of discs along that line; ``cell`` can see the piece when its footprint disc
    meets one of them. The tallest and widest piece of any set is assumed
    (``echo_piece_height_m``, ``echo_piece_radius_m``).
    """
    spec = view.spec
    centre = np.asarray(view.camera.pose.camera_center, dtype=np.float64)
    c = float(centre[2])
    if c <= config.echo_piece_height_m:
        return True  # a camera below the top of a piece: anything may hide anything
    foot = np.asarray(spec.cell_center(arrival), dtype=np.float64)
    target = np.asarray(spec.cell_center(cell), dtype=np.float64)
    z = np.linspace(0.0, config.echo_piece_height_m, 16)
    k = c / (c - z)
    traced = centre[:2] + (foot - centre[:2]) * k[:, None]
    reach = config.echo_cell_radius_pitch * spec.cell_pitch_m + config.echo_piece_radius_m * k
    return bool(np.any(np.linalg.norm(traced - target, axis=1) < reach))


def differences(a: dict[str, float], b: dict[str, float]) -> int:
    """Attributes read on both sides with opposite values."""
    return sum(1 for name in a if name in b and a[name] * b[name] < 0)


class ArrivalFilter:
    """The state of the three rules above across settles (see the module docstring)."""

    def __init__(self, config: TrackerConfig) -> None:
        self.config = config
        self.doubtful: set[Cell] = set()
        self.flicker: set[Cell] = set()
        #: echoes held back, with their attribute log-odds when held
        self.held_back: dict[Cell, dict[str, float]] = {}
        #: echoes released by a hand that seemed to bring nothing else, while they are
        #: still new (not yet committed), with their log-odds when first held
        self.released: dict[Cell, dict[str, float]] = {}
        #: after a hand that brought no new cell: the free cell the image changed on alone,
        #: for which no held echo was released (see :meth:`one_arrival`)
        self.withheld: Cell | None = None

    def clear(self) -> None:
        """A new game."""
        self.doubtful.clear()
        self.flicker.clear()
        self.held_back.clear()
        self.released.clear()

    def keep_occupied(self, occupied: set[Cell]) -> None:
        """Forget the cells seen empty."""
        self.doubtful &= occupied
        self.flicker &= occupied
        self.held_back = {c: v for c, v in self.held_back.items() if c in occupied}
        self.released = {c: v for c, v in self.released.items() if c in occupied}

    def likely(self, observation: Observation, cells: list[Cell], *, hand_since_settle: bool,
               pending: Container[Cell], brief_busy: bool = False,
               standing: Container[Cell] = ()) -> list[Cell]:
        """The newly occupied ``cells`` worth taking as moves: flickers and doubtful cells
        left out. ``pending``: new pieces already waiting to be committed. ``brief_busy``:
        busy frames came since the last settle, too briefly for a hand
        (``TrackerConfig.min_hand_s``); a cell new since then is a flicker unless it reads
        as surely as a flicker taken after a hand (a piece the last hand brought that
        showed late). ``standing``: cells set aside before this hand on which the image
        did not change over the turn; they stay aside and set no bar
        (``TrackerConfig.standing_phantom_stays_aside``)."""
        p = {cell: observation.reading(cell).occupied_probability for cell in cells}
        if not hand_since_settle:
            self.flicker |= {c for c in cells if c not in pending and c not in self.held_back}
        cells = [c for c in cells if c not in standing]
        cells = [
            c
            for c in cells
            if c not in self.flicker
            or ((hand_since_settle or brief_busy)
                and p[c] >= self.config.flicker_piece_probability)
        ]
        self.flicker -= set(cells)
        clear = {c for c in cells if p[c] >= self.config.new_piece_probability}
        sure = {c for c in clear if p[c] >= self.config.sure_piece_probability}
        setters = sure
        if self.config.hidden_pick_gives_way:
            # a cell mostly out of view reads what stands in front of it: it sets no bar
            setters = {c for c in sure if observation.reading(c).visible_fraction
                       >= self.config.min_visible_fraction}
        if self.config.held_echo_sets_no_bar and not (setters - self.held_back.keys()):
            # only held echoes read surely: they stood there before this hand, no new piece
            setters = set()
        if setters:
            clear = sure  # beside a surely read piece, the others must read as surely
        if clear:
            # doubtful until seen empty again or read clearly (not taken on the next settle)
            self.doubtful |= {c for c in cells if c not in clear and c not in pending}
        return [c for c in cells if c in clear or c not in self.doubtful]

    def take_set_aside(self, cell: Cell) -> None:
        """``cell``, set aside as a flicker or doubtful, is taken among the new cells after
        all (``TrackerConfig.phantom_arrival_in_front``)."""
        self.flicker.discard(cell)
        self.doubtful.discard(cell)

    def one_arrival(self, observation: Observation, cells: list[Cell], log_odds: LogOdds, *,
                    hand_since_settle: bool, view_steady: bool = False,
                    change: Mapping[Cell, float] | None = None
                    ) -> tuple[list[Cell], list[Cell], Cell | None]:
        """Of the cells new in one settle, those to take as moves. ``view_steady``: the view
        did not move since the last settle (one hand, one piece). ``change``: how well a
        piece on each free cell explains
        what changed in the image over the turn (:mod:`vision.live.change`; None: not
        measured).

        Returns the cells to take, the echoes newly held back, and the arrival they echo
        (``None`` when none was held back).
        """
        self.withheld = None
        # A released echo that is no longer new was committed (or refused): forgotten.
        self.released = {c: v for c, v in self.released.items() if c in cells}
        fresh = [c for c in cells if c not in self.held_back]
        back = [c for c in fresh if c in self.released]
        if back and len(back) < len(fresh):
            # The hand's piece showed a settle late: the echo released for it is held again.
            for cell in back:
                self.held_back[cell] = self.released.pop(cell)
            taken, echoes, arrival = self.one_arrival(
                observation, cells, log_odds, hand_since_settle=hand_since_settle,
                view_steady=view_steady)
            if arrival is None:
                arrival = max(taken, key=lambda c: observation.reading(c).occupied_probability,
                              default=None)
            return taken, back + echoes, arrival
        if not fresh:
            if not hand_since_settle:
                return [], [], None
            changed = {c: differences(self.held_back[c], log_odds(c))
                       for c in cells if c in self.held_back}
            held = [c for c, n in changed.items() if n >= self.config.min_release_differences]
            if not held:
                return [], [], None
            elsewhere = self._changed_elsewhere(change)
            if elsewhere is not None:
                # The image changed on another free cell alone, not on the held ones: the
                # hand's piece went there, unread; the echoes stay held.
                self.withheld = elsewhere
                return [], [], None
            cell = max(held, key=lambda c: (changed[c],
                                            observation.reading(c).occupied_probability))
            self.released[cell] = self.held_back.pop(cell)
            return [cell], [], None
        if hand_since_settle and view_steady and self.config.held_echo_arrival:
            put_on = self._held_arrival(observation, cells, fresh, log_odds, change)
            if put_on is not None:
                self.held_back.pop(put_on)
                for cell in fresh:
                    self.held_back[cell] = log_odds(cell)
                return [put_on], fresh, put_on
        if len(fresh) < 2:
            return fresh, [], None
        steady = view_steady and self.config.hold_co_arrivals_when_steady
        arrival = max(fresh, key=lambda c: (
            steady and not self._explained(observation, c, fresh, log_odds),
            observation.reading(c).occupied_probability))
        if steady and change:
            # What changed over the turn is the new piece (and its shadow): of the new cells,
            # the one whose silhouette matches it best is where it stands; a cell that reads
            # it from in front or from behind shares only part of it.
            shown = [c for c in fresh if change.get(c, 0.0) >= self.config.change_arrival_min]
            if shown:
                arrival = max(shown, key=lambda c: (change[c],
                                                    observation.reading(c).occupied_probability))
                if self.config.full_view_arrival:
                    arrival = self._in_full_view(observation, fresh, arrival, change) or arrival
                if self.config.hidden_pick_gives_way:
                    arrival = self._in_front_dead_heat(observation, fresh, arrival,
                                                       change) or arrival
        read = log_odds(arrival)
        if steady:
            echoes = self._steady_echoes(observation, fresh, arrival, log_odds, change)
        else:
            echoes = [c for c in fresh if c != arrival
                      and differences(log_odds(c), read) <= self.config.max_echo_differences]
        for cell in echoes:
            self.held_back[cell] = log_odds(cell)
        return [c for c in fresh if c not in echoes], echoes, (arrival if echoes else None)

    def _held_arrival(self, observation: Observation, cells: list[Cell], fresh: list[Cell],
                      log_odds: LogOdds, change: Mapping[Cell, float] | None) -> Cell | None:
        """The held-back echo among ``cells`` (still read occupied) where the hand's piece
        went rather than on the ``fresh`` cells (``TrackerConfig.held_echo_arrival``): the
        image changed on it (``change_arrival_min``) more than on any fresh cell, its
        reading differs from the held one in ``held_arrival_differences`` attributes or
        more, and every fresh cell can see a piece on it (:func:`can_echo`), so a piece
        there explains what they read. None when there is no such cell or several."""
        view = observation.board_view
        if not fresh or not change or not isinstance(view, BoardView):
            return None
        cfg = self.config
        bar = max(cfg.change_arrival_min, max(change.get(c, 0.0) for c in fresh))
        found = [c for c in cells if c in self.held_back
                 and change.get(c, 0.0) > bar
                 and differences(self.held_back[c], log_odds(c)) >= cfg.held_arrival_differences
                 and all(can_echo(view, f, c, cfg) for f in fresh)]
        return found[0] if len(found) == 1 else None

    def _changed_elsewhere(self, change: Mapping[Cell, float] | None) -> Cell | None:
        """The free cell, not held back, that alone explains what changed in the image over
        the turn (:func:`vision.live.change.sole_explainer`; the held cells compete too), if
        any."""
        if not change or not self.config.release_needs_change:
            return None
        best = sole_explainer(change, self.config.change_arrival_min,
                              self.config.change_arrival_ratio)
        return None if best in self.held_back else best

    def _explained(self, observation: Observation, cell: Cell, fresh: list[Cell],
                   log_odds: LogOdds) -> bool:
        """Could ``cell``'s reading be an echo of another new cell's piece: it can see part
        of that piece (:func:`can_echo`) and reads like it (at most
        ``arrival_echo_differences`` attributes apart: a partial view of a piece can get one
        wrong, a tall one seen low read short)? Of the cells new in one settle, the arrival is
        preferably one that no other new piece explains (two cells both read at the top of
        the scale otherwise tie, and the echo could be taken as the move). Two real pieces
        (a missed settle) read unalike, and then occupancy decides as before."""
        view = observation.board_view
        if not isinstance(view, BoardView):
            return False
        read = log_odds(cell)
        return any(can_echo(view, cell, other, self.config)
                   and differences(read, log_odds(other)) <= self.config.arrival_echo_differences
                   for other in fresh if other != cell)

    def _in_full_view(self, observation: Observation, fresh: list[Cell], pick: Cell,
                      change: Mapping[Cell, float]) -> Cell | None:
        """A new cell to take instead of ``pick``, the change's near-tied choice
        (``TrackerConfig.full_view_arrival``): in full view (``full_view_share``), read
        surely occupied, its change at least ``change_arrival_ratio`` of the pick's, and
        in front of the pick (the pick can see a piece on it, it cannot see one on the
        pick: :func:`can_echo`). Of several, the one read most surely."""
        view = observation.board_view
        if not isinstance(view, BoardView):
            return None
        cfg = self.config
        bar = cfg.change_arrival_ratio * change.get(pick, 0.0)
        front = [c for c in fresh if c != pick
                 and observation.reading(c).visible_fraction >= cfg.full_view_share
                 and observation.reading(c).occupied_probability >= cfg.sure_piece_probability
                 and change.get(c, 0.0) >= bar
                 and can_echo(view, pick, c, cfg) and not can_echo(view, c, pick, cfg)]
        return max(front, key=lambda c: observation.reading(c).occupied_probability,
                   default=None)

    def _in_front_dead_heat(self, observation: Observation, fresh: list[Cell], pick: Cell,
                            change: Mapping[Cell, float]) -> Cell | None:
        """A new cell to take instead of ``pick`` when the change cannot tell them
        (``TrackerConfig.hidden_pick_gives_way``): the pick mostly out of the reader's view
        (``min_visible_fraction``), the other's change at least ``dead_heat_ratio`` of the
        pick's, read clearly occupied (``new_piece_probability``) and in front of the pick
        (the pick can see a piece on it, it cannot see one on the pick: :func:`can_echo`),
        whatever share of it recorded pieces hide. Of several, the one read most surely."""
        view = observation.board_view
        if not isinstance(view, BoardView):
            return None
        cfg = self.config
        if observation.reading(pick).visible_fraction >= cfg.min_visible_fraction:
            return None
        bar = cfg.dead_heat_ratio * change.get(pick, 0.0)
        front = [c for c in fresh if c != pick
                 and observation.reading(c).occupied_probability >= cfg.new_piece_probability
                 and change.get(c, 0.0) >= bar
                 and can_echo(view, pick, c, cfg) and not can_echo(view, c, pick, cfg)]
        return max(front, key=lambda c: observation.reading(c).occupied_probability,
                   default=None)

    def _steady_echoes(self, observation: Observation, fresh: list[Cell],
                       arrival: Cell, log_odds: LogOdds,
                       change: Mapping[Cell, float] | None = None) -> list[Cell]:
        """Cells new in a settle that can be echoes of a piece taken in it: surest first,
        each is an echo when it can see part of a piece already taken (:func:`can_echo`),
        or stands in front of it and reads like it (``arrival_echo_differences``: its
        window shows the piece above its own footprint; fresh game 1025003), else a piece
        of its own. A real second piece in front (a missed settle) reads as itself.
        Without a board view every other cell is an echo. With
        ``unchanged_co_arrival_is_echo``, so is a cell on which the image did not change
        over the turn (``change``) while it did on the arrival."""
        view = observation.board_view
        if not isinstance(view, BoardView):
            return [c for c in fresh if c != arrival]
        cfg = self.config
        floor = cfg.change_arrival_min
        shown = (cfg.unchanged_co_arrival_is_echo and change is not None
                 and change.get(arrival, 0.0) >= floor)
        taken = [arrival]
        echoes: list[Cell] = []
        for cell in sorted(fresh, key=lambda c: -observation.reading(c).occupied_probability):
            if cell == arrival:
                continue
            unchanged = shown and change is not None and change.get(cell, 0.0) < floor
            if unchanged or any(can_echo(view, cell, t, self.config)
                                or (can_echo(view, t, cell, self.config)
                                    and differences(log_odds(cell), log_odds(t))
                                    <= self.config.arrival_echo_differences)
                                for t in taken):
                echoes.append(cell)
            else:
                taken.append(cell)
        return echoes
