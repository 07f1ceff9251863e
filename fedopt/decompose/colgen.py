"""Column generation with a live HiGHS master, then a restricted MIP: fedopt at scale.

1. Every single-pool placement is a candidate, priced in one sparse product per round; split
   placements are priced per job from the duals (:mod:`fedopt.decompose.pricing`).
2. The restricted master LP lives in one HiGHS object: new columns are appended and the LP is
   re-solved warm. Duals are smoothed (Wentges) towards those of the best Lagrangian bound.
3. The Lagrangian bound ``y.b + sum_j max(0, best column of j at y)`` is a proven upper bound of
   the integer optimum at every round; it stops the loop when the LP is close enough.
4. The integer plan: relax-and-fix (the LP's integral placements kept, the rest solved as a
   MIP; in a big master the jobs around partly placed ones left free too), then the MIP over
   every generated column, with the single placements and the contested gangs' split placements
   that are within the gap by reduced cost, seeded with the best plan so far (without HiGHS's
   presolve when it is big), then a greedy fill with every single-pool placement.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import highspy
import numpy as np
import scipy.sparse as sp

from fedopt.backends.base import SolveOptions
from fedopt.backends.cpsat import CpSatBackend
from fedopt.backends.highs import HighsBackend, add_columns, new_highs, run_guarded
from fedopt.columns.enumerate import placement_columns, running_columns, single_pool_columns, split_columns
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rank import best_k_per_job
from fedopt.columns.rules import valid_placements
from fedopt.columns.value import snapshot_constant, snapshot_values
from fedopt.decompose.pricing import Duals, price_split_job, split_value_terms
from fedopt.decompose.split_relax import RelaxationBound, decode_splits, relaxed_model
from fedopt.greedy import greedy_x
from fedopt.instance.model import Instance
from fedopt.master import MasterProblem, Rows, admissible
from fedopt.progress import Progress

EPS = 1e-7
SPLIT_BUDGET_NEAR = 60_000  # split placements enumerated for the final MIP's contested jobs
SPLIT_KEEP_NEAR = 5_000  # of which the best by reduced cost enter it
# relax-and-fix frees the pools of partly placed jobs from this many columns in the master (l: 7-8k
# after the root LP, the final MIP then does better with the time; xl: 56k, where the final MIP found
# nothing (its presolve stalled) and this phase found the plan; strict against wide at xl without that
# presolve, seeds 1 / 2 / 3 of `generate --preset xl`: 0.277 / 0.382 / 0.319% against 0.308 / 0.315 / 0.154%;
# a 30k-card fleet, seeds 1 / 2 at 300 s: 0.032 / 0.055% against 0.024 / 0.055%, README)
WIDE_FIX_COLUMNS = 25_000
# HiGHS's presolve of the final MIP stalled past its time limit on xl (`generate --preset xl --seed 1`,
# solver seed 0: 162k columns, still in presolve after 240 s, interrupt ignored; without it 71,314 found
# in 240 s); the first 157k of those columns presolve in 2-10 s. The stall is in no rule `presolve_rule_off`
# can disable; capping presolve at 2,000 reductions gets past it, but the MIP's restart then stalls
FINAL_PRESOLVE_MAX_COLUMNS = 100_000
RELAX_MAX_COLUMNS = 100_000  # the relaxed full model (a second bound) up to this size (l: 17k; xl ~390k: not measured)


@dataclass
class ColGenResult:
    mp: MasterProblem  # over the generated columns
    x: np.ndarray
    objective: float
    bound: float
    status: str
    stats: dict = field(default_factory=dict)


class _Columns:
    """The columns in the master: a growing list of ColumnPools with values and coefficients."""

    def __init__(self, inst: Instance, rows: Rows):
        self.inst = inst
        self.rows = rows
        self.pools: list[ColumnPool] = []
        self.values: list[np.ndarray] = []
        self.mats: list[sp.csc_matrix] = []
        self.keys: dict[tuple, int] = {}  # column key -> its index in the master

    def key(self, cols: ColumnPool, c: int) -> tuple:
        s, e = cols.part_ptr[c], cols.part_ptr[c + 1]
        return (
            int(cols.job[c]),
            int(cols.ctype[c]),
            tuple(zip(cols.part_cluster[s:e].tolist(), cols.part_count[s:e].tolist(), strict=True)),
        )

    def prepare(self, cols: ColumnPool) -> tuple[ColumnPool, np.ndarray, sp.csc_matrix]:
        """Admissible, worthwhile, not yet present columns with values and coefficients."""
        keep = admissible(cols) if cols.size else np.zeros(0, dtype=bool)
        cols = cols.subset(keep)
        if not cols.size:
            return cols, np.zeros(0), sp.csc_matrix((self.rows.n, 0))
        new = np.array([self.key(cols, c) not in self.keys for c in range(cols.size)], dtype=bool)
        cols = cols.subset(new)
        values = snapshot_values(cols)
        good = (values > 1e-12) | self.inst.pinned[cols.job]
        cols, values = cols.subset(good), values[good]
        return cols, values, self.rows.matrix(cols).tocsc()

    def add(self, cols: ColumnPool, values: np.ndarray, mat: sp.csc_matrix) -> None:
        base = self.n
        for c in range(cols.size):
            self.keys[self.key(cols, c)] = base + c
        self.pools.append(cols)
        self.values.append(values)
        self.mats.append(mat)

    @property
    def n(self) -> int:
        return sum(len(v) for v in self.values)

    def master(self) -> MasterProblem:
        cols = ColumnPool.concat(self.inst, self.pools)
        A = sp.hstack(self.mats, format="csr") if self.mats else sp.csr_matrix((self.rows.n, 0))
        return MasterProblem(
            cols,
            np.concatenate(self.values) if self.values else np.zeros(0),
            snapshot_constant(self.inst),
            A,
            self.rows.lo,
            self.rows.hi,
            self.rows,
            np.arange(self.rows.n),
        )


class ColumnGeneration:
    def __init__(
        self,
        inst: Instance,
        opts: SolveOptions,
        progress: Progress | None = None,
        per_job: int = 3,
        lp_share: float = 0.3,
        fix_share: float = 0.3,
        lp_tol: float = 1e-4,
        mip_backend: str = "highs",
        warm: ColumnPool | None = None,
    ):
        self.fix_share = fix_share
        self.x_root: np.ndarray | None = None
        self.forced_in = np.zeros(inst.n_jobs, dtype=bool)  # branching: jobs that must be placed
        self.forced_out = np.zeros(inst.n_jobs, dtype=bool)  # branching: jobs left out
        self.branch_nodes = 0
        self.lp_dead = False
        self.warm = warm
        self.mip_backend = mip_backend
        self.inst = inst
        self.opts = opts
        self.progress = progress or Progress(enabled=False)
        self.per_job = per_job
        self.lp_share = lp_share
        self.lp_tol = lp_tol
        self.rows = Rows.of(inst)
        self.w = inst.doc.settings.weights
        self.assign_off = self.rows.offset("assignment")
        self.nonassign = np.ones(self.rows.n, dtype=bool)
        self.nonassign[self.assign_off : self.assign_off + inst.n_jobs] = False

    # ------------------------------------------------------------------ set-up
    def _singles(self) -> None:
        """Every admissible single-pool placement, with values and coefficients, for pricing."""
        inst = self.inst
        cols = single_pool_columns(inst)
        cols = cols.subset(admissible(cols))
        values = snapshot_values(cols)
        good = ((values > 1e-12) | inst.pinned[cols.job]) & ~cols.is_running  # running ones come separately
        self.singles = cols.subset(good)
        self.singles_value = values[good]
        self.singles_AT = self.rows.matrix(self.singles).T.tocsr()  # [n, rows]
        self.singles_in = np.zeros(self.singles.size, dtype=bool)

    def _lp_start(self) -> highspy.Highs:
        h = new_highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("random_seed", int(self.opts.seed))
        h.setOptionValue("threads", 1)
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.changeObjectiveOffset(snapshot_constant(self.inst))
        inf = highspy.kHighsInf
        lo = np.where(np.isfinite(self.rows.lo), self.rows.lo, -inf)
        hi = np.where(np.isfinite(self.rows.hi), self.rows.hi, inf)
        h.addRows(self.rows.n, lo, hi, 0, np.zeros(self.rows.n, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
        return h

    def _push(self, cols: ColumnPool, values: np.ndarray, mat: sp.csc_matrix) -> None:
        if not cols.size:
            return
        self.columns.add(cols, values, mat)
        if not self.lp_dead:  # an abandoned solve still owns the HiGHS object
            add_columns(self.h, values, mat)

    # ------------------------------------------------------------------ duals and pricing
    def _duals(self, y: np.ndarray) -> Duals:
        inst = self.inst

        def dense(family: str, size: int) -> np.ndarray:
            rs = next(s for s in self.rows.sets if s.family == family)
            out = np.zeros(size)
            off = self.rows.offset(family)
            out[rs.keys] = y[off : off + rs.n]
            return out

        return Duals(
            dense("capacity", inst.n_pools),
            dense("quota", len(inst.tenant_ids)),
            dense("bandwidth", len(inst.link_gbps)),
            dense("storage", len(inst.cluster_ids)),
            y[self.assign_off : self.assign_off + inst.n_jobs],
        )

    def _price(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        """(best value - y.A per job, excluding assignment duals; single rc; split candidates)."""
        inst = self.inst
        y_na = self._valid(y)
        best = np.full(inst.n_jobs, -np.inf)
        red = self.singles_value - self.singles_AT @ y_na
        np.maximum.at(best, self.singles.job, red)
        d = self._duals(y_na)
        se = inst.doc.settings.span_efficiency
        eff = (se.region, se.federation)
        cands: list = []
        for j in self.split_jobs:
            vpc, fixed = split_value_terms(inst, j)
            sp_ = price_split_job(inst, d, j, vpc, eff, fixed, self.w.egress)
            best[j] = max(best[j], sp_.bound)
            cands.extend(sp_.candidates)
        return best, red, cands

    def _valid(self, y: np.ndarray) -> np.ndarray:
        """Multipliers of the sign each row allows (<= rows: y >= 0, >= rows: y <= 0); 0 on assignment rows."""
        lo, hi = self.rows.lo, self.rows.hi
        y = np.where(np.isfinite(hi) & ~np.isfinite(lo), np.maximum(y, 0.0), y)
        y = np.where(np.isfinite(lo) & ~np.isfinite(hi), np.minimum(y, 0.0), y)
        return np.where(self.nonassign, y, 0.0)

    def _lagrangian(self, y: np.ndarray, best: np.ndarray, running_rc: dict[int, float]) -> float:
        inst = self.inst
        y_na = self._valid(y)
        rhs = np.where(y_na > 0, self.rows.hi, np.where(y_na < 0, self.rows.lo, 0.0))
        total = snapshot_constant(inst) + float(np.nansum(y_na * np.where(y_na != 0, rhs, 0.0)))
        best = np.where(self.forced_out, -np.inf, best)
        h = np.where(self.forced_in, best, np.maximum(best, 0.0))
        for j, v in running_rc.items():  # pinned jobs have one option and must take it
            h[j] = v
        return total + float(h.sum())

    # ------------------------------------------------------------------ main loop
    def run(self, deadline: float) -> ColGenResult:
        t0 = time.perf_counter()
        inst = self.inst
        span = max(deadline - t0, 0.1)
        self._singles()
        self.split_jobs = [int(j) for j in np.flatnonzero((inst.job_max_parts >= 2) & ~inst.pinned)]
        self.columns = _Columns(inst, self.rows)
        self.h = self._lp_start()
        # initial columns: running placements, then each job's best few single placements
        running = running_columns(inst)
        run_cols, run_val, run_mat = self.columns.prepare(running.subset(valid_placements(running)))
        self.running_cols, self.running_val, self.running_mat = run_cols, run_val, run_mat
        self._push(run_cols, run_val, run_mat)
        self.pinned_in_lp = {int(j) for j in run_cols.job[inst.pinned[run_cols.job]]}
        # the relaxed full model solves beside the root LP and relax-and-fix (the other core): its
        # dual bound is a second proven bound, its plan a candidate for the final MIP
        relax = None
        if self.singles.size + run_cols.size <= RELAX_MAX_COLUMNS and not self._stopping():
            model, block = relaxed_model(
                inst,
                self.rows,
                [(self.singles_value, self.singles_AT.T.tocsc()), (run_val, run_mat)],
                self.split_jobs,
                snapshot_constant(inst),
            )
            # in a child process; it ends by its time limit near when the final MIP starts, or is killed
            try:
                relax = RelaxationBound(model, 0.55 * (deadline - time.perf_counter()), seed=self.opts.seed)
            except OSError:  # no temporary directory or no process to start: the LP bound alone
                relax = None
        self._add_singles(self.singles_value, k=self.per_job)
        # the first incumbent: greedy over what is in the master so far
        self.best_cols = np.zeros(0, dtype=np.int64)
        self.best_obj = -np.inf
        self.bound, self.y_center, self.lp_obj, self.rounds = np.inf, None, None, 0
        self._offer(greedy_x(self.columns.master()), "greedy")
        if self.warm is not None and self.warm.size:
            before = self.columns.n
            wc, wv, wm = self.columns.prepare(self.warm)
            self._push(wc, wv, wm)
            x = np.zeros(self.columns.n)
            x[before:] = 1.0
            self._offer(x, "warm")
        # 1. the root LP by column generation: the proven bound
        self._cg_loop(t0 + span * self.lp_share, record_bound=True)
        self.x_root = None if self.lp_dead or not self.columns.n else np.asarray(self.h.getSolution().col_value).copy()
        if self.x_root is not None:
            self._branch_for_bound(t0 + span * self.lp_share)
        # 2. relax-and-fix: keep what the root LP decided, solve the undecided rest exactly
        if self.lp_obj is not None and not self.lp_dead:
            self._relax_and_fix(t0 + span * (self.lp_share + self.fix_share))
        if self.lp_obj is not None and not self.lp_dead:
            # the contested gangs' splits cost ~1 s per 100k placements: only with time to use them
            self._add_near_optimal(splits=deadline - time.perf_counter() > 0.3 * span)
        relax_bound = None
        if relax is not None and relax.ready():  # its plan can still seed the final MIP
            relax_bound = self._take_relaxation(relax, block)
            relax = None
        # 3. the MIP over every generated column, from the best plan so far
        mp = self.columns.master()
        hint = np.zeros(mp.n_cols)
        hint[self.best_cols] = 1.0
        remaining = deadline - time.perf_counter()
        res = None
        if remaining > 0.5 and not self._stopping():
            backend = CpSatBackend() if self.mip_backend == "cpsat" else HighsBackend()
            res = backend.solve_mip(
                mp,
                replace(
                    self.opts,
                    time_limit=max(0.2, remaining * 0.85 - 0.5),
                    hint=hint,
                    presolve=mp.n_cols < FINAL_PRESOLVE_MAX_COLUMNS,
                ),
            )
            if res.x is not None and mp.is_feasible(res.x):
                self._offer(res.x, "mip")
        if relax is not None:  # too late for its plan: its bound only
            closed = self.bound - self.best_obj <= max(self.opts.mip_gap, 1e-9) * max(1.0, abs(self.best_obj))
            grace = 0.0 if self._stopping() or closed else max(0.0, deadline - time.perf_counter() - 0.1)
            relax_bound = self._take_relaxation(relax, block, grace=grace, plan=False)
        mp = self.columns.master()
        x = np.zeros(mp.n_cols)
        x[self.best_cols] = 1.0
        x, mp = self._fill(mp, x)
        obj = mp.objective_of(x)
        self.progress.round("final", self.lp_obj, self._bound(), obj, mp.n_cols)
        bound = max(self.bound, obj) if np.isfinite(self.bound) else None
        stats = {
            "rounds": self.rounds,
            "columns": mp.n_cols,
            "rows": mp.n_rows,
            "singles_candidates": int(self.singles.size),
            "lp_objective": self.lp_obj,
            "branch_nodes": self.branch_nodes,
            "mip_status": None if res is None else res.status,
            "mip_bound_restricted": None if res is None else res.bound,
            "relaxation_bound": relax_bound,
        }
        gap = None if bound is None else abs(bound - obj) / max(1.0, abs(obj))
        status = "optimal" if gap is not None and gap <= max(self.opts.mip_gap, 1e-9) else "feasible"
        return ColGenResult(mp, x, obj, bound, status, stats)

    def _stopping(self) -> bool:
        return self.opts.should_stop is not None and self.opts.should_stop()

    def _bound(self) -> float | None:
        return float(self.bound) if np.isfinite(self.bound) else None

    def _offer(self, x: np.ndarray, phase: str) -> None:
        """Keep ``x`` (over the current master's columns) if it is feasible and better."""
        mp = self.columns.master()
        x = np.concatenate([x, np.zeros(mp.n_cols - len(x))]) if len(x) < mp.n_cols else x
        if not mp.is_feasible(x):
            return
        x = greedy_x(mp, start=x)  # complete it with what still fits
        obj = mp.objective_of(x)
        if obj > self.best_obj + 1e-9:
            self.best_obj = obj
            self.best_cols = np.flatnonzero(x > 0.5)
            self.progress.round(phase, self.lp_obj, self._bound(), obj, mp.n_cols)

    def _solve_lp(self, until: float) -> bool:
        self.h.setOptionValue("time_limit", max(0.05, until - time.perf_counter()))
        if self.lp_dead or not run_guarded(self.h, max(0.05, until - time.perf_counter()), self.opts.should_stop):
            self.lp_dead = True  # HiGHS did not stop when asked: leave it alone
            return False
        return self._lp_ok()

    def _lp_ok(self) -> bool:
        if self.lp_dead:
            return False
        return self.h.getModelStatus() in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kModelEmpty)

    def _lp_state(self) -> tuple[float, np.ndarray]:
        """Objective and row duals; an empty master (no column yet) has zero duals."""
        if self.columns.n == 0:
            return snapshot_constant(self.inst), np.zeros(self.rows.n)
        return float(self.h.getInfo().objective_function_value), np.asarray(self.h.getSolution().row_dual)

    def _cg_loop(self, until: float, record_bound: bool, max_rounds: int = 10_000) -> bool:
        """Price and re-solve until no column improves (or time); False if the LP is infeasible."""
        alpha = 0.5 if record_bound else 0.0
        for _ in range(max_rounds):
            if self._stopping() or time.perf_counter() >= until or not self._solve_lp(until):
                return self._lp_ok()
            lp_obj, y_rmp = self._lp_state()
            y_price = y_rmp if self.y_center is None or not record_bound else alpha * self.y_center + (1 - alpha) * y_rmp
            found = self._round(y_price, y_rmp, self.pinned_in_lp)
            if record_bound and found["bound"] < self.bound:
                self.bound, self.y_center = found["bound"], y_price.copy()
            if found["added"] == 0 and y_price is not y_rmp:
                found = self._round(y_rmp, y_rmp, self.pinned_in_lp)  # mispricing: the master's own duals
                if record_bound and found["bound"] < self.bound:
                    self.bound, self.y_center = found["bound"], y_rmp.copy()
            if record_bound:
                self.rounds += 1
                self.lp_obj = lp_obj
                self.progress.round("lp", lp_obj, self._bound(), self.best_obj, self.columns.n)
                if (self.bound - lp_obj) <= self.lp_tol * max(1.0, abs(lp_obj)):
                    found["added"] = 0
            if found["added"] == 0:
                return self._solve_lp(until)
        return True

    def _branch_for_bound(self, until: float, max_nodes: int = 40) -> None:
        """Tighten the proven bound by branching on whether a partly placed job is placed.

        The root LP leaves a few jobs partly placed (a 512-card gang at 0.6); the integer optimum
        either places such a job whole or leaves it out. Each open node is a set of such
        decisions; column generation at a node gives a Lagrangian bound valid for it (forced-in
        jobs must take a column, forced-out ones take none), and the best open node's bound is a
        bound for the whole problem. Best-first, within ``until``; the master is restored after.
        """
        nodes = [(float(self.bound), (), (), self._branch_job(self.x_root))]  # bound, in, out, next job
        try:
            while time.perf_counter() < until and not self._stopping() and self.branch_nodes < max_nodes:
                k = max(range(len(nodes)), key=lambda i: nodes[i][0])
                bound, fin, fout, j = nodes[k]
                if j is None:
                    break  # the best node has no partly placed job: branching cannot lower it
                children = []
                for child_in, child_out in (((*fin, j), fout), (fin, (*fout, j))):
                    b, nxt = self._node_bound(child_in, child_out, until)
                    children.append((min(bound, b), child_in, child_out, nxt))
                    self.branch_nodes += 1
                nodes[k : k + 1] = [c for c in children if c[0] > -np.inf]
                if not nodes:
                    break
                self.bound = max(c[0] for c in nodes)
                self.progress.round("branch", self.lp_obj, self._bound(), self.best_obj, self.columns.n)
        finally:
            self._set_branch((), ())
            if not self.lp_dead:
                self._solve_lp(time.perf_counter() + 5.0)

    def _branch_job(self, x: np.ndarray | None) -> int | None:
        """The partly placed job that weighs most (value times distance from whole or none)."""
        if x is None:
            return None
        mp_job = np.concatenate([p.job for p in self.columns.pools])[: len(x)]
        placed = np.zeros(self.inst.n_jobs)
        np.add.at(placed, mp_job, x)
        worth = np.zeros(self.inst.n_jobs)
        np.maximum.at(worth, mp_job, np.concatenate(self.columns.values)[: len(x)])
        part = np.minimum(placed, 1 - placed)
        score = np.where((part > 1e-6) & ~self.inst.pinned & ~self.forced_in & ~self.forced_out, worth * part, 0.0)
        return int(np.argmax(score)) if score.max() > 0 else None

    def _set_branch(self, fin: tuple, fout: tuple) -> None:
        """Make the live master the node with jobs ``fin`` placed and ``fout`` left out."""
        if self.lp_dead:  # an abandoned solve still owns the HiGHS object
            self.forced_in[:] = False
            self.forced_out[:] = False
            return
        inf = highspy.kHighsInf
        for j in np.flatnonzero(self.forced_in | self.forced_out):
            r = self.assign_off + int(j)
            lo, hi = self.rows.lo[r], self.rows.hi[r]
            self.h.changeRowBounds(r, lo if np.isfinite(lo) else -inf, hi if np.isfinite(hi) else inf)
        self.forced_in[:] = False
        self.forced_out[:] = False
        for j in fin:
            self.forced_in[j] = True
            self.h.changeRowBounds(self.assign_off + j, 1.0, 1.0)
        for j in fout:
            self.forced_out[j] = True
            self.h.changeRowBounds(self.assign_off + j, -inf, 0.0)

    def _node_bound(self, fin: tuple, fout: tuple, until: float, max_rounds: int = 30) -> tuple[float, int | None]:
        """(Lagrangian bound of the node, its next branching job); +inf when nothing was learnt,
        -inf when the node is proven empty (a forced-in job with no column at all)."""
        self._set_branch(fin, fout)
        bound = np.inf
        x = None
        for _ in range(max_rounds):
            if time.perf_counter() >= until or not self._solve_lp(until):
                break
            y = np.asarray(self.h.getSolution().row_dual)
            found = self._round(y, y, self.pinned_in_lp)
            bound = min(bound, found["bound"])
            x = np.asarray(self.h.getSolution().col_value)
            if found["added"] == 0:
                break
        return bound, (self._branch_job(x) if x is not None else None)

    def _relax_and_fix(self, until: float) -> None:
        """Keep what the root LP decided, solve the undecided rest as a MIP.

        Columns at 1 in the LP are fixed; the MIP runs over every other job's columns within what
        the fixed ones leave of each limit. Near the LP when the LP is mostly integral, and quick:
        the final MIP over every generated column then has the time to find the plan (l). In a big
        master (xl) the columns sharing a pool with a partly placed job stay free too, and this
        phase's MIP finds most of the plan: on the generated xl fleets the partly placed jobs use
        most pools, so that MIP is nearly the one over every column the LP generated.
        """
        if self.lp_dead or self.columns.n == 0:
            return
        x_lp = np.asarray(self.h.getSolution().col_value)
        mp = self.columns.master()
        x_lp = np.concatenate([x_lp, np.zeros(mp.n_cols - len(x_lp))])[: mp.n_cols]
        # the partly placed jobs are often the big gangs (`generate --preset xl --seed 1`: 45 jobs of
        # up to 1,024 cards carry 33k of the LP's 71.5k); fixing every job at 1 left them no room in
        # their pools (61.6k after the phase; 71.1k with the jobs in those pools left free)
        fixed = x_lp >= 1 - 1e-6
        partly = (x_lp > 1e-6) & ~fixed
        if mp.n_cols >= WIDE_FIX_COLUMNS and partly.any():
            fixed &= ~self._sharing_pools(mp, partly)
        fixed_jobs = np.zeros(self.inst.n_jobs, dtype=bool)
        fixed_jobs[mp.cols.job[fixed]] = True
        free = np.flatnonzero(~fixed_jobs[mp.cols.job])
        used = mp.A @ fixed.astype(float)
        sub = MasterProblem(
            mp.cols.subset(free),
            mp.c[free],
            mp.constant + float(mp.c[fixed].sum()),
            mp.A[:, free].tocsr(),
            mp.lo - used,
            mp.hi - used,
            mp.rows,
            mp.row_index,
        )
        start = np.zeros(sub.n_cols)
        hint = greedy_x(sub, start=start) if sub.n_cols else start
        remaining = until - time.perf_counter()
        x_sub = hint
        if sub.n_cols and remaining > 0.3:
            res = HighsBackend().solve_mip(
                sub,
                SolveOptions(
                    time_limit=max(0.2, remaining * 0.9 - 0.3),
                    mip_gap=self.opts.mip_gap,
                    seed=self.opts.seed,
                    hint=hint,
                    should_stop=self.opts.should_stop,
                ),
            )
            if res.x is not None and sub.is_feasible(res.x) and sub.objective_of(res.x) >= sub.objective_of(hint):
                x_sub = res.x
        x = fixed.astype(float)
        x[free] = x_sub
        self._offer(x, "fix")

    def _sharing_pools(self, mp: MasterProblem, cols: np.ndarray) -> np.ndarray:
        """Columns that use a pool (capacity row) that one of ``cols`` uses."""
        capacity = self.rows.families() == "capacity"
        rows = np.unique(mp.A[:, np.flatnonzero(cols)].tocoo().row)
        rows = rows[capacity[rows]]
        return np.diff(mp.A[rows].tocsc().indptr) > 0

    def _add_near_optimal(self, per_job: int = 20, splits: bool = True) -> None:
        """Add the single placements whose reduced cost at the root duals is within the gap:
        only they can be part of a plan better than the incumbent (reduced-cost argument)."""
        if self.y_center is None or not np.isfinite(self.bound):
            return
        y = self.y_center
        pi = y[self.assign_off : self.assign_off + self.inst.n_jobs]
        y_na = np.where(self.nonassign, y, 0.0)
        red = self.singles_value - self.singles_AT @ y_na - pi[self.singles.job]
        delta = max(self.bound - self.best_obj, 0.0)
        self._add_singles(red, k=per_job, min_score=-delta)
        # split placements of the contested split jobs (left out of the best plan, or split in
        # the root LP), biggest first, each with its share of the budget: an integer plan often
        # needs a split whose parts fit what the others leave, which pricing does not propose
        mp = self.columns.master()
        placed = np.zeros(self.inst.n_jobs, dtype=bool)
        placed[mp.cols.job[self.best_cols]] = True
        split_in_lp = np.zeros(self.inst.n_jobs, dtype=bool)
        whole = np.zeros(self.inst.n_jobs, dtype=bool)
        if self.x_root is not None:
            n_root = len(self.x_root)
            parts = np.diff(mp.cols.part_ptr[: n_root + 1])
            split_in_lp[mp.cols.job[:n_root][(self.x_root > 1e-6) & (parts > 1)]] = True
            whole[mp.cols.job[:n_root][self.x_root >= 1 - 1e-6]] = True
        jobs = [j for j in self.split_jobs if not placed[j] or split_in_lp[j] or not whole[j]] if splits else []
        jobs.sort(key=lambda j: -int(self.inst.job_totals[j].max()))
        if jobs:
            share = max(SPLIT_BUDGET_NEAR // len(jobs), SPLIT_BUDGET_NEAR // 6)
            pools, left = [], 2 * SPLIT_BUDGET_NEAR
            for j in jobs:
                if left <= 0:
                    break
                pool = split_columns(self.inst, budget=min(share, left), jobs=np.array([j]))
                pools.append(pool)
                left -= pool.size
            cols, values, mat = self.columns.prepare(ColumnPool.concat(self.inst, pools))
            if cols.size:
                rc = values - mat.T @ y_na - pi[cols.job]
                idx = np.flatnonzero(rc > -delta)
                idx = idx[np.argsort(-rc[idx], kind="stable")][:SPLIT_KEEP_NEAR]
                self._push(cols.subset(idx), values[idx], mat[:, idx])

    def _take_relaxation(self, relax: RelaxationBound, block, grace: float = 3.0, plan: bool = True) -> float | None:
        """Its bound (kept if lower) and its plan (offered)."""
        bound = relax.finish(grace)
        if bound is not None:
            self.bound = min(self.bound, bound)
        if plan and relax.x is not None:
            self._offer_relaxed(relax.x, block)
        return bound

    def _offer_relaxed(self, x: np.ndarray, block) -> None:
        """Offer the relaxed model's plan: its single and running placements are real columns;
        its splits (cards rounded to whole units) are real placements that may break a row the
        relaxation drops (links, storage, affinity): each is kept, most valuable first, if the
        plan stays feasible."""
        ns, nr = self.singles.size, self.running_cols.size
        singles = np.flatnonzero(x[:ns] > 0.5)
        self._push_singles(singles[~self.singles_in[singles]])
        running = self.running_cols.subset(np.flatnonzero(x[ns : ns + nr] > 0.5))
        chosen = ColumnPool.concat(self.inst, [self.singles.subset(singles), running])
        free = self.inst.pool_cards - np.asarray(chosen.pool_usage.sum(axis=0)).ravel()
        splits = placement_columns(self.inst, decode_splits(self.inst, block, x[ns + nr :], free))
        self._push(*self.columns.prepare(splits))
        where = self.columns.keys
        mp = self.columns.master()
        plan = np.zeros(mp.n_cols)
        plan[[where[self.columns.key(chosen, c)] for c in range(chosen.size)]] = 1.0
        split_idx = [where[k] for c in range(splits.size) if (k := self.columns.key(splits, c)) in where]
        for k in sorted(split_idx, key=lambda k: -mp.c[k]):
            trial = plan.copy()
            trial[k] = 1.0
            if mp.is_feasible(trial):
                plan = trial
        self._offer(plan, "relaxation")

    def _add_singles(self, score: np.ndarray, k: int, min_score: float = -np.inf) -> int:
        """Add each job's k best single candidates by ``score`` (above ``min_score``) not yet in."""
        cand = np.flatnonzero(~self.singles_in & (score > min_score))
        if not len(cand):
            return 0
        pick = np.sort(best_k_per_job(cand, score, self.singles.job, k))
        return self._push_singles(pick)

    def _push_singles(self, pick: np.ndarray) -> int:
        """Put the single candidates ``pick`` (not yet in) into the master."""
        if not len(pick):
            return 0
        self.singles_in[pick] = True
        self._push(self.singles.subset(pick), self.singles_value[pick], self.singles_AT[pick].T.tocsc())
        return len(pick)

    def _round(self, y_price: np.ndarray, y_rmp: np.ndarray, pinned_in_lp: set[int]) -> dict:
        inst = self.inst
        best, _, cands = self._price(y_price)
        # running placements are not among the single candidates: price them here;
        # a pinned job has that one option and must take it
        running_rc: dict[int, float] = {}
        if self.running_cols is not None and self.running_cols.size:
            y_na = self._valid(y_price)
            rc0 = self.running_val - self.running_mat.T @ y_na
            np.maximum.at(best, self.running_cols.job, rc0)
            for c in np.flatnonzero(inst.pinned[self.running_cols.job]):
                running_rc[int(self.running_cols.job[c])] = float(rc0[c])
        L = self._lagrangian(y_price, best, running_rc)
        # columns with a positive reduced cost at the master's duals
        pi = y_rmp[self.assign_off : self.assign_off + inst.n_jobs]
        y_na_rmp = np.where(self.nonassign, y_rmp, 0.0)
        red_rmp = self.singles_value - self.singles_AT @ y_na_rmp - pi[self.singles.job]
        red_rmp[self.forced_out[self.singles.job]] = -np.inf
        added = self._add_singles(red_rmp, k=self.per_job, min_score=EPS)
        if cands:
            cols, values, mat = self.columns.prepare(placement_columns(inst, cands))
            if cols.size:
                rc = values - mat.T @ y_na_rmp - pi[cols.job]
                keep = (rc > EPS) & ~self.forced_out[cols.job]
                if keep.any():
                    idx = np.flatnonzero(keep)
                    self._push(cols.subset(idx), values[idx], mat[:, idx])
                    added += len(idx)
        return {"bound": L, "added": added}

    def _fill(self, mp: MasterProblem, x: np.ndarray) -> tuple[np.ndarray, MasterProblem]:
        """Complete the plan greedily with every single placement not in the master."""
        rest = np.flatnonzero(~self.singles_in)
        if not len(rest):
            return x, mp
        cols = ColumnPool.concat(self.inst, [mp.cols, self.singles.subset(rest)])
        A = sp.hstack([mp.A, self.singles_AT[rest].T], format="csr")
        c = np.concatenate([mp.c, self.singles_value[rest]])
        big = MasterProblem(cols, c, mp.constant, A, mp.lo, mp.hi, mp.rows, mp.row_index)
        start = np.concatenate([x, np.zeros(len(rest))])
        filled = greedy_x(big, start=start)
        if big.objective_of(filled) > mp.objective_of(x) + 1e-9:
            return filled, big
        return x, mp
