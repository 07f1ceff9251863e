"""A three-cluster fleet as Kubernetes shows it: node and pod dumps made with the official client's models.

The objects are built with ``kubernetes.client`` models and serialized the way ``kubectl get -o json``
writes them (``ApiClient().sanitize_for_serialization``: camelCase keys, a ``List`` with ``items``).

- gpu-sh (cn-shanghai): 4 H100 nodes (one cordoned), 2 A100 nodes (one NotReady), a CPU node;
  running: batch Job team-a/llama-ft (2 pods x 8 H100), a pod on the NotReady node.
- gpu-bj (cn-beijing): 2 Ascend 910B nodes (MindCluster labels), 2 A100 nodes;
  running: Volcano Job team-b/pangu-pt (2 x 8 NPUs), PyTorchJob team-a/bert (master + worker, 4 A100 each).
- gpu-sz (cn-shenzhen): 2 MI300X nodes, 2 H100 nodes (GPU operator labels);
  running: Deployment serving/vllm-serve (2 pods x 1 MI300X).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import yaml
from kubernetes import client

T0 = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC)
API = client.ApiClient()

H100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory": "81559", "nvidia.com/gpu.count": "8"}
A100 = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920", "nvidia.com/gpu.count": "8"}
ASCEND = {"accelerator": "huawei-Ascend910", "accelerator-type": "module-910b-8", "host-arch": "huawei-arm"}
MI300X = {"amd.com/gpu.product-name": "AMD_Instinct_MI300X_OAM", "amd.com/gpu.device-id": "74a1", "amd.com/gpu.family": "AI"}


def node(name, region, zone, labels=None, cards=None, ready=True, unschedulable=None, taints=None) -> client.V1Node:
    allocatable = {"cpu": "191500m", "memory": "2113477164Ki", "pods": "110", "ephemeral-storage": "1790000000000"}
    allocatable |= {k: str(v) for k, v in (cards or {}).items()}
    conditions = [
        client.V1NodeCondition(
            type="MemoryPressure", status="False", reason="KubeletHasSufficientMemory", last_transition_time=T0
        ),
        client.V1NodeCondition(
            type="Ready",
            status="True" if ready else "Unknown",
            reason="KubeletReady" if ready else "NodeStatusUnknown",
            message="kubelet is posting ready status" if ready else "Kubelet stopped posting node status.",
            last_heartbeat_time=T0,
            last_transition_time=T0,
        ),
    ]
    base = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "arm64" if labels is ASCEND else "amd64",
        "node.kubernetes.io/instance-type": "bare-metal",
        "topology.kubernetes.io/region": region,
        "topology.kubernetes.io/zone": zone,
    }
    if not ready:
        taints = [*(taints or []), client.V1Taint(key="node.kubernetes.io/unreachable", effect="NoExecute", time_added=T0)]
    if unschedulable:
        taints = [*(taints or []), client.V1Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule", time_added=T0)]
    return client.V1Node(
        api_version="v1",
        kind="Node",
        metadata=client.V1ObjectMeta(name=name, labels=base | (labels or {}), uid=f"uid-{name}", creation_timestamp=T0),
        spec=client.V1NodeSpec(unschedulable=unschedulable, taints=taints, provider_id=f"baremetal://{name}"),
        status=client.V1NodeStatus(
            allocatable=allocatable,
            capacity=dict(allocatable),
            conditions=conditions,
            addresses=[client.V1NodeAddress(type="InternalIP", address="10.0.0.1")],
        ),
    )


def pod(name, namespace, node_name, resource, n, labels=None, owner=None, phase="Running", init=None) -> client.V1Pod:
    limits = {resource: str(n)} if n else {}
    container = client.V1Container(
        name="main",
        image="nvcr.io/nvidia/pytorch:24.05-py3",
        resources=client.V1ResourceRequirements(requests={"cpu": "8", "memory": "64Gi"} | limits, limits=limits),
    )
    owners = None
    if owner:
        api, kind, oname = owner
        owners = [
            client.V1OwnerReference(
                api_version=api, kind=kind, name=oname, uid=f"uid-{oname}", controller=True, block_owner_deletion=True
            )
        ]
    return client.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=client.V1ObjectMeta(
            name=name, namespace=namespace, labels=labels or {}, owner_references=owners, uid=f"uid-{name}", creation_timestamp=T0
        ),
        spec=client.V1PodSpec(
            node_name=node_name,
            containers=[container],
            init_containers=init,
            restart_policy="Never",
            scheduler_name="default-scheduler",
        ),
        status=client.V1PodStatus(phase=phase, start_time=T0 if node_name else None, host_ip="10.0.0.1" if node_name else None),
    )


def _list(items) -> dict:
    return API.sanitize_for_serialization(
        {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    )


def cluster_objects() -> dict[str, tuple[list, list]]:
    """cluster -> (nodes, pods) as client model objects."""
    sh_nodes = [
        node(f"sh-h100-{i}", "cn-shanghai", "cn-shanghai-a", H100, {"nvidia.com/gpu": 8}, unschedulable=(i == 3) or None)
        for i in range(4)
    ]
    sh_nodes += [
        node(f"sh-a100-{i}", "cn-shanghai", "cn-shanghai-b", A100, {"nvidia.com/gpu": 8}, ready=(i == 0)) for i in range(2)
    ]
    sh_nodes.append(node("sh-cpu-0", "cn-shanghai", "cn-shanghai-a"))
    job = ("batch/v1", "Job", "llama-ft")
    sh_pods = [
        pod(
            f"llama-ft-{i}-x7k2{i}",
            "team-a",
            f"sh-h100-{i}",
            "nvidia.com/gpu",
            8,
            {"batch.kubernetes.io/job-name": "llama-ft", "job-name": "llama-ft"},
            job,
        )
        for i in range(2)
    ]
    sh_pods += [
        pod(
            "stuck-0",
            "team-a",
            "sh-a100-1",
            "nvidia.com/gpu",
            8,
            {"batch.kubernetes.io/job-name": "stuck"},
            ("batch/v1", "Job", "stuck"),
        ),
        pod(
            "queued-0",
            "team-a",
            None,
            "nvidia.com/gpu",
            8,
            {"batch.kubernetes.io/job-name": "queued"},
            ("batch/v1", "Job", "queued"),
            "Pending",
        ),
        pod(
            "done-0",
            "team-a",
            "sh-h100-2",
            "nvidia.com/gpu",
            8,
            {"batch.kubernetes.io/job-name": "done"},
            ("batch/v1", "Job", "done"),
            "Succeeded",
        ),
        pod("coredns-5d78c9869d-abcde", "kube-system", "sh-cpu-0", "nvidia.com/gpu", 0, {"pod-template-hash": "5d78c9869d"}),
    ]
    bj_nodes = [node(f"bj-910b-{i}", "cn-beijing", "cn-beijing-a", ASCEND, {"huawei.com/Ascend910": 8}) for i in range(2)]
    bj_nodes += [node(f"bj-a100-{i}", "cn-beijing", "cn-beijing-b", A100, {"nvidia.com/gpu": 8}) for i in range(2)]
    bj_nodes.append(node("bj-cpu-0", "cn-beijing", "cn-beijing-a"))
    vc = ("batch.volcano.sh/v1alpha1", "Job", "pangu-pt")
    pt = ("kubeflow.org/v1", "PyTorchJob", "bert")
    bj_pods = [
        pod(
            f"pangu-pt-worker-{i}",
            "team-b",
            f"bj-910b-{i}",
            "huawei.com/Ascend910",
            8,
            {"volcano.sh/job-name": "pangu-pt", "volcano.sh/task-spec": "worker"},
            vc,
        )
        for i in range(2)
    ]
    bj_pods += [
        pod(
            f"bert-{role}-0",
            "team-a",
            "bj-a100-0",
            "nvidia.com/gpu",
            4,
            {
                "training.kubeflow.org/job-name": "bert",
                "training.kubeflow.org/replica-type": role,
                "training.kubeflow.org/operator-name": "pytorchjob-controller",
            },
            pt,
        )
        for role in ("master", "worker")
    ]
    sz_nodes = [node(f"sz-mi300x-{i}", "cn-shenzhen", "cn-shenzhen-a", MI300X, {"amd.com/gpu": 8}) for i in range(2)]
    sz_nodes += [node(f"sz-h100-{i}", "cn-shenzhen", "cn-shenzhen-b", H100, {"nvidia.com/gpu": 8}) for i in range(2)]
    rs = ("apps/v1", "ReplicaSet", "vllm-serve-6f9c8b7d5")
    sz_pods = [
        pod(
            f"vllm-serve-6f9c8b7d5-{s}",
            "serving",
            "sz-mi300x-0",
            "amd.com/gpu",
            1,
            {"app": "vllm", "pod-template-hash": "6f9c8b7d5"},
            rs,
        )
        for s in ("q2w8e", "z7x1c")
    ]
    return {"gpu-sh": (sh_nodes, sh_pods), "gpu-bj": (bj_nodes, bj_pods), "gpu-sz": (sz_nodes, sz_pods)}


FLEET = {
    "name": "three-clusters",
    "regions": ["cn-shanghai", "cn-beijing", "cn-shenzhen"],
    "links": [
        {"a": "cn-shanghai", "b": "cn-beijing", "gbps": 100, "latency_ms": 24, "egress_per_gb": 0.02},
        {"a": "cn-shanghai", "b": "cn-shenzhen", "gbps": 40, "latency_ms": 30, "egress_per_gb": 0.03},
    ],
    "clusters": {"gpu-sh": {"storage_gbps": 400}},
    "datasets": [
        {"id": "c4", "size_gb": 800, "replicas": ["cn-shanghai"]},
        {"id": "pile", "size_gb": 825, "replicas": ["cn-beijing"]},
    ],
    "tenants": [
        {"id": "team-a", "quota_cards": 48},
        {"id": "team-b", "quota_cards": 32},
        {"id": "serving", "namespaces": ["serving", "serving-canary"]},
    ],
    "job_defaults": {"priority": 1},
    "jobs": [
        {"id": "gpu-sh/team-a/llama-ft", "preemptible": False, "priority": 2},
        {
            "id": "pretrain-70b",
            "tenant": "team-b",
            "priority": 10,
            "cards": 24,
            "granularity": 8,
            "card_types": ["H100"],
            "split": {"max_parts": 2, "scope": "federation", "sync_gbps": 10},
            "data": [{"dataset": "c4", "gbps": 6}],
            "profile": {"params_b": 70, "tflop_per_unit": 1.0, "gb_per_unit": 2.0, "memory_gb": 60},
            "k8s": {"namespace": "team-b", "name": "pretrain-70b", "api_version": "kubeflow.org/v1", "kind": "PyTorchJob"},
        },
        {
            "id": "sft-7b",
            "tenant": "team-a",
            "priority": 2,
            "cards": 8,
            "stack": "cuda",
            "data": [{"dataset": "pile", "gbps": 2}],
        },
        {"id": "ascend-ft", "tenant": "team-b", "cards": 8, "granularity": 8, "stack": "cann"},
        {
            "id": "eval-sweep",
            "tenant": "serving",
            "cards": {"min": 1, "max": 4},
            "throughput": {"MI300X": 0.9, "NVIDIA-A100-SXM4-80GB": 0.3},
        },
        {"id": "giant", "cards": 256, "granularity": 8, "stack": "cuda"},
        {"id": "quota-bound", "tenant": "team-a", "cards": 32, "granularity": 8, "stack": "cuda"},
    ],
}


def write_fleet(tmp: Path) -> tuple[list[str], Path]:
    """Write the dumps and the fleet file; the ``--cluster`` arguments and the fleet file's path."""
    args = []
    for name, (nodes, pods) in cluster_objects().items():
        n, p = tmp / f"{name}-nodes.json", tmp / f"{name}-pods.json"
        n.write_text(json.dumps(_list(nodes), indent=1))
        p.write_text(json.dumps(_list(pods), indent=1))
        args.append(f"{name}={n},{p}")
    cfg = tmp / "fleet.yaml"
    cfg.write_text(yaml.safe_dump(FLEET, sort_keys=False))
    return args, cfg
