"""The evaluation figure: one curve per predictor, one bar group per held-out card."""

from __future__ import annotations

import pandas as pd

from fedopt.normalize.plots import plot_evaluation


def test_plot_evaluation_draws_each_predictor_and_card():
    res = pd.DataFrame(
        {
            "card": ["A", "A", "B"],
            "throughput": [1.0, 2.0, 4.0],
            "pred": [1.1, 1.8, 4.0],  # errors 10%, 10%, 0%
            "base_bf16_tflops": [2.0, 1.0, 8.0],
            "base_mem_bw_gbs": [1.2, 2.4, 3.0],
        }
    )
    fig = plot_evaluation(res)
    left, right = fig.axes
    labels = [line.get_label() for line in left.get_lines() if not line.get_label().startswith("_")]
    assert labels[0] == "model (median 10.0%)" and len(labels) == 3
    assert len(right.patches) == 2 * 3  # two cards x three predictors
    assert [t.get_text() for t in right.get_xticklabels()] == ["B (1)", "A (2)"]  # best card first


def test_a_long_title_is_wrapped_above_both_panels():
    res = pd.DataFrame({"card": ["A", "B"], "throughput": [1.0, 2.0], "pred": [1.0, 2.2]})
    title = "leave-one-card-out (" + "a data set described at length; " * 8 + ")"
    fig = plot_evaluation(res, title=title)
    text = fig.get_suptitle()
    assert text.replace("\n", " ") == title and max(len(line) for line in text.splitlines()) <= 120
    assert fig.axes[0].get_title() == "2 held-out rows"
