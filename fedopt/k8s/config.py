"""The user's fleet file for ``import-k8s``: what node and pod objects do not say.

YAML or JSON, every key optional::

    name: my-fleet
    regions: [sh, bj]                    # or [{id: sh}]; cluster regions are added
    links: [{a: sh, b: bj, gbps: 100, latency_ms: 24, egress_per_gb: 0.02}]
    clusters:                            # per --cluster NAME
      gpu-sh: {region: sh, storage_gbps: 400, card_type: H100}   # card_type: for unlabelled nodes
    products: {"NVIDIA-GeForce-RTX-4090": L40}   # product label value -> catalog or card_types id
    product_labels: [example.com/gpu-model]       # extra node label keys naming the product
    card_types: [{id: X, vendor, stack, memory_gb, bf16_tflops, mem_bw_gbs, ...}]  # not in the catalog
    datasets: [{id: c4, size_gb: 800, replicas: [sh]}]
    tenants: [{id: team-a, quota_cards: 64, namespaces: [team-a, team-a-dev]}]
    job_defaults: {priority: 1, preemptible: true, profile: {tflop_per_unit: 1.0}}  # for running jobs
    jobs: [...]                          # model-v1 jobs: pending ones, or completions of running ones
    settings: {...}                      # model-v1 settings
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import yaml

from fedopt.errors import InputError
from fedopt.instance.io import read_bytes

KEYS = (
    "name",
    "regions",
    "links",
    "clusters",
    "products",
    "product_labels",
    "card_types",
    "datasets",
    "tenants",
    "job_defaults",
    "jobs",
    "settings",
)
CLUSTER_KEYS = ("region", "storage_gbps", "card_type")


@dataclass
class FleetConfig:
    source: str | None = None
    name: str | None = None
    regions: list[str] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    clusters: dict[str, dict] = field(default_factory=dict)
    products: dict[str, str] = field(default_factory=dict)
    product_labels: tuple[str, ...] = ()
    card_types: list[dict] = field(default_factory=list)
    datasets: list[dict] = field(default_factory=list)
    tenants: list[dict] = field(default_factory=list)
    job_defaults: dict = field(default_factory=dict)
    jobs: list[dict] = field(default_factory=list)
    settings: dict = field(default_factory=dict)


def _list_of_dicts(value, path: str, src: str | None) -> list[dict]:
    if not isinstance(value, list):
        raise InputError(path, f"expected a list, got {type(value).__name__}", src)
    for i, v in enumerate(value):
        if not isinstance(v, dict):
            raise InputError(f"{path}[{i}]", f"expected an object, got {v!r}"[:120], src)
    return value


def parse_config(doc, src: str | None = None) -> FleetConfig:
    if doc is None:
        return FleetConfig(source=src)
    if not isinstance(doc, dict):
        raise InputError("", "the fleet file must be a mapping (YAML) or object (JSON)", src)
    for k in doc:
        if k not in KEYS:
            raise InputError(str(k), f"unknown key; expected one of {', '.join(KEYS)}", src)
    cfg = FleetConfig(source=src)
    if doc.get("name") is not None:
        if not isinstance(doc["name"], str) or not doc["name"]:
            raise InputError("name", "expected a non-empty string", src)
        cfg.name = doc["name"]
    for i, r in enumerate(doc.get("regions") or []):
        rid = r.get("id") if isinstance(r, dict) else r
        if not isinstance(rid, str) or not rid:
            raise InputError(f"regions[{i}]", "expected a region id or {id: ...}", src)
        cfg.regions.append(rid)
    for key in ("links", "card_types", "datasets", "tenants", "jobs"):
        if doc.get(key) is not None:
            setattr(cfg, key, _list_of_dicts(doc[key], key, src))
    clusters = doc.get("clusters") or {}
    if not isinstance(clusters, dict):
        raise InputError("clusters", "expected a mapping of cluster name to {region, storage_gbps, card_type}", src)
    for name, c in clusters.items():
        if not isinstance(c, dict):
            raise InputError(f"clusters.{name}", "expected an object", src)
        for k in c:
            if k not in CLUSTER_KEYS:
                raise InputError(f"clusters.{name}.{k}", f"unknown key; expected one of {', '.join(CLUSTER_KEYS)}", src)
        if "region" in c and (not isinstance(c["region"], str) or not c["region"]):
            raise InputError(f"clusters.{name}.region", "expected a region id", src)
    cfg.clusters = {str(k): v for k, v in clusters.items()}
    products = doc.get("products") or {}
    if not isinstance(products, dict) or not all(isinstance(v, str) for v in products.values()):
        raise InputError("products", "expected a mapping of product label value to card type id", src)
    cfg.products = {str(k): v for k, v in products.items()}
    labels = doc.get("product_labels") or []
    if not isinstance(labels, list) or not all(isinstance(v, str) for v in labels):
        raise InputError("product_labels", "expected a list of node label keys", src)
    cfg.product_labels = tuple(labels)
    for key in ("job_defaults", "settings"):
        v = doc.get(key)
        if v is not None and not isinstance(v, dict):
            raise InputError(key, "expected an object", src)
        setattr(cfg, key, v or {})
    for i, t in enumerate(cfg.tenants):
        ns = t.get("namespaces")
        if ns is not None and (not isinstance(ns, list) or not all(isinstance(n, str) for n in ns)):
            raise InputError(f"tenants[{i}].namespaces", "expected a list of namespace names", src)
    return cfg


def load_config(path: str | os.PathLike | None) -> FleetConfig:
    if path is None:
        return FleetConfig()
    src = str(path)
    data = read_bytes(path)
    try:
        doc = json.loads(data)
    except ValueError:
        try:
            doc = yaml.safe_load(data)
        except yaml.YAMLError as exc:
            raise InputError("", f"neither JSON nor YAML: {exc}", src) from None
    return parse_config(doc, src)
