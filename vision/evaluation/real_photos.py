"""Scoring the reader on ``../shared/real_photos/labels.json`` (real photographs).

That file has its own structure (see the folder's INDEX.md): per photo a list of labelled
pieces with ``approx_xy`` (the piece's base, i.e. its cell centre, in image pixels), the four
attributes and a ``confident`` flag; ``empty_board`` (every cell must read empty),
``all_cells_labelled`` (a cell read as occupied that matches no label is a mistake) and
``color_mapping_ambiguous`` (which metal is "light" is a convention: either consistent mapping
of the whole photo is accepted).

Labelled pieces are matched to the reported cells by image position (optimal one-to-one
matching of ``approx_xy`` to ``center_px``, accepted within ``max_match_share`` of the cell
spacing). Per-attribute accuracy counts confidently labelled pieces only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.geometry.board_spec import BoardSpec
from vision.geometry.board_view import BoardView
from vision.read.decode import hungarian
from vision.read.observation import Observation
from vision.rules.pieces import ATTRIBUTES, VALUES

#: A labelled piece matches a cell when its point lies within this share of the cell spacing.
MAX_MATCH_SHARE = 0.6

Reader = Callable[[np.ndarray], Observation]
CellReader = Callable[[np.ndarray, BoardView], Observation]


def _read_cells(frame: np.ndarray, view: BoardView) -> Observation:
    from vision.read.reader import read_cells

    return read_cells(frame, view)


def default_reader(frame: np.ndarray, cell_reader: CellReader = _read_cells) -> Observation:
    """Board finder + cell reader (the ``analyze`` pipeline)."""
    from vision.locate.report import locate

    view = locate(frame).view
    if not isinstance(view, BoardView):
        return Observation.empty()
    return cell_reader(frame, view)


def board_from_labels(entry: dict[str, Any], size_wh: tuple[int, int]) -> BoardView | None:
    """A board view fitted to the 16 labelled piece positions (the cell centres), for photos
    where every cell holds a labelled piece; None otherwise.

    The four corner cells are the corners of the points' convex hull; of the eight ways to lay
    the 4 x 4 grid on them, the one whose 16 predicted centres fit the points best is kept,
    refined with all 16 points, and turned into a camera by the board finder's corner lock.
    This measures the reader alone on real photos, with the finder's mistakes taken out.
    """
    from vision.geometry.board_spec import LAYOUT_AXIS, LAYOUT_DIAGONAL
    from vision.locate.lock import view_from_corners

    pieces = entry.get("pieces") or []
    if len(pieces) != 16:
        return None
    pts = np.array([p["approx_xy"] for p in pieces], dtype=np.float64)
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    eps = 1.0
    quad = hull
    while len(quad) > 4 and eps < 1e4:
        quad = cv2.approxPolyDP(hull.reshape(-1, 1, 2), eps, True).reshape(-1, 2)
        eps *= 1.3
    if len(quad) != 4:
        return None
    grid = np.array([[c, r] for r in range(4) for c in range(4)], dtype=np.float64)
    square = np.array([[0, 0], [3, 0], [3, 3], [0, 3]], dtype=np.float64)
    best: tuple[float, np.ndarray] | None = None
    for flip in (False, True):
        order = square[::-1] if flip else square
        for k in range(4):
            src = np.roll(order, k, axis=0)
            h = cv2.getPerspectiveTransform(src.astype(np.float32), quad.astype(np.float32))
            pred = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), h).reshape(-1, 2)
            cols = hungarian(np.linalg.norm(pred[:, None] - pts[None], axis=2))
            err = float(np.median(np.linalg.norm(pred - pts[cols], axis=1)))
            if best is None or err < best[0]:
                best = (err, cols)
    assert best is not None
    h_all, _ = cv2.findHomography(grid, pts[best[1]])
    if h_all is None:
        return None
    axis = "gigamic" not in str(entry.get("board", "")).lower()
    layout = LAYOUT_AXIS if axis else LAYOUT_DIAGONAL
    spec = BoardSpec.axis_aligned() if axis else BoardSpec.gigamic()
    a = np.radians(spec.grid_rotation_deg)
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])  # world -> grid axes
    uv = spec.corners() @ rot.T
    corners_grid = np.column_stack([uv[:, 0] / spec.cell_pitch_m + 1.5,
                                    1.5 - uv[:, 1] / spec.cell_pitch_m])
    corners = cv2.perspectiveTransform(corners_grid.reshape(-1, 1, 2), h_all).reshape(-1, 2)
    try:
        return view_from_corners(corners, size_wh, layout)
    except ValueError:
        return None


def _spacing(centres: np.ndarray) -> float:
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def score_photo(entry: dict[str, Any], obs: Observation,
                max_match_share: float = MAX_MATCH_SHARE) -> dict[str, Any]:
    """Score one photo's observation against its ``labels.json`` entry."""
    pieces = entry.get("pieces") or []
    out: dict[str, Any] = {"file": entry["file"], "board_found": bool(obs),
                           "labelled": len(pieces), "mistakes": []}
    if not obs:
        out["mistakes"].append("board not found")
        return out
    centres = np.array([c.center_px for c in obs.cells])
    spacing = _spacing(centres)
    matched: dict[int, int] = {}
    if pieces:
        pts = np.array([p["approx_xy"] for p in pieces], dtype=np.float64)
        cols = hungarian(np.linalg.norm(pts[:, None] - centres[None], axis=2))
        for k, c in enumerate(cols):
            if np.linalg.norm(pts[k] - centres[c]) <= max_match_share * spacing:
                matched[k] = int(c)
            else:
                out["mistakes"].append(f"{pieces[k]['position']}: no cell near {pts[k].tolist()}")
    occ_err = 0
    for k, c in matched.items():
        if obs.cells[c].piece is None:
            occ_err += 1
            out["mistakes"].append(f"{pieces[k]['position']}: read as empty")
    if entry.get("empty_board") or entry.get("all_cells_labelled"):
        used = set(matched.values())
        for c, reading in enumerate(obs.cells):
            if reading.piece is not None and c not in used:
                occ_err += 1
                out["mistakes"].append(f"{reading.cell.name}: read as occupied, no piece there")
    out["occupancy_errors"] = occ_err
    # Attributes of confidently labelled, matched, read pieces.
    pairs = [(pieces[k], obs.cells[c]) for k, c in matched.items()
             if pieces[k].get("confident") and obs.cells[c].piece is not None]
    # Colour names of an ambiguous set (e.g. steel and bronze) map to light/dark whichever way
    # agrees best with the reading, consistently for the whole photo.
    colour_map = {"light": "light", "dark": "dark"}
    if entry.get("color_mapping_ambiguous"):
        names = sorted({p["color"] for p, _ in pairs})
        if len(names) == 2:
            options = [dict(zip(names, VALUES["color"], strict=True)),
                       dict(zip(names, VALUES["color"][::-1], strict=True))]
            colour_map = max(options, key=lambda m: sum(
                r.attribute("color") == m[p["color"]] for p, r in pairs))
    per_attr = {a: {"judged": 0, "right": 0} for a in ATTRIBUTES}
    all_right = 0
    for p, r in pairs:
        wrong = []
        for a in ATTRIBUTES:
            truth = colour_map.get(p[a], p[a]) if a == "color" else p[a]
            if truth not in VALUES[a]:
                continue  # labelled as unsure ("unknown"): not judged
            per_attr[a]["judged"] += 1
            value = r.attribute(a)
            if value == truth:
                per_attr[a]["right"] += 1
            else:
                wrong.append(f"{a} {truth}->{value}")
        if wrong:
            out["mistakes"].append(f"{p['position']} ({r.cell.name}): " + ", ".join(wrong))
        else:
            all_right += 1
    out["attributes"] = per_attr
    out["pieces_judged"] = len(pairs)
    out["pieces_all_right"] = all_right
    out["colour_mapping"] = colour_map
    return out


