"""Rule 4: the cards placed in a pool never exceed its cards."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet, limited, usage_rows
from fedopt.instance.model import Instance


def admits(cols: ColumnPool) -> np.ndarray:
    cap = cols.inst.pool_cards[cols.part_pool]
    bad = np.bincount(cols.part_col, weights=cols.part_count > cap, minlength=cols.size) > 0
    return ~bad


def row_set(inst: Instance) -> RowSet:
    names = [f"pool {inst.cluster_ids[c]}/{inst.card_ids[t]}" for c, t in zip(inst.pool_cluster, inst.pool_type, strict=True)]
    return limited("capacity", inst.pool_cards.astype(float), names)


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    return usage_rows(cols.pool_usage, rows)
