"""Kueue: the plan as flavors, quotas and admitted Workloads (MultiKueue when the fleet has several clusters).

- a ResourceFlavor per card type of the fleet, selecting its nodes by the product label;
- a ClusterQueue per tenant (``fedopt-default`` for jobs without one) whose nominal quota on each
  flavor is what the plan gives the tenant there now, so Kueue admits exactly the planned jobs;
  under MultiKueue it names the ``multikueue`` AdmissionCheck;
- a LocalQueue per (namespace, tenant) the Workloads use;
- a Workload per job: running now -> admitted (``status.admission`` with the chosen flavor and,
  under MultiKueue, ``status.clusterName``); pending -> queued; preempted or starting in a later
  slot -> ``active: false``. A gang split over clusters becomes one Workload per part, since a
  MultiKueue Workload runs in one cluster.
"""

from __future__ import annotations

from collections import defaultdict

from fedopt.export.context import JOB_ID_ANNOTATION, ExportContext, JobInfo, PartInfo
from fedopt.export.manifest import Manifest

GROUP = "kueue.x-k8s.io"
MULTIKUEUE_CHECK = "multikueue"


def _api(ctx: ExportContext) -> str:
    return f"{GROUP}/{ctx.options.kueue_api}"


def resource_flavor(ctx: ExportContext, card) -> dict:
    return {
        "apiVersion": _api(ctx),
        "kind": "ResourceFlavor",
        "metadata": {"name": card.flavor, "labels": ctx.labels(), "annotations": {"fedopt.io/card-type": card.id}},
        "spec": {"nodeLabels": dict(card.node_labels)},
    }


def _queue_name(ctx: ExportContext, tenant: str) -> str:
    return ctx.namer("queue", tenant)


def cluster_queue(
    ctx: ExportContext, tenant: str, use: dict[str, int], job_namespaces: frozenset[str] | set[str] = frozenset()
) -> dict:
    by_resource: dict[str, list] = defaultdict(list)
    for card in ctx.cards.values():
        if any(card.id == p.card_type for c in ctx.inst.doc.clusters for p in c.pools):
            by_resource[card.resource].append(card)
    groups = []
    for resource in sorted(by_resource):
        flavors = [
            {"name": c.flavor, "resources": [{"name": resource, "nominalQuota": use.get(c.id, 0)}]} for c in by_resource[resource]
        ]
        groups.append({"coveredResources": [resource], "flavors": flavors})
    # the tenant's namespaces, and any other its jobs live in; no tenant: every namespace
    namespaces = sorted(set(ctx.tenant_namespaces[tenant]) | job_namespaces) if tenant in ctx.tenant_namespaces else None
    selector = (
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": namespaces}]}
        if namespaces
        else {}
    )
    spec: dict = {"namespaceSelector": selector, "queueingStrategy": "BestEffortFIFO", "resourceGroups": groups}
    if ctx.multikueue:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": MULTIKUEUE_CHECK}]}
    quota = ctx.inst.tenant_quota[ctx.inst.tenant_ids.index(tenant)] if tenant in ctx.inst.tenant_ids else float("inf")
    annotations = {"fedopt.io/tenant": tenant}
    if quota != float("inf"):
        annotations["fedopt.io/quota-cards"] = str(int(quota))
    return {
        "apiVersion": _api(ctx),
        "kind": "ClusterQueue",
        "metadata": {"name": _queue_name(ctx, tenant), "labels": ctx.labels(), "annotations": annotations},
        "spec": spec,
    }


def local_queue(ctx: ExportContext, namespace: str, tenant: str) -> dict:
    name = _queue_name(ctx, tenant)
    return {
        "apiVersion": _api(ctx),
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace, "labels": ctx.labels()},
        "spec": {"clusterQueue": name},
    }


def _pod_template(ctx: ExportContext, job: JobInfo, card) -> dict:
    res = {card.resource: str(job.pod_cards)}
    container = {"name": "main", "resources": {"requests": dict(res), "limits": dict(res)}}
    if ctx.options.image:
        container["image"] = ctx.options.image
    return {
        "metadata": {"labels": ctx.labels(job), "annotations": {JOB_ID_ANNOTATION: job.id}},
        "spec": {"containers": [container], "nodeSelector": dict(card.node_labels), "restartPolicy": "Never"},
    }


