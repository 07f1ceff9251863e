"""Reports of plans: one self-contained HTML page, and each of its figures as a matplotlib Figure.

>>> from fedopt.report import plot_pool_use, render_report
>>> fig = plot_pool_use(inst, result)      # Figure (Agg); result may be a Result, PlanDoc or plan dict
>>> html = render_report(inst, result)     # str; `python -m fedopt report` writes it to a file

Every figure function takes ``(inst, plan, view=None)``; ``view = analyze(inst, plan)`` computes
the numbers once for several figures. ``plot_convergence`` and ``plot_gantt`` return None when the
plan has no history or the instance no horizon.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# where each name lives: imported on first use, so `fedopt solve` (whose parser names the report
# command) does not pay for matplotlib
_HOME = {
    "PlanView": "analysis",
    "analyze": "analysis",
    "history_of": "analysis",
    "plot_convergence": "convergence",
    "plot_data_reads": "data_reads",
    "plot_gantt": "gantt",
    "render_report": "html",
    "plot_region_graph": "network",
    "plot_pending": "pending",
    "plot_pool_use": "pool_use",
}

if TYPE_CHECKING:
    from fedopt.report.analysis import PlanView, analyze, history_of
    from fedopt.report.convergence import plot_convergence
    from fedopt.report.data_reads import plot_data_reads
    from fedopt.report.gantt import plot_gantt
    from fedopt.report.html import render_report
    from fedopt.report.network import plot_region_graph
    from fedopt.report.pending import plot_pending
    from fedopt.report.pool_use import plot_pool_use


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "PlanView",
    "analyze",
    "history_of",
    "plot_convergence",
    "plot_data_reads",
    "plot_gantt",
    "plot_pending",
    "plot_pool_use",
    "plot_region_graph",
    "render_report",
]
