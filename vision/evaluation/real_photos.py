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

from vision.read.decode import hungarian
from vision.read.observation import Observation
from vision.rules.pieces import ATTRIBUTES, VALUES

#: A labelled piece matches a cell when its point lies within this share of the cell spacing.
MAX_MATCH_SHARE = 0.6

Reader = Callable[[np.ndarray], Observation]


def default_reader(frame: np.ndarray) -> Observation:
    """Board finder + cell reader (the ``analyze`` pipeline)."""
    from vision.geometry.board_view import BoardView
    from vision.locate.report import locate
    from vision.read.reader import read_cells

    view = locate(frame).view
    if not isinstance(view, BoardView):
        return Observation.empty()
    return read_cells(frame, view)


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
    swap_colour = False
    if entry.get("color_mapping_ambiguous"):
        same = sum(r.attribute("color") == p["color"] for p, r in pairs)
        flipped = sum(r.attribute("color") not in (None, p["color"]) for p, r in pairs)
        swap_colour = flipped > same
    per_attr = {a: {"judged": 0, "right": 0} for a in ATTRIBUTES}
    all_right = 0
    for p, r in pairs:
        wrong = []
        for a in ATTRIBUTES:
            truth = p[a]
            if a == "color" and swap_colour:
                truth = VALUES[a][1 - VALUES[a].index(truth)]
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
    out["colour_mapping_swapped"] = swap_colour
    return out


def score_real_photos(labels_path: str | Path, reader: Reader | None = None) -> dict[str, Any]:
    """Score every photo of a ``labels.json``; returns per-photo results and totals."""
    labels_path = Path(labels_path)
    entries = json.loads(labels_path.read_text())
    if not isinstance(entries, list):
        raise ValueError(f"{labels_path}: expected a JSON list of photos")
    reader = reader or default_reader
    photos = []
    for entry in entries:
        frame = cv2.imread(str(labels_path.parent / entry["file"]), cv2.IMREAD_COLOR)
        if frame is None:
            photos.append({"file": entry["file"], "board_found": False,
                           "mistakes": ["cannot read image"]})
            continue
        photos.append(score_photo(entry, reader(frame)))
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
        lines.append(f"- {ph['file']}: board {'found' if ph['board_found'] else 'NOT found'}"
                     + (f", {ph.get('pieces_judged', 0)} pieces judged" if ph["board_found"]
                        else ""))
        for m in ph["mistakes"]:
            lines.append(f"    {m}")
    return "\n".join(lines)
