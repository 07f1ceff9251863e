"""import-k8s on dumps made with the Kubernetes client's own models."""

import json

import pytest
import yaml

import fedopt
from fedopt.cli import main
from fedopt.errors import InputError
from fedopt.k8s import ClusterDump, import_fleet, parse_cluster_arg, parse_config
from tests.k8s.fleet import API, FLEET, H100, _list, node, pod, write_fleet


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    args, cfg = write_fleet(tmp)
    out = tmp / "instance.json"
    argv = ["import-k8s", *(x for a in args for x in ("--cluster", a)), "--config", str(cfg), "-o", str(out)]
    assert main(argv) == 0
    return json.loads(out.read_text()), out


def pools(doc):
    return {(c["id"], p["card_type"]): (p["cards"], p["cards_per_node"]) for c in doc["clusters"] for p in c["pools"]}


def test_pools_count_ready_schedulable_nodes_only(fleet):
    doc, path = fleet
    # gpu-sh: 4 H100 nodes, one cordoned -> 24; 2 A100 nodes, one NotReady -> 8; the CPU node adds nothing
    assert pools(doc) == {
        ("gpu-sh", "H100"): (24, 8),
        ("gpu-sh", "A100"): (8, 8),
        ("gpu-bj", "910B"): (16, 8),
        ("gpu-bj", "A100"): (16, 8),
        ("gpu-sz", "MI300X"): (16, 8),
        ("gpu-sz", "H100"): (16, 8),
    }
    assert {c["id"]: c["region"] for c in doc["clusters"]} == {
        "gpu-sh": "cn-shanghai",
        "gpu-bj": "cn-beijing",
        "gpu-sz": "cn-shenzhen",
    }
    assert doc["clusters"][0]["storage_gbps"] == 400
    inst = fedopt.load_instance(path)  # the output loads as a model-v1 instance
    assert inst.cluster_ids == ["gpu-sh", "gpu-bj", "gpu-sz"]


def test_card_types_come_from_the_catalog_with_their_node_labels(fleet):
    doc, _ = fleet
    types = {t["id"]: t for t in doc["card_types"]}
    assert set(types) == {"H100", "A100", "910B", "MI300X"}
    assert types["H100"]["bf16_tflops"] == 989 and types["H100"]["memory_gb"] == 80 and types["H100"]["stack"] == "cuda"
    assert types["910B"]["vendor"] == "huawei" and types["910B"]["stack"] == "cann"
    assert types["MI300X"]["stack"] == "rocm" and types["MI300X"]["memory_gb"] == 192
    assert types["H100"]["k8s"] == {
        "resource": "nvidia.com/gpu",
        "node_labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
    }
    assert types["910B"]["k8s"] == {"resource": "huawei.com/Ascend910", "node_labels": {"accelerator-type": "module-910b-8"}}
    assert types["MI300X"]["k8s"]["resource"] == "amd.com/gpu"


def test_running_jobs_group_pods_by_job_label_and_owner(fleet):
    doc, _ = fleet
    running = {j["id"]: j for j in doc["jobs"] if "running" in j}
    # stuck-0 runs on the NotReady node, queued-0 is unbound, done-0 succeeded, coredns asks no GPU
    assert set(running) == {"gpu-sh/team-a/llama-ft", "gpu-bj/team-b/pangu-pt", "gpu-bj/team-a/bert", "gpu-sz/serving/vllm-serve"}
    llama = running["gpu-sh/team-a/llama-ft"]
    assert llama["running"]["parts"] == [{"cluster": "gpu-sh", "card_type": "H100", "count": 16}]
    assert (llama["cards"], llama["granularity"], llama["stack"], llama["tenant"]) == (16, 8, "cuda", "team-a")
    assert llama["preemptible"] is False and llama["priority"] == 2  # completed by the fleet file's entry
    assert llama["k8s"] == {"namespace": "team-a", "name": "llama-ft", "api_version": "batch/v1", "kind": "Job", "pods": 2}
    pangu = running["gpu-bj/team-b/pangu-pt"]
    assert pangu["k8s"]["api_version"] == "batch.volcano.sh/v1alpha1" and pangu["running"]["parts"][0]["card_type"] == "910B"
    bert = running["gpu-bj/team-a/bert"]
    assert (bert["cards"], bert["granularity"], bert["k8s"]["kind"]) == (8, 4, "PyTorchJob")  # master + worker, 4 each
    vllm = running["gpu-sz/serving/vllm-serve"]
    assert (vllm["k8s"]["kind"], vllm["k8s"]["name"], vllm["cards"]) == ("Deployment", "vllm-serve", 2)
    assert vllm["tenant"] == "serving"  # by the tenant's namespaces
    # a job with neither throughput nor profile gets the compute-bound default profile
    assert pangu["profile"] == {"tflop_per_unit": 1.0}


