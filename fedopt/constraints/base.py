"""Rows of the master problem, contributed by each constraint family.

A family declares its rows once per instance (:class:`RowSet`: bounds, labels and whatever keys it
needs) and computes the coefficients of any batch of columns against them, so column generation
can add columns to a live master without touching its rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp


@dataclass
class RowSet:
    """Rows ``lo <= A x <= hi`` of one family; ``labels`` name each row for explanations."""

    family: str
    lo: np.ndarray
    hi: np.ndarray
    labels: list[str]
    keys: Any = field(default=None)

    @property
    def n(self) -> int:
        return len(self.hi)


def limited(family: str, cap: np.ndarray, names: list[str]) -> RowSet:
    """One ``<= cap`` row per resource with a finite limit; keys = the resource indices."""
    idx = np.flatnonzero(np.isfinite(cap))
    return RowSet(family, np.full(len(idx), -np.inf), cap[idx].astype(float), [names[i] for i in idx], idx)


def within_limits(usage: sp.csr_matrix, cap: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Columns whose usage [columns x resources] stays within every resource's limit on its own."""
    use = usage.tocoo()
    over = use.data > cap[use.col] * (1 + tol) + tol
    bad = np.zeros(usage.shape[0], dtype=bool)
    bad[use.row[over]] = True
    return ~bad


def usage_rows(usage: sp.csr_matrix, rows: RowSet) -> sp.csr_matrix:
    """The [rows x columns] block of a per-resource usage matrix [columns x resources]."""
    return usage[:, rows.keys].T.tocsr()
