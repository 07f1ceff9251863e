"""Leave-one-card-out on the shared measurements against the spec-ratio baselines."""

from __future__ import annotations

import pytest

from fedopt.normalize.data import SHARED_DATA, shared_measurements
from fedopt.normalize.evaluate import leave_one_card_out, summary

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason="shared/data not beside the project")


@pytest.fixture(scope="module")
def table():
    return summary(leave_one_card_out(shared_measurements())).set_index("data")


def test_shared_measurements_shape():
    d = shared_measurements()
    assert set(d["source"]) == {"gavel", "mlperf"}
    assert (d["cards"] >= 1).all() and (d["throughput"] >= 0).all()
    assert d[d["source"] == "mlperf"]["cards"].eq(8).all()
    assert d[d["source"] == "gavel"]["card_type"].nunique() == 3


def test_model_beats_half_the_peak_tflops_baseline(table):
    for data in ("all", "gavel", "mlperf"):
        row = table.loc[data]
        assert row["model_median"] <= 0.5 * row["peak_tflops_median"] + 0.01, data
        assert row["model_median"] < row["best_spec_median"], data
        assert row["model_mean"] < row["peak_tflops_mean"], data


def test_error_levels(table):
    # measured: all 17.8%, Gavel 21.6%, MLPerf 8.3% (docs/normalize.md). Gavel's three cards leave
    # two to fit on; even a per-count linear fit chosen with hindsight stays near 20% there.
    assert table.loc["mlperf", "model_median"] <= 0.12
    assert table.loc["gavel", "model_median"] <= 0.25
    assert table.loc["all", "model_median"] <= 0.20
