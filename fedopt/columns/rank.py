"""Each job's best few columns: how column generation picks what enters its master."""

from __future__ import annotations

import numpy as np


def best_k_per_job(candidates: np.ndarray, score: np.ndarray, job: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` highest-scoring of ``candidates`` (column indices) of each job, ordered by job,
    then by score (ties in index order)."""
    order = candidates[np.lexsort((-score[candidates], job[candidates]))]
    jobs = job[order]
    first = np.r_[True, jobs[1:] != jobs[:-1]]
    rank = np.arange(len(order)) - np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    return order[rank < k]
