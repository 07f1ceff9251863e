"""Why no plan exists: the pinned (non-preemptible running) jobs alone break a limit."""

from __future__ import annotations

import numpy as np

from fedopt.columns.pool import ColumnPool
from fedopt.errors import InfeasibleError
from fedopt.master import MasterProblem


def pinned_conflicts(full: ColumnPool, kept: np.ndarray) -> list[str]:
    """Pinned jobs whose running placement is not a valid column on its own."""
    inst = full.inst
    out = []
    have = np.zeros(inst.n_jobs, dtype=bool)
    have[full.job[kept & full.is_running]] = True
    for j in np.flatnonzero(inst.pinned & ~have):
        valid = np.any(full.is_running & (full.job == j))
        why = "breaks a link or storage limit by itself" if valid else "is not a valid placement (rules 1-3)"
        out.append(f"pinned job {inst.job_ids[j]}: its running placement {why}")
    return out


def raise_if_pinned_infeasible(full: ColumnPool, kept: np.ndarray, mp: MasterProblem) -> None:
    """Raise InfeasibleError naming the jobs and limits when the pinned jobs cannot all stay."""
    conflicts = pinned_conflicts(full, kept)
    cols = mp.cols
    pinned_cols = cols.inst.pinned[cols.job]
    if pinned_cols.any():
        x = pinned_cols.astype(float)
        act = mp.A @ x
        labels = mp.row_labels()
        for r in np.flatnonzero(act > mp.hi + 1e-6):
            jobs = sorted({cols.inst.job_ids[cols.job[c]] for c in mp.A[r].indices if pinned_cols[c]})
            conflicts.append(f"{labels[r]}: pinned jobs {', '.join(jobs)} need {act[r]:g} > {mp.hi[r]:g}")
    if conflicts:
        raise InfeasibleError(conflicts)
