"""What every export format needs to know about a plan, in Kubernetes terms.

The Kubernetes facts come from the instance's optional ``k8s`` fields (written by ``import-k8s``):
card types ``{resource, node_labels}``, jobs ``{namespace, name, api_version, kind, pods}``,
tenants ``namespaces``. Instances without them get defaults: the vendor's device-plugin resource
(``nvidia.com/gpu`` ...), the usual product label of the catalog card, namespace ``default`` (or
the tenant's first namespace) and a ``batch/v1`` Job named after the job.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

import numpy as np

from fedopt.errors import InputError
from fedopt.export.names import Namer, dns_label, label_value
from fedopt.instance.model import Instance
from fedopt.instance.schema import PlanDoc
from fedopt.k8s.kube import FEDOPT_JOB_ANNOTATION
from fedopt.k8s.products import DEFAULT_PRODUCT_LABEL, RESOURCE_OF_VENDOR, match_product

MANAGED_BY = {"app.kubernetes.io/managed-by": "fedopt"}
JOB_LABEL = "fedopt.io/job"
JOB_ID_ANNOTATION = FEDOPT_JOB_ANNOTATION  # on pods: import-k8s joins a job's parts in several clusters by it


@dataclass
class Options:
    namespace: str = "default"  # for jobs with no k8s.namespace and a tenant without namespaces
    workload_api_version: str = "batch/v1"  # the workload a Karmada policy selects, when the job names none
    workload_kind: str = "Job"
    kueue_api: str = "v1beta1"
    multikueue: bool | None = None  # None: when the fleet has more than one cluster
    volcano_kind: str = "podgroup"  # or "job"
    image: str | None = None  # container image of generated pod templates
    timestamp: str | None = None  # RFC 3339 time for Kueue conditions (default: now)


@dataclass
class CardInfo:
    id: str
    resource: str
    node_labels: dict[str, str]
    flavor: str  # Kueue ResourceFlavor name


@dataclass
class PartInfo:
    cluster: str
    card_type: str
    count: int
    pods: int


@dataclass
class JobInfo:
    index: int
    id: str
    tenant: str | None
    namespace: str
    workload: dict  # {apiVersion, kind, name}
    status: str  # started | kept | migrated | later | preempted | pending
    parts: list[PartInfo]
    pod_cards: int  # cards per pod (every pod of the job the same)
    request: int  # cards asked for: the placed total, else the smallest allowed total
    start_slot: int | None
    label: str  # fedopt.io/job label value
    name: str  # base name of the objects made for it

    @property
    def total(self) -> int:
        return sum(p.count for p in self.parts)

    @property
    def pods(self) -> int:
        return sum(p.pods for p in self.parts)

    @property
    def runs_now(self) -> bool:
        return self.status in ("started", "kept", "migrated")


@dataclass
class ExportContext:
    inst: Instance
    plan: PlanDoc
    options: Options
    cards: dict[str, CardInfo]
    jobs: list[JobInfo]
    tenant_namespaces: dict[str, list[str]]
    namer: Namer = field(default_factory=Namer)
    notes: list[str] = field(default_factory=list)

    @property
    def multikueue(self) -> bool:
        mk = self.options.multikueue
        return len(self.inst.cluster_ids) > 1 if mk is None else mk

    def timestamp(self) -> str:
        if self.options.timestamp:
            return self.options.timestamp
        return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")

    def labels(self, job: JobInfo | None = None) -> dict[str, str]:
        out = dict(MANAGED_BY)
        if job is not None:
            out[JOB_LABEL] = job.label
        return out

    def annotations(self, job: JobInfo, part: PartInfo | None = None) -> dict[str, str]:
        out = {JOB_ID_ANNOTATION: job.id, "fedopt.io/plan": self.plan.instance or self.inst.name}
        out["fedopt.io/parts"] = ",".join(f"{p.cluster}:{p.card_type}:{p.count}" for p in job.parts)
        if job.start_slot is not None:
            out["fedopt.io/start-slot"] = str(job.start_slot)
        if part is not None and len(job.parts) > 1:
            k = job.parts.index(part)
            out["fedopt.io/gang"] = f"part {k + 1} of {len(job.parts)}: {job.total} cards in all"
        return out

    def tenant_key(self, job: JobInfo) -> str:
        return job.tenant or "default"


def _card_infos(inst: Instance, raw: dict, namer: Namer) -> dict[str, CardInfo]:
    from fedopt.normalize.catalog import load_catalog

    catalog = None
    out = {}
    raw_types = {t.get("id"): t for t in raw.get("card_types", []) if isinstance(t, dict)}
    for i, ct in enumerate(inst.doc.card_types):
        hint = (raw_types.get(ct.id) or {}).get("k8s") or {}
        resource = hint.get("resource") or RESOURCE_OF_VENDOR.get(ct.vendor.lower())
        if not resource:
            raise InputError(f"card_types[{i}].k8s.resource", f"no Kubernetes resource known for vendor {ct.vendor!r}; give one")
        labels = hint.get("node_labels")
        if labels is None:
            catalog = catalog or load_catalog()
            cid = (raw_types.get(ct.id) or {}).get("catalog_id") or match_product(ct.id, catalog)
            if cid in DEFAULT_PRODUCT_LABEL:
                key, value = DEFAULT_PRODUCT_LABEL[cid]
                labels = {key: value}
            else:
                labels = {"fedopt.io/card-type": label_value(ct.id)}
        out[ct.id] = CardInfo(ct.id, resource, dict(labels), namer("flavor", ct.id, max_len=63).removeprefix("fedopt-"))
    return out


def _pool_cards_per_node(inst: Instance) -> dict[tuple[str, str], int | None]:
    out = {}
    for c in inst.doc.clusters:
        for p in c.pools:
            out[(c.id, p.card_type)] = p.cards_per_node
    return out


def build_context(inst: Instance, raw: dict, plan: PlanDoc, options: Options | None = None) -> ExportContext:
    """Resolve the plan's jobs: status, namespace, workload, pods per part."""
    options = options or Options()
    namer = Namer()
    cards = _card_infos(inst, raw, namer)
    raw_jobs = {j.get("id"): j for j in raw.get("jobs", []) if isinstance(j, dict)}
    tenant_ns = {t: [dns_label(t)] for t in inst.tenant_ids}  # a tenant's namespace is named after it ...
    for t in raw.get("tenants", []):  # ... unless the instance lists its namespaces
        if isinstance(t, dict) and isinstance(t.get("namespaces"), list) and t["namespaces"]:
            tenant_ns[t["id"]] = [str(n) for n in t["namespaces"]]
    cpn = _pool_cards_per_node(inst)
    assigned = {a.job: a for a in plan.assignments}
    jobs = []
    for j, job in enumerate(inst.doc.jobs):
        hint = (raw_jobs.get(job.id) or {}).get("k8s") or {}
        a = assigned.get(job.id)
        running = job.running is not None
        if a is None:
            status = "preempted" if running else "pending"
            parts = []
        else:
            now = a.start_slot in (None, 0)
            same = job.running is not None and sorted((p.cluster, p.card_type, p.count) for p in a.parts) == sorted(
                (p.cluster, p.card_type, p.count) for p in job.running.parts
            )
            status = ("kept" if same else "migrated") if running else ("started" if now else "later")
            parts = [PartInfo(p.cluster, p.card_type, p.count, 0) for p in a.parts]
        if parts:
            total = sum(p.count for p in parts)
            counts = [p.count for p in parts] + [n for p in parts if (n := cpn.get((p.cluster, p.card_type)))]
        else:  # not placed: its smallest allowed size, in pods no larger than its eligible pools' nodes
            total = int(inst.job_totals[j].min())
            per_node = [
                cpn.get((inst.cluster_ids[int(inst.pool_cluster[k])], inst.card_ids[int(inst.pool_type[k])]))
                for k in np.flatnonzero(inst.pool_ok[j])
            ]
            counts = [total, *(n for n in per_node if n)]
        pod_cards = math.gcd(*counts)
        hinted_pods = hint.get("pods")
        # an imported job keeps its pod size when the plan's counts allow it
        if (
            isinstance(hinted_pods, int)
            and hinted_pods > 0
            and total % hinted_pods == 0
            and all(c % (total // hinted_pods) == 0 for c in [p.count for p in parts] or [total])
        ):
            pod_cards = total // hinted_pods
        for p in parts:
            p.pods = p.count // pod_cards
        namespace = hint.get("namespace") or (tenant_ns.get(job.tenant or "", [None])[0]) or options.namespace
        workload = {
            "apiVersion": hint.get("api_version") or options.workload_api_version,
            "kind": hint.get("kind") or options.workload_kind,
            "name": hint.get("name") or namer("workload", job.id, scope=namespace).removeprefix("fedopt-"),
        }
        jobs.append(
            JobInfo(
                index=j,
                id=job.id,
                tenant=job.tenant,
                namespace=namespace,
                workload=workload,
                status=status,
                parts=parts,
                pod_cards=pod_cards,
                request=total,
                start_slot=None if a is None else a.start_slot,
                label=label_value(job.id),
                name=namer("job", job.id),
            )
        )
    return ExportContext(inst, plan, options, cards, jobs, tenant_ns, namer)
