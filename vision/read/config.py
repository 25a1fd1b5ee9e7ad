"""Every threshold of the cell reader, with its physical meaning, in one typed object.

Sizes are given relative to the board's cell ring diameter (read from the ``BoardSpec``) or to
the piece footprint width ``F``, never in pixels, so one configuration serves every camera
distance and resolution. Piece sizes vary between sets; the reader never reads them from a
label: it searches over the ranges below and decides heights relative to the other pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

#: Knobs that are logistic weights or biases and may be negative.
_SIGNED = frozenset({"occupancy_bias", "occupancy_hidden_bias"})


@dataclass(frozen=True)
class ReaderConfig:
    """Knobs of :func:`vision.read.read_cells`. Validated on construction."""

    # -- piece size model (relative; sets differ) ------------------------------------------
    #: Nominal footprint width F as a share of the cell ring diameter. Sets measured so far
    #: span 0.62 (issue 3 spec) to 0.85 (photoreal sets); the middle keeps the sampling
    #: offsets below valid for both ends.
    footprint_frac_of_ring: float = 0.72
    #: The set's footprint is searched around that nominal value by these factors (0.61-0.83
    #: of the ring), jointly with its two heights: seen from above, a larger top and a taller
    #: piece look alike, and only the whole board's pieces together tell them apart.
    footprint_scales: tuple[float, ...] = (0.85, 0.95, 1.05, 1.15)
    #: Fewer pieces than this cannot tell the footprint size from the heights: keep nominal.
    min_pieces_for_size: int = 3
    #: Range of piece heights searched, in footprint widths F: short pieces are 0.9-1.5 F,
    #: tall ones 1.5-2.1 times that, so 0.55-3.4 F covers every set with margin.
    min_height_f: float = 0.55
    max_height_f: float = 3.4
    #: Number of candidate heights in that range (a step of about 0.1 F).
    n_heights: int = 30
    #: Ratio tall/short searched when fitting the set's two heights (sets: 1.5-2.1).
    min_tall_short_ratio: float = 1.4
    max_tall_short_ratio: float = 2.3
    #: Range of the short height, in F (sets: 0.9-1.5 F, plus the footprint's uncertainty).
    min_short_f: float = 0.75
    max_short_f: float = 1.7
    #: Typical short and tall heights (F): nearer pieces are assumed between them while the
    #: set's heights are unknown, and a prior (weight per piece, log-units squared) keeps the
    #: short height near typical: it decides a lone piece and barely matters once pieces of
    #: both heights are on the board.
    typical_short_f: float = 1.1
    typical_tall_f: float = 2.1
    height_prior_weight: float = 1.0
    #: Candidate heights at which the top outline is matched (log-spaced over the range), and
    #: the weight of that evidence (top-likeness 0..1) against the edge contrasts (Lab units).
    n_outline_heights: int = 12
    outline_weight: float = 100.0
    #: Factors tried around each fitted height to refine it (the search grid steps 0.1 F).
    height_refine_factors: tuple[float, ...] = (0.9, 0.95, 1.0, 1.05, 1.1)
    #: Width of the tall/short odds, in z-score units of height support.
    height_margin_width: float = 0.5

    # -- sampling ---------------------------------------------------------------------------
    #: Half-angle of the far rim arc used for the top edge (degrees from the away direction).
    far_arc_half_angle_deg: float = 70.0
    #: Points on that arc.
    n_arc_points: int = 9
    #: Inner / outer sample offsets across a silhouette edge, in F. The inner one stays
    #: between the rim and a hole (hole diameter 0.55-0.67 F leaves a 0.16-0.22 F rim).
    edge_in_offset_f: float = 0.12
    edge_out_offset_f: float = 0.22
    #: Gaussian blur before sampling, in F (suppresses wood grain and sensor noise).
    blur_f: float = 0.04
    #: The board's region is resampled so that a footprint spans at most this many pixels:
    #: enough for a hole (0.6 F) and a square corner, and it bounds the time per frame.
    max_footprint_px: float = 36.0

    # -- occupancy --------------------------------------------------------------------------
    #: Occupancy logit = bias + colour_weight * (footprint's Lab distance from the bare board,
    #: capped at 40) + outline_weight * (best top-outline fit above the cell, 0..1); when
    #: nearer pieces hide the footprint, hidden_bias replaces the colour term.
    #: Fitted by logistic regression on seeded renders 1-300 (development seeds): a footprint
    #: 22 Lab units from the board is even odds on its own; a crisp top outline adds to it.
    occupancy_bias: float = -4.8
    occupancy_colour_weight: float = 0.22
    occupancy_outline_weight: float = 7.1
    #: For a cell whose footprint nearer pieces hide, the top outline has to decide: the fit
    #: on renders gave 3.4 (hidden cells are often occupied there), which invented a phantom
    #: piece behind a lone tall one; 2.7 does not, at the same accuracy on the renders.
    occupancy_hidden_bias: float = 2.7

    # -- top face ---------------------------------------------------------------------------
    #: Below this foreshortening (sine of the viewing elevation at the top face) the top face
    #: is too thin to read a hole or a square corner: 0.26 = 15 degrees.
    min_top_sine: float = 0.26
    #: Hole evidence (see ``vision.read.top``: a darker centre and an unevenly lit inner wall)
    #: that marks a hollow piece: a solid top scores about 0, a hollow one 1.5 to 4.
    hole_darkening: float = 1.5
    hole_darkening_width: float = 0.4
    #: The hole cue's inner-wall spread is taken from the middle half of the ring's samples
    #: (interquartile range, as a standard deviation) instead of all of them: a pit's wall is
    #: lit along about half its ring and shadowed along the rest, while a glint on a glossy
    #: rim lights two or three samples of sixteen, and on a dark top (the spread is divided by
    #: the top's own lightness + 10) one glint scored a solid piece 9.4, far past the hollow
    #: range (session 35, low-angle fresh game 1035203, a3: a false "all hollow"). Off:
    #: measured (helper-35h) on stills, label's board, pieces wrong dev50_low 45 -> 45, fresh
    #: 1357000+ at 25-40 degrees 23 -> 21, all of 1358000+ 107 -> 107; on the 12 fresh
    #: low games false alarms 1 -> 0 (1035203) but 1035208 ends one dark top wrong (exact
    #: 6 -> 6), session 34's 12 low games unchanged. The lead, on: fresh mixed and steep
    #: games' events identical; fresh 1359000+ label's board 120 -> 119 pieces wrong, the
    #: finder's 184 -> 182; but photoreal_dev (label's board) 22 -> 24 (tops 5 -> 8) and the
    #: accuracy ratchet's hand-crafted reader on sample_images tops 12 -> 14, shapes 16 ->
    #: 18. Left off: the tops it is meant to mend got worse on the glossier renders
    #: (docs/design.md, Live, "Fresh figures, session 35").
    hole_wall_middle_spread: bool = False
    #: A hole score past ``hole_wall_glint_from`` (the top of the hollow range above) is
    #: taken again with the inner-wall ring's this many brightest samples lowered to the next
    #: brightest, and the lower of the two kept (0 = off). A specular highlight on a glossy
    #: rim is bright and small: it lights two or three of the ring's sixteen samples (22.5
    #: degrees apart), and on a dark top (the spread is divided by the top's lightness + 10)
    #: it alone can carry a solid top far past any hollow top's score; a pit's wall is lit
    #: along a broad arc and shadowed along the rest, so its score stands without those
    #: samples. Scores within the hollow range are left as they are: there a few bright
    #: samples may be a glossy bore's own highlights (photoreal_dev's dark hollow tops), and
    #: they carry no extreme odds. Session 36 (helper-36e): fresh low-angle game 1035203's
    #: a3 (dark round tall SOLID; ring [4, 4, 4, 4, 6, 22, 31, 17, 5, 2, 3, 3, 4, 4, 4, 4],
    #: top L 4.6) scored 9.4 (a false "all hollow"), 1.6 with 3 (the game exact and
    #: silent). On: the fused reader's reports are identical on every still set measured
    #: (low and mixed dev stills, photoreal_dev, the real photos; label's board) and the
    #: hand-crafted reader's a little better (docs/design.md, Cell reader, session 36).
    hole_wall_glint_samples: int = 3
    hole_wall_glint_from: float = 4.0
    #: Outline: how much better (in top-likeness, 0..1) the best square template must fit than
    #: the disc for "square" (square pieces score about 0.1, round ones about 0).
    square_margin: float = 0.055
    square_margin_width: float = 0.025
    #: Two groups on one board (hollow/solid, square/round) are trusted when their means differ
    #: by this much; the boundary then follows the board (within one width of the above).
    hole_group_separation: float = 1.5
    square_group_separation: float = 0.06

    # -- colour -----------------------------------------------------------------------------
    #: Two colour groups are real when their lightness (L + 10) differs by this ratio.
    min_colour_ratio: float = 1.35
    #: Pieces of one colour only: judged against the board under the same light. A board below
    #: dark_board_ratio of the scene's white (L + 10) is dark, above light_board_ratio light;
    #: a piece differing from such a board by lone_piece_board_ratio is of the other colour
    #: (pale wood on a black board is about twice as light, walnut on beech about half).
    #: On a mid-tone board, lone_piece_light_ratio of the scene's white decides.
    dark_board_ratio: float = 0.45
    light_board_ratio: float = 0.7
    lone_piece_board_ratio: float = 1.6
    lone_piece_light_ratio: float = 0.55

    #: From this viewing elevation (degrees, at the cell) up, a piece's near-side colour
    #: samples (``appearance.body_colour``, the reader's light/dark and the board colour
    #: groups' side part) are placed at 0.42 of the footprint measured from the pieces' top
    #: outlines (``top.top_footprint``, over ``side_top_footprint_scales`` of the nominal)
    #: instead of the size search's: from above the search sits at its smallest size and the
    #: samples fall on the top, which mirrors the lamp on a glossy dark piece (session 36,
    #: helper-36f). 90: off.
    side_top_footprint_min_elevation_deg: float = 90.0
    side_top_footprint_scales: tuple[float, ...] = (
        0.6, 0.636, 0.674, 0.715, 0.757, 0.803, 0.851, 0.902, 0.956, 1.014, 1.075, 1.139,
        1.207, 1.28, 1.357, 1.438, 1.524, 1.616, 1.713)

    # -- visibility -------------------------------------------------------------------------
    #: Below this visible fraction a piece's attributes are reported unknown.
    min_visible_fraction: float = 0.35
    #: Probability below which an occupancy is reported empty.
    occupied_probability: float = 0.5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple) and (not value or min(value) <= 0):
                raise ValueError(f"ReaderConfig.{f.name} must be non-empty and > 0, got {value!r}")
            if f.name in _SIGNED:
                continue
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"ReaderConfig.{f.name} must be >= 0, got {value!r}")
        if not self.min_height_f < self.typical_short_f < self.typical_tall_f \
                < self.max_height_f:
            raise ValueError(
                "ReaderConfig: need min_height_f < typical_short_f < typical_tall_f < "
                f"max_height_f, got {self.min_height_f}, {self.typical_short_f}, "
                f"{self.typical_tall_f}, {self.max_height_f}"
            )
        if self.n_heights < 4 or self.n_arc_points < 3:
            raise ValueError(
                f"ReaderConfig: n_heights >= 4 and n_arc_points >= 3 needed, got "
                f"{self.n_heights}, {self.n_arc_points}"
            )
        if not 0.0 < self.occupied_probability < 1.0:
            raise ValueError(
                f"ReaderConfig.occupied_probability must be in (0, 1), got "
                f"{self.occupied_probability!r}"
            )
