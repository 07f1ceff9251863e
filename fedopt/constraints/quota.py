"""Rule 5: a tenant's jobs hold at most ``quota_cards`` cards in all."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowBlock, capacity_block


def usage(cols: ColumnPool) -> sp.csr_matrix:
    inst = cols.inst
    ten = inst.job_tenant[cols.job]
    has = ten >= 0
    return sp.csr_matrix(
        (cols.total[has].astype(float), (np.flatnonzero(has), ten[has])),
        shape=(cols.size, len(inst.tenant_ids)),
    )


def admits(cols: ColumnPool) -> np.ndarray:
    inst = cols.inst
    ten = inst.job_tenant[cols.job]
    quota = np.where(ten >= 0, inst.tenant_quota[np.maximum(ten, 0)] if len(inst.tenant_ids) else np.inf, np.inf)
    return cols.total <= quota


def rows(cols: ColumnPool) -> RowBlock:
    inst = cols.inst
    return capacity_block("quota", usage(cols), inst.tenant_quota, [f"quota {t}" for t in inst.tenant_ids])
