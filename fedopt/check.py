"""The independent checker: recomputes every rule of model-v1 and the objective of a plan.

It reads the instance document (and the loader's routes and rates, which are the instance's
meaning) and nothing of the model-building or solver code, so a bug there cannot hide here.
Written for clarity with plain loops over the plan: plans are small next to models.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from fedopt.instance.model import BYTES_PER_GBIT_HOUR, Instance
from fedopt.instance.schema import ElasticCards, PlanDoc

TOL = 1e-6


@dataclass(frozen=True)
class Violation:
    rule: int  # 1-9 as in the spec; 0 = malformed plan; 10 = horizon timing; 11 = objective; 12 = max_moves
    message: str

    def __str__(self) -> str:
        return f"rule {self.rule}: {self.message}" if self.rule else self.message


@dataclass
class CheckResult:
    violations: list[Violation]
    objective: float
    terms: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations


def _eligible_type(inst: Instance, j: int, t: int) -> str | None:
    job = inst.doc.jobs[j]
    card = inst.doc.card_types[t]
    if job.card_types is not None and card.id not in job.card_types:
        return "not in the job's card_types"
    if job.stack is not None and card.stack != job.stack:
        return f"stack {card.stack} != {job.stack}"
    if job.memory_gb is not None and card.memory_gb < job.memory_gb:
        return f"memory {card.memory_gb} GB < {job.memory_gb} GB"
    if inst.rate[j, t] <= 0:
        return "rate 0 (no throughput and no profile for it)"
    return None


def _data_source(inst: Instance, dataset: int, q: int) -> int | None:
    """Replica region a read from q comes from (q if local); None if unreachable."""
    reps = set(inst.doc.datasets[dataset].replicas)
    if inst.region_ids[q] in reps:
        return q
    best = None
    for r, rid in enumerate(inst.region_ids):
        if rid in reps and inst.routes.reachable[r, q]:
            key = (inst.routes.latency_ms[r, q], rid)
            if best is None or key < best[0]:
                best = (key, r)
    return None if best is None else best[1]


class _Placement:
    """One assignment resolved to indices, with the quantities every rule needs."""

    def __init__(self, inst: Instance, j: int, parts: list[tuple[int, int, int]], start: int | None):
        self.j = j
        self.parts = parts  # (cluster, type, count)
        self.start = start
        self.total = sum(p[2] for p in parts)
        regions = {int(inst.cluster_region[c]) for c, _, _ in parts}
        self.regions = regions
        se = inst.doc.settings.span_efficiency
        if len(parts) == 1:
            self.eff = se.cluster
        elif len(regions) == 1:
            self.eff = se.region
        else:
            self.eff = se.federation
        self.speed = self.eff * sum(n * inst.rate[j, t] for _, t, n in parts)


def _resolve(inst: Instance, plan: PlanDoc, out: list[Violation]) -> dict[int, _Placement]:
    placed: dict[int, _Placement] = {}
    for a, asg in enumerate(plan.assignments):
        j = inst.job_index.get(asg.job)
        if j is None:
            out.append(Violation(0, f"assignments[{a}]: unknown job {asg.job!r}"))
            continue
        if j in placed:
            out.append(Violation(0, f"assignments[{a}]: job {asg.job} assigned twice"))
            continue
        parts = []
        ok = True
        for k, p in enumerate(asg.parts):
            c = inst.cluster_index.get(p.cluster)
            t = inst.type_index.get(p.card_type)
            if c is None or t is None or (c, t) not in inst.pool_index:
                out.append(Violation(0, f"assignments[{a}].parts[{k}]: no pool {p.cluster}/{p.card_type}"))
                ok = False
                continue
            parts.append((c, t, p.count))
        if ok:
            placed[j] = _Placement(inst, j, parts, asg.start_slot)
    return placed


def _duration(inst: Instance, pl: _Placement) -> int:
    """Slots the placement runs (spec section 4)."""
    hz = inst.horizon
    work = inst.doc.jobs[pl.j].work
    start = pl.start or 0
    if work is None:
        return max(hz.slots - start, 0)
    if pl.speed <= 0:
        return hz.slots  # ineligible anyway; flagged by rule 1
    return max(math.ceil(work / pl.speed / hz.slot_hours - 1e-9), 0)


def _best_single_pool_duration(inst: Instance, j: int) -> int:
    hz = inst.horizon
    job = inst.doc.jobs[j]
    g = job.granularity
    totals = inst.job_totals[j]
    best = hz.slots
    if job.work is None:
        return hz.slots
    eff = inst.doc.settings.span_efficiency.cluster
    for p in range(inst.n_pools):
        c, t = int(inst.pool_cluster[p]), int(inst.pool_type[p])
        if _eligible_type(inst, j, t) is not None or not inst.region_ok[j, inst.cluster_region[c]]:
            continue
        fits = [n for n in totals if n <= inst.pool_cards[p] and n % g == 0]
        if fits:
            speed = eff * max(fits) * inst.rate[j, t]
            best = min(best, max(math.ceil(job.work / speed / hz.slot_hours - 1e-9), 0))
    return best


def _check_placement(inst: Instance, pl: _Placement, out: list[Violation]) -> None:
    job = inst.doc.jobs[pl.j]
    name = job.id
    types = {t for _, t, _ in pl.parts}
    clusters = [c for c, _, _ in pl.parts]
    # rule 1
    if len(types) > 1:
        out.append(Violation(1, f"{name}: parts use {len(types)} card types"))
    for t in types:
        why = _eligible_type(inst, pl.j, t)
        if why:
            out.append(Violation(1, f"{name}: card type {inst.card_ids[t]} not eligible ({why})"))
    if len(set(clusters)) < len(clusters):
        out.append(Violation(1, f"{name}: two parts in one cluster"))
    for c in clusters:
        q = int(inst.cluster_region[c])
        if job.regions is not None and inst.region_ids[q] not in job.regions:
            out.append(Violation(1, f"{name}: region {inst.region_ids[q]} not in the job's regions"))
    # rule 2
    if len(pl.parts) > job.split.max_parts:
        out.append(Violation(2, f"{name}: {len(pl.parts)} parts > max_parts {job.split.max_parts}"))
    if len(pl.parts) > 1 and job.split.scope == "region" and len(pl.regions) > 1:
        out.append(Violation(2, f"{name}: parts span {len(pl.regions)} regions with scope region"))
    # rule 3
    for _, _, n in pl.parts:
        if n <= 0 or n % job.granularity:
            out.append(Violation(3, f"{name}: part count {n} not a positive multiple of {job.granularity}"))
    cards = job.cards
    if isinstance(cards, ElasticCards):
        allowed = cards.min <= pl.total <= cards.max and (pl.total - cards.min) % cards.step == 0
    else:
        allowed = pl.total == cards
    if not allowed:
        out.append(Violation(3, f"{name}: total {pl.total} cards is not an allowed total"))


def _flows(inst: Instance, pl: _Placement, out: list[Violation] | None) -> tuple[dict, float, dict]:
    """Link loads (Gbit/s), egress cost per hour and storage reads per cluster of a placement."""
    job = inst.doc.jobs[pl.j]
    links: dict[int, float] = defaultdict(float)
    storage: dict[int, float] = defaultdict(float)
    egress = 0.0
    if len(pl.regions) > 1 and job.split.sync_gbps > 0:
        per_region: dict[int, int] = defaultdict(int)
        for c, _, n in pl.parts:
            per_region[int(inst.cluster_region[c])] += n
        anchor = min(per_region, key=lambda r: (-per_region[r], inst.region_ids[r]))
        for r in per_region:
            if r == anchor:
                continue
            if not inst.routes.reachable[anchor, r]:
                if out is not None:
                    where = f"{inst.region_ids[anchor]} to {inst.region_ids[r]}"
                    out.append(Violation(6, f"{job.id}: no route for sync from {where}"))
                continue
            for k in inst.routes.links[anchor][r]:
                links[k] += job.split.sync_gbps
    for c, _, n in pl.parts:
        q = int(inst.cluster_region[c])
        frac = n / pl.total
        for read in job.data:
            storage[c] += read.gbps * frac
            d = inst.dataset_index[read.dataset]
            src = _data_source(inst, d, q)
            if src is None:
                if out is not None:
                    out.append(Violation(6, f"{job.id}: no replica of {read.dataset} reachable from {inst.region_ids[q]}"))
                continue
            if src == q:
                continue
            for k in inst.routes.links[src][q]:
                links[k] += read.gbps * frac
            egress += BYTES_PER_GBIT_HOUR * read.gbps * frac * inst.routes.egress_per_gb[src, q]
    return links, egress, storage


def _check_shared(inst: Instance, active: list[tuple[_Placement, dict, dict]], when: str, out: list[Violation]) -> None:
    """Rules 4-7 over the placements active at one time."""
    pool_use: dict[tuple[int, int], int] = defaultdict(int)
    tenant_use: dict[int, int] = defaultdict(int)
    link_use: dict[int, float] = defaultdict(float)
    storage_use: dict[int, float] = defaultdict(float)
    for pl, links, storage in active:
        for c, t, n in pl.parts:
            pool_use[(c, t)] += n
        ten = inst.job_tenant[pl.j]
        if ten >= 0:
            tenant_use[int(ten)] += pl.total
        for k, v in links.items():
            link_use[k] += v
        for c, v in storage.items():
            storage_use[c] += v
    for (c, t), n in pool_use.items():
        cap = inst.pool_cards[inst.pool_index[(c, t)]]
        if n > cap:
            out.append(Violation(4, f"pool {inst.cluster_ids[c]}/{inst.card_ids[t]} {n} > {cap}{when}"))
    for ten, n in tenant_use.items():
        if n > inst.tenant_quota[ten]:
            out.append(Violation(5, f"tenant {inst.tenant_ids[ten]} {n} > {int(inst.tenant_quota[ten])}{when}"))
    for k, v in link_use.items():
        if v > inst.link_gbps[k] * (1 + TOL) + TOL:
            a, b = inst.link_ends[k]
            out.append(Violation(6, f"link {inst.region_ids[a]}-{inst.region_ids[b]} {v:g} > {inst.link_gbps[k]:g} Gbit/s{when}"))
    for c, v in storage_use.items():
        if v > inst.cluster_storage[c] * (1 + TOL) + TOL:
            out.append(Violation(7, f"cluster {inst.cluster_ids[c]} storage {v:g} > {inst.cluster_storage[c]:g} Gbit/s{when}"))


def _check_affinity(inst: Instance, placed: dict[int, _Placement], out: list[Violation]) -> None:
    for a, b in inst.same_region_pairs:
        if a in placed and b in placed:
            ra, rb = placed[a].regions, placed[b].regions
            if len(ra) > 1 or len(rb) > 1 or ra != rb:
                out.append(Violation(8, f"same_region: {inst.job_ids[a]} and {inst.job_ids[b]} are not in one region"))
    for a, b in inst.different_cluster_pairs:
        if a in placed and b in placed:
            shared = {c for c, _, _ in placed[a].parts} & {c for c, _, _ in placed[b].parts}
            if shared:
                names = ", ".join(sorted(inst.cluster_ids[c] for c in shared))
                out.append(Violation(8, f"different_cluster: {inst.job_ids[b]}/{inst.job_ids[a]} share cluster {names}"))


def _same_parts(pl: _Placement, running: list[tuple[int, int, int]]) -> bool:
    return sorted(pl.parts) == sorted(running)


def check_plan(inst: Instance, plan: PlanDoc, *, check_objective: bool = True) -> CheckResult:
    """Every rule of the spec, and the objective recomputed; the plan's stated one compared."""
    out: list[Violation] = []
    placed = _resolve(inst, plan, out)
    hz = inst.horizon
    w = inst.doc.settings.weights
    flows = {j: _flows(inst, pl, out) for j, pl in placed.items()}
    for pl in placed.values():
        _check_placement(inst, pl, out)
    durations: dict[int, int] = {}
    if hz is None:
        _check_shared(inst, [(pl, flows[j][0], flows[j][2]) for j, pl in placed.items()], "", out)
    else:
        for j, pl in placed.items():
            job = inst.doc.jobs[j]
            if pl.start is None:
                out.append(Violation(10, f"{job.id}: no start_slot in a horizon plan"))
                pl.start = 0
            durations[j] = d = _duration(inst, pl)
            if pl.start >= hz.slots:
                out.append(Violation(10, f"{job.id}: start_slot {pl.start} is past the horizon ({hz.slots} slots)"))
            if pl.start < job.release_slot:
                out.append(Violation(10, f"{job.id}: starts at {pl.start} before its release slot {job.release_slot}"))
            if job.deadline_slot is not None and pl.start + d > job.deadline_slot:
                out.append(Violation(10, f"{job.id}: ends at {pl.start + d} after its deadline slot {job.deadline_slot}"))
            if inst.running[j] is not None and pl.start != 0:
                out.append(Violation(10, f"{job.id}: running job placed to start at {pl.start}, not 0"))
        for s in range(hz.slots):
            active = [(pl, flows[j][0], flows[j][2]) for j, pl in placed.items() if pl.start <= s < pl.start + durations[j]]
            _check_shared(inst, active, f" in slot {s}", out)
    _check_affinity(inst, placed, out)
    # rule 9 and the migration / preemption terms
    migration = preemption = 0.0
    for j, running in enumerate(inst.running):
        if running is None:
            continue
        pen = float(inst.running_penalty[j])
        if j not in placed:
            preemption += pen
            if inst.pinned[j]:
                out.append(Violation(9, f"{inst.job_ids[j]} (pinned) stopped"))
        elif not _same_parts(placed[j], running):
            migration += pen
            if inst.pinned[j]:
                out.append(Violation(9, f"{inst.job_ids[j]} (pinned) moved"))
    max_moves = inst.doc.settings.max_moves
    if max_moves is not None:
        moved = sum(1 for j, r in enumerate(inst.running) if r is not None and (j not in placed or not _same_parts(placed[j], r)))
        if moved > max_moves:
            out.append(Violation(12, f"{moved} running jobs moved or stopped > max_moves {max_moves}"))
    terms = {"migration": w.migration * migration, "preemption": w.preemption * preemption}
    if hz is None:
        thr = sum(inst.job_priority[j] * pl.speed for j, pl in placed.items())
        egress = sum(flows[j][1] for j in placed)
        terms |= {"throughput": w.throughput * thr, "egress": w.egress * egress}
        objective = terms["throughput"] - terms["egress"] - terms["migration"] - terms["preemption"]
    else:
        done = sum(inst.job_priority[j] * (pl.start + durations[j]) * hz.slot_hours for j, pl in placed.items())
        pending = sum(
            inst.job_priority[j] * (hz.slots + _best_single_pool_duration(inst, j)) * hz.slot_hours
            for j in range(inst.n_jobs)
            if j not in placed
        )
        egress = sum(flows[j][1] * durations[j] * hz.slot_hours for j in placed)
        terms |= {"completion": w.completion * (done + pending), "egress": w.egress * egress}
        objective = terms["completion"] + terms["egress"] + terms["migration"] + terms["preemption"]
    if check_objective and plan.objective is not None and abs(plan.objective - objective) > 1e-6 * max(1.0, abs(objective)):
        out.append(Violation(11, f"objective stated {plan.objective:g}, recomputed {objective:g}"))
    return CheckResult(out, float(objective), {k: float(v) for k, v in terms.items()})
