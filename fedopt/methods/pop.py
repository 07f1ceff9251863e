"""POP (Narayanan et al., SOSP'21): split jobs and resources into k random parts, solve apart.

Pinned jobs keep their place; what they leave of every limit (pool cards, tenant quota, link and
storage bandwidth) is shared evenly between k sub-problems; jobs tied by an affinity stay in one
sub-problem. Sub-problems are solved in a process pool; their plans together respect every limit
by construction. POP proves no bound.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from fedopt.columns.enumerate import running_columns
from fedopt.instance.model import Instance
from fedopt.master import Rows
from fedopt.methods import Outcome


def _groups(inst: Instance) -> np.ndarray:
    """Union-find over affinity pairs: jobs that must be decided together."""
    parent = np.arange(inst.n_jobs)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in np.vstack([inst.same_region_pairs, inst.different_cluster_pairs]):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([find(j) for j in range(inst.n_jobs)])


def _share(total: float, k: int, i: int, integer: bool) -> float:
    if integer:
        base, rem = divmod(int(max(total, 0)), k)
        return base + (1 if i < rem else 0)
    return max(total, 0.0) / k


def sub_documents(inst: Instance, k: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    doc = inst.doc.model_dump(mode="json", exclude_none=True)
    groups = _groups(inst)
    roots = np.unique(groups)
    part_of_root = dict(zip(roots.tolist(), rng.integers(0, k, size=len(roots)).tolist(), strict=True))
    part = np.array([part_of_root[g] for g in groups])
    # what the pinned jobs of each part use
    run = running_columns(inst)
    run = run.subset(inst.pinned[run.job])
    rows = Rows.of(inst)
    use_by_part = []
    for i in range(k):
        sel = run.subset(part[run.job] == i)
        use_by_part.append(rows.matrix(sel) @ np.ones(sel.size) if sel.size else np.zeros(rows.n))
    pinned_use = sum(use_by_part) if use_by_part else np.zeros(rows.n)
    offs = {s.family: rows.offset(s.family) for s in rows.sets}
    sets = {s.family: s for s in rows.sets}
    out = []
    for i in range(k):
        d = {key: value for key, value in doc.items() if key != "jobs"}
        d["name"] = f"{inst.name}-pop{i}"
        extra = use_by_part[i]

        def limit(family: str, key: int, original: float, integer: bool, i: int = i, extra: np.ndarray = extra) -> float:
            pos = np.flatnonzero(sets[family].keys == key)
            if not len(pos):
                return original
            r = offs[family] + int(pos[0])
            return _share(original - pinned_use[r], k, i, integer) + extra[r]

        p = 0
        clusters = []
        for ci, cl in enumerate(doc["clusters"]):
            cl = dict(cl)
            pools = []
            for pool in cl["pools"]:
                pools.append(dict(pool, cards=round(limit("capacity", p, pool["cards"], True))))
                p += 1
            cl["pools"] = pools
            if "storage_gbps" in cl:
                cl["storage_gbps"] = float(limit("storage", ci, cl["storage_gbps"], False))
            clusters.append(cl)
        d["clusters"] = clusters
        d["links"] = [dict(lk, gbps=float(limit("bandwidth", li, lk["gbps"], False))) for li, lk in enumerate(doc["links"])]
        d["tenants"] = [
            dict(t, quota_cards=round(limit("quota", ti, t["quota_cards"], True))) if "quota_cards" in t else dict(t)
            for ti, t in enumerate(doc["tenants"])
        ]
        d["jobs"] = [doc["jobs"][j] for j in np.flatnonzero(part == i)]
        out.append(d)
    return out


def _solve_one(args: tuple[dict, float, int, str]) -> dict:
    from fedopt.instance import parse_instance
    from fedopt.solve import solve

    doc, limit, seed, backend = args
    inst = parse_instance(doc)
    r = solve(inst, method="auto", time_limit=limit, seed=seed, backend=backend, quiet=True)
    return {
        "assignments": [(a.job, [(p.cluster, p.card_type, p.count) for p in a.parts]) for a in r.to_doc().assignments],
        "status": r.status,
        "objective": r.objective,
    }


def solve_pop(inst: Instance, k: int, seed: int, backend: str, deadline: float, workers: int | None = None) -> Outcome:
    docs = sub_documents(inst, k, seed)
    workers = max(1, min(k, workers or os.cpu_count() or 1))
    waves = -(-k // workers)
    limit = max(0.5, (deadline - time.perf_counter()) * 0.85 / waves - 1.0)
    args = [(d, limit, seed, backend) for d in docs]
    if workers == 1:
        results = [_solve_one(a) for a in args]
    else:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            results = list(ex.map(_solve_one, args))
    placements = {}
    for res in results:
        for job, parts in res["assignments"]:
            j = inst.job_index[job]
            placements[j] = [(inst.cluster_index[c], inst.type_index[t], n) for c, t, n in parts]
    from fedopt.check import check_plan
    from fedopt.plan import Result

    objective = check_plan(inst, Result(inst, placements, "feasible", None, None).to_doc(), check_objective=False).objective
    stats = {
        "parts": k,
        "workers": workers,
        "sub_status": [r["status"] for r in results],
        "sub_objectives": [r["objective"] for r in results],
    }
    return Outcome(placements, "feasible", objective, None, {"backend": {"name": backend}}, stats)