def test_pending_jobs_card_names_resolve_to_instance_ids(fleet):
    doc, _ = fleet
    jobs = {j["id"]: j for j in doc["jobs"]}
    assert jobs["pretrain-70b"]["card_types"] == ["H100"]
    assert jobs["eval-sweep"]["throughput"] == {"MI300X": 0.9, "A100": 0.3}  # "NVIDIA-A100-SXM4-80GB" -> A100
    assert "running" not in jobs["sft-7b"]
    assert [r["id"] for r in doc["regions"]] == ["cn-shanghai", "cn-beijing", "cn-shenzhen"]


def test_pods_holding_two_card_types_mark_cards_busy(tmp_path):
    nodes = [
        node("n0", "r", "z", H100, {"nvidia.com/gpu": 8}),
        node("n1", "r", "z", {"amd.com/gpu.product-name": "MI300X"}, {"amd.com/gpu": 8}),
    ]
    label = {"batch.kubernetes.io/job-name": "mixed"}
    pods = [pod("m-0", "ns", "n0", "nvidia.com/gpu", 4, label), pod("m-1", "ns", "n1", "amd.com/gpu", 2, label)]
    (tmp_path / "n.json").write_text(json.dumps(_list(nodes)))
    (tmp_path / "p.json").write_text(json.dumps(_list(pods)))
    res = import_fleet([ClusterDump("c", tmp_path / "n.json", tmp_path / "p.json")], parse_config({}))
    assert pools(res.doc) == {("c", "H100"): (4, 8), ("c", "MI300X"): (6, 8)}
    assert res.held == 6 and "several types" in res.warnings[0] and res.doc["jobs"] == []


def test_single_object_and_yaml_dumps(tmp_path):
    (tmp_path / "node.yaml").write_text(
        yaml.safe_dump(API.sanitize_for_serialization(node("n0", "r", "z", H100, {"nvidia.com/gpu": 4})))
    )
    res = import_fleet([ClusterDump("c", tmp_path / "node.yaml")], parse_config({}))
    assert pools(res.doc) == {("c", "H100"): (4, 4)}


def _one_node(tmp_path, labels, cards, name="nodes.json"):
    (tmp_path / name).write_text(json.dumps(_list([node("n0", "r", "z", labels, cards)])))
    return tmp_path / name


def test_errors_name_the_file_and_json_path(tmp_path):
    path = _one_node(tmp_path, {"nvidia.com/gpu.product": "ACME-Z9000"}, {"nvidia.com/gpu": 8})
    with pytest.raises(InputError) as exc:
        import_fleet([ClusterDump("c", path)], parse_config({}))
    assert exc.value.path == "items[0].metadata.labels" and str(path) in str(exc.value)
    assert "products: {'ACME-Z9000': CARD_TYPE}" in exc.value.reason
    # ... which the fleet file's products fixes
    res = import_fleet([ClusterDump("c", path)], parse_config({"products": {"ACME-Z9000": "L40S"}}))
    assert res.doc["card_types"][0]["id"] == "L40S"

    bad = json.loads(path.read_text())
    bad["items"][0]["status"]["allocatable"]["nvidia.com/gpu"] = "eight"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputError) as exc:
        import_fleet([ClusterDump("c", path)], parse_config({}))
    assert exc.value.path == 'items[0].status.allocatable["nvidia.com/gpu"]'


def test_unlabelled_nodes_need_the_cluster_s_card_type(tmp_path):
    path = _one_node(tmp_path, {}, {"nvidia.com/gpu": 8})
    with pytest.raises(InputError, match=r"clusters\.c\.card_type"):
        import_fleet([ClusterDump("c", path)], parse_config({}))
    res = import_fleet([ClusterDump("c", path)], parse_config({"clusters": {"c": {"card_type": "A100-SXM4-40GB"}}}))
    (ct,) = res.doc["card_types"]
    assert ct["catalog_id"] == "A100-SXM4-40GB" and ct["memory_gb"] == 40
    assert pools(res.doc) == {("c", ct["id"]): (8, 8)}


