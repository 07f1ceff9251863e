"""The master problem: objective and rows of every constraint family over a column pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.columns.value import snapshot_constant, snapshot_values
from fedopt.constraints import FAMILIES, RowBlock


@dataclass
class MasterProblem:
    """maximize c.x + constant  s.t.  lo <= A x <= hi,  x in {0,1} (or [0,1] relaxed)."""

    cols: ColumnPool
    c: np.ndarray
    constant: float
    A: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    blocks: list[RowBlock]

    @property
    def n_cols(self) -> int:
        return len(self.c)

    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    def row_labels(self) -> list[str]:
        return [label for b in self.blocks for label in b.labels]

    def row_families(self) -> np.ndarray:
        if not self.blocks:
            return np.zeros(0, dtype=object)
        return np.concatenate([np.full(b.n, b.family, dtype=object) for b in self.blocks])

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


def build_master(cols: ColumnPool, values: np.ndarray | None = None) -> MasterProblem:
    """Stack the rows of every family over ``cols`` into one sparse matrix."""
    blocks = [fam.rows(cols) for fam in FAMILIES.values()]
    blocks = [b for b in blocks if b.n]
    A = sp.vstack([b.A for b in blocks], format="csr") if blocks else sp.csr_matrix((0, cols.size))
    lo = np.concatenate([b.lo for b in blocks]) if blocks else np.zeros(0)
    hi = np.concatenate([b.hi for b in blocks]) if blocks else np.zeros(0)
    c = snapshot_values(cols) if values is None else values
    return MasterProblem(cols, c, snapshot_constant(cols.inst), A, lo, hi, blocks)
