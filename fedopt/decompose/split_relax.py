"""A proven bound from a relaxed full model, solved by HiGHS beside column generation.

The LP bound of column generation is weak where big gangs meet pools of a few hundred cards: the
LP places a gang 0.6 in one pool and 0.4 in another and so dodges the split efficiency that an
integer plan pays. This model keeps every single-pool placement and every running placement as
a binary column, and replaces each splittable job's split placements (too many to enumerate) by
one binary per (card type, total, region for a region-scoped job) with continuous cards per pool
that add up to the total, in 2..max_parts pools marked used by binaries. A real split maps onto
it (same cards per pool, same quota, same assignment); its value is the split's upper bound
(best span efficiency, no egress); its rows other than pool, quota and assignment are dropped
(their coefficients are non-negative in ``<=`` rows). So every plan is feasible in it at no
lower value: its MIP dual bound is an upper bound of the optimum, and it keeps the integrality
of everything but the cards of split parts. Its best solution is most of a real plan: the
single and running placements are, and a split with whole units is one but for dropped rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fedopt.backends.highs_process import ArrayModel, ChildSolve
from fedopt.decompose.pricing import split_value_terms
from fedopt.instance.model import Instance
from fedopt.master import Rows


@dataclass
class SplitGroup:
    """One (job, card type, pool group) of the split block: its columns, to read a plan back."""

    job: int
    ctype: int
    totals: list[tuple[int, int]]  # (column of the binary "split with T cards", T)
    parts: list[tuple[int, int]]  # (column of the units in pool p (continuous), pool)
    granularity: int


@dataclass
class SplitBlock:
    A: sp.csc_matrix  # over rows + the block's own rows
    obj: np.ndarray
    ub: np.ndarray
    integer: np.ndarray
    lo: np.ndarray  # bounds of the block's own rows
    hi: np.ndarray
    groups: list[SplitGroup]


def _split_block(inst: Instance, rows: Rows, split_jobs: list[int]) -> SplitBlock:
    """Per job, card type and pool group (each region for a region-scoped job; all pools for a
    federation one): a binary per total T, units (of the granularity) per pool, continuous, and a
    binary per pool used; rows: units sum to the chosen total, units only in used pools (at least
    one each), 2..max_parts pools used when split. Pool, quota, assignment rows as the real
    columns. (Integer units were measured slower to bound on l: 5,384.7 vs 5,372.5 in 30 s.)"""
    se = inst.doc.settings.span_efficiency
    assign = rows.offset("assignment")
    row_of = {}
    for fam in ("capacity", "quota"):
        rs = next(s for s in rows.sets if s.family == fam)
        off = rows.offset(fam)
        row_of[fam] = {int(k): off + i for i, k in enumerate(rs.keys)}
    r_idx, c_idx, vals, obj, ub, integer, lo, hi = [], [], [], [], [], [], [], []
    groups: list[SplitGroup] = []

    def column(entries: list[tuple[int, float]], cost: float, upper: float, is_int: bool) -> int:
        c = len(obj)
        for r, v in entries:
            r_idx.append(r), c_idx.append(c), vals.append(v)
        obj.append(cost), ub.append(upper), integer.append(is_int)
        return c

    def row(lower: float, upper: float) -> int:
        lo.append(lower), hi.append(upper)
        return rows.n + len(lo) - 1

    for j in split_jobs:
        g = int(inst.job_granularity[j])
        totals = [int(t) for t in inst.job_totals[j] if t % g == 0 and t // g >= 2]
        eff = max(se.region, se.federation) if inst.job_federation[j] else se.region
        vpc, fixed = split_value_terms(inst, j)
        quota_row = row_of["quota"].get(int(inst.job_tenant[j]))
        kmax = int(inst.job_max_parts[j])
        for t in np.flatnonzero(inst.type_ok[j]):
            pools = np.flatnonzero(inst.pool_ok[j] & (inst.pool_type == t))
            regions = inst.cluster_region[inst.pool_cluster[pools]]
            sets = [pools] if inst.job_federation[j] else [pools[regions == r] for r in np.unique(regions)]
            for group in sets:
                fits = [T for T in totals if (inst.pool_cards[group] // g).sum() * g >= T]
                if len(group) < 2 or not fits:
                    continue
                link, parts_hi, parts_lo = row(0.0, 0.0), row(-np.inf, 0.0), row(0.0, np.inf)
                sg = SplitGroup(j, int(t), [], [], g)
                for T in fits:  # binary: j is split on type t with T cards in this group
                    entries = [(assign + j, 1.0), (link, -float(T)), (parts_hi, -float(kmax)), (parts_lo, -2.0)]
                    if quota_row is not None:
                        entries.append((quota_row, float(T)))
                    sg.totals.append((column(entries, eff * vpc[t] * T + fixed, 1.0, True), T))
                for p in group:
                    units = int(inst.pool_cards[p]) // g
                    some, at_most = row(0.0, np.inf), row(-np.inf, 0.0)
                    entries = [(link, float(g)), (some, 1.0), (at_most, 1.0)]
                    if int(p) in row_of["capacity"]:
                        entries.append((row_of["capacity"][int(p)], float(g)))
                    sg.parts.append((column(entries, 0.0, float(units), False), int(p)))
                    # used: at least one unit, at most all of them; counts towards the parts
                    column([(some, -1.0), (at_most, -float(units)), (parts_hi, 1.0), (parts_lo, 1.0)], 0.0, 1.0, True)
                groups.append(sg)
    n = rows.n + len(lo)
    A = sp.csc_matrix((vals, (r_idx, c_idx)), shape=(n, len(obj)))
    return SplitBlock(A, np.array(obj, float), np.array(ub, float), np.array(integer, bool), np.array(lo), np.array(hi), groups)


def relaxed_model(
    inst: Instance, rows: Rows, columns: list[tuple[np.ndarray, sp.spmatrix]], split_jobs: list[int], constant: float
) -> tuple[ArrayModel, SplitBlock]:
    """The relaxed full model: binary ``columns`` (values, coefficients over ``rows``) + the split block."""
    block = _split_block(inst, rows, split_jobs)
    S, s_obj, s_ub, s_int = block.A, block.obj, block.ub, block.integer
    n_link = S.shape[0] - rows.n
    base = sp.hstack([sp.csc_matrix(m) for _, m in columns], format="csc") if columns else sp.csc_matrix((rows.n, 0))
    base = sp.vstack([base, sp.csc_matrix((n_link, base.shape[1]))], format="csc")
    A = sp.hstack([base, S], format="csc")
    n_base = base.shape[1]
    lo, hi = np.concatenate([rows.lo, block.lo]), np.concatenate([rows.hi, block.hi])
    model = ArrayModel(
        cost=np.concatenate([*(np.asarray(v, dtype=float) for v, _ in columns), s_obj]),
        lower=np.zeros(A.shape[1]),
        upper=np.concatenate([np.ones(n_base), s_ub]),
        row_lower=lo,
        row_upper=hi,
        start=A.indptr.astype(np.int32),
        index=A.indices.astype(np.int32),
        value=A.data.astype(float),
        integer=np.concatenate([np.ones(n_base, dtype=bool), s_int]),
        maximize=True,
        offset=float(constant),
    )
    return model, block


def decode_splits(
    inst: Instance, block: SplitBlock, x: np.ndarray, free_cards: np.ndarray | None = None
) -> list[tuple[int, int, int, list[int], list[int]]]:
    """The split placements ``(job, type, total, clusters, counts)`` of a solution ``x`` of the
    block's columns, cards rounded to whole units within ``free_cards`` per pool (default: all)."""
    free = inst.pool_cards if free_cards is None else np.minimum(inst.pool_cards, free_cards)
    out = []
    for sg in block.groups:
        chosen = [T for c, T in sg.totals if x[c] > 0.5]
        if not chosen:
            continue
        units = np.maximum(np.array([x[c] for c, _ in sg.parts]), 0.0)
        whole = np.floor(units + 1e-6)
        caps = np.array([max(int(free[p]), 0) // sg.granularity for _, p in sg.parts])
        whole = np.minimum(whole, caps)
        short = chosen[0] // sg.granularity - int(whole.sum())
        # largest remainders first, where a pool has room (the plan is checked when offered)
        for i in np.argsort(-(units - whole), kind="stable"):
            if short <= 0:
                break
            if units[i] > 1e-6 and whole[i] < caps[i]:
                whole[i] += 1
                short -= 1
        used = np.flatnonzero(whole > 0)
        if short != 0 or not 2 <= len(used) <= len(sg.parts):
            continue
        clusters = [int(inst.pool_cluster[sg.parts[i][1]]) for i in used]
        out.append((sg.job, sg.ctype, chosen[0], clusters, [int(whole[i]) * sg.granularity for i in used]))
    return out


class RelaxationBound:
    """Solve the relaxed model in a child process (the other core; see ``highs_process``): its dual
    bound, and its best solution (``x``: most of it is a real plan, see :func:`decode_splits`)."""

    def __init__(self, model: ArrayModel, time_limit: float, seed: int = 0):
        self.x: np.ndarray | None = None
        options = {"threads": 1, "random_seed": int(seed), "time_limit": max(0.1, float(time_limit)), "mip_rel_gap": 1e-5}
        self.child = ChildSolve(model, options)

    def ready(self) -> bool:
        return self.child.ready()

    def finish(self, grace: float = 3.0) -> float | None:
        """The proven bound (None if there is none), waiting up to ``grace`` seconds for the solve
        to end by its time limit; one still running then is stopped (killed)."""
        res = self.child.result(wait=grace)
        if res is None:
            return None
        self.x = res["x"]
        return res["bound"]
