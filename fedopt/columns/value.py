"""The objective of spec section 2, per column, vectorized."""

from __future__ import annotations

import numpy as np

from fedopt.columns.pool import ColumnPool
from fedopt.instance.model import Instance


def snapshot_values(cols: ColumnPool) -> np.ndarray:
    """Per-hour value of each column, with the running jobs' stop cost folded in.

    Placing a running job avoids its preemption cost, so that cost is added to each of its
    columns and subtracted once as a constant (:func:`snapshot_constant`); a column other than
    the running placement pays the migration cost.
    """
    inst = cols.inst
    w = inst.doc.settings.weights
    value = w.throughput * inst.job_priority[cols.job] * cols.speed - w.egress * cols.egress_per_hour
    pen = inst.running_penalty[cols.job]
    has_run = pen > 0
    value = value + np.where(has_run, w.preemption * pen, 0.0)
    value = value - np.where(has_run & ~cols.is_running, w.migration * pen, 0.0)
    return value


def snapshot_constant(inst: Instance) -> float:
    """Objective of the empty plan: every running job preempted."""
    return -float(inst.doc.settings.weights.preemption * inst.running_penalty.sum())
