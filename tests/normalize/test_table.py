"""The rate table of an instance (job class or job x card type, reference-card units)."""

from __future__ import annotations

import numpy as np
import pytest

from fedopt.cli import main
from fedopt.instance import parse_instance
from fedopt.normalize.table import rate_table
from tests.conftest import TINY, tiny_doc


def test_measured_rates_are_kept_and_reference_is_one():
    inst = parse_instance(tiny_doc("eligibility"))
    df = rate_table(inst, by="job")
    assert list(df.columns) == inst.card_ids
    assert df.attrs["reference"] == "H100"
    fits = inst.type_memory[None, :] >= np.array([j.memory_gb or 0 for j in inst.doc.jobs])[:, None]
    measured = (inst.rate > 0) & fits
    assert np.allclose(df.to_numpy()[measured], inst.rate[measured])
    assert (df.to_numpy()[~fits] == 0).all()  # BIG needs 90 GB: only the H20 has room


def test_missing_types_are_predicted():
    doc = tiny_doc("eligibility")
    for job in doc["jobs"]:
        job.pop("profile", None)
    doc["jobs"][1]["throughput"] = {"H100": 1.0, "A100": 0.5}  # ASC: measured on two types
    doc["jobs"][1].pop("stack", None)
    inst = parse_instance(doc)
    df = rate_table(inst, by="job")
    row = df.loc[doc["jobs"][1]["id"]]
    assert row["H100"] == 1.0 and row["A100"] == 0.5
    assert 0 < row["H20"] < 1.0 and 0 < row["910B"] < 1.0
    assert np.isfinite(df.to_numpy()).all()


def test_profile_only_jobs_and_memory():
    doc = tiny_doc("eligibility")
    doc["jobs"] = [
        {"id": "pre", "cards": 8, "profile": {"params_b": 70, "tflop_per_unit": 1.0, "gb_per_unit": 1.0, "memory_gb": 70}},
        {
            "id": "dec",
            "cards": 1,
            "kind": "infer",
            "profile": {"params_b": 7, "tflop_per_unit": 1.0, "gb_per_unit": 40.0, "memory_gb": 20},
        },
    ]
    inst = parse_instance(doc)
    df = rate_table(inst, by="job")
    assert df.loc["pre", "H100"] > 4 * df.loc["pre", "H20"] > 0
    assert df.loc["dec", "H20"] > df.loc["dec", "H100"]
    assert df.loc["pre", "910B"] == 0  # 70 GB does not fit in 64 GB
    classes = rate_table(inst, by="class")
    assert len(classes) == 2 and classes.attrs["jobs"] == {k: 1 for k in classes.index}


def test_the_table_fits_as_the_normalize_command_does(tmp_path, capsys):
    """No job measured on the H20 or the 910B: their cells are the command's predictions for the same
    measurements (calibrated priors included), and differ from a fit without priors."""
    import csv
    import json

    doc = tiny_doc("eligibility")
    rates = {"BIG": {"H100": 1.0, "A100": 0.5}, "ASC": {"H100": 1.0, "A100": 0.4}, "EU": {"H100": 1.0, "A100": 0.3}}
    doc["jobs"] = [
        {"id": j, "cards": 1, "throughput": r} for j, r in rates.items()
    ]  # no profile, no memory: every cell is the model's or measured
    inst = parse_instance(doc)
    table = rate_table(inst, by="job")
    plain = rate_table(inst, by="job", calibrated=False)

    m, q, p, cards = (tmp_path / n for n in ("m.csv", "q.csv", "p.csv", "cards.json"))
    m.write_text(
        "workload,card_type,cards,throughput\n" + "".join(f"{j},{c},1,{v}\n" for j, r in rates.items() for c, v in r.items())
    )
    q.write_text("workload,card_type,cards\n" + "".join(f"{j},{c},1\n" for j in rates for c in ("H20", "910B")))
    cards.write_text(json.dumps(doc["card_types"]))
    args = ["normalize", "--measurements", str(m), "--query", str(q), "--out", str(p), "--cards", str(cards), "--quiet"]
    assert main(args) == 0
    moved = []
    for row in csv.DictReader(p.open()):
        cell = table.loc[row["workload"], row["card_type"]]
        assert cell == pytest.approx(float(row["throughput"]), rel=1e-4)
        moved.append(abs(cell / plain.loc[row["workload"], row["card_type"]] - 1))
    assert len(moved) == 6 and max(moved) > 0.03  # the priors (the H100's and A100's offsets under their catalog ids) moved them


def test_table_command(capsys):
    assert main(["normalize", "--table", str(TINY / "eligibility.json")]) == 0
    out = capsys.readouterr().out
    assert "reference: H100" in out and "910B" in out