def score_real_photos(labels_path: str | Path, reader: Reader | None = None, *,
                      oracle_board: bool = False,
                      cell_reader: CellReader = _read_cells) -> dict[str, Any]:
    """Score every photo of a ``labels.json``; returns per-photo results and totals.

    ``cell_reader`` reads the cells on a found board (default: the hand-crafted reader);
    ``reader`` replaces the whole frame-to-observation step. With ``oracle_board``, photos whose
    16 cells are all labelled are read on a board fitted to the labels
    (:func:`board_from_labels`); the others still go through the board finder.
    """
    labels_path = Path(labels_path)
    entries = json.loads(labels_path.read_text())
    if not isinstance(entries, list):
        raise ValueError(f"{labels_path}: expected a JSON list of photos")
    if reader is None:
        def reader(frame: np.ndarray) -> Observation:
            return default_reader(frame, cell_reader)
    photos = []
    for entry in entries:
        frame = cv2.imread(str(labels_path.parent / entry["file"]), cv2.IMREAD_COLOR)
        if frame is None:
            photos.append({"file": entry["file"], "board_found": False,
                           "mistakes": ["cannot read image"]})
            continue
        view = board_from_labels(entry, (frame.shape[1], frame.shape[0])) if oracle_board \
            else None
        obs = cell_reader(frame, view) if view is not None else reader(frame)
        result = score_photo(entry, obs)
        result["board_from_labels"] = view is not None
        photos.append(result)
    totals = {a: {"judged": 0, "right": 0} for a in ATTRIBUTES}
    for ph in photos:
        for a, t in ph.get("attributes", {}).items():
            totals[a]["judged"] += t["judged"]
            totals[a]["right"] += t["right"]
    return {
        "photos": photos,
        "boards_found": sum(bool(p["board_found"]) for p in photos),
        "occupancy_errors": sum(p.get("occupancy_errors", 0) for p in photos),
        "attributes": {a: dict(t, accuracy=(round(t["right"] / t["judged"], 3)
                                           if t["judged"] else None))
                       for a, t in totals.items()},
    }


def format_real_report(result: dict[str, Any]) -> str:
    """Plain-text summary of :func:`score_real_photos`."""
    lines = [f"boards found: {result['boards_found']}/{len(result['photos'])}, "
             f"occupancy errors: {result['occupancy_errors']}"]
    lines.append("per-attribute accuracy (confident labels): " + ", ".join(
        f"{a} {t['right']}/{t['judged']}" for a, t in result["attributes"].items()))
    for ph in result["photos"]:
        how = " (fitted to the labels)" if ph.get("board_from_labels") else ""
        lines.append(f"- {ph['file']}: board {'found' if ph['board_found'] else 'NOT found'}{how}"
                     + (f", {ph.get('pieces_judged', 0)} pieces judged" if ph["board_found"]
                        else ""))
        for m in ph["mistakes"]:
            lines.append(f"    {m}")
    return "\n".join(lines)
