"""Each job gets at most one placement; a pinned job (rule 9) exactly its running one."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet
from fedopt.instance.model import Instance


def admits(cols: ColumnPool) -> np.ndarray:
    """A pinned job keeps only the column that is its running placement."""
    pinned = cols.inst.pinned[cols.job]
    return ~pinned | cols.is_running


def row_set(inst: Instance) -> RowSet:
    """One row per job, in job order (row j is job j)."""
    lo = np.where(inst.pinned, 1.0, -np.inf)
    return RowSet("assignment", lo, np.ones(inst.n_jobs), [f"job {j}" for j in inst.job_ids], np.arange(inst.n_jobs))


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(cols.size), (cols.job, np.arange(cols.size))), shape=(rows.n, cols.size))