def test_table_json(capsys):
    import json

    assert main(["normalize", "--table", str(TINY / "eligibility.json"), "--by-job", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reference"] == "H100" and data["rows"]["ASC"]["910B"] == 0.6


def test_profile_precision_in_the_table():
    # a compute-bound INT8 job and the same job at BF16 on tiny's cards plus a V100: the same peak
    # ratios (each card's 8-bit peak is twice its BF16 one) except the V100, which has no INT8 or
    # FP8 matrix units (its BF16 peak counts)
    doc = tiny_doc("eligibility")
    v100 = {"id": "V100", "vendor": "nvidia", "stack": "cuda", "memory_gb": 32, "bf16_tflops": 125, "mem_bw_gbs": 900}
    doc["card_types"].append(v100)
    profile = {"tflop_per_unit": 1.0, "gb_per_unit": 0.0, "comm_gb_per_unit": 0.0, "memory_gb": 10.0}
    doc["jobs"] = [
        {"id": "int8", "cards": 8, "profile": profile | {"precision": "int8"}},
        {"id": "bf16", "cards": 8, "profile": profile},
    ]
    df = rate_table(parse_instance(doc), by="class", calibrated=False)
    int8, bf16 = (df.loc[next(i for i in df.index if i.endswith(" int8") == want)] for want in (True, False))
    assert int8["H100"] == bf16["H100"] == 1.0
    assert int8["A100"] == pytest.approx(624 / 1979) and bf16["A100"] == pytest.approx(312 / 989)
    assert int8["910B"] == pytest.approx(640 / 1979) and bf16["910B"] == pytest.approx(320 / 989)
    assert int8["V100"] == pytest.approx(125 / 1979) and bf16["V100"] == pytest.approx(125 / 989)


def test_fill_writes_the_tables_rates_into_the_instance_and_solve_uses_them(tmp_path, capsys):
    """--fill: a job measured on two of four types gets the model's rates on the other two, in the
    file itself, so a plan of it checks against the same rates (measured entries untouched)."""
    import json

    from fedopt import solve
    from fedopt.check import check_plan

    doc = tiny_doc("eligibility")
    for job in doc["jobs"]:
        job.pop("profile", None)
    doc["jobs"][1]["throughput"] = {"H100": 1.0, "A100": 0.5}
    doc["jobs"][1].pop("stack", None)
    src = tmp_path / "inst.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "filled.json"
    assert main(["normalize", "--table", str(src), "--fill", str(out)]) == 0
    assert "rates filled in" in capsys.readouterr().err
    filled = json.loads(out.read_text())
    table = rate_table(parse_instance(doc), by="job")
    asc = filled["jobs"][1]["throughput"]
    assert (asc["H100"], asc["A100"]) == (1.0, 0.5)  # measured: kept
    assert asc["H20"] == pytest.approx(table.loc["ASC", "H20"], rel=1e-5) and 0 < asc["H20"] < 1
    for before, after in zip(doc["jobs"], filled["jobs"], strict=True):
        assert set(after["throughput"]) == {c["id"] for c in doc["card_types"]}
        assert all(after["throughput"][k] == v for k, v in before["throughput"].items())
    inst = parse_instance(filled)
    assert inst.rate[1, inst.card_ids.index("H20")] == asc["H20"]  # the loader now reads the model's rate
    assert parse_instance(doc).rate[1, inst.card_ids.index("H20")] == 0  # before: no entry, no profile, ineligible
    result = solve(inst, time_limit=30)
    verdict = check_plan(inst, result.to_doc())
    assert verdict.ok, verdict.violations


def test_fill_needs_table_and_a_writable_path(tmp_path, capsys):
    assert main(["normalize", "--fill", str(tmp_path / "x.json")]) == 2
    assert "--fill: goes with --table" in capsys.readouterr().err
    assert main(["normalize", "--table", str(TINY / "eligibility.json"), "--fill", str(tmp_path / "no" / "x.json")]) == 2
    assert "--fill: folder" in capsys.readouterr().err


def test_fill_reads_the_instance_once_from_standard_input(tmp_path):
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "filled.json"
    cmd = [sys.executable, "-m", "fedopt", "normalize", "--table", "-", "--fill", str(out), "-q"]
    done = subprocess.run(cmd, input=(TINY / "eligibility.json").read_bytes(), capture_output=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    cards = {c["id"] for c in tiny_doc("eligibility")["card_types"]}
    assert all(set(j["throughput"]) == cards for j in json.loads(out.read_text())["jobs"])


def test_evaluate_table_hides_each_card_type_of_the_instance(tmp_path, capsys):
    """--evaluate --table: leave-one-card-out on the instance's measured rates, fitted as its table
    is (priors, its card types); the rows are those of evaluate.leave_one_card_out on the same data."""
    import pandas as pd

    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.cards import CardResolver
    from fedopt.normalize.evaluate import leave_one_card_out
    from fedopt.normalize.table import instance_cards, measured_rows

    path = str(TINY / "eligibility.json")
    rows = tmp_path / "rows.csv"
    assert main(["normalize", "--evaluate", "--table", path, "--rows", str(rows), "--quiet"]) == 0
    assert "leave-one-card-out on the measured rates of" in capsys.readouterr().out
    got = pd.read_csv(rows)
    inst = parse_instance(tiny_doc("eligibility"))
    data = measured_rows(inst)
    assert len(data) == sum(r > 0 for j in inst.doc.jobs for r in j.throughput.values())
    want = leave_one_card_out(data, resolver=CardResolver(extra=instance_cards(inst)), **fit_settings())
    assert len(got) == len(want) > 0
    assert got["pred"].to_numpy() == pytest.approx(want["pred"].to_numpy(), rel=1e-6)
    assert main(["normalize", "--evaluate", "--table", path, "--held-out"]) == 2
    assert main(["normalize", "--evaluate", "--table", path, "--fill", str(tmp_path / "x.json")]) == 2
    assert "--fill: goes with --table alone" in capsys.readouterr().err
