"""Scheduling policies the simulator compares.

- ``fedopt``: :func:`fedopt.solve` on the current state. Running jobs that the re-plan may move
  (the *move candidates*, below) enter the snapshot instance with their ``running`` parts and pay
  the model's migration and preemption costs; the other running jobs are pinned, and as a pinned
  job keeps exactly its parts, they enter as the capacity they leave free (pools, storage, links),
  which is the same instance made smaller. Pending jobs are capped (``max_pending``: half the
  cap by weight, half oldest first), and only those whose eligible pools have enough free cards
  are considered at all.
- ``greedy``: fedopt's heterogeneity-agnostic Kubernetes-style scheduler (``method="greedy"``):
  by priority then arrival, whole jobs to the most-free eligible pool; running jobs stay.
- ``fifo-backfill``: Slurm-like first come, first served with EASY backfill, implemented here:
  jobs start in arrival order, whole, in one pool (best fit: the eligible pool with the fewest
  free cards that holds them), blind to card speed; when the oldest waiting job does not fit it
  gets a reservation (the pool and time at which the running jobs' expected ends free enough
  cards), and later jobs may start now only if they do not delay it (they end before it, or use
  another pool, or the cards it leaves spare). Expected ends are exact (a perfect runtime
  estimate, the best case for backfill). Jobs that no single pool can ever hold are skipped
  (no reservation): they never run under fifo-backfill, as under greedy.

``--max-moves N`` (fedopt) is enforced by limiting what the plan may change: only the move
candidates (at most ``move_candidates`` running jobs, those that would gain most from a faster
placement, plus the biggest holders of cards when jobs wait) may move or stop, and the model's
``settings.max_moves = N`` lets at most N of them do so; the simulator counts the moves of
every re-plan and fails loudly if a plan ever exceeded N.
"""

from __future__ import annotations

import math
import time

import numpy as np

from fedopt.simulate.engine import Decision, Simulation
from fedopt.simulate.state import BYTES_PER_GBIT_HOUR, Parts

POLICIES = ("fedopt", "greedy", "fifo-backfill")


def _parts_doc(inst, parts: Parts) -> list[dict]:
    return [{"cluster": inst.cluster_ids[c], "card_type": inst.card_ids[t], "count": int(n)} for c, t, n in parts]


def snapshot_document(sim: Simulation, movable: list[int], pending: list[int], weight, max_moves: int | None) -> dict:
    """The snapshot instance of a re-plan: the fleet less what the pinned running jobs hold,
    the movable running jobs with their parts, and the pending jobs considered."""
    fl = sim.fleet
    inst = fl.inst
    usage = sim.usage.copy()
    for j in movable:
        usage.add(sim.running[j].flow, -1)
    doc = sim.fleet_doc_template()
    p = 0
    for k, cl in enumerate(doc["clusters"]):
        for pool in cl["pools"]:
            pool["cards"] = int(fl.pool_cards[p] - usage.pools[p])
            p += 1
        if math.isfinite(fl.storage_cap[k]):
            cl["storage_gbps"] = float(max(0.0, fl.storage_cap[k] - usage.storage[k]))
    for k, link in enumerate(doc["links"]):
        link["gbps"] = float(max(0.0, fl.link_cap[k] - usage.links[k]))
    jobs = []
    for j in movable:
        job = dict(sim.jobs[j].doc)
        job["priority"] = weight(j)
        job["work"] = float(sim.remaining[j])
        job["running"] = {"parts": _parts_doc(inst, sim.running[j].parts)}
        jobs.append(job)
    for j in pending:
        job = dict(sim.jobs[j].doc)
        job["priority"] = weight(j)
        job["work"] = float(sim.remaining[j])
        jobs.append(job)
    doc["jobs"] = jobs
    if max_moves is not None:
        doc["settings"]["max_moves"] = int(max_moves)
    return doc