def workload(ctx: ExportContext, job: JobInfo, part: PartInfo | None, card, admitted: bool) -> dict:
    pods = part.pods if part else job.request // job.pod_cards
    name = job.name if part is None or len(job.parts) == 1 else ctx.namer("workload-part", f"{job.id}@{part.cluster}")
    spec: dict = {
        "queueName": _queue_name(ctx, ctx.tenant_key(job)),
        "podSets": [{"name": "main", "count": pods, "template": _pod_template(ctx, job, card)}],
    }
    annotations = ctx.annotations(job, part)
    if job.status in ("preempted", "later"):
        spec["active"] = False
        annotations["fedopt.io/reason"] = (
            "preempted by the plan" if job.status == "preempted" else f"reserved to start in slot {job.start_slot}"
        )
    obj = {
        "apiVersion": _api(ctx),
        "kind": "Workload",
        "metadata": {"name": name, "namespace": job.namespace, "labels": ctx.labels(job), "annotations": annotations},
        "spec": spec,
    }
    if admitted and part is not None:
        now = ctx.timestamp()
        msg = f"fedopt plan {ctx.plan.instance or ctx.inst.name}: {part.count} {card.id} in {part.cluster}"
        status: dict = {
            "admission": {
                "clusterQueue": _queue_name(ctx, ctx.tenant_key(job)),
                "podSetAssignments": [
                    {
                        "name": "main",
                        "flavors": {card.resource: card.flavor},
                        "resourceUsage": {card.resource: str(part.count)},
                        "count": pods,
                    }
                ],
            },
            "conditions": [
                {"type": t, "status": "True", "reason": t, "message": msg, "lastTransitionTime": now}
                for t in ("QuotaReserved", "Admitted")
            ],
        }
        if ctx.multikueue:
            status["clusterName"] = part.cluster
        obj["status"] = status
    return obj


def manifests(ctx: ExportContext) -> list[Manifest]:
    out: list[Manifest] = []
    pooled = {p.card_type for c in ctx.inst.doc.clusters for p in c.pools}
    for card in ctx.cards.values():
        if card.id in pooled:
            out.append(Manifest(resource_flavor(ctx, card), order=10))
    use: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    queues: set[tuple[str, str]] = set()
    for job in ctx.jobs:
        tenant = ctx.tenant_key(job)
        use[tenant]  # every tenant with a job gets a queue
        queues.add((job.namespace, tenant))
        if job.runs_now:
            for p in job.parts:
                use[tenant][p.card_type] += p.count
    for tenant in sorted(use):
        job_ns = {ns for ns, t in queues if t == tenant}
        out.append(Manifest(cluster_queue(ctx, tenant, use[tenant], job_ns), order=20))
    for namespace, tenant in sorted(queues):
        out.append(Manifest(local_queue(ctx, namespace, tenant), order=25))
    split = []
    for job in ctx.jobs:
        if not job.parts:
            card = ctx.cards[_likely_card(ctx, job)]
            out.append(Manifest(workload(ctx, job, None, card, admitted=False), order=30))
            continue
        if len(job.parts) > 1:
            split.append(job.id)
        for part in job.parts:
            out.append(Manifest(workload(ctx, job, part, ctx.cards[part.card_type], admitted=job.runs_now), order=30))
    if split:
        ctx.notes.append(
            f"kueue: {len(split)} gang(s) split over clusters became one Workload per part ({', '.join(split)}); "
            "MultiKueue does not hold their parts together"
        )
    return out


def _likely_card(ctx: ExportContext, job: JobInfo) -> str:
    """For a Workload the plan does not place: its running card type, else its best eligible one."""
    doc = ctx.inst.doc.jobs[job.index]
    if doc.running is not None:
        return doc.running.parts[0].card_type
    j = job.index
    rates = ctx.inst.rate[j] * ctx.inst.type_ok[j]
    return ctx.inst.card_ids[int(rates.argmax())]
