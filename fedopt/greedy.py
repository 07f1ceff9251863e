"""A greedy plan over a column pool: the anytime start and the MIP's first incumbent.

Columns are taken best value per card first; a column is taken when its job is free and every
row stays within its limits. Pinned jobs' columns go first.
"""

from __future__ import annotations

import numpy as np

from fedopt.master import MasterProblem


def greedy_x(mp: MasterProblem, order: np.ndarray | None = None, start: np.ndarray | None = None) -> np.ndarray:
    """A feasible 0/1 vector; ``start`` (feasible) is kept and completed."""
    cols = mp.cols
    x = np.zeros(mp.n_cols) if start is None else start.astype(float).copy()
    act = mp.A @ x
    # row bounds that a 0 vector may break (pinned rows with lo=1) are met by the pinned columns
    if order is None:
        score = mp.c / np.maximum(cols.total, 1)
        pinned = cols.inst.pinned[cols.job]
        keep_first = cols.is_running if cols.inst.doc.settings.max_moves is not None else np.zeros(cols.size, dtype=bool)
        order = np.lexsort((-score, ~keep_first, ~pinned))
    A = mp.A.tocsc()
    hi = mp.hi + 1e-9
    taken = np.zeros(cols.inst.n_jobs, dtype=bool)
    taken[cols.job[x > 0.5]] = True
    useful = (mp.c > 0) | cols.inst.pinned[cols.job]
    for c in order:
        j = cols.job[c]
        if taken[j] or not useful[c]:
            continue
        s, e = A.indptr[c], A.indptr[c + 1]
        rows = A.indices[s:e]
        new = act[rows] + A.data[s:e]
        if np.all(new <= hi[rows]):
            act[rows] = new
            x[c] = 1.0
            taken[j] = True
    return x
