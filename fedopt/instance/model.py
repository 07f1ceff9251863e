"""The validated, immutable, array-backed instance every other module works on."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from fedopt.errors import InputError, InputErrors
from fedopt.instance.routes import Routes, compute_routes
from fedopt.instance.schema import ElasticCards, InstanceDoc
from fedopt.normalize.roofline import card_specs, profile_rate

BYTES_PER_GBIT_HOUR = 3600 / 8  # GB moved per hour by 1 Gbit/s


@dataclass(frozen=True, eq=False)
class Instance:
    """Array view of an instance. Index order is the document's order for every entity."""

    doc: InstanceDoc
    card_ids: list[str]
    region_ids: list[str]
    cluster_ids: list[str]
    dataset_ids: list[str]
    tenant_ids: list[str]
    job_ids: list[str]
    region_rank: np.ndarray  # rank of each region id in sorted order (for "smaller id" ties)
    # card types
    type_memory: np.ndarray
    type_tflops: np.ndarray
    reference_type: int
    # clusters and pools
    cluster_region: np.ndarray
    cluster_storage: np.ndarray  # inf = unlimited
    pool_cluster: np.ndarray
    pool_type: np.ndarray
    pool_cards: np.ndarray
    # network
    link_ends: np.ndarray  # [L, 2]
    link_gbps: np.ndarray
    routes: Routes
    data_source: np.ndarray  # [D, R]: replica region a read from region q comes from; q if local, -1 unreachable
    # tenants and jobs
    tenant_quota: np.ndarray  # inf = unlimited
    job_tenant: np.ndarray  # -1 = none
    job_priority: np.ndarray
    job_granularity: np.ndarray
    job_totals: list[np.ndarray]  # allowed totals (multiples of granularity are not implied)
    job_max_parts: np.ndarray
    job_federation: np.ndarray  # bool: split scope federation
    job_sync_gbps: np.ndarray
    job_preemptible: np.ndarray
    job_read_gbps: np.ndarray  # sum of data read rates
    rate: np.ndarray  # [J, T] rate per card-hour, reference-card units (0 = ineligible)
    type_ok: np.ndarray  # [J, T]
    region_ok: np.ndarray  # [J, R]
    remote_egress: np.ndarray  # [J, R]: egress cost per hour of the job's reads when all in q
    remote_links: sp.csr_matrix  # [J*R, L]: link load (Gbit/s) of the job's reads when all in q
    running: list[list[tuple[int, int, int]] | None]  # per job: [(cluster, type, count)]
    same_region_pairs: np.ndarray  # [k, 2] job index pairs, i < j
    different_cluster_pairs: np.ndarray  # [k, 2]
    pool_index: dict[tuple[int, int], int] = field(repr=False)
    warnings: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ conveniences
    @property
    def name(self) -> str:
        return self.doc.name

    @property
    def n_jobs(self) -> int:
        return len(self.job_ids)

    @property
    def n_pools(self) -> int:
        return len(self.pool_cards)

    @property
    def horizon(self):
        return self.doc.settings.horizon

    @cached_property
    def job_index(self) -> dict[str, int]:
        return {j: i for i, j in enumerate(self.job_ids)}

    @cached_property
    def cluster_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.cluster_ids)}

    @cached_property
    def dataset_index(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.dataset_ids)}

    @cached_property
    def type_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.card_ids)}

    @cached_property
    def pool_ok(self) -> np.ndarray:
        """[J, P]: the pool's card type and region are eligible for the job."""
        return self.type_ok[:, self.pool_type] & self.region_ok[:, self.cluster_region[self.pool_cluster]]

    @cached_property
    def running_cards(self) -> np.ndarray:
        return np.array([sum(p[2] for p in r) if r else 0 for r in self.running], dtype=np.int64)

    @cached_property
    def running_rate(self) -> np.ndarray:
        """Rate on the running card type (the first part's type)."""
        out = np.zeros(self.n_jobs)
        for j, r in enumerate(self.running):
            if r:
                out[j] = self.rate[j, r[0][1]]
        return out

    @cached_property
    def running_penalty(self) -> np.ndarray:
        """priority * running cards * running rate * migration_hours (spec section 2)."""
        mh = self.doc.settings.migration_hours
        return self.job_priority * self.running_cards * self.running_rate * mh

    @cached_property
    def pinned(self) -> np.ndarray:
        return np.array([r is not None and not p for r, p in zip(self.running, self.job_preemptible, strict=True)], dtype=bool)


def _allowed_totals(cards) -> np.ndarray:
    if isinstance(cards, ElasticCards):
        return np.arange(cards.min, cards.max + 1, cards.step, dtype=np.int64)
    return np.array([cards], dtype=np.int64)


