"""The ``normalize --evaluate`` command (``cli_evaluate.py``): its tables as text, JSON and rows,
the held-out sets it picks, its figure, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from fedopt.cli import main
from tests.normalize.test_cli import M


def test_held_out_sets_evaluates_only_the_named_set(capsys):
    """``--held-out --sets training-v5.1``: its 19 rows on nine cards, pooled and alone, no other set
    (and no scale-out table: that is training v6.0's)."""
    assert main(["normalize", "--evaluate", "--held-out", "--sets", "training-v5.1", "-q", "--by-card"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| training-v5.1 | 19 | 9 |")]
    assert len(rows) == 2  # pooled with priors from the shared data, and alone with priors from every other set
    # --by-card: the per-card table of each, the set alone's (the headline figures) after its summary
    assert out.count("per held-out card, ") == 2 and "per held-out card, each held-out set fitted alone" in out
    assert out.index("per held-out card, each held-out set fitted alone") > out.index("fitted alone, priors calibrated")
    assert "inference-v4.1" not in out and "lambda" not in out and "scale-out" not in out


def test_evaluate_on_given_measurements(write, capsys):
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--by-card"]) == 0
    out = capsys.readouterr().out
    assert "| all |" in out and "peak-TFLOPS" in out and "targets:" in out
    assert "over resampled workloads" in out  # how far the median could move with other workloads
    assert "model_bias" in out  # --by-card: the signed bias beside each card's error


def test_evaluate_skips_blank_throughputs_with_a_note(write, capsys):
    # a blank cell on line 10 (after bert and resnet's eight rows): skipped as the prediction command skips it
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\nresnet,L4,8,\n")
    assert main(["normalize", "--evaluate", "--measurements", str(m)]) == 0
    captured = capsys.readouterr()
    assert "1 row(s) with a blank or NA throughput skipped (line 10)" in captured.err
    assert "| all | 8 |" in captured.out and "L4" not in captured.out


def test_evaluate_cells_hidden_at_random(write, capsys):
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--cells"]) == 0
    out = capsys.readouterr().out
    assert "cells missing at random on" in out and out.count("| all |") == 2  # beside the leave-one-card-out table
    assert main(["normalize", "--measurements", str(m), "--cells"]) == 2
    assert "--cells: goes with --evaluate" in capsys.readouterr().err


def test_evaluate_a_file_of_one_card_type(write, capsys):
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards: too few workloads to keep
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--one-card-type", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    section = next(x for x in doc["sections"] if x["name"] == "one_card_type")
    assert section["rows"][0]["rows"] == 0  # no card type has three workloads: nothing kept, nothing asked
    m = write(
        "M3.csv",
        M.splitlines()[0]
        + "\n"
        + "\n".join(f"w{i},{c},8,{(i + 1) * p}" for i in range(3) for c, p in (("H100", 9.9), ("A100", 3.1))),
    )
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--one-card-type"]) == 0
    out = capsys.readouterr().out
    assert (
        "a file of one card type, on " in out and out.count("| all | 6 | 2 |") == 2
    )  # as leave-one-card-out: 3 jobs x the other card, twice
    assert main(["normalize", "--measurements", str(m), "--one-card-type"]) == 2
    assert "--one-card-type: goes with --evaluate" in capsys.readouterr().err


def test_evaluate_as_json(write, capsys):
    # the same tables as the text, as one JSON document: errors as fractions, NaN as null
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--by-card", "--cells"]) == 0
    text = capsys.readouterr().out
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--by-card", "--cells", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sections = {sec["name"]: sec for sec in doc["sections"]}
    assert list(sections) == ["leave_one_card_out", "leave_one_card_out_targets", "oracle", "by_card", "cells"]
    assert sections["oracle"]["rows"][0]["data"] == "all" and "oracle ratio" in sections["oracle"]["heading"]
    first = sections["leave_one_card_out"]["rows"][0]
    assert first["data"] == "all" and f"| all | {first['rows']} | {first['cards']} | {100 * first['model_median']:.1f}% |" in text
    target = sections["leave_one_card_out_targets"]["rows"][0]
    assert target["median"] == first["model_median"] and target["interval_low"] <= target["median"] <= target["interval_high"]
    assert target["within_limit"] == (first["model_median"] <= 0.15)
    cards = {row["card"]: row for row in sections["by_card"]["rows"]}
    assert set(cards) >= {"H100-SXM-80GB", "L40S"} and all(row["model_bias"] > -1 for row in cards.values())


def test_evaluate_writes_its_rows(write, tmp_path, capsys):
    # --rows: every evaluated row under its table's name, with its prediction and the baselines'
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards
    rows = tmp_path / "rows.csv"
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--cells", "--rows", str(rows)]) == 0
    out = capsys.readouterr()
    got = pd.read_csv(rows)
    assert f"wrote {len(got):,} evaluated rows" in out.err
    assert list(got.columns[:7]) == ["table", "workload", "card_type", "cards", "throughput", "card", "pred"]
    assert set(got["table"]) == {"leave_one_card_out", "cells"} and {"base_bf16_tflops", "basis"} <= set(got.columns)
    loco = got[got["table"] == "leave_one_card_out"]
    assert f"| all | {len(loco)} | {loco['card'].nunique()} |" in out.out  # the table's rows are the file's
    measured = pd.read_csv(m).set_index(["workload", "card_type"])["throughput"]
    assert loco.set_index(["workload", "card_type"])["throughput"].to_dict() == {
        k: measured[k] for k in zip(loco["workload"], loco["card_type"], strict=True)
    }
    assert main(["normalize", "--measurements", str(m), "--rows", str(rows)]) == 2
    assert "--rows: goes with --evaluate" in capsys.readouterr().err
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--rows", str(tmp_path / "no" / "r.csv")]) == 2


def test_evaluate_plot_is_written_atomically(write, tmp_path, capsys):
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")
    fig = tmp_path / "loco.svg"
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--plot", str(fig)]) == 0
    assert fig.read_text().lstrip().startswith("<?xml") and "leave-one-card-out" in fig.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--plot", str(tmp_path / "x.gif")]) == 2
    assert "--plot" in capsys.readouterr().err and not (tmp_path / "x.gif").exists()


def test_as_card_rates_keeps_each_workload_at_its_best_covered_count():
    """Each workload at the count measured on the most card types (ties: the larger), per card, at count 1."""
    from fedopt.normalize.data import as_card_rates

    df = pd.DataFrame(
        {
            "workload": ["a", "a", "a", "a", "b", "b", "c", "c", "c"],
            "card_type": ["X", "Y", "X", "Z", "X", "Y", "X", "Y", "Z"],
            "cards": [8, 8, 1, 1, 2, 4, 1, 1, 4],
            "throughput": [80.0, 40.0, 12.0, 5.0, 10.0, 30.0, 3.0, 0.0, 8.0],
            "source": "s",
        }
    )
    got = as_card_rates(df)
    assert list(got.columns) == list(df.columns)
    assert got[["workload", "card_type", "cards", "throughput"]].values.tolist() == [
        ["a", "X", 1, 10.0],  # a: two types at 8 and two at 1, so 8 (the larger); 80 / 8
        ["a", "Y", 1, 5.0],
        ["b", "Y", 1, 7.5],  # b: one type at 2 and one at 4: 4
        ["c", "Z", 1, 2.0],  # c: one positive type at 1 (Y's 0 does not count) and one at 4: 4
    ]


def test_evaluate_as_rates_scores_per_card_rates(write, tmp_path, capsys):
    """``--as-rates``: the rows evaluated are the per-card rates of ``as_card_rates`` (an instance's
    form), so the hidden measured throughputs are the file's divided by their count."""
    m = write("M.csv", "\n".join(M.splitlines()[:9]) + "\n")  # bert and resnet on five cards, at 8 each
    rows = tmp_path / "rows.csv"
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--as-rates", "--rows", str(rows), "-q"]) == 0
    assert "as per-card rates" in capsys.readouterr().out
    got = pd.read_csv(rows)
    assert len(got) > 0 and set(got["cards"]) == {1}
    measured = pd.read_csv(m)
    want = {(w, c): t / 8 for w, c, t in zip(measured.workload, measured.card_type, measured.throughput, strict=True)}
    assert all(abs(want[(w, c)] - t) < 1e-12 for w, c, t in zip(got.workload, got.card_type, got.throughput, strict=True))
    assert main(["normalize", "--measurements", str(m), "--as-rates"]) == 2
    assert "--as-rates: goes with --evaluate" in capsys.readouterr().err
    tiny = Path(__file__).resolve().parents[2] / "instances" / "tiny" / "eligibility.json"
    assert main(["normalize", "--evaluate", "--table", str(tiny), "--as-rates"]) == 2
    assert "--as-rates: an instance's rates are per card already" in capsys.readouterr().err
