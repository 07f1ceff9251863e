"""Check manifests against the CRDs' own schemas, strictly (unknown fields rejected), like a dry run.

The schema of a manifest is ``spec.versions[name == version].schema.openAPIV3Schema`` of the CRD
whose group and kind match its ``apiVersion`` and ``kind``, with ``additionalProperties: false``
added to every object schema that lists its properties (the API server prunes unknown fields;
a plain validator would let a misspelled field through). Beside the schema:

- ``metadata``: ``name`` a DNS-1123 subdomain (a label where the kind needs one), ``namespace``
  a DNS-1123 label and present exactly for namespaced kinds, labels valid;
- the CEL rules of these CRDs that exported objects can break (Kueue: a flavor lists every
  covered resource; admitted Workloads assign every podSet; ``clusterName`` excludes
  ``nominatedClusterNames``; ``minCount <= count``).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import yaml

from fedopt.export.names import DNS_LABEL, DNS_SUBDOMAIN, label_errors

DEFAULT_CRDS = Path(__file__).resolve().parents[3] / "shared" / "data" / "crds"


def crd_dir() -> Path | None:
    """``$FEDOPT_CRDS``, else the shared CRD folder beside the project, if present."""
    env = os.environ.get("FEDOPT_CRDS")
    for p in [Path(env)] if env else [DEFAULT_CRDS]:
        if p.is_dir():
            return p
    return None


def strict(schema):
    """A copy of ``schema`` with ``additionalProperties: false`` on every object listing properties."""
    schema = copy.deepcopy(schema)

    def walk(s):
        if isinstance(s, list):
            for x in s:
                walk(x)
            return
        if not isinstance(s, dict):
            return
        if "properties" in s and "additionalProperties" not in s and not s.get("x-kubernetes-preserve-unknown-fields"):
            s["additionalProperties"] = False
        for key in ("properties", "patternProperties"):
            for sub in (s.get(key) or {}).values():
                walk(sub)
        for key in ("items", "additionalProperties", "not"):
            if isinstance(s.get(key), dict):
                walk(s[key])
        for key in ("allOf", "anyOf", "oneOf"):
            walk(s.get(key) or [])

    walk(schema)
    return schema


@dataclass
class CRD:
    group: str
    kind: str
    scope: str
    versions: dict[str, dict]  # version -> openAPIV3Schema (strict)
    served: set[str] = field(default_factory=set)
    _validators: dict = field(default_factory=dict)

    def validator(self, version: str):
        if version not in self._validators:
            import jsonschema

            self._validators[version] = jsonschema.Draft7Validator(self.versions[version])
        return self._validators[version]


class Schemas:
    """The CRDs of a folder (``*.yaml`` under it), by (group, kind)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    @cached_property
    def crds(self) -> dict[tuple[str, str], CRD]:
        out = {}
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        for path in sorted(self.root.rglob("*.yaml")):
            with open(path) as fh:
                for doc in yaml.load_all(fh, Loader=loader):
                    if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                        continue
                    spec = doc["spec"]
                    versions = {v["name"]: strict(v["schema"]["openAPIV3Schema"]) for v in spec["versions"] if "schema" in v}
                    served = {v["name"] for v in spec["versions"] if v.get("served")}
                    crd = CRD(spec["group"], spec["names"]["kind"], spec.get("scope", "Namespaced"), versions, served)
                    out[(crd.group, crd.kind)] = crd
        return out

    def crd_of(self, obj: dict) -> tuple[CRD | None, str]:
        group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
        return self.crds.get((group, str(obj.get("kind")))), version

    def validate(self, obj: dict) -> list[str]:
        """Every problem found, as ``where: what`` lines; empty when the object is valid."""
        kind = obj.get("kind")
        name = (obj.get("metadata") or {}).get("name")
        where = f"{kind}/{name}"
        crd, version = self.crd_of(obj)
        if crd is None:
            return [f"{where}: no CRD for apiVersion {obj.get('apiVersion')!r} kind {kind!r} in {self.root}"]
        if version not in crd.versions:
            return [f"{where}: {crd.group} has no schema for version {version!r} (has {', '.join(sorted(crd.versions))})"]
        errors = []
        if version not in crd.served:
            errors.append(f"{where}: version {version} is not served")
        errors += metadata_errors(obj, crd.scope == "Namespaced", label_name=kind in LABEL_NAMED)
        for e in sorted(crd.validator(version).iter_errors(obj), key=lambda e: list(e.absolute_path)):
            path = ".".join(str(p) for p in e.absolute_path) or "(root)"
            errors.append(f"{where}: {path}: {e.message}")
        errors += [f"{where}: {m}" for m in cel_errors(crd.group, str(kind), obj)]
        return errors


