"""Scores of an evaluation's rows, on tables small enough to check by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from fedopt.normalize.scores import by_card, markdown_table, median_interval, summary, targets


def test_median_interval_resamples_whole_workloads():
    # two workloads, each with rows that all err alike: a resample holds A twice (median 10%), B
    # twice (30%) or both (20%, the two middle rows' mean); one workload alone cannot move at all
    res = pd.DataFrame({"workload": ["a", "a", "b", "b"], "throughput": [1.0] * 4, "pred": [1.1, 0.9, 1.3, 0.7]})
    lo, hi = median_interval(res, level=0.9, draws=400)
    assert lo == pytest.approx(0.1) and hi == pytest.approx(0.3)
    assert median_interval(res[res.workload == "a"]) == pytest.approx((0.1, 0.1))
    assert median_interval(res, seed=3) == median_interval(res, seed=3)  # seeded
    # more workloads of the same spread narrow it around the median
    many = pd.DataFrame(
        {"workload": [f"w{i}" for i in range(200)], "throughput": 1.0, "pred": 1.0 + (pd.RangeIndex(200) % 40) / 100}
    )
    lo, hi = median_interval(many)
    assert lo <= 0.195 <= hi and hi - lo < 0.08


def test_by_card_gives_the_signed_bias_beside_the_error():
    # card A: predicted 1.2x, 1.2x and 0.9x measured: errors 20, 20, 10% (median 20%), bias +20%;
    # card B: 0.5x and 2x: errors 50% and 100% (median 75%) but no bias (the log ratios cancel)
    res = pd.DataFrame(
        {"card": ["A", "A", "A", "B", "B"], "throughput": [1.0, 2.0, 10.0, 4.0, 1.0], "pred": [1.2, 2.4, 9.0, 2.0, 2.0]}
    )
    tab = by_card(res)
    assert tab.loc["A", "rows"] == 3 and tab.loc["B", "rows"] == 2
    assert tab.loc["A", "model"] == pytest.approx(0.2) and tab.loc["A", "model_bias"] == pytest.approx(0.2)
    assert tab.loc["B", "model"] == pytest.approx(0.75) and tab.loc["B", "model_bias"] == pytest.approx(0.0, abs=1e-12)


def test_summary_and_targets_by_hand():
    # the model errs 10% on each row; the peak-TFLOPS baseline 30% and 50% on s1, 10% on s2's
    # row; the memory-bandwidth baseline 20% everywhere, the best single spec after the fact
    res = pd.DataFrame(
        {
            "source": ["s1", "s1", "s2"],
            "card": ["A", "B", "A"],
            "workload": ["w1", "w2", "w3"],
            "throughput": [1.0, 1.0, 1.0],
            "pred": [1.1, 0.9, 1.1],
            "base_bf16_tflops": [1.3, 0.5, 1.1],
            "base_mem_bw_gbs": [1.2, 0.8, 1.2],
        }
    )
    tab = summary(res).set_index("data")
    assert list(tab.index) == ["all", "s1", "s2"]
    assert tab.loc["all", "rows"] == 3 and tab.loc["all", "cards"] == 2
    assert tab.loc["s1", "model_median"] == pytest.approx(0.1)
    assert tab.loc["s1", "peak_tflops_median"] == pytest.approx(0.4)
    assert tab.loc["all", "best_spec"] == "mem_bw_gbs" and tab.loc["s2", "best_spec_mean"] == pytest.approx(0.2)
    lines = targets(tab.reset_index(), limit=0.15)
    assert lines[1].startswith("s1: median 10.0% <= 15% (met); <= half the peak-TFLOPS baseline's 20.0% (met)")
    # s2: the model's 10% is not within half the baseline's 10%
    assert lines[2].endswith("> half the peak-TFLOPS baseline's 5.0% (NOT met)")


def test_markdown_table_aligns_and_marks_missing_cells():
    tab = pd.DataFrame([{"data": "a", "rows": 3, "model_median": 0.1234}, {"data": "b", "rows": 1, "model_median": None}])
    text = markdown_table(tab, [("data", "data", "text"), ("rows", "rows", "count"), ("median", "model_median", "pct")])
    assert text.splitlines() == ["| data | rows | median |", "|---|---:|---:|", "| a | 3 | 12.3% |", "| b | 1 | - |"]
