"""Rule 7: the data read rate of the parts in a cluster stays within its ``storage_gbps``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet, limited, usage_rows
from fedopt.instance.model import Instance

TOL = 1e-9


def admits(cols: ColumnPool) -> np.ndarray:
    inst = cols.inst
    use = cols.storage_usage.tocoo()
    over = use.data > inst.cluster_storage[use.col] * (1 + TOL) + TOL
    bad = np.zeros(cols.size, dtype=bool)
    bad[use.row[over]] = True
    return ~bad


def row_set(inst: Instance) -> RowSet:
    return limited("storage", inst.cluster_storage, [f"storage {c}" for c in inst.cluster_ids])


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return usage_rows(cols.storage_usage, rows)
