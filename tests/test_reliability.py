"""Interruption with a real signal, determinism, and time limits: proven with real processes."""

import json
import signal
import subprocess
import sys
import time

import pytest

from fedopt.check import check_plan
from fedopt.generate import generate
from fedopt.instance import parse_instance
from fedopt.instance.io import parse_document, read_bytes
from fedopt.instance.schema import PlanDoc
from tests.conftest import ROOT


def _solve_cmd(*args):
    return [sys.executable, "-m", "fedopt", "solve", *map(str, args)]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_writes_best_plan_and_exits_130(tmp_path, sig):
    doc = generate("l", seed=11)
    inst_path = tmp_path / "l.json"
    inst_path.write_text(json.dumps(doc))
    plan = tmp_path / "plan.json"
    proc = subprocess.Popen(
        _solve_cmd(inst_path, "-o", plan, "--method", "colgen", "--time-limit", "300", "-q"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "best plan" in err
    verdict = check_plan(parse_instance(doc), parse_document(read_bytes(plan), PlanDoc))
    assert verdict.ok
    assert not list(tmp_path.glob(".plan.json.*"))  # no temporary file left behind


def test_same_seed_same_bytes(tmp_path):
    inst_path = tmp_path / "m.json"
    inst_path.write_text(json.dumps(generate("m", seed=2)))
    outs = []
    for i in range(2):
        plan = tmp_path / f"p{i}.json"
        r = subprocess.run(
            _solve_cmd(inst_path, "-o", plan, "--seed", "7", "--reproducible", "-q"), cwd=ROOT, capture_output=True, timeout=300
        )
        assert r.returncode == 0, r.stderr
        outs.append(plan.read_bytes())
    assert outs[0] == outs[1]


def test_time_limit_is_respected(tmp_path):
    inst_path = tmp_path / "l.json"
    inst_path.write_text(json.dumps(generate("l", seed=12)))
    t = time.perf_counter()
    r = subprocess.run(
        _solve_cmd(inst_path, "-o", tmp_path / "p.json", "--method", "colgen", "--time-limit", "10", "-q"),
        cwd=ROOT,
        capture_output=True,
        timeout=300,
    )
    wall = time.perf_counter() - t
    assert r.returncode == 0, r.stderr
    assert wall <= 10 * 1.1 + 3.0  # + interpreter start-up and imports


def test_memory_guard_refuses_before_building():
    from fedopt.errors import TooLargeError
    from fedopt.solve import guard_memory

    inst = parse_instance(generate("m", seed=1))
    assert guard_memory(inst, "colgen", 1000) > 0
    with pytest.raises(TooLargeError, match="GiB"):
        guard_memory(inst, "exact", 400_000, limit=1 << 20)


def test_unplaceable_jobs_named_in_stats():
    import fedopt
    from tests.conftest import tiny_doc

    doc = tiny_doc("eligibility")
    doc["jobs"][0]["memory_gb"] = 500  # no card has that much memory
    doc["jobs"][1]["cards"] = 64  # larger than any pool it may use
    r = fedopt.solve(parse_instance(doc))
    never = r.stats["unplaceable"]
    assert "no card type fits" in never["BIG"]
    assert "exceeds every eligible pool" in never["ASC"]
    assert "never placeable (2)" in r.summary()


def test_threads_do_not_change_the_plan(tmp_path):
    inst_path = tmp_path / "m.json"
    inst_path.write_text(json.dumps(generate("m", seed=3)))
    outs = []
    for threads in (1, 2):
        plan = tmp_path / f"p{threads}.json"
        r = subprocess.run(
            _solve_cmd(inst_path, "-o", plan, "--threads", threads, "--reproducible", "-q"),
            cwd=ROOT,
            capture_output=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        doc = json.loads(plan.read_text())
        doc["solver"].pop("threads")
        outs.append(doc)
    assert outs[0] == outs[1]


def test_100k_card_instance_loads():
    inst = parse_instance(json.dumps(generate("xl", seed=1)))
    assert inst.pool_cards.sum() >= 100_000
