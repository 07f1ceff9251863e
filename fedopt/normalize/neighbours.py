"""Workloads measured on one card only: their speed on other cards from their neighbours' ratios.

Such a workload's own time shares are unknown (one card shows its level, not how it splits between
compute and memory). The group's central shares predicted its ratios worse than the plain
memory-bandwidth ratio on Gavel (37% vs 26% median error, one card kept in turn); the median ratio
of the group's workloads measured on two cards or more better than both (24%; MLPerf 13.3% ->
12.7%; ``normalize --evaluate --one-card``), and of those among them that ran on both cards
better still where suites share few cards (MLPerf 12.3% -> 11.2%, held-out MLPerf Training 27%
-> 10-16%): the item-based collaborative-filtering answer for a new row of the job x card matrix.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

MIN_NEIGHBOURS_ON_BOTH = 3  # a one-card workload's ratio from at least this many workloads that ran on both cards

# the model's prediction of rows (workloads, card keys, counts, use_measured, scaleout) -> throughputs
PredictRows = Callable[[np.ndarray, list[str], np.ndarray, bool, None], np.ndarray]


class OneCardRatios:
    """Built from a fit's measured cells ``(workload, card key, count) -> throughput`` and each
    fitted workload's group (connected component of the workload-card graph)."""

    def __init__(self, measured: dict[tuple[str, str, int], float], groups: dict[str, int]):
        self.measured = measured
        cells_of: dict[str, dict[str, dict[int, float]]] = {}
        ran_on: dict[str, set[str]] = {}  # card -> the workloads measured on it
        for (w, k, n), t in measured.items():
            cells_of.setdefault(w, {}).setdefault(k, {})[n] = t
            ran_on.setdefault(k, set()).add(w)
        # workload -> (its card, count -> level)
        self.one_card = {w: next(iter(by_card.items())) for w, by_card in cells_of.items() if len(by_card) == 1}
        self.group_of = groups
        self.neighbours: dict[int, list[str]] = {}  # group -> its workloads measured on two cards or more
        for w in sorted(groups):
            if w not in self.one_card:
                self.neighbours.setdefault(groups[w], []).append(w)
        self.ran_on = ran_on
        self._keys: dict[tuple, tuple] = {}  # (group, its card, another) -> key of its neighbours
        self._lists: dict[tuple, list[str]] = {}  # key -> a one-card workload's neighbours

    def neighbour_set(self, group: int, card: str, other: str) -> tuple:
        """Key (into the neighbour lists) of a one-card workload's neighbours for the ratio of its
        ``card`` to ``other``: its group's workloads measured on two cards or more that ran on both
        (their ratio is measured, and suites that share one card type but run other jobs stay apart),
        or all of the group's when fewer than ``MIN_NEIGHBOURS_ON_BOTH`` did (an unmeasured
        card's ratios are the model's for every workload alike). Keys name only what the choice
        depends on, so queries share their neighbours' predictions."""
        key: tuple = (group, card, other)
        if key not in self._keys:
            every = self.neighbours.get(group, [])
            mine, theirs = self.ran_on.get(card, set()), self.ran_on.get(other, set())
            both = [w for w in every if w in mine and w in theirs]
            enough = len(both) >= MIN_NEIGHBOURS_ON_BOTH
            self._keys[key] = key if enough else (group,)
            self._lists.setdefault(self._keys[key], both if enough else every)
        return self._keys[key]

    def apply(
        self, predict: PredictRows, wl: np.ndarray, keys: list[str], n: np.ndarray, out: np.ndarray, use_measured: bool
    ) -> None:
        """Rows of ``out`` whose workload was measured on one card only and ask for another: its
        measured level (at its nearest measured count) times the median ratio (that card / its
        card) over its neighbours (:meth:`neighbour_set`), predicted by ``predict``. Measured
        cells and ineligible ones (0) keep their values."""
        rows = []  # (row, neighbours' key, card, count, its card, its nearest measured count)
        for i, (w, k, c) in enumerate(zip(wl, keys, n.astype(int), strict=True)):
            one = self.one_card.get(w)
            if one is None or k == one[0] or out[i] == 0.0 or (use_measured and (w, k, c) in self.measured):
                continue
            k0, levels = one
            n0 = min(levels, key=lambda m: (abs(np.log(m / c)), -m))  # the nearest measured count
            rows.append((i, self.neighbour_set(self.group_of.get(w, -1), k0, k), k, c, k0, n0))
        if not rows:
            return
        # every (neighbours, card, count) needed, the neighbours predicted in one batch
        cells = list(dict.fromkeys(cell for _, g, k, c, k0, n0 in rows for cell in ((g, k, c), (g, k0, n0))))
        nbs = [self._lists[g] for g, _, _ in cells]
        sizes = np.array([len(nb) for nb in nbs])
        if not sizes.sum():
            return
        p = predict(
            np.array([w for nb in nbs for w in nb], dtype=object),
            list(np.repeat(np.array([k for _, k, _ in cells], dtype=object), sizes)),
            np.repeat([float(c) for _, _, c in cells], sizes),
            True,
            None,
        )
        with np.errstate(divide="ignore"):
            lp = np.where(p > 0, np.log(np.maximum(p, 1e-300)), np.nan)
        logs = dict(zip(cells, np.split(lp, np.cumsum(sizes)[:-1]), strict=True))  # -> log predictions of its neighbours
        ratios: dict[tuple, float | None] = {}
        for i, g, k, c, k0, n0 in rows:
            levels = self.one_card[wl[i]][1]
            key = (g, k, c, k0, n0)
            if key not in ratios:
                d = logs[(g, k, c)] - logs[(g, k0, n0)]
                d = d[np.isfinite(d)]
                ratios[key] = float(np.median(d)) if d.size else None
            if ratios[key] is not None:
                out[i] = levels[n0] * float(np.exp(ratios[key]))
