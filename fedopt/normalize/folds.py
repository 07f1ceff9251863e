"""Where the folds of an evaluation or calibration are fitted: this process, or forked workers.

One fit per fold, each seeded, so the figures are the same on any number of processes.
"""

from __future__ import annotations

import pandas as pd

from fedopt.normalize.model import ThroughputModel

_FOLD_WORKERS = 1  # processes for the folds of evaluations and calibrations (use_cores)


def available_cores() -> int:
    """The cores this process may run on."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def use_cores(n: int | None = None) -> None:
    """Fit the folds of later evaluations, calibrations and ``--interval`` scales in ``n``
    processes (default: every core this process may use). The command opts in; a library caller
    stays in one process unless it asks: forking a process that runs other threads (a notebook
    kernel, a server) can deadlock the child."""
    global _FOLD_WORKERS
    _FOLD_WORKERS = max(1, available_cores() if n is None else int(n))


def fold_workers() -> int:
    """How many processes the folds of an evaluation run in (:func:`use_cores`; 1 unless asked)."""
    return _FOLD_WORKERS


def fit_fold(job: tuple) -> tuple[ThroughputModel | None, pd.DataFrame]:
    """One fold: fit on ``train``, predict ``test``; the model comes back only when the baselines need it."""
    settings, train, test, keep_model = job
    model = ThroughputModel(**settings).fit(train)
    res = test.copy()
    res["pred"] = model.predict(test)
    res["basis"] = model.basis(test)
    return (model if keep_model else None), res


def run_folds(jobs: list[tuple], workers: int):
    """Each fold's (model, rows), in order: in this process, or in ``workers`` forked ones (where
    the platform forks: not on Windows)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1 or len(jobs) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(fit_fold, jobs)
        return

    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(fit_fold, jobs)
