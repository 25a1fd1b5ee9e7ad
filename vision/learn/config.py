"""Decision knobs of the learned cell reader, with their meaning, in a typed object. (Where the
image is sampled is ``vision.learn.patches.PatchConfig``, stored with the model it trained.)"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from vision.learn.onnx_graph import DEFAULT_ENGINE, check_engine


@dataclass(frozen=True)
class BoardHeightConfig:
    """Knobs of the board-level height evidence (``vision.learn.board_heights``)."""

    #: Log-odds weight of the evidence added to the network's P(tall) (0 switches it off).
    #: Chosen on the validation renders (seeds 102250-102499), never on the evaluation sets:
    #: of 0, 0.25, 0.5, 1, 1.5 and 2, 0.5 had the fewest heights wrong after fusion with the
    #: hand-crafted reader (95 against 110 of 2387 at 0). Below 1 because the network's own
    #: P(tall) already holds part of what one top's size says.
    weight: float = 0.5
    #: Standard deviation of the network's log apparent-size error between the pieces of one
    #: board (0.022 = 2.2 %), measured on the validation renders (robust spread around each
    #: board's median; ``benchmarks/calibrate_heights.py``).
    size_noise: float = 0.022
    #: Share of measurements that are simply wrong (a hand, a neighbour's top, glare): such a
    #: measurement is equally likely under every hypothesis, so one outlier cannot decide.
    outlier_rate: float = 0.05
    #: Round top width in cell-ring diameters: sets fill 50-90 % of the ring (round pieces
    #: of the photorealistic set are 0.67-0.85 of it).
    width_range: tuple[float, float] = (0.50, 0.90)
    #: Step of the width grid, log units (1 %).
    width_step: float = 0.01
    #: Square side / round diameter of one set (an early edition about 1, the photorealistic
    #: set 0.81-0.99), on a grid of ``square_ratio_steps``.
    square_ratio_range: tuple[float, float] = (0.80, 1.0)
    square_ratio_steps: int = 5
    #: Short height / square side (Gigamic about 1.2; our renders 1.0-1.5).
    short_width_range: tuple[float, float] = (1.0, 1.5)
    #: Tall height / short height.
    tall_short_range: tuple[float, float] = (1.5, 2.1)
    #: A top is measured only when the network predicts at least this share of it in view
    #: (the share the size was taught on).
    min_top_visible: float = 0.5
    #: The others' P(tall) is kept within [floor, 1 - floor] (a wrong read must not pin the set).
    prior_floor: float = 0.05
    #: The evidence is clipped to +- this many log-odds units.
    max_evidence: float = 6.0

    def __post_init__(self) -> None:
        if self.weight < 0 or self.size_noise <= 0 or self.width_step <= 0:
            raise ValueError("weight must be >= 0 and size_noise, width_step positive, got "
                             f"{self.weight!r}, {self.size_noise!r}, {self.width_step!r}")
        for name in ("width_range", "square_ratio_range", "short_width_range",
                     "tall_short_range"):
            lo, hi = getattr(self, name)
            if not 0 < lo <= hi:
                raise ValueError(f"{name} must be (low, high) with 0 < low <= high, got "
                                 f"{(lo, hi)!r}")
        if self.square_ratio_steps < 1:
            raise ValueError(f"square_ratio_steps must be at least 1, got "
                             f"{self.square_ratio_steps!r}")
        if not 0.0 <= self.min_top_visible <= 1.0:
            raise ValueError(f"min_top_visible must be within [0, 1], got "
                             f"{self.min_top_visible!r}")
        if not 0.0 < self.outlier_rate < 1.0:
            raise ValueError(f"outlier_rate must be within (0, 1), got {self.outlier_rate!r}")
        if not 0.0 < self.prior_floor < 0.5 or self.max_evidence <= 0:
            raise ValueError(f"prior_floor must be within (0, 0.5) and max_evidence positive, "
                             f"got {self.prior_floor!r}, {self.max_evidence!r}")

    def tallest_m(self, ring_diameter_m: float) -> float:
        """The tallest piece any hypothesis allows, metres."""
        return (self.width_range[1] * self.square_ratio_range[1] * self.short_width_range[1]
                * self.tall_short_range[1] * ring_diameter_m)


@dataclass(frozen=True)
class BoardColourConfig:
    """Knobs of the board-level colour evidence (``vision.learn.board_colours``)."""

    #: Log-odds weight of the evidence added to the fused P(dark) (0 switches it off).
    #: Chosen on dev renders 870000-870499 (oracle board), never on the evaluation sets: of
    #: 0.15, 0.25 and 0.4, 0.25 had the fewest colours wrong (64 -> 41 of 3726 judged pieces;
    #: 0.15: 46, 0.4: 39 but twice the pieces turned wrong). Below 1 because the readers' own
    #: P(dark) already holds part of what the piece's colour says.
    weight: float = 0.25
    #: Prior spread (standard deviation per colour coordinate) of one material's measured
    #: colour between the pieces of one board: shading across the board and measurement
    #: errors of a few Lab units (a lamp's gradient shifts lightness by 10-20 units over a
    #: whole board, a few units between neighbours).
    colour_spread: float = 4.0
    #: How many pieces' worth of weight the prior spread carries against the measured scatter
    #: (two: with few pieces on the board the prior dominates, with many the board's own).
    prior_pieces: float = 2.0
    #: For the groups' colours the others' P(dark) is kept within [floor, 1 - floor]: the
    #: readers are wrong on a few % of pieces, so no single reading pins a group down.
    prior_floor: float = 0.05
    #: Each group needs this many pieces' worth of P(dark) (or 1 - P(dark)) among the others:
    #: under one piece's worth there is no group of that colour to compare with.
    min_group: float = 0.7
    #: Pieces predicted less visible than this take no part (their colour is mostly another's).
    min_visible: float = 0.3
    #: A piece's near side is used only when the geometric reader sees at least this share of
    #: the piece, and its top only when it sees this share of the top (and not edge-on, the
    #: reader's ``min_top_sine``): below, the sampled colour is largely what stands in front.
    min_side_visible: float = 0.6
    min_top_visible: float = 0.5
    #: The evidence of each part is clipped to +- this many log-odds units: one measurement
    #: far from both groups (glare, a hand) must not outweigh the network's own reading.
    max_evidence: float = 6.0
    #: A piece whose colour is known (the game record in ``watch``) anchors its group unless
    #: the groups the other pieces form place it in the other one by more than this many
    #: log-odds units (summed over its parts): about 50 to 1, well past the frame-to-frame
    #: noise of a piece read right, so only a piece recorded wrongly is left out.
    anchor_doubt: float = 4.0
    #: The weight used instead of ``weight`` when known pieces anchor the groups (``watch``:
    #: the game record). Anchored groups are not made of the reader's own guesses, so a
    #: piece the reader misreads with the whole board (a warm lamp on dark wood) is judged
    #: against what the two materials look like now. On fresh games 1024000-1024020, 0.25
    #: and 0.5 both made 1024017 exact (its last dark piece had read light), 0.5 announcing
    #: its line 0.47 s after the hand, 0.25 after 1.07 s; nothing else changed. Session 19's
    #: 0.5 for the soft groups cost a false alarm on fresh games.
    record_weight: float = 0.5
    #: The geometric reader samples a piece's top and near side at the height it fitted; where
    #: the fused reading decides the other height (its height odds and the geometric reader's
    #: on opposite sides of even), those samples are not of the piece (a short piece fitted
    #: tall samples the board or a piece behind it above its top) and take no part. Fresh game
    #: 1031013 move 7: a dark round short piece in full view, fitted tall by the geometric
    #: reader (+4.7 nats), its "top" sampled on the wood behind (L 53 against 11-29 for the
    #: other dark pieces); the groups then gave it -12 nats of light (-6 at ``record_weight``)
    #: against the network's +5.3 dark, and it was recorded light. Measured in full runs
    #: (session 31, helper-31f, docs/design.md): fresh 1030000-020 exact 16 -> 17, the 36
    #: low-angle dev games 25 -> 26, 1029000-020 unchanged, no line lost or false alarm
    #: added; 1354000-499 stills (label's board) 135 -> 133 pieces wrong. On (the lead).
    #: With ``resampled_parts`` on (the default since session 33) such a cell's parts are
    #: measured again at the fused height instead, and this check does not run.
    height_checked_parts: bool = True
    #: The same check for a cell the geometric reader reads empty (or too hidden to read: it
    #: gives no height) while the fused reading holds a piece there: its top and near-side
    #: samples are still taken, at the height its fit gives the cell (an empty cell's top is
    #: never checked for nearer pieces hiding it), and where the fused reading decides the
    #: other height they are of what stands in front or behind. Fresh game 1032020 move 11: a
    #: dark short piece half hidden behind a light tall one, read empty by the geometric
    #: reader and sampled tall (P 0.53; L 52 and 34 on the light pieces around it, the dark pieces'
    #: tops 27-33); the groups turned the network's +0.45 dark into -5.6 light, and it was
    #: recorded light: a false "Quarto!" on four light pieces. Off: on 33 fresh games it
    #: breaks 1031006, on stills 1355000-499 it turns 2 more pieces wrong (docs/design.md,
    #: session 32, helper-32f).
    unread_cell_parts: bool = False
    #: The geometric reader's colour samples of a cell (its top and near side, taken at the
    #: height it fitted there) are dropped where most of their points fall on a NEARER piece's
    #: silhouette: the pieces of the fused reading or the game record in front along the line
    #: of sight, each at its own height (``fuse._unoccluded``; ``min_top_visible`` and
    #: ``min_side_visible`` of the points must be clear). The geometric reader checks only the
    #: pieces it read itself, at its heights, the top of a cell it read occupied and never the
    #: near side (the piece's whole silhouette only). Fresh game 1032020 move 11: a dark short
    #: piece half hidden behind a light tall one, its "side" sampled partly on the light piece
    #: in front. Off: alone it changed no game's events and no still's count (session 33); the
    #: same check runs within ``resampled_parts``.
    occluded_parts: bool = False
    #: Where the piece's height (the record's, else the fused reading's) is not the one the
    #: geometric reader sampled a cell at, its top and near side are measured again at the
    #: piece's height (with ``occluded_parts``' check of the pieces in front) instead of being
    #: dropped (``height_checked_parts``, ``unread_cell_parts``) or kept as sampled above or
    #: inside the piece. Fresh game 1032020 move 11: the dark short piece's cell, read empty
    #: and sampled tall, had its "top" on the light piece behind it, and the groups made it
    #: light: a false "Quarto!". Measured (session 33, helper-33f, docs/design.md): that false
    #: alarm gone, no exact game lost nor false alarm added on 54 fresh and low-angle games
    #: (1031004 / 1031007 / 1031100 / 1032013 right sooner; 1032008 and 1032019 each record
    #: a partly seen piece's colour wrong for 2-3 s); stills 1355000-499 and 1356000-499
    #: (label's board) 276 -> 268 pieces wrong.
    resampled_parts: bool = True

    def __post_init__(self) -> None:
        if self.anchor_doubt < 0 or self.record_weight < 0:
            raise ValueError(f"anchor_doubt and record_weight must be >= 0, got "
                             f"{self.anchor_doubt!r}, {self.record_weight!r}")
        if self.weight < 0 or self.colour_spread <= 0 or self.prior_pieces <= 0:
            raise ValueError("weight must be >= 0 and colour_spread, prior_pieces positive, got "
                             f"{self.weight!r}, {self.colour_spread!r}, {self.prior_pieces!r}")
        if not 0.0 < self.prior_floor < 0.5 or self.max_evidence <= 0 or self.min_group <= 0:
            raise ValueError(f"prior_floor must be within (0, 0.5), max_evidence and min_group "
                             f"positive, got {self.prior_floor!r}, {self.max_evidence!r}, "
                             f"{self.min_group!r}")
        for name in ("min_visible", "min_side_visible", "min_top_visible"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {value!r}")


@dataclass(frozen=True)
class FarSideConfig:
    """Knobs of the far-side check (``vision.learn.far_side``): a cell read occupied whose
    board strip just behind it, which a piece standing there would hide, shows the same
    marking as the empty cells' is made less likely occupied. Validated on construction."""

    #: Off by default (the knob): see docs/design.md, session 33 (helper-33e).
    enabled: bool = False
    #: The strip: a polar grid around each cell centre, radii in ring diameters (a piece's
    #: footprint reaches 0.36: the ring itself is at 0.5) ...
    radii_rings: tuple[float, ...] = (0.40, 0.46, 0.52, 0.58, 0.64)
    #: ... and angles every this many degrees (only the points a short piece on the cell
    #: would hide are used: from low views, the far half).
    angle_step_deg: float = 10.0
    #: Width of that short piece's silhouette in the reader's nominal footprints (1: the
    #: footprint itself, so a piece standing a few millimetres off centre still hides them).
    hiding_width: float = 1.0
    #: Pieces are drawn at least this high, in ring diameters (short, tall), for the masks of
    #: what they cover: the heights fitted on a crowded low view are often too low (on
    #: fresh1356's low views the fitted short height was 0.76 ring diameters where the set's
    #: was 0.91), and a mask too small lets a piece's own body into the empty cells' strip.
    min_heights_rings: tuple[float, float] = (0.9, 1.5)
    #: Cells read under this P(occupied) give the empty cells' strip (their median).
    template_max_occupied: float = 0.2
    #: At least this many usable points (hidden by a piece on the cell, covered by no nearer
    #: piece read, with a template value), or the cell is left alone.
    min_points: int = 8
    #: The strip matches the empty cells' when the median Lab distance is under this ...
    max_distance: float = 10.0
    #: ... and the lightness pattern correlates above this (a piece's body has neither the
    #: marking's lines nor its place).
    min_correlation: float = 0.3
    #: Nats taken off the fused occupancy log-odds of a matching cell (a reading surer than
    #: 0.95 stays occupied).
    weight: float = 3.0

    def __post_init__(self) -> None:
        if not self.radii_rings or any(r <= 0 for r in self.radii_rings):
            raise ValueError(f"radii_rings must be positive, got {self.radii_rings!r}")
        if not 0.0 < self.angle_step_deg <= 90.0:
            raise ValueError(f"angle_step_deg must be within (0, 90], got "
                             f"{self.angle_step_deg!r}")
        if self.min_points < 2:
            raise ValueError(f"min_points must be at least 2, got {self.min_points!r}")
        if not 0.0 <= self.template_max_occupied <= 0.5:
            raise ValueError(f"template_max_occupied must be within [0, 0.5], got "
                             f"{self.template_max_occupied!r}")
        if self.weight < 0 or self.hiding_width <= 0:
            raise ValueError("weight must be non-negative and hiding_width positive")


