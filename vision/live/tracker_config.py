"""Knobs of the state tracker (:mod:`vision.live.tracker`), in seconds of source time and
probabilities, each with its physical meaning; validated on construction."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class TrackerConfig:
    """Knobs of the tracker, in seconds of source time and probabilities."""

    #: A scene is settled after this long without hands or motion and with unchanged
    #: occupancy. Long enough to outlast a hand's last twitch, short enough for the 0.5 s
    #: alert budget after the hand has left.
    min_stable_s: float = 0.25
    #: ...and after at least this many frames (a slow frame source must still agree twice).
    min_stable_frames: int = 2
    #: Occupancy probability above which a cell counts as occupied in a frame.
    occupied_probability: float = 0.5
    #: While the scene settles, a cell keeps the occupancy it had earlier in the window
    #: unless its reading leaves this band around ``occupied_probability``: a still cell
    #: read at the threshold (a piece half behind another, 0.49-0.51 from frame to frame)
    #: is noise, not a piece coming or going, and restarting the window on it delayed a
    #: move and its Quarto (game 1016003: 1.27 s after the hand). 0: no band.
    occupancy_hysteresis: float = 0.05
    #: One piece arrives per turn: when several cells are newly occupied in one settle, those
    #: read below this probability are not taken as moves while one is read above it. A far
    #: cell half covered by a tall piece placed in front of it reads 0.4-0.7 occupied; taking
    #: it as a second piece would put a phantom in the record (and an unread one is no loss:
    #: a real piece is taken as soon as it is the only new one, or reads clearly).
    new_piece_probability: float = 0.75
    #: ...and when one of them reads at least this surely, the others must too: the hand
    #: brought a piece read that surely, and a second piece (a missed settle) reads alike
    #: (fresh game 1003009: 0.999 and 0.97), while the shadow or half view of the new piece
    #: on a neighbour cell reads surer than a half-covered cell but not that sure (fresh
    #: games 1011009, 1015011, 1017001: 0.76-0.84 beside 0.98-0.99).
    sure_piece_probability: float = 0.9
    #: When several cells are newly occupied in one settle, another cell whose piece differs
    #: from the surest one's in at most this many attributes is an echo of it (its body or
    #: top seen from a neighbour cell) and is held back. 0: it reads as the same piece, and
    #: the 16 pieces are all different, so both cannot be right. (At 1, two real pieces that
    #: arrived together after a missed settle, which differ in one attribute 4 times in 15,
    #: were held back in a rendered test game after a camera bump.)
    max_echo_differences: int = 0
    #: Of cells new in one settle on a steady view, the arrival is preferably one that no
    #: other new cell explains: one that can see part of its piece and reads like it, at
    #: most this many attributes apart (fresh game 1002017: an echo behind a tall piece read
    #: as the same piece but short, as surely occupied, and was taken as the move). Two
    #: real pieces after a missed settle read unalike (1003009: three attributes apart).
    arrival_echo_differences: int = 1
    #: While the view stayed put since the last settle (no camera bump, board not lost), a
    #: hand brings one piece, so every other cell new in that settle is held back like an
    #: echo, whatever it reads as: a cell seeing part of the new piece from behind or in
    #: front can read as another piece. After a bump several pieces may have come unseen,
    #: and only echoes are held back.
    hold_co_arrivals_when_steady: bool = True
    #: ... but only a cell that *can* see part of the new piece is its echo: one whose
    #: footprint (a disc of this radius, in pitches) meets the piece's image, traced on the
    #: board plane for the tallest and widest piece of any set (these height and radius,
    #: board metres). A cell outside it read occupied in the same settle holds a piece of
    #: its own: two turns went by without a settle (a hand back within a fraction of a
    #: second, a lamp switched on) and both moves are taken, their order a guess.
    echo_cell_radius_pitch: float = 0.45
    echo_piece_height_m: float = 0.09
    echo_piece_radius_m: float = 0.022
    #: A held-back cell is taken as a move after a hand that brought nothing else only when
    #: its reading differs from the held one in at least this many attributes (a piece put
    #: there reads otherwise, a nudge or a hover leaves a phantom as it was). At 1 a nudge no
    #: longer released a phantom (game 960020), but a real piece held back after a bump was
    #: never taken and its line was lost (955003); a lost line is the worse error, so 0.
    min_release_differences: int = 0
    #: ... and not when the image changed over the turn on another free cell alone (it
    #: explains the change, ``change_arrival_min``, and no other free cell, the held ones
    #: included, explains half as much, ``change_arrival_ratio``): the hand's piece went
    #: there, unread, and the echo stays held. (Fresh game 1024016: a piece put behind
    #: others read 0.31 occupied, the image changed there alone, and an echo held for
    #: 12 s, unchanged, was taken as the move instead.)
    release_needs_change: bool = True
    #: Busy frames (motion over the board, or no board read) spanning less than this since
    #: the last settled frame are no hand: nobody brings a piece over the board, lets go of
    #: it and leaves in a fifth of a second. A lamp switched on moves every pixel for a
    #: frame (fresh game 1025011: one busy frame at 15 fps, after which a cell behind two
    #: pieces read 0.54 occupied under the new light and was taken as the turn's move, a
    #: phantom, 0.6 s before the real hand came). After such a spell the scene is as if no
    #: hand had come (a cell that turns occupied is a flicker). 0: any busy frame is a hand.
    min_hand_s: float = 0.2
    #: A cell that turned occupied while no hand came (a reading flickering on a still scene)
    #: is taken as a later hand's piece only when it then reads at least this surely (a
    #: piece put there); until then, or until seen empty, it is a flicker, not a move.
    flicker_piece_probability: float = 0.9
    #: ...and, with this, only when the image changed on it over the turn as a piece there
    #: would change it (its change score at least ``change_arrival_min``, or the change
    #: under the pieces in front of it as ``hidden_arrival_covered_change`` counts it),
    #: where that change was measured (the view steady): a flicker already read occupied
    #: before the hand, so a surer reading after it is no sign of a piece, while a piece
    #: put there changes the image where it stands. Otherwise it stays a flicker (the
    #: hidden-arrival rules may still take it on their own evidence). Fresh game 1035004
    #: (30.7 degrees, a lamp at 22.2 s, helper-35f's (c)): d2, wholly behind c2's tall
    #: piece (least share 0.01), read 0.77 as its phantom; a lamp held the gate busy 0.40 s
    #: (over ``min_hand_s``), d2 read 0.907 under the new light with change 0.00 on it
    #: (under the front piece 0.08 of its silhouette, but 1.56 on the front silhouettes
    #: outside it: the lamp) and was taken as a move, a phantom; d2's real piece (move 14)
    #: was then lost behind it.
    #: Session 36 (helper-36h), docs/design.md.
    flicker_needs_change: bool = False
    #: The last move is withdrawn when, on the first settle after a hand, its cell is in
    #: view (``min_visible_fraction``) and reads occupied at most this surely: placed pieces
    #: never move, so it was a hand standing still over the board, read as a piece (a
    #: hover; rendered game 1009019), or a piece picked up again. 0 never withdraws.
    vanished_max_occupied: float = 0.2
    #: A recorded piece not seen for this long (while it should be visible) gives a warning.
    missing_warn_s: float = 2.0
    #: Below this predicted visible fraction, not seeing a recorded piece is expected.
    min_visible_fraction: float = 0.35
    #: A settled re-reading of a recorded cell that names another piece with at least this
    #: confidence, ``recheck_s`` into a settle, gives a warning (the record is kept). The
    #: corrections (below) are decided at the same moment, and a correction can reveal the
    #: last move's line, whose alert budget is 1 s after the hand left: a settle starts
    #: ``min_stable_s`` after that, and the evidence window (``evidence_frames``) is full
    #: 0.4 s in at 15 fps, so 0.5 s. (It was 1.5 s until session 15; on 210 rendered games
    #: 1.5 -> 0.5 changed no move list, line or false alarm, and took the slowest alerts,
    #: lines revealed by a correction, from 1.73 and 1.67 s to 0.73 and 0.93 s.)
    recheck_confidence: float = 0.9
    recheck_s: float = 0.5
    #: The same re-reading, decoded for all recorded cells together (distinct pieces), that
    #: explains the present readings better than the record with at least this confidence
    #: (likelihood ratio p / (1 - p)) corrects the record, with a ``correction`` event and a
    #: warning (:mod:`vision.live.repair`). 1 never corrects. In the 70 rendered dev games of
    #: session 5 a re-check warning (at 0.9) came in 2 of the 48 games recorded right, and 59
    #: came in the 22 recorded wrong: mostly a misread piece and the piece it pushed aside.
    repair_confidence: float = 0.9
    #: Most recorded cells one correction may change. A misread pushes aside the piece it was
    #: taken for, that one the next, and so on: a chain grows by one cell each time a pushed
    #: piece arrives (dev game 955004: one shape misread, four cells wrong two moves later, all
    #: four right in the correction it proposed). The cap keeps a view that misreads much of
    #: the board at once (a lamp, a bump) from rewriting the record. Dev games 955/997 at
    #: 2 / 3 / 5: exact 18 / 18 / 19 and 18 / - / 18 of 21, no wrong correction added.
    repair_max_cells: int = 5
    #: A recorded cell takes part in a correction only while it is seen at most this much
    #: less fully (visible fraction) than it ever was in this view: a piece placed in front
    #: of it later hides part of it, and a poorer view must not overturn a fuller one.
    #: 1 turns the rule off.
    repair_view_drop: float = 0.1
    #: Weight of the readings that recorded a piece in a correction's score, beside the
    #: present readings (:func:`vision.live.repair.propose_repair`). The recording view is
    #: a view of the same piece, as good as a later one unless the record says it was a
    #: guess (then it read weakly and weighs little anyway): 1 counts the two alike, so a
    #: correction must outweigh what recorded the piece, not merely disagree with it. A lamp
    #: switched on after a tall square was recorded read it round at 0.974 (game 1009004).
    #: Over 168 rendered games (eight sets of 21, session 15) 0 -> 1 took move lists exact
    #: 135 -> 141 and false alarms 4 -> 1. 0: the present alone (sessions 5-14).
    repair_recorded_weight: float = 1.0
    #: A correction that gives a cell back the piece its last correction replaced (a
    #: reversal) waits for a later settle window to propose it again; the first window
    #: that proposes it only notes it. Every frame decodes the record afresh, and the
    #: readings that first recorded a corrected piece keep voting at full weight
    #: (``repair_recorded_weight``), so a single window whose present view of the cell is
    #: ambiguous undoes a correction and the next clear one redoes it (game 1033006: b3/d2
    #: corrected at 35.07 s, back at 38.13 s, again at 39.07 s; the reversal is proposed in
    #: one window only, a right one in 3028003 in three in a row). False: act at once
    #: (sessions 5-33).
    repair_hold_reversals: bool = False
    #: No correction while a new piece waits to be committed (taken, not yet recorded):
    #: the decode gives the recorded cells the pieces not yet played, and the waiting piece
    #: is still one of them, so a recorded cell that sees it (a hidden guess behind or
    #: beside it reads its colour and height) can be given it, and the new cell then gets
    #: what is left (game 1033110: c3, a hidden guess, corrected to the dark round tall
    #: hollow piece just put on d3, 0.06 s before d3 was committed as another piece). The
    #: window goes on after the commit, so a correction only waits (0.13-0.2 s in seven
    #: games of the 256 replays and 1033006; one commit that needed it 0.13 s later,
    #: 1033016). 1026007 (b1 the same way) becomes exact. False: correct while a piece
    #: waits (sessions 5-33).
    repair_waits_for_pending: bool = True
    #: A new piece read weakly (margin below ``decision_margin``) or not at all (hidden behind
    #: a piece in front, a top out of sight) is committed with its likeliest reading among the
    #: pieces not yet played, with a warning naming the cell, after this long: the frames of a
    #: settled scene repeat one view, so waiting longer adds little, while the Quarto check
    #: needs the move before the next piece comes (the alert budget is 1 s after the hand).
    #: Later readings that contradict it give a warning (re-check).
    weak_commit_s: float = 0.4
    #: A turn that showed no new piece: a free cell seen less than this share reads the
    #: move when its occupancy log-odds rose by at least ``hidden_arrival_min_rise`` since
    #: the last settled frame before the hand, and no other cell did (a short piece put
    #: behind taller ones reads 0.15-0.25 occupied where it read 0.01-0.02 before). 1.5
    #: since session 19: a tall piece put behind a tall one after a camera bump read 0.49
    #: where the cell, partly seen past the front piece, read 0.14 (a rise of 1.8; fresh
    #: game 1014017 lost the move and every later one was one off). The other free cells'
    #: readings stay within a few hundredths, so uniqueness, not the size of the rise, is
    #: what tells the move; the cell must still rise four-and-a-half-fold in odds.
    #: On 252 rendered games (1008000-1019020) 2.0 -> 1.5 made 1014017 exact and changed
    #: no other game.
    hidden_arrival_max_visible: float = 0.5
    hidden_arrival_min_rise: float = 1.5
    #: With ``hidden_arrival_least_visible``, the share in view the weak change arrival
    #: (below) tests on a free cell is the smaller of the reader's and the share the
    #: recorded pieces nearer the camera leave of a piece of either height put there
    #: (``vision.live.change.least_visible_shares``, the change scores' silhouettes): what a
    #: piece that could arrive there would show. The reader's share counts only the pieces
    #: it reads occupied in that frame, at its fitted heights; a tall piece far back behind
    #: others reads unsurely itself. Fresh game 1031020 (helper-31h): the last piece, short,
    #: went behind two recorded tall pieces the reader's own mask left out (the hand-crafted
    #: reader read them 0.34 and 0.42 occupied), so the free cell read 0.79 in view where a
    #: short piece shows 0.17 and a tall one 0.46; the image changed on it alone (0.74), its
    #: occupancy rose 0.66 nats, and the move was lost (the weak change arrival asks under
    #: 0.5). Session 32 (helper-32b). The plain hidden arrival keeps the reader's share: it
    #: asks nothing of the image, and with this share it took a hand hovering off the board
    #: as a move on fresh 1032005 (a cell 1.00 in view by the reader drifting 0.011 -> 0.086
    #: under the hand's shadow, Dice 0.12 with other cells higher; helper-32h). So limited:
    #: replays of 277 recorded games change only 1031020 (exact, its line announced with
    #: ``gate_forced_values``; the game it was traced on), and full runs of the 33 fresh
    #: games of session 32 give the same events as with it off.
    hidden_arrival_least_visible: bool = True
    #: ...or, seen more than that, when the image says so too: of the free cells, it is the
    #: one whose silhouette (less what nearer pieces hide) best matches the pixels that
    #: changed over the turn (``vision.live.change``, Dice overlap at least
    #: ``change_arrival_min``), no other free cell matches half as well
    #: (``change_arrival_ratio``), and its occupancy rose as above. A short piece behind a
    #: tall one, its top just showing, can read 0.1 occupied at 0.6 in view (game 1016002).
    #: A hand that only hovered changes nothing: 0-0.17 on the games checked, against 0.1-0.9
    #: on the new piece's cell.
    change_arrival_min: float = 0.1
    change_arrival_ratio: float = 0.5
    #: ...or, where the cell is mostly hidden (``hidden_arrival_max_visible``) and the change
    #: it alone explains is the size of a whole piece (Dice at least
    #: ``change_arrival_weak_min``), with less from the reading: a rise of
    #: ``change_arrival_weak_rise``, or none at all for a cell that read occupied before the
    #: hand and was set aside (a flicker, or doubtful beside a clearer new piece: a
    #: neighbour's piece seen above its footprint), whose reading cannot rise. Low views
    #: (session 29): a short piece put behind tall ones read 0.17 -> 0.28 and 0.23 -> 0.31
    #: occupied (0.66 and 0.86 nats; fresh game 1028017, dev game 3028006), another went on
    #: a cell read 0.80 as a neighbour's phantom for four turns (1028002); the image
    #: changed on each alone at 0.43-0.62, and each move was lost. A nudge's sliver of
    #: change gave 0.15-0.41 on cells that a whole piece would cover (nine settles of 36
    #: low-angle games), those whose readings fitted at 0.17-0.19 (the rise between settles
    #: of a free cell read the same is 0.2 nats or less nine times in ten). A line through a
    #: piece taken so is never announced (``StateTracker.line_confidence``).
    change_arrival_weak: bool = True
    change_arrival_weak_min: float = 0.3
    change_arrival_weak_rise: float = 0.5
    #: With ``change_arrival_skip_seen_empty``, a free cell that could not be where the
    #: piece went, and whose change the leading cell's piece accounts for, is no rival in
    #: that test: a piece put there would be in view (``hidden_arrival_max_visible`` or
    #: more by ``StateTracker._arrival_visible``, which with ``hidden_arrival_least_visible``
    #: also asks the recorded pieces in front), yet it reads empty (under
    #: ``occupied_probability``) and its occupancy rose less than ``hidden_arrival_min_rise``
    #: (the reader sees its floor bare); it can see a piece on the leading free cell
    #: (``vision.live.arrivals.can_echo``: its change may be that piece seen above its
    #: footprint), and the leading cell's change is a whole piece's
    #: (``change_arrival_weak_min``). Cells set aside before the hand stay rivals, and all
    #: do without a board view. Fresh game 1033009 (47 degrees, helper-33h) move 6: a short
    #: piece put on a cell behind a recorded tall one, which had read 0.66-0.71 occupied
    #: since that piece came (set aside, 0.30 in view), read 0.877 (1.31 nats up, change
    #: 0.44); the empty cell behind it, 0.75 in view, read 0.012 (up 0.42 nats) with change
    #: 0.47, so no cell explained the change alone and the move was lost. The reader's share
    #: alone is not enough: on 1031020 the last piece's cell read 0.79 in view by it (the
    #: recorded tall pieces in front left 0.17) and would have been dropped as its own rival.
    #: Without the last two tests, an empty cell's change from a hand (fresh 1032005: a hand
    #: hovering off the board, the drifting cell's Dice 0.12 with empty cells higher) would
    #: no longer veto a drift (helper-33i).
    change_arrival_skip_seen_empty: bool = True
    #: ...or, when neither the rise nor the image names the cell, by the uniqueness of a
    #: smaller rise: after a hand, the one free cell mostly hidden by the reader's share
    #: (``hidden_arrival_max_visible``) whose occupancy rose at least
    #: ``unique_rise_min`` nats while every other free cell rose less than
    #: ``unique_rise_ratio`` of that, that reads at least ``unique_rise_level`` occupied
    #: after the hand. A short piece put straight behind a recorded
    #: tall one at a low view shows nothing or a sliver: fresh low-angle 1032106 (33-37
    #: degrees) read 0.23 -> 0.47 (1.09 nats, every other free cell within 0.04) with the
    #: change on its shadow outside any modelled silhouette (0.00); 1032109 read 0.20 ->
    #: 0.38 (0.88 nats, next 0.20), change 0.24; each move was lost (helper-32j). The
    #: piece is taken as a hidden guess, never read: a line through it is announced only
    #: when the other cells' readings leave its values certain (``gate_forced_values``).
    hidden_arrival_unique_rise: bool = False
    #: The plain hidden arrival's cell (a rise of ``hidden_arrival_min_rise``) gives way to
    #: the free cell the image changed on most, when that cell is mostly hidden
    #: (``hidden_arrival_max_visible`` by ``StateTracker._arrival_visible``), its change is a
    #: whole piece's (``change_arrival_weak_min``) and larger than the risen cell's, its own
    #: occupancy rose too (``change_arrival_weak_rise``), and the risen cell can see a piece
    #: on it (``vision.live.arrivals.can_echo``): the risen cell reads that piece, not one of
    #: its own. A short piece put straight behind a recorded tall one shows only its top,
    #: above the front piece, where the cell behind it lies in the image; that cell's reading
    #: rises more than the hidden cell's own. Fresh low-angle 1034105 (34 degrees, move 6,
    #: helper-35c): the piece on b1 behind a1's tall piece (b1 0.27 -> 0.50, 0.96 nats,
    #: change 0.32, 0.10 of a piece there in view) was taken on c1 behind it (0.05 -> 0.38,
    #: 2.38 nats, change 0.18). Taken as a hidden guess (``_hidden_guess``): no line rests on
    #: it unless the other cells force its values. Replayed on 334 recorded games (114
    #: low-angle: every low set since session 28 but six of 1032100-111; 214 mixed: the sets
    #: of sessions 23-31 and 33, four more; six steep) it acts on that settle alone, and the
    #: full run gives the replay's events.
    hidden_arrival_echo_to_change: bool = True
    unique_rise_min: float = 0.75
    unique_rise_ratio: float = 1.0 / 3.0
    unique_rise_level: float = 0.3
    #: ...or, when none of those names the cell, by the change the silhouettes' scores leave
    #: out: after a hand with nothing new, the one unrecorded cell (free, or read occupied
    #: as a phantom or held as an echo; not refused) mostly hidden behind recorded pieces
    #: (the share of a short piece's silhouette they leave in view under
    #: ``covered_change_max_visible``) with changed pixels inside that silhouette where
    #: the front pieces' modelled silhouettes cover it, at least ``covered_change_min`` of
    #: its area, more than on the front silhouettes outside it (a nudged front piece
    #: changes along its whole outline), and no other free cell with
    #: ``change_arrival_ratio`` of that (``vision.live.change.covered_change``). The modelled
    #: piece is 30 mm wide and 67 mm tall, so a short piece straight behind a real tall
    #: one shows the strip of its top inside the front piece's model, where its own
    #: visible silhouette is empty: fresh 1035003 (c3, a light top above a dark tall
    #: piece, 93 changed pixels of 101, none in the visible part), 1034019, 1031109,
    #: 3028010 (a held echo; helper-34g's scan). Taken as a hidden guess, as the weak change
    #: arrival.
    hidden_arrival_covered_change: bool = True
    covered_change_max_visible: float = 0.3
    covered_change_min: float = 0.05
    #: A turn that showed no new cell, where a cell recorded earlier as a hidden guess reads
    #: much more occupied (``hidden_arrival_min_rise``): the piece came now, the guess was
    #: early; re-take the guess's move as this turn's (``StateTracker._retake_guess``).
    #: Off: measured in session 29 (helper-29f), see docs/design.md.
    retake_rising_guess: bool = False
    #: A new piece that reads clearly (``decision_margin``) as the piece recorded on a cell
    #: where nothing at all was read (every attribute unseen, recorded as the likeliest
    #: unplayed piece with a "not seen (hidden?)" warning) takes it, and that cell gives way
    #: to this one's likeliest, as a hidden arrival's guess does (``_take_back_guess``).
    #: A guess made from no reading is no evidence against a clear one. Session 30
    #: (helper-30e, traced on fresh game 1030016, whose last piece the blind guess held):
    #: over 195 cached games one other changes, for the better (3028008: a move more right,
    #: a real line more announced); see docs/design.md.
    take_back_unread_guess: bool = True
    #: A new piece that reads more like a piece recorded earlier as a guess (read weakly or
    #: in part) than like its own likeliest unplayed piece takes it, and the earlier cell
    #: gets *its own* likeliest of the unplayed pieces (``StateTracker._trade_with_guess``),
    #: not only the new cell's likeliest, which is all the plain trade offers it. Both
    #: cells' readings (the earlier one's with those that recorded it) must prefer the
    #: exchange. Session 38 (helper-38f, traced on held-out 1037001, 30.7 degrees): c3's
    #: dark square short solid, seen 0.3, held dark round short hollow (a shape misread
    #: and a top it never saw); b4's piece, read dark round short hollow in full view, was
    #: pushed to light round short hollow because c3 was dark too, so the two-way trade
    #: (c3 taking light) lost, though c3's own truth was unplayed. On since session 38:
    #: dev 1037001 and 1035013 exact; held out (1038000-211, replayed) the same scores,
    #: 5 of 45 games' events differ (a trade made at the move instead of a later repair).
    trade_guess_own_best: bool = True
    #: A hand's settle that shows a fresh cell, where a cell in front of it, read occupied
    #: before the hand and set aside (a flicker or doubtful: a phantom of a nearer piece),
    #: rose ``change_arrival_weak_rise`` and explains the image's change at least as well
    #: (Dice at least ``change_arrival_weak_min``), and the fresh cell can see a piece on
    #: it (``vision.live.arrivals.can_echo``): the front cell is where the piece went, the
    #: fresh one behind it reads its piece (taken by the ordinary one-arrival rule, the
    #: cell behind held as its echo). A phantom cell is mostly hidden, so its reading has
    #: little room to rise, while the cell behind turns occupied from the new piece
    #: (low-angle dev game 3028010, move 8: 0.62 -> 0.85, change 0.79, against 0.02 ->
    #: 0.94, 0.70 behind it). ``StateTracker._phantom_in_front``. On 195 recorded games it
    #: met that settle alone (session 30, docs/design.md).
    phantom_arrival_in_front: bool = True
    #: A cell new after a hand that reads weakly occupied (under ``new_piece_probability``)
    #: though mostly in view (``hidden_arrival_max_visible`` or more), where the image did
    #: not change as a piece there would change it (Dice under ``change_arrival_min``, the
    #: view steady): no piece of its own (a piece in view reads surely and changes the
    #: image over its silhouette) but a neighbour's shadow or part; set aside as doubtful.
    #: Fresh game 1029009 (35 degrees) move 3: a short piece put wholly behind a tall one
    #: on b3; b2 beside it, 83% in view, went 0.31 -> 0.66 with change 0.03 and was taken,
    #: the right piece on the wrong cell and every later move off. On 195 recorded games it
    #: met that settle alone (session 30; the move is then lost, the later ones right).
    weak_in_view_needs_change: bool = True
    #: With ``weak_in_view_least_visible``, "mostly in view" there is the larger of the
    #: reader's share and the share the recorded pieces nearer the camera leave of a piece
    #: of either height there (``vision.live.change.least_visible_shares``): a piece
    #: arriving where at least half of it would show changes the image, however the reader
    #: masked its neighbours in that frame. Fresh game 1033005 (38 degrees, hover,
    #: helper-33h): a cell behind two recorded tall pieces, read 0.515 as their echo and set
    #: aside as doubtful, was forgotten when a hand's shadow at a settle inside a hover read
    #: it 0.27-0.31; after the hand it read 0.572 again, new and not doubtful (reader's share
    #: 0.35, least share 0.61, change 0.05 where every free cell had 0.05 or less), and was
    #: taken as a guess: the right piece on the wrong cell, the real move 9 elsewhere.
    weak_in_view_least_visible: bool = True
    #: A cell read clearly but not surely occupied (``new_piece_probability`` to
    #: ``sure_piece_probability``) beside surer new cells is set aside as doubtful (the new
    #: piece's shadow or half view); unless the image changed over the turn on it alone
    #: (``change_arrival_min``, ``change_arrival_ratio``) and on none of the surer ones: those
    #: stood there before this hand (turns whose settles were missed), and it is this hand's
    #: piece (``StateTracker._changed_beside_unchanged``). Fresh game 1031018 (a lamp kept
    #: the scene busy over two turns): the third piece, a4 behind a tall one, 0.86 occupied,
    #: change 0.67 against 0.00, was set aside beside the two missed ones and lost; with the
    #: rule all 13 moves are found and its line announced. Replays of 237 recorded games
    #: (the 195 of session 30, 1030000-020, 1031000-020): no other event changes (session
    #: 31, helper-31f, docs/design.md).
    changed_beside_unchanged: bool = True
    #: Of the cells new in the first settle after a hand (the view steady, the image's
    #: change measured), one on which the image did not change (Dice under
    #: ``change_arrival_min``) while it did on the arrival is no second piece (a piece put
    #: down since the last settled scene changes the image over its silhouette): it is
    #: held back as an echo, not taken as a move of its own. Before session 30 such a cell
    #: (a phantom set aside, now read surely) was taken as a missed settle's piece beside
    #: the real one (``ArrivalFilter._steady_echoes``). Off: of five such settles in 195
    #: recorded games, three were phantoms (1024008 becomes exact) and two real pieces
    #: from earlier turns never taken (1023017 loses one; session 30, docs/design.md).
    unchanged_co_arrival_is_echo: bool = False
    #: Of two or more cells new in the first settle after a hand (the view steady, the
    #: image's change measured), a cell that read empty on the settled frame before the
    #: hand (under ``co_arrival_empty_before``) is taken as a move of its own only if the
    #: image changed on it as a piece put there changes it: of the part of its generic
    #: short silhouette (``co_arrival_core`` times the generic width) that neither the
    #: pieces in front of it nor a tall piece on another new cell would cover, at least
    #: ``co_arrival_own_share`` changed, that part being at least ``co_arrival_min_left``
    #: of the silhouette (less: nothing to judge by, the cell is left as before); or its
    #: change score (Dice, :mod:`vision.live.change`) at least ``change_arrival_ratio`` of
    #: the arrival's (a light piece on a light board changes little inside its silhouette
    #: but all along its outline). A piece put there since the settled scene changes
    #: nearly all of it; a neighbour's new piece changes it only where its shadow falls.
    #: The arrival (another new cell) must pass the first test itself, else nothing
    #: changes. One piece arrives per hand, and a cell read empty before it holds no piece
    #: of an earlier turn. The cell is held back as an echo with a warning, and taken later
    #: by the held-echo rules (a hand that brings nothing else). Fresh game 1036018's first
    #: move (74.5 degrees): c1's tall piece (own 0.85, change 0.55) and d1 in front of it,
    #: read 0.95 occupied in full view, own 0.14, change 0.10 (the new piece's shadow over
    #: a corner), were taken both and every later move was one index off (helper-37b,
    #: ``StateTracker._unchanged_co_arrivals``).
    #: On since session 37: it fixed its dev game and changed none of the 45 held-out games
    #: (1037000-020, 1037100-111, 1037200-211) nor the other dev games.
    co_arrival_own_change: bool = True
    co_arrival_core: float = 0.7
    co_arrival_own_share: float = 0.6
    co_arrival_min_left: float = 0.3
    #: "read empty before the hand": its occupied probability on that settled frame under
    #: this (a cell read 0.3-0.5 may have held a piece read unsurely; 1036018's d1: 0.01)
    co_arrival_empty_before: float = 0.25
    #: Of the cells new in the first settle after a hand (the view steady, the change
    #: measured), the one whose silhouette best matches the change is the arrival; with
    #: this, a near tie (the other scores at least ``change_arrival_ratio`` of it) goes
    #: instead to a new cell in full view (the reader's share at least
    #: ``full_view_share``) read surely occupied (``sure_piece_probability``) when the
    #: change's pick stands behind it: the pick can see a piece there (:func:`can_echo`),
    #: a piece on the pick could not cover the full-view cell's floor, which the reader
    #: sees and finds taken. Game 1033009's move 10: c3 in full view (0.99, 0.985, change
    #: 0.33) and d3 behind it (0.12, 0.922, 0.36); the change took d3. The cells in front
    #: that were rightly not taken in such ties (1026002's c4, 1029110's c2, 1025003's c4)
    #: were half hidden by recorded pieces (shares 0.52-0.63): their readings see those
    #: pieces, not their floor. No event of the 256 recorded games of session 32's
    #: replays, of session 32's ten fresh ones, or of 32 of the 33 of session 33 changes
    #: (helper-34d). False: the change's pick (sessions 30-33).
    full_view_arrival: bool = True
    full_view_share: float = 0.9
    #: A new cell the reader reckons mostly out of view (its share under
    #: ``min_visible_fraction``) reads what stands in front of it, not a piece of its own:
    #: with this, (a) such a cell read surely occupied sets no bar of sureness for the other
    #: cells new in the settle (``ArrivalFilter.likely``: they are not made doubtful by it),
    #: and (b) when it is the change's pick and another new cell in front of it (the pick
    #: can see a piece there, :func:`can_echo`, and not the other way round), read clearly
    #: occupied (``new_piece_probability``), explains the change as well (at least
    #: ``dead_heat_ratio`` of the pick's score: the two silhouettes share the changed
    #: pixels and the change cannot tell them), the front cell is the arrival. Fresh
    #: 1038014's move 8 (35.6 degrees): a light tall square put on c4 behind b4's recorded
    #: tall piece, its top over d4: c4 share 0.42, 0.896 (under ``sure_piece_probability``,
    #: made doubtful by d4), change 0.251; d4 share 0.02, 0.938, change 0.263; d4 was taken
    #: as a partly read guess, and two moves went on the wrong cells. The near ties where
    #: the change rightly took the cell behind had clear margins (front / pick: 1026002
    #: 0.33 / 0.48, 1029110 0.42 / 0.65, 1025003 0.67 / 0.82); 1038011's move 5 was a dead
    #: heat (0.587 / 0.628) rightly won by the cell behind, read in view (share 0.52).
    #: Session 39 (helper-39f); on since session 39 (held-out replays of 45 games unchanged).
    hidden_pick_gives_way: bool = True
    dead_heat_ratio: float = 0.9
    #: A held-back echo (a cell held as a neighbour's view of an earlier turn's piece, still
    #: read occupied) sets no bar for the cells new after a hand: only a surely read *new*
    #: cell makes the clearly but not surely read ones beside it doubtful
    #: (``sure_piece_probability``). The echo stood there before this hand; what it reads is
    #: no sign that a new cell is this hand's piece's shadow. Fresh game 1032019 move 7: a
    #: short piece put behind a tall one read 0.86 occupied (log-odds up 6.3, 38% in view),
    #: was set aside beside c2, an echo held two turns before at 0.92, and the echo was
    #: released as the move instead; with the rule all 10 moves are right. Replays of 229
    #: games' recordings (the 195 of session 30; 1031000-020 and 1031100-111 recorded with
    #: session 31's and again with session 32's code; 1032019): no other event changes, and
    #: after a hand the case arises in 1032019 alone (session 32, helper-32g, docs/design.md).
    held_echo_sets_no_bar: bool = True
    #: A held-back echo (a cell held as a neighbour's view of an earlier turn's piece,
    #: still read occupied) is where this hand's piece went when, on the first settle after
    #: the hand with the view steady, the image changed on it (its silhouette explains the
    #: change, ``change_arrival_min``) more than on any fresh cell, its reading now differs
    #: from the held one (``held_arrival_differences`` attributes or more), and every fresh
    #: cell can see a piece on it (:func:`vision.live.arrivals.can_echo`): the fresh cells
    #: are then its echoes, held back, and the held cell is released as the move. A held
    #: cell is not fresh, so before this the new piece's echo (the cell behind it, which
    #: sees its top above the piece in front; read short, with a tall piece's top) was the
    #: one fresh cell and was taken, and the real cell stayed held (fresh game 1036012,
    #: move 9: c1, held since move 7 behind b1's tall piece, change 0.58, colour read anew;
    #: d1 behind it, 11% in view, change 0.49, taken as the move, its line lost).
    #: On since session 37: it fixed its dev game and changed none of the 45 held-out games
    #: (1037000-020, 1037100-111, 1037200-211) nor the other dev games.
    held_echo_arrival: bool = True
    held_arrival_differences: int = 1
    #: A cell set aside before this hand (a flicker or a doubtful cell, read occupied on
    #: the last settle before it) on which the image did not change over the turn (its
    #: change score under ``change_arrival_min``, nothing under the pieces in front as
    #: ``hidden_arrival_covered_change`` counts it) stays aside after the hand however
    #: surely it reads, and sets no bar for the cells new with it
    #: (``sure_piece_probability``): it stood there before, a phantom whose reading drifted
    #: up, not this hand's piece, which changes the image where it stands. Only with the
    #: change measured and the view steady. (``flicker_needs_change`` keeps a flicker out
    #: the same way, but after the bar is set.) Fresh game 1036015 move 4: c1, behind b1's
    #: tall piece, had read 0.83-0.88 as its phantom for 6 s (a flicker and doubtful);
    #: after the hand it read 0.905 with change 0.00, which made d2, the real piece
    #: (0.868, change 0.30, log-odds up 6.5, read as its piece), doubtful beside it; c1
    #: was taken, a phantom, and d2 two turns late.
    standing_phantom_stays_aside: bool = False
    #: Log-likelihood margin (nats) between the best and second-best unplayed piece above which
    #: a new piece counts as read.
    decision_margin: float = 2.0
    #: Attribute odds are clipped to this range before averaging log-odds over frames.
    p_clip: float = 0.02
    #: Latest readings per attribute that a cell's evidence averages (a few frames: the
    #: scene is still, so more frames add little, and a re-check must follow the present).
    evidence_frames: int = 6
    #: Latest fresh readings per attribute kept per occupied cell across hands and re-reads,
    #: for the line check (about 10 s of a still scene re-read every 0.5 s).
    history_frames: int = 20
    #: A Quarto is announced only when the readings give at least this probability that the
    #: line's four pieces share the value that makes it a line (from the joint posteriors of
    #: the occupied cells). Below, the line is held with a warning and announced as soon as
    #: further readings confirm it. See :mod:`vision.live.linegate`. A missed line is lost for
    #: good while a false alarm costs the players a look at the board, and the two weigh
    #: alike in the rules, so the threshold is the Bayes one, 0.5, now that the reader's odds
    #: are calibrated by how much of each piece is in view (``vision.learn.odds_calibration``)
    #: and a cell's frames are averaged, not multiplied, so a still scene's repeated views do
    #: not inflate it. (It was 0.8 until session 4, when 12 of 13 lines held between 0.5 and
    #: 0.8 were real, and 0.6 until session 13, when the lines held between 0.5 and 0.6 on the
    #: dev games were both real and every false one held was under 0.4.)
    quarto_confidence: float = 0.5
    #: A complete line through a new move that the record does not make a Quarto, but that
    #: the readings give at least this probability of being one (a piece recorded as a guess,
    #: its likeliest unplayed reading, where the readings together lean to another), is named
    #: in a ``warning`` ("possible Quarto ... check d4"), never announced: the record, not the
    #: readings, decides what is shouted. On the 294 cached rendered games (session 21) such
    #: lines at 0.15-0.3 were 8 of the 10 real lines the record missed, against 4-7 of 1042
    #: that were not real; 0.25 is one chance in four. 0 switches the warning off.
    possible_line_warning: float = 0.25
    #: The line confidence counts the readings that recorded each piece beside the later
    #: ones, as a correction does (``repair_recorded_weight``): the settle that recorded a
    #: piece and the present one are two views of it, and a piece read surely when it came
    #: and unsurely now (a lamp, a shadow, a piece put in front) is still fairly sure.
    #: Without it (sessions 4-14: readings across settles and the present settle's, the
    #: lower), lines held with the record right were real 8 times in 10 between 0.3 and
    #: 0.5. On all 252 rendered games of session 15 it announced 267 of 281 lines against
    #: 261, with 4 false alarms against 3; on the 84 fresh ones, no more lines and one more
    #: false alarm (1014020). Kept on the gate's rule that a missed line and a false alarm
    #: weigh alike; an open call (docs/design.md, Live).
    gate_counts_recorded: bool = True
    #: The line confidence caps a cell's probability of the shared value by its own views
    #: when one of them leans against it (:func:`vision.live.evidence.own_view_cap`): the
    #: board decoded together would not make a cell sure of a value its own readings deny.
    #: Off: measured (session 28, helper-28e) it trades a real line for a false alarm. It
    #: holds low-angle dev game 3028009's false "all solid" (a1 read solid when recorded,
    #: hollow in the settles since; another cell claimed the hollow piece, and the joint
    #: decoding made a1 0.93 solid), and costs cached game 1025007 its one real line (d2
    #: read short in every view, c2 short in the present one; the joint decoding had them
    #: right, tall). The other 83 cached games of 1023-1026 are unchanged.
    gate_own_views: bool = False
    #: The settles a cell stood occupied before its piece was recorded (held back as an
    #: echo, a flicker, a refused cell) are views of that piece too: placed pieces never
    #: move. Their readings (one per settle, the settle's mean) cap the cell's probability of
    #: the shared value when they lean against it, as :func:`vision.live.evidence.own_view_cap`
    #: caps. Only the latest run of settles that show one thing counts: a cell that reads
    #: otherwise in two attributes or more from one settle to the next (or when recorded)
    #: showed something else before (a neighbour seen there, then a piece put on it;
    #: low-angle dev game 3028019, whose real "all tall" line must stand). Low-angle dev game
    #: 3028003: d4's piece stood there from 25 s, held as the echo of a phantom, reading
    #: round in five settles (square 0.26 together); recorded by a trade at 41.1 s it read
    #: square (the square piece put in front, seen through) and "all square" was shouted
    #: falsely at 0.90; capped, 0.24, held, and it lapsed. Session 29 (helper-29b), item by
    #: item in docs/design.md: the 36 low-angle dev games, false alarms 3 -> 2, nothing else
    #: changed; none of the mixed-angle games changed.
    gate_unrecorded_views: bool = True
    #: A piece seen only in part (visible fraction under ``min_visible_fraction``) when
    #: recorded and now, from about the same view (within ``repair_view_drop``): the
    #: recording settle and the readings since are two looks at one unchanged part view, not
    #: independent views, so in the line confidence they count once (their mean), not summed
    #: (``gate_counts_recorded``). Off: measured (session 29) it changes no announcement; it
    #: lowers low-angle dev game 3028009's false "all hollow" at 37.3 s (c3 seen 0.28, read
    #: hollow 0.74 in every settle) from 0.83 to 0.64, not below the threshold.
    gate_part_views_once: bool = False
    #: A line whose shared value was never seen on one of its cells (every reading of the
    #: cell's piece left the attribute unknown, or gave it while marking it ``guessed``: the
    #: reader reckoned that part out of view, say a top behind a nearer piece) rests on a
    #: guess for that cell: the reader's, or the joint decoding's fill-in (what the other
    #: cells' readings leave). On, that cell's probability of the value counts as 0 in the
    #: line confidence: such a Quarto is named in a warning for the players to check, not
    #: shouted (as a piece taken unread, ``change_arrival_weak``). Only that value: a line
    #: that shares another value the cell was seen with is judged on it as before. Session
    #: 30 (helper-30a): holds low-angle dev game 3028009's false "all hollow" at 37.3 s (c3's
    #: top, reckoned 0.34-0.37 in view, read hollow 0.74 in every settle; truly solid); no
    #: other event changed on the 36 low-angle dev games, 1028000-020 and 1029000-020 and
    #: 1029100-111 (docs/design.md, Live).
    gate_unseen_values: bool = True
    #: A piece recorded as a guess (its likeliest unplayed reading, the margin under
    #: ``decision_margin``: "only partly read") and seen under this share of its silhouette
    #: when recorded and now carries a line on its shape, height or top only if its readings
    #: lean to the value by ``decision_margin`` at least (alone it would separate the
    #: recorded piece from the one differing in it, as a piece counts as read): the recording
    #: settle and the fresh readings since, summed as the line confidence sums them, counted
    #: once when they are one unchanged part view (as ``gate_part_views_once`` counts them).
    #: Otherwise the cell's probability of the value counts as 0 in the line confidence: the
    #: line is named in a warning, and announced if later readings show the value clearly.
    #: Those three attributes belong to parts of the piece (its outline, its top edge, its
    #: top face) that a piece mostly hidden may not show at all, while the reader still gives
    #: odds from what it sees; its colour shows on any part (after the visible-fraction
    #: calibration, sure readings under 0.3 in view were wrong for colour 1 in 15, for the top
    #: 3 in 15; session 13). 0 switches the rule off. Session 31 (helper-31e): fresh game
    #: 1031006 at 43.6 s, d4 recorded as a guess from 0.37 of the piece, its top read hollow
    #: 0.60 (truly solid), "all hollow" shouted at 0.62; asking every guessed piece for a
    #: clear value held five false alarms but lost nine real lines on 217 recorded games
    #: (the readings of a guessed piece seen whole are as good as their odds say).
    gate_guess_part_view: float = 0.5
    #: ``gate_guess_part_view`` for colour: a guessed piece seen under this share of its
    #: silhouette (when recorded and now) carries a line on its colour only if its readings
    #: (summed as there) lean to the value by ``gate_guess_colour_lean`` at least; 0 leaves
    #: colour exempt. Colour shows on any part of a piece, so a part view's colour odds are
    #: a reading (not odds given for a part out of sight, as a hidden top's may be): it needs
    #: no ``decision_margin``, only to lean to the value at all clearly, one nat (e:1, 73%)
    #: (at 2 nats low-angle dev game 3028001's real "all light" was held: b3 read light 1.45
    #: nats from 0.15 of the piece). Session 32 (helper-32d): session 30's recording of
    #: low-angle fresh game 1031100 shouted "all light" on d2 read light 0.29 + 0.34 nats
    #: from 0.42 of the piece (truly dark): held. With main's reader that game shouts nothing
    #: (the colour groups read d2 otherwise), and on 271 recorded games no other
    #: announcement changed (3028005: two held lines' warnings name the colour instead).
    gate_guess_colour_view: float = 0.5
    #: The lean (nats) ``gate_guess_colour_view`` asks of a guessed part view's colour.
    gate_guess_colour_lean: float = 1.0
    #: ``gate_guess_part_view`` asks a guessed part view's shape for the colour's lean
    #: (``gate_guess_colour_lean`` under ``gate_guess_colour_view``) instead of
    #: ``decision_margin``: a piece's cross-section is the same at every height, so the band
    #: of it left in view shows its shape as any part shows its colour (its top face and its
    #: base, which decide top and height, may be out of sight). Session 34 (helper-34c),
    #: from the held lines of the cached games: low-angle fresh 1033111's real "all round"
    #: held on c2 (0.34 in view, shape read round 1.51 nats when recorded and 1.45 since,
    #: one view) is announced at 0.47 s; the false lines the rule holds rest on a guessed
    #: top (1024015, 3028009, 1031006: 0.36-1.13 nats) or a shape read no way (1029109,
    #: -0.08) and stay held; in every recorded part view a guess's shape read either about
    #: nothing or rightly (1029109, 1031103, 3028023, 1033005, 1033111), while its top has
    #: read wrongly up to 1.5 nats (1031006, 3028009, 1024015, 1031105). Replays of the 256
    #: recordings and session 32's ten fresh ones: events identical. Chosen after seeing
    #: those lines, so to be confirmed on fresh games (docs/design.md, Live, "Session 34,
    #: held lines").
    gate_guess_shape_as_colour: bool = True
    #: ``gate_guess_part_view`` also holds a piece not recorded as a guess whose recording
    #: readings separate it by less than ``decision_margin`` from a piece the record gave to
    #: a cell recorded as a guess: its margin rested on that guess (the rival could be on
    #: this cell, the guess's cell holding something else), so it is a guess too. Session 32
    #: (helper-32d), replays of 271 recorded games and full runs of the changed ones with
    #: main's reader: low-angle fresh 1031103's false "all square" held (c3, 0.41 in view,
    #: shape read -0.01 nats, recorded square because the round rival was c4's guess);
    #: low-angle dev 3028023's real "all round" held too (c3, 0.23 in view, shape read 0.05
    #: and 0.10 nats: never read, right by luck; also 3028008 on session 30's recording,
    #: 0.07 nats from 0.32); fresh 1031105's false "all hollow" (the phantom's case this was
    #: named for) only 0.53 s later: d4's top reads 1.54 nats in the recording settle and
    #: 1.6 in the same view's frames since, which sum over ``decision_margin``.
    #: Off (lead, at the merge with ``gate_forced_values``): 1031103's false line was held
    #: through c3, which is truly square, not through c4's misread; elimination reads c3
    #: square (0.97: its round rival is read on another cell) and the alarm comes back, so
    #: with both rules on the replays of 277 recorded games hold no false alarm more than
    #: without this one, and 3028008's real line comes 1.9 s later (3028023's, in a full
    #: run, held).
    gate_guess_rival_on_guess: bool = False
    #: ``gate_guess_part_view`` counts a guess's recording settle and its readings since as
    #: one view (their mean, not their sum) also while the scene has stayed still since the
    #: recording (no hand came, ``min_hand_s`` or longer, and the view did not move),
    #: whatever the visible fractions the reader gave those frames. Nothing in front of the
    #: piece moved, so the frames of a still scene see one part of it: the reader's
    #: occlusion layout flickering between frames (one hidden share, then another) is the
    #: reader's doubt, not a second look. Without it, two layouts more than
    #: ``repair_view_drop`` apart count as two views and their leans are summed. Session 37
    #: (helper-37a), held-out low-angle 1036209: c3's guess (truly square; P(square) 0.21-0.30
    #: on every frame, 0.35 / 0.46 / 0.48 in view) was held "shape never read clearly" and
    #: released 0.13 s later on the sum of the settle and one more frame.
    gate_guess_still_scene: bool = False
    #: A line whose shared value on a cell comes by elimination through a guess is held
    #: like one resting on a guess: the cell's piece, not itself a guess, differs in that
    #: attribute alone from a piece the record gave to a cell recorded as a guess (read in
    #: part, or taken from the image's change), so the record chose it because the guess
    #: took its rival; its own readings must then show the value as a guess's must
    #: (``gate_guess_part_view``: seen under half, the shape or colour leaning to it by
    #: ``gate_guess_colour_lean``, height or top by ``decision_margin``), or the value
    #: counts as unread (``gate_forced_values`` may still find it forced by the other
    #: readings). A guess's piece is no evidence that its rival is elsewhere: the guess may
    #: be the rival's cell misread. Narrower than ``gate_guess_rival_on_guess`` (any rival
    #: under ``decision_margin``, every shared value): only the shared attribute whose flip
    #: is the guess's piece. Session 37 (helper-37a), held-out low-angle 1036209: d4 (ours;
    #: P(square) 0.53 from 0.29 of the piece, 0.11 nats) was recorded square because b2's
    #: guess (truly square, read round) held the light round short solid piece, truly
    #: d4's; the joint decoding read d4 square 0.86 through b2's readings and "all square"
    #: was shouted at once; held with this rule, and it lapsed.
    #: On since session 37: it fixed its dev game and changed none of the 45 held-out games
    #: (1037000-020, 1037100-111, 1037200-211) nor the other dev games.
    gate_guess_elimination: bool = True
    #: A piece recorded as a guess on a cell near the camera's foot carries a line on its
    #: height only if the readings that recorded it leaned to the value by
    #: ``decision_margin`` (else the height counts as 0 in the line confidence, as
    #: ``gate_guess_part_view`` counts a value never read clearly), however much of it was
    #: in view and whatever the readings since say. Near the foot (the cell seen almost
    #: straight down) a short and a tall top lie nearly on one spot in the image and only
    #: the tops' sizes tell height (docs/design.md, "Height near top-down"); more frames of
    #: the same view add nothing but their bias. The foot is where a point raised one pitch
    #: above the cell centre moves under this many pitches in the image (:func:`foot_tilt`,
    #: about the tangent of the ray's angle from vertical; a set's tall and short tops lie
    #: that times their height difference apart: under 0.06 pitch for a typical rendered
    #: set, 0.6 pitch, under 0.11 for the tallest); the recording's view and the present
    #: one must both be there. 0 switches the rule off. Session 35 (helper-35a), from 1043
    #: pieces seen whole on 120 still boards at 75-90 degrees (fresh1356/1357): under 0.1
    #: the decoded height is wrong one time in five (33 of 169; 0.1-0.2: 42 of 391; above:
    #: 18 of 483) and the geometric reader's log-loss is 0.96 nats (a coin's 0.69).
    #: Holds steep dev game 3034951's false "all tall" (b2 at 0.083, read tall 0.66); on
    #: the recordings of every cached game seen from 60 degrees up nothing else changes.
    #: At 0.2 it would also hold 3034969's false "all short" (a1 at 0.161, a small set:
    #: its tops 0.068 pitch apart) but lose fresh 1026011's and 1031013's real height lines
    #: (a3 at 0.165, a1 at 0.183, read rightly 1.87 and 1.31 nats): docs/design.md, Live,
    #: "Session 35, heights at the camera's foot".
    gate_guess_foot_tilt: float = 0.1
    #: A line cell whose shared value no reading showed (a piece taken unread from the
    #: image's change, ``change_arrival_weak``; a value never seen, ``gate_unseen_values``;
    #: a guess's value never read clearly, ``gate_guess_part_view``) counts, instead of 0,
    #: with the probability of the value when that cell's readings of it are set aside (a
    #: flat likelihood; every hidden-guess cell's wholly) and the board is decoded together
    #: (:func:`vision.live.evidence.joint_posteriors`): what the other cells' readings
    #: leave it. The 16 pieces are distinct, so when every piece the other cells' readings
    #: do not claim has the value (the game's last piece, or only dark pieces left), the
    #: line stands whatever the unseen piece is. Only a value so left nearly certain
    #: counts, from this probability up (below, 0 as before): where several unclaimed
    #: pieces remain and most have the value, it is still a guess at which one came.
    #: Readings only, never the record: a piece the record holds but no reading shows (a
    #: phantom's guess) is no claim, so a wrong record cannot make a line certain; and the
    #: unread cell must hold a piece by more than the record's word (read occupied in view,
    #: or the move that made the line: fresh low-angle 1030102's phantom b1). The line
    #: is judged this way as well as the usual one and stands on either, so no line's
    #: confidence is lower than without the rule. 0 switches the rule off. Session 32
    #: (helper-32a): on 241 recorded games one line changed, fresh 1031018's real "all
    #: square" (d4's shape undecided from a third of the piece; both round pieces with its
    #: colour, height and top read on other cells: 0.99), announced 0.6 s after the hand;
    #: 1031020's last piece, taken with helper-31h's scratch setting, 0.998. The other
    #: seven lines so held were left 0.29-0.55 and stay held: six false (two candidate
    #: pieces, one with the value; fresh 1031006 at 0.53, which counted as a probability
    #: would have been shouted at 0.528) and one real (1026004, 0.29).
    gate_forced_values: float = 0.9
    #: ``gate_forced_values`` sets aside, besides a line cell's unread values, every reading
    #: of that cell but its colour when the cell is seen under this share of its piece (when
    #: recorded and now): a sliver's shape, height and top are guesses too, so what the
    #: elimination leaves must rest on the other cells' readings, as the rule says, not on
    #: the unread cell's own sliver (colour shows on any part). 0 switches it off. Session
    #: 39 (helper-39a): held-out low-angle 1038202, b3 seen at 0.07-0.14, its top never read
    #: ("not seen (hidden?)", a blind guess recorded solid); its sliver read square 2 nats a
    #: frame and tall (truly round and short), and those readings left the dark square tall
    #: solid piece as b3's only candidate: "all solid" b1-b4 shouted at 0.96, falsely. 0.3
    #: is where the visible-fraction calibration (session 13) found sure readings of the
    #: parts wrong often (the top 3 in 15 under 0.3). On since session 39.
    gate_forced_own_view: float = 0.3
    #: One hand places one piece (one piece per turn). When one settle commits more than one
    #: move (a missed settle, or a phantom beside the hand's piece), each but the one the
    #: image changed on most (the hand's piece) may be a phantom; while it is seen under
    #: ``gate_guess_part_view`` of a piece (when recorded and now), every value of a line
    #: through it counts as unread (its readings are of what stands in front or beside), and
    #: no elimination (``gate_forced_values``) vouches for it. Session 39 (helper-39a):
    #: held-out 1038011 (light script), b1 committed with d1 after one hand (b1 never held a
    #: piece; read at 0.16-0.30, its neighbours' hollow tops), "all hollow" a1-d1 shouted
    #: through it. On since session 39.
    gate_co_arrival_part_view: bool = True
    #: A piece seen under ``gate_guess_part_view`` (when recorded and now) on a cell that
    #: stood occupied unrecorded before it (an echo held, a flicker: ``_unrecorded``) carries
    #: a line on a value those earlier settles already leaned to only when seen better: the
    #: same part view read the value before the piece came, so the reading is of what stood
    #: in front or beside, not of the piece. Session 39 (helper-39a): held-out low-angle
    #: 1038201, d4 held as c3's echo from 24.9 s read light round short hollow at 0.11-0.14
    #: in view; the real piece (dark square short solid) came at 30.4 s and the readings did
    #: not change; taken as the turn's move (a released echo) and recorded a guess, its
    #: "hollow" (2.4 nats now, 2.3 before) completed "all hollow" at once. On since session 39.
    gate_echo_part_view: bool = True
    #: A line is held while a line cell's own readings in the present settle (or the last
    #: settle, while a hand is over the board), the cell seen about as fully as ever
    #: (``repair_view_drop``), lean against the shared value by at least this many nats
    #: (mean log-odds), whatever the board decoded together or an elimination
    #: (``gate_forced_values``) says: they stand in for values the camera could not read,
    #: not against one it reads the other way. 0 switches it off. Session 39 (lead): held-out
    #: 1039016, b1 recorded from a phantom's partly read guess (short); its real piece
    #: (light square tall solid, seen at 0.62) read dark 3.3 nats (wrong) and tall 0.57,
    #: naming the dark square tall solid piece that stood on c3, so decoded together b1 was
    #: dark square short and "all short" b1-b4 was shouted at 0.992. 0.2: above a
    #: settle's noise; replays of all 135 recorded games of sessions 37-39 give the same
    #: events at 0.1-0.3 (only 1039016 changes: its false line is never shouted), while at
    #: 0.5 1039016's lean fades under the margin (0.497) and the line is shouted 0.7 s late.
    #: Built on a held-out game of session 39: fresh games must judge it. On.
    gate_reads_against: float = 0.2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value < 0:
                raise ValueError(f"TrackerConfig.{f.name} must be >= 0, got {value!r}")
        if not 0.0 < self.occupied_probability < 1.0:
            raise ValueError(
                f"TrackerConfig.occupied_probability must be in (0, 1), got "
                f"{self.occupied_probability!r}"
            )
        for name in ("new_piece_probability", "sure_piece_probability",
                     "flicker_piece_probability"):
            if not self.occupied_probability <= getattr(self, name) < 1.0:
                raise ValueError(
                    f"TrackerConfig.{name} must be in [occupied_probability, 1), "
                    f"got {getattr(self, name)!r}"
                )
        if not 0.0 <= self.occupancy_hysteresis < 0.5:
            raise ValueError(
                f"TrackerConfig.occupancy_hysteresis must be in [0, 0.5), got "
                f"{self.occupancy_hysteresis!r}"
            )
        if self.sure_piece_probability < self.new_piece_probability:
            raise ValueError(
                f"TrackerConfig.sure_piece_probability ({self.sure_piece_probability!r}) must "
                f"be at least new_piece_probability ({self.new_piece_probability!r})"
            )
        if not 0.5 <= self.repair_confidence <= 1.0:
            raise ValueError(
                f"TrackerConfig.repair_confidence must be in [0.5, 1], got "
                f"{self.repair_confidence!r}"
            )
        if not 0.0 <= self.possible_line_warning <= 1.0:
            raise ValueError(
                f"TrackerConfig.possible_line_warning must be in [0, 1], got "
                f"{self.possible_line_warning!r}"
            )
        if not 0.0 <= self.gate_forced_values <= 1.0:
            raise ValueError(
                f"TrackerConfig.gate_forced_values must be in [0, 1], got "
                f"{self.gate_forced_values!r}"
            )
        if not 0.0 <= self.gate_forced_own_view <= 1.0:
            raise ValueError(
                f"TrackerConfig.gate_forced_own_view must be in [0, 1], got "
                f"{self.gate_forced_own_view!r}"
            )
        if not 0.0 <= self.quarto_confidence <= 1.0:
            raise ValueError(
                f"TrackerConfig.quarto_confidence must be in [0, 1], got "
                f"{self.quarto_confidence!r}"
            )
        if self.history_frames < 1:
            raise ValueError(
                f"TrackerConfig.history_frames must be >= 1, got {self.history_frames!r}"
            )
        if self.evidence_frames < 1:
            raise ValueError(
                f"TrackerConfig.evidence_frames must be >= 1, got {self.evidence_frames!r}"
            )
        if not 0.0 < self.co_arrival_core <= 1.0:
            raise ValueError(
                f"TrackerConfig.co_arrival_core must be in (0, 1], got {self.co_arrival_core!r}")
        if not 0.0 < self.p_clip < 0.5:
            raise ValueError(f"TrackerConfig.p_clip must be in (0, 0.5), got {self.p_clip!r}")
