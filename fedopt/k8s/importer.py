"""Build a model-v1 instance from node and pod dumps of several clusters and the user's fleet file.

- A *pool* is (cluster, card type): the allocatable cards of the cluster's schedulable, ready
  nodes. ``cards_per_node`` is the most common count per node (ties: the larger).
- The card type comes from the node's product label (see :mod:`fedopt.k8s.products`) and the
  catalog; the instance id is the catalog's short alias where it has one (``H100``), else its id.
- Pods bound to a counted node that request cards are grouped into *running jobs* by their job
  label or controller (:data:`fedopt.k8s.kube.JOB_LABELS`); the job id is
  ``CLUSTER/NAMESPACE/NAME`` (or the ``fedopt.io/job-id`` annotation, which joins the parts of one
  job in several clusters). A job's cards on one card type in one cluster are one part.
- A job whose pods hold cards of two types cannot be a model-v1 job: its cards are taken out of
  the pools (they are busy) and a warning says so.

The instance keeps what exports need as ``k8s`` fields (extensions model-v1 ignores):
card types get ``{resource, node_labels}``, running jobs ``{namespace, name, api_version, kind}``.
"""

from __future__ import annotations

import copy
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from fedopt.errors import InputError, InputErrors
from fedopt.k8s.config import FleetConfig
from fedopt.k8s.kube import Node, granularity_of, parse_node, parse_pod, read_objects
from fedopt.k8s.products import match_product, product_of_node
from fedopt.normalize.cards import CardResolver
from fedopt.normalize.catalog import load_catalog

DEFAULT_PROFILE = {"tflop_per_unit": 1.0}  # compute-bound: rates follow the cards' BF16 TFLOPS


@dataclass
class ClusterDump:
    name: str
    nodes: Path
    pods: Path | None = None


@dataclass
class ImportResult:
    doc: dict
    warnings: list[str] = field(default_factory=list)
    nodes: dict[str, Counter] = field(default_factory=dict)  # cluster -> {"counted": n, reason: n}
    running: int = 0
    held: int = 0  # cards taken out of pools for jobs fedopt cannot model


def parse_cluster_arg(text: str) -> ClusterDump:
    """``NAME=nodes.json[,pods.json]`` as given to ``--cluster``."""
    name, sep, files = text.partition("=")
    if not sep or not name.strip() or not files.strip():
        raise InputError("--cluster", f"expected NAME=nodes.json[,pods.json], got {text!r}")
    parts = [f for f in files.split(",") if f]
    if len(parts) > 2:
        raise InputError("--cluster", f"{name}: at most two files (nodes, pods), got {len(parts)}")
    return ClusterDump(name.strip(), Path(parts[0]), Path(parts[1]) if len(parts) > 1 else None)


