"""The numbers a report shows, computed from the instance and the plan alone (model-v1 meanings).

- pool use: cards placed per (cluster, card type); for horizon plans the peak over the slots;
- link use: sync and remote-read traffic per link (spec rule 6), peak over slots for horizons;
- data reads: per cluster, the read rate served from a local replica and from other regions;
- unplaced jobs and simple reasons: no eligible pool, larger than any eligible placement, tenant
  quota, free capacity; otherwise "other limits or a better use of the cards";
- horizon timing: each placed job's start and duration (spec section 4);
- convergence: the solver's ``stats.history`` rounds (seconds, bound, incumbent), if any.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from fedopt.instance.model import Instance
from fedopt.instance.schema import PlanDoc


def as_plan_doc(plan) -> PlanDoc:
    """A PlanDoc from a PlanDoc, a ``fedopt.Result`` or a plan dict."""
    if isinstance(plan, PlanDoc):
        return plan
    if hasattr(plan, "to_doc"):
        return plan.to_doc()
    if isinstance(plan, dict):
        return PlanDoc.model_validate(plan)
    raise TypeError(f"expected a PlanDoc, Result or dict, got {type(plan).__name__}")


@dataclass
class Placed:
    j: int
    parts: list[tuple[int, int, int]]  # (cluster, type, count)
    start: int
    duration: int  # slots (1 for snapshot plans)
    eff: float
    regions: set[int] = field(default_factory=set)

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.parts)

    def active(self, s: int) -> bool:
        return self.start <= s < self.start + self.duration


@dataclass
class Unplaced:
    j: int
    status: str  # pending | preempted
    needs: int  # smallest allowed total
    reasons: list[str]
    category: str  # short key of the first reason


@dataclass
class PlanView:
    inst: Instance
    plan: PlanDoc
    placed: dict[int, Placed]
    slots: int  # 1 for snapshot plans
    pool_use: np.ndarray  # [P] peak cards used
    pool_use_slots: np.ndarray  # [slots, P]
    link_use: np.ndarray  # [L] peak Gbit/s
    link_use_slots: np.ndarray  # [slots, L]
    local_read: np.ndarray  # [C] Gbit/s read from a replica in the cluster's region (peak slot sum for horizons)
    remote_read: np.ndarray  # [C] Gbit/s read over links
    tenant_use: np.ndarray  # [tenants] peak cards placed
    unplaced: list[Unplaced] = field(default_factory=list)

    @property
    def horizon(self) -> bool:
        return self.inst.horizon is not None

    def pool_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(used, cards) as [clusters, card types]; cards is -1 where there is no pool."""
        inst = self.inst
        used = np.zeros((len(inst.cluster_ids), len(inst.card_ids)), dtype=np.int64)
        cards = np.full_like(used, -1)
        for p in range(inst.n_pools):
            c, t = int(inst.pool_cluster[p]), int(inst.pool_type[p])
            used[c, t] = self.pool_use[p]
            cards[c, t] = inst.pool_cards[p]
        return used, cards

    def status_of(self, j: int) -> str:
        running = self.inst.running[j] is not None
        if j in self.placed:
            if not running:
                return "started" if self.placed[j].start == 0 else "later"
            return "kept" if sorted(self.placed[j].parts) == sorted(self.inst.running[j] or []) else "migrated"
        return "preempted" if running else "pending"


def _duration(inst: Instance, j: int, parts: list[tuple[int, int, int]], start: int, eff: float) -> int:
    hz = inst.horizon
    if hz is None:
        return 1
    work = inst.doc.jobs[j].work
    if work is None:
        return max(hz.slots - start, 0)
    speed = eff * sum(n * inst.rate[j, t] for _, t, n in parts)
    if speed <= 0:
        return hz.slots
    return max(math.ceil(work / speed / hz.slot_hours - 1e-9), 0)


