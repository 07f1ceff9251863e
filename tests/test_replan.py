"""The re-planning cron job: lock, atomic outputs, warm start, max-moves, diff, log lines."""

import json
import subprocess
import sys

from fedopt.check import check_plan
from fedopt.instance import load_instance
from fedopt.instance.io import parse_document, read_bytes
from fedopt.instance.schema import PlanDoc
from fedopt.replan import exclusive_lock
from tests.conftest import ROOT

FLEET = ROOT / "instances" / "examples" / "fleet-s.json"


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "fedopt", "replan", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_replan_writes_plan_diff_and_log(tmp_path):
    plan, log = tmp_path / "plan.json", tmp_path / "runs.jsonl"
    out = run("--state", FLEET, "-o", plan, "--max-moves", "2", "--time-limit", "20", "--log", log, "-q")
    assert out.returncode == 0, out.stderr
    doc = parse_document(read_bytes(plan), PlanDoc)
    state = load_instance(FLEET)
    assert check_plan(state, doc).ok
    changes = json.loads((tmp_path / "plan.diff.json").read_text())
    assert {c["job"] for c in changes} == set(state.job_ids)
    moved = [c for c in changes if c["action"] in ("migrate", "preempt")]
    assert len(moved) <= 2
    assert all(c["reason"] for c in changes)
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["exit"] == 0 and record["actions"]["migrate"] + record["actions"]["preempt"] == len(moved)
    # a second run warm-starts from the plan it finds and stays valid
    out = run("--state", FLEET, "-o", plan, "--max-moves", "2", "--time-limit", "20", "--log", log, "-q")
    assert out.returncode == 0
    assert len(log.read_text().splitlines()) == 2


def test_second_run_is_locked_out(tmp_path):
    plan = tmp_path / "plan.json"
    with exclusive_lock(f"{plan}.lock"):
        out = run("--state", FLEET, "-o", plan, "-q")
    assert out.returncode == 4
    assert "holds the lock" in out.stderr
    assert not plan.exists()


def test_bad_state_keeps_previous_plan(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text('{"previous": true}')
    bad = tmp_path / "state.json"
    bad.write_text(FLEET.read_text()[:-200])  # truncated
    out = run("--state", bad, "-o", plan, "--log", tmp_path / "log.jsonl", "-q")
    assert out.returncode == 2
    assert plan.read_text() == '{"previous": true}'
    assert json.loads((tmp_path / "log.jsonl").read_text())["exit"] == 2
    assert "Traceback" not in out.stderr
