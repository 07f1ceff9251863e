"""Trace-driven simulation of re-planning policies on a fleet (``fedopt simulate``).

>>> from fedopt.simulate import SimConfig, simulate
>>> report, sim = simulate(SimConfig(trace="philly", fleet="s", policy="fedopt", days=0.5, seed=1))
"""

from fedopt.simulate.run import SimConfig, prepare, simulate

__all__ = ["SimConfig", "prepare", "simulate"]
