"""import-k8s -> solve -> export on three clusters; every manifest validated against its real CRD."""

import json
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

import fedopt
from fedopt.cli import main
from fedopt.export import Options, export_plan
from fedopt.export.names import DNS_LABEL, Namer, dns_label, label_value
from tests.conftest import ROOT
from tests.k8s.roundtrip import HORIZON, HORIZON_PLAN

VARIANTS = {
    "karmada": [],
    "kueue": [],
    "kueue-v1beta2": ["--kueue-api", "v1beta2"],
    "kueue-single": ["--multikueue", "off"],
    "volcano": [],
    "volcano-job": ["--volcano-kind", "job", "--image", "nvcr.io/nvidia/pytorch:24.05-py3"],
}


def export(rt, variant, tmp_path, *extra):
    out = tmp_path / variant
    fmt = variant.split("-")[0]
    argv = [
        "export",
        str(rt.plan),
        "--instance",
        str(rt.instance),
        "--format",
        fmt,
        "-o",
        str(out),
        "-q",
        *VARIANTS[variant],
        *extra,
    ]
    assert main(argv) == 0
    return out


def load_dir(out: Path) -> dict[str, list[dict]]:
    """relative file path -> its YAML documents."""
    return {str(p.relative_to(out)): [d for d in yaml.safe_load_all(p.read_text()) if d] for p in sorted(out.rglob("*.yaml"))}


def plan_parts(rt) -> dict[str, list[tuple[str, str, int]]]:
    return {a.job: [(p.cluster, p.card_type, p.count) for p in a.parts] for a in rt.plan_doc.assignments}


