"""Workloads measured on one card only: their speed on other cards from their neighbours' ratios.

Such a workload's own time shares are unknown (one card shows its level, not how it splits between
compute and memory). The group's central shares predicted its ratios worse than the plain
memory-bandwidth ratio on Gavel (37% vs 26% median error, one card kept in turn); the median ratio
of the group's workloads measured on two cards or more better than both (24%; MLPerf 13.3% ->
12.7%; ``normalize --evaluate --one-card``), and of those among them that ran on both cards
better still where suites share few cards (MLPerf 12.3% -> 11.2%, held-out MLPerf Training 27%
-> 10-16%): the item-based collaborative-filtering answer for a new row of the job x card matrix.
Where a word of the workload's name splits its neighbours' ratios (llama.cpp's ``pp`` and ``tg``: prompt
processing and decoding of one model, far apart between a Mac and a GPU), only its side counts
(:func:`alike_median`; llama.cpp's sets 62.8 -> 32.8% and 24.5 -> 4.6%).

A group with no such workload (every job of the file ran on one card type) borrows the calibration's
workloads as neighbours (:class:`ReferenceRatios`), within a bound around the model's own ratio:
unbounded they won on most held-out sets but doubled the error of jobs unlike the calibration's
(llama.cpp decoding on consumer cards, whose calibrated neighbours are training jobs). A workload
named as a calibration benchmark (:func:`benchmark_name`: ``llama2-70b`` and
``mlperf-inf-v4.1/llama2-70b-99``) takes that benchmark's ratio first, within a wider bound: the
same job in another round is a closer neighbour than every job of the calibration; of that
benchmark's workloads, those sharing the most words of the name (``fp32``, ``inf``, a round). Beside a file's
own neighbours, that benchmark's ratio counts half: the file's neighbours ran on its systems and
software, the namesake is the same job.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import numpy as np

MIN_NEIGHBOURS_ON_BOTH = 3  # a one-card workload's ratio from at least this many workloads that ran on both cards
REFERENCE_BOUND = 1.2  # the calibration's neighbours move the model's prediction by at most this factor either way
REFERENCE_MAX_IQR = 0.2  # ... and only when their log ratios agree: interquartile range below this
REFERENCE_NAME_BOUND = 1.5  # a calibration benchmark of the workload's name moves it by at most this factor
REFERENCE_NAME_WEIGHT = 0.5  # ... and, beside the file's own neighbours, weighs this much in the log ratio

# the model's prediction of rows (workloads, card keys, counts, use_measured, scaleout) -> throughputs
PredictRows = Callable[[np.ndarray, list[str], np.ndarray, bool, None], np.ndarray]


class OneCardRatios:
    """Built from a fit's measured cells ``(workload, card key, count) -> throughput`` and each
    fitted workload's group (connected component of the workload-card graph)."""

    def __init__(
        self, measured: dict[tuple[str, str, int], float], groups: dict[str, int], reference: ReferenceRatios | None = None
    ):
        self.measured = measured
        self.reference = reference  # the calibration's workloads: neighbours of a group that has none
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
        card) over its neighbours (:meth:`neighbour_set`), predicted by ``predict``; for a workload
        named as a calibration benchmark (``reference``), the weighted geometric mean of that and its
        namesakes' ratio (``REFERENCE_NAME_WEIGHT``). Measured cells and ineligible ones (0) keep
        their values."""
        rows = []  # (row, neighbours' key, card, count, its card, its nearest measured count)
        for i, (w, k, c) in enumerate(zip(wl, keys, n.astype(int), strict=True)):
            one = self.one_card.get(w)
            if one is None or k == one[0] or out[i] == 0.0 or (use_measured and (w, k, c) in self.measured):
                continue
            k0, levels = one
            n0 = min(levels, key=lambda m: (abs(np.log(m / c)), -m))  # the nearest measured count
            rows.append((i, self.neighbour_set(self.group_of.get(w, -1), k0, k), k, c, k0, n0))
        if self.reference is not None:
            rows = self._from_reference(rows, wl, out)
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
            key = (g, k, c, k0, n0, name_tokens(str(wl[i])))
            if key not in ratios:
                d = logs[(g, k, c)] - logs[(g, k0, n0)]
                finite = np.isfinite(d)
                names = [w for w, f in zip(self._lists[g], finite, strict=True) if f]
                ratios[key] = alike_median(d[finite], names, key[-1]) if finite.any() else None
            named = None if self.reference is None else self.reference.named_log_ratio(str(wl[i]), k0, k)
            if named is not None:  # the calibration's namesakes, linear in the count like _from_reference
                theirs = float(np.log(self.linear_level(str(wl[i]), n0, c))) + named
                mine = theirs if ratios[key] is None else float(np.log(levels[n0])) + ratios[key]
                out[i] = float(np.exp((1.0 - REFERENCE_NAME_WEIGHT) * mine + REFERENCE_NAME_WEIGHT * theirs))
            elif ratios[key] is not None:
                out[i] = levels[n0] * float(np.exp(ratios[key]))

    def linear_level(self, workload: str, n0: int, c: int) -> float:
        """A one-card workload's level on its card at ``n0`` cards scaled linearly to ``c``: where the
        calibration's ratios (at one count) start from."""
        return self.one_card[workload][1][n0] / n0 * c

    def _from_reference(self, rows: list[tuple], wl: np.ndarray, out: np.ndarray) -> list[tuple]:
        """Rows whose group has no neighbours: the model's prediction (from the priors) moved toward the
        calibration's neighbours' (the workload's level per card at its nearest measured count times
        their median ratio, times the asked count) by at most ``REFERENCE_BOUND``; by at most
        ``REFERENCE_NAME_BOUND`` toward the ratio of the calibration's workloads of its benchmark name. Linear in the count:
        the model's own rate on the measured card at the asked count in its place did worse on the
        held-out files of one card type (24.5% against 23.2%; their inference systems scale linearly).
        The other rows are returned for their own neighbours."""
        assert self.reference is not None
        rest, bound, name_bound = [], float(np.log(REFERENCE_BOUND)), float(np.log(REFERENCE_NAME_BOUND))
        for row in rows:
            i, g, k, c, k0, n0 = row
            if self._lists[g]:
                rest.append(row)
                continue
            ratio = self.reference.named_log_ratio(str(wl[i]), k0, k)
            limit = name_bound
            if ratio is None:
                ratio, limit = self.reference.log_ratio(k0, k), bound
            if ratio is None:
                continue
            theirs = self.linear_level(str(wl[i]), n0, c) * float(np.exp(ratio))
            if not theirs > 0:
                continue
            out[i] *= float(np.exp(np.clip(np.log(theirs / out[i]), -limit, limit)))
        return rest