class _CardTypes:
    """Resolves product strings and card names to instance card types, adding them on first use."""

    def __init__(self, cfg: FleetConfig):
        self.catalog = load_catalog()
        self.resolver = CardResolver(catalog=self.catalog)  # one for every node's product label
        self.cfg = cfg
        self.custom = {}
        for i, ct in enumerate(cfg.card_types):
            if not isinstance(ct.get("id"), str) or not ct["id"]:
                raise InputError(f"card_types[{i}].id", "a card type needs an id", cfg.source)
            self.custom[ct["id"]] = ct
        self.short: dict[str, str] = {}  # catalog id -> its shortest alias (H100-SXM-80GB -> H100)
        for alias, entry in sorted(self.catalog.items(), key=lambda kv: (len(kv[0]), kv[0])):
            if alias != entry["id"] and entry["id"] not in self.short:
                self.short[entry["id"]] = alias
        self.types: dict[str, dict] = {}  # instance id -> CardType dict (ordered by first use)
        self.hints: dict[str, Counter] = defaultdict(Counter)  # instance id -> (resource, label, value) counts

    def resolve(self, name: str) -> str | None:
        """Instance id of a card name (config id, catalog id, alias or product string), or None."""
        if name in self.custom:
            return self._add_custom(name)
        cid = self.cfg.products.get(name)
        if cid is not None and cid in self.custom:
            return self._add_custom(cid)
        cid = match_product(cid or name, self.catalog, self.resolver)
        return None if cid is None else self._add_catalog(cid)

    def _add_custom(self, name: str) -> str:
        if name not in self.types:
            self.types[name] = dict(self.custom[name])
        return name

    def _add_catalog(self, cid: str) -> str:
        tid = self.short.get(cid, cid)
        if tid in self.custom:  # a config entry of that name overrides the catalog's figures
            return self._add_custom(tid)
        if tid not in self.types:
            entry = self.catalog[cid]
            if not entry.get("complete"):
                raise InputError(
                    "card_types", f"catalog entry {cid} lacks figures; give it in the fleet file's card_types", self.cfg.source
                )
            ct = {k: entry[k] for k in ("vendor", "stack", "memory_gb", "bf16_tflops", "mem_bw_gbs")}
            ct.update({k: entry[k] for k in ("scaleup_gbs", "power_w") if entry.get(k) is not None})
            self.types[tid] = {"id": tid, **ct, "catalog_id": cid}
        return tid

    def of_node(self, node: Node, resource: str, cluster: str) -> str:
        m = product_of_node(node.labels, resource, self.catalog, self.cfg.products, self.cfg.product_labels, self.resolver)
        tid = None
        if m.catalog_id is not None:
            tid = self._add_custom(m.catalog_id) if m.catalog_id in self.custom else self.resolve(m.catalog_id)
        if tid is None and m.value is None:
            fallback = self.cfg.clusters.get(cluster, {}).get("card_type")
            if fallback is not None:
                tid = self.resolve(fallback)
                if tid is None:
                    raise InputError(f"clusters.{cluster}.card_type", f"unknown card type {fallback!r}", self.cfg.source)
        if tid is None:
            if m.value is None:
                why = (
                    f"has {resource} cards but no label naming their product; set clusters.{cluster}.card_type in the fleet file"
                )
            else:
                why = (
                    f"product {m.value!r} (label {m.label}) is not in the catalog; map it in the fleet file: "
                    f"products: {{{m.value!r}: CARD_TYPE}}"
                )
            raise InputError(f"{node.path}.metadata.labels".lstrip("."), why, node.source)
        if m.label and m.label != "resource":
            self.hints[tid][(resource, m.label, m.value)] += node.cards[resource]
        else:
            self.hints[tid][(resource, None, None)] += node.cards[resource]
        return tid

    def finished(self) -> list[dict]:
        out = []
        for tid, ct in self.types.items():
            ct = dict(ct)
            hints = self.hints.get(tid)
            if hints:
                (resource, label, value), _ = max(hints.items(), key=lambda kv: (kv[1], str(kv[0])))
                ct["k8s"] = {"resource": resource, "node_labels": {label: value} if label else {}}
            out.append(ct)
        return out