@dataclass(frozen=True)
class WallHeightConfig:
    """Knobs of the near-wall height evidence of the fused reading
    (``vision.learn.wall_height``; ``weight`` 0, the default, switches it off)."""

    #: Log-odds weight of the evidence added to the fused height odds (0: off).
    weight: float = 0.0
    #: Only cells seen from at least this elevation (camera centre over the cell centre).
    min_elevation_deg: float = 60.0
    #: Only cells whose fused P(occupied) and visible share reach these.
    min_occupied: float = 0.5
    min_visible: float = 0.6
    #: Spread of a measured wall height about its set height, natural log (session 36
    #: dev stills 3473000+: MAD 0.17-0.18 of the log ratio against the truth, so about 0.27).
    log_noise: float = 0.27
    #: Share of wrong measurements (a cast shadow or the cell ring taken for the foot).
    outlier_rate: float = 0.15
    #: The set's short height, cell-ring diameters (renders: 0.6-1.2), and tall / short.
    short_range_rings: tuple[float, float] = (0.45, 1.4)
    short_log_step: float = 0.04
    tall_short_range: tuple[float, float] = (1.4, 2.3)
    tall_short_steps: int = 7
    #: The piece's width assumed to place the wall, cell-ring diameters (sets 0.5-0.9; the
    #: true width instead changed little on dev stills: nearer height right 72 -> 73%).
    nominal_width_rings: float = 0.65
    #: The heights a wall may be measured at, cell-ring diameters; the profile runs to the
    #: top's near rim at the highest plus ``top_length_widths`` (dev stills 3473000+, the
    #: label's set, nearer height right: (0.3, 2.4) 62%, (0.3, 1.6) 72%; a longer profile
    #: runs past a short top's far rim, which the fit does not model).
    height_range_rings: tuple[float, float] = (0.3, 1.6)
    #: Length of the top face kept after the wall in a hollow piece's profile, in piece
    #: widths (its ring is about 0.17 wide; the bore after it is one more constant).
    top_length_widths: float = 0.12
    #: The profile starts this many piece widths outside the nominal foot (on the board).
    outside_widths: float = 0.3
    #: ... but at most this far from the cell centre, cell-ring diameters: just inside the
    #: ring's line (0.5), which a fit of one board constant took for the foot (dev stills
    #: 3473000-039, nearer height right: 0.52 72%, 0.5 74%, 0.47 76%, 0.44 74%, 0.41 71%).
    start_max_rings: float = 0.47
    #: Profile sample step along the wall, pixels; cross lines over this share of the width.
    step_px: float = 0.25
    cross_share: float = 0.25
    cross_lines: int = 5
    #: Pieces whose P(tall) is within this of 0 or 1 still weigh the set as that much unsure.
    prior_floor: float = 0.05
    #: Evidence per cell is clipped to this many nats.
    max_evidence: float = 3.0

    def __post_init__(self) -> None:
        if self.weight < 0 or self.log_noise <= 0 or self.step_px <= 0:
            raise ValueError("weight must be >= 0 and log_noise, step_px positive")
        for name in ("short_range_rings", "tall_short_range", "height_range_rings"):
            lo, hi = getattr(self, name)
            if not 0 < lo <= hi:
                raise ValueError(f"{name} must be (low, high) with 0 < low <= high, got "
                                 f"{(lo, hi)!r}")
        if not 0.0 < self.outlier_rate < 1.0 or self.tall_short_steps < 1 or self.cross_lines < 1:
            raise ValueError("outlier_rate must be within (0, 1), tall_short_steps and "
                             "cross_lines at least 1")


