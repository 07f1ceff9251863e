"""Rule 7: the data read rate of the parts in a cluster stays within its ``storage_gbps``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet, limited, usage_rows, within_limits
from fedopt.instance.model import Instance


def admits(cols: ColumnPool) -> np.ndarray:
    return within_limits(cols.storage_usage, cols.inst.cluster_storage)


def row_set(inst: Instance) -> RowSet:
    return limited("storage", inst.cluster_storage, [f"storage {c}" for c in inst.cluster_ids])


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return usage_rows(cols.storage_usage, rows)
