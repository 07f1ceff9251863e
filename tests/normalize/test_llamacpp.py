"""llama.cpp's published tokens/s (data/llamacpp/): a test set of other workloads (quantized LLM
decoding and prompt processing) on consumer and workstation cards, never calibrated on."""

from __future__ import annotations

import pandas as pd
import pytest

from fedopt.normalize.calibrate import fit_settings
from fedopt.normalize.data import TEST_ONLY_SOURCES, llamacpp_benchmarks
from fedopt.normalize.evaluate import leave_one_card_out
from fedopt.normalize.scores import summary
from tests.normalize.conftest import measured_cell


@pytest.fixture(scope="module")
def llamacpp() -> pd.DataFrame:
    return llamacpp_benchmarks()


def test_rows_as_published(llamacpp):
    # by hand from the repository's README tables (data/README.md): LLaMA 3 70B F16 prompt
    # processing of 8192 tokens on 8 RTX 4090s, 1995.85 tokens/s; LLaMA 2 7B q4_0 decoding on one
    # H100 PCIe, 133.77; out-of-memory cells (4080 8B F16 tg8192) and Apple silicon (no specs) absent
    d = llamacpp
    assert set(d["source"]) == {"llamacpp-llama2", "llamacpp-llama3"} <= set(TEST_ONLY_SOURCES)
    assert measured_cell(d, "llamacpp-llama3/70B F16 pp8192", "4090 24GB", 8) == 1995.85
    assert measured_cell(d, "llamacpp-llama2/7B q4_0 tg", "H100 PCIe 80GB", 1) == 133.77
    assert d[(d["workload"] == "llamacpp-llama3/8B F16 tg8192") & (d["card_type"] == "4080 16GB")].empty
    assert not d["card_type"].str.contains("M2 Ultra|M3 Max").any()
    # the RTX 4070 Ti's eight rows since its catalog entry (2026-12-04; README: 8B Q4_K_M tg1024 82.21), the RTX
    # 4000 / 5000 Ada's 14 + 4 since theirs (the same day; 7B f16 tg on one 4000 Ada 22.96): 100 + 238 rows
    assert measured_cell(d, "llamacpp-llama3/8B Q4_K_M tg1024", "4070 Ti 12GB", 1) == 82.21
    assert measured_cell(d, "llamacpp-llama2/7B f16 tg", "RTX 4000 Ada 20GB", 1) == 22.96
    assert len(d) == 338 and (d["throughput"] > 0).all()


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
    # card's: still the largest misses)
    tab = _loco(llamacpp[llamacpp["source"] == "llamacpp-llama2"])
    assert tab["model_median"] < 0.75 * tab["peak_tflops_median"]
