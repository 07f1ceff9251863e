"""Rule 4: the cards placed in a pool never exceed its cards."""

from __future__ import annotations

import numpy as np

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowBlock, capacity_block


def admits(cols: ColumnPool) -> np.ndarray:
    cap = cols.inst.pool_cards[cols.part_pool]
    bad = np.bincount(cols.part_col, weights=cols.part_count > cap, minlength=cols.size) > 0
    return ~bad


def rows(cols: ColumnPool) -> RowBlock:
    inst = cols.inst
    names = [f"pool {inst.cluster_ids[c]}/{inst.card_ids[t]}" for c, t in zip(inst.pool_cluster, inst.pool_type, strict=True)]
    return capacity_block("capacity", cols.pool_usage, inst.pool_cards.astype(float), names)
