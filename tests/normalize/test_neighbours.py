"""One-card workloads' neighbours, by hand (the end-to-end figures are in test_evaluate)."""

from __future__ import annotations

import numpy as np
import pytest

from fedopt.normalize.neighbours import MIN_NEIGHBOURS_ON_BOTH, OneCardRatios


def _ratios() -> OneCardRatios:
    # group 0: "solo" ran on A only; a1-a3 ran on A and B, c1 on A and C; group 1: "far" on D and E
    measured = {("solo", "A", 1): 10.0, ("far", "D", 1): 1.0, ("far", "E", 1): 2.0}
    for w in ("a1", "a2", "a3"):
        measured |= {(w, "A", 1): 1.0, (w, "B", 1): 2.0}
    measured |= {("c1", "A", 1): 1.0, ("c1", "C", 1): 5.0}
    groups = {w: 0 for w in ("solo", "a1", "a2", "a3", "c1")} | {"far": 1}
    return OneCardRatios(measured, groups)


def test_neighbours_are_those_that_ran_on_both_cards_when_there_are_enough():
    r = _ratios()
    assert set(r.one_card) == {"solo"}
    assert r.neighbours == {0: ["a1", "a2", "a3", "c1"], 1: ["far"]}
    assert MIN_NEIGHBOURS_ON_BOTH == 3
    assert r._lists[r.neighbour_set(0, "A", "B")] == ["a1", "a2", "a3"]  # three ran on A and B
    assert r._lists[r.neighbour_set(0, "A", "C")] == ["a1", "a2", "a3", "c1"]  # one did: the whole group


def test_apply_scales_the_measured_level_by_the_median_ratio():
    r = _ratios()

    def predict(wl, keys, n, use_measured, scaleout):  # every neighbour: 2 on B, 1 on A, 3 on C
        return np.array([{"A": 1.0, "B": 2.0, "C": 3.0}[k] for k in keys]) * n

    out = np.array([7.0, 7.0, 7.0, 0.0])
    wl = np.array(["solo", "solo", "a1", "solo"], dtype=object)
    r.apply(predict, wl, ["B", "A", "B", "C"], np.array([1.0, 1.0, 1.0, 1.0]), out, True)
    # solo on B: 10 x 2; on A: measured, kept as given; a1 is not a one-card workload; 0 stays 0
    assert out.tolist() == pytest.approx([20.0, 7.0, 7.0, 0.0])
    out = np.array([1.0])
    r.apply(predict, np.array(["solo"], dtype=object), ["C"], np.array([2.0]), out, True)
    # its level at its nearest measured count (1 card of A) times the neighbours' 2 cards of C over 1 of A
    assert out[0] == pytest.approx(10.0 * 6.0)
