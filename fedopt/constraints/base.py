"""A block of master rows contributed by one constraint family."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class RowBlock:
    """Rows ``lo <= A x <= hi`` over the columns; ``labels`` name each row for explanations."""

    family: str
    A: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    labels: list[str]

    @property
    def n(self) -> int:
        return self.A.shape[0]


def capacity_block(family: str, usage: sp.csr_matrix, cap: np.ndarray, names: list[str]) -> RowBlock:
    """``usage.T x <= cap`` for the resources that are limited and used by some column."""
    used = np.flatnonzero(np.isfinite(cap) & (np.asarray(abs(usage).sum(axis=0)).ravel() > 0))
    A = usage[:, used].T.tocsr()
    return RowBlock(family, A, np.full(len(used), -np.inf), cap[used].astype(float), [names[i] for i in used])
