"""Each job gets at most one placement; a pinned job (rule 9) exactly its running one."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowBlock


def admits(cols: ColumnPool) -> np.ndarray:
    """A pinned job keeps only the column that is its running placement."""
    pinned = cols.inst.pinned[cols.job]
    return ~pinned | cols.is_running


def rows(cols: ColumnPool) -> RowBlock:
    inst = cols.inst
    jobs = np.unique(cols.job)
    index = np.full(inst.n_jobs, -1, dtype=np.int64)
    index[jobs] = np.arange(len(jobs))
    A = sp.csr_matrix((np.ones(cols.size), (index[cols.job], np.arange(cols.size))), shape=(len(jobs), cols.size))
    lo = np.where(inst.pinned[jobs], 1.0, -np.inf)
    return RowBlock("assignment", A, lo, np.ones(len(jobs)), [f"job {inst.job_ids[j]}" for j in jobs])
