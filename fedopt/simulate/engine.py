"""The simulation loop: arrivals, re-plans at a fixed interval, progress, completions.

Time is in hours. Re-plans happen at multiples of the interval; a job that arrives inside an
interval waits for the next one, whatever the policy. Between two re-plans every placed job
does ``speed x elapsed`` of its work (``speed = eff x sum(count x rate)``); a job whose work runs
out finishes at that instant, and its cards are free at the next re-plan.

A running job that a plan moves or stops loses ``migration_hours`` of its old speed (the work
since its last checkpoint plus the restart), the same figure the snapshot model charges for a
move (spec section 2): the lost work is added back to what it has left.

A re-plan whose inputs did not change since the previous one (no arrival, no completion) would
give the same answer for greedy and fifo-backfill, so the loop jumps to the next interval in
which something happens; fedopt is re-planned at every interval while its previous re-plan used
its whole move budget (it may still want to move jobs).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from fedopt.instance import Instance
from fedopt.simulate.fleet import JobSpec
from fedopt.simulate.state import BYTES_PER_GBIT_HOUR, Fleet, Flow, Parts, Usage


@dataclass
class Decision:
    """A policy's answer: where every job runs after the re-plan (absent = not running)."""

    placements: dict[int, Parts]
    info: dict = field(default_factory=dict)  # status, solve seconds, considered jobs ...
    wants_more: bool = False  # re-plan at the next interval even if nothing happens


@dataclass
class Interval:
    """What happened between two re-plans (one row of the time line)."""

    t: float
    hours: float
    busy_card_hours: float
    work: float  # normalized work done
    running: int
    pending: int
    plan_seconds: float


@dataclass
class Run:
    parts: Parts
    flow: Flow


