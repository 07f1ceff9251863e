"""Memory fit from measured zeros, by hand."""

from __future__ import annotations

import numpy as np

from fedopt.normalize.cards import Card
from fedopt.normalize.memory_fit import MemoryFit

CARDS = {"small": Card("small", 100.0, 1000.0, memory_gb=24.0), "mid": Card("mid", 100.0, 1000.0, memory_gb=48.0)}
CARDS |= {"big": Card("big", 100.0, 1000.0, memory_gb=80.0), "nospecs": None}


def test_zeros_say_which_cards_are_too_small():
    fit = MemoryFit(
        ["llm", "llm", "llm", "cnn", "cnn", "cnn"],
        ["small", "mid", "big", "small", "small", "big"],
        [8, 8, 8, 1, 2, 1],
        np.array([0.0, 0.0, 5.0, 3.0, 0.0, 9.0]),  # llm failed on 24 and 48 GB; cnn's 0 sits beside a run
        CARDS.get,
    )
    assert fit.failed_on == {"llm": 48.0} and fit.ran_on == {"llm": 80.0, "cnn": 24.0}
    assert fit.zero_cells == {("llm", "small", 8), ("llm", "mid", 8)}  # cnn's 0 on "small" is an empty cell
    assert fit.ineligible("llm", "small", 1) and fit.ineligible("llm", "mid", 4)  # no more memory than 48 GB
    assert not fit.ineligible("llm", "big", 8) and not fit.ineligible("llm", "nospecs", 8)
    assert not fit.ineligible("cnn", "small", 2) and not fit.ineligible("cnn", "mid", 1)
    assert fit.says_anything


def test_a_table_without_zeros_says_nothing():
    fit = MemoryFit(["a"], ["small"], [1], np.array([2.0]), CARDS.get)
    assert fit.failed_on == {} and fit.zero_cells == set() and not fit.ineligible("a", "small", 1)
    assert not fit.says_anything