class ReferenceRatios:
    """The calibrated model's log throughput of the calibration's workloads on every catalog card
    (``calibrate.reference_rates``): the ratio between two cards of the workloads measured on both
    (three or more), else of those measured on the first, else of all; None where they disagree
    (interquartile range of their log ratios >= ``REFERENCE_MAX_IQR``) or a card is not in the table
    (a user's card is looked up as its catalog twin through ``alias``). :meth:`named_log_ratio`: the
    same over the workloads of one benchmark name."""

    def __init__(self, table: dict, alias: Callable[[str], str] | None = None):
        self.alias = alias  # a fit's card key -> the table's card id (a user's card -> its catalog twin)
        self.card_index = {c: j for j, c in enumerate(table["cards"])}
        rates = table["workloads"].values()
        self.logs = np.array([w["log_rate"] for w in rates], dtype=float)  # None (predicted not to fit) -> nan
        self.ran_on = np.zeros(self.logs.shape, dtype=bool)
        self.of_name: dict[str, list[int]] = {}  # benchmark name -> its rows
        self.names = list(table["workloads"])
        for i, (name, w) in enumerate(table["workloads"].items()):
            self.ran_on[i, [self.card_index[c] for c in w["measured_on"] if c in self.card_index]] = True
            self.of_name.setdefault(benchmark_name(name), []).append(i)
        self._ratios: dict[tuple[str, str], float | None] = {}
        self._named: dict[tuple, float | None] = {}

    def named_log_ratio(self, workload: str, card: str, other: str) -> float | None:
        """Median log(throughput on ``other`` / on ``card``) over the calibration's workloads of
        ``workload``'s benchmark name (measured on either card or not: the calibrated model's rate of
        that job) that share the most words of its name (:func:`name_tokens`: a PyTorch ``fp32``
        ResNet-50 takes TensorFlow's FP32 one, not its FP16 one; an inference ``bert-99`` the
        inference BERT, not the training ones), or None when none has that name or the cards are
        not in the table."""
        tokens = name_tokens(workload)
        key = (benchmark_name(workload), tokens, card, other)
        if key not in self._named:
            self._named[key] = None
            rows = np.array(self.of_name.get(key[0], []), dtype=int)
            a, b = self._indices(card, other)
            if rows.size and a is not None and b is not None:
                d = self.logs[rows, b] - self.logs[rows, a]
                known = np.isfinite(d)  # a namesake predicted not to fit on either card is none
                shared = np.array([len(name_tokens(self.names[r]) & tokens) for r in rows[known]], dtype=int)
                if shared.size:
                    self._named[key] = float(np.median(d[known][shared == shared.max()]))
        return self._named[key]

    def _indices(self, card: str, other: str) -> tuple[int | None, int | None]:
        if self.alias is not None:
            card, other = self.alias(card), self.alias(other)
        return self.card_index.get(card), self.card_index.get(other)

    def log_ratio(self, card: str, other: str) -> float | None:
        """Median log(throughput on ``other`` / on ``card``) over the chosen neighbours, or None."""
        if (card, other) not in self._ratios:
            self._ratios[(card, other)] = self._ratio(card, other)
        return self._ratios[(card, other)]

    def _ratio(self, card: str, other: str) -> float | None:
        a, b = self._indices(card, other)
        if a is None or b is None:
            return None
        both, mine = self.ran_on[:, a] & self.ran_on[:, b], self.ran_on[:, a]
        pick = both if both.sum() >= MIN_NEIGHBOURS_ON_BOTH else mine if mine.sum() >= MIN_NEIGHBOURS_ON_BOTH else slice(None)
        d = self.logs[pick, b] - self.logs[pick, a]
        d = d[np.isfinite(d)]
        if d.size < MIN_NEIGHBOURS_ON_BOTH:
            return None
        q25, q50, q75 = np.percentile(d, [25, 50, 75])
        return float(q50) if q75 - q25 < REFERENCE_MAX_IQR else None