def build_instance(doc: InstanceDoc, source: str | None = None) -> Instance:
    """Arrays, routes and eligibility of a reference-checked document."""
    card_ids = [c.id for c in doc.card_types]
    region_ids = [r.id for r in doc.regions]
    cluster_ids = [c.id for c in doc.clusters]
    dataset_ids = [d.id for d in doc.datasets]
    tenant_ids = [t.id for t in doc.tenants]
    job_ids = [j.id for j in doc.jobs]
    ti = {c: i for i, c in enumerate(card_ids)}
    ri = {r: i for i, r in enumerate(region_ids)}
    ci = {c: i for i, c in enumerate(cluster_ids)}
    di = {d: i for i, d in enumerate(dataset_ids)}
    tni = {t: i for i, t in enumerate(tenant_ids)}
    ji = {j: i for i, j in enumerate(job_ids)}
    n_t, n_r, n_j = len(card_ids), len(region_ids), len(job_ids)
    warnings: list[str] = []

    region_rank = np.empty(n_r, dtype=np.int64)
    region_rank[np.argsort(np.array(region_ids, dtype=object), kind="stable")] = np.arange(n_r)

    type_memory = np.array([c.memory_gb for c in doc.card_types], dtype=float)
    type_tflops = np.array([c.bf16_tflops for c in doc.card_types], dtype=float)
    ref = doc.settings.reference_card
    reference_type = ti[ref] if ref is not None else int(np.argmax(type_tflops))

    cluster_region = np.array([ri[c.region] for c in doc.clusters], dtype=np.int64)
    cluster_storage = np.array([np.inf if c.storage_gbps is None else c.storage_gbps for c in doc.clusters], dtype=float)
    pc, pt, pn = [], [], []
    for k, cl in enumerate(doc.clusters):
        for pool in cl.pools:
            pc.append(k)
            pt.append(ti[pool.card_type])
            pn.append(pool.cards)
    pool_cluster = np.array(pc, dtype=np.int64)
    pool_type = np.array(pt, dtype=np.int64)
    pool_cards = np.array(pn, dtype=np.int64)
    pool_index = {(int(c), int(t)): p for p, (c, t) in enumerate(zip(pc, pt, strict=True))}

    link_ends = np.array([[ri[lk.a], ri[lk.b]] for lk in doc.links], dtype=np.int64).reshape(-1, 2)
    link_gbps = np.array([lk.gbps for lk in doc.links], dtype=float)
    routes = compute_routes(
        region_ids,
        [(ri[lk.a], ri[lk.b], lk.latency_ms) for lk in doc.links],
        [lk.egress_per_gb for lk in doc.links],
    )

    # Where a read from region q comes from: q itself if it holds a replica, else the replica
    # region with the lowest-latency route to q (ties: smaller id); -1 if none is reachable.
    n_d = len(dataset_ids)
    data_source = np.full((n_d, n_r), -1, dtype=np.int64)
    for d, ds in enumerate(doc.datasets):
        reps = sorted({ri[r] for r in ds.replicas}, key=lambda r: region_ids[r])
        for q in range(n_r):
            if q in reps:
                data_source[d, q] = q
                continue
            options = [(routes.latency_ms[r, q], region_ids[r], r) for r in reps if routes.reachable[r, q]]
            if options:
                data_source[d, q] = min(options)[2]

    tenant_quota = np.array([np.inf if t.quota_cards is None else t.quota_cards for t in doc.tenants], dtype=float)
    job_tenant = np.array([-1 if j.tenant is None else tni[j.tenant] for j in doc.jobs], dtype=np.int64)
    job_priority = np.array([j.priority for j in doc.jobs], dtype=float)
    job_granularity = np.array([j.granularity for j in doc.jobs], dtype=np.int64)
    job_totals = [_allowed_totals(j.cards) for j in doc.jobs]
    job_max_parts = np.array([j.split.max_parts for j in doc.jobs], dtype=np.int64)
    job_federation = np.array([j.split.scope == "federation" for j in doc.jobs], dtype=bool)
    job_sync = np.array([j.split.sync_gbps for j in doc.jobs], dtype=float)
    job_preemptible = np.array([j.preemptible for j in doc.jobs], dtype=bool)
    job_read = np.array([sum(d.gbps for d in j.data) for j in doc.jobs], dtype=float)

    # rates: measured throughput first, else the profile's roofline prediction, else ineligible
    narrow = any(j.profile is not None and j.profile.precision != "bf16" for j in doc.jobs)
    specs = card_specs(doc.card_types, narrow=narrow)  # 8-/4-bit peaks only when a profile asks for them
    rate = np.zeros((n_j, n_t))
    for j, job in enumerate(doc.jobs):
        for t, spec in enumerate(specs):
            if spec.id in job.throughput:
                rate[j, t] = job.throughput[spec.id]
            elif job.profile is not None:
                pr = job.profile
                rate[j, t] = profile_rate(
                    pr.tflop_per_unit,
                    pr.gb_per_unit,
                    pr.comm_gb_per_unit,
                    pr.memory_gb,
                    spec,
                    specs[reference_type],
                    pr.precision,
                )
    stacks = np.array([c.stack for c in doc.card_types], dtype=object)
    type_ok = rate > 0
    for j, job in enumerate(doc.jobs):
        if job.memory_gb is not None:
            type_ok[j] &= type_memory >= job.memory_gb
        if job.stack is not None:
            type_ok[j] &= stacks == job.stack
        if job.card_types is not None:
            allow = np.zeros(n_t, dtype=bool)
            allow[[ti[c] for c in job.card_types]] = True
            type_ok[j] &= allow

    # regions: allow-list, and every dataset the job reads must be reachable from the region
    region_ok = np.ones((n_j, n_r), dtype=bool)
    errors: list[InputError] = []
    for j, job in enumerate(doc.jobs):
        if job.regions is not None:
            allow = np.zeros(n_r, dtype=bool)
            allow[[ri[r] for r in job.regions]] = True
            region_ok[j] &= allow
        for e, read in enumerate(job.data):
            reach = data_source[di[read.dataset]] >= 0
            if job.regions is not None:
                for k, r in enumerate(job.regions):
                    if not reach[ri[r]]:
                        errors.append(
                            InputError(
                                f"jobs[{j}].regions[{k}]",
                                f"no route from region {r!r} to any replica of dataset {read.dataset!r} "
                                f"(read at jobs[{j}].data[{e}])",
                            )
                        )
            region_ok[j] &= reach
    if errors:
        raise InputErrors(errors, source)

    # the link load and egress cost of each job's reads, per region it could run in
    ent_job, ent_ds, ent_gbps = [], [], []
    for j, job in enumerate(doc.jobs):
        for read in job.data:
            ent_job.append(j)
            ent_ds.append(di[read.dataset])
            ent_gbps.append(read.gbps)
    ej = np.array(ent_job, dtype=np.int64)
    ed = np.array(ent_ds, dtype=np.int64)
    eg = np.array(ent_gbps, dtype=float)
    src = data_source[ed] if len(ed) else np.zeros((0, n_r), dtype=np.int64)  # [E, R]
    q = np.broadcast_to(np.arange(n_r), src.shape)
    remote = (src >= 0) & (src != q)
    e_idx, q_idx = np.nonzero(remote)
    s_idx = src[e_idx, q_idx]
    remote_egress = np.zeros((n_j, n_r))
    np.add.at(
        remote_egress,
        (ej[e_idx], q_idx),
        eg[e_idx] * BYTES_PER_GBIT_HOUR * routes.egress_per_gb[s_idx, q_idx],
    )
    # expand: row (job*R + q) gets gbps * incidence row (src*R + q)
    expand = sp.csr_matrix((eg[e_idx], (ej[e_idx] * n_r + q_idx, s_idx * n_r + q_idx)), shape=(n_j * n_r, n_r * n_r))
    remote_links = (expand @ routes.incidence).tocsr()

    running: list[list[tuple[int, int, int]] | None] = []
    for job in doc.jobs:
        if job.running is None:
            running.append(None)
        else:
            running.append([(ci[p.cluster], ti[p.card_type], p.count) for p in job.running.parts])

    def pairs(kind: str) -> np.ndarray:
        out: set[tuple[int, int]] = set()
        for j, job in enumerate(doc.jobs):
            if job.affinity is not None:
                for other in getattr(job.affinity, kind):
                    k = ji[other]
                    out.add((min(j, k), max(j, k)))
        return np.array(sorted(out), dtype=np.int64).reshape(-1, 2)

    return Instance(
        doc=doc,
        card_ids=card_ids,
        region_ids=region_ids,
        cluster_ids=cluster_ids,
        dataset_ids=dataset_ids,
        tenant_ids=tenant_ids,
        job_ids=job_ids,
        region_rank=region_rank,
        type_memory=type_memory,
        type_tflops=type_tflops,
        reference_type=reference_type,
        cluster_region=cluster_region,
        cluster_storage=cluster_storage,
        pool_cluster=pool_cluster,
        pool_type=pool_type,
        pool_cards=pool_cards,
        link_ends=link_ends,
        link_gbps=link_gbps,
        routes=routes,
        data_source=data_source,
        tenant_quota=tenant_quota,
        job_tenant=job_tenant,
        job_priority=job_priority,
        job_granularity=job_granularity,
        job_totals=job_totals,
        job_max_parts=job_max_parts,
        job_federation=job_federation,
        job_sync_gbps=job_sync,
        job_preemptible=job_preemptible,
        job_read_gbps=job_read,
        rate=rate,
        type_ok=type_ok,
        region_ok=region_ok,
        remote_egress=remote_egress,
        remote_links=remote_links,
        running=running,
        same_region_pairs=pairs("same_region"),
        different_cluster_pairs=pairs("different_cluster"),
        pool_index=pool_index,
        warnings=warnings,
    )