# Kinds whose names end up in labels or pod names and so must be DNS-1123 labels.
LABEL_NAMED = {"Queue", "PodGroup", "Job", "ResourceFlavor", "ClusterQueue", "LocalQueue", "Workload"}


def metadata_errors(obj: dict, namespaced: bool, label_name: bool = False) -> list[str]:
    where = f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [f"{where}: metadata is missing"]
    out = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        out.append(f"{where}: metadata.name is missing")
    elif label_name and (len(name) > 63 or not DNS_LABEL.match(name)):
        out.append(f"{where}: metadata.name {name!r} is not a DNS-1123 label")
    elif len(name) > 253 or not DNS_SUBDOMAIN.match(name):
        out.append(f"{where}: metadata.name {name!r} is not a DNS-1123 subdomain")
    ns = meta.get("namespace")
    if namespaced and not ns:
        out.append(f"{where}: a namespaced object needs metadata.namespace")
    if not namespaced and ns:
        out.append(f"{where}: a cluster-scoped object has no namespace")
    if ns and (not isinstance(ns, str) or len(ns) > 63 or not DNS_LABEL.match(ns)):
        out.append(f"{where}: metadata.namespace {ns!r} is not a DNS-1123 label")
    out += label_errors(meta.get("labels") or {}, f"{where}: metadata.labels")
    for k, v in (meta.get("annotations") or {}).items():
        if not isinstance(v, str):
            out.append(f"{where}: annotation {k!r} must be a string")
    for k in meta:
        if k not in ("name", "namespace", "labels", "annotations", "generateName", "finalizers", "ownerReferences"):
            out.append(f"{where}: metadata.{k} is not for manifests")
    return out


def cel_errors(group: str, kind: str, obj: dict) -> list[str]:
    """The CEL rules (x-kubernetes-validations) of these CRDs that exports could break."""
    out = []
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    if group == "kueue.x-k8s.io" and kind == "ClusterQueue":
        for i, rg in enumerate(spec.get("resourceGroups") or []):
            for f in rg.get("flavors") or []:
                if len(f.get("resources") or []) != len(rg.get("coveredResources") or []):
                    out.append(f"spec.resourceGroups[{i}]: flavor {f.get('name')} must list every covered resource")
        if not spec.get("cohort") and not spec.get("cohortName"):
            for rg in spec.get("resourceGroups") or []:
                for f in rg.get("flavors") or []:
                    if any("borrowingLimit" in r for r in f.get("resources") or []):
                        out.append("spec: borrowingLimit needs a cohort")
    if group == "kueue.x-k8s.io" and kind == "Workload":
        conds = status.get("conditions") or []
        reserved = any(c.get("type") == "QuotaReserved" and c.get("status") == "True" for c in conds)
        assignments = (status.get("admission") or {}).get("podSetAssignments") or []
        if reserved and "admission" in status and len(spec.get("podSets") or []) != len(assignments):
            out.append("status.admission: one podSetAssignment per podSet")
        if status.get("clusterName") and status.get("nominatedClusterNames"):
            out.append("status: clusterName and nominatedClusterNames exclude each other")
        for i, ps in enumerate(spec.get("podSets") or []):
            if "minCount" in ps and ps["minCount"] > ps.get("count", 1):
                out.append(f"spec.podSets[{i}]: minCount > count")
        if spec.get("priorityClassName") and "priority" not in spec:
            out.append("spec: priorityClassName needs priority")
    return out
