"""Every threshold of board finding and tracking, in one place, with its physical meaning.

Lengths in "work pixels" refer to the downscaled image the candidates are searched in (its
width is ``work_width_px``); lengths in "ring radii" or "pitches" are in board units and so do
not depend on the image size.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.geometry.board_spec import LAYOUT_AXIS


@dataclass(frozen=True)
class LocateConfig:
    """Knobs of :func:`vision.locate.find_board`."""

    # --- candidate rings (ellipses) --------------------------------------------------------
    #: Width of the image the candidates are searched in. 960 px keeps a ring of a board that
    #: fills 25% of a 1280 px frame at about 20 px across while staying inside the time budget.
    work_width_px: int = 960
    #: Smallest / largest ring major axis, work pixels (board 25-80% of the image width).
    min_ring_axis_px: float = 9.0
    max_ring_axis_px: float = 220.0
    #: Smallest minor/major ratio of a ring: a circle seen from 20 degrees elevation (sin 20).
    min_axis_ratio: float = 0.30
    #: A contour is an ellipse when its points lie within this share of the ring radius of the
    #: fitted ellipse (median) ...
    max_fit_residual: float = 0.06
    #: ... or within this many work pixels (a line 2-3 px thick is fitted through its middle).
    min_residual_px: float = 0.9
    #: ... and cover at least this share of the ellipse's angle (rings partly hidden by a piece).
    min_angle_coverage: float = 0.4
    #: Gaussian smoothing before thresholding, work px: removes sensor-noise speckle while a
    #: 1-2 px ring line survives.
    smooth_sigma_px: float = 1.2
    #: Adaptive-threshold window (work px) and offset (grey levels) for thin ring lines.
    line_block_px: int = 15
    line_offset: float = 6.0
    #: Polygon simplification tolerance for square cells, share of the outline length.
    quad_epsilon: float = 0.04
    #: Most candidates kept (best fits first): bounds the lattice search on cluttered scenes.
    max_candidates: int = 120
    #: Two candidates closer than this share of their major axis are the same ring.
    duplicate_dist: float = 0.25

    # --- lattice ---------------------------------------------------------------------------
    #: Neighbouring cell distance over ring radius: 2 x pitch / diameter; Gigamic 2.2,
    #: home-made boards up to 2.8, and up to 3.2 when a thick ring's inner edge is the
    #: candidate. The diagonal half-density lattice of a Gigamic grid (2.2 x sqrt 2 = 3.1)
    #: also fits; verification rejects it (its half-cell control lands on the other rings).
    min_pitch_over_radius: float = 1.9
    max_pitch_over_radius: float = 3.4
    #: A candidate joins the lattice when within this share of a pitch of its predicted place.
    inlier_tol_pitch: float = 0.22
    #: Its axes must agree with the ring the lattice predicts there within this ratio.
    size_tol: float = 0.35
    #: A lattice with more candidates than this outside its best 4x4 window is a bigger
    #: pattern (tiles, a tablecloth), not a board; a few are spare pieces or clutter.
    max_outside_inliers: int = 3
    #: Fewest candidates on a lattice hypothesis (the seed pair and one more ring).
    min_lattice_inliers: int = 3
    #: Neighbouring rings differ in size by at most this factor (perspective, wide lens).
    neighbour_size_ratio: float = 1.43
    #: Most seed pairs tried (strongest candidates first), bounding the time on clutter.
    max_seed_pairs: int = 120
    #: A lattice grown to this many candidates is trusted: seed pairs that are neighbours on
    #: it are not grown again (they would give the same lattice; time on busy scenes).
    #: Smaller lattices may be wrong where another seed would grow the right one.
    explaining_inliers: int = 9

    #: A lattice of this many ring candidates fixes the grid by itself: board outlines are
    #: then not searched for grid guesses (they only matter where rings are scarce).
    rings_fix_grid: int = 10

    #: Lattice hypotheses kept, and (hypothesis, window placement) pairs fitted to the edges.
    max_lattice_hypotheses: int = 4
    max_refined_hypotheses: int = 8
    #: A fitted grid scoring this much (see ``min_board_score``) ends the search: on the
    #: development renders every grid scoring above 1.2 was the board.
    sure_board_score: float = 1.8

    # --- cell-centre network (``board_net``, ``peak_grid``) ---------------------------------
    #: Use the shipped cell-centre network for grid guesses (besides rings and outlines).
    use_board_net: bool = True
    #: How the network runs (``vision.learn.onnx_graph.ENGINES``): ``"numpy"``, the reference
    #: forward pass, or ``"opencv"`` through ``cv2.dnn`` (a pass 18% faster, ``find_board``
    #: about 1 ms, equal up to float rounding). Off by default (session 32): the last bits
    #: change the grid fits' RANSAC paths, and render 1347070 (a regression test) was placed
    #: 0.17 instead of 0.06 pitch off, found before the outline search.
    board_net_engine: str = "numpy"
    #: Weakest peak of the network's map taken as a possible cell centre (probability; the
    #: focal loss keeps true peaks' probabilities well below 1).
    peak_min_score: float = 0.25
    #: Most peaks kept, strongest first (a board has 16; the rest are clutter).
    peak_max_peaks: int = 40
    #: Peaks tried as seeds (strongest first: one of the first few is nearly always a true
    #: centre), and nearest peaks paired with each seed (a seed's 4 axis neighbours are
    #: among its 6 nearest peaks unless perspective puts the 2-step one closer).
    peak_seeds: int = 6
    peak_neighbours: int = 6
    #: Two seed steps must span an angle whose sine is at least this (15 degrees): a square
    #: lattice seen from 25 degrees and turned any way keeps its axes well apart ...
    peak_min_sin: float = 0.25
    #: ... and differ in length by at most this factor (a 25-degree view shortens one axis
    #: to about 0.42 of the other, perspective a little more).
    peak_max_step_ratio: float = 3.0
    #: A peak joins the lattice when within this share of the local step of its node.
    peak_tol_pitch: float = 0.3
    #: Fewest peaks on a lattice kept as a hypothesis. A lattice with ``peak_full_lattice``
    #: peaks in its 4x4 window explains them (they seed no other lattice), and only such a
    #: lattice is fitted by itself before the ring search (three quarters of the cells).
    peak_min_inliers: int = 6
    peak_full_lattice: int = 12
    #: Distinct peak lattices offered to the fit (each once per cell shape).
    peak_max_lattices: int = 2
    #: Ring radii tried (evenly over ``ring_radius_range``) to size a peak lattice's cells.
    peak_radius_steps: int = 10
    #: A grid fitted from a peak lattice may move each cell at most this share of a pitch
    #: from the same cell of the lattice (its peaks lie about 0.06 pitch from the true
    #: centres on held-out renders; tall pieces' outlines pull an edge fit half a cell or a
    #: whole row off).
    peak_max_drift_pitch: float = 0.3
    #: A grid fitted to the network's lattice that is not sure (below ``sure_board_score``)
    #: is kept when the ring search finds no board and it scores at least this. The
    #: network's peaks count on its grid as ring candidates do (0.05 each), and on the
    #: development renders (960000+, 950000+) peaks around grids fitted 0.3-0.7 pitch off
    #: lifted 11 of them to 1.1-1.4; from 1.4 up 18 of 20 were the board. When the ring
    #: search does find a board (``min_board_score`` or more) elsewhere (more than a pitch
    #: away) that scores less, the network's grid stands: of two places that pass the
    #: judge, the better judged (session 27: a chequered cloth beside a crowded board at 31
    #: degrees, 1.23 against the board's 1.35).
    min_peak_board_score: float = 1.4
    #: The network's unsure grid scoring under ``peak_unsure_corner_score`` is refused when
    #: the board's four sides, searched around the square its grid and layout imply
    #: (``finder.outline_corner_pitch``), are found with a corner more than this many
    #: pitches from that square (sides not found at all do not count: a crowded low view
    #: hides them). Such a grid is a row off or turned on the pieces' feet and bodies, and
    #: the board's own outline says where it lies instead (session 33, 1357403: 0.96 pitch
    #: off at 1.404, corner 1.19; 1357425: 0.50 off at 1.426, corner 1.80). ``math.inf``
    #: turns the check off (docs/design.md, session 34, for the figures).
    peak_unsure_max_corner_pitch: float = 1.0
    peak_unsure_corner_score: float = 1.5
    #: ... and a grid so refused is still taken when no later search (enlarged, outline,
    #: radius) finds a board: the check then only ranks it after them. Refused outright
    #: (False), it lost 9 good boards of 2552 (the near side's face or a piece moves a side
    #: from low down) for 3 misplaced; ranked last, none, for 1 (1357403, then found by
    #: the enlarged search).
    peak_unsure_corner_last: bool = True

    # --- enlarged search (``finder._zoom_search``) ---------------------------------------
    #: When nothing is found, search again, scaled up to the working width, the parts of
    #: the frame where the network marked cells: a board small in the frame and seen from
    #: low down has rings too small and crowded at the working scale for the rings' search,
    #: while the network (which sees the whole board) still marks it. A grid found there
    #: passes the same judge, on the enlarged image, and is finished on the frame.
    zoom_fallback: bool = True
    #: Fewest peaks in a cluster searched again ...
    zoom_min_peaks: int = 6
    #: ... peaks closer than this many times the median distance from a peak to its
    #: nearest one being one cluster ...
    zoom_link: float = 2.5
    #: ... the region being each of these many times the cluster's extent in turn (its
    #: peaks are cell centres, 3 of the board's 4.5-5 pitches; the rest is margin for the
    #: outline, which the peaks of a partly marked board underestimate: the wider region
    #: is tried when the closer one finds nothing) ...
    zoom_extents: tuple[float, ...] = (2.0, 2.5)
    #: ... at most this many clusters, and only a region that the search sees at least
    #: this many times larger than in the working image.
    zoom_max_regions: int = 2
    zoom_min_gain: float = 1.25
    #: A grid found in an enlarged region is taken only when it scores this much (the bar
    #: ``min_peak_board_score`` sets for the network's own grid when the ring search finds
    #: nothing, for the same reason: the crop's judge counts the network's peaks too, and
    #: they lift grids fitted 0.3-0.7 pitch off over ``min_board_score``).
    zoom_min_score: float = 1.4

    # --- the search from the board's outline (``finder._outline_search``) -----------------
    #: When nothing is found (even enlarged), the grid is placed inside each board outline
    #: refined onto straight edges (``quad.refine_quad``), for each board family, its side
    #: over the pitch (the family's range in ``outline_search_side_step``) the one whose
    #: cells hold the most of the network's peaks (then the most ring support). A crowded
    #: board seen from low down hides most rings, but its four sides against the table and
    #: the pieces' feet on the cells stay in view.
    outline_search: bool = True
    outline_search_side_step: float = 0.05
    #: The outlines searched start from the regions' quadrilaterals and from the squares
    #: around up to ``outline_search_lattices`` of the network's peak lattices (any number
    #: of peaks from ``peak_min_inliers``), at these multiples of the family's nominal side.
    outline_search_lattices: int = 2
    outline_search_square_scales: tuple[float, ...] = (1.0, 1.1)
    #: Only the ``outline_search_max_grids`` grids so placed holding the most peaks are
    #: judged further (the same outline is found from several starts, and a 45-degree
    #: board's outline also places axis-aligned grids holding fewer peaks).
    outline_search_max_grids: int = 6
    #: The grid, placed as it stands and fitted to the cell outlines, is judged as any grid
    #: (the network's peaks counted on its cells); it is taken only when the board's four
    #: sides, searched again around the square the judged grid implies, are found with
    #: every corner within this many pitches of it (the outline seen whole and where the
    #: grid puts it: grids misplaced by a row or on the pieces' tops were 0.47 pitch and
    #: more off on the development misses, the boards found 0.08-0.17).
    outline_search_max_corner_pitch: float = 0.25

    # --- the network's lattices sized again (``finder._radius_search``) -------------------
    #: When every search above finds nothing, each of the network's full lattices
    #: (``peak_full_lattice`` peaks or more) is fitted again from each cell shape and each
    #: of ``radius_search_steps`` ring radii evenly over ``ring_radius_range``, instead of
    #: the one radius whose outlines meet the most edges where the lattice lies
    #: (``size_outlines``): on a crowded board seen from low down the lattice lies a few
    #: tenths of a pitch off (feet and missing cells), the pieces' outlines there make the
    #: most edges, and the fit from that radius stays on them. A grid so fitted is taken at
    #: the network's own bar (``min_peak_board_score``), the best judged one. 0 (the
    #: default) turns the search off: measured in session 33 (docs/design.md) it found 9
    #: more of 2500 development boards, one of them 0.44 pitch off; 5 is the measured value.
    radius_search_steps: int = 0

    # --- the search from the board's near sides (``finder._near_outline_search``) ----------
    #: When every search above (the network's unsure grid held last included) finds nothing,
    #: the board's outline is completed from its three sides a low camera sees past the
    #: pieces: the near side and the two running away from the camera, found along the
    #: outline searches' rough outlines (``quad.near_sides``); they fix the square up to the
    #: focal length (``quad.complete_square``), tried at each of ``near_outline_hfovs``
    #: (horizontal field of view, degrees). The ``near_outline_max_grids`` grids placed
    #: inside holding the most peaks are fitted and judged as in the outline search, and
    #: taken at ``near_outline_min_score`` when the three sides, searched again around the
    #: judged grid's square, lie within ``near_outline_max_corner_pitch`` of it. On (session
    #: 36, the lead, docs/design.md): on the held-out 1360000-499 it found 2 of the 18 boards
    #: every other search missed (both within 0.04 pitch), no found board changed, and no
    #: board on 1360500-599; a board it does not find costs 2-4 s more CPU (a frame no
    #: search places; `watch` retries only every ``retry_interval_s``).
    near_outline_search: bool = True
    near_outline_hfovs: tuple[float, ...] = (50.0, 54.0, 58.0, 62.0, 66.0, 70.0, 75.0, 80.0,
                                             86.0)
    near_outline_max_grids: int = 8
    near_outline_min_score: float = 1.4
    near_outline_max_corner_pitch: float = 0.25
    #: The near sides' edges are searched in the chroma channels (CIELAB a* and b*, smoothed
    #: as the grey image) as well as in grey (``quad.chroma_channels``), for the search and
    #: its check alike: a board's top and its side face lit alike but of different colours
    #: (a dark blue top over a dark red face) show their edge only in hue. The outlines from
    #: grey alone are kept; those the colour edges add are judged with them. On since session
    #: 37 (helper-37e; with ``near_outline_check_nearest``: +4 boards on its dev sets, none
    #: false; held out on 1361000-599 no board gained, p99 16.2% -> 15.3%, none false).
    near_outline_chroma: bool = True
    #: The check (``finder.near_side_pitch``) takes, on the near side, the line nearest the
    #: judged grid's square, as on the lateral sides, instead of an inner line parallel to
    #: it: around a right grid's square the nearest line is the top's edge (or the foot's,
    #: when the layout's side took the foot), and the inner parallel one the first row of
    #: rings or the pieces' feet, which refused right grids a pitch off. On since session 37.
    near_outline_check_nearest: bool = True
    #: The near-side search judges its grids' ring contrast on the rings' near sides
    #: (``verify.near_arc_contrast``; the outline side facing the camera's foot, under the
    #: default field of view, ``near_arc_min_cos``) instead of their whole outlines; every
    #: check is the same, only the score's contrast term changes. From 25-35 degrees a
    #: crowded board's pieces hide the far side of each ring and the rings behind them and
    #: give the half-cell control edges of their own, so a right grid's whole-outline
    #: contrast falls to 0.13-0.28 and the search's bar (``near_outline_min_score``) refuses
    #: it; the near side of a ring lies in front of its piece's foot, where no piece hides or
    #: imitates it. Session 38 (helper-38e); on since session 39 with the four below
    #: (helper-39d; held-out fresh1363: found 97.4 -> 98.0%, no false board of 100).
    near_outline_arc_contrast: bool = True
    #: The near-side search's score reads the board's frame (its square outline and, for the
    #: 45-degree layout, its big circle, at the side and radius ``fit_layout`` chose) on the
    #: part facing the camera's foot only (``layout.near_frame_score``, ``near_arc_min_cos``):
    #: from 25-35 degrees the pieces stand in front of the board's far side and the far half
    #: of its circle, so a right grid's whole frame scores 0.5-0.87 while its near side
    #: scores 0.66-1.0 (session 39). The check (``min_frame_support``) stays the whole
    #: frame's. Session 39 (helper-39d; docs/history/locate.md), on.
    near_outline_near_frame: bool = True
    #: The near-side search's ring-contrast checks (``min_ring_contrast``: the cells against
    #: the half-cell control, and clear of the board's outline) read on the rings' near sides
    #: (``verify.near_arc_contrast``, ``contrast_clear_of_outline(arcs=)``) instead of their
    #: whole outlines, for the reason ``near_outline_arc_contrast`` gives; the window's
    #: contrast with the positions around it stays whole. Session 39 (helper-39d), on.
    near_outline_arc_gates: bool = True
    #: More starts for the near-side search: the smallest rectangle around the network's
    #: peaks (at least 4), grown about its centre by each of these factors. From 25-35
    #: degrees the peaks of a crowded board sit on its pieces, whose lattices imply squares
    #: pitches off and whose regions cut the board's outline (no start near the board), but
    #: together they cover the 4x4 cells (3 pitches of a 5.5-pitch board, lifted towards the
    #: far side), so the grown rectangle lies within ``quad_refine_reach`` of the board's
    #: sides. Empty: off. Session 39 (helper-39d), on.
    near_outline_peak_box_scales: tuple[float, ...] = (1.6, 1.9, 2.2)
    #: The near side is taken on its face's top edge (``quad.near_sides``) only from a
    #: parallel line at most this share of the near side's length inside the best one: the
    #: board's face is its thickness seen edge-on (13 mm of a 286 mm side, under 5% of the
    #: side from any elevation), while a line a pitch inside is the first row of rings, the
    #: big circle or the pieces' feet, which put the square a pitch too shallow. ``inf``:
    #: any parallel line (off). Session 39 (helper-39d), on.
    near_outline_face_max_share: float = 0.07

    # --- board outlines (quadrilaterals) --------------------------------------------------
    #: Width of the image searched for board outlines: the outline is big, 480 px is plenty.
    quad_width_px: int = 480
    quad_smooth_px: float = 1.0
    #: Canny thresholds (grey levels per pixel) for the outline edges.
    quad_canny: tuple[float, float] = (20.0, 50.0)
    #: Smallest outline, as a share of the image area (a board 25% as wide as the image seen
    #: at 25 degrees covers about 1.5%).
    quad_min_area: float = 0.01
    #: Area inside the region's outline over its convex hull: a board's outline is only
    #: dented where pieces or a hand cross it.
    quad_min_solidity: float = 0.7
    #: Polygon simplification tolerance (share of the hull's perimeter) before the four
    #: longest sides are taken.
    quad_eps: tuple[float, ...] = (0.01,)
    #: Each of the four sides must be at least this share of the perimeter (a square: 0.25).
    quad_min_side: float = 0.08
    #: The quadrilateral's area must be within this ratio of the hull's (no cut-off shapes).
    quad_min_fill: float = 0.85
    max_quads: int = 4
    #: Larger blobs (share of the image) are the table, not a board.
    quad_max_area: float = 0.9
    #: Two outlines whose corners all lie within this share of their size are one.
    quad_same_tol: float = 0.08
    #: A chroma channel (CIELAB a* or b*, 8-bit units) is cut into regions only when its
    #: standard deviation over the image exceeds this: below it the scene has no hue
    #: difference a board could stand out by, and Otsu's threshold would cut sensor noise.
    quad_min_chroma_std: float = 2.5
    #: Straight runs of a region's contour (pieces standing in front of a board side break
    #: it into runs): runs shorter than this share of the perimeter are ignored ...
    quad_run_min_side: float = 0.04
    #: ... runs within this angle (degrees) and this share of the perimeter of one line
    #: are one side ...
    quad_run_parallel_deg: float = 6.0
    quad_run_offset: float = 0.015
    #: ... and consecutive sides of the four heaviest lines turn by this range (degrees; a
    #: square's sides seen from 25 degrees elevation and a wide lens stay within it).
    quad_run_turn_deg: tuple[float, float] = (35.0, 145.0)
    #: The runs' quadrilateral must have this share of the region's area, and at most its
    #: inverse (pieces sticking out add area, the big circle's holes remove some).
    quad_run_min_fill: float = 0.6
    #: Opening kernel for the brightness regions, share of the image width: removes pieces
    #: sticking out of the board's outline (a piece is about 3% of the width when the board
    #: fills 25%), keeps the board.
    quad_open_frac: float = 0.03
    #: Neighbourhood of the local brightness threshold, share of the image width.
    quad_block_frac: float = 0.35
    #: Each outline's sides are also moved onto the straight edges along them
    #: (:func:`vision.locate.quad.refine_quad`): edges searched at this many places per
    #: side, from the first share of the side's length outside it to the second inside
    #: (pieces standing out of the board only push an outline out, by up to a tall piece's
    #: image height); a line needs this share of the places within ``quad_refine_tol_px``
    #: of it; a corner may move at most this share of the outline's size (square root of
    #: its area).
    quad_refine_samples: int = 40
    quad_refine_reach: tuple[float, float] = (0.06, 0.25)
    quad_refine_tol_px: float = 1.5
    quad_refine_min_share: float = 0.3
    quad_refine_max_move: float = 0.35
    #: Board families tried inside an outline: (grid rotation deg, side / pitch, cell
    #: radius / pitch, cell shape). Gigamic: pitch 0.18 side, rings 0.165 side; home-made:
    #: pitch 0.22 side, rings 0.73 pitch or square cells 0.94 pitch wide.
    board_families: tuple[tuple[float, float, float, str], ...] = (
        (45.0, 5.55, 0.455, "circle"),
        (0.0, 4.55, 0.365, "circle"),
        (0.0, 4.55, 0.47, "square"),
    )

    # --- refinement, layout, verification --------------------------------------------------
    #: Coarse search before the fit: grid scalings and shifts (pitches) tried around a guess.
    #: The outline guess errs by up to a third of a cell (pitch/side ratio 0.17-0.19 of the
    #: side; the side face taken for the top); a lattice guess by a tenth.
    coarse_scales: tuple[float, ...] = (0.9, 1.0, 1.1)
    coarse_shifts: tuple[float, ...] = (-0.3, 0.0, 0.3)
    #: Edge search half-lengths of the successive fitting rounds, as shares of the cell
    #: pitch in the image: wide first (the lattice guess may be off by a fifth of a cell).
    reach_schedule: tuple[float, ...] = (0.2, 0.12, 0.06, 0.03)
    #: The same for a grid fitted from the network's peak lattice (``peak_grid``), whose
    #: peaks lie about 0.06 pitch from the cell centres; None: ``reach_schedule``. Off
    #: (session 34, design.md): from 0.12 (or without the 0.12 round) a median frame gains
    #: about 1 ms, but lattices that lie up to 0.15 pitch off end unsure and run the
    #: ring search (+50 ms a frame on average).
    peak_reach_schedule: tuple[float, ...] | None = None
    #: The grid the judge chose is fitted once more, from ``near_arc_reaches`` (shares of
    #: the pitch), to the side of each cell outline that faces the camera's foot only
    #: (``fit.NearArcs``; an outline sample is kept when its outward normal makes at least
    #: ``near_arc_min_cos`` with the direction to the foot, about 56% of a ring), when the
    #: camera looks down at ``near_arc_min_elevation_deg`` or more: seen from high up, a
    #: round top of a ring's size stands just beyond the far side of its ring, and on a
    #: crowded board those tops pulled whole grids a tenth of a cell off. From low views the
    #: tops stand far above their rings, and the far arcs are what pins the rows (a render
    #: at 30 degrees lost 0.05 pitch refitted). Session 23 (design.md): grids closer on
    #: every render set measured, readings unchanged within their noise.
    near_arc_refit: bool = True
    near_arc_min_cos: float = -0.2
    near_arc_reaches: tuple[float, ...] = (0.2, 0.12, 0.06, 0.03)
    near_arc_min_elevation_deg: float = 60.0
    #: Views from lower down refitted on the near arcs too, with the ring radius held at
    #: the judged grid's (session 29, design.md): a crowded board's far arcs there are
    #: hidden or imitated by the pieces' silhouettes, and near arcs alone cannot tell a
    #: ring's size from its place along the line of sight, which the held radius fixes.
    #: Grids of the main search only (not the zoomed or outline-search fallbacks'). Off:
    #: the grids came closer (all cells within 5% 88.2 -> 89.8% of 2246 dev boards) but
    #: the p99 did not, and the readings at 25-40 degrees got worse.
    near_arc_low_views: bool = False
    #: The final work-image grid fitted once more to the outlines of the cells judged
    #: empty only (``finder.occupied_cells``), from ``occupancy_refit_reaches`` (shares of
    #: the pitch), when at least ``occupancy_refit_min_empty`` cells are: a dark piece's
    #: foot and silhouette on a light board are edges of a ring's own polarity, standing
    #: where its arcs are (session 31, design.md). Off: on 2800 dev boards within 5%
    #: 88.5 -> 89.2% and a tenth off 157 -> 151, but p99 worse on two of six sets and one
    #: board more half a pitch off; the boards off are crowded, with too few empty cells
    #: (even the label's occupancy gained only p99 15.4 -> 15.3%).
    occupancy_refit: bool = False
    occupancy_refit_min_empty: int = 6
    occupancy_refit_reaches: tuple[float, ...] = (0.2, 0.12, 0.06, 0.03)
    occupancy_grey_share: float = 0.25
    #: The judged grid, when its marking is an edge (a step, which a piece's silhouette or
    #: foot makes too) and the board's outline did not place it, fitted again from it as a
    #: thin line of either polarity (an engraved or printed ring, which no piece imitates),
    #: from ``reach_schedule``; the refit judged with the network's peaks as the evidence
    #: replaces the grid when it beats the grid's own judgement (the same evidence) by more
    #: than ``line_marking_recheck_margin`` (``finder._line_marking_recheck``; session 35,
    #: helper-35e). Off: on the 120 boards of fresh 1357000+/1358000+ with a cell past 5%
    #: and 200 good ones, 16 boards closer and 7 farther (within 5% 200 -> 206 of 320); on
    #: 100 new dev stills 5 closer, 3 farther, within 5% 84 -> 83, p99 unchanged; and
    #: 25-30 ms CPU more per image (two fits and three judgements on every edge-marked
    #: board, about half of them).
    line_marking_recheck: bool = False
    line_marking_recheck_margin: float = 0.0
    #: Wherever the fit decides the cells' marking (``fit._best_marking``) and the matches
    #: agreeing best on one grid are an edge marking, a line marking (a thin printed or
    #: engraved ring: no piece's foot or silhouette makes one) is taken instead when its own
    #: RANSAC inliers are at least this share of the edge's (``EdgeConfig.line_share``;
    #: session 36, helper-36g). 0: off. Off: 0.5 with ``line_both_sides`` on 150 dev
    #: stills (3476000+) brought 8 boards closer (gigamic_black) and 12 farther, within 5%
    #: 90.5 -> 91.2% but p99 10.2 -> 18.3%; photoreal_dev one board 0.006 -> 0.106.
    marking_line_share: float = 0.0
    #: A line marking's contrast is the smaller of its steps to either side (a ridge or a
    #: valley stands out from both), not the step to their mean, which a step edge (a
    #: piece's silhouette or foot) passes at half its height (``EdgeConfig.line_both_sides``;
    #: session 36, helper-36g). Off: on 150 dev stills p99 10.2 -> 13.0%, 5 boards closer,
    #: 7 farther (faint rings lose their line points and an edge marking wins).
    line_both_sides: bool = False
    #: The marking chosen by the cells whose outlines agree on it rather than by the
    #: inliers summed over the grid: the marking with most cells holding at least this
    #: share of their outline samples as RANSAC inliers, then most inliers
    #: (``EdgeConfig.cell_share``; session 36, helper-36g). 0: off. Off: at 0.34 it
    #: mostly chose what the inliers choose, and where not it lost: on 150 dev stills
    #: 1 board closer, 4 farther, p99 10.2 -> 11.7%.
    marking_cell_share: float = 0.0
    #: Screen the markings (``fit._best_marking``: edges or lines, either polarity) by the
    #: count of each one's edges within the RANSAC inlier distance of the grid being fitted,
    #: which needs no fit, instead of a quick RANSAC of ``EdgeConfig.marking_screen_iters``
    #: iterations each (``EdgeConfig.screen_near``; session 38, helper-38g). On since
    #: session 38: about 3.4-5.7 ms less a median frame (paired, dev); held out
    #: (1362000-599) the same boards found, none false, p99 and median the same, every
    #: cell within 5% 88.6 -> 88.8%, focal within 5% 88 -> 89%. The board tracker keeps
    #: the quick RANSACs.
    marking_screen_near: bool = True
    #: Seen from ``outline_grid_min_elevation_deg`` up (under the default field of view,
    #: which places views 5-10 degrees low), a Gigamic grid whose big circle (centred on the
    #: grid, its radius searched) is found on less than ``outline_grid_max_circle`` of its
    #: points is checked against the board's outline (``finder._outline_grid``): on a light
    #: wood board the rings barely show, and a crowded board's piece tops (a grid of their
    #: own, larger and shifted away from the camera's foot) pulled whole grids a tenth to a
    #: third of a cell off, and the big circle with them. The grid that the board's four
    #: sides place (centred and turned with the square; its side over the pitch searched over
    #: the layout's range in ``outline_grid_ratio_step`` by the support of the rings' near
    #: sides) replaces it when its big circle is found on at least ``outline_grid_min_gain``
    #: more of its points: the square and the circle both lie on the board's plane, and a
    #: side taken from a shadow or the side face leaves the circle off centre. A grid so
    #: placed is not refitted on the near arcs (its start is the arcs' best already, and
    #: the refit's first reach, a fifth of a pitch, can climb onto the tops). Session 25
    #: (design.md).
    outline_grid: bool = True
    outline_grid_max_circle: float = 0.85
    outline_grid_min_gain: float = 0.05
    outline_grid_min_elevation_deg: float = 50.0
    outline_grid_ratio_step: float = 0.02
    #: The same at full resolution, pixels (the work-image fit is already within ~1 px).
    full_res_reaches_px: tuple[float, ...] = (2.0, 1.5)
    #: Smoothing of the full-resolution image before reading edge profiles, pixels.
    full_smooth_sigma_px: float = 1.5
    #: Margin (pixels) around the grid's extent kept for the full-resolution fit: the edge
    #: search reach and profile padding (about 5 px) plus the smoothing's support (3 sigma)
    #: plus the grid's move during the fit, with room to spare.
    full_res_margin_px: float = 16.0
    #: Weakest intensity step (grey levels per pixel) taken as a ring edge: above sensor
    #: noise after smoothing, below the contrast of a faint engraved ring. This is the step
    #: for a noisy image; a cleaner one (a compressed video's flat areas, a clean render)
    #: lowers it, down to ``min_edge_step_floor``, to ``edge_noise_factor`` times the
    #: image's noise (the median gradient of the smoothed working image, most of which is
    #: flat): an engraved ring on dark wood can rise only 2 grey levels per pixel there.
    min_edge_step: float = 2.0
    min_edge_step_floor: float = 1.0
    #: The median of a noise gradient's length is about 1.18 sigma of one component, so 3.5
    #: medians is about 4.1 sigma: noise alone passes it at 2 pixels in 10000 (at 3 sigma
    #: it would be 1 in 90, and a ring's edge search looks at a few pixels per sample).
    edge_noise_factor: float = 3.5
    #: Largest ratio of opposite sides of the 4x4 grid's image: a wide lens close to the
    #: board at 25 degrees elevation gives about 2.
    max_foreshortening: float = 3.0
    #: Moving the 4x4 window by a row must gain this much ring support (in whole outlines):
    #: the big circle and board edge cross the positions just outside a Gigamic grid.
    window_shift_margin: float = 1.0
    #: Board side over pitch searched per layout (Gigamic about 5.5, home-made about 4.5).
    diagonal_side_range: tuple[float, float] = (5.0, 6.3)
    axis_side_range: tuple[float, float] = (3.9, 5.2)
    #: A grid of the ring search (``finder._search``: ring lattices and board outlines)
    #: whose layout is axis-aligned with a side under this many pitches is refused: no
    #: board family's axis side is under 4.55 (the home-made board), and a side of about
    #: 4 pitches is the outer cells' own outline, a grid on the tops of tall pieces whose
    #: rims are rings of a cell's size (session 33, 1357026: 1.35 pitch off, side 4.0;
    #: 1354080: 0.93 off, side 4.0). Only the ring search's grids: the network's grids of
    #: good home-made boards often measure about 4. 0 turns the check off
    #: (docs/design.md, session 34, for the figures).
    ring_search_min_axis_side: float = 4.2
    side_step: float = 0.05
    #: Big circle radius over board side (Gigamic about 0.47-0.49).
    big_circle_range: tuple[float, float] = (0.44, 0.50)
    #: Typical big circle radius over side, used when only the circle is seen.
    circle_over_side: float = 0.475
    #: The board around the grid (its outline, or the big circle) must have this share of its
    #: predicted points on image edges: a grid on a cluster of spare pieces has no board
    #: around it. Real boards score 0.45 and up even when pieces or a hand cross the outline.
    min_frame_support: float = 0.35
    #: Cell-outline points closer than this (pitches) to the board's square outline do not
    #: count as ring evidence: the edge there is the board's. Real boards keep their cells
    #: inside a border (Gigamic about 0.2 pitch from the edge, home-made about 0.3), while a
    #: grid laid over any rectangle (a box, a phone) finds its outer "rings" on its outline.
    outline_clearance_pitch: float = 0.15
    #: Points sampled along each board edge / the big circle when scoring a layout ...
    outline_samples: int = 40
    #: ... along this middle share of each edge (pieces and shadows gather at the corners).
    outline_span: float = 0.85
    #: Ring radius over pitch the fit may settle on (Gigamic 0.46, home-made 0.37, square
    #: cells 0.47 half-side); outside it the previous value is kept.
    ring_radius_range: tuple[float, float] = (0.34, 0.53)
    #: A board is accepted when the share of its ring-outline points on aligned image edges
    #: exceeds the share for the same rings moved half a cell by at least this much.
    min_ring_contrast: float = 0.12
    #: A cell counts as seen when this share of its outline lies on aligned edges, and a
    #: board needs this many seen cells (pieces and a hand hide the others).
    cell_seen_support: float = 0.3
    min_cells_seen: int = 3
    #: Ring candidates (closed ellipses) or cell peaks of the board network that must fall
    #: on the fitted grid's cells. Session 9 set it to 0 (from 1): marks that never close
    #: into a candidate (square cells, blurred engraving, crowded discs) made real boards be
    #: refused. The network's peaks count since, and 1 no longer refuses any board of dev
    #: renders 1260000-299, calibration renders 1280000-449 or photoreal_dev (session 14).
    #: It is needed again because outlines refined onto straight edges
    #: (``quad_refine_*``) fit a plain box's top exactly, and the frame then lends a grid
    #: with no cell of its own nearly all the score a board needs (no-board render 1300004).
    min_candidates_on_grid: int = 1
    #: Score added per cell holding a matching ring candidate when ranking grids (a full
    #: board of 16 weighs like a perfect outline).
    candidate_weight: float = 0.05
    #: Total evidence a board needs (ring contrast + board frame + 0.05 per matching ring
    #: candidate): boards seen well score 1.5-2.8; grids fitted to the wrong place (a cluster
    #: of pieces, a row off) rarely above 1.1 on the development renders (seeds 960000+,
    #: 8 grids refined: 6 of 11 boards scoring 1.0-1.2 were misplaced, 4 of 5 below 1.1).
    #: Saying "not found" lets the tracker try again; reporting a wrong grid would misplace
    #: every piece.
    min_board_score: float = 1.1
    #: The score of a perfectly seen board (contrast 1 + frame 1 + 16 candidates), used to
    #: report ``BoardView.score`` in 0..1.
    full_score: float = 2.8
    #: Largest alternation of cell brightness by parity (difference of means over their
    #: spread): a chequered cloth scores far above, a board with pieces about 1.
    max_chequer_contrast: float = 2.5

    # --- camera ----------------------------------------------------------------------------
    #: Field of view used when the focal length cannot be estimated (near top-down views).
    default_hfov_deg: float = 65.0
    #: The board-based focal estimate is kept only inside this field-of-view range, degrees.
    hfov_range_deg: tuple[float, float] = (30.0, 110.0)
    #: Above this camera elevation (degrees) the focal length a board *homography* implies
    #: is ill-conditioned: the first guess is then the default field of view.
    max_focal_elevation_deg: float = 72.0
    #: The focal length fitted to the matched ring edges directly (``pose.camera_from_points``)
    #: is kept up to this elevation (degrees) when its field of view is in ``hfov_range_deg``.
    #: The fit is better conditioned than the homography's: a camera aimed at a board that is
    #: not centred in its image is tilted to it even when straight above, and ~100 edge
    #: points measure that perspective. On development renders 950000+ (no lens distortion)
    #: the fitted focal length was within 5% on 98% of boards at 72-80 degrees and 74% at
    #: 85-90, against 15% and 21% for the default 65-degree field of view it replaced there.
    max_fit_focal_elevation_deg: float = 90.0
    #: Fewest matched ring-edge points to fit the camera to directly (else the homography
    #: is decomposed).
    min_camera_points: int = 40
    #: Rounds of "match ring edges to the camera's grid, refit the camera".
    camera_rounds: int = 1
    #: Refit the camera with the board's outline and big circle added to the ring edges
    #: (``layout.frame_correspondences``): a base of five pitches or more against the rings'
    #: three measures the camera's tilt and focal length better. Dev renders 870000+ (first
    #: 250): focal length within 5% under 70 degrees 84 -> 88% of boards, tops at 67 mm
    #: projected 0.0050 -> 0.0041 of the spacing (median), cell centres unchanged.
    frame_in_camera_fit: bool = True
    #: With ``frame_in_camera_fit``: fit the camera to the ring edges alone first, and
    #: search the outline along that camera's grid, the fit with the outline starting from
    #: it. Off, the camera is fitted once, to the rings and the outline searched along the
    #: rings' homography: one camera fit (about 2 ms) less, but it moves the boards within
    #: the noise rather than improving them (session 33: on fresh1355, fresh1356 and
    #: photoreal_dev p99 cell error 0.1452 / 0.1649 / 0.0985 -> 0.1443 / 0.1647 / 0.0952,
    #: focal within 5% 301 / 293 / 19 -> 302 / 292 / 19, mean cell error up on two of the
    #: three; photoreal_dev 20 of 28 moved boards worse), so it stays on.
    camera_rings_first: bool = True
    #: Rounds of "match the outline's edges to the camera's board, refit" (the outlines'
    #: offsets are fitted with the camera, so one round gets most of it: 2 rounds gained
    #: 1 point of focal-within-5% for 3 ms more).
    frame_rounds: int = 1
    #: How far from the outline the search for its edge reaches (pitches): the side found by
    #: the layout search is a 0.05-pitch step.
    frame_reach_pitch: float = 0.06
    #: Share of a side's (or the circle's) points that must be found on edges for it to count.
    frame_min_share: float = 0.5
    #: Edge points farther than this (pitches) from their side's median line are left out
    #: (pieces, hands and shadows crossing the outline).
    frame_tol_pitch: float = 0.03
    #: Fewest outline points worth a refit.
    frame_min_points: int = 20

    #: Without calibration, also fit the lens's first radial distortion coefficient (k1)
    #: to the matched edges, and keep it when it lowers their RMS below this share of the
    #: undistorted fit's and lies in ``k1_range`` (webcams: barrel, about -0.05 to -0.3).
    #: Dev renders 870000+ (first 300, under 70 degrees): focal within 5% on distorted
    #: views 70 -> 85% with undistorted views unchanged; an undistorted view's RMS drops
    #: by less than 2% in 3 of 4 cases, a distorted one's by 17% at the median.
    fit_radial_distortion: bool = True
    distortion_rms_ratio: float = 0.93
    k1_range: tuple[float, float] = (-0.5, 0.3)
    #: Nominal cell pitch (metres) fixing the scale of a pose: one view cannot tell a big board
    #: far away from a small one near, and what the readers need is the pieces at their true
    #: size. Pieces are the same size on any board; a Gigamic board (27 cm, 45-degree grid)
    #: spaces them 48.6 mm apart ...
    nominal_pitch_m: float = 0.18 * 0.27
    #: ... home-made axis-aligned boards wider (``BoardSpec.axis_aligned``: 22% of a 26 cm
    #: side, 57 mm; their cell marks are about 0.73 of the pitch against Gigamic's 0.92).
    nominal_axis_pitch_m: float = 0.22 * 0.26

    def nominal_pitch_for(self, layout: str) -> float:
        """The nominal cell pitch (metres) of a board layout (``LAYOUT_AXIS`` or diagonal)."""
        return self.nominal_axis_pitch_m if layout == LAYOUT_AXIS else self.nominal_pitch_m

    def __post_init__(self) -> None:
        # Imported here, not at the top: ``vision.learn``'s package imports the fused reader,
        # which uses the finder's sampler, so a top-level import would make importing this
        # module first a circular import (tests/test_imports.py).
        from vision.learn.onnx_graph import check_engine

        check_engine(self.board_net_engine)
        if self.work_width_px < 160:
            raise ValueError(f"work_width_px must be >= 160, got {self.work_width_px}")
        if not 0.0 < self.min_axis_ratio < 1.0:
            raise ValueError(f"min_axis_ratio must be in (0, 1), got {self.min_axis_ratio}")
        if self.nominal_pitch_m <= 0 or self.nominal_axis_pitch_m <= 0:
            raise ValueError("nominal pitches must be positive, got "
                             f"{self.nominal_pitch_m!r}, {self.nominal_axis_pitch_m!r}")
        if self.camera_rounds < 1:
            raise ValueError(f"camera_rounds must be >= 1, got {self.camera_rounds}")
        if not 0.0 < self.min_edge_step_floor <= self.min_edge_step or self.edge_noise_factor < 0:
            raise ValueError("need 0 < min_edge_step_floor <= min_edge_step and "
                             f"edge_noise_factor >= 0, got {self.min_edge_step_floor!r}, "
                             f"{self.min_edge_step!r}, {self.edge_noise_factor!r}")
        if self.frame_rounds < 1:
            raise ValueError(f"frame_rounds must be >= 1, got {self.frame_rounds}")
        if not 0.0 < self.frame_min_share <= 1.0:
            raise ValueError(f"frame_min_share must be in (0, 1], got {self.frame_min_share}")
        if not 0.0 < self.distortion_rms_ratio <= 1.0:
            raise ValueError(
                f"distortion_rms_ratio must be in (0, 1], got {self.distortion_rms_ratio}")
        if not self.k1_range[0] < 0.0 < self.k1_range[1]:
            raise ValueError(f"k1_range must hold 0 inside it, got {self.k1_range}")
        if self.min_lattice_inliers < 3:
            raise ValueError(
                f"min_lattice_inliers must be >= 3 (two steps of the lattice), "
                f"got {self.min_lattice_inliers}")
        if self.line_block_px % 2 == 0 or self.line_block_px < 3:
            raise ValueError(f"line_block_px must be odd and >= 3, got {self.line_block_px}")
        if (self.zoom_min_peaks < 2 or self.zoom_link <= 0 or self.zoom_max_regions < 1
                or not self.zoom_extents or min(self.zoom_extents) <= 1.0
                or self.zoom_min_gain < 1.0):
            raise ValueError(
                "the enlarged search needs zoom_min_peaks >= 2, zoom_link > 0, "
                "zoom_max_regions >= 1, zoom_extents all > 1 and zoom_min_gain >= 1, got "
                f"{self.zoom_min_peaks!r}, {self.zoom_link!r}, {self.zoom_max_regions!r}, "
                f"{self.zoom_extents!r}, {self.zoom_min_gain!r}")
        if self.peak_unsure_max_corner_pitch <= 0 or self.ring_search_min_axis_side < 0:
            raise ValueError("peak_unsure_max_corner_pitch must be > 0 (inf: off) and "
                             "ring_search_min_axis_side >= 0 (0: off), got "
                             f"{self.peak_unsure_max_corner_pitch!r}, "
                             f"{self.ring_search_min_axis_side!r}")
        if self.radius_search_steps < 0 or self.radius_search_steps == 1:
            raise ValueError("radius_search_steps must be 0 (off) or >= 2, got "
                             f"{self.radius_search_steps!r}")
        if (self.outline_search_side_step <= 0 or self.outline_search_max_corner_pitch <= 0
                or self.outline_search_lattices < 0 or self.outline_search_max_grids < 1):
            raise ValueError(
                "the outline search needs outline_search_side_step > 0, "
                "outline_search_max_corner_pitch > 0, outline_search_lattices >= 0 and "
                f"outline_search_max_grids >= 1, got {self.outline_search_side_step!r}, "
                f"{self.outline_search_max_corner_pitch!r}, {self.outline_search_lattices!r}, "
                f"{self.outline_search_max_grids!r}")


@dataclass(frozen=True)
class TrackerConfig:
    """Knobs of :class:`vision.locate.tracker.BoardTracker`."""

    #: Width of the thumbnail compared against the reference (cheap, still sees a bump).
    thumb_width_px: int = 160
    #: A global image shift larger than this (full-resolution pixels) is a camera bump.
    max_shift_px: float = 3.0
    #: Share of the ring outlines that must still lie on edges for the pose to be trusted.
    min_support_ratio: float = 0.55
    #: Seconds the support may stay low (a hand over the board) before searching again.
    max_low_support_s: float = 0.5
    #: While the camera is still, a re-found grid more than this many cell pitches away from
    #: the kept one is taken as a misfit (on a hand) unless the rings stayed hidden for
    #: ``board_moved_s`` (the board itself was moved).
    max_refind_shift_pitch: float = 0.25
    board_moved_s: float = 2.0
    #: Seconds of source time between full searches while the board is lost (a hand over the
    #: rings, a bump settling). A search costs 60-330 ms of CPU, several frames' worth: one
    #: every 0.2 s keeps a 15-30 fps loop in real time and still finds a moved board well
    #: within a second. (A pose found once after a loss is checked on the very next frame,
    #: not after this interval: ``BoardTracker`` takes it when found at the same place twice.)
    retry_interval_s: float = 0.2
    #: After a camera bump, carry the pose the board had on the last calm frame before it
    #: over to the first still frame after it, through the image motion of the board's
    #: plane (a homography of matched features, ``BumpConfig.carry_*``), and keep it when
    #: it explains that frame's rings as well as the re-found grid does. A bump moves the
    #: camera, not the board: the pose tracked before it was fitted with fewer pieces on
    #: the board, while a search from scratch on the crowded board after it can misfit the
    #: far rows by a tenth of a pitch and be kept for the rest of the game (game 1037010).
    #: On since session 38 (helper-38a): dev 1037010 never recovered -> 0.47 s (0.018 pitch
    #: after); the other 14 dev bump videos and the 5 held-out ones (1038003/010/017/103/
    #: 110) unchanged, no pose carried there.
    carry_over_bump: bool = True

    def __post_init__(self) -> None:
        if self.thumb_width_px < 32:
            raise ValueError(f"thumb_width_px must be >= 32, got {self.thumb_width_px}")
        if self.max_shift_px <= 0:
            raise ValueError(f"max_shift_px must be positive, got {self.max_shift_px}")


@dataclass(frozen=True)
class BumpConfig:
    """Knobs of the bump verifier: is a re-found pose a moved camera or a hand?"""

    #: A cell is a witness that the camera did not move when at least this share of its ring
    #: samples still lie on an edge at the kept pose (a ring shifted by 3 px or more keeps
    #: only the samples whose normal is across the shift, about a third) ...
    witness_support: float = 0.5
    #: ... and at least this share of the support it had on recent calm frames (a piece
    #: standing on the cell hides part of its ring for good).
    witness_ratio: float = 0.7
    #: This many witness cells mean the camera did not move: a hand and forearm over the
    #: board cover at most about three quarters of it.
    min_witnesses: int = 4
    #: A re-found pose far from the kept one must put this many times more ring samples on
    #: edges than the kept pose does in the same frame (a real move leaves the kept pose with
    #: chance hits only).
    min_gain: float = 1.5
    #: A pose re-found near the kept one while the camera stayed still (the rings were
    #: hidden for a while) replaces it only when it puts this many times more ring samples
    #: on edges: otherwise the board did not move, and the kept pose, fitted with more
    #: rings in view, is kept.
    near_gain: float = 1.1
    #: Two finds of a lost board agree when no cell centre moved more than this share of a
    #: cell pitch between them (a board lies still; a misfit on a moving hand does not).
    agree_pitch: float = 0.1
    #: Weight of the latest calm frame in each cell's reference ring support.
    reference_rate: float = 0.2
    #: A frame is calm (it may update the reference support) when the thumbnail shift is
    #: below this many full-resolution pixels.
    calm_shift_px: float = 1.0
    #: A shift the witness cells called a hand, held this long (seconds) by a still image,
    #: is a small camera move after all (rings moved by a few pixels stay within the
    #: witnesses' reach): the pose is refitted. A hand over the board does not hold still
    #: that long; a resting one costs one search and keeps the pose.
    steady_offset_s: float = 0.3
    #: Whole-image test of a shift (a moved camera, not a hand): the thumbnail is cut into
    #: ``whole_tiles`` x ``whole_tiles`` tiles; a tile *follows* the shift when moving the
    #: reference by it leaves at most ``follow_ratio`` of the tile's difference, and *stays*
    #: in the reverse case. A camera move drags every textured tile along, a hand changes
    #: only the tiles it covers (where moving the reference helps nothing) while the rest of
    #: the scene stays: the camera moved when the following tiles outnumber the staying ones
    #: and are at least ``min_follow_share`` of all tiles. (Bumps that tilt the camera as they
    #: move it follow in 19-36 of 36 tiles, hands in 0-2.)
    whole_tiles: int = 6
    follow_ratio: float = 0.8
    min_follow_share: float = 0.25
    #: Carrying a pose over a bump (``TrackerConfig.carry_over_bump``): ORB features of the
    #: last calm frame inside the board's outline (grown by ``carry_margin_pitch`` cell
    #: pitches: the table around it is nearly the same plane) are matched to the still
    #: frame's, and a homography fitted by RANSAC (``carry_ransac_px``) ...
    carry_features: int = 1000
    carry_margin_pitch: float = 0.5
    carry_ransac_px: float = 3.0
    #: ... is trusted with at least this many inlier matches and this share of the matches
    #: (a frame that does not show the board's surface, or a board moved on the table,
    #: leaves few).
    carry_min_inliers: int = 40
    carry_min_inlier_share: float = 0.3
    #: The homography is then refined on every pixel of the calm frame's board region
    #: (``cv2.findTransformECC``) at this share of full resolution (0: not refined).
    carry_ecc_scale: float = 0.5
    #: ... and trusted when the aligned regions correlate at least this well (ECC's own
    #: score): the same scene seen from a moved camera aligns at 0.995-0.999 (1037010,
    #: 1037110's bump); a hand over the board between the two frames left 0.69 (1037110 at
    #: 23.9 s, a carry 0.06 pitch off that the ring support rejected).
    carry_min_correlation: float = 0.9
    #: A carried pose within this many cell pitches of the re-found grid (every cell
    #: centre) agrees with it: the grid, fitted to the still frame's own rings, is kept
    #: (a carried pose is good to about 0.01-0.02 pitch: the table is not quite the board's
    #: plane, the pieces stand off it). Otherwise ...
    carry_agree_pitch: float = 0.05
    #: ... the carried pose replaces the re-found grid when its rings put at least this share
    #: of the re-found grid's ring samples on edges (both poses read the same frame; the
    #: carried one was fitted on a sharper, emptier view, so a tie goes to it).
    carry_min_support_ratio: float = 0.95

    def __post_init__(self) -> None:
        if self.whole_tiles < 2:
            raise ValueError(f"BumpConfig.whole_tiles must be >= 2, got {self.whole_tiles!r}")
        for name in ("witness_support", "witness_ratio", "reference_rate", "agree_pitch",
                     "follow_ratio", "min_follow_share", "carry_min_inlier_share",
                     "carry_agree_pitch", "carry_min_correlation"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"BumpConfig.{name} must be in (0, 1], got {value!r}")
        if not 0 <= self.min_witnesses <= 16:
            raise ValueError(f"BumpConfig.min_witnesses must be in 0..16, got {self.min_witnesses}")
        for name in ("min_gain", "near_gain"):
            if getattr(self, name) < 1.0:
                raise ValueError(f"BumpConfig.{name} must be >= 1, got {getattr(self, name)!r}")
        if self.calm_shift_px <= 0:
            raise ValueError(f"BumpConfig.calm_shift_px must be > 0, got {self.calm_shift_px!r}")
