"""Rule 6: sync and remote-read traffic routed over a link never exceeds its Gbit/s."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet, limited, usage_rows, within_limits
from fedopt.instance.model import Instance


def admits(cols: ColumnPool) -> np.ndarray:
    if not len(cols.inst.link_gbps):
        return np.ones(cols.size, dtype=bool)
    return within_limits(cols.link_usage, cols.inst.link_gbps)


def row_set(inst: Instance) -> RowSet:
    names = [f"link {inst.region_ids[a]}-{inst.region_ids[b]}" for a, b in inst.link_ends]
    return limited("bandwidth", inst.link_gbps, names)


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return usage_rows(cols.link_usage, rows)
