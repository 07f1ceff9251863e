"""Gantt chart of a horizon plan: when each placed job runs, where."""

from __future__ import annotations

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from fedopt.report._figure import new_figure
from fedopt.report.analysis import PlanView, analyze


def plot_gantt(inst, plan, view: PlanView | None = None) -> Figure | None:
    """One bar per placed job from its start slot for its duration, coloured by its (first) cluster.

    None for snapshot plans (no horizon in the instance).
    """
    if inst.horizon is None:
        return None
    view = view or analyze(inst, plan)
    hz = inst.horizon
    rows = sorted(view.placed.values(), key=lambda p: (p.start, p.start + p.duration, inst.job_ids[p.j]))
    fig = new_figure(9.0, 0.3 * len(rows) + 1.8)
    ax = fig.add_subplot()
    cmap = colormaps["tab10"]
    colors = {c: cmap(i % 10) for i, c in enumerate(inst.cluster_ids)}
    for y, pl in enumerate(rows):
        c0 = inst.cluster_ids[pl.parts[0][0]]
        ax.barh(
            y, pl.duration, left=pl.start, color=colors[c0], edgecolor="black", lw=0.4, hatch="//" if len(pl.parts) > 1 else None
        )
        job = inst.doc.jobs[pl.j]
        if job.deadline_slot is not None:
            ax.plot([job.deadline_slot], [y], marker="|", color="red", ms=12, mew=2)
    ax.set_yticks(range(len(rows)), labels=[inst.job_ids[p.j] for p in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(hz.slots, color="black", ls="--", lw=1)
    end = max([hz.slots, *(p.start + p.duration for p in rows)])
    ax.set_xlim(0, end)
    ax.set_xlabel(f"slot ({hz.slot_hours:g} h each); dashed: end of the horizon, red |: deadline")
    handles = [
        Patch(color=colors[c], label=c) for c in inst.cluster_ids if any(inst.cluster_ids[p.parts[0][0]] == c for p in rows)
    ]
    if any(len(p.parts) > 1 for p in rows):
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="split over clusters"))
    if handles:
        ax.legend(handles=handles, loc="lower right", fontsize=8)
    ax.set_title(f"Schedule: {len(rows)} placed jobs over {hz.slots} slots")
    return fig
