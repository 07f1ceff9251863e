"""Where an evaluation's folds are fitted: one process unless the caller asks for more."""

from __future__ import annotations

from fedopt.normalize import folds
from fedopt.normalize.folds import fold_workers, use_cores


def test_a_library_caller_stays_in_one_process_unless_it_asks():
    # the command opts in to every core; forking a notebook kernel or a server with threads can deadlock
    before = folds._FOLD_WORKERS
    try:
        folds._FOLD_WORKERS = 1
        assert fold_workers() == 1
        use_cores(3)
        assert fold_workers() == 3
        use_cores(0)
        assert fold_workers() == 1
    finally:
        folds._FOLD_WORKERS = before