@dataclass(frozen=True)
class TopRimConfig:
    """Knobs of the top-outline height evidence of the fused reading from steep views
    (``vision.learn.top_rim``; ``weight`` 0 switches it off)."""

    #: Log-odds weight of the evidence added to the fused height odds (0: off; 1 with the
    #: calibrated ``slope``). Session 38 (helper-38c), stills at 60-90, pieces wrong off -> 1:
    #: fresh1361 label's board 70 -> 68, finder's 113 -> 108; fresh1360 (slope fitted there)
    #: 74 -> 71; photoreal_dev unchanged. About 35 ms CPU per steep board. On since session
    #: 38: held out (1362000-499's 238 stills at 60-90) finder's board 101 -> 99 pieces
    #: wrong, label's board 63 both, boards fully right 188 -> 191.
    weight: float = 1.0
    #: Only cells seen from at least this elevation (camera centre over the cell centre).
    min_elevation_deg: float = 60.0
    #: Only cells whose fused P(occupied) and visible share reach these.
    min_occupied: float = 0.5
    min_visible: float = 0.6
    #: The piece's offset from its cell centre: searched over +-``max_offset_m`` in steps of
    #: ``offset_step_m``, Gaussian prior of ``offset_sigma_m`` (renders: 0.25 of the slack
    #: between piece and ring, 1 mm, clipped at 2.4 mm; a hand is less tidy).
    max_offset_m: float = 0.003
    offset_step_m: float = 0.0015
    offset_sigma_m: float = 0.0015
    #: Widths of the top tried, as scales of the reader's footprint width; a square's side
    #: against that width; a square's yaws in steps of this many degrees.
    scales: tuple[float, ...] = tuple(round(0.80 + 0.03 * k, 2) for k in range(11))
    square_width: float = 0.9
    square_yaw_step_deg: float = 15.0
    #: A bore's diameters tried, shares of the top's width, and the bore's share of the
    #: contrast of a hollow top (the rest is the outer rim's).
    bore_fractions: tuple[float, ...] = (0.55, 0.61, 0.67)
    bore_share: float = 0.5
    #: Points on an outline; inside and outside samples this many pixels from it.
    n_points: int = 24
    edge_px: float = 1.5
    #: The contrast less this times the spread of the samples just inside the outline
    #: (a top is one surface; a wrong plane's inside straddles top, wall and board).
    inside_spread_weight: float = 0.0
    #: Each width's best contrast share is divided by this before the log-sum-exp over
    #: offsets (sharpness of the fit).
    temperature: float = 0.02
    #: Each cell judged at the width its shape's other pieces fit best (else summed out).
    board_scale: bool = True
    #: Log-likelihood ratio times ``slope`` (calibration: the log-loss of the fused odds with
    #: the evidence, fresh1360's stills at 60-90 on the label's board, best at 0.03-0.05),
    #: clipped to +-``max_nats``.
    slope: float = 0.03
    max_nats: float = 3.0
    #: The set's two heights are taken from the hand-crafted reader's fit, each times a
    #: factor of ``pair_scales`` (empty: the fit as it is; off): the factors whose outlines
    #: explain the pieces seen from ``min_elevation_deg`` to ``pair_max_elevation_deg`` best,
    #: each piece weighed as tall by its fused P(tall) (kept within ``pair_p_floor`` of 0 and
    #: 1), plus a Gaussian prior of ``pair_scale_sigma`` in log around the fit, the tall over
    #: the short within ``pair_min_ratio`` - ``pair_max_ratio`` (the reader's set range); with fewer
    #: than ``pair_min_cells`` such pieces the fit stays. From 60-80 degrees a top's
    #: displacement (``h / (C - h)`` of its distance from the camera's foot) fixes the pair's
    #: scale, which the hand's profile fit misses by more than 15 % on over half of the
    #: steep boards, the short and tall heights off together (their log errors correlate
    #: 0.54-0.72; session 39, helper-39b). The choice uses a coarser outline test
    #: (``pair_widths`` of the footprint, ``pair_n_points`` points, offsets of one
    #: ``offset_step_m``) over the ``2 * len(pair_scales)`` heights, then the evidence is
    #: measured at the chosen pair as usual.
    pair_scales: tuple[float, ...] = ()
    pair_scale_sigma: float = 0.5
    pair_p_floor: float = 0.1
    pair_max_elevation_deg: float = 80.0
    pair_min_cells: int = 3
    pair_min_ratio: float = 1.4
    pair_max_ratio: float = 2.3
    pair_widths: tuple[float, ...] = (0.85, 0.95, 1.05, 1.15)
    pair_n_points: int = 16

    def __post_init__(self) -> None:
        if self.pair_scales and (min(self.pair_scales) <= 0 or self.pair_scale_sigma <= 0
                                 or not 0.0 < self.pair_p_floor < 0.5):
            raise ValueError("pair_scales must be positive, pair_scale_sigma positive and "
                             "pair_p_floor within (0, 0.5)")
        if self.weight < 0 or self.temperature <= 0 or self.offset_step_m <= 0:
            raise ValueError("weight must be >= 0 and temperature, offset_step_m positive")
        if self.n_points < 8 or not self.scales:
            raise ValueError("n_points must be at least 8 and scales not empty")


