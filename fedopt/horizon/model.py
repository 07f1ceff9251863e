"""The time-indexed model: a column is a placement and a start slot.

A placement started at slot s runs d slots (from the job's work and the placement's speed) and
holds its cards, quota, link and storage use in slots s .. s+d-1 inside the horizon. Minimizing
cost is written as maximizing what each placement saves against leaving its job unplaced:
``value = cost(unplaced) - cost(placed)``, and ``cost = -(value . x + constant)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints import FAMILIES
from fedopt.instance.model import Instance
from fedopt.master import MasterProblem, Rows

PER_SLOT = ("capacity", "quota", "bandwidth", "storage")


def durations(inst: Instance, cols: ColumnPool, start: np.ndarray) -> np.ndarray:
    """Slots each (placement, start) runs, exactly as the checker counts them."""
    hz = inst.horizon
    work = np.array([np.nan if j.work is None else j.work for j in inst.doc.jobs])[cols.job]
    speed = cols.speed
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.ceil(work / speed / hz.slot_hours - 1e-9)
    d = np.where(np.isnan(work), hz.slots - start, d)
    d = np.where(speed > 0, d, np.inf)
    return np.maximum(d, 0)


def best_single_pool_duration(inst: Instance) -> np.ndarray:
    """d_best of every job (spec section 4): the fastest one-pool placement at cluster efficiency."""
    hz = inst.horizon
    eff = inst.doc.settings.span_efficiency.cluster
    out = np.full(inst.n_jobs, hz.slots, dtype=float)
    for j, job in enumerate(inst.doc.jobs):
        if job.work is None:
            continue
        g = job.granularity
        for p in np.flatnonzero(inst.pool_ok[j]):
            fits = [n for n in inst.job_totals[j] if n <= inst.pool_cards[p] and n % g == 0]
            if fits:
                speed = eff * max(fits) * inst.rate[j, inst.pool_type[p]]
                out[j] = min(out[j], max(math.ceil(job.work / speed / hz.slot_hours - 1e-9), 0))
    return out


@dataclass
class TimedColumns:
    placements: ColumnPool
    place: np.ndarray  # placement index of each column
    start: np.ndarray
    duration: np.ndarray


def expand(inst: Instance, placements: ColumnPool, first_slot: int = 0) -> TimedColumns:
    """Every allowed start slot of every placement (release, deadline, running jobs at 0)."""
    hz = inst.horizon
    slots = np.arange(first_slot, hz.slots)
    n = placements.size
    place = np.repeat(np.arange(n), len(slots))
    start = np.tile(slots, n)
    job = placements.job[place]
    release = np.array([j.release_slot for j in inst.doc.jobs])[job]
    deadline = np.array([np.inf if j.deadline_slot is None else j.deadline_slot for j in inst.doc.jobs])[job]
    running = np.array([r is not None for r in inst.running])[job]
    d = durations(inst, placements.subset(place), start) if n else np.zeros(0)
    ok = (start >= release) & np.isfinite(d) & (start + d <= deadline) & (~running | (start == 0))
    return TimedColumns(placements, place[ok], start[ok], d[ok].astype(np.int64))


def costs(inst: Instance, tc: TimedColumns) -> tuple[np.ndarray, np.ndarray]:
    """(cost of each timed column, cost of leaving each job unplaced)."""
    hz = inst.horizon
    w = inst.doc.settings.weights
    cols = tc.placements
    job = cols.job[tc.place]
    pen = inst.running_penalty
    placed = w.completion * inst.job_priority[job] * (tc.start + tc.duration) * hz.slot_hours
    placed += w.egress * cols.egress_per_hour[tc.place] * tc.duration * hz.slot_hours
    placed += np.where(pen[job] > 0, w.migration * pen[job] * ~cols.is_running[tc.place], 0.0)
    unplaced = w.completion * inst.job_priority * (hz.slots + best_single_pool_duration(inst)) * hz.slot_hours
    unplaced += w.preemption * pen
    return placed, unplaced


@dataclass
class TimedRows:
    """Every row of the time-indexed model, in a fixed order: each family of :class:`Rows` in
    turn, the per-slot ones (capacity, quota, link, storage) as ``row * slots + slot``."""

    rows: Rows
    slots: int
    lo: np.ndarray
    hi: np.ndarray
    labels: list[str]
    offset: dict[str, int]

    @classmethod
    def of(cls, inst: Instance) -> TimedRows:
        rows = Rows.of(inst)
        slots = inst.horizon.slots
        lo, hi, labels, offset, at = [], [], [], {}, 0
        for rs in rows.sets:
            offset[rs.family] = at
            if rs.family in PER_SLOT:
                lo.append(np.repeat(rs.lo, slots))
                hi.append(np.repeat(rs.hi, slots))
                labels += [f"{lab} in slot {s}" for lab in rs.labels for s in range(slots)]
                at += rs.n * slots
            else:
                lo.append(rs.lo)
                hi.append(rs.hi)
                labels += rs.labels
                at += rs.n
        return cls(rows, slots, np.concatenate(lo), np.concatenate(hi), labels, offset)

    @property
    def n(self) -> int:
        return len(self.lo)

    def bases(self, cols: ColumnPool) -> list[sp.csc_matrix]:
        """Each family's snapshot coefficients of ``cols`` (rows of the family x columns)."""
        return [FAMILIES[rs.family].matrix(cols, rs).tocsc() for rs in self.rows.sets]

    def matrix(self, bases: list[sp.csc_matrix], place: np.ndarray, start: np.ndarray, duration: np.ndarray) -> sp.csr_matrix:
        """Coefficients of the timed columns (placement ``place`` started at ``start``)."""
        blocks = []
        n = len(place)
        for rs, base_all in zip(self.rows.sets, bases, strict=True):
            base = base_all[:, place].tocoo()
            if rs.family not in PER_SLOT:
                blocks.append(base.tocsr())
                continue
            # expand each nonzero over the slots its column is active in (inside the horizon)
            end = np.minimum(start + duration, self.slots)
            length = np.maximum(end - start, 0)[base.col]
            r = np.repeat(base.row, length)
            c = np.repeat(base.col, length)
            v = np.repeat(base.data, length)
            offs = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
            t = start[c] + offs
            blocks.append(sp.csr_matrix((v, (r * self.slots + t, c)), shape=(rs.n * self.slots, n)))
        return sp.vstack(blocks, format="csr")


def build_timed_master(inst: Instance, tc: TimedColumns) -> tuple[MasterProblem, np.ndarray]:
    """The time-indexed master over ``tc`` (rows: per slot for shared limits), and its job array."""
    cols = tc.placements
    n = len(tc.place)
    tr = TimedRows.of(inst)
    job = cols.job[tc.place]
    A = tr.matrix(tr.bases(cols), tc.place, tc.start, tc.duration)
    placed, unplaced = costs(inst, tc)
    value = unplaced[job] - placed
    keep_rows = np.flatnonzero((np.diff(A.indptr) > 0) | (tr.lo > 0))
    sub = ColumnPool.concat(inst, [cols.subset(tc.place)]) if n else ColumnPool.empty(inst)
    mp = MasterProblem(sub, value, -float(unplaced.sum()), A[keep_rows], tr.lo[keep_rows], tr.hi[keep_rows], tr.rows, keep_rows)
    mp.labels_override = [tr.labels[i] for i in keep_rows]  # type: ignore[attr-defined]
    return mp, job
