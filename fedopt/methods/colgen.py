"""The column generation method (:mod:`fedopt.decompose.colgen`) behind the method interface."""

from __future__ import annotations

from fedopt.backends import SolveOptions
from fedopt.decompose.colgen import ColumnGeneration
from fedopt.instance.model import Instance
from fedopt.methods import Outcome
from fedopt.methods.exact import placements_of
from fedopt.progress import Progress


def solve_colgen(inst: Instance, opts: SolveOptions, backend: str, deadline: float, progress: Progress, warm=None) -> Outcome:
    mip_backend = "cpsat" if backend == "cpsat" else "highs"
    cg = ColumnGeneration(inst, opts, progress, mip_backend=mip_backend, warm=warm)
    r = cg.run(deadline)
    return Outcome(placements_of(r.mp, r.x), r.status, r.objective, r.bound, {"backend": {"name": mip_backend}}, r.stats)
