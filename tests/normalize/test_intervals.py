"""Prediction intervals: quantiles of held-out log errors by basis, their weighting, the shipped
table and the command's bounds columns."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.evaluate import random_cells
from fedopt.normalize.intervals import (
    BASES,
    INTERVALS_PATH,
    LEVELS,
    bounds,
    coverage,
    file_scale,
    load_intervals,
    load_one_card_type_scale,
    one_card_type_scale,
    quantile_table,
    with_file_levels,
)
from tests.normalize.test_cli import M, Q, predict

TABLE = {"card measured": {"0.8": 0.2}, "new architecture": {"0.8": 0.5}}


def test_bounds_by_basis():
    pred = np.array([10.0, 10.0, 10.0, 10.0, 0.0])
    basis = np.array(["measured", "card measured", "new architecture", "no specs", "card measured"])
    low, high = bounds(pred, basis, 0.8, TABLE)
    assert low[0] == high[0] == 10.0  # a measured cell is its own bound
    assert low[1] == pytest.approx(10 * math.exp(-0.2)) and high[1] == pytest.approx(10 * math.exp(0.2))
    assert high[2] == pytest.approx(10 * math.exp(0.5))
    assert math.isnan(low[3]) and math.isnan(high[3])  # nothing evaluated behind a card without specs
    assert low[4] == high[4] == 0.0  # ineligible stays 0
    low, high = bounds(np.array([0.0]), np.array(["ineligible"]), 0.8, TABLE)
    assert low[0] == high[0] == 0.0  # 0 from a measured failure: no interval around it
    with pytest.raises(ValueError, match="one of"):
        bounds(pred, basis, 0.75, TABLE)


def test_bounds_scale_with_the_file():
    pred, basis = np.array([10.0, 10.0]), np.array(["card measured", "measured"])
    low, high = bounds(pred, basis, 0.8, TABLE, scale=2.0)
    assert high[0] == pytest.approx(10 * math.exp(0.4)) and low[0] == pytest.approx(10 * math.exp(-0.4))
    assert low[1] == high[1] == 10.0  # a measured cell stays its own bound


def test_file_scale_shrinks_toward_one_with_few_rows():
    # twice the reference level over 20 rows: half the evidence (20 / (20 + 20)), sqrt(2)
    assert file_scale(0.2, 20, 0.1) == pytest.approx(math.sqrt(2))
    assert file_scale(0.2, 20, 0.1, n0=0.0) == pytest.approx(2.0)  # no shrinkage: the ratio itself
    assert file_scale(0.05, 1e9, 0.1) == pytest.approx(0.5)  # an easy file narrows its bounds
    assert list(file_scale([np.nan, 0.2, 0.2], [0, 0, 5], np.nan)) == [1.0, 1.0, 1.0]  # nothing to go by


def _errors(source, cards_errors, kind="card", hidden=None):
    rows = [
        (source, kind, "card measured", e, c if hidden is None else hidden, c, "arch-" + c) for c, es in cards_errors for e in es
    ]
    return pd.DataFrame(rows, columns=["source", "kind", "basis", "log_error", "hidden", "card", "arch"])


def test_file_level_leaves_the_hidden_card_out():
    e = pd.concat(
        [_errors("a", [("X", [0.1, 0.1]), ("Y", [0.4])]), _errors("a", [("X", [0.2])], kind="cells", hidden=""),
         _errors("a", [("Y", [0.5])], kind="architecture", hidden="arch-Y")],
        ignore_index=True,
    )  # fmt: skip
    out = with_file_levels(e)
    assert list(out["level"]) == pytest.approx([0.4, 0.4, 0.1, 0.2, 0.1])  # X's rows: Y's error; cells: all three
    assert list(out["level_rows"]) == [1, 1, 2, 3, 2]


def test_a_harder_set_is_covered_when_scaled():
    # set b errs exactly twice as much as a on every card: the plain table from a covers b's rows
    # far less often than the level says, scaled by each set's own level it covers them as a's
    rng = np.random.default_rng(0)
    base = [(c, list(rng.uniform(0, 0.3, 100))) for c in "PQRS"]
    a = _errors("a", base)
    b = _errors("b", [(c, [2 * x for x in es]) for c, es in base])
    e = with_file_levels(pd.concat([a, b], ignore_index=True))
    scaled = coverage(e, levels=(0.5, 0.8)).set_index("source")
    plain = coverage(e, levels=(0.5, 0.8), scaled=False).set_index("source")
    assert plain.loc["b", "0.8"] < 0.5 and plain.loc["a", "0.8"] == 1.0
    for src in "ab":
        for lv in ("0.5", "0.8"):
            assert abs(scaled.loc[src, lv] - float(lv)) < abs(plain.loc[src, lv] - float(lv))


def test_every_set_weighs_the_same():
    # nine rows of one set at 0.1, one row of another at 1.0: by rows the 0.8 quantile is 0.1,
    # with each set weighing half it is 1.0
    e = pd.DataFrame({"source": ["a"] * 9 + ["b"], "kind": "card", "basis": "card measured", "log_error": [0.1] * 9 + [1.0]})
    t = quantile_table(e, levels=(0.5, 0.8))["card measured"]
    assert t == {"0.5": 0.1, "0.8": 1.0}


def test_coverage_is_leave_one_set_out():
    e = pd.DataFrame(
        {"source": ["a", "a", "b", "b", "c", "c"], "kind": "card", "basis": "card measured",
         "log_error": [0.1, 0.1, 0.1, 0.1, 0.3, 0.3]}
    )  # fmt: skip
    cov = coverage(e, levels=(0.5,)).set_index("source")["0.5"]
    assert cov["c"] == 0.0  # a and b say 0.1: c's 0.3 falls outside
    assert cov["a"] == 1.0  # b and c put the median at 0.1: a's 0.1 is inside


def test_shipped_table_widens_with_level_and_with_less_to_go_by():
    t = load_intervals(INTERVALS_PATH)
    assert set(t) == set(BASES)
    for basis in BASES:
        q = [t[basis][f"{lv:g}"] for lv in LEVELS]
        assert all(0 < a <= b for a, b in itertools.pairwise(q)), basis
    for lv in LEVELS:  # a new architecture is the least certain case of all
        assert t["new architecture"][f"{lv:g}"] > t["card measured"][f"{lv:g}"]


def test_shipped_scale_is_calibrated_and_helps_where_it_was_chosen():
    import json

    from fedopt.normalize.data import TEST_ONLY_SOURCES

    doc = json.loads(INTERVALS_PATH.read_text())
    assert 0 < doc["file_scale"]["reference"] < 1
    assert set(doc["coverage_test_sets"]) == set(TEST_ONLY_SOURCES)

    def miss(key):  # mean distance of the coverage from the level, over sets and levels
        return np.mean([abs(row[lv] - float(lv)) for row in doc[key].values() for lv in doc["levels"]])

    assert miss("coverage_leave_one_set_out") < miss("coverage_leave_one_set_out_unscaled")


def test_one_card_type_scale_by_hand():
    # ratios to the table's 0.8 bound: set a 0.5, 1.5 (two rows, half weight each), set b 3.0 (one row,
    # weight one): weighted cumulative shares 0.25 (0.5), 0.5 (1.5), 1.0 (3.0), so the 0.8 quantile is 3.0
    errors = pd.DataFrame(
        {
            "source": ["a", "a", "b"],
            "basis": ["card measured", "new architecture", "card measured"],
            "log_error": [0.1, 0.75, 0.6],
        }
    )
    assert one_card_type_scale(errors, TABLE) == pytest.approx(3.0)
    assert one_card_type_scale(errors.assign(log_error=0.01), TABLE) == 1.0  # never narrower than the table
    assert one_card_type_scale(errors.iloc[:0], TABLE) == 1.0


def test_a_file_of_one_card_type_takes_the_calibrated_widening(write, tmp_path, capsys):
    """No workload on two card types: the file cannot say how hard it is, and its bounds take the
    widening that made such files of the calibration sets hold 80% of their rows; on the test sets
    it holds closer to the level than the plain table did (55% of 21,798 rows at 0.8 before it)."""
    import json

    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.data import MEASUREMENT_COLUMNS, TEST_ONLY_SOURCES, read_table
    from fedopt.normalize.intervals import scale_for

    doc = json.loads(INTERVALS_PATH.read_text())
    scale = load_one_card_type_scale()
    assert scale == doc["file_scale"]["one_card_type"] > 1.2

    def miss(key):
        return np.mean([abs(row[lv] - float(lv)) for row in doc[key].values() for lv in doc["levels"]])

    assert set(doc["coverage_one_card_type_test_sets"]) <= set(TEST_ONLY_SOURCES)
    assert miss("coverage_one_card_type_test_sets") < miss("coverage_one_card_type_test_sets_unscaled")
    one = "workload,card_type,cards,throughput\nbert,H100,8,1000\nresnet,H100,8,2000\nllama,H100,8,300\n"
    files = (write("M1.csv", one), write("Q1.csv", "workload,card_type,cards\nbert,H200,8\nbert,B200,8\n"))
    assert scale_for(read_table(files[0], MEASUREMENT_COLUMNS, "M"), **fit_settings())[0] == scale
    out = tmp_path / "P1.csv"
    from fedopt.cli import main

    assert (
        main(["normalize", "--measurements", str(files[0]), "--query", str(files[1]), "--out", str(out), "--interval", "0.8"])
        == 0
    )
    assert f"interval widths x{scale:.2f}" in capsys.readouterr().err
    p = pd.read_csv(out)
    q = load_intervals()
    for row, basis in zip(p.itertuples(), ["architecture measured", "new architecture"], strict=True):
        assert row.throughput_high / row.throughput == pytest.approx(math.exp(q[basis]["0.8"] * scale), rel=1e-4)


def test_random_cells_hide_every_measured_row_once():
    m = pd.DataFrame(
        {"workload": np.repeat(["a", "b", "c", "d"], 3), "card_type": ["H100", "A100", "L40S"] * 4,
         "cards": 1, "throughput": [3.0, 1.5, 1.0, 6.0, 3.2, 2.1, 2.0, 1.1, 0.7, 4.0, 2.0, 1.4]}
    )  # fmt: skip
    res = random_cells(m, folds=3, seed=1)
    assert len(res) == len(res[["workload", "card_type"]].drop_duplicates()) <= len(m)
    assert (res["pred"] > 0).all() and set(res["basis"]) <= {"card measured", "architecture measured"}


def test_command_writes_bounds(write, tmp_path):
    status, out = predict((write("M.csv", M), write("Q.csv", Q)), tmp_path, "--interval", "0.8")
    assert status == 0
    p = pd.read_csv(out).set_index("tag")
    assert list(p.columns[-3:]) == ["throughput", "throughput_low", "throughput_high"]
    assert p.loc["m", "throughput_low"] == p.loc["m", "throughput_high"] == pytest.approx(0.186)  # measured
    a = p.loc["a"]  # H200 from the measured H100s: a Hopper card
    assert 0 < a["throughput_low"] < a["throughput"] < a["throughput_high"]
    assert math.isnan(p.loc["h", "throughput_low"]) and math.isnan(p.loc["i", "throughput_high"])  # no specs; unmeasured


def test_command_scales_bounds_by_the_files_own_error(write, tmp_path, capsys):
    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.data import MEASUREMENT_COLUMNS, read_table
    from fedopt.normalize.intervals import scale_for

    files = (write("M.csv", M), write("Q.csv", Q))
    _, out = predict(files, tmp_path, "--interval", "0.8")
    assert "interval widths x" in capsys.readouterr().err
    scaled = pd.read_csv(out).set_index("tag")
    _, out = predict(files, tmp_path, "--interval", "0.8", "--fixed-intervals")
    fixed = pd.read_csv(out).set_index("tag")
    scale, _, rows = scale_for(read_table(files[0], MEASUREMENT_COLUMNS, "M"), **fit_settings())
    assert rows > 0 and scale != pytest.approx(1.0)
    q = load_intervals()["architecture measured"]["0.8"]  # row a: H200 beside the measured H100s
    assert fixed.loc["a", "throughput_high"] / fixed.loc["a", "throughput"] == pytest.approx(math.exp(q), rel=1e-4)
    assert scaled.loc["a", "throughput_high"] / scaled.loc["a", "throughput"] == pytest.approx(math.exp(q * scale), rel=1e-4)
    assert scaled.loc["m", "throughput_low"] == fixed.loc["m", "throughput_low"]  # measured: no width to scale


def test_fixed_intervals_need_an_interval(capsys):
    from fedopt.cli import main

    assert main(["normalize", "--measurements", "M.csv", "--query", "Q.csv", "--out", "P.csv", "--fixed-intervals"]) == 2
    assert "--fixed-intervals" in capsys.readouterr().err


def test_interval_needs_a_query(capsys):
    from fedopt.cli import main

    assert main(["normalize", "--evaluate", "--interval", "0.8"]) == 2
    assert "--interval" in capsys.readouterr().err


def test_notebook_form():
    from fedopt.normalize.intervals import predict_with_bounds
    from fedopt.normalize.model import ThroughputModel

    m = pd.DataFrame({"workload": "w", "card_type": ["H100-SXM-80GB", "A100-SXM4-80GB"], "cards": 1, "throughput": [3.0, 1.0]})
    q = pd.DataFrame({"workload": "w", "card_type": ["H200", "B200"], "cards": 1})
    out = predict_with_bounds(ThroughputModel().fit(m), q, 0.9)
    assert list(out["basis"]) == ["architecture measured", "new architecture"]
    spread = out["throughput_high"] / out["throughput_low"]
    assert 1 < spread[0] < spread[1]  # Blackwell, never measured here, is the wider


def test_a_level_without_a_table_is_refused(capsys):
    from fedopt.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["normalize", "--measurements", "M.csv", "--query", "Q.csv", "--out", "P.csv", "--interval", "0.7"])
    assert exit_.value.code == 2
    assert "one of 0.5, 0.8, 0.9, 0.95, not '0.7'" in capsys.readouterr().err
