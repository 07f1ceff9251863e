"""The spec-ratio baselines and the oracle ratio, on tables small enough to check by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.baselines import oracle_ratio, ratio_prediction
from fedopt.normalize.scores import oracle_line


def test_ratio_prediction_by_hand():
    # w1 ran on A (figure 2, 10/s) and B (figure 4, 30/s) at 1 card; a hidden card of figure 8 is
    # 10 * 8 / 2 = 40 from A and 30 * 8 / 4 = 60 from B: their geometric mean, sqrt(2400) = 48.99
    train = pd.DataFrame({"workload": ["w1", "w1", "w2", "w3"], "cards": [1, 1, 1, 2], "throughput": [10.0, 30.0, 5.0, 0.0]})
    test = pd.DataFrame({"workload": ["w1", "w2", "w1", "w3"], "cards": [1, 4, 2, 2]})
    got = ratio_prediction(train, test, [2.0, 4.0, np.nan, 1.0], [8.0, 3.0, 8.0, 1.0])
    assert got[0] == pytest.approx(np.sqrt(40.0 * 60.0))
    # w2 has no row at 4 cards: its 1-card row scaled linearly (x4); its figure is unknown (ratio 1)
    assert got[1] == pytest.approx(20.0)
    # w1 at 2 cards: no row at that count, so both 1-card rows, doubled
    assert got[2] == pytest.approx(2 * np.sqrt(40.0 * 60.0))
    assert np.isnan(got[3])  # w3 only measured 0 (could not run): nothing to scale from


def test_oracle_ratio_by_hand():
    # B runs w1, w2 twice as fast as A and w3 four times: the median ratio at 1 card is 2; at 2
    # cards only w1 ran on both (ratio 3); w4 has no row on A at its count
    wl = ["w1", "w2", "w3", "w1", "w4"]
    train = pd.DataFrame({"workload": wl, "card_type": "A", "cards": [1, 1, 1, 2, 1], "throughput": [1.0, 3.0, 5.0, 2.0, 1.0]})
    test = pd.DataFrame({"workload": wl, "card_type": "B", "cards": [1, 1, 1, 2, 2], "throughput": [2.0, 6.0, 20.0, 6.0, 9.0]})
    got = oracle_ratio(train.assign(card_key="A"), test.assign(card_key="B"))
    assert got[:4] == pytest.approx([2.0, 6.0, 10.0, 6.0])
    assert pd.isna(got[4])
    line = oracle_line(test.assign(oracle=got, source="s"))
    assert line is not None and "all 0.0%" in line  # errors 0, 0, 50%, 0: median 0
