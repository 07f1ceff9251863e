"""The protocol every backend follows: solve a MasterProblem as a MIP (or its LP relaxation)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from fedopt.master import MasterProblem


@dataclass
class SolveOptions:
    time_limit: float = 60.0
    mip_gap: float = 1e-6
    threads: int = 1
    seed: int = 0
    hint: np.ndarray | None = None  # a feasible 0/1 vector to start from
    verbose: bool = False
    should_stop: Callable[[], bool] | None = None  # polled during long solves (signals)
    presolve: bool = True  # HiGHS only: its MIP presolve (it stalled on a 162k-column MIP, deaf to the time limit)


@dataclass
class BackendResult:
    """x is None when no feasible point was found. ``bound`` bounds the maximum from above."""

    status: str  # optimal | feasible | infeasible | timeout | error
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    seconds: float
    info: dict = field(default_factory=dict)
    row_duals: np.ndarray | None = None


class Backend(Protocol):
    name: str

    def solve_mip(self, mp: MasterProblem, opts: SolveOptions) -> BackendResult: ...