def _cap(sim: Simulation, js: list[int], cap: int | None, weight) -> list[int]:
    """At most ``cap`` jobs: half by weight (then age), half oldest first; in arrival order."""
    if cap is None or len(js) <= cap:
        return js
    by_weight = sorted(js, key=lambda j: (-weight(j), sim.jobs[j].arrival, j))[: cap - cap // 2]
    chosen = set(by_weight)
    for j in js:  # js is in arrival order
        if len(chosen) >= cap:
            break
        chosen.add(j)
    return [j for j in js if j in chosen]


def _solve_snapshot(sim, doc, method, time_limit, seed, order):
    import fedopt

    inst = fedopt.parse_instance(doc)
    result = fedopt.solve(inst, method=method, time_limit=time_limit, seed=seed, quiet=True, preset="fast")
    placed = {order[j]: tuple(sorted(parts)) for j, parts in result.placements.items()}
    return result, placed


class Greedy:
    name = "greedy"

    def __init__(self, max_pending: int | None = 2000, seed: int = 0):
        self.max_pending = max_pending
        self.seed = seed

    def decide(self, sim: Simulation) -> Decision:
        current = {j: r.parts for j, r in sim.running.items()}
        free = sim.free_pools()
        pending = sim.placeable(list(sim.pending), free)

        def prio(j):
            return sim.jobs[j].priority

        pending = _cap(sim, pending, self.max_pending, prio)
        if not pending:
            return Decision(current, {"considered": 0})
        doc = snapshot_document(sim, [], pending, prio, None)
        result, placed = _solve_snapshot(sim, doc, "greedy", None, self.seed, pending)
        return Decision(current | placed, {"considered": len(pending), "status": result.status})


class Fedopt:
    name = "fedopt"

    def __init__(
        self,
        *,
        method: str = "auto",
        time_limit: float = 3.0,
        max_pending: int | None = 400,
        max_moves: int | None = None,
        move_candidates: int | None = None,
        weighting: str = "srpt",
        seed: int = 0,
    ):
        self.method = method
        self.time_limit = time_limit
        self.max_pending = max_pending
        self.max_moves = max_moves
        if move_candidates is None:
            move_candidates = 64 if max_moves is None else max(8, 3 * max_moves)
        self.move_candidates = 0 if max_moves == 0 else move_candidates
        self.weighting = weighting
        self.seed = seed
        self._floors: dict[int, float] = {}

    def weight(self, sim: Simulation, j: int) -> float:
        """The priority the snapshot model sees. ``srpt``: priority / remaining work (normalized
        card-hours, clipped to [0.01, 100]), so the throughput term becomes the sum of
        priority / time to finish: short jobs first, as shortest-remaining-time does for the
        mean completion time. ``throughput``: the job's own priority. Either way at least
        :meth:`floor`, so that no placement of a job is worth less than nothing."""
        spec = sim.jobs[j]
        if self.weighting == "throughput":
            w = spec.priority
        else:
            w = spec.priority * min(100.0, max(0.01, 1.0 / max(sim.remaining[j], 1e-9)))
        return max(w, self.floor(sim, j))

    def floor(self, sim: Simulation, j: int) -> float:
        """1.5 x the dearest egress per hour any placement of the job pays / its slowest speed:
        a weight that makes every placement's value positive. Without it the model would leave
        a low-weight job pending for good when only remote-data pools can take it."""
        f = self._floors.get(j)
        if f is None:
            spec = sim.jobs[j]
            inst = sim.fleet.inst
            w_egress = inst.doc.settings.weights.egress
            egress = 0.0
            for read in spec.doc.get("data", []):
                d = sim.fleet.dataset_index[read["dataset"]]
                src = inst.data_source[d]
                q = np.arange(len(src))
                remote = (src >= 0) & (src != q)
                if remote.any():
                    egress += BYTES_PER_GBIT_HOUR * read["gbps"] * float(inst.routes.egress_per_gb[src[remote], q[remote]].max())
            rates = spec.rate[spec.rate > 0]
            slowest = sim.fleet.eff[2] * float(spec.totals[0]) * (float(rates.min()) if len(rates) else 1.0)
            f = self._floors[j] = 1.5 * w_egress * egress / slowest
        return f

    def candidates(self, sim: Simulation, weight, waiting: bool) -> list[int]:
        """Running jobs the re-plan may move: those a faster placement would help most (the
        gain per hour beats the migration loss over their remaining run), then, when jobs wait,
        the lowest-weight holders of cards (to be preempted for better ones if worth it)."""
        k = self.move_candidates
        if k <= 0 or not sim.running:
            return []
        fl = sim.fleet
        gains = []
        for j, run in sim.running.items():
            spec = sim.jobs[j]
            if len(run.parts) == 1 and spec.rate[run.parts[0][1]] >= spec.rate.max():
                continue  # one part on its fastest card type: nothing to gain
            best = fl.eff[0] * run.flow.cards * float(spec.rate.max())
            gain = best - run.flow.speed
            left = sim.remaining[j] / best
            if gain > 0 and left > 2 * sim.migration_hours:
                gains.append((-weight(j) * gain, j))
        gains.sort()
        out = [j for _, j in gains[:k]]
        if waiting and len(out) < k:
            chosen = set(out)
            rest = sorted((weight(j), -r.flow.cards, j) for j, r in sim.running.items() if j not in chosen)
            out += [j for _, _, j in rest[: max(1, (k - len(out)) // 2)]]
        return sorted(out)

    def decide(self, sim: Simulation) -> Decision:
        t0 = time.perf_counter()
        cache: dict[int, float] = {}

        def weight(j):
            w = cache.get(j)
            if w is None:
                w = cache[j] = self.weight(sim, j)
            return w

        movable = self.candidates(sim, weight, bool(sim.pending))
        free = sim.free_pools(movable)
        pending = _cap(sim, sim.placeable(list(sim.pending), free), self.max_pending, weight)
        current = {j: r.parts for j, r in sim.running.items()}
        if not pending and not movable:
            return Decision(current, {"considered": 0})
        order = movable + pending
        doc = snapshot_document(sim, movable, pending, weight, self.max_moves)
        t1 = time.perf_counter()
        result, placed = _solve_snapshot(sim, doc, self.method, self.time_limit, self.seed, order)
        new = {j: p for j, p in current.items() if j not in set(movable)} | placed
        moves = sum(1 for j in movable if new.get(j) != current[j])
        if self.max_moves is not None and moves > self.max_moves:
            raise RuntimeError(f"internal error: a re-plan moved {moves} running jobs > --max-moves {self.max_moves}")
        info = {
            "considered": len(pending),
            "movable": len(movable),
            "status": result.status,
            "method": result.stats.get("method"),
            "build_seconds": t1 - t0,
            "solve_seconds": time.perf_counter() - t1,
        }
        return Decision(new, info, wants_more=self.max_moves is not None and moves >= self.max_moves > 0)


class FifoBackfill:
    name = "fifo-backfill"

    def __init__(self, max_pending: int | None = 2000):
        self.max_pending = max_pending

    def _fit_now(self, sim: Simulation, j: int, free: np.ndarray, usage, ok: np.ndarray):
        """Best fit: the eligible pool with the fewest free cards that holds the job whole at its
        largest allowed size; (parts, flow) or None."""
        spec = sim.jobs[j]
        fl = sim.fleet
        inst = fl.inst
        g = spec.granularity
        best = None
        for p in np.flatnonzero(ok & (free >= spec.totals[0])):
            sizes = spec.totals[(spec.totals <= free[p]) & (spec.totals % g == 0)]
            if not len(sizes):
                continue
            n = int(sizes[-1])
            key = (int(free[p]) - n, int(p))
            if best is not None and key >= best[0]:
                continue
            parts = ((int(inst.pool_cluster[p]), int(inst.pool_type[p]), n),)
            f = fl.flow(spec, parts)
            if usage.fits(f):
                best = (key, parts, f)
        return None if best is None else (best[1], best[2])

    def _reservation(self, sim: Simulation, j: int, ok: np.ndarray, free: np.ndarray, t: float, new_ends):
        """(pool, start time, spare cards then) of the earliest single-pool start, or None."""
        spec = sim.jobs[j]
        fl = sim.fleet
        ends: dict[int, list[tuple[float, int]]] = {}
        for i, run in sim.running.items():
            end = t + sim.remaining[i] / run.flow.speed
            for p, n in run.flow.pools:
                ends.setdefault(p, []).append((end, n))
        for p, end, n in new_ends:
            ends.setdefault(p, []).append((end, n))
        best = None
        g = spec.granularity
        for p in np.flatnonzero(ok):
            sizes = spec.totals[(spec.totals <= fl.pool_cards[p]) & (spec.totals % g == 0)]
            if not len(sizes):
                continue
            n = int(sizes[-1])
            have = int(free[p])
            when = t
            if have < n:
                for end, k in sorted(ends.get(p, [])):
                    have += k
                    when = end
                    if have >= n:
                        break
            if have >= n and (best is None or (when, have - n) < (best[1], best[2])):
                best = (int(p), when, have - n)
        return best

    def decide(self, sim: Simulation) -> Decision:
        fl = sim.fleet
        t = sim.t
        placements = {j: r.parts for j, r in sim.running.items()}
        free = sim.free_pools()
        usage = sim.usage.copy()
        queue = list(sim.pending)
        if self.max_pending is not None:
            queue = queue[: self.max_pending]
        reservation = None
        started = 0
        new_ends: list[tuple[int, float, int]] = []  # (pool, expected end, cards) of jobs started now
        for j in queue:
            if free.max() <= 0:
                break
            spec = sim.jobs[j]
            ok = sim.pool_ok(spec)
            if not (ok & (fl.pool_cards >= spec.totals[0])).any():
                continue  # no single pool can ever hold it
            fit = self._fit_now(sim, j, free, usage, ok)
            if reservation is not None and fit is not None:
                parts, f = fit
                p = f.pools[0][0]
                end = t + sim.remaining[j] / f.speed
                if p == reservation[0] and end > reservation[1]:
                    if f.cards > reservation[2]:
                        fit = None  # would delay the reserved job
                    else:
                        reservation = (reservation[0], reservation[1], reservation[2] - f.cards)
            if fit is not None:
                parts, f = fit
                placements[j] = parts
                usage.add(f)
                end = t + sim.remaining[j] / f.speed
                for p, n in f.pools:
                    free[p] -= n
                    new_ends.append((p, end, n))
                started += 1
            elif reservation is None:
                reservation = self._reservation(sim, j, ok, free, t, new_ends)
        return Decision(placements, {"considered": len(queue), "started_now": started})


def make_policy(
    name: str,
    *,
    seed: int = 0,
    method: str = "auto",
    time_limit: float = 3.0,
    max_pending: int | None = None,
    max_moves: int | None = None,
    move_candidates: int | None = None,
    weighting: str = "srpt",
):
    """A policy by name; ``max_pending`` None: 400 for fedopt, 2000 for the baselines."""
    if name == "fedopt":
        return Fedopt(
            method=method,
            time_limit=time_limit,
            max_pending=400 if max_pending is None else max_pending,
            max_moves=max_moves,
            move_candidates=move_candidates,
            weighting=weighting,
            seed=seed,
        )
    if name == "greedy":
        return Greedy(max_pending=2000 if max_pending is None else max_pending, seed=seed)
    if name == "fifo-backfill":
        return FifoBackfill(max_pending=2000 if max_pending is None else max_pending)
    raise ValueError(f"unknown policy {name!r}")
