"""Jobs the plan leaves out (pending or preempted) and why."""

from __future__ import annotations

from matplotlib.figure import Figure

from fedopt.report._figure import new_figure
from fedopt.report.analysis import PlanView, analyze

COLORS = {
    "no eligible pool": "#8172b3",
    "too large": "#937860",
    "quota": "#dd8452",
    "capacity": "#c44e52",
    "deadline": "#da8bc3",
    "other": "#8c8c8c",
}


def plot_pending(inst, plan, view: PlanView | None = None) -> Figure:
    """One bar per unplaced job: the cards it needs, coloured by its first reason."""
    view = view or analyze(inst, plan)
    rows = sorted(view.unplaced, key=lambda u: (u.category, -u.needs, inst.job_ids[u.j]))
    fig = new_figure(8.0, 0.35 * len(rows) + 1.6)
    ax = fig.add_subplot()
    if not rows:
        ax.text(0.5, 0.5, "every job is placed", transform=ax.transAxes, ha="center", va="center")
        ax.set_axis_off()
        return fig
    y = list(range(len(rows)))
    bars = ax.barh(y, [u.needs for u in rows], color=[COLORS.get(u.category, "#8c8c8c") for u in rows])
    ax.bar_label(bars, labels=[f"{u.needs}  {u.category}" for u in rows], padding=3, fontsize=8)
    ax.set_yticks(y, labels=[f"{inst.job_ids[u.j]} ({u.status})" for u in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("cards needed")
    ax.set_xlim(0, max(u.needs for u in rows) * 1.35 + 1)
    ax.set_title(f"{len(rows)} job(s) not placed, by reason")
    return fig
