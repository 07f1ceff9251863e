"""Data reads per cluster: served from a replica in the cluster's region, or over links."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from fedopt.report._figure import new_figure
from fedopt.report.analysis import PlanView, analyze


def plot_data_reads(inst, plan, view: PlanView | None = None) -> Figure:
    """Stacked bars: local and remote read rate (Gbit/s) of the jobs placed in each cluster."""
    view = view or analyze(inst, plan)
    n = len(inst.cluster_ids)
    fig = new_figure(1.0 * n + 3.5, 4.0)
    ax = fig.add_subplot()
    x = np.arange(n)
    local, remote = view.local_read, view.remote_read
    b1 = ax.bar(x, local, color="#55a868", label="local replica")
    b2 = ax.bar(x, remote, bottom=local, color="#c44e52", label="remote (over links)")
    for bars, vals in ((b1, local), (b2, remote)):
        ax.bar_label(bars, labels=[f"{v:.3g}" if v > 0 else "" for v in vals], label_type="center", fontsize=8, color="white")
    ax.set_xticks(x, labels=inst.cluster_ids, rotation=30, ha="right")
    ax.set_ylabel("read rate, Gbit/s")
    total_l, total_r = float(local.sum()), float(remote.sum())
    share = total_r / (total_l + total_r) if total_l + total_r > 0 else 0.0
    ax.set_title(f"Data read locally {total_l:.3g} vs remotely {total_r:.3g} Gbit/s ({share:.0%} remote)")
    top = float((local + remote).max()) if n else 0.0
    ax.set_ylim(0, top * 1.3 if top > 0 else 1.0)
    ax.legend(loc="upper left", ncols=2, fontsize=8)
    if total_l + total_r == 0:
        ax.text(0.5, 0.5, "no placed job reads data", transform=ax.transAxes, ha="center", va="center")
    return fig
