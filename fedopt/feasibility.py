"""Why no plan exists: the pinned (non-preemptible running) jobs alone break a limit."""

from __future__ import annotations

import numpy as np

from fedopt.columns.enumerate import running_columns
from fedopt.columns.rules import valid_placements
from fedopt.errors import InfeasibleError
from fedopt.instance.model import Instance
from fedopt.master import Rows, admissible


def pinned_conflicts(inst: Instance) -> list[str]:
    """Every reason the pinned jobs cannot all keep their running placements."""
    if not inst.pinned.any():
        return []
    cols = running_columns(inst)
    cols = cols.subset(inst.pinned[cols.job])
    out = []
    valid = valid_placements(cols)
    alone = admissible(cols)
    for c in np.flatnonzero(~valid | ~alone):
        why = "is not a valid placement (rules 1-3)" if not valid[c] else "breaks a link or storage limit by itself"
        out.append(f"pinned job {inst.job_ids[cols.job[c]]}: its running placement {why}")
    rows = Rows.of(inst)
    A = rows.matrix(cols)
    act = A @ np.ones(cols.size)
    labels = rows.labels()
    families = rows.families()
    for r in np.flatnonzero((act > rows.hi + 1e-6) & (families != "assignment")):
        jobs = sorted({inst.job_ids[cols.job[c]] for c in A[r].indices})
        out.append(f"{labels[r]}: pinned jobs {', '.join(jobs)} need {act[r]:g} > {rows.hi[r]:g}")
    return out


def moves_conflicts(inst: Instance) -> list[str]:
    """With ``settings.max_moves``: running jobs that cannot stay put, if more than allowed."""
    n = inst.doc.settings.max_moves
    if n is None:
        return []
    cols = running_columns(inst)
    stuck = cols.job[~(valid_placements(cols) & admissible(cols))] if cols.size else []
    if len(stuck) <= n:
        return []
    names = ", ".join(inst.job_ids[j] for j in stuck[:20])
    return [f"max_moves {n}: {len(stuck)} running jobs cannot keep their placements ({names})"]


def unplaceable_jobs(inst: Instance) -> dict[str, str]:
    """Jobs that no plan can place, by name, with the reason (for the plan's stats)."""
    out: dict[str, str] = {}
    reachable = np.zeros(inst.n_jobs, dtype=bool)
    for j in np.flatnonzero(inst.pool_ok.any(axis=1)):
        g = inst.job_granularity[j]
        caps = inst.pool_cards[inst.pool_ok[j]]
        totals = inst.job_totals[j][inst.job_totals[j] % g == 0]
        # the most it could get: its max_parts largest eligible pools (split or not)
        room = np.sort(caps // g * g)[::-1][: inst.job_max_parts[j]].sum()
        reachable[j] = len(totals) > 0 and totals.min() <= room
        if not reachable[j]:
            out[inst.job_ids[j]] = "its smallest allowed size exceeds every eligible pool (or combination it may split over)"
    for j in np.flatnonzero(~inst.pool_ok.any(axis=1)):
        job = inst.doc.jobs[j]
        if not inst.type_ok[j].any():
            why = "no card type fits (memory, stack, card_types allow-list, or rate 0)"
        elif not inst.region_ok[j].any():
            why = "no allowed region reaches its data" if job.data else "no allowed region"
        else:
            why = "no pool of an eligible card type in an allowed region"
        out[inst.job_ids[j]] = why
    return out


def raise_if_pinned_infeasible(inst: Instance) -> None:
    conflicts = pinned_conflicts(inst) + moves_conflicts(inst)
    if conflicts:
        raise InfeasibleError(conflicts)
