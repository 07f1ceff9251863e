"""Solver backends behind one small protocol (:class:`fedopt.backends.base.Backend`).

Imports are lazy: a backend's solver library is loaded only when that backend is used.
"""

from __future__ import annotations

from fedopt.backends.base import Backend, BackendResult, SolveOptions

NAMES = ("highs", "cpsat", "pyomo")


def get_backend(name: str) -> Backend:
    if name == "highs":
        from fedopt.backends.highs import HighsBackend

        return HighsBackend()
    if name == "cpsat":
        from fedopt.backends.cpsat import CpSatBackend

        return CpSatBackend()
    if name == "pyomo" or name.startswith("pyomo:"):
        from fedopt.backends.pyomo import PyomoBackend

        return PyomoBackend(name.partition(":")[2] or "highs")
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(NAMES)}")


__all__ = ["NAMES", "Backend", "BackendResult", "SolveOptions", "get_backend"]
