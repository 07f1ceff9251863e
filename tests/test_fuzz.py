"""Property-based tests (hypothesis): bad input is always a clean InputError naming a path, and
any valid instance gets a plan that passes the checker, from every method; exact is never beaten.

CI runs a bounded number of examples; FEDOPT_FUZZ_EXAMPLES=10000 runs the long campaign.
"""

import contextlib
import copy
import json
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fedopt
from fedopt.cli import main
from fedopt.errors import InfeasibleError, InputError
from fedopt.instance import parse_instance
from tests.conftest import tiny_doc

EXAMPLES = int(os.environ.get("FEDOPT_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

BASE = [tiny_doc(n) for n in ("bandwidth", "eligibility", "pinned", "same_region", "quota", "egress")]


def _paths(doc, prefix=()):
    """Every (path, value) in a JSON document."""
    yield prefix, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _set(doc, path, value):
    cur = doc
    for p in path[:-1]:
        cur = cur[p]
    if value is _DROP:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value


_DROP = object()
BAD_VALUES = [_DROP, None, -1, -1e308, 1e308, 2.5, "x", "", [], {}, True, 10**30, "H100", "a"]


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(BASE)))
    paths = [p for p, _ in _paths(doc) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        value = draw(st.sampled_from(BAD_VALUES))
        with contextlib.suppress(KeyError, IndexError, TypeError):
            _set(doc, path, value)
        paths = [p for p, _ in _paths(doc) if p]
        if not paths:
            break
    return doc


@FUZZ
@given(mutated())
def test_mutated_instances_fail_cleanly_or_solve(doc):
    text = json.dumps(doc)
    try:
        inst = parse_instance(text)
    except InputError as exc:
        assert exc.path is not None and exc.reason
        return
    try:
        r = fedopt.solve(inst, time_limit=10)
    except InfeasibleError as exc:
        assert exc.conflicts
        return
    assert r.stats["check"]["violations"] == []


@FUZZ
@given(st.binary(min_size=0, max_size=300))
def test_garbage_bytes_are_input_errors(data):
    with pytest.raises(InputError):
        parse_instance(data)


@FUZZ
@given(st.sampled_from(BASE), st.integers(1, 400))
def test_truncated_documents(doc, cut):
    text = json.dumps(doc)
    with pytest.raises(InputError):
        parse_instance(text[: min(cut, len(text) - 1)])


def test_cli_bad_input_exit_2_for_every_command(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "card_types": [{"id": 3}]}')
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE[0]))
    out = tmp_path / "out.json"
    for argv in (
        ["solve", str(bad), "-o", str(out)],
        ["check", str(bad), str(good)],
        ["check", str(good), str(bad)],
        ["info", str(bad)],
        ["replan", "--state", str(bad), "-o", str(out), "--log", str(tmp_path / "l")],
    ):
        assert main(argv) == 2, argv
        assert not out.exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err and "card_types[0].id" in err