def _flows(inst: Instance, pl: Placed) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """(link loads, local reads per cluster, remote reads per cluster) of one placement, Gbit/s."""
    job = inst.doc.jobs[pl.j]
    links: dict[int, float] = defaultdict(float)
    local: dict[int, float] = defaultdict(float)
    remote: dict[int, float] = defaultdict(float)
    per_region: dict[int, int] = defaultdict(int)
    for c, _, n in pl.parts:
        per_region[int(inst.cluster_region[c])] += n
    if len(per_region) > 1 and job.split.sync_gbps > 0:
        anchor = min(per_region, key=lambda r: (-per_region[r], inst.region_ids[r]))
        for r in per_region:
            if r != anchor and inst.routes.reachable[anchor, r]:
                for k in inst.routes.links[anchor][r]:
                    links[k] += job.split.sync_gbps
    dsi = {d: i for i, d in enumerate(inst.dataset_ids)}
    for c, _, n in pl.parts:
        q = int(inst.cluster_region[c])
        frac = n / pl.total
        for read in job.data:
            rate = read.gbps * frac
            src = int(inst.data_source[dsi[read.dataset], q])
            if src == q:
                local[c] += rate
            elif src >= 0:
                remote[c] += rate
                for k in inst.routes.links[src][q]:
                    links[k] += rate
    return links, local, remote


def analyze(inst: Instance, plan) -> PlanView:
    plan = as_plan_doc(plan)
    se = inst.doc.settings.span_efficiency
    placed: dict[int, Placed] = {}
    for a in plan.assignments:
        j = inst.job_index.get(a.job)
        if j is None:
            continue
        parts = []
        for p in a.parts:
            c, t = inst.cluster_index.get(p.cluster), inst.type_index.get(p.card_type)
            if c is not None and t is not None and (c, t) in inst.pool_index:
                parts.append((c, t, p.count))
        if not parts:
            continue
        regions = {int(inst.cluster_region[c]) for c, _, _ in parts}
        eff = se.cluster if len(parts) == 1 else (se.region if len(regions) == 1 else se.federation)
        start = a.start_slot or 0
        placed[j] = Placed(j, parts, start, _duration(inst, j, parts, start, eff), eff, regions)
    slots = inst.horizon.slots if inst.horizon is not None else 1
    n_links = len(inst.link_gbps)
    pool_slots = np.zeros((slots, inst.n_pools))
    link_slots = np.zeros((slots, n_links))
    local_slots = np.zeros((slots, len(inst.cluster_ids)))
    remote_slots = np.zeros_like(local_slots)
    tenant_slots = np.zeros((slots, len(inst.tenant_ids)))
    for pl in placed.values():
        links, local, remote = _flows(inst, pl)
        active = [s for s in range(slots) if pl.active(s)] if inst.horizon is not None else [0]
        ten = int(inst.job_tenant[pl.j])
        for s in active:
            if ten >= 0:
                tenant_slots[s, ten] += pl.total
            for c, t, n in pl.parts:
                pool_slots[s, inst.pool_index[(c, t)]] += n
            for k, v in links.items():
                link_slots[s, k] += v
            for c, v in local.items():
                local_slots[s, c] += v
            for c, v in remote.items():
                remote_slots[s, c] += v
    peak = int(np.argmax(local_slots.sum(1) + remote_slots.sum(1))) if slots > 1 else 0
    view = PlanView(
        inst=inst,
        plan=plan,
        placed=placed,
        slots=slots,
        pool_use=pool_slots.max(0).astype(np.int64) if slots else np.zeros(inst.n_pools, dtype=np.int64),
        pool_use_slots=pool_slots,
        link_use=link_slots.max(0) if n_links else np.zeros(0),
        link_use_slots=link_slots,
        local_read=local_slots[peak],
        remote_read=remote_slots[peak],
        tenant_use=tenant_slots.max(0) if len(inst.tenant_ids) else np.zeros(0),
    )
    view.unplaced = [_why(view, j) for j in range(inst.n_jobs) if j not in placed]
    return view


