"""Volcano: per member cluster, a Queue per tenant and a gang per job part that runs now there.

The gang is a PodGroup (default: ``minMember`` = the part's pods, ``minResources`` = its cards;
the job's pods join it with the annotation ``scheduling.k8s.io/group-name``) or, with
``--volcano-kind job``, a Volcano Job whose one task has the part's pods and ``minAvailable``
equal to them. Volcano schedules within one cluster: the parts of a gang split over clusters are
separate gangs, annotated with the whole.
"""

from __future__ import annotations

from collections import defaultdict

from fedopt.export.context import JOB_ID_ANNOTATION, ExportContext, JobInfo, PartInfo
from fedopt.export.manifest import Manifest

SCHEDULING = "scheduling.volcano.sh/v1beta1"
BATCH = "batch.volcano.sh/v1alpha1"


def _queue_name(ctx: ExportContext, tenant: str) -> str:
    return ctx.namer("queue", tenant)


def queue(ctx: ExportContext, tenant: str, resources: set[str]) -> dict:
    spec: dict = {"weight": 1, "reclaimable": True}
    if tenant in ctx.inst.tenant_ids:
        quota = ctx.inst.tenant_quota[ctx.inst.tenant_ids.index(tenant)]
        if quota != float("inf"):
            # Volcano caps each resource; the tenant's quota is over all card types together
            spec["capability"] = {r: str(int(quota)) for r in sorted(resources)}
    return {
        "apiVersion": SCHEDULING,
        "kind": "Queue",
        "metadata": {"name": _queue_name(ctx, tenant), "labels": ctx.labels(), "annotations": {"fedopt.io/tenant": tenant}},
        "spec": spec,
    }


def pod_group(ctx: ExportContext, job: JobInfo, part: PartInfo) -> dict:
    card = ctx.cards[part.card_type]
    return {
        "apiVersion": SCHEDULING,
        "kind": "PodGroup",
        "metadata": {
            "name": job.name,
            "namespace": job.namespace,
            "labels": ctx.labels(job),
            "annotations": ctx.annotations(job, part),
        },
        "spec": {
            "minMember": part.pods,
            "minResources": {card.resource: str(part.count)},
            "queue": _queue_name(ctx, ctx.tenant_key(job)),
        },
    }


def volcano_job(ctx: ExportContext, job: JobInfo, part: PartInfo) -> dict:
    card = ctx.cards[part.card_type]
    res = {card.resource: str(job.pod_cards)}
    container = {
        "name": "main",
        "image": ctx.options.image or "REPLACE-WITH-YOUR-IMAGE",
        "resources": {"requests": dict(res), "limits": dict(res)},
    }
    return {
        "apiVersion": BATCH,
        "kind": "Job",
        "metadata": {
            "name": job.name,
            "namespace": job.namespace,
            "labels": ctx.labels(job),
            "annotations": ctx.annotations(job, part),
        },
        "spec": {
            "schedulerName": "volcano",
            "queue": _queue_name(ctx, ctx.tenant_key(job)),
            "minAvailable": part.pods,
            "maxRetry": 3,
            "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
            "tasks": [
                {
                    "name": "main",
                    "replicas": part.pods,
                    "minAvailable": part.pods,
                    "template": {
                        "metadata": {"labels": ctx.labels(job), "annotations": {JOB_ID_ANNOTATION: job.id}},
                        "spec": {"containers": [container], "nodeSelector": dict(card.node_labels), "restartPolicy": "OnFailure"},
                    },
                }
            ],
        },
    }


def manifests(ctx: ExportContext) -> list[Manifest]:
    out: list[Manifest] = []
    queues: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # cluster -> tenant -> resources
    make = volcano_job if ctx.options.volcano_kind == "job" else pod_group
    for job in ctx.jobs:
        if not job.runs_now:
            continue
        for part in job.parts:
            queues[part.cluster][ctx.tenant_key(job)].add(ctx.cards[part.card_type].resource)
            out.append(Manifest(make(ctx, job, part), target=part.cluster, order=30))
    for cluster in sorted(queues):
        for tenant in sorted(queues[cluster]):
            out.append(Manifest(queue(ctx, tenant, queues[cluster][tenant]), target=cluster, order=10))
    if any(len(j.parts) > 1 for j in ctx.jobs if j.runs_now):
        ctx.notes.append(
            "volcano: the parts of a gang split over clusters are separate gangs (Volcano schedules within one cluster)"
        )
    return sorted(out, key=lambda m: (m.target, m.order))
