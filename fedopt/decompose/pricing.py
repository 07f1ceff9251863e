"""Pricing split placements from the master's duals.

For a job, card type and total T, a part of n cards in pool p costs ``n * a_p`` in reduced
terms, with ``a_p = capacity dual + quota dual + (storage dual * reads + link duals * remote
reads + egress price) / T``; clusters used may add affinity duals, spanning regions adds sync
traffic. Filling the T cards into the cheapest pools, with no limit on parts and none of the
non-negative extra costs, bounds every split's reduced cost from above (a Lagrangian bound);
the same fill cut to ``max_parts`` pools gives real columns to try.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedopt.instance.model import Instance


@dataclass
class Duals:
    """The master's duals by family, dense over the instance's resources."""

    pool: np.ndarray  # [P]
    tenant: np.ndarray  # [T] (0 where unlimited)
    link: np.ndarray  # [L]
    storage: np.ndarray  # [C]
    job: np.ndarray  # [J] assignment rows


def split_value_terms(inst: Instance, j: int) -> tuple[np.ndarray, float]:
    """(weighted value per card at efficiency 1 on each type, what every new placement of j adds
    regardless: the running-job terms): the value of any split placement, less its costs, is
    ``eff * per_card[type] * total + fixed``."""
    w = inst.doc.settings.weights
    per_card = w.throughput * inst.job_priority[j] * inst.rate[j]
    pen = inst.running_penalty[j]
    fixed = 0.0
    if pen > 0:
        single_running = inst.running[j] is not None and len(inst.running[j]) == 1
        fixed = w.preemption * pen - (w.migration * pen if single_running else 0.0)
    return per_card, fixed


def per_card_cost(inst: Instance, d: Duals, j: int, pools: np.ndarray, total: int, w_egress: float) -> np.ndarray:
    cl = inst.pool_cluster[pools]
    reg = inst.cluster_region[cl]
    n_r = len(inst.region_ids)
    link_cost = np.zeros(len(pools))
    if len(d.link) and inst.remote_links.nnz:
        block = inst.remote_links[j * n_r : (j + 1) * n_r] @ d.link  # [R]
        link_cost = block[reg]
    ten = inst.job_tenant[j]
    quota = d.tenant[ten] if ten >= 0 and len(d.tenant) else 0.0
    variable = d.storage[cl] * inst.job_read_gbps[j] + link_cost + w_egress * inst.remote_egress[j, reg]
    return d.pool[pools] + quota + variable / total


def fill(costs: np.ndarray, caps_units: np.ndarray, units: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Cheapest fill of ``units`` over pools: (order of pools used, units each, total cost per unit-card)."""
    order = np.argsort(costs, kind="stable")
    cum = np.cumsum(caps_units[order])
    k = int(np.searchsorted(cum, units)) + 1  # pools needed
    if k > len(order):
        return order[:0], order[:0], np.inf
    used = order[:k]
    take = caps_units[used].copy()
    take[-1] -= int(cum[k - 1] - units)
    return used, take, float(costs[used] @ take)


@dataclass
class SplitPrice:
    bound: float  # upper bound of (value - y.A) over the job's split placements, -inf if none
    candidates: list[tuple[int, int, int, list[int], list[int]]]  # (job, type, total, clusters, counts)


def price_split_job(
    inst: Instance,
    d: Duals,
    j: int,
    value_per_card: np.ndarray,
    eff_best: tuple[float, float],
    fixed_value: float,
    w_egress: float,
) -> SplitPrice:
    """Bound and candidate columns for job j's placements of 2..max_parts parts.

    ``value_per_card[t]`` is the weighted value per card at efficiency 1 on type t;
    ``eff_best`` = (efficiency within a region, efficiency across regions);
    ``fixed_value`` is what every column of the job adds regardless (running-job terms).
    """
    g = int(inst.job_granularity[j])
    kmax = int(inst.job_max_parts[j])
    totals = [int(t) for t in inst.job_totals[j] if t % g == 0 and t // g >= 2]
    best = -np.inf
    out: list[tuple[int, int, int, list[int], list[int]]] = []
    ok = inst.pool_ok[j]
    for t in np.flatnonzero(inst.type_ok[j]):
        pools = np.flatnonzero(ok & (inst.pool_type == t))
        if len(pools) < 2:
            continue
        regions = inst.cluster_region[inst.pool_cluster[pools]]
        # columns inside one region (efficiency "region"); across regions ("federation")
        groups = [(pools[regions == r], eff_best[0]) for r in np.unique(regions)]
        if inst.job_federation[j] and len(np.unique(regions)) > 1:
            groups.append((pools, eff_best[1]))
        for group, eff in groups:
            if len(group) < 2:
                continue
            caps = inst.pool_cards[group] // g
            for total in totals:
                units = total // g
                costs = per_card_cost(inst, d, j, group, total, w_egress) * g
                used, take, cost = fill(costs, caps, units)
                if not np.isfinite(cost):
                    continue
                value = eff * value_per_card[t] * total + fixed_value
                best = max(best, value - cost)
                if len(used) < 2 and caps.max() >= units:
                    # one pool holds it all: the best split puts one node elsewhere
                    order = np.argsort(costs, kind="stable")
                    if units >= 2:
                        used, take = order[:2], np.array([units - 1, 1])
                if 2 <= len(used) <= kmax:
                    out.append((j, int(t), total, inst.pool_cluster[group[used]].tolist(), (take * g).tolist()))
                elif len(used) > kmax:
                    big = np.argsort(-caps, kind="stable")[:kmax]
                    if caps[big].sum() >= units:
                        sub_used, sub_take, _ = fill(costs[big], caps[big], units)
                        if len(sub_used) >= 2:
                            out.append(
                                (j, int(t), total, inst.pool_cluster[group[big[sub_used]]].tolist(), (sub_take * g).tolist())
                            )
    return SplitPrice(best, out)
