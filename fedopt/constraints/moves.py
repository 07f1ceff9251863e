"""Extension ``settings.max_moves``: at most N running jobs migrated or preempted.

One row: the running jobs kept exactly where they run number at least (running jobs - N).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet
from fedopt.instance.model import Instance


def admits(cols: ColumnPool) -> np.ndarray:
    return np.ones(cols.size, dtype=bool)


def row_set(inst: Instance) -> RowSet:
    n = inst.doc.settings.max_moves
    running = sum(r is not None for r in inst.running)
    if n is None or running - n <= 0:
        return RowSet("moves", np.zeros(0), np.zeros(0), [])
    return RowSet("moves", np.array([float(running - n)]), np.array([np.inf]), [f"at most {n} moves"])


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    if rows.n == 0:
        return sp.csr_matrix((0, cols.size))
    keep = cols.is_running.astype(float)
    return sp.csr_matrix(keep.reshape(1, -1))
