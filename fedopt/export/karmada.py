"""Karmada: one PropagationPolicy per job that runs now.

The policy selects the job's workload (its ``k8s`` apiVersion/kind/name, else a ``batch/v1`` Job
named after the job) and pins it to the plan's clusters: one part is ``Duplicated`` onto that
cluster; a gang split over several clusters is ``Divided`` with static weights equal to each
part's pod count, so a workload of ``pods`` replicas gets exactly the plan's cards per cluster.
"""

from __future__ import annotations

import math

from fedopt.export.context import ExportContext
from fedopt.export.manifest import Manifest

API_VERSION = "policy.karmada.io/v1alpha1"


def propagation_policy(ctx: ExportContext, job) -> dict:
    clusters = [p.cluster for p in job.parts]
    placement: dict = {"clusterAffinity": {"clusterNames": sorted(clusters)}}
    if len(job.parts) == 1:
        placement["replicaScheduling"] = {"replicaSchedulingType": "Duplicated"}
    else:
        g = math.gcd(*(p.pods for p in job.parts))
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [{"targetCluster": {"clusterNames": [p.cluster]}, "weight": p.pods // g} for p in job.parts]
            },
        }
    annotations = ctx.annotations(job)
    card = ctx.cards[job.parts[0].card_type]
    annotations["fedopt.io/card-type"] = card.id
    annotations["fedopt.io/node-selector"] = ",".join(f"{k}={v}" for k, v in card.node_labels.items())
    annotations["fedopt.io/replicas"] = f"{job.pods} pods of {job.pod_cards} {card.resource}"
    return {
        "apiVersion": API_VERSION,
        "kind": "PropagationPolicy",
        "metadata": {"name": job.name, "namespace": job.namespace, "labels": ctx.labels(job), "annotations": annotations},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": job.workload["apiVersion"],
                    "kind": job.workload["kind"],
                    "name": job.workload["name"],
                    "namespace": job.namespace,
                }
            ],
            "placement": placement,
        },
    }


def manifests(ctx: ExportContext) -> list[Manifest]:
    out = [Manifest(propagation_policy(ctx, job), order=30) for job in ctx.jobs if job.runs_now]
    if any(len(j.parts) > 1 for j in ctx.jobs if j.runs_now):
        ctx.notes.append(
            "karmada: a split gang's workload must have the annotated number of replicas "
            "for the static weights to divide it exactly"
        )
    return out
