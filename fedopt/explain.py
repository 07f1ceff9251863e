"""``fedopt explain``: why a job is placed where it is, or not placed at all.

For the job, every candidate placement (best first) with its value per hour, its reduced cost
at the prices (LP duals) of the contested resources, and what stops it given the rest of the
plan: the limits it would break (pool X, link Y, quota of tenant Z) or a partner's affinity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedopt.backends.base import SolveOptions
from fedopt.backends.highs import HighsBackend
from fedopt.columns.enumerate import enumerate_columns, running_columns
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rules import valid_placements
from fedopt.errors import InputError
from fedopt.instance.model import Instance
from fedopt.instance.schema import PlanDoc
from fedopt.master import admissible, build_master


@dataclass
class Option:
    parts: str
    value: float
    reduced_cost: float | None
    chosen: bool
    blockers: list[str]


def _parts_text(inst: Instance, parts) -> str:
    return " + ".join(f"{inst.cluster_ids[c]}/{inst.card_ids[t]} x{n}" for c, t, n in parts)


def explain(inst: Instance, plan: PlanDoc, job_id: str, top: int = 8) -> dict:
    j = inst.job_index.get(job_id)
    if j is None:
        raise InputError("--job", f"unknown job {job_id!r}")
    full = enumerate_columns(inst, split_budget=50_000)
    run = running_columns(inst)
    run = run.subset(valid_placements(run))
    cols = ColumnPool.concat(inst, [full.subset(~full.is_running), run])
    cols = cols.subset(admissible(cols))
    mp = build_master(cols, drop_empty=False)
    # the plan as a 0/1 vector over these columns
    index = {(int(cols.job[c]), tuple(sorted(cols.parts_of(c)))): c for c in range(cols.size)}
    x = np.zeros(mp.n_cols)
    placed_col = None
    for a in plan.assignments:
        k = inst.job_index.get(a.job)
        parts = tuple(sorted((inst.cluster_index[p.cluster], inst.type_index[p.card_type], p.count) for p in a.parts))
        c = index.get((k, parts))
        if c is not None:
            x[c] = 1.0
            if k == j:
                placed_col = c
    # prices of the resources: duals of the LP relaxation
    lp = HighsBackend().solve_lp(mp, SolveOptions(time_limit=30))
    y = lp.row_duals
    labels = mp.row_labels()
    mine = np.flatnonzero(cols.job == j)
    others = x.copy()
    if placed_col is not None:
        others[placed_col] = 0.0
    act = mp.A @ others
    A = mp.A.tocsc()
    options = []
    for c in mine[np.argsort(-mp.c[mine], kind="stable")][:top]:
        s, e = A.indptr[c], A.indptr[c + 1]
        rows, vals = A.indices[s:e], A.data[s:e]
        blockers = []
        for r, v in zip(rows, vals, strict=True):
            if labels[r].startswith("job "):
                continue
            if act[r] + v > mp.hi[r] + 1e-9:
                blockers.append(f"{labels[r]}: {act[r]:g} used by others + {v:g} > {mp.hi[r]:g}")
        rc = None if y is None else float(mp.c[c] - y[rows] @ vals)
        options.append(Option(_parts_text(inst, cols.parts_of(c)), float(mp.c[c]), rc, c == placed_col, blockers))
    prices = []
    if y is not None:
        for r in np.argsort(-np.abs(y))[:10]:
            if abs(y[r]) > 1e-9 and not labels[r].startswith("job "):
                prices.append({"limit": labels[r], "price": float(y[r])})
    status = "placed" if placed_col is not None else ("preempted" if inst.running[j] is not None else "pending")
    why = []
    if not inst.pool_ok[j].any():
        job = inst.doc.jobs[j]
        why.append("no eligible pool: " + ", ".join(_ineligible_reasons(inst, j, job)))
    elif not len(mine):
        why.append("no placement keeps rules 1-3 and fits a pool, link and storage on its own")
    elif placed_col is None and options and all(o.blockers for o in options):
        why.append("every candidate placement is blocked by what the plan gives to others (see blockers)")
    elif placed_col is None:
        why.append("a free placement exists but is worth less than leaving the job out (value <= 0 or a better use)")
    return {"job": job_id, "status": status, "why": why, "options": [o.__dict__ for o in options], "prices": prices}


def _ineligible_reasons(inst: Instance, j: int, job) -> list[str]:
    out = []
    if not inst.type_ok[j].any():
        out.append("no card type matches (memory, stack, card_types allow-list, or rate 0)")
    if not inst.region_ok[j].any():
        out.append("no region allowed or none reaches the job's data")
    if not out:
        out.append("no pool of an eligible type in an eligible region")
    return out


def format_explanation(e: dict) -> str:
    lines = [f"job {e['job']}: {e['status']}"]
    lines += [f"  why: {w}" for w in e["why"]]
    lines.append("  candidate placements (best value first):")
    for o in e["options"]:
        mark = "*" if o["chosen"] else " "
        rc = "-" if o["reduced_cost"] is None else f"{o['reduced_cost']:+.4g}"
        lines.append(f"   {mark} {o['parts']:<40} value {o['value']:.4g}/h  reduced cost {rc}")
        for b in o["blockers"]:
            lines.append(f"        blocked by {b}")
    if e["prices"]:
        lines.append("  prices of contested limits (LP duals, value per unit):")
        for p in e["prices"]:
            lines.append(f"    {p['limit']:<45} {p['price']:.4g}")
    return "\n".join(lines)