@dataclass(frozen=True)
class LearnedReaderConfig:
    """Decision knobs of :func:`vision.learn.read_cells_learned`. Validated on construction."""

    #: A cell is occupied when the calibrated P(occupied) reaches this (equal costs for a
    #: missed and a false piece).
    occupied_threshold: float = 0.5
    #: The top (solid/hollow) is reported unknown when the predicted share of the top face in
    #: view is below this. Kept low: an unknown top that the scorer judges counts as wrong,
    #: while a guess on a hidden top costs nothing.
    min_top_visible: float = 0.2
    #: The other attributes are reported unknown when the predicted share of the piece in view
    #: is below this (the piece is almost completely behind a nearer one).
    min_visible: float = 0.1
    #: The fused reading (``vision.learn.fuse.read_cells_fused``, what ``analyze`` and
    #: ``watch`` use) reports the top unknown when the network predicts less than this share
    #: of the top face in view, whatever the hand-crafted reader says (0 switches it off: the
    #: fused top then follows ``min_top_visible`` above, and where the network refuses a top
    #: the hand-crafted reader's is taken alone). The network's top was taught only on tops
    #: at least half in view (``vision.learn.dataset``), and the hand-crafted reader's own
    #: estimate of the top's share hardly follows the truth at low angles (correlation 0.14
    #: on 220 low views, 1812 pieces; the network's 0.71): below half, either reading of the
    #: top is a guess. Session 30 (helper-30a), tops the scorer does not judge (truly under
    #: half in view), low views dev50_low: 98 read, 45 wrong -> 68 read, 32 wrong; dev1347:
    #: 38 read, 17 wrong -> 21 read, 9 wrong; pieces wrong 50 -> 49 and 81 -> 81, on fresh
    #: renders 1353000+ 112 -> 113 of 3739, boards fully right unchanged on all three. In
    #: ``watch`` the top keeps its odds, marked ``guessed`` (``read_cells_fused``).
    fused_min_top_visible: float = 0.5
    #: The fused reading's joint decoding (``vision.read.decode.decode_pieces``) weighs each
    #: occupied cell's claim to a piece by its fused P(occupied): a cell that may be empty
    #: (a phantom behind a tall piece, a dark piece hardly told from a dark board) reads no
    #: piece surely, so when it and a cell surely occupied contend for one piece, the sure one
    #: keeps it (``vision.read.decode.occupancy_weighted``; no parameter). Session 34
    #: (helper-34f): over a quarter of the shape and colour errors on fresh renders were such
    #: trades, a cell taking the piece another one plainly shows. Label's board, pieces wrong
    #: off -> on: fresh 1357000+ (where the errors were listed) 111 -> 109 (boards fully right
    #: 382 -> 381), held out 1356000+ 142 -> 140 (370 -> 371), 1355000+ 126 -> 117 (387 ->
    #: 388; 12 fixed, none broken), 1354000+ 134 -> 133, dev50_low 47 -> 45; photoreal_dev
    #: 21 -> 22 (tops 10 -> 5, heights 6 -> 9, shape 8 -> 9, on two boards wrong either way;
    #: fully right 21 of 32 either way); real photos unchanged. The odds each cell reports do
    #: not change (``watch`` reads those, not the decoded pieces). Left off by helper-34f
    #: (photoreal_dev's pieces wrong and one board of 1357000+ got worse); the lead turned it
    #: on after session 34's fresh renders 1358000+, never seen before: label's board 117 ->
    #: 113 pieces wrong (boards fully right 383 -> 383), the finder's board 159 -> 151 (374
    #: -> 373). Pieces wrong fall on six of seven render sets.
    decode_by_occupancy: bool = True
    #: In the fused reading, the hand-crafted reader's log-odds of the top-face attributes
    #: (top and shape: its hole and outline cues) are kept within this many nats before they
    #: are weighted (``HAND_LEARNED_WEIGHTS``); 0 (the default) leaves them unbounded. Its
    #: logistic's width was set near the threshold, and past a few nats a stronger cue is no
    #: surer: on the 220 low views dev50_low (1859 pieces) its top read at 3-6, 6-9 and over
    #: 9 nats was right 92, 94 and 93% of the time on dark pieces, its shape past 3 nats 73%.
    #: Unbounded, its floor (1e-4: 9.2 nats) times 0.2 outweighs a network top read at 0.95
    #: nats the other way. Session 35 (helper-35h), low-angle fresh game 1035203: a glint on
    #: a3's dark solid top gave the hole cue 9.4 (the network: solid, 0.97 nats), a3 was
    #: recorded hollow at 1.9 nats and a false "all hollow" shouted at 0.83; at 3 nats
    #: (where the accuracy stops rising, chosen before the runs) it is recorded solid and
    #: nothing is shouted. Off: on the fresh low games it also undoes 1035208's a2 (dark
    #: square tall HOLLOW, hole cue 3.4 = 5.7 nats from a real pit, the network 1.5 nats
    #: solid): corrected to solid, two false alarms (12 games: false alarms 1 -> 2, exact 6
    #: -> 6). No bound separates the two (a2's 5.7 nats is in the 92% band), so the fix is a
    #: better cue, not a bound. Label's board, pieces wrong off -> 3: dev50_low 45 -> 45
    #: (boards fully right 129 -> 130), the 25-40 degree views of fresh 1357000+ 23 -> 18,
    #: of 1358000+ 24 -> 24 (docs/design.md, Live, "Session 35, a false alarm at a low angle").
    fused_hand_top_max_nats: float = 0.0
    #: The hand-crafted reader's short/tall is left out of the fusion (the network's alone,
    #: as where the hand-crafted reader does not read a cell) on cells where its two fitted
    #: heights' top centres lie under this many cell pitches apart in the image: seen from
    #: near straight above both tops project nearly onto one point, and its profile fit then
    #: calls pieces tall or short surely and wrongly (fresh game 1036101 at 87 degrees: the
    #: short piece 0.995 tall, the tall one 0.008, two tops 0.06 pitch apart; the tracker
    #: traded their records on it). 0: off (the default). Session 37 (helper-37h); on stills
    #: helper-35d measured 0.05 / 0.075 / 0.1 (nominal heights) as noise.
    hand_height_min_separation_pitch: float = 0.0
    #: Odds are kept inside [p_floor, 1 - p_floor] before joint decoding: a model is never
    #: surer than its validation error rate allows.
    p_floor: float = 0.005
    #: Short or tall from the sizes of all the tops on the board (used when the model has a
    #: ``top_size`` output).
    board_heights: BoardHeightConfig = field(default_factory=BoardHeightConfig)
    #: The tops are also read on patch planes at these multiples of the model's own plane
    #: heights, and the shape and top odds of the heights whose reading is surest are
    #: averaged in (:func:`vision.learn.reader.read_cells_learned`). Sets differ in height: a
    #: top is sharp and in place only on the plane at its own height, so the surest reading
    #: is the nearest plane. Empty switches the search off. Chosen on dev renders
    #: 1340000-299 and 1260000-299 (session 17; fused reader, true board): a set's heights
    #: scale together, so one scale per board. Pieces wrong of 4294, with the limit and the
    #: margin below: none 170, (0.75, 1.2) 148 (shape 39 -> 29, top 30 -> 16), 0.75 alone
    #: about 159; 16 (short, tall) pairs, tried offline, about 150; the true heights 119.
    #: Each scale costs a network pass over the occupied cells (~4.5 ms).
    plane_scales: tuple[float, ...] = (0.75, 1.2)
    #: The search runs only where the camera looks at the occupied cells from below this
    #: elevation (degrees, median over the cells): a plane ``dh`` too high or low moves a top
    #: by ``dh / tan(elevation)`` in the patch, a large shift below 45 degrees and a small
    #: one above, where the planes' readings differ by little more than noise. On the dev
    #: renders, searching everywhere, it fixed 27 pieces and broke 6 at 25-40 degrees, and
    #: fixed 2 and broke 8 from 40 degrees up.
    plane_search_max_elevation_deg: float = 45.0
    #: Other planes are taken only when they read shape and top surer by at least this many
    #: nats per reading (mean negative entropy): a set far from the model's planes gains a
    #: lot (0.1-0.2), one near them a few hundredths by chance. Dev renders: of the boards
    #: whose gain was under 0.02, the search fixed 5 pieces and broke 9; above, fixed 24 and
    #: broke 5. A chance gain also makes wrong readings surer, which misleads the line check.
    plane_search_margin: float = 0.02
    #: How the network runs (``vision.learn.onnx_graph.ENGINES``): ``"numpy"``, the reference
    #: forward pass (the default), or ``"opencv"`` through ``cv2.dnn`` (a pass 10% faster,
    #: equal up to float rounding, the reader 0.6 ms faster; session 32).
    cnn_engine: str = DEFAULT_ENGINE
    #: The far-side check of the fused reading (``vision.learn.far_side``; off by default).
    far_side: FarSideConfig = field(default_factory=FarSideConfig)
    #: The near-wall height evidence of the fused reading (``vision.learn.wall_height``;
    #: off by default, weight 0). Session 36 (helper-36d).
    wall_height: WallHeightConfig = field(default_factory=WallHeightConfig)
    #: The top-outline height evidence from steep views (``vision.learn.top_rim``; off by
    #: default, weight 0). Session 38 (helper-38c).
    top_rim: TopRimConfig = field(default_factory=TopRimConfig)

    def __post_init__(self) -> None:
        check_engine(self.cnn_engine)
        if any(not 0.2 <= s <= 5.0 for s in self.plane_scales):
            raise ValueError(f"plane_scales must each be within [0.2, 5], got "
                             f"{self.plane_scales!r}")
        if not 0.0 <= self.plane_search_max_elevation_deg <= 90.0:
            raise ValueError(f"plane_search_max_elevation_deg must be within [0, 90], got "
                             f"{self.plane_search_max_elevation_deg!r}")
        if self.hand_height_min_separation_pitch < 0.0:
            raise ValueError(f"hand_height_min_separation_pitch must be >= 0, got "
                             f"{self.hand_height_min_separation_pitch!r}")
        if self.fused_hand_top_max_nats < 0.0:
            raise ValueError(f"fused_hand_top_max_nats must be >= 0, got "
                             f"{self.fused_hand_top_max_nats!r}")
        for f in fields(self):
            if f.name in ("board_heights", "plane_scales", "plane_search_max_elevation_deg",
                          "cnn_engine", "far_side", "fused_hand_top_max_nats",
                          "wall_height", "hand_height_min_separation_pitch", "top_rim"):
                continue
            value = getattr(self, f.name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{f.name} must be within [0, 1], got {value!r}")
        if self.p_floor >= 0.5:
            raise ValueError(f"p_floor must be below 0.5, got {self.p_floor!r}")

