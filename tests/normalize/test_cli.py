"""The command's contract: columns, order, finiteness, unknown cards, one-card workloads, bad input."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
import pytest

from fedopt.cli import main
from fedopt.normalize.data import HELD_OUT_SOURCES
from tests.normalize.conftest import run_cli

M = """workload,card_type,cards,throughput,comment
bert,NVIDIA H100-SXM5-80GB,8,0.186,mlperf v3.1
bert,NVIDIA L40S,8,0.031,
bert,Intel Gaudi2,8,0.073,
bert,NVIDIA H100-PCIe-80GB,8,0.077,
resnet,H100 SXM,8,0.074,
resnet,A100-80GB,8,0.034,
resnet,NVIDIA L40,8,0.021,
resnet,Intel(R) Gaudi(R) 2 AI Accelerator,8,0.062,
resnet50-bs128,k80,1,0,out of memory
resnet50-bs128,p100,1,1.63,
resnet50-bs128,v100,1,2.53,
lm,v100,1,81.7,
lm,v100,8,615.1,
lm,p100,1,82.5,
lm,k80,1,24.7,
solo,H100,8,3.0,only one card
"""

Q = """card_type,workload,cards,tag
NVIDIA H200-SXM5-141GB,bert,8,a
H20,bert,8,b
Ascend 910B,resnet,8,c
AMD Instinct MI300X 192GB HBM3,resnet,8,d
A100-SXM4-40GB,lm,4,e
NVIDIA B200,solo,8,f
NVIDIA A30,solo,8,g
Totally Unknown Accelerator 3000,bert,8,h
H100,never-measured,8,i
k80,resnet50-bs128,2,j
T4,resnet50-bs128,1,k
A100,resnet50-bs128,1,l
NVIDIA H100-SXM5-80GB,bert,8,m
"""


@pytest.fixture
def files(write):
    return write("M.csv", M), write("Q.csv", Q)


def predict(files, tmp_path, *extra):
    m, q = files
    out = tmp_path / "P.csv"
    status = main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out), *extra])
    return status, out


def test_columns_order_and_finiteness(files, tmp_path):
    status, out = predict(files, tmp_path)
    assert status == 0
    p = pd.read_csv(out, dtype=str, keep_default_na=False)
    q = pd.read_csv(files[1], dtype=str, keep_default_na=False)
    assert list(p.columns) == [*q.columns, "throughput"]
    assert p.drop(columns="throughput").equals(q)  # same rows, same order, cells untouched
    tp = p["throughput"].astype(float)
    assert all(math.isfinite(v) and v >= 0 for v in tp)


def test_predictions_are_sensible(files, tmp_path):
    _, out = predict(files, tmp_path)
    p = pd.read_csv(out).set_index("tag")["throughput"]
    assert p["a"] > 0 and p["b"] > 0  # H200 and H20 from specs alone
    assert p["a"] > p["b"]  # bert at 8: H200 well above H20 (a sixth of the compute)
    assert p["c"] > 0 and p["d"] > p["c"]  # MI300X above 910B
    assert p["f"] > 3.0 > p["g"] > 0  # a one-card workload: B200 above the H100 it ran on, A30 below
    assert p["h"] > 0 and p["i"] > 0  # unknown card, never-measured workload: still finite
    assert p["j"] == 0  # measured 0 on k80 (out of memory): ineligible at any count
    assert p["k"] > 0  # T4 has 16 GB, as the P100 it ran on: eligible
    assert p["l"] > 1.63  # A100 has room and is faster than P100
    assert p["m"] == pytest.approx(0.186)  # a measured cell is returned as measured


def test_cards_file_wins(files, tmp_path, write):
    cards = write("cards.json", json.dumps([{"id": "H20", "vendor": "nvidia", "stack": "cuda", "memory_gb": 96,
                                             "bf16_tflops": 1480, "mem_bw_gbs": 40000}]))  # fmt: skip
    _, out = predict(files, tmp_path)
    base = pd.read_csv(out).set_index("tag")["throughput"]["b"]
    status, out = predict(files, tmp_path, "--cards", str(cards))
    assert status == 0
    boosted = pd.read_csv(out).set_index("tag")["throughput"]["b"]
    assert boosted > 2 * base


def test_variant_read_as_its_base_card_is_noted(tmp_path, capsys):
    # a SUPER or Ti the catalog lacks takes its base card's figures: said on stderr, from either file
    m, q = tmp_path / "M.csv", tmp_path / "Q.csv"
    m.write_text("workload,card_type,cards,throughput\nllm,RTX 2060 SUPER,1,50\nllm,RTX 3080 Ti,1,40\nllm,RTX 3060 Ti,1,25\n")
    # a name no card has (no 4060 Ti SUPER exists) reads as its base card too
    q.write_text("workload,card_type,cards\nllm,RTX 4060 Ti SUPER,1\nllm,RTX 4090,1\nllm,RTX 4080 SUPER,1\nllm,A800 40GB,1\n")
    status = main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(tmp_path / "P.csv")])
    assert status == 0
    note = next(line for line in capsys.readouterr().err.splitlines() if "read as that card" in line)
    assert "'RTX 4060 Ti SUPER' as RTX-4060-Ti" in note and "'RTX 2060 SUPER' as RTX-2060" in note
    assert "'A800 40GB' as A800-SXM4-80GB" in note  # another memory size: the larger card's memory fit
    # (the H20 141GB was this test's example until it came into the catalog, 2026-12-07)
    assert "3080 Ti" not in note and "3060 Ti" not in note and "4090" not in note  # cards of their own
    assert "4080 SUPER" not in note  # in the catalog since 2026-12-04


def test_a_file_of_one_card_type_is_told_where_its_ratios_come_from(write, tmp_path, capsys):
    # every workload on the H100 (two names of it): nothing in the file says how its jobs split their time
    m = str(write("M.csv", "workload,card_type,cards,throughput\nbert,H100 SXM,8,5\nbert,H100 80GB HBM3,1,0.7\nllm,H100,8,2\n"))
    q = str(write("Q.csv", "workload,card_type,cards\nbert,L40S,8\nllm,H200,8\n"))
    out = str(tmp_path / "P.csv")
    for extra, how in (((), "moved toward the calibration's ratios"), (("--no-priors",), "common time shares")):
        assert main(["normalize", "--measurements", m, "--query", q, "--out", out, *extra]) == 0
        note = next(line for line in capsys.readouterr().err.splitlines() if "no workload of --measurements" in line)
        assert how in note
    # one workload on two card types: the file's own neighbours, no such note
    two = str(write("M2.csv", "workload,card_type,cards,throughput\nbert,H100,8,5\nbert,A100,8,2\nllm,H100,8,2\n"))
    assert main(["normalize", "--measurements", two, "--query", q, "--out", out]) == 0
    assert "no workload of --measurements" not in capsys.readouterr().err


def test_subprocess_interface(files, tmp_path):
    m, q = files
    out = tmp_path / "P.csv"
    r = run_cli("normalize", "--measurements", str(m), "--query", str(q), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert len(pd.read_csv(out)) == len(pd.read_csv(q))
    assert "Totally Unknown Accelerator 3000" in r.stderr  # a note, not an error
    # the least certain predictions are named: B200 (no Blackwell card measured), the workload never measured
    new_arch = next(line for line in r.stderr.splitlines() if "no card of the same architecture" in line)
    assert "'NVIDIA B200'" in new_arch and "'H20'" not in new_arch  # Hopper cards were measured
    assert "'never-measured' not measured" in r.stderr


BAD = [
    ("M.csv", "workload,card_type,throughput\nbert,H100,1\n", "missing column(s) cards"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,fast\n", "line 2, column throughput: not a number"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,1\nbert,A100,0,1\n", "line 3, column cards"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,-1\n", "line 2, column throughput"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,nan\n", "no positive throughput"),  # NaN: not measured
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,\nbert,A100,8,fast\n", "line 3, column throughput: not a"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,,8,1\n", "line 2, column card_type: empty"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,0\n", "no positive throughput"),
    ("M.csv", "", "empty file"),
    ("Q.csv", "workload,card_type\nbert,H100\n", "missing column(s) cards"),
    ("Q.csv", "workload,card_type,cards\nbert,H100,2.5\n", "line 2, column cards"),
    ("Q.csv", "workload,card_type,cards\nbert,H100,8\nbert,H100,1e30\n", "line 3, column cards: expected a whole number"),
    ("Q.csv", "workload,card_type,cards\nbert,H100,eight\n", "line 2, column cards: not a number"),
    ("Q.csv", "workload,card_type,cards\nbert,H100,0\nbert,H100,x\n", "line 2, column cards: expected"),  # first bad line
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,1\nbert,A100,8,inf\n", "line 3, column throughput: expected"),
    ("M.csv", "workload,card_type,cards,throughput\nbert,H100,8,1\n  ,A100,8,1\n", "line 3, column workload: empty"),
    # a key column twice: pandas would read the first and rename the second, so which one was meant is asked
    ("M.csv", "workload,card_type,cards,throughput,throughput\nbert,H100,8,1,2\n", "column throughput is written 2 times"),
    ("Q.csv", "workload,card_type,Card Type,cards\nbert,H100,A100,8\n", "('card_type', 'Card Type', columns 2, 3)"),
]


@pytest.mark.parametrize(("which", "text", "message"), BAD)
def test_bad_input_exits_2_and_writes_nothing(files, tmp_path, write, capsys, which, text, message):
    m, q = files
    bad = write("bad.csv", text)
    m, q = (bad, q) if which == "M.csv" else (m, bad)
    out = tmp_path / "P.csv"
    status = main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "bad.csv" in err
    assert not out.exists()


def test_blank_throughput_rows_are_skipped_with_a_note(files, tmp_path, write, capsys):
    """A blank or NA throughput (pandas writes NaN as an empty cell, R as NA) measured nothing: the
    row is left out, the note gives its line, and the output is that of the file without it."""
    m, q = files
    text = m.read_text()
    blanks = write("M_blank.csv", text + "bert,NVIDIA A100,8,,not run\nresnet,T4,8,NA,\nlm,A100,1,nan,\n")
    out_blank, out_plain = tmp_path / "P_blank.csv", tmp_path / "P_plain.csv"
    assert main(["normalize", "--measurements", str(blanks), "--query", str(q), "--out", str(out_blank)]) == 0
    first = text.count("\n") + 1  # the header is line 1
    assert f"3 row(s) with a blank or NA throughput skipped (lines {first}, {first + 1}, {first + 2})" in capsys.readouterr().err
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out_plain)]) == 0
    assert out_blank.read_text() == out_plain.read_text()


def test_bad_cards_file(files, tmp_path, write, capsys):
    cards = write("cards.json", json.dumps([{"id": "X", "bf16_tflops": "lots", "mem_bw_gbs": 1}]))
    status, out = predict(files, tmp_path, "--cards", str(cards))
    assert status == 2
    assert "cards.json: [0].bf16_tflops" in capsys.readouterr().err
    assert not out.exists()


def test_missing_files_and_modes(files, tmp_path, capsys):
    m, q = files
    assert main(["normalize", "--measurements", str(tmp_path / "nope.csv"), "--query", str(q), "--out", str(tmp_path / "P")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["normalize", "--measurements", str(m), "--query", str(q)]) == 2
    assert "missing --out" in capsys.readouterr().err
    assert main(["normalize", "--evaluate", "--table", "x.json"]) == 2
    assert main(["normalize", "--evaluate", "--held-out", "--measurements", str(m)]) == 2
    assert "not both" in capsys.readouterr().err
    # --sets picks held-out sets: a wrong name lists the right ones; without --held-out it has no meaning
    assert main(["normalize", "--evaluate", "--held-out", "--sets", "inference-v9"]) == 2
    assert "the held-out sets: " + ", ".join(HELD_OUT_SOURCES) + "\n" in capsys.readouterr().err
    assert main(["normalize", "--evaluate", "--sets", "training-v5.1"]) == 2
    assert "goes with --held-out" in capsys.readouterr().err


def test_unwritable_out_refused_before_fitting(files, tmp_path, capsys, monkeypatch):
    """A P.csv in a folder that does not exist is an argument error at once, not a traceback after the fit."""
    import fedopt.normalize.model as model

    monkeypatch.setattr(model.ThroughputModel, "fit", lambda *a, **k: pytest.fail("fitted before checking --out"))
    m, q = files
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(tmp_path / "no" / "P.csv")]) == 2
    assert "--out: folder" in capsys.readouterr().err
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_headers_in_other_case_crlf_and_bom(write, tmp_path):
    rows = '"bert, large",H100,8,1.5e1\r\n"bert, large",A100,8,6.1\r\n'
    m = write("M.csv", "\ufeffWorkload , Card Type,CARDS,Throughput\r\n" + rows)
    q = write("Q.csv", 'workload,card-type,cards\r\n"bert, large",H200,8\r\n\r\n')
    out = tmp_path / "P.csv"
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out)]) == 0
    p = pd.read_csv(out)
    assert list(p.columns) == ["workload", "card_type", "cards", "throughput"]
    assert p["workload"].tolist() == ["bert, large"] and p["throughput"].iloc[0] > 0


def test_cells_match_without_their_outer_spaces(write, tmp_path):
    """A trailing space in one file does not make another workload (or card); the output keeps the
    query's cells as written."""
    m = write("M.csv", "workload,card_type,cards,throughput\nbert ,H100 ,8,15\nbert,A100,8,6.1\nsolo,H100,8,3\n")
    q = write("Q.csv", "workload,card_type,cards\nbert,H100,8\nbert  ,A100,8\n")
    out = tmp_path / "P.csv"
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out)]) == 0
    p = pd.read_csv(out, keep_default_na=False)
    assert p["workload"].tolist() == ["bert", "bert  "]
    assert p["throughput"].tolist() == [15, 6.1]  # both cells measured: returned as measured


