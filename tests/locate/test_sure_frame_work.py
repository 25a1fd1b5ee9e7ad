"""Work a sure frame's board does not need (session 34, helper-34b; design.md)."""

from __future__ import annotations

from tests.locate.synth import draw_board, make_view
from vision.locate import LocateConfig, find_board


def test_peak_lattice_reaches_are_their_own_when_set(monkeypatch):
    # ``peak_reach_schedule`` (off by default) fits a grid grown from the network's peak
    # lattice from its own reaches; grids from rings or outlines keep ``reach_schedule``.
    from vision.locate import finder

    calls: list[int] = []
    real = finder.grow_fit

    def spy(gray, H, radius, reaches, *args, **kwargs):
        calls.append(len(reaches))
        return real(gray, H, radius, reaches, *args, **kwargs)

    monkeypatch.setattr(finder, "grow_fit", spy)
    img = draw_board(make_view(elevation_deg=70.0, azimuth_deg=20.0), seed=2)
    assert find_board(img)
    assert calls and all(n == 4 for n in calls)
    calls.clear()
    cfg = LocateConfig(peak_reach_schedule=(0.12, 0.06, 0.03))
    assert find_board(img, config=cfg)
    # The synthetic board's peaks come from the network: its lattice is fitted with the
    # three reaches (other hypotheses, if any, with the four of ``reach_schedule``).
    assert 3 in calls
