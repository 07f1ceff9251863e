"""Each job's best k columns, checkable by hand."""

import numpy as np

from fedopt.columns.rank import best_k_per_job


def test_best_k_per_job():
    job = np.array([0, 1, 0, 0, 1, 2])
    score = np.array([1.0, 5.0, 3.0, 2.0, 4.0, 0.0])
    assert best_k_per_job(np.arange(6), score, job, 2).tolist() == [2, 3, 1, 4, 5]
    assert best_k_per_job(np.array([0, 3, 4]), score, job, 1).tolist() == [3, 4]
    assert best_k_per_job(np.arange(0), score, job, 3).tolist() == []


def test_ties_keep_index_order():
    job = np.zeros(4, dtype=int)
    assert best_k_per_job(np.arange(4), np.ones(4), job, 2).tolist() == [0, 1]