def _apply(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = copy.deepcopy(v)
    return out


def import_fleet(dumps: list[ClusterDump], cfg: FleetConfig, name: str | None = None) -> ImportResult:
    """The instance document (a dict in model-v1 form) of the dumped clusters and the fleet file."""
    if not dumps:
        raise InputError("--cluster", "give at least one cluster")
    seen = set()
    for d in dumps:
        if d.name in seen:
            raise InputError("--cluster", f"cluster {d.name!r} given twice")
        seen.add(d.name)
    for cname in cfg.clusters:
        if cname not in seen:
            raise InputError(f"clusters.{cname}", "no --cluster of that name", cfg.source)
    res = ImportResult(doc={})
    types = _CardTypes(cfg)
    clusters: list[dict] = []
    pool_counts: dict[tuple[str, str], list[int]] = {}
    nodes_of: dict[str, dict[str, Node]] = {}
    running: dict[str, dict] = {}  # job id -> {"parts": {(cluster, type): cards}, "pods": [...], "workload": ...}

    for d in dumps:
        over = cfg.clusters.get(d.name, {})
        nodes = [parse_node(obj, i, str(d.nodes)) for i, obj in read_objects(d.nodes, "Node")]
        by_name: dict[str, Node] = {}
        tally: Counter = Counter()
        regions: Counter = Counter()
        for n in nodes:
            if n.name in by_name:
                raise InputError(f"{n.path}.metadata.name".lstrip("."), f"node {n.name!r} listed twice", n.source)
            by_name[n.name] = n
            if n.region:
                regions[n.region] += 1
            if n.excluded:
                tally[n.excluded.split(" (")[0]] += 1
                continue
            tally["counted"] += 1
            for resource in n.cards:
                tid = types.of_node(n, resource, d.name)
                n.card_type[resource] = tid
                pool_counts.setdefault((d.name, tid), []).append(n.cards[resource])
        nodes_of[d.name] = by_name
        res.nodes[d.name] = tally
        region = over.get("region")
        if region is None:
            if len(regions) > 1:
                raise InputError(
                    f"--cluster {d.name}",
                    f"nodes name {len(regions)} regions ({', '.join(sorted(regions))}); a cluster lies in one: "
                    f"set clusters.{d.name}.region in the fleet file",
                )
            if not regions:
                raise InputError(
                    f"--cluster {d.name}",
                    f"no node has a topology.kubernetes.io/region label; set clusters.{d.name}.region in the fleet file",
                )
            region = next(iter(regions))
        cluster = {"id": d.name, "region": region}
        if over.get("storage_gbps") is not None:
            cluster["storage_gbps"] = over["storage_gbps"]
        clusters.append(cluster)

        if d.pods is None:
            continue
        for i, obj in read_objects(d.pods, "Pod"):
            pod = parse_pod(obj, i, str(d.pods))
            if not pod.holds_cards:
                continue
            node = by_name.get(pod.node or "")
            where = f"{d.name}: pod {pod.namespace}/{pod.name}"
            if node is None:
                res.warnings.append(f"{where} is bound to node {pod.node!r}, not in the node dump; its cards are ignored")
                continue
            if node.excluded:
                res.warnings.append(f"{where} runs on node {node.name}, not counted ({node.excluded}); its cards are ignored")
                continue
            w = pod.workload
            jid = w.federated_id or f"{d.name}/{w.namespace}/{w.name}"
            job = running.setdefault(jid, {"parts": Counter(), "pods": [], "workload": w, "clusters": set()})
            for resource, count in pod.cards.items():
                held_type = node.card_type.get(resource)
                if held_type is None:
                    res.warnings.append(f"{where} requests {count} {resource} but node {node.name} has none allocatable; ignored")
                    continue
                job["parts"][(d.name, held_type)] += count
                job["pods"].append(count)

    # pools
    pool_cards = {k: sum(v) for k, v in pool_counts.items()}
    jobs: list[dict] = []
    origins: list[str] = []
    for jid, job in running.items():
        parts = job["parts"]
        if not parts:
            continue
        if len({t for _, t in parts}) > 1:
            detail = ", ".join(f"{n} {t} in {c}" for (c, t), n in sorted(parts.items()))
            res.warnings.append(
                f"job {jid} holds cards of several types ({detail}); not a model-v1 job: its cards are marked busy"
            )
            for key, n in parts.items():
                pool_cards[key] -= n
                res.held += n
            continue
        w = job["workload"]
        total = sum(parts.values())
        cluster_region = {c["id"]: c["region"] for c in clusters}
        tid = next(iter(parts))[1]
        entry = {
            "id": jid,
            "cards": total,
            "granularity": granularity_of(job["pods"]),
            "stack": types.types[tid]["stack"],
            "running": {"parts": [{"cluster": c, "card_type": t, "count": n} for (c, t), n in sorted(parts.items())]},
            "k8s": {
                "namespace": w.namespace,
                "name": w.name,
                "api_version": w.api_version,
                "kind": w.kind,
                "pods": len(job["pods"]),
            },
        }
        if len(parts) > 1:
            regions_used = {cluster_region[c] for c, _ in parts}
            entry["split"] = {"max_parts": len(parts), "scope": "federation" if len(regions_used) > 1 else "region"}
        tenant = _tenant_of(w.namespace, cfg.tenants)
        if tenant is not None:
            entry["tenant"] = tenant
        entry = _apply(entry, cfg.job_defaults)
        jobs.append(entry)
        origins.append(f"pods of job {jid}")
        res.running += 1

    # the fleet file's jobs: completions of running jobs, or pending jobs
    by_id = {j["id"]: k for k, j in enumerate(jobs)}
    for i, cj in enumerate(cfg.jobs):
        job_id = cj.get("id")
        if job_id in by_id:
            k = by_id[job_id]
            jobs[k] = _apply(jobs[k], {key: v for key, v in cj.items() if key != "running"})
            origins[k] = f"jobs[{i}] (with the pods of job {job_id})"
        else:
            jobs.append(copy.deepcopy(cj))
            origins.append(f"jobs[{i}]")
    for k, job in enumerate(jobs):
        _resolve_job_types(job, types, origins[k], cfg.source)
        if "throughput" not in job and "profile" not in job:
            job["profile"] = dict(DEFAULT_PROFILE)
    settings = copy.deepcopy(cfg.settings)
    if isinstance(settings.get("reference_card"), str):
        ref = types.resolve(settings["reference_card"])
        if ref is None:
            raise InputError("settings.reference_card", f"unknown card type {settings['reference_card']!r}", cfg.source)
        settings["reference_card"] = ref

    for c in clusters:
        c["pools"] = []
        for (cname, tid), counts in pool_counts.items():
            if cname == c["id"]:
                per_node = Counter(counts)
                cpn = max(per_node, key=lambda n: (per_node[n], n))
                c["pools"].append({"card_type": tid, "cards": max(pool_cards[(cname, tid)], 0), "cards_per_node": cpn})

    region_ids = list(dict.fromkeys([*cfg.regions, *(c["region"] for c in clusters)]))
    doc = {
        "version": 1,
        "name": name or cfg.name or "k8s-fleet",
        "card_types": types.finished(),
        "regions": [{"id": r} for r in region_ids],
        "links": copy.deepcopy(cfg.links),
        "clusters": clusters,
        "datasets": copy.deepcopy(cfg.datasets),
        "tenants": copy.deepcopy(cfg.tenants),
        "jobs": jobs,
        "settings": settings,
    }
    if not doc["card_types"]:
        raise InputError(
            "--cluster", "no node of any cluster has accelerator cards (nvidia.com/gpu, huawei.com/Ascend910, amd.com/gpu ...)"
        )
    _validate(doc, origins, cfg.source)
    res.doc = doc
    return res


def _tenant_of(namespace: str, tenants: list[dict]) -> str | None:
    for t in tenants:
        if namespace in (t.get("namespaces") or [t.get("id")]):
            return t.get("id")
    return None


def _resolve_job_types(job: dict, types: _CardTypes, origin: str, src: str | None) -> None:
    """Card names in a job (catalog ids, aliases, product strings) -> the instance's card type ids."""
    if isinstance(job.get("card_types"), list):
        out = []
        for k, name in enumerate(job["card_types"]):
            tid = types.resolve(name) if isinstance(name, str) else None
            if tid is None:
                raise InputError(f"{origin}.card_types[{k}]", f"unknown card type {name!r}", src)
            out.append(tid)
        job["card_types"] = out
    if isinstance(job.get("throughput"), dict):
        rates = {}
        for name, rate in job["throughput"].items():
            tid = types.resolve(name)
            if tid is None:
                raise InputError(f"{origin}.throughput.{name}", f"unknown card type {name!r}", src)
            rates[tid] = rate
        job["throughput"] = rates


def _validate(doc: dict, origins: list[str], src: str | None) -> None:
    """Load the built document; errors point back to the fleet file or the pods they came from."""
    from fedopt.instance import parse_instance

    try:
        parse_instance(doc)
    except InputErrors as exc:
        raise InputErrors([_origin_error(e, origins, src) for e in exc.errors]) from None
    except InputError as exc:
        raise _origin_error(exc, origins, src) from None


def _origin_error(e: InputError, origins: list[str], src: str | None) -> InputError:
    import re

    path = e.path or ""
    m = re.match(r"jobs\[(\d+)\](.*)", path)
    if m:
        path = origins[int(m.group(1))] + m.group(2)
    elif path.startswith("clusters["):
        path = "--cluster " + path
    where = f"{src}: " if src and not path.startswith(("pods", "--cluster")) else ""
    return InputError(f"{where}{path}", e.reason)
