"""Heatmap: cards used and idle per cluster x card type."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from fedopt.report._figure import new_figure
from fedopt.report.analysis import PlanView, analyze


def plot_pool_use(inst, plan, view: PlanView | None = None) -> Figure:
    """Each cell: ``used/cards`` and the idle cards of a pool, coloured by the share used.

    For horizon plans ``used`` is the peak over the slots. Cells without a pool are blank.
    """
    view = view or analyze(inst, plan)
    used, cards = view.pool_matrix()
    types = [t for t in range(cards.shape[1]) if (cards[:, t] >= 0).any()]
    used, cards = used[:, types], cards[:, types]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(cards > 0, used / np.maximum(cards, 1), np.nan)
    n_c, n_t = cards.shape
    fig = new_figure(1.5 * n_t + 2.6, 0.7 * n_c + 1.8)
    ax = fig.add_subplot()
    cmap = colormaps["YlOrRd"].with_extremes(bad="#f0f0f0")
    im = ax.imshow(np.ma.masked_invalid(share), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(n_t), labels=[inst.card_ids[t] for t in types], rotation=30, ha="right")
    ax.set_yticks(range(n_c), labels=inst.cluster_ids)
    for c in range(n_c):
        for t in range(n_t):
            if cards[c, t] < 0:
                continue
            idle = cards[c, t] - used[c, t]
            dark = np.isfinite(share[c, t]) and share[c, t] > 0.6
            ax.text(
                t,
                c,
                f"{used[c, t]}/{cards[c, t]}\n{idle} idle",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
            )
    fig.colorbar(im, ax=ax, label="share of cards used")
    peak = " (peak over the horizon)" if view.horizon else ""
    ax.set_title(f"Cards used / cards per pool{peak}")
    return fig
