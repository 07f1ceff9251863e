"""Reading ``kubectl get nodes/pods -o json`` dumps: readiness, card counts, pods' card requests, jobs.

Only the fields fedopt needs are read; everything else in the objects is ignored. Every error
names the file and the JSON path (``items[3].status.allocatable["nvidia.com/gpu"]``).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from fedopt.errors import InputError
from fedopt.instance.io import read_bytes
from fedopt.k8s.products import is_card_resource

REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")

# Labels that name the job a pod belongs to, most specific first; the workload kind they imply.
JOB_LABELS: tuple[tuple[str, str | None, str | None], ...] = (
    ("jobset.sigs.k8s.io/jobset-name", "jobset.x-k8s.io/v1alpha2", "JobSet"),
    ("leaderworkerset.sigs.k8s.io/name", "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
    ("volcano.sh/job-name", "batch.volcano.sh/v1alpha1", "Job"),
    ("training.kubeflow.org/job-name", "kubeflow.org/v1", None),  # kind from the owner reference
    ("ray.io/cluster", "ray.io/v1", "RayCluster"),
    ("batch.kubernetes.io/job-name", "batch/v1", "Job"),
    ("job-name", "batch/v1", "Job"),
)
# Set by `fedopt export`: the job id of a federation-wide job (its parts in several clusters).
FEDOPT_JOB_ANNOTATION = "fedopt.io/job-id"

# Pod phases in which a pod bound to a node holds its cards.
HOLDING_PHASES = ("Pending", "Running", "Unknown")


def _index_path(i: int | None) -> str:
    return "" if i is None else f"items[{i}]"


def _key_path(base: str, *keys: str) -> str:
    out = base
    for k in keys:
        out += f".{k}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) else f"[{json.dumps(k)}]"
    return out.lstrip(".")


def read_objects(path: str | os.PathLike, kind: str) -> list[tuple[int | None, dict]]:
    """The objects of ``kind`` (Node, Pod) in a dump: a List, a single object or a JSON array.

    Returns (index in ``items`` or None for a single object, object) pairs.
    """
    src = str(path)
    data = read_bytes(path)
    try:
        doc = json.loads(data)
    except ValueError:
        try:
            doc = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise InputError("", f"neither JSON nor YAML: {exc}", src) from None
    if isinstance(doc, list):
        items, single = doc, False
    elif isinstance(doc, dict) and isinstance(doc.get("items"), list):
        items, single = doc["items"], False
    elif isinstance(doc, dict) and doc.get("kind") == kind:
        items, single = [doc], True
    else:
        raise InputError("", f"expected `kubectl get {kind.lower()}s -o json` output (a List with items)", src)
    out = []
    for i, obj in enumerate(items):
        idx = None if single else i
        if not isinstance(obj, dict):
            raise InputError(_index_path(idx), "expected an object", src)
        if obj.get("kind", kind) != kind:
            raise InputError(_key_path(_index_path(idx), "kind"), f"expected {kind}, got {obj.get('kind')!r}", src)
        out.append((idx, obj))
    return out


def _dict_at(obj: dict, keys: tuple[str, ...], base: str, src: str) -> dict:
    cur: Any = obj
    for n, k in enumerate(keys):
        cur = cur.get(k) if isinstance(cur, dict) else None
        if cur is None:
            return {}
        if not isinstance(cur, dict):
            raise InputError(_key_path(base, *keys[: n + 1]), "expected an object", src)
    return cur


def _str_map(obj: dict, keys: tuple[str, ...], base: str, src: str) -> dict[str, str]:
    d = _dict_at(obj, keys, base, src)
    for k, v in d.items():
        if not isinstance(v, str):
            raise InputError(_key_path(base, *keys, k), f"expected a string, got {v!r}", src)
    return d


def card_quantity(value, path: str, src: str) -> int:
    """An extended-resource quantity: a whole number ("8", 8, "8000m" is refused as not whole)."""
    if isinstance(value, bool):
        raise InputError(path, f"expected a card count, got {value!r}", src)
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and re.fullmatch(r"\+?\d+", value.strip()):
        n = int(value)
    elif isinstance(value, str) and re.fullmatch(r"\d+(\.\d*)?[kK]", value.strip()):
        thousands = float(value.strip()[:-1]) * 1000
        if thousands != int(thousands):
            raise InputError(path, f"expected a whole number of cards, got {value!r}", src)
        n = int(thousands)
    else:
        raise InputError(path, f"expected a whole number of cards, got {value!r}", src)
    if n < 0:
        raise InputError(path, f"negative card count {value!r}", src)
    return n


@dataclass
class Node:
    name: str
    path: str  # JSON path in its file
    source: str
    labels: dict[str, str]
    cards: dict[str, int]  # card resource -> allocatable count (> 0)
    excluded: str | None = None  # why the node's cards are not counted
    region: str | None = None
    zone: str | None = None
    card_type: dict[str, str] = field(default_factory=dict)  # resource -> instance card type id


def parse_node(obj: dict, idx: int | None, src: str) -> Node:
    base = _index_path(idx)
    name = _dict_at(obj, ("metadata",), base, src).get("name")
    if not isinstance(name, str) or not name:
        raise InputError(_key_path(base, "metadata", "name"), "a node needs a name", src)
    labels = _str_map(obj, ("metadata", "labels"), base, src)
    alloc = _dict_at(obj, ("status", "allocatable"), base, src)
    cards = {}
    for res, q in alloc.items():
        if is_card_resource(res):
            n = card_quantity(q, _key_path(base, "status", "allocatable", res), src)
            if n > 0:
                cards[res] = n
    node = Node(name=name, path=base, source=src, labels=labels, cards=cards)
    node.region = next((labels[k] for k in REGION_LABELS if labels.get(k)), None)
    node.zone = next((labels[k] for k in ZONE_LABELS if labels.get(k)), None)
    spec = _dict_at(obj, ("spec",), base, src)
    conditions = (obj.get("status") or {}).get("conditions") or []
    ready = [c for c in conditions if isinstance(c, dict) and c.get("type") == "Ready"]
    taints = {
        t.get("key") for t in spec.get("taints") or [] if isinstance(t, dict) and t.get("effect") in ("NoSchedule", "NoExecute")
    }
    if spec.get("unschedulable") is True or "node.kubernetes.io/unschedulable" in taints:
        node.excluded = "unschedulable (cordoned)"
    elif not ready:
        node.excluded = "no Ready condition"
    elif ready[0].get("status") != "True":
        node.excluded = f"not ready (Ready={ready[0].get('status')}, {ready[0].get('reason') or 'no reason'})"
    elif taints & {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/out-of-service"}:
        node.excluded = "tainted not-ready/unreachable"
    return node


@dataclass
class Workload:
    """What a pod belongs to: the unit fedopt calls a job."""

    name: str
    namespace: str
    api_version: str | None
    kind: str | None
    federated_id: str | None = None  # set when the pod carries fedopt.io/job-id


@dataclass
class Pod:
    name: str
    namespace: str
    path: str
    source: str
    node: str | None
    phase: str
    cards: dict[str, int]
    workload: Workload

    @property
    def holds_cards(self) -> bool:
        return bool(self.node) and self.phase in HOLDING_PHASES and any(self.cards.values())


def _container_cards(c: dict, res: str, path: str, src: str) -> int:
    r = c.get("resources") or {}
    for kind in ("requests", "limits"):  # extended resources: requests default to limits
        v = (r.get(kind) or {}).get(res)
        if v is not None:
            return card_quantity(v, _key_path(path, "resources", kind, res), src)
    return 0


def pod_cards(spec: dict, base: str, src: str) -> dict[str, int]:
    """The pod's effective request of each card resource, as the scheduler computes it."""
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    inits = [c for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    resources = set()
    for c in containers + inits:
        r = c.get("resources") or {}
        for kind in ("requests", "limits"):
            resources |= {k for k in (r.get(kind) or {}) if is_card_resource(k)}
    out = {}
    for res in sorted(resources):
        app = sum(_container_cards(c, res, f"{base}.spec.containers[{i}]", src) for i, c in enumerate(containers))
        sidecars = 0
        peak_init = 0
        for i, c in enumerate(inits):
            n = _container_cards(c, res, f"{base}.spec.initContainers[{i}]", src)
            if c.get("restartPolicy") == "Always":  # sidecar: runs beside the app containers
                sidecars += n
            else:
                peak_init = max(peak_init, sidecars + n)
        total = max(app + sidecars, peak_init)
        if total:
            out[res] = total
    return out


def _owner(meta: dict) -> dict | None:
    refs = [r for r in meta.get("ownerReferences") or [] if isinstance(r, dict)]
    ctrl = [r for r in refs if r.get("controller")]
    return (ctrl or refs)[0] if refs else None


def workload_of(meta: dict, namespace: str) -> Workload:
    labels = meta.get("labels") or {}
    annotations = meta.get("annotations") or {}
    owner = _owner(meta)
    fid = annotations.get(FEDOPT_JOB_ANNOTATION)
    for key, api, kind in JOB_LABELS:
        name = labels.get(key)
        if name:
            if kind is None and owner is not None and owner.get("name") == name:
                api, kind = owner.get("apiVersion"), owner.get("kind")
            return Workload(name, namespace, api, kind, fid)
    if owner is not None and owner.get("name"):
        name, kind, api = owner["name"], owner.get("kind"), owner.get("apiVersion")
        hash_ = labels.get("pod-template-hash")
        if kind == "ReplicaSet" and hash_ and name.endswith("-" + hash_):
            name, kind, api = name[: -len(hash_) - 1], "Deployment", "apps/v1"
        return Workload(name, namespace, api, kind, fid)
    return Workload(meta.get("name") or "", namespace, "v1", "Pod", fid)


def parse_pod(obj: dict, idx: int | None, src: str) -> Pod:
    base = _index_path(idx)
    meta = _dict_at(obj, ("metadata",), base, src)
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(_key_path(base, "metadata", "name"), "a pod needs a name", src)
    namespace = meta.get("namespace") or "default"
    _str_map(obj, ("metadata", "labels"), base, src)
    _str_map(obj, ("metadata", "annotations"), base, src)
    spec = _dict_at(obj, ("spec",), base, src)
    status = _dict_at(obj, ("status",), base, src)
    return Pod(
        name=name,
        namespace=namespace,
        path=base,
        source=src,
        node=spec.get("nodeName") or None,
        phase=status.get("phase") or "Unknown",
        cards=pod_cards(spec, base, src),
        workload=workload_of(meta, namespace),
    )


def granularity_of(counts: list[int]) -> int:
    return math.gcd(*counts) if counts else 1