def test_speedups_table(files, capsys):
    m, _ = files
    assert main(["normalize", "--measurements", str(m), "--speedups", "H100,L40S,NVIDIA H200", "--count", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    bert = next(line.split() for line in out if line.startswith("bert "))
    assert bert[1] == "1.000"  # the first card is the reference
    assert abs(float(bert[2]) - 0.031 / 0.186) < 1e-3  # measured rows keep their measured ratio
    assert 0.9 < float(bert[3]) < 1.5  # an H200: an H100's compute, 1.4x its memory bandwidth
    assert main(["normalize", "--measurements", str(m), "--speedups", "H100,L40S", "--count", "8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reference"] == "H100" and doc["rows"]["bert"]["H100"] == 1.0
    assert abs(doc["rows"]["bert"]["L40S"] - 0.031 / 0.186) < 1e-3
    assert main(["normalize", "--speedups", "H100"]) == 2
    assert "needs --measurements" in capsys.readouterr().err


def test_shares(files, capsys):
    m, _ = files
    assert main(["normalize", "--measurements", str(m), "--shares"]) == 0
    out = capsys.readouterr().out
    assert "number format" in out and "bert" in out
    assert main(["normalize", "--measurements", str(m), "--shares", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    bert = doc["bert"]
    assert abs(bert["compute"] + bert["mem"] + bert["host"] - 1) < 1e-5  # time shares
    assert abs(bert["tf32"] + bert["bf16"] + bert["fp8"] + bert["fp4"] - 1) < 1e-5 and 0 <= bert["tensor"] <= 1
    assert doc["bert"]["serial"] < 1e-3 and 0 <= doc["lm"]["serial"] <= 1  # bert: one count, nothing to read
    assert main(["normalize", "--shares"]) == 2
    assert "needs --measurements" in capsys.readouterr().err


def test_progress_on_a_terminal_only(write, capsys, monkeypatch):
    """Long fits and evaluations report on stderr when it is a terminal (as solve does), never in
    pipes or with --quiet; stdout stays the same."""
    small = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards
    evaluate = ["normalize", "--evaluate", "--measurements", str(small)]
    assert main(evaluate) == 0
    piped = capsys.readouterr()
    assert "fedopt: leave-one-card-out" not in piped.err
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert main(evaluate) == 0
    tty = capsys.readouterr()
    assert tty.out == piped.out
    lines = [x for x in tty.err.splitlines() if x.startswith("fedopt: leave-one-card-out: fit ")]
    assert len(lines) >= 4 and lines[0].startswith("fedopt: leave-one-card-out: fit 1/")
    assert main([*evaluate, "--quiet"]) == 0
    assert "leave-one-card-out: fit" not in capsys.readouterr().err


def test_fit_reports_progress_of_a_long_fit(monkeypatch):
    """The model's fit calls ``progress`` with its pass, iteration and loss once it runs past the
    interval (0 here: every iteration)."""
    from fedopt.normalize import model as model_mod

    lines: list[str] = []
    monkeypatch.setattr(model_mod, "PROGRESS_EVERY_S", 0.0)
    model_mod.ThroughputModel().fit(pd.read_csv(io.StringIO(M)), progress=lines.append)
    assert lines and lines[0].startswith("fitting 15 measurements, 5 workloads")
    assert any("pass 2/2" in x for x in lines) and all("loss " in x for x in lines)


def test_calibrate_writes_the_parameters_file_atomically(tmp_path, capsys, monkeypatch):
    """--calibrate on a small file of measurements (the real run takes ~25 s): the file is
    written whole, with every part the priors read, and the fits report on a terminal."""
    from fedopt.normalize import calibrate

    rows = [(w, c, 8, s * tf) for w, s in (("a", 1.0), ("b", 0.5)) for c, tf in (("H100", 989), ("A100", 312), ("L40S", 362))]
    small = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    small["source"] = small["workload"].map({"a": "x", "b": "y"})  # two sets: every architecture hidden in turn
    monkeypatch.setattr(calibrate, "PARAMS_PATH", tmp_path / "params.json")
    monkeypatch.setattr("fedopt.normalize.data.calibration_measurements", lambda exclude=(): small)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert main(["normalize", "--calibrate"]) == 0
    err = capsys.readouterr().err
    assert "fedopt: calibrating on 6 measurements" in err and "leave-one-architecture-out: fit 3/3" in err
    assert f"wrote {tmp_path / 'params.json'}: 3 cards calibrated on 6 measurements" in err
    assert f"wrote {tmp_path / 'params.reference.json'}: 2 workloads on " in err
    params = json.loads((tmp_path / "params.json").read_text())
    archs = {"nvidia-hopper", "nvidia-ampere", "nvidia-ada"}
    assert params["sources"] == ["x", "y"] and set(params["architecture_bias"]) == archs
    assert params["common"]["scaleout_median_error"] is None  # no workload of it past one node
    assert set(calibrate.arch_priors(params)) == archs
    per_set = {a: list(v["per_set"].values()) for a, v in params["architecture_bias"].items()}
    agree = {a for a, v in per_set.items() if min(v) > 0 or max(v) < 0}
    assert set(calibrate.arch_bias(params)) == agree
    # the reference table beside it: both workloads on every catalog card, each measured on all three
    reference = calibrate.load_params(tmp_path / "params.json")["reference"]
    assert set(reference["workloads"]) == {"a", "b"} and {"H100-SXM-80GB", "L40S", "MI300X"} <= set(reference["cards"])
    assert all(len(w["log_rate"]) == len(reference["cards"]) for w in reference["workloads"].values())
    assert reference["workloads"]["a"]["measured_on"] == ["A100-SXM4-80GB", "H100-SXM-80GB", "L40S"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.json", "params.reference.json"]  # no temporary file left


def test_replicas_is_the_users_word_that_a_model_that_fits_runs_without_talking(write, tmp_path):
    # a 70B model (70 GB at one byte per parameter) on 80 and 96 GB PCIe cards at 1 and 8 cards, the
    # training job beside it slowed at 8: asked for an 80 GB H100 PCIe at 8 cards, --replicas
    # predicts 8x its one-card rate, the default fit charges it the file's all-reduce overhead
    rows = ["workload,card_type,cards,throughput"]
    for card, v in (("RTX PRO 6000 Blackwell", 3.0), ("A100 PCIe 80GB", 1.5)):
        rows += [f"llama2-70b,{card},1,{v}", f"llama2-70b,{card},8,{8 * v}", f"bert,{card},1,{v}", f"bert,{card},8,{4.8 * v}"]
    m = write("M.csv", "\n".join(rows) + "\n")
    q = write("Q.csv", "workload,card_type,cards\nllama2-70b,H100 PCIe,1\nllama2-70b,H100 PCIe,8\n")
    ratio = {}
    for extra in ((), ("--replicas",), ("--replicas", "llama*,serve-*"), ("--replicas", "bert*")):
        out = tmp_path / "P.csv"
        assert main(["normalize", "-q", "--measurements", str(m), "--query", str(q), "--out", str(out), *extra]) == 0
        one, eight = pd.read_csv(out)["throughput"]
        ratio[extra] = eight / (8 * one)
    assert ratio[("--replicas",)] == pytest.approx(1.0, abs=1e-4)  # P.csv rounds
    assert ratio[()] < 0.97
    # patterns name the workloads the rule covers: the 70B job among them, or not
    assert ratio[("--replicas", "llama*,serve-*")] == pytest.approx(1.0, abs=1e-4)
    assert ratio[("--replicas", "bert*")] == pytest.approx(ratio[()], rel=1e-3)