SPLIT_MIN_NEIGHBOURS = 4  # a one-card workload's neighbours split by a name token only when at least this many
SPLIT_MIN_GAIN = 0.5  # ... and when the split removes at least this share of their ratios' spread


@functools.lru_cache(maxsize=1 << 16)
def name_tokens(workload: str) -> frozenset[str]:
    """The words of a workload name (lower case; split at spaces, ``/``, ``-`` and punctuation, ``_``
    and ``.`` kept: ``q4_0``, ``v5.1``), a word of letters then digits also as its letters (``pp512``:
    ``pp``, the phase, beside ``pp512``); bare numbers left out: an accuracy target (MLPerf's ``99``),
    a length or a batch size says little about a job on its own, and ``99`` split MLPerf Inference's
    five neighbours by chance (v3.1 Server's workloads seen on one card 20.3 -> 21.8%).
    ``llamacpp-llama2/7B q4_0 tg`` -> llamacpp, llama2, llama, 7b, q4_0, tg."""
    words = [t for t in re.split(r"[\s/,;:()\-]+", workload.lower()) if t and not re.fullmatch(r"[\d.]+", t)]
    stems = [m.group(1) for t in words if (m := re.fullmatch(r"([a-z]{2,})\d+", t))]
    return frozenset(words + stems)


def alike_median(d: np.ndarray, names: list[str], tokens: frozenset[str]) -> float:
    """Median of the neighbours' log ratios ``d``, over those that share the one word of the
    workload's name which best splits them, where one does: llama.cpp's prompt processing (``pp``)
    and decoding (``tg``) of one model run near the compute ratio and near the bandwidth ratio between a
    Mac and a GPU, so the median over both phases fits neither. A split counts when
    each side has two or more neighbours and it removes ``SPLIT_MIN_GAIN`` of the absolute
    deviations from the median; else the median over all."""
    if d.size < SPLIT_MIN_NEIGHBOURS:
        return float(np.median(d))
    spread = float(np.abs(d - np.median(d)).sum())
    best, best_gain = None, SPLIT_MIN_GAIN
    for t in sorted(tokens):
        inside = np.array([t in name_tokens(n) for n in names])
        if not 2 <= inside.sum() <= d.size - 2:
            continue
        a, b = d[inside], d[~inside]
        left = float(np.abs(a - np.median(a)).sum() + np.abs(b - np.median(b)).sum())
        gain = 1.0 - left / spread if spread > 0 else 0.0
        if gain > best_gain:
            best, best_gain = inside, gain
    return float(np.median(d if best is None else d[best]))


@functools.lru_cache(maxsize=1 << 16)  # asked once per query row
def benchmark_name(workload: str) -> str:
    """The benchmark a workload name stands for, to find it among the calibration's workloads: the
    part after the last ``/`` (a suite or round prefix), lower case, runs of spaces, ``_`` and ``.``
    as ``-``, MLPerf's accuracy suffix (``-99``, ``-99.9``) dropped: ``mlperf-inf-v5.0/llama3_1-405b``,
    ``mlperf-inf-v5.1/llama3.1-405b-99`` and ``Llama3.1 405B`` are all ``llama3-1-405b``."""
    base = re.sub(r"[\s_.]+", "-", workload.rsplit("/", 1)[-1].strip().lower())
    return re.sub(r"-99(-9)?$", "", base)
