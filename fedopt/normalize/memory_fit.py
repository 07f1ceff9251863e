"""Memory fit from measured zeros: a job that could not run on a card does not fit in its memory.

A measured 0 means the job could not run there (out of memory). A card with no more memory than
the largest card the job failed on, and less than the smallest it ran on, is predicted 0:
ineligible. A 0 where the same card type also ran the workload is a cell nobody filled
(benchmark tables write 0 for "not run"), not a job too big for the card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fedopt.normalize.cards import Card


class MemoryFit:
    """What a measurement table's zeros say about each workload's memory needs."""

    def __init__(
        self,
        workloads: Sequence[str],
        keys: Sequence[str],
        counts: Sequence[float],
        throughputs: np.ndarray,
        card_of: Callable[[str], Card | None],
    ):
        self.card_of = card_of
        self.failed_on: dict[str, float] = {}  # workload -> memory of the largest card it failed on (GB)
        self.ran_on: dict[str, float] = {}  # workload -> memory of the smallest card it ran on (GB)
        self.zero_cells: set[tuple[str, str, int]] = set()  # (workload, card key, count) measured 0
        if not (throughputs <= 0).any():
            return
        ran = {(w, k) for w, k, t in zip(workloads, keys, throughputs, strict=True) if t > 0}
        for w, k, n, t in zip(workloads, keys, counts, throughputs, strict=True):
            card = card_of(k)
            if t <= 0:
                if (w, k) in ran:
                    continue
                self.zero_cells.add((w, k, int(n)))
                if card is not None and card.memory_gb:
                    self.failed_on[w] = max(self.failed_on.get(w, 0.0), card.memory_gb)
            elif card is not None and card.memory_gb:
                self.ran_on[w] = min(self.ran_on.get(w, np.inf), card.memory_gb)

    @property
    def says_anything(self) -> bool:
        """False for a table without zeros (most): no row can be ineligible."""
        return bool(self.zero_cells or self.failed_on)

    def ineligible(self, workload: str, key: str, count: int) -> bool:
        """Measured 0 there, or the card has no more memory than one the workload failed on (and
        less than any it ran on)."""
        if (workload, key, count) in self.zero_cells:
            return True
        if workload not in self.failed_on:  # most workloads never failed: no card lookup
            return False
        card = self.card_of(key)
        if card is None or not card.memory_gb:
            return False
        return card.memory_gb <= self.failed_on[workload] and card.memory_gb < self.ran_on.get(workload, np.inf)
