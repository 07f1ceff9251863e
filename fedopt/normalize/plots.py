"""Figures of the normalization evaluation, for notebooks and ``normalize --evaluate --plot``.

Throughputs of different workloads are in different units (steps/s, 1/minutes), so the figures
show unit-free quantities: the error distribution and the per-card medians.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from fedopt.normalize.scores import errors
from fedopt.report._figure import new_figure

# (column, label, colour): the model and the two baselines the issue names
_SERIES = (
    ("pred", "model", "#4c72b0"),
    ("base_mem_bw_gbs", "memory-bandwidth ratio", "#55a868"),
    ("base_bf16_tflops", "peak-TFLOPS ratio", "#c44e52"),
)


def plot_evaluation(res: pd.DataFrame, title: str = "leave-one-card-out") -> Figure:
    """Two panels from :func:`fedopt.normalize.evaluate.leave_one_card_out`'s frame: the share of
    held-out rows within each relative error (model and spec-ratio baselines), and the median
    error per held-out card (rows per card in the labels)."""
    series = [(col, label, colour) for col, label, colour in _SERIES if col in res]
    fig = new_figure(11.0, 4.2)
    left, right = fig.subplots(1, 2, width_ratios=[1.0, 1.4])
    for col, label, colour in series:
        e = np.sort(errors(res, col).dropna().to_numpy())
        if e.size == 0:
            continue
        share = np.arange(1, e.size + 1) / e.size
        left.step(100 * e, share, where="post", color=colour, label=f"{label} (median {100 * np.median(e):.1f}%)")
    left.axvline(15, color="#8c8c8c", ls=":", lw=1)
    left.set_xscale("symlog", linthresh=10)
    left.set_xlim(0, None)
    left.set_xlabel("absolute relative error, % (log past 10%)")
    left.set_ylabel("share of held-out rows")
    left.set_title(f"{len(res)} held-out rows")
    left.legend(loc="lower right", fontsize=8)

    per_card = res.assign(**{label: errors(res, col) for col, label, _ in series}).groupby("card")
    med = per_card[[label for _, label, _ in series]].median()
    counts = per_card.size()
    order = med.sort_values(series[0][1]).index
    x = np.arange(len(order))
    width = 0.8 / max(len(series), 1)
    for i, (_, label, colour) in enumerate(series):
        right.bar(x + (i - (len(series) - 1) / 2) * width, 100 * med.loc[order, label], width, color=colour, label=label)
    right.axhline(15, color="#8c8c8c", ls=":", lw=1)
    right.set_xticks(x, [f"{c} ({counts[c]})" for c in order], rotation=45, ha="right", fontsize=7)
    right.set_ylabel("median absolute relative error, % (log)")
    right.set_yscale("log")
    right.legend(loc="upper left", fontsize=8)
    right.set_title("per held-out card")
    fig.suptitle(textwrap.fill(title, 120), fontsize=10)  # a data set's description can be long
    return fig


__all__ = ["plot_evaluation"]
