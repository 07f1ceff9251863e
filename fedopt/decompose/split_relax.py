"""A proven bound from a relaxed full model, solved by HiGHS beside column generation.

The LP bound of column generation is weak where big gangs meet pools of a few hundred cards: the
LP places a gang 0.6 in one pool and 0.4 in another and so dodges the split efficiency that an
integer plan pays. This model keeps every single-pool placement and every running placement as
a binary column, and replaces each splittable job's split placements (too many to enumerate) by
one binary per (card type, total) with continuous cards per pool of that type that add up to the
total. A real split maps onto it (same cards per pool, same quota, same assignment); its value
is the split's upper bound (best span efficiency, no egress); its rows other than pool, quota
and assignment are dropped (their coefficients are non-negative in ``<=`` rows). So every plan
is feasible in it at no lower value: its MIP dual bound is an upper bound of the optimum, and
it keeps the integrality of everything but the split parts.
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from fedopt.backends.highs import new_highs, start_interruptible, stop_solve
from fedopt.decompose.pricing import split_value_terms
from fedopt.instance.model import Instance
from fedopt.master import Rows


def _split_block(inst: Instance, rows: Rows, split_jobs: list[int]) -> tuple[sp.csc_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """Columns (over rows + one linking row per (job, type)), objective, upper bounds, integrality."""
    se = inst.doc.settings.span_efficiency
    assign = rows.offset("assignment")
    row_of = {}
    for fam in ("capacity", "quota"):
        rs = next(s for s in rows.sets if s.family == fam)
        off = rows.offset(fam)
        row_of[fam] = {int(k): off + i for i, k in enumerate(rs.keys)}
    r_idx, c_idx, vals, obj, ub, integer = [], [], [], [], [], []
    n_link = 0
    for j in split_jobs:
        g = int(inst.job_granularity[j])
        totals = [int(t) for t in inst.job_totals[j] if t % g == 0 and t // g >= 2]
        eff = max(se.region, se.federation) if inst.job_federation[j] else se.region
        vpc, fixed = split_value_terms(inst, j)
        quota_row = row_of["quota"].get(int(inst.job_tenant[j]))
        for t in np.flatnonzero(inst.type_ok[j]):
            pools = np.flatnonzero(inst.pool_ok[j] & (inst.pool_type == t))
            fits = [T for T in totals if inst.pool_cards[pools].sum() >= T]
            if len(pools) < 2 or not fits:
                continue
            link = rows.n + n_link
            n_link += 1
            for T in fits:  # binary: j is split on type t with T cards
                c = len(obj)
                r_idx += [assign + j, link]
                vals += [1.0, -float(T)]
                c_idx += [c, c]
                if quota_row is not None:
                    r_idx.append(quota_row), vals.append(float(T)), c_idx.append(c)
                obj.append(eff * vpc[t] * T + fixed)
                ub.append(1.0)
                integer.append(True)
            for p in pools:  # continuous: its cards in pool p
                c = len(obj)
                r_idx.append(link), vals.append(1.0), c_idx.append(c)
                if int(p) in row_of["capacity"]:
                    r_idx.append(row_of["capacity"][int(p)]), vals.append(1.0), c_idx.append(c)
                obj.append(0.0)
                ub.append(float(inst.pool_cards[p]))
                integer.append(False)
    A = sp.csc_matrix((vals, (r_idx, c_idx)), shape=(rows.n + n_link, len(obj)))
    return A, np.array(obj, dtype=float), np.array(ub, dtype=float), np.array(integer, dtype=bool)


def relaxed_model(
    inst: Instance, rows: Rows, columns: list[tuple[np.ndarray, sp.spmatrix]], split_jobs: list[int], constant: float
) -> highspy.HighsLp:
    """The relaxed full model: binary ``columns`` (values, coefficients over ``rows``) + the split block."""
    S, s_obj, s_ub, s_int = _split_block(inst, rows, split_jobs)
    n_link = S.shape[0] - rows.n
    base = sp.hstack([sp.csc_matrix(m) for _, m in columns], format="csc") if columns else sp.csc_matrix((rows.n, 0))
    base = sp.vstack([base, sp.csc_matrix((n_link, base.shape[1]))], format="csc")
    A = sp.hstack([base, S], format="csc")
    n_base = base.shape[1]
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = np.concatenate([*(np.asarray(v, dtype=float) for v, _ in columns), s_obj])
    lp.col_lower_ = np.zeros(A.shape[1])
    lp.col_upper_ = np.concatenate([np.ones(n_base), s_ub])
    lp.row_lower_ = np.concatenate([np.where(np.isfinite(rows.lo), rows.lo, -inf), np.zeros(n_link)])
    lp.row_upper_ = np.concatenate([np.where(np.isfinite(rows.hi), rows.hi, inf), np.zeros(n_link)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.offset_ = float(constant)
    kinds = np.concatenate([np.ones(n_base, dtype=bool), s_int])
    lp.integrality_ = [highspy.HighsVarType.kInteger if k else highspy.HighsVarType.kContinuous for k in kinds]
    return lp


class RelaxationBound:
    """Solve the relaxed model in HiGHS's solver thread (the other core) and read its dual bound."""

    def __init__(self, lp: highspy.HighsLp, time_limit: float, seed: int = 0):
        self.h = new_highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        self.h.setOptionValue("random_seed", int(seed))
        self.h.setOptionValue("time_limit", max(0.1, float(time_limit)))
        self.h.setOptionValue("mip_rel_gap", 1e-5)
        self.h.passModel(lp)
        self.thread = start_interruptible(self.h)

    def finish(self, grace: float = 3.0) -> float | None:
        """The proven bound so far (None if there is none); stops the solve if it still runs."""
        if not self.h.wait(0.0)[0] and not stop_solve(self.h, self.thread, grace):
            return None
        self.thread.join()
        status = self.h.getModelStatus()
        if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
            return None  # cannot happen for a feasible instance; take no bound from it
        bound = float(self.h.getInfo().mip_dual_bound)
        return bound if np.isfinite(bound) and abs(bound) < 1e20 else None
