"""The master problem: objective and rows of every constraint family over a column pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.columns.value import snapshot_constant, snapshot_values
from fedopt.constraints import FAMILIES, RowSet
from fedopt.instance.model import Instance


@dataclass
class Rows:
    """Every family's rows for one instance, stacked in a fixed order."""

    sets: list[RowSet]

    @classmethod
    def of(cls, inst: Instance) -> Rows:
        return cls([fam.row_set(inst) for fam in FAMILIES.values()])

    @property
    def lo(self) -> np.ndarray:
        return np.concatenate([s.lo for s in self.sets])

    @property
    def hi(self) -> np.ndarray:
        return np.concatenate([s.hi for s in self.sets])

    @property
    def n(self) -> int:
        return sum(s.n for s in self.sets)

    def labels(self) -> list[str]:
        return [label for s in self.sets for label in s.labels]

    def families(self) -> np.ndarray:
        return np.concatenate([np.full(s.n, s.family, dtype=object) for s in self.sets])

    def offset(self, family: str) -> int:
        off = 0
        for s in self.sets:
            if s.family == family:
                return off
            off += s.n
        raise KeyError(family)

    def matrix(self, cols: ColumnPool) -> sp.csr_matrix:
        """Coefficients of ``cols`` in every row: [rows x columns]."""
        blocks = [FAMILIES[s.family].matrix(cols, s) for s in self.sets]
        return sp.vstack(blocks, format="csr")


@dataclass
class MasterProblem:
    """maximize c.x + constant  s.t.  lo <= A x <= hi,  x in {0,1} (or [0,1] relaxed)."""

    cols: ColumnPool
    c: np.ndarray
    constant: float
    A: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    rows: Rows
    row_index: np.ndarray  # which rows of ``rows`` A keeps (empty rows may be dropped)

    @property
    def n_cols(self) -> int:
        return len(self.c)

    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    def row_labels(self) -> list[str]:
        labels = self.rows.labels()
        return [labels[i] for i in self.row_index]

    def objective_of(self, x: np.ndarray) -> float:
        return float(self.c @ x + self.constant)

    def is_feasible(self, x: np.ndarray, tol: float = 1e-6) -> bool:
        ax = self.A @ x
        return bool(np.all(ax <= self.hi + tol) and np.all(ax >= self.lo - tol))


def admissible(cols: ColumnPool) -> np.ndarray:
    """Columns that every family admits on their own."""
    keep = np.ones(cols.size, dtype=bool)
    for fam in FAMILIES.values():
        keep &= fam.admits(cols)
    return keep


def build_master(
    cols: ColumnPool, values: np.ndarray | None = None, rows: Rows | None = None, drop_empty: bool = True
) -> MasterProblem:
    """Stack the rows of every family over ``cols`` into one sparse matrix.

    Rows no column touches and that a zero vector satisfies are dropped unless ``drop_empty``
    is false (column generation keeps them: later columns may enter them).
    """
    rows = rows or Rows.of(cols.inst)
    A = rows.matrix(cols)
    lo, hi = rows.lo, rows.hi
    keep = np.arange(rows.n)
    if drop_empty:
        touched = np.diff(A.indptr) > 0
        keep = np.flatnonzero(touched | (lo > 0))
        A, lo, hi = A[keep], lo[keep], hi[keep]
    c = snapshot_values(cols) if values is None else values
    return MasterProblem(cols, c, snapshot_constant(cols.inst), A, lo, hi, rows, keep)
