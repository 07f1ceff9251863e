"""Convergence: bound and incumbent per solver round, over time."""

from __future__ import annotations

from matplotlib.figure import Figure

from fedopt.report._figure import new_figure
from fedopt.report.analysis import as_plan_doc, history_of


def plot_convergence(plan) -> Figure | None:
    """Step lines of the bound, the incumbent (and the LP value where given) against seconds.

    None when the plan's ``stats`` hold no ``history`` (the exact method solves in one round).
    """
    rows = history_of(as_plan_doc(plan))
    if rows is None:
        return None
    timed = all(r["seconds"] is not None for r in rows)
    xs = [r["seconds"] if timed else r["round"] for r in rows]
    fig = new_figure(7.0, 4.0)
    ax = fig.add_subplot()
    for key, color, label in (("bound", "#4c72b0", "bound"), ("incumbent", "#55a868", "incumbent"), ("lp", "#8c8c8c", "LP")):
        pts = [(x, r[key]) for x, r in zip(xs, rows, strict=True) if r[key] is not None]
        if pts:
            ax.step(
                [p[0] for p in pts],
                [p[1] for p in pts],
                where="post",
                color=color,
                label=label,
                marker="o",
                ms=3,
                ls="--" if key == "lp" else "-",
            )
    ax.set_xlabel("seconds" if timed else "round")
    ax.set_ylabel("objective")
    last = rows[-1]
    gap = ""
    if last["bound"] is not None and last["incumbent"] is not None:
        gap = f", final gap {abs(last['bound'] - last['incumbent']) / max(1.0, abs(last['incumbent'])):.3%}"
    ax.set_title(f"Convergence: {len(rows)} rounds{gap}")
    ax.legend()
    return fig
