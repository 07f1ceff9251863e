"""Column generation over (placement, start slot) columns: horizon instances at 10k-card scale.

The time-indexed model has a column per placement and start slot: 35k placements x 24 slots
is a quarter of a million columns on a 10k-card fleet, each holding its resources in up to 24
slots, too big to hand to a MIP whole. Here the master LP keeps a few of them, live in HiGHS:

1. Pricing prices every (placement, start) at once: the per-slot duals of the placements'
   snapshot coefficients are one sparse product (placements x slots), a running sum over slots
   turns them into the dual cost of any window ``[s, s + d)``.
2. The Lagrangian bound ``y.b + sum_j max(0, best column of j at y)`` bounds the optimum at
   every round. Jobs whose split placements were not all enumerated get a relaxed split term
   (each card at the cheapest pool's window price), so the bound stays valid for them too.
3. The integer plan: the MIP over the generated columns and the ones within the gap by reduced
   cost, started from the best plan so far (greedy at first), then a greedy fill.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import highspy
import numpy as np
import scipy.sparse as sp

from fedopt.backends.base import SolveOptions
from fedopt.backends.highs import HighsBackend, add_columns, new_highs, run_guarded
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rank import best_k_per_job
from fedopt.greedy import greedy_x
from fedopt.horizon.model import PER_SLOT, TimedColumns, TimedRows, costs, expand
from fedopt.instance.model import Instance
from fedopt.master import MasterProblem
from fedopt.progress import Progress

EPS = 1e-7


@dataclass
class TimedColGenResult:
    tc: TimedColumns  # the plan's (placement, start) columns
    objective: float  # value (maximized); cost = -objective
    bound: float | None  # upper bound of the value
    stats: dict = field(default_factory=dict)
    chosen: np.ndarray | None = None  # the plan's candidates, indices in the full candidate set


class TimedColumnGeneration:
    def __init__(
        self, inst: Instance, placements: ColumnPool, opts: SolveOptions, progress: Progress | None = None, per_job: int = 3
    ):
        self.inst = inst
        self.opts = opts
        self.progress = progress or Progress(enabled=False)
        self.per_job = per_job
        self.slots = inst.horizon.slots
        self.P = placements
        self.tc = expand(inst, placements)
        self.job = placements.job[self.tc.place]
        placed, unplaced = costs(inst, self.tc)
        self.value = unplaced[self.job] - placed
        self.unplaced = unplaced
        self.constant = -float(unplaced.sum())
        self.tr = TimedRows.of(inst)
        self.lo, self.hi = self.tr.lo, self.tr.hi
        self.bases = self.tr.bases(placements)
        self._pricing_matrices()
        self.full = (self.tc, self.job, self.value, self.constant)
        self.index = np.arange(len(self.job))  # candidates' indices in the full set
        self._reset()

    def _reset(self) -> None:
        self.in_master = np.zeros(len(self.job), dtype=bool)
        self.master_idx: list[np.ndarray] = []
        self.mats: list[sp.csc_matrix] = []
        self.lp_dead = False
        self.bound = np.inf
        self.y_center: np.ndarray | None = None
        self.lp_obj: float | None = None
        self.rounds = 0
        self.best_x_idx = np.zeros(0, dtype=np.int64)  # candidate indices of the best plan
        self.best_obj = -np.inf

    def restrict(self, keep: np.ndarray, fixed: np.ndarray) -> None:
        """Make the problem the sub-problem of the rolling horizon: only the candidates ``keep``
        (a mask over the full set), with the ``fixed`` candidates (full indices) committed:
        their use is taken off every row's limits and their value added to the constant."""
        tc, job, value, constant = self.full
        fixed = np.asarray(fixed, dtype=np.int64)
        used = np.zeros(self.tr.n)
        if len(fixed):
            A = self.tr.matrix(self.bases, tc.place[fixed], tc.start[fixed], tc.duration[fixed])
            used = np.asarray(A.sum(axis=1)).ravel()
        self.lo, self.hi = self.tr.lo - used, self.tr.hi - used
        self.constant = constant + float(value[fixed].sum())
        self.index = np.flatnonzero(keep)
        self.tc = TimedColumns(tc.placements, tc.place[self.index], tc.start[self.index], tc.duration[self.index])
        self.job, self.value = job[self.index], value[self.index]
        fixed_jobs = set(job[fixed].tolist())
        self.relaxed_jobs = [j for j in self.relaxed_jobs_all if j not in fixed_jobs]
        self._reset()

    # ------------------------------------------------------------------ set-up
    def _pricing_matrices(self) -> None:
        """Placements' coefficients (transposed) in the per-slot families and in the others."""
        slot_blocks, slot_rows, flat_blocks, flat_rows = [], [], [], []
        for rs, base in zip(self.tr.rows.sets, self.bases, strict=True):
            off = self.tr.offset[rs.family]
            if rs.family in PER_SLOT:
                slot_blocks.append(base)
                slot_rows.append(off + np.arange(rs.n)[:, None] * self.slots + np.arange(self.slots)[None, :])
            elif rs.family != "assignment":
                flat_blocks.append(base)
                flat_rows.append(off + np.arange(rs.n))
        n = self.P.size
        self.slot_T = sp.vstack(slot_blocks, format="csr").T.tocsr() if slot_blocks else sp.csr_matrix((n, 0))
        self.slot_rows = np.vstack(slot_rows) if slot_rows else np.zeros((0, self.slots), dtype=np.int64)
        self.flat_T = sp.vstack(flat_blocks, format="csr").T.tocsr() if flat_blocks else sp.csr_matrix((n, 0))
        self.flat_rows = np.concatenate(flat_rows) if flat_rows else np.zeros(0, dtype=np.int64)
        a = self.tr.offset["assignment"]
        self.assign_rows = a + np.arange(self.inst.n_jobs)
        self.nonassign = np.ones(self.tr.n, dtype=bool)
        self.nonassign[self.assign_rows] = False
        # the capacity and quota rows of the relaxed split term
        self.cap_rows = self.tr.offset["capacity"] + np.arange(self.inst.n_pools)[:, None] * self.slots + np.arange(self.slots)
        self.relaxed_jobs_all = sorted(j for j in self.P.incomplete_jobs if not self.inst.pinned[j])
        self.relaxed_jobs = self.relaxed_jobs_all

    # ------------------------------------------------------------------ pricing
    def _valid(self, y: np.ndarray) -> np.ndarray:
        lo, hi = self.lo, self.hi
        y = np.where(np.isfinite(hi) & ~np.isfinite(lo), np.maximum(y, 0.0), y)
        y = np.where(np.isfinite(lo) & ~np.isfinite(hi), np.minimum(y, 0.0), y)
        return np.where(self.nonassign, y, 0.0)

    def _reduced(self, y: np.ndarray) -> np.ndarray:
        """value - y.A of every candidate (assignment duals left out)."""
        yv = self._valid(y)
        S = np.asarray(self.slot_T @ yv[self.slot_rows]) if self.slot_T.shape[1] else np.zeros((self.P.size, self.slots))
        cum = np.zeros((self.P.size, self.slots + 1))
        np.cumsum(S, axis=1, out=cum[:, 1:])
        end = np.minimum(self.tc.start + self.tc.duration, self.slots)
        window = cum[self.tc.place, end] - cum[self.tc.place, self.tc.start]
        flat = self.flat_T @ yv[self.flat_rows] if self.flat_T.shape[1] else np.zeros(self.P.size)
        return self.value - window - flat[self.tc.place]

    def _relaxed_split(self, y: np.ndarray) -> np.ndarray:
        """Upper bound of value - y.A over the split placements that were not enumerated, per job.

        Each card is charged the cheapest window price among the pools of its type (capacity
        and quota duals; the other terms are non-negative and left out), the value keeps only
        the completion term: a relaxation, so the bound is still a bound.
        """
        inst, slots = self.inst, self.slots
        out = np.full(inst.n_jobs, -np.inf)
        if not self.relaxed_jobs:
            return out
        yv = self._valid(y)
        cap = np.maximum(yv[self.cap_rows], 0.0)  # [pools, slots]
        cap_cum = np.zeros((inst.n_pools, slots + 1))
        np.cumsum(cap, axis=1, out=cap_cum[:, 1:])
        q_rows = next(s for s in self.tr.rows.sets if s.family == "quota")
        quota_cum = np.zeros((len(inst.tenant_ids), slots + 1))
        if q_rows.n:
            qy = np.maximum(yv[self.tr.offset["quota"] + np.arange(q_rows.n)[:, None] * slots + np.arange(slots)], 0.0)
            dense = np.zeros((len(inst.tenant_ids), slots))
            dense[q_rows.keys] = qy
            np.cumsum(dense, axis=1, out=quota_cum[:, 1:])
        w = inst.doc.settings.weights
        se = inst.doc.settings.span_efficiency
        hz = inst.horizon
        starts = np.arange(slots)
        for j in self.relaxed_jobs:
            job = inst.doc.jobs[j]
            g = int(inst.job_granularity[j])
            totals = [int(t) for t in inst.job_totals[j] if t % g == 0 and t // g >= 2]
            deadline = np.inf if job.deadline_slot is None else job.deadline_slot
            ten = inst.job_tenant[j]
            for t in np.flatnonzero(inst.type_ok[j]):
                pools = np.flatnonzero(inst.pool_ok[j] & (inst.pool_type == t))
                if len(pools) < 2 or inst.rate[j, t] <= 0:
                    continue
                eff = max(se.region, se.federation) if inst.job_federation[j] else se.region
                for total in totals:
                    speed = eff * total * inst.rate[j, t]
                    if job.work is None:
                        d = slots - starts
                    else:
                        d = np.full(slots, max(int(np.ceil(job.work / speed / hz.slot_hours - 1e-9)), 0))
                    end = np.minimum(starts + d, slots)
                    ok = (starts >= job.release_slot) & (starts + d <= deadline)
                    if not ok.any():
                        continue
                    price = (cap_cum[pools][:, end] - cap_cum[pools][:, starts]).min(axis=0)
                    if ten >= 0:
                        price = price + quota_cum[ten, end] - quota_cum[ten, starts]
                    value = self.unplaced[j] - w.completion * inst.job_priority[j] * (starts + d) * hz.slot_hours
                    rc = np.where(ok, value - total * price, -np.inf)
                    out[j] = max(out[j], float(rc.max()))
        return out

    def _lagrangian(self, y: np.ndarray, red: np.ndarray) -> tuple[float, np.ndarray]:
        """(Lagrangian bound at y, each candidate's reduced value)."""
        inst = self.inst
        yv = self._valid(y)
        rhs = np.where(yv > 0, self.hi, np.where(yv < 0, self.lo, 0.0))
        total = self.constant + float(np.sum(np.where(yv != 0, yv * rhs, 0.0)))
        best = np.full(inst.n_jobs, -np.inf)
        np.maximum.at(best, self.job, red)
        best = np.maximum(best, self._relaxed_split(y))
        h = np.where(inst.pinned, best, np.maximum(best, 0.0))  # a pinned job must take a column
        return total + float(h.sum()), best

    # ------------------------------------------------------------------ master
    def _lp_start(self) -> None:
        h = new_highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("random_seed", int(self.opts.seed))
        h.setOptionValue("threads", 1)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.changeObjectiveOffset(self.constant)
        inf = highspy.kHighsInf
        lo = np.where(np.isfinite(self.lo), self.lo, -inf)
        hi = np.where(np.isfinite(self.hi), self.hi, inf)
        n = self.tr.n
        h.addRows(n, lo, hi, 0, np.zeros(n, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
        self.h = h

    def _add(self, idx: np.ndarray) -> int:
        idx = np.unique(idx[~self.in_master[idx]])
        if not len(idx):
            return 0
        self.in_master[idx] = True
        mat = self.tr.matrix(self.bases, self.tc.place[idx], self.tc.start[idx], self.tc.duration[idx]).tocsc()
        self.master_idx.append(idx)
        self.mats.append(mat)
        if not self.lp_dead:
            add_columns(self.h, self.value[idx], mat)
        return len(idx)

    def _top_per_job(self, score: np.ndarray, k: int, min_score: float) -> np.ndarray:
        cand = np.flatnonzero(~self.in_master & (score > min_score))
        if not len(cand):
            return cand
        return best_k_per_job(cand, score, self.job, k)

    def master(self, extra: np.ndarray | None = None) -> tuple[MasterProblem, np.ndarray]:
        """The MIP over the master's columns (and ``extra`` candidates); its candidate indices."""
        idx = np.concatenate(self.master_idx) if self.master_idx else np.zeros(0, dtype=np.int64)
        mats = list(self.mats)
        if extra is not None and len(extra):
            extra = np.setdiff1d(extra, idx)
            idx = np.concatenate([idx, extra])
            mats.append(self.tr.matrix(self.bases, self.tc.place[extra], self.tc.start[extra], self.tc.duration[extra]).tocsc())
        A = sp.hstack(mats, format="csr") if mats else sp.csr_matrix((self.tr.n, 0))
        cols = self.P.subset(self.tc.place[idx])
        mp = MasterProblem(cols, self.value[idx], self.constant, A, self.lo, self.hi, self.tr.rows, np.arange(self.tr.n))
        return mp, idx

    def _offer(self, mp: MasterProblem, idx: np.ndarray, x: np.ndarray, phase: str) -> None:
        if not mp.is_feasible(x):
            return
        x = greedy_x(mp, start=x)
        obj = mp.objective_of(x)
        if obj > self.best_obj + 1e-9:
            self.best_obj = obj
            self.best_x_idx = idx[x > 0.5]
            lp = None if self.lp_obj is None else -self.lp_obj
            self.progress.round(phase, lp, self._bound(), -obj, len(idx))

    def _bound(self) -> float | None:
        return -float(self.bound) if np.isfinite(self.bound) else None

    def _stopping(self) -> bool:
        return self.opts.should_stop is not None and self.opts.should_stop()

    # ------------------------------------------------------------------ main loop
    def run(self, deadline: float, lp_share: float = 0.5) -> TimedColGenResult:
        t0 = time.perf_counter()
        self._initial()
        self._cg_loop(t0 + (deadline - t0) * lp_share)
        # the integer plan over the generated columns and those within the gap
        extra = np.zeros(0, dtype=np.int64)
        if self.y_center is not None and np.isfinite(self.bound):
            rc = self._reduced(self.y_center) - self.y_center[self.assign_rows][self.job]
            extra = self._top_per_job(rc, 10, -max(self.bound - self.best_obj, 0.0))
        extra = np.concatenate([extra, self.best_x_idx])
        mp, idx = self.master(extra)
        x = np.isin(idx, self.best_x_idx).astype(float)
        remaining = deadline - time.perf_counter()
        res = None
        if remaining > 0.5 and not self._stopping():
            res = HighsBackend().solve_mip(
                mp,
                replace(self.opts, time_limit=max(0.2, remaining * 0.85 - 0.5), hint=x),
            )
            if res.x is not None:
                self._offer(mp, idx, res.x, "mip")
        x = np.isin(idx, self.best_x_idx).astype(float)
        x = greedy_x(mp, start=x)
        obj = mp.objective_of(x)
        bound = max(float(self.bound), obj) if np.isfinite(self.bound) else None
        lp = None if self.lp_obj is None else -self.lp_obj
        self.progress.round("final", lp, None if bound is None else -bound, -obj, mp.n_cols)
        chosen = idx[x > 0.5]
        tc = TimedColumns(self.P, self.tc.place[chosen], self.tc.start[chosen], self.tc.duration[chosen])
        stats = {
            "rounds": self.rounds,
            "candidates": len(self.job),
            "columns": int(mp.n_cols),
            "rows": int(mp.n_rows),
            "lp_objective": None if self.lp_obj is None else -self.lp_obj,
            "relaxed_split_jobs": len(self.relaxed_jobs),
            "mip_status": None if res is None else res.status,
        }
        return TimedColGenResult(tc, obj, bound, stats, self.index[chosen])

    def _initial(self) -> None:
        """A new master: running placements at slot 0, each job's most valuable few; a greedy plan."""
        self._lp_start()
        self._add(np.flatnonzero(self.P.is_running[self.tc.place]))
        self._add(self._top_per_job(self.value, self.per_job, -np.inf))
        mp, idx = self.master()
        self._offer(mp, idx, greedy_x(mp), "greedy")

    def lp_bound(self, until: float) -> float | None:
        """Only the column generation: the Lagrangian bound (of the value) it reaches by ``until``."""
        self._initial()
        self._cg_loop(until)
        return float(self.bound) if np.isfinite(self.bound) else None

    def _solve_lp(self, until: float) -> bool:
        limit = max(0.05, until - time.perf_counter())
        self.h.setOptionValue("time_limit", limit)
        if self.lp_dead or not run_guarded(self.h, limit, self.opts.should_stop):
            self.lp_dead = True
            return False
        return self.h.getModelStatus() in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kModelEmpty)

    def _cg_loop(self, until: float, alpha: float = 0.5, tol: float = 1e-4) -> None:
        while not self._stopping() and time.perf_counter() < until:
            if not self._solve_lp(until):
                return
            if self.in_master.any():
                lp_obj = float(self.h.getInfo().objective_function_value)
                y_rmp = np.asarray(self.h.getSolution().row_dual)
            else:  # no column yet: nothing placed, no price on any row
                lp_obj, y_rmp = self.constant, np.zeros(self.tr.n)
            y = y_rmp if self.y_center is None else alpha * self.y_center + (1 - alpha) * y_rmp
            added = self._round(y, y_rmp)
            if added == 0 and y is not y_rmp:  # mispricing: the master's own duals
                added = self._round(y_rmp, y_rmp)
            self.rounds += 1
            self.lp_obj = lp_obj
            self.progress.round(
                "lp", -lp_obj, self._bound(), -self.best_obj if np.isfinite(self.best_obj) else None, int(self.in_master.sum())
            )
            if added == 0 or self.bound - lp_obj <= tol * max(1.0, abs(lp_obj)):
                return

    def _round(self, y: np.ndarray, y_rmp: np.ndarray) -> int:
        """Record the Lagrangian bound at y; add the columns the master's duals price positive."""
        red = self._reduced(y)
        bound, _ = self._lagrangian(y, red)
        if bound < self.bound:
            self.bound, self.y_center = bound, y.copy()
        red_rmp = red if y is y_rmp else self._reduced(y_rmp)
        rc = red_rmp - y_rmp[self.assign_rows][self.job]
        return self._add(self._top_per_job(rc, self.per_job, EPS))