def _best_fit(inst: Instance, j: int, free: np.ndarray) -> int:
    """Most cards the job could get from ``free`` cards per pool: one type, its max_parts clusters, its scope."""
    job = inst.doc.jobs[j]
    pools = np.flatnonzero(inst.pool_ok[j])
    if not len(pools):
        return 0
    g, k = job.granularity, job.split.max_parts
    sizes = np.maximum(free[pools], 0) // g * g
    keys = inst.pool_type[pools].astype(np.int64)
    if k > 1 and job.split.scope == "region":  # parts in one region: group by (type, region)
        keys = keys * len(inst.region_ids) + inst.cluster_region[inst.pool_cluster[pools]]
    best = 0
    for key in np.unique(keys):
        best = max(best, int(np.sort(sizes[keys == key])[::-1][:k].sum()))
    return best


def _why(view: PlanView, j: int) -> Unplaced:
    inst = view.inst
    job = inst.doc.jobs[j]
    totals = [int(n) for n in inst.job_totals[j]]
    needs = min([n for n in totals if n % job.granularity == 0] or totals or [0])
    status = "preempted" if inst.running[j] is not None else "pending"
    reasons: list[tuple[str, str]] = []
    if not inst.pool_ok[j].any():
        reasons.append(("no eligible pool", "no pool has an eligible card type in an allowed region"))
    else:
        most = _best_fit(inst, j, inst.pool_cards)
        if most < needs:
            reasons.append(("too large", f"needs {needs} cards; eligible pools hold at most {most} for it"))
    ten = int(inst.job_tenant[j])
    if ten >= 0 and np.isfinite(inst.tenant_quota[ten]):
        quota = int(inst.tenant_quota[ten])
        used = int(view.tenant_use[ten])
        if used + needs > quota:
            reasons.append(("quota", f"tenant {inst.tenant_ids[ten]} uses {used} of {quota} cards; needs {needs} more"))
    if inst.pool_ok[j].any() and not any(k == "too large" for k, _ in reasons):
        free = inst.pool_cards - view.pool_use
        most = _best_fit(inst, j, free)
        if most < needs:
            reasons.append(("capacity", f"needs {needs} cards; at most {most} free in eligible pools"))
    if job.deadline_slot is not None and inst.horizon is not None and job.release_slot >= job.deadline_slot:
        reasons.append(("deadline", f"released in slot {job.release_slot}, due by slot {job.deadline_slot}"))
    if not reasons:
        reasons.append(("other", "fits on cards and quota: links, storage, affinity or a better use of the cards kept it out"))
    return Unplaced(j, status, needs, [r for _, r in reasons], reasons[0][0])


def history_of(plan) -> list[dict] | None:
    """The solver's rounds as [{seconds, bound, incumbent, lp}], or None when the plan has none."""
    plan = as_plan_doc(plan)
    rows = plan.stats.get("history") if isinstance(plan.stats, dict) else None
    if not isinstance(rows, list) or not rows:
        return None
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, dict):
            t = next((r[k] for k in ("seconds", "time", "elapsed", "t") if isinstance(r.get(k), int | float)), None)
            row = {
                "round": r.get("round", i),
                "seconds": float(t) if t is not None else None,
                "bound": _num(r.get("bound", r.get("best_bound", r.get("dual_bound")))),
                "incumbent": _num(r.get("incumbent", r.get("objective", r.get("primal")))),
                "lp": _num(r.get("lp")),
            }
        elif isinstance(r, list | tuple) and len(r) >= 3:
            row = {"round": i, "seconds": _num(r[0]), "bound": _num(r[1]), "incumbent": _num(r[2]), "lp": None}
        else:
            continue
        out.append(row)
    if not any(r["bound"] is not None or r["incumbent"] is not None for r in out):
        return None
    return out


def _num(v) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None