class Simulation:
    """State of one simulated run; policies read it and :meth:`run` drives it."""

    def __init__(
        self,
        fleet_inst: Instance,
        jobs: list[JobSpec],
        policy,
        *,
        interval_h: float,
        arrival_hours: float,
        end_hours: float,
        check: bool = False,
        progress=None,
        fleet_doc: dict | None = None,
    ):
        self.fleet = Fleet(fleet_inst)
        self.fleet_doc = fleet_doc if fleet_doc is not None else fleet_inst.doc.model_dump(mode="json", exclude_none=True)
        self.jobs = jobs
        self.policy = policy
        self.interval = interval_h
        self.arrival_hours = arrival_hours
        self.end_hours = end_hours
        self.check = check
        self.progress = progress
        n = len(jobs)
        self.remaining = np.array([j.work0 for j in jobs], dtype=float)
        self.start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.migrations = np.zeros(n, dtype=np.int64)
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.never_fits = np.array([not self._fits_ever(j) for j in jobs], dtype=bool)
        self.running: dict[int, Run] = {}
        self.pending: dict[int, None] = {}  # in arrival order
        self.usage = Usage(self.fleet)
        self.t = 0.0
        self.timeline: list[Interval] = []
        self.replans: list[dict] = []
        self.capacity_violations: list[str] = []
        self.check_violations: list[str] = []
        self.cross_region_gb = 0.0
        self.egress_cost = 0.0
        mh = fleet_inst.doc.settings.migration_hours
        self.migration_hours = float(mh)
        # each card type's peak: the best rate any job of the stream has on it (normalized utilization)
        rates = np.array([j.rate for j in jobs]) if jobs else np.zeros((0, len(fleet_inst.card_ids)))
        self.type_peak = rates.max(axis=0) if len(jobs) else np.ones(len(fleet_inst.card_ids))
        self.peak_work_per_hour = float((self.fleet.pool_cards * self.type_peak[self.fleet.pool_type]).sum())

    # ------------------------------------------------------------------ helpers for policies
    def fleet_doc_template(self) -> dict:
        """A fresh copy of the fleet's document (clusters, links and settings copied deep enough
        to be edited), with no jobs."""
        d = dict(self.fleet_doc)
        d["clusters"] = [dict(c, pools=[dict(p) for p in c.get("pools", [])]) for c in d.get("clusters", [])]
        d["links"] = [dict(lk) for lk in d.get("links", [])]
        d["settings"] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in d.get("settings", {}).items()}
        d["jobs"] = []
        return d

    def pool_ok(self, spec: JobSpec) -> np.ndarray:
        """Pools whose card type and region the job may use."""
        return (spec.rate[self.fleet.pool_type] > 0) & spec.region_ok[self.fleet.pool_region]

    def _fits_ever(self, spec: JobSpec) -> bool:
        """Some placement holds the job in the empty fleet (pools only; splits counted)."""
        fl = self.fleet
        ok = self.pool_ok(spec)
        need = int(spec.totals[0])
        cards = fl.pool_cards
        if (ok & (cards >= need)).any():
            return True
        if spec.max_parts <= 1:
            return False
        g = spec.granularity
        for t in np.unique(fl.pool_type[ok]):
            sel = np.flatnonzero(ok & (fl.pool_type == t))
            groups = [sel] if spec.federation else [sel[fl.pool_region[sel] == r] for r in np.unique(fl.pool_region[sel])]
            for grp in groups:
                top = np.sort(cards[grp] // g * g)[::-1][: spec.max_parts]
                if top.sum() >= need:
                    return True
        return False

    def free_pools(self, excluding: list[int] = ()) -> np.ndarray:
        """Free cards per pool, with the jobs in ``excluding`` taken off the fleet."""
        free = self.fleet.pool_cards - self.usage.pools
        for j in excluding:
            for p, n in self.running[j].flow.pools:
                free[p] += n
        return free

    def placeable(self, js: list[int], free: np.ndarray) -> list[int]:
        """The jobs that could fit the free cards at all (a necessary condition: their eligible
        pools hold enough free cards); the others cannot start now whatever a policy does."""
        out = []
        for j in js:
            spec = self.jobs[j]
            if free[self.pool_ok(spec)].sum() >= spec.totals[0]:
                out.append(j)
        return out

    def speed_of(self, j: int) -> float:
        r = self.running.get(j)
        return r.flow.speed if r else 0.0

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        order = np.argsort([j.arrival for j in self.jobs], kind="stable")
        arrivals = [int(j) for j in order]
        a = 0  # next arrival
        changed = True
        wants_more = False
        t = 0.0
        k = 0  # interval index
        while True:
            t = k * self.interval
            self.t = t
            while a < len(arrivals) and self.jobs[arrivals[a]].arrival <= t + 1e-12:
                j = arrivals[a]
                if not self.never_fits[j]:
                    self.pending[j] = None
                    changed = True
                a += 1
            if not self.running and not self.pending and a >= len(arrivals):
                break
            if t >= self.end_hours:
                break
            plan_seconds = 0.0
            if changed or wants_more:
                t0 = time.perf_counter()
                decision = self.policy.decide(self)
                plan_seconds = time.perf_counter() - t0
                self._apply(decision, plan_seconds)
                wants_more = decision.wants_more
                changed = False
                if self.progress is not None:
                    self.progress(self)
            # the next re-plan: the next interval, or later if nothing happens before then
            nxt = k + 1
            if not wants_more:
                events = [self.jobs[arrivals[a]].arrival] if a < len(arrivals) else []
                if self.running:
                    events.append(t + min(self.remaining[j] / r.flow.speed for j, r in self.running.items()))
                if events:
                    nxt = max(k + 1, math.ceil(min(events) / self.interval - 1e-9))
                nxt = min(nxt, max(k + 1, math.ceil(self.end_hours / self.interval - 1e-9)))
            t_next = nxt * self.interval
            changed |= self._advance(t, t_next, plan_seconds)
            k = nxt
        self.t = t

    def _apply(self, decision: Decision, seconds: float) -> None:
        new = decision.placements
        before = {j: r.parts for j, r in self.running.items()} if self.check else {}
        moved = preempted = started = 0
        for j in list(self.running):
            if j not in new:
                self._stop(j)
                self.pending[j] = None
                self.preemptions[j] += 1
                preempted += 1
        for j, parts in new.items():
            run = self.running.get(j)
            if run is not None and run.parts == parts:
                continue
            if run is not None:
                self._stop(j)
                self.migrations[j] += 1
                moved += 1
            else:
                del self.pending[j]
                started += 1
            f = self.fleet.flow(self.jobs[j], parts)
            self.running[j] = Run(parts, f)
            self.usage.add(f)
            if math.isnan(self.start[j]):
                self.start[j] = self.t
        if preempted:  # keep the queue in arrival order
            self.pending = dict(sorted(self.pending.items(), key=lambda kv: (self.jobs[kv[0]].arrival, kv[0])))
        over = self.usage.over()
        if over:
            self.capacity_violations.extend(f"t={self.t:g}h: {v}" for v in over)
        row = {"t": self.t, "seconds": seconds, "started": started, "migrated": moved, "preempted": preempted}
        row |= decision.info
        self.replans.append(row)
        if self.check:
            self._check_full(before)

    def _stop(self, j: int) -> None:
        """Take a running job off its cards; it loses migration_hours of work at its old speed
        (the work since its last checkpoint and the restart)."""
        run = self.running.pop(j)
        self.usage.add(run.flow, -1)
        rate_old = float(self.jobs[j].rate[run.parts[0][1]])
        self.remaining[j] += run.flow.cards * rate_old * self.migration_hours

    def _advance(self, t: float, t_next: float, plan_seconds: float) -> bool:
        """Run every placed job from t to t_next; True when some job finished."""
        dt = t_next - t
        busy = work = 0.0
        done = []
        for j, run in self.running.items():
            f = run.flow
            need = self.remaining[j] / f.speed
            ran = min(need, dt)
            busy += f.cards * ran
            work += f.speed * ran
            self.cross_region_gb += BYTES_PER_GBIT_HOUR * f.cross_region_gbps * ran
            self.egress_cost += f.egress_per_hour * ran
            if need <= dt + 1e-12:
                self.remaining[j] = 0.0
                self.finish[j] = t + need
                done.append(j)
            else:
                self.remaining[j] -= f.speed * dt
        self.timeline.append(Interval(t, dt, busy, work, len(self.running), len(self.pending), plan_seconds))
        for j in done:
            run = self.running.pop(j)
            self.usage.add(run.flow, -1)
        return bool(done)

    # ------------------------------------------------------------------ checking
    def _check_full(self, before: dict[int, Parts]) -> None:
        """The whole fleet's plan after this re-plan, checked by fedopt's independent checker
        against an instance holding every active job (running ones at their previous parts)."""
        from fedopt.check import check_plan
        from fedopt.instance import parse_instance
        from fedopt.instance.schema import Assignment, Part, PlanDoc

        inst = self.fleet.inst
        active = sorted(set(self.pending) | set(self.running) | set(before))
        doc = {k: v for k, v in inst.doc.model_dump(mode="json", exclude_none=True).items() if k != "jobs"}
        jobs = []
        for j in active:
            job = dict(self.jobs[j].doc)
            job["work"] = float(self.remaining[j])
            if j in before:
                job["running"] = {
                    "parts": [
                        {"cluster": inst.cluster_ids[c], "card_type": inst.card_ids[t], "count": n} for c, t, n in before[j]
                    ]
                }
            jobs.append(job)
        doc["jobs"] = jobs
        full = parse_instance(doc)
        assignments = [
            Assignment(
                job=self.jobs[j].doc["id"],
                parts=[Part(cluster=inst.cluster_ids[c], card_type=inst.card_ids[t], count=n) for c, t, n in r.parts],
            )
            for j, r in sorted(self.running.items())
        ]
        verdict = check_plan(full, PlanDoc(instance=full.name, assignments=assignments), check_objective=False)
        self.check_violations.extend(f"t={self.t:g}h: {v}" for v in verdict.violations)
