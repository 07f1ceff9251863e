"""The catalog as people read it: every card's figures, and what a name resolves to and why."""

from __future__ import annotations

import json

import pytest

from fedopt.cli import main
from fedopt.normalize.cards import Card, CardResolver
from fedopt.normalize.catalog import load_catalog
from fedopt.normalize.catalog_view import card_sources, catalog_frame, resolution_frame

MINE = Card("Lab-X1", bf16_tflops=100.0, mem_bw_gbs=1000.0, memory_gb=32.0, vendor="acme")


def test_catalog_frame_has_every_complete_card_and_a_users_own():
    entries = {c["id"] for c in load_catalog().values() if c.get("complete", True)}
    tab = catalog_frame(CardResolver(extra=[MINE]))
    assert set(tab.index) == entries | {"Lab-X1"}
    h100 = tab.loc["H100-SXM-80GB"]
    assert (h100["bf16_tflops"], h100["fp8_tflops"], h100["mem_bw_gbs"], h100["architecture"]) == (
        989,
        1979,
        3350,
        "nvidia-hopper",
    )
    assert h100["from"] == "catalog" and tab.loc["Lab-X1", "from"] == "--cards"
    assert tab["fp4_tflops"].isna()["H100-SXM-80GB"]  # no FP4 on Hopper: empty, not 0


def test_each_name_says_how_it_matched():
    res = CardResolver(extra=[MINE])
    names = ["H100", "NVIDIA-H100-80GB-HBM3", "RTX 2060 SUPER", "RTX 4090 Laptop GPU", "Foo X1", "V100 MIG 1g.5gb", "lab-x1"]
    tab = resolution_frame(names, res).set_index("name")
    assert tab.loc["H100", "how"] == "catalog id or alias" and tab.loc["H100", "card"] == "H100-SXM-80GB"
    assert tab.loc["NVIDIA-H100-80GB-HBM3", "how"] == "catalog family"
    assert tab.loc["RTX 2060 SUPER", "card"] == "RTX-2060" and tab.loc["RTX 2060 SUPER", "lacks"] == "super"
    assert tab.loc["RTX 4090 Laptop GPU", "card"] == "" and tab.loc["RTX 4090 Laptop GPU", "how"] == "laptop part"
    assert tab.loc["Foo X1", "how"] == "no family" and tab.loc["Foo X1", "architecture"] == ""
    assert tab.loc["V100 MIG 1g.5gb", "how"] == "MIG slice of a card without MIG"
    assert tab.loc["lab-x1", "how"] == "--cards id" and tab.loc["lab-x1", "card"] == "Lab-X1"
    assert res.resolve("H100").id == res.match("H100")[0].id  # one path for both
    chips = resolution_frame(["H800", "H20", "Foo X1"], res).set_index("name")["same_chip"]
    assert chips["H800"] == "H100-SXM-80GB" and chips["H20"] == "" and chips["Foo X1"] == ""


def test_sources_name_the_file_each_figure_came_from():
    res = CardResolver(extra=[MINE])
    src = card_sources(res.resolve("H100"), res)
    assert src["fp8_tflops"].startswith("narrow_formats.csv") and "3958" in src["fp8_tflops"]
    assert src["fp32_tflops"].startswith("catalog_supplement.csv")
    assert card_sources(res.resolve("Lab-X1"), res) == dict.fromkeys(("bf16_tflops", "memory_gb", "mem_bw_gbs"), "--cards file")
    assert card_sources(res.resolve("A100 MIG 1g.5gb"), res) == card_sources(res.resolve("A100-SXM4-40GB"), res)
    assert card_sources(None, res) == {}


def test_resolve_command_reads_the_files_card_names(tmp_path, capsys):
    m = tmp_path / "M.csv"
    m.write_text("workload,card_type,cards,throughput\nllm,NVIDIA H100-SXM5-80GB,8,5\nllm,Foo X1,1,1\nllm,RTX 2060 SUPER,1,2\n")
    assert main(["normalize", "--resolve", "--measurements", str(m), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc] == ["NVIDIA H100-SXM5-80GB", "Foo X1", "RTX 2060 SUPER"]
    assert doc[0]["card"] == "H100-SXM-80GB" and doc[0]["figures"]["mem_bw_gbs"] == 3350
    assert doc[1]["card"] == "" and doc[1]["figures"] == {} and doc[2]["lacks"] == "super"
    assert main(["normalize", "--resolve", "A100 PCIe"]) == 0
    out = capsys.readouterr().out
    assert "A100-PCIe-80GB" in out and "catalog family" in out
    assert "mem_bw_gbs 1935" in out and out.count("gpu_specs_curated.csv") == 1  # figures, then each source once
    # a cloud instance type: the card it carries, and the provider's page that says so
    assert main(["normalize", "--resolve", "a3-megagpu-8g", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert (rec["card"], rec["how"]) == ("H100-SXM-80GB", "gcp instance") and "A3" in rec["instance_source"]
    assert main(["normalize", "--resolve", "a3-megagpu-8g"]) == 0
    assert "a3-megagpu-8g: Google Cloud, GPU machine types" in capsys.readouterr().out


def test_catalog_command_prints_every_card(capsys):
    assert main(["normalize", "--catalog"]) == 0
    out = capsys.readouterr().out
    n = len(catalog_frame())
    assert out.startswith(f"{n} card types") and "RTX-5070-Ti" in out
    assert main(["normalize", "--catalog", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc) == n and all("sources" in r for r in doc)


@pytest.mark.parametrize(
    "argv, path",
    [
        (["normalize", "--resolve"], "--resolve"),  # no names, no files
        (["normalize", "--catalog", "--evaluate"], "normalize"),  # one mode at a time
    ],
)
def test_catalog_modes_reject_bad_use(argv, path, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert path in err and "Traceback" not in err


def test_prediction_names_cards_without_specs_and_where_to_look(tmp_path, capsys):
    m, q = tmp_path / "M.csv", tmp_path / "Q.csv"
    m.write_text("workload,card_type,cards,throughput\nllm,H100,1,10\nllm,A100,1,5\n")
    q.write_text("workload,card_type,cards\nllm,Foo X1,1\nllm,L40S,1\n")
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(tmp_path / "P.csv")]) == 0
    note = next(line for line in capsys.readouterr().err.splitlines() if "no specs for card type" in line)
    assert "'Foo X1'" in note and "L40S" not in note and "normalize --resolve" in note