def test_region_from_the_fleet_file_when_nodes_have_none(tmp_path):
    obj = API.sanitize_for_serialization(node("n0", "r", "z", H100, {"nvidia.com/gpu": 8}))
    del obj["metadata"]["labels"]["topology.kubernetes.io/region"]
    (tmp_path / "n.json").write_text(json.dumps({"kind": "List", "items": [obj]}))
    with pytest.raises(InputError, match=r"topology\.kubernetes\.io/region"):
        import_fleet([ClusterDump("c", tmp_path / "n.json")], parse_config({}))
    res = import_fleet([ClusterDump("c", tmp_path / "n.json")], parse_config({"clusters": {"c": {"region": "eu"}}}))
    assert res.doc["clusters"][0]["region"] == "eu"


def test_fleet_file_errors(tmp_path):
    with pytest.raises(InputError, match="unknown key"):
        parse_config({"job": []})
    path = _one_node(tmp_path, H100, {"nvidia.com/gpu": 8})
    cfg = parse_config({"jobs": [{"id": "x", "cards": 8, "card_types": ["Z9000"]}]}, "fleet.yaml")
    with pytest.raises(InputError) as exc:
        import_fleet([ClusterDump("c", path)], cfg)
    assert exc.value.path == "jobs[0].card_types[0]" and "fleet.yaml" in str(exc.value)
    # reference errors of the built instance point back at the fleet file
    cfg = parse_config({"links": [{"a": "r", "b": "mars", "gbps": 1}]}, "fleet.yaml")
    with pytest.raises(InputError, match=r"fleet.yaml: links\[0\].b"):
        import_fleet([ClusterDump("c", path)], cfg)
    cfg = parse_config({"jobs": [{"id": "x", "cards": {"min": 8, "max": 2}}]}, "fleet.yaml")
    with pytest.raises(InputError, match=r"jobs\[0\].cards: min 8 > max 2"):
        import_fleet([ClusterDump("c", path)], cfg)


def test_cluster_argument():
    assert parse_cluster_arg("sh=a.json,b.json") == ClusterDump("sh", *map(__import__("pathlib").Path, ("a.json", "b.json")))
    for bad in ("sh", "=a.json", "sh=", "sh=a,b,c"):
        with pytest.raises(InputError):
            parse_cluster_arg(bad)


def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "inst.json"
    path = _one_node(tmp_path, {"nvidia.com/gpu.product": "ACME-Z9000"}, {"nvidia.com/gpu": 8})
    assert main(["import-k8s", "--cluster", f"c={path}", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "items[0].metadata.labels" in err and "Traceback" not in err
    assert not out.exists()


def test_fleet_example_in_the_docs_parses():
    assert parse_config(FLEET).name == "three-clusters"


def test_pods_annotated_with_a_fedopt_job_id_join_one_job_over_clusters(tmp_path):
    dumps = []
    for name, region in (("east", "r1"), ("west", "r2")):
        (tmp_path / f"{name}-n.json").write_text(json.dumps(_list([node(f"{name}-0", region, "z", H100, {"nvidia.com/gpu": 8})])))
        p = pod(f"train-{name}-0", "ml", f"{name}-0", "nvidia.com/gpu", 8, {"batch.kubernetes.io/job-name": "train"})
        p.metadata.annotations = {"fedopt.io/job-id": "train-70b"}
        (tmp_path / f"{name}-p.json").write_text(json.dumps(_list([p])))
        dumps.append(ClusterDump(name, tmp_path / f"{name}-n.json", tmp_path / f"{name}-p.json"))
    res = import_fleet(dumps, parse_config({"links": [{"a": "r1", "b": "r2", "gbps": 10}]}))
    (job,) = res.doc["jobs"]
    assert job["id"] == "train-70b" and job["cards"] == 16
    assert job["running"]["parts"] == [
        {"cluster": "east", "card_type": "H100", "count": 8},
        {"cluster": "west", "card_type": "H100", "count": 8},
    ]
    assert job["split"] == {"max_parts": 2, "scope": "federation"}
    fedopt.parse_instance(res.doc)


@pytest.mark.parametrize("command", ["import-k8s", "export", "report"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0 and "docs/ecosystem.md" in capsys.readouterr().out