# ------------------------------------------------------------------ random valid instances
@st.composite
def instances(draw):
    n_regions = draw(st.integers(1, 3))
    regions = [f"r{i}" for i in range(n_regions)]
    types = [
        {"id": "H100", "vendor": "nvidia", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 989, "mem_bw_gbs": 3350},
        {"id": "A100", "vendor": "nvidia", "stack": "cuda", "memory_gb": 40, "bf16_tflops": 312, "mem_bw_gbs": 1555},
        {"id": "910B", "vendor": "huawei", "stack": "cann", "memory_gb": 64, "bf16_tflops": 320, "mem_bw_gbs": 1600},
    ]
    links = []
    for i in range(1, n_regions):
        links.append(
            {
                "a": regions[draw(st.integers(0, i - 1))],
                "b": regions[i],
                "gbps": draw(st.sampled_from([1.0, 5.0, 20.0, 100.0])),
                "latency_ms": draw(st.sampled_from([1.0, 5.0, 10.0])),
                "egress_per_gb": draw(st.sampled_from([0.0, 0.01, 0.05])),
            }
        )
    clusters = []
    for c in range(draw(st.integers(1, 4))):
        pools = [{"card_type": t["id"], "cards": draw(st.sampled_from([0, 4, 8, 16]))} for t in types if draw(st.booleans())]
        cl = {"id": f"c{c}", "region": regions[draw(st.integers(0, n_regions - 1))], "pools": pools}
        if draw(st.booleans()):
            cl["storage_gbps"] = draw(st.sampled_from([1.0, 4.0, 50.0]))
        clusters.append(cl)
    datasets = [{"id": "d0", "size_gb": 10, "replicas": [regions[draw(st.integers(0, n_regions - 1))]]}]
    tenants = [{"id": "t0", "quota_cards": draw(st.sampled_from([4, 8, 16]))}, {"id": "t1"}]
    jobs = []
    n_jobs = draw(st.integers(1, 6))
    for j in range(n_jobs):
        cards = draw(st.sampled_from([1, 2, 4, 8, 12, 16]))
        job = {
            "id": f"j{j}",
            "tenant": draw(st.sampled_from(["t0", "t1"])),
            "priority": draw(st.sampled_from([0.5, 1.0, 2.0])),
            "throughput": {t["id"]: draw(st.sampled_from([0.0, 0.3, 0.7, 1.0])) for t in types},
        }
        if draw(st.booleans()) and cards >= 4:
            job["cards"] = {"min": cards // 2, "max": cards, "step": max(1, cards // 4)}
        else:
            job["cards"] = cards
        if draw(st.booleans()):
            job["split"] = {
                "max_parts": draw(st.integers(2, 3)),
                "scope": draw(st.sampled_from(["region", "federation"])),
                "sync_gbps": draw(st.sampled_from([0.0, 2.0, 10.0])),
            }
        if draw(st.booleans()):
            job["data"] = [{"dataset": "d0", "gbps": draw(st.sampled_from([0.5, 2.0]))}]
        if draw(st.booleans()) and clusters and clusters[0]["pools"]:
            pool = clusters[0]["pools"][0]
            n = min(cards, max(pool["cards"], 1))
            job["running"] = {"parts": [{"cluster": "c0", "card_type": pool["card_type"], "count": n}]}
            job["preemptible"] = draw(st.booleans())
        jobs.append(job)
    if n_jobs >= 2 and draw(st.booleans()):
        jobs[0]["affinity"] = {draw(st.sampled_from(["same_region", "different_cluster"])): ["j1"]}
    return {
        "version": 1,
        "name": "fuzz",
        "card_types": types,
        "regions": [{"id": r} for r in regions],
        "links": links,
        "clusters": clusters,
        "datasets": datasets,
        "tenants": tenants,
        "jobs": jobs,
        "settings": {"weights": {"throughput": 1, "egress": 1, "migration": 1, "preemption": 1}},
    }


@settings(max_examples=max(10, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(instances())
def test_every_method_gives_checked_plans_and_exact_is_best(doc):
    try:
        inst = parse_instance(doc)
    except InputError:
        return  # e.g. an allow-listed region that cannot reach the data
    try:
        exact = fedopt.solve(inst, method="exact", time_limit=20)
    except InfeasibleError:
        return
    assert exact.status == "optimal"
    for method in ("colgen", "greedy", "pop"):
        r = fedopt.solve(inst, method=method, time_limit=20, pop_parts=2, threads=1)
        assert r.stats["check"]["violations"] == []
        assert r.objective <= exact.objective + 1e-6 * max(1.0, abs(exact.objective))
        if r.bound is not None:
            assert r.bound >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    for backend in ("cpsat",):
        r = fedopt.solve(inst, method="exact", backend=backend, time_limit=20)
        assert math.isclose(r.objective, exact.objective, rel_tol=1e-6, abs_tol=1e-6)