def test_roundtrip_plan_is_valid_and_splits_a_gang(roundtrip):
    verdict = fedopt.check_plan(roundtrip.inst, roundtrip.plan_doc)
    assert verdict.ok, verdict.violations
    parts = plan_parts(roundtrip)
    assert len(parts["pretrain-70b"]) == 2  # 24 H100 over gpu-sh and gpu-sz
    assert parts["gpu-sh/team-a/llama-ft"] == [("gpu-sh", "H100", 16)]  # pinned


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_manifest_validates_against_its_crd(roundtrip, schemas, tmp_path, variant):
    out = export(roundtrip, variant, tmp_path, "--crds", str(schemas.root))  # the CLI validates before writing ...
    files = load_dir(out)
    assert files
    kinds = set()
    for path, docs in files.items():
        assert len(docs) == 1, path  # one manifest per file
        obj = docs[0]
        assert schemas.validate(obj) == [], path  # ... and so do we, on what was written
        assert DNS_LABEL.match(obj["metadata"]["name"]) and len(obj["metadata"]["name"]) <= 63
        kinds.add(obj["kind"])
    expected = {
        "karmada": {"PropagationPolicy"},
        "kueue": {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Workload"},
        "volcano": {"Queue", "PodGroup"},
    }[variant.split("-")[0]]
    if variant == "volcano-job":
        expected = {"Queue", "Job"}
    assert kinds == expected


def test_karmada_pins_clusters_and_divides_split_gangs_by_static_weights(roundtrip, tmp_path):
    files = load_dir(export(roundtrip, "karmada", tmp_path))
    policies = {d[0]["metadata"]["annotations"]["fedopt.io/job-id"]: d[0] for d in files.values()}
    parts = plan_parts(roundtrip)
    assert set(policies) == set(parts)  # one policy per placed job (none start later in a snapshot plan)
    for job, pp in policies.items():
        placement = pp["spec"]["placement"]
        assert placement["clusterAffinity"]["clusterNames"] == sorted(c for c, _, _ in parts[job])
        if len(parts[job]) == 1:
            assert placement["replicaScheduling"] == {"replicaSchedulingType": "Duplicated"}
    split = policies["pretrain-70b"]
    rs = split["spec"]["placement"]["replicaScheduling"]
    assert (rs["replicaSchedulingType"], rs["replicaDivisionPreference"]) == ("Divided", "Weighted")
    weights = {w["targetCluster"]["clusterNames"][0]: w["weight"] for w in rs["weightPreference"]["staticWeightList"]}
    cards = {c: n for c, _, n in parts["pretrain-70b"]}
    assert set(weights) == set(cards)
    total_w, total_c = sum(weights.values()), sum(cards.values())
    assert all(weights[c] * total_c == cards[c] * total_w for c in cards)  # weights in proportion to the cards
    assert split["spec"]["resourceSelectors"] == [
        {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "pretrain-70b", "namespace": "team-b"}
    ]
    llama = policies["gpu-sh/team-a/llama-ft"]["spec"]["resourceSelectors"][0]
    assert (llama["kind"], llama["name"], llama["namespace"]) == ("Job", "llama-ft", "team-a")  # the imported workload


def test_kueue_admits_planned_parts_with_their_flavor_and_cluster(roundtrip, tmp_path):
    files = load_dir(export(roundtrip, "kueue", tmp_path))
    objs = [d[0] for d in files.values()]
    flavors = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ResourceFlavor"}
    assert flavors["h100"]["spec"]["nodeLabels"] == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert flavors["910b"]["spec"]["nodeLabels"] == {"accelerator-type": "module-910b-8"}
    flavor_of = {o["metadata"]["annotations"]["fedopt.io/card-type"]: name for name, o in flavors.items()}
    parts = plan_parts(roundtrip)
    admitted = defaultdict(list)
    for o in objs:
        if o["kind"] != "Workload":
            continue
        job = o["metadata"]["annotations"]["fedopt.io/job-id"]
        if "status" in o:
            (psa,) = o["status"]["admission"]["podSetAssignments"]
            (resource, flavor), (_, usage) = next(iter(psa["flavors"].items())), next(iter(psa["resourceUsage"].items()))
            card = next(t for t, f in flavor_of.items() if f == flavor)
            admitted[job].append((o["status"]["clusterName"], card, int(usage)))
            (ps,) = o["spec"]["podSets"]
            assert ps["count"] == psa["count"]
            assert int(ps["template"]["spec"]["containers"][0]["resources"]["requests"][resource]) * ps["count"] == int(usage)
        elif job in parts:
            pytest.fail(f"placed job {job} not admitted")
    assert {j: sorted(v) for j, v in admitted.items()} == {j: sorted(v) for j, v in parts.items()}
    inactive = {
        o["metadata"]["annotations"]["fedopt.io/job-id"]
        for o in objs
        if o["kind"] == "Workload" and o["spec"].get("active") is False
    }
    assert inactive == {"gpu-bj/team-b/pangu-pt"}  # running, preempted by the plan
    # quotas: per tenant and flavor, what the plan gives the tenant
    use = defaultdict(int)
    tenant_of = {j.id: j.tenant or "default" for j in roundtrip.inst.doc.jobs}
    for job, ps in parts.items():
        for _, card, n in ps:
            use[(tenant_of[job], flavor_of[card])] += n
    for o in objs:
        if o["kind"] == "ClusterQueue":
            tenant = o["metadata"]["annotations"]["fedopt.io/tenant"]
            assert o["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "multikueue"}]}
            selected = o["spec"]["namespaceSelector"].get("matchExpressions", [{"values": None}])[0]["values"]
            queued = {
                w["metadata"]["namespace"]
                for w in objs
                if w["kind"] == "Workload" and w["spec"]["queueName"] == o["metadata"]["name"]
            }
            assert selected is None or queued <= set(selected)  # every Workload's namespace may use its queue
            for rg in o["spec"]["resourceGroups"]:
                for f in rg["flavors"]:
                    assert f["resources"][0]["nominalQuota"] == use.get((tenant, f["name"]), 0)


def test_volcano_gangs_per_cluster(roundtrip, tmp_path):
    files = load_dir(export(roundtrip, "volcano", tmp_path))
    parts = plan_parts(roundtrip)
    seen = defaultdict(list)
    queues = defaultdict(set)
    for path, (obj,) in files.items():
        cluster = path.split("/")[0]
        if obj["kind"] == "Queue":
            queues[cluster].add(obj["metadata"]["name"])
    for path, (obj,) in files.items():
        cluster = path.split("/")[0]
        if obj["kind"] == "PodGroup":
            job = obj["metadata"]["annotations"]["fedopt.io/job-id"]
            cards = int(next(iter(obj["spec"]["minResources"].values())))
            seen[job].append((cluster, cards))
            assert cards % obj["spec"]["minMember"] == 0
            assert obj["spec"]["queue"] in queues[cluster]
    assert {j: sorted(v) for j, v in seen.items()} == {j: sorted((c, n) for c, _, n in ps) for j, ps in parts.items()}


def test_exports_refuse_a_broken_plan(roundtrip, tmp_path, capsys):
    bad = json.loads(roundtrip.plan.read_text())
    bad["assignments"].append({"job": "giant", "parts": [{"cluster": "gpu-sh", "card_type": "H100", "count": 256}]})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = tmp_path / "out"
    argv = ["export", str(path), "--instance", str(roundtrip.instance), "--format", "karmada", "-o", str(out)]
    assert main(argv) == 1
    assert "rule 4" in capsys.readouterr().err and not out.exists()
    assert main([*argv, "--force", "-q"]) == 0 and out.exists()


def test_bad_input_exits_2(roundtrip, tmp_path, capsys):
    argv = [
        "export",
        str(tmp_path / "missing.json"),
        "--instance",
        str(roundtrip.instance),
        "--format",
        "kueue",
        "-o",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 2
    assert "missing.json" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["export", str(roundtrip.plan), "--instance", str(roundtrip.instance), "--format", "slurm", "-o", str(tmp_path)])
    assert exc.value.code == 2


def test_multi_doc_writes_one_stream_per_target(roundtrip, tmp_path):
    out = export(roundtrip, "volcano", tmp_path, "--multi-doc")
    files = load_dir(out)
    assert sorted(files) == ["gpu-bj/manifests.yaml", "gpu-sh/manifests.yaml", "gpu-sz/manifests.yaml"]
    assert all(len(docs) >= 2 for docs in files.values())


@pytest.mark.parametrize("fmt", ["karmada", "kueue", "volcano"])
def test_instances_without_k8s_fields_export_with_defaults(fmt, schemas):
    inst = fedopt.load_instance(ROOT / "instances" / "examples" / "fleet-s.json")
    raw = json.loads((ROOT / "instances" / "examples" / "fleet-s.json").read_text())
    result = fedopt.solve(inst)
    manifests, _ = export_plan(inst, raw, result.to_doc(), fmt, Options(timestamp="2026-12-01T00:00:00Z"))
    assert manifests
    for m in manifests:
        assert schemas.validate(m.obj) == [], m.filename()
    if fmt == "kueue":
        flavors = {m.name: m.obj["spec"]["nodeLabels"] for m in manifests if m.kind == "ResourceFlavor"}
        assert flavors["h800"] == {"nvidia.com/gpu.product": "NVIDIA-H800"}
        assert flavors["910b"] == {"accelerator-type": "module-910b-8"}
        # tenants' namespaces are named after them
        assert {m.namespace for m in manifests if m.kind == "Workload"} <= {dns_label(t) for t in inst.tenant_ids} | {"default"}


def test_validation_is_strict(roundtrip, schemas, tmp_path):
    files = load_dir(export(roundtrip, "kueue", tmp_path))
    cq = next(d[0] for d in files.values() if d[0]["kind"] == "ClusterQueue")
    cq["spec"]["cohortt"] = "typo"
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"].append({"name": "cpu", "nominalQuota": 1})
    cq["metadata"]["namespace"] = "team-a"
    errors = "\n".join(schemas.validate(cq))
    assert "'cohortt' was unexpected" in errors
    assert "must list every covered resource" in errors  # a CEL rule of the CRD
    assert "cluster-scoped object has no namespace" in errors
    wl = next(d[0] for d in files.values() if d[0]["kind"] == "Workload")
    wl["spec"]["podSets"][0]["name"] = "Main_Set"
    wl["metadata"]["labels"]["fedopt.io/job"] = "not a label value"
    errors = "\n".join(schemas.validate(wl))
    assert "spec.podSets.0.name" in errors and "label value" in errors
    assert schemas.validate({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "x"}})[0].startswith(
        "Thing/x: no CRD"
    )


def test_names():
    assert dns_label("gpu-sh/team-a/llama-ft") == "gpu-sh-team-a-llama-ft"
    long = dns_label("x" * 100)
    assert len(long) == 63 and DNS_LABEL.match(long)
    assert label_value("gpu-sh/team-a/llama-ft") != label_value("gpu-sh/team-a/llama_ft")
    assert label_value("job-00001") == "job-00001"
    namer = Namer()
    a, b = namer("job", "A.B"), namer("job", "a-b")
    assert a != b and DNS_LABEL.match(a) and DNS_LABEL.match(b)
    assert namer("job", "A.B") == a  # stable


def test_horizon_plans_export_what_starts_now(schemas):
    inst = fedopt.parse_instance(HORIZON)
    plan = fedopt.instance.schema.PlanDoc.model_validate(HORIZON_PLAN)
    karmada, _ = export_plan(inst, HORIZON, plan, "karmada")
    assert [m.obj["metadata"]["annotations"]["fedopt.io/job-id"] for m in karmada] == ["a"]
    kueue, _ = export_plan(inst, HORIZON, plan, "kueue", Options(timestamp="2026-12-01T00:00:00Z"))
    workloads = {m.obj["metadata"]["annotations"]["fedopt.io/job-id"]: m.obj for m in kueue if m.kind == "Workload"}
    assert "status" in workloads["a"] and "clusterName" not in workloads["a"]["status"]  # one cluster: no MultiKueue
    for later in ("b", "c"):
        assert workloads[later]["spec"]["active"] is False and "status" not in workloads[later]
        assert workloads[later]["metadata"]["annotations"]["fedopt.io/start-slot"] == "2"
    assert "status" not in workloads["d"] and "active" not in workloads["d"]["spec"]  # pending: queued
    for m in karmada + kueue:
        assert schemas.validate(m.obj) == []
