"""Property-based tests of the ``normalize`` command (hypothesis): any valid measurement and query
tables give a finite, non-negative prediction for every query row, measured cells come back as
measured (a 0 where the card ran the job at another count is an unfilled cell: predicted), the
bounds of ``--interval`` hold the prediction, and arbitrary bytes are a clean exit 2 (or, when
they happen to parse, exit 0) with no traceback and nothing half-written.

CI runs a bounded number of examples; FEDOPT_FUZZ_EXAMPLES=10000 runs the long campaign.
"""

from __future__ import annotations

import contextlib
import io
import math
import os

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fedopt.cli import main

EXAMPLES = int(os.environ.get("FEDOPT_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

# catalog names as people write them, a card without specs, and the Gavel spellings
CARDS = ["H100", "NVIDIA A100-SXM4-40GB", "H20", "L40S", "Ascend 910B", "k80", "v100", "MI300X", "T4", "Mystery X1"]
WORKLOADS = ["bert", "llama", "resnet, bs 64", "rec"]
COUNTS = [1, 2, 4, 8, 16, 64, 1024]


@st.composite
def tables(draw):
    cells = draw(
        st.lists(
            st.tuples(st.sampled_from(WORKLOADS), st.sampled_from(CARDS), st.sampled_from(COUNTS)),
            min_size=1,
            max_size=25,
            unique=True,
        )
    )
    values = draw(
        st.lists(
            # NaN: written as an empty cell, a row that measured nothing (skipped with a note)
            st.one_of(st.just(0.0), st.just(math.nan), st.floats(1e-6, 1e9, allow_nan=False, allow_infinity=False)),
            min_size=len(cells),
            max_size=len(cells),
        )
    )
    if not any(v > 0 for v in values):
        values[0] = 1.0
    meas = pd.DataFrame(cells, columns=["workload", "card_type", "cards"]).assign(throughput=values)
    query = pd.DataFrame(
        draw(
            st.lists(
                st.tuples(st.sampled_from([*WORKLOADS, "never seen"]), st.sampled_from(CARDS), st.sampled_from(COUNTS)),
                min_size=1,
                max_size=30,
            )
        ),
        columns=["workload", "card_type", "cards"],
    )
    return meas, query


@FUZZ
@given(tables(), st.sampled_from([None, 0.5, 0.9]))
def test_every_query_row_gets_a_finite_prediction(tmp_path_factory, data, level):
    meas, query = data
    d = tmp_path_factory.mktemp("norm")
    m, q, out = d / "M.csv", d / "Q.csv", d / "P.csv"
    meas.to_csv(m, index=False)
    query.to_csv(q, index=False)
    extra = [] if level is None else ["--interval", str(level)]
    assert main(["normalize", "--measurements", str(m), "--query", str(q), "--out", str(out), "-q", *extra]) == 0
    p = pd.read_csv(out, keep_default_na=False)
    assert p[["workload", "card_type", "cards"]].astype(str).values.tolist() == query.astype(str).values.tolist()
    tp = p["throughput"].astype(float)
    assert tp.map(math.isfinite).all() and (tp >= 0).all()
    if level is not None:  # bounds where an evaluation covers the row, around the prediction
        for low, t, high in zip(p["throughput_low"], tp, p["throughput_high"], strict=True):
            assert (low == "") == (high == "")
            if low != "":
                assert float(low) <= t * (1 + 1e-5) and t <= float(high) * (1 + 1e-5)
    measured = {(w, c, n): t for w, c, n, t in meas.itertuples(index=False) if t == t}  # NaN rows measured nothing
    ran = {(w, c) for w, c, _, t in meas.itertuples(index=False) if t > 0}
    for (w, c, n), t in zip(query.itertuples(index=False), tp, strict=True):
        if (w, c, n) in measured:
            if measured[(w, c, n)] == 0 and (w, c) in ran:
                assert t > 0, (w, c, n)  # a 0 where the card ran the job at another count: a cell not filled
            else:
                assert math.isclose(t, measured[(w, c, n)], rel_tol=1e-5), (w, c, n)


@FUZZ
@given(st.binary(max_size=400))
def test_arbitrary_bytes_are_clean(tmp_path_factory, blob):
    d = tmp_path_factory.mktemp("junk")
    good = d / "Q.csv"
    good.write_text("workload,card_type,cards\nbert,H100,8\n")
    junk, out = d / "M.csv", d / "P.csv"
    junk.write_bytes(blob)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["normalize", "--measurements", str(junk), "--query", str(good), "--out", str(out), "-q"])
    assert status in (0, 2)
    assert "Traceback" not in err.getvalue()
    assert out.exists() == (status == 0)
