"""Rule 5: a tenant's jobs hold at most ``quota_cards`` cards in all."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet, limited, usage_rows
from fedopt.instance.model import Instance


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
    quota = np.append(inst.tenant_quota, np.inf)  # index -1: no tenant
    return cols.total <= quota[inst.job_tenant[cols.job]]


def row_set(inst: Instance) -> RowSet:
    return limited("quota", inst.tenant_quota, [f"quota {t}" for t in inst.tenant_ids])


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return usage_rows(usage(cols), rows)
