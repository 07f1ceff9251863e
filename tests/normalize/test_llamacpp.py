"""llama.cpp's published tokens/s (data/llamacpp/): a test set of other workloads (quantized LLM
decoding and prompt processing) on consumer and workstation cards, never calibrated on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.calibrate import fit_settings
from fedopt.normalize.data import TEST_ONLY_SOURCES, llamacpp_benchmarks
from fedopt.normalize.evaluate import leave_one_card_out
from fedopt.normalize.model import ThroughputModel
from fedopt.normalize.scores import summary
from tests.normalize.conftest import measured_cell


@pytest.fixture(scope="module")
def llamacpp() -> pd.DataFrame:
    return llamacpp_benchmarks()


def test_rows_as_published(llamacpp):
    # by hand from the repository's README tables (data/README.md): LLaMA 3 70B F16 prompt
    # processing of 8192 tokens on 8 RTX 4090s, 1995.85 tokens/s; LLaMA 2 7B q4_0 decoding on one
    # H100 PCIe, 133.77; out-of-memory cells (4080 8B F16 tg8192) absent
    d = llamacpp
    assert set(d["source"]) == {"llamacpp-llama2", "llamacpp-llama3"} <= set(TEST_ONLY_SOURCES)
    assert measured_cell(d, "llamacpp-llama3/70B F16 pp8192", "4090 24GB", 8) == 1995.85
    assert measured_cell(d, "llamacpp-llama2/7B q4_0 tg", "H100 PCIe 80GB", 1) == 133.77
    assert d[(d["workload"] == "llamacpp-llama3/8B F16 tg8192") & (d["card_type"] == "4080 16GB")].empty
    # the RTX 4070 Ti's eight rows since its catalog entry (2026-12-04; README: 8B Q4_K_M tg1024 82.21), the RTX
    # 4000 / 5000 Ada's 14 + 4 since theirs (the same day; 7B f16 tg on one 4000 Ada 22.96): 100 + 238 rows then
    assert measured_cell(d, "llamacpp-llama3/8B Q4_K_M tg1024", "4070 Ti 12GB", 1) == 82.21
    assert measured_cell(d, "llamacpp-llama2/7B f16 tg", "RTX 4000 Ada 20GB", 1) == 22.96
    # Apple silicon's 22 since the four chips' catalog entries (2026-12-07; M2 Ultra 76-core 7B q4_0 tg 91.89): 122 + 238
    assert measured_cell(d, "llamacpp-llama2/7B q4_0 tg", "M2 Ultra 76-Core GPU 192GB", 1) == 91.89
    assert d["card_type"].str.contains("M1 Max|M2 Ultra|M3 ").sum() == 22
    assert len(d) == 360 and (d["throughput"] > 0).all()


def _loco(d: pd.DataFrame) -> pd.Series:
    # the shipped priors never saw these sets (data.TEST_ONLY_SOURCES): no recalibration needed
    return summary(leave_one_card_out(d, **fit_settings())).set_index("data").loc["all"]


def test_llama3_set_beats_the_spec_ratios(llamacpp):
    # six GeForce cards, 1-8 GPUs: measured 19.9% median (17.7% since the serial fraction; 17.2% on
    # seven since the RTX 4070 Ti's rows; 15.7% since its double-well prior, `--held-out`) against
    # the peak-TFLOPS ratio's 31.2% and the best single
    # spec's (board power, chosen with hindsight) 24.7% (one-GPU rows 7.4%; the multi-GPU layer
    # split does not scale as data-parallel jobs do)
    tab = _loco(llamacpp[llamacpp["source"] == "llamacpp-llama3"])
    assert tab["model_median"] < 0.25
    assert tab["model_median"] < min(tab["peak_tflops_median"], tab["best_spec_median"])


def test_llama2_set_beats_the_peak_ratio(llamacpp):
    # seven cards from RTX 3090 to H100 PCIe: measured 32.2% (before and after the serial fraction's
    # first prior; 24.7% with its double well, `--held-out`) against the peak ratio's 51.4% and
    # memory bandwidth's 31.8%, not better than the best single spec chosen with hindsight (board power, 21.0%
    # with the shipped priors; the RTX 3090's multi-GPU prompt processing runs at a tenth of one
    # card's: still the largest misses); with four Apple chips' 22 rows since 2026-12-07, 22.5% against 53.1%
    tab = _loco(llamacpp[llamacpp["source"] == "llamacpp-llama2"])
    assert tab["model_median"] < 0.75 * tab["peak_tflops_median"]


def test_apple_chips_from_their_specs_alone(llamacpp):
    # every Apple row of the LLaMA 2 set hidden at once (a vendor the fit never saw): 29.0% median error
    # from the catalog's specs, 286% as cards without specs (the fit's typical card), measured 2026-12-07
    d = llamacpp[llamacpp["source"] == "llamacpp-llama2"]
    apple = d["card_type"].str.contains("M1 Max|M2 Ultra|M3 ")
    model = ThroughputModel(**fit_settings()).fit(d[~apple])
    hidden = d[apple]
    err = np.abs(model.predict(hidden) / hidden["throughput"].to_numpy() - 1)
    codes = pd.Series(hidden["card_type"].factorize()[0], index=hidden.index).astype(str)
    unnamed = hidden.assign(card_type="Unnamed accelerator " + codes)
    err_unnamed = np.abs(model.predict(unnamed) / hidden["throughput"].to_numpy() - 1)
    assert len(err) == 22 and np.median(err) < 0.4
    assert np.median(err_unnamed) > 2 * np.median(err)
