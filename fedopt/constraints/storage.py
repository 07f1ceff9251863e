"""Rule 7: the data read rate of the parts in a cluster stays within its ``storage_gbps``."""

from __future__ import annotations

import numpy as np

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowBlock, capacity_block

TOL = 1e-9


def admits(cols: ColumnPool) -> np.ndarray:
    inst = cols.inst
    use = cols.storage_usage.tocoo()
    over = use.data > inst.cluster_storage[use.col] * (1 + TOL) + TOL
    bad = np.zeros(cols.size, dtype=bool)
    bad[use.row[over]] = True
    return ~bad


def rows(cols: ColumnPool) -> RowBlock:
    inst = cols.inst
    return capacity_block("storage", cols.storage_usage, inst.cluster_storage, [f"storage {c}" for c in inst.cluster_ids])
