"""Solution methods side by side: exact, colgen, greedy (Kubernetes-style), pop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

METHODS = ("auto", "exact", "colgen", "greedy", "pop", "rolling")  # rolling: horizon instances only

Placements = dict[int, list[tuple[int, int, int]]]


@dataclass
class Outcome:
    """What a method hands back to ``fedopt.solve``: a plan and what is proven about it."""

    placements: Placements
    status: str
    objective: float
    bound: float | None
    solver: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
