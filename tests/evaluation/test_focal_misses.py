"""The groups of ``benchmarks/focal_misses.py`` (session 39): a focal miss is put down to a
grid off by more than the tolerance, to a lens distortion traded for the focal length, or
to neither."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "focal_misses.py"
_spec = importlib.util.spec_from_file_location("focal_misses", _PATH)
assert _spec is not None and _spec.loader is not None
fm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fm)


def _rec(maxerr: float, k1: float, k1_true: float) -> dict[str, float]:
    return {"maxerr": maxerr, "k1": k1, "k1_true": k1_true}


def test_groups() -> None:
    assert fm.group(_rec(0.01, 0.0, 0.0), 0.05) == "grid-ok"
    assert fm.group(_rec(0.20, 0.0, 0.0), 0.05) == "grid-off"
    # A distortion fitted where the lens has none, and a real one missed.
    assert fm.group(_rec(0.01, -0.25, 0.0), 0.05) == "grid-ok+k1"
    assert fm.group(_rec(0.20, 0.0, -0.17), 0.05) == "grid-off+k1"
    # A distortion fitted close to the lens's is no trade.
    assert fm.group(_rec(0.01, -0.20, -0.22), 0.05) == "grid-ok"


def test_bands() -> None:
    assert [fm.band(e) for e in (25.0, 39.9, 40.0, 59.9, 60.0, 69.9)] == [
        "25-40", "25-40", "40-60", "40-60", "60-70", "60-70"]
