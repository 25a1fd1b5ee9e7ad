"""Which grid guesses are refined: ring lattices and board outlines take turns."""

from __future__ import annotations

from vision.locate.finder import take_turns


def test_outline_guesses_do_not_crowd_out_ring_lattices():
    # Outline guesses, aligned to the most support before ranking, all score higher.
    scored = [(0.9, "outline-a"), (0.8, "outline-b"), (0.7, "outline-c"),
              (0.5, "ring-a"), (0.4, "ring-b")]
    order = [s[1] for s in take_turns(scored, lambda s: s[1].startswith("ring"))]
    assert order == ["ring-a", "outline-a", "ring-b", "outline-b", "outline-c"]
    # The first few refinements (the time limit) hold both sources.
    assert {"ring-a", "outline-a"} <= set(order[:2])


def test_one_source_alone_keeps_its_support_order():
    scored = [(0.2, 1), (0.9, 2), (0.5, 3)]
    assert [s[1] for s in take_turns(scored, lambda s: True)] == [2, 3, 1]
    assert [s[1] for s in take_turns(scored, lambda s: False)] == [2, 3, 1]
