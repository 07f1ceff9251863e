"""``normalize --evaluate --profiles``: profiles' ratios between cards against measured ones, by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fedopt.cli import main
from fedopt.errors import InputError
from fedopt.normalize.profiles import profile_leave_one_card_out, read_profiles

# H100 SXM: 989 TFLOPS BF16, 3,350 GB/s; A100 SXM4 80GB: 312, 2,039; L40S: 362, 864 (catalog)
MEASURED = pd.DataFrame(
    {
        "workload": ["gemm", "gemm", "gemm", "stream", "stream", "stream"],
        "card_type": ["H100", "A100-SXM4-80GB", "L40S"] * 2,
        "cards": [1, 1, 1, 1, 1, 1],
        "throughput": [10.0, 3.0, 4.0, 10.0, 6.0, 2.5],
    }
)


def test_read_profiles(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("workload,precision,gb_per_unit,note\ngemm,bf16,,compute-bound\nstream,,100,memory-bound\n")
    got = read_profiles(path)
    assert got["gemm"].tflop_per_unit == 1.0 and got["gemm"].gb_per_unit == 0.0 and got["gemm"].precision == "bf16"
    assert got["stream"].gb_per_unit == 100.0 and got["stream"].precision == "bf16"


@pytest.mark.parametrize(
    "text, where",
    [
        ("job,precision\ngemm,bf16\n", "line 1"),
        ("workload,precision\ngemm,fp6\n", "line 2, column precision"),
        ("workload,tflop_per_unit\ngemm,-1\n", "line 2, column tflop_per_unit"),
        ("workload,gb_per_unit\ngemm,inf\n", "line 2, column gb_per_unit"),
        ("workload,precision\ngemm,bf16\ngemm,fp8\n", "line 3, column workload"),
        ("workload,precision\n,bf16\n", "line 2, column workload"),
    ],
)
def test_bad_profiles_name_the_cell(tmp_path, text, where):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_profiles(path)
    assert err.value.path == where


def test_profile_ratios_by_hand():
    # "gemm" compute-bound: its ratios are the BF16 peaks' (the peak-TFLOPS baseline's exactly);
    # "stream" moves 1,000 GB per TFLOP: memory-bound on every card, its ratios the bandwidths'
    profiles = read_profiles_from({"gemm": {}, "stream": {"gb_per_unit": 1000.0}})
    res = profile_leave_one_card_out(MEASURED, profiles).set_index(["workload", "card"])
    gemm, stream = res.loc["gemm"], res.loc["stream"]
    assert gemm["pred"].tolist() == pytest.approx(gemm["base_bf16_tflops"].tolist())
    assert stream["pred"].tolist() == pytest.approx(stream["base_mem_bw_gbs"].tolist())
    # the A100 hidden: from H100 (10 x 312 / 989) and L40S (4 x 312 / 362), averaged geometrically
    expect = (10 * 312 / 989 * 4 * 312 / 362) ** 0.5
    assert gemm.loc["A100-SXM4-80GB", "pred"] == pytest.approx(expect)


def read_profiles_from(rows: dict[str, dict]) -> dict:
    from fedopt.instance.schema import Profile

    return {w: Profile(tflop_per_unit=1.0, **fields) for w, fields in rows.items()}


def test_cli_on_a_users_files(tmp_path, capsys):
    m, p = tmp_path / "m.csv", tmp_path / "p.csv"
    MEASURED.to_csv(m, index=False)
    p.write_text("workload,precision,gb_per_unit\ngemm,bf16,0\nstream,bf16,1000\n")
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--profiles", str(p), "--no-priors"]) == 0
    out = capsys.readouterr().out
    assert "| all | 6 | 3 | 2 |" in out and "profile median" in out
    args = ["normalize", "--evaluate", "--measurements", str(m), "--profiles", str(p), "--no-priors", "--json"]
    assert main(args) == 0
    (section,) = json.loads(capsys.readouterr().out)["sections"]
    first = section["rows"][0]
    assert section["name"] == "profiles" and (first["data"], first["rows"], first["cards"], first["workloads"]) == (
        "all",
        6,
        3,
        2,
    )
    assert f"| {100 * first['profile_median']:.1f}% | {100 * first['peak_tflops_median']:.1f}% |" in out
    rows = tmp_path / "rows.csv"
    args = ["normalize", "--evaluate", "--measurements", str(m), "--profiles", str(p), "--no-priors", "--rows", str(rows)]
    assert main(args) == 0 and "wrote 6 evaluated rows" in capsys.readouterr().err
    assert set(pd.read_csv(rows)["table"]) == {"profiles"}
    assert main(["normalize", "--profiles", str(p)]) == 2
    assert "goes with --evaluate" in capsys.readouterr().err
    p.write_text("workload,precision\nother,bf16\n")
    assert main(["normalize", "--evaluate", "--measurements", str(m), "--profiles", str(p)]) == 2
    assert "no workload of the measurements has a profile" in capsys.readouterr().err
