"""The rate table of an instance (job class or job x card type, reference-card units)."""

from __future__ import annotations

import numpy as np

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


def test_table_command(capsys):
    assert main(["normalize", "--table", str(TINY / "eligibility.json")]) == 0
    out = capsys.readouterr().out
    assert "reference: H100" in out and "910B" in out


def test_table_json(capsys):
    import json

    assert main(["normalize", "--table", str(TINY / "eligibility.json"), "--by-job", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reference"] == "H100" and data["rows"]["ASC"]["910B"] == 0.6
