"""The command line as users and cron meet it: real subprocesses, exit statuses, files."""

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, TINY


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "fedopt", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.parametrize("command", ["", "solve", "check", "schema", "info"])
def test_help_everywhere(command):
    out = run(*([command] if command else []), "--help")
    assert out.returncode == 0
    assert "usage:" in out.stdout


def test_solve_writes_plan_and_check_accepts(tmp_path):
    plan = tmp_path / "plan.json"
    out = run("solve", TINY / "capacity.json", "-o", plan)
    assert out.returncode == 0, out.stderr
    assert "objective 14" in out.stdout
    assert json.loads(plan.read_text())["objective"] == 14.0
    out = run("check", TINY / "capacity.json", plan)
    assert out.returncode == 0 and out.stdout.startswith("OK")


def test_check_exits_1_on_violations(spec_examples):
    out = run("check", spec_examples / "tiny.json", spec_examples / "tiny.broken.plan.json")
    assert out.returncode == 1
    assert "rule 9: j4 (pinned) stopped" in out.stdout


def test_bad_input_exit_2_no_traceback_no_file(tmp_path):
    bad = tmp_path / "bad.json"
    doc = json.loads((TINY / "capacity.json").read_text())
    doc["jobs"][0]["cards"] = {"min": 8, "max": 2}
    bad.write_text(json.dumps(doc))
    plan = tmp_path / "plan.json"
    out = run("solve", bad, "-o", plan)
    assert out.returncode == 2
    assert "jobs[0].cards: min 8 > max 2" in out.stderr
    assert "Traceback" not in out.stderr
    assert not plan.exists()


def test_bad_input_keeps_previous_output(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text("previous")
    (tmp_path / "bad.json").write_text("{not json")
    out = run("solve", tmp_path / "bad.json", "-o", plan)
    assert out.returncode == 2 and "invalid JSON" in out.stderr
    assert plan.read_text() == "previous"


def test_missing_file_and_bad_backend(tmp_path):
    out = run("solve", tmp_path / "nope.json")
    assert out.returncode == 2 and "cannot read file" in out.stderr
    out = run("solve", TINY / "capacity.json", "--backend", "gurobix")
    assert out.returncode == 2 and "--backend" in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["solve", TINY / "capacity.json", "-o", "{missing}/plan.json"],
        ["solve", TINY / "capacity.json", "-o", "{tmp}"],
        ["generate", "--preset", "s", "-o", "{missing}/inst.json"],
        ["replan", "--state", TINY / "capacity.json", "-o", "{missing}/plan.json"],
        ["normalize", "--evaluate", "--plot", "{missing}/errors.png"],
        ["report", "--instance", TINY / "capacity.json", TINY / "capacity.json", "-o", "{missing}/report.html"],
        ["export", "--instance", TINY / "capacity.json", TINY / "capacity.json", "--format", "kueue", "-o", "{file}/sub"],
    ],
    ids=["solve-missing-folder", "solve-folder-as-file", "generate", "replan", "normalize-plot", "report", "export"],
)
def test_unwritable_output_refused_before_the_work(tmp_path, args):
    """A typo in an output folder costs a clear message at once, not a traceback after the solve."""
    (tmp_path / "a-file").write_text("")
    out = run(*[str(a).format(missing=tmp_path / "missing", tmp=tmp_path, file=tmp_path / "a-file") for a in args])
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "folder" in out.stderr and ("--output" in out.stderr or "--plot" in out.stderr)
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


def test_infeasible_exit_3(tmp_path):
    doc = json.loads((TINY / "pinned.json").read_text())
    doc["jobs"][1].update(preemptible=False, running={"parts": [{"cluster": "a1", "card_type": "H100", "count": 8}]})
    f = tmp_path / "inf.json"
    f.write_text(json.dumps(doc))
    out = run("solve", f, "-o", tmp_path / "p.json")
    assert out.returncode == 3
    assert "pinned jobs K, L need 16 > 8" in out.stderr
    assert not (tmp_path / "p.json").exists()


def test_schema_is_json_schema():
    import jsonschema

    out = run("schema")
    schema = json.loads(out.stdout)
    doc = json.loads((TINY / "quota.json").read_text())
    jsonschema.validate(doc, schema)
    doc["jobs"][0]["cards"] = "eight"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_info(spec_examples):
    out = run("info", spec_examples / "tiny.json")
    assert out.returncode == 0
    assert "H100" in out.stdout and "demand:" in out.stdout


def test_solve_and_check_read_standard_input(spec_examples):
    """``-`` for a pipe: ``fedopt import-k8s ... | fedopt solve - | fedopt check instance.json -``."""
    inst = (spec_examples / "tiny.json").read_bytes()
    cmd = [sys.executable, "-m", "fedopt", "solve", "-", "-q"]
    solved = subprocess.run(cmd, input=inst, capture_output=True, cwd=ROOT, timeout=300)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["instance"] == "tiny"
    checked = subprocess.run(
        [sys.executable, "-m", "fedopt", "check", str(spec_examples / "tiny.json"), "-"],
        input=solved.stdout,
        capture_output=True,
        cwd=ROOT,
        timeout=300,
    )
    assert checked.returncode == 0 and checked.stdout.startswith(b"OK")
    both = run("check", "-", "-")
    assert both.returncode == 2 and "not both" in both.stderr
    empty = subprocess.run([sys.executable, "-m", "fedopt", "solve", "-"], input=b"", capture_output=True, cwd=ROOT, timeout=300)
    assert empty.returncode == 2 and b"empty document" in empty.stderr and b"Traceback" not in empty.stderr
