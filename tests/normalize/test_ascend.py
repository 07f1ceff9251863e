"""Huawei's ModelZoo tables (Atlas A2, i.e. Ascend 910B, beside an A100-class GPU) as a test set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.calibrate import fit_settings
from fedopt.normalize.data import ASCEND_CSV, TEST_ONLY_SOURCES, ascend_benchmarks
from fedopt.normalize.evaluate import leave_one_card_out
from tests.normalize.conftest import measured_cell


@pytest.fixture(scope="module")
def ascend() -> pd.DataFrame:
    return ascend_benchmarks()


def test_rows_as_published(ascend):
    d = ascend
    assert set(d["source"]) == {"ascend-modelzoo"} <= set(TEST_ONLY_SOURCES)
    # by hand from the READMEs: Qwen1.5 7B fine-tuning at 20.367 samples/s on 8 GPUs, 21.926 on 8 Atlas A2
    assert measured_cell(d, "ascend-modelzoo/Qwen1.5 7B bf16", "A100", 8) == 20.367
    assert measured_cell(d, "ascend-modelzoo/Qwen1.5 7B bf16", "Ascend 910B", 8) == 21.926
    # a time per step is a rate of its inverse (Magvit2: 1.12 s/step on the GPUs, 1.40 on the NPUs)
    assert measured_cell(d, "ascend-modelzoo/Magvit2 bf16", "A100", 8) == pytest.approx(1 / 1.12)
    # tokens/s per card times the cards: the whole job's
    assert measured_cell(d, "ascend-modelzoo/Qwen-VL bf16", "A100", 8) == pytest.approx(8 * 1796)
    # every workload is a pair: the same model, table, precision and card count on both
    assert (d.groupby("workload")["card_type"].nunique() == 2).all()
    assert not d.duplicated(["workload", "card_type", "cards"]).any()
    assert len(d) == len(pd.read_csv(ASCEND_CSV)) == 2 * 122


def test_units(tmp_path):
    csv = tmp_path / "pairs.csv"
    csv.write_text(
        "repo,path,commit,model,table,row_label,card,cards,precision,value,unit,kind,per_card,batch\n"
        "r,p,c,M,,8p-GPU,A100,8,bf16,500,ms/step,time,no,8\n"
        "r,p,c,M,,8p-Atlas 800T A2,Ascend 910B,8,bf16,250,ms/step,time,no,8\n"
        "r,p,c,N,t bf16,8p-GPU,A100,16,bf16,100,tokens/p/s,rate,yes,1\n"
    )
    d = ascend_benchmarks(csv)
    assert measured_cell(d, "ascend-modelzoo/M bf16", "A100", 8) == pytest.approx(2.0)
    assert measured_cell(d, "ascend-modelzoo/M bf16", "Ascend 910B", 8) == pytest.approx(4.0)
    assert measured_cell(d, "ascend-modelzoo/N t bf16", "A100", 16) == pytest.approx(1600.0)  # precision not repeated


def test_the_910b_from_an_a100_file_and_back(ascend):
    # measured before any change (2026-12-06, `normalize --evaluate --held-out --sets ascend-modelzoo
    # --by-card`, 122 pairs): the 910B hidden, predicted from its workloads' GPU rows and its specs (no
    # calibrated DaVinci efficiency): median error 16.0%, median bias +8.3%. The GPU hidden read +15%
    # until the catalog's 910B scale-up figure was corrected to its aggregate (392 GB/s, not one 56 GB/s
    # link; catalog_corrections.csv): -0.7% since, 15.0%; this set prompted that correction
    res = leave_one_card_out(ascend, **fit_settings())
    for card, err, bias in (("Ascend-910B", 0.18, 0.12), ("A100-SXM4-80GB", 0.18, 0.05)):
        ratio = res.loc[res["card"] == card, "pred"] / res.loc[res["card"] == card, "throughput"]
        assert len(ratio) == 122
        assert np.median(np.abs(ratio - 1)) < err, card
        assert abs(np.median(ratio) - 1) < bias, card
