"""A card the file lacks takes half of what the fit leaves of its measured siblings (Hyper.sibling_residual)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.model import Hyper, ThroughputModel
from fedopt.normalize.residuals import SiblingResiduals

ARCH = {"A": "x", "B": "x", "D": "x", "E": "z"}


def test_shift_by_hand():
    # log(measured / fitted): w on A at 1 card 0.2, at 8 cards -0.1; w on B at 8 cards -0.3 and on D
    # (another card of the architecture, in the fit) 0.9: a card that misses alone; v on A at 1 card 0.4
    cells = [("w", "A", 1), ("w", "A", 8), ("w", "B", 8), ("w", "D2", 8), ("v", "A", 1)]
    fitted = np.ones(5)
    measured = np.exp([0.2, -0.1, -0.3, 0.9, 0.4])
    res = SiblingResiduals.from_cells(cells, measured, fitted, {**ARCH, "D2": "x"}.get)
    assert res.by_arch == {"x": pytest.approx(0.2)}  # median of 0.2, -0.1, -0.3, 0.9, 0.4
    wl = np.array(["w", "w", "u", "w", "w", "w"])
    keys = ["D", "D", "D", "E", "?unknown", "A"]
    n = np.array([8, 4, 1, 8, 8, 8])
    got = res.shift(wl, keys, n, {"D", "E", "?unknown"}, lambda k: ARCH.get(k, "?"))
    # D at 8 cards: the median of the siblings' cells of w at 8 (A -0.1, B -0.3, D2 0.9), not their mean
    # 0.17; at 4: of all of w's (0.2, -0.1, -0.3, 0.9); u was never measured on the architecture: its
    # median; E's architecture is not in the fit, a card without specs has none, and A is not a card
    # the file lacks
    assert got == pytest.approx([-0.1, 0.05, 0.2, 0.0, 0.0, 0.0])


def test_a_card_the_file_lacks_takes_half_its_siblings_miss():
    m = pd.DataFrame(
        [
            ("bert", "H100", 8, 10.0),
            ("bert", "A100", 8, 5.0),
            ("bert", "L40S", 8, 1.2),
            ("resnet", "H100", 1, 50.0),
            ("resnet", "A100", 1, 20.0),
            ("resnet", "L40S", 1, 22.0),
        ],
        columns=["workload", "card_type", "cards", "throughput"],
    )
    off = ThroughputModel(hyper=Hyper(sibling_residual=0.0)).fit(m)
    on = ThroughputModel(hyper=Hyper(sibling_residual=0.5)).fit(m)
    q = pd.DataFrame(
        {"workload": ["bert", "resnet", "bert", "bert"], "card_type": ["A30", "A30", "A100", "MI300X"], "cards": [8, 1, 8, 8]}
    )
    p_off, p_on = off.predict(q), on.predict(q)
    # the A30 (Ampere, not in the file) moves by half the A100's miss on the same workload and count
    sib = pd.DataFrame({"workload": ["bert", "resnet"], "card_type": "A100", "cards": [8, 1]})
    miss = np.log(np.array([5.0, 20.0]) / on.predict(sib, use_measured=False))
    assert np.abs(miss).max() > 0.01  # the fit does leave something here
    assert p_on[:2] / p_off[:2] == pytest.approx(np.exp(0.5 * miss))
    # a measured cell and a card of an architecture the file lacks are as before
    assert p_on[2] == p_off[2] == pytest.approx(5.0) and p_on[3] == pytest.approx(p_off[3])
    assert math.isfinite(p_on[3])
