"""One-card workloads' neighbours, by hand (the end-to-end figures are in test_evaluate)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.calibrate import fit_settings
from fedopt.normalize.cards import Card, CardResolver
from fedopt.normalize.model import ThroughputModel
from fedopt.normalize.neighbours import (
    MIN_NEIGHBOURS_ON_BOTH,
    REFERENCE_BOUND,
    REFERENCE_MAX_IQR,
    REFERENCE_NAME_BOUND,
    REFERENCE_NAME_WEIGHT,
    SPLIT_MIN_GAIN,
    SPLIT_MIN_NEIGHBOURS,
    OneCardRatios,
    ReferenceRatios,
    alike_median,
    benchmark_name,
    name_tokens,
)


def _ratios() -> OneCardRatios:
    # group 0: "solo" ran on A only; a1-a3 ran on A and B, c1 on A and C; group 1: "far" on D and E
    measured = {("solo", "A", 1): 10.0, ("far", "D", 1): 1.0, ("far", "E", 1): 2.0}
    for w in ("a1", "a2", "a3"):
        measured |= {(w, "A", 1): 1.0, (w, "B", 1): 2.0}
    measured |= {("c1", "A", 1): 1.0, ("c1", "C", 1): 5.0}
    groups = {w: 0 for w in ("solo", "a1", "a2", "a3", "c1")} | {"far": 1}
    return OneCardRatios(measured, groups)


def test_neighbours_are_those_that_ran_on_both_cards_when_there_are_enough():
    r = _ratios()
    assert set(r.one_card) == {"solo"}
    assert r.neighbours == {0: ["a1", "a2", "a3", "c1"], 1: ["far"]}
    assert MIN_NEIGHBOURS_ON_BOTH == 3
    assert r._lists[r.neighbour_set(0, "A", "B")] == ["a1", "a2", "a3"]  # three ran on A and B
    assert r._lists[r.neighbour_set(0, "A", "C")] == ["a1", "a2", "a3", "c1"]  # one did: the whole group


def test_apply_scales_the_measured_level_by_the_median_ratio():
    r = _ratios()

    def predict(wl, keys, n, use_measured, scaleout):  # every neighbour: 2 on B, 1 on A, 3 on C
        return np.array([{"A": 1.0, "B": 2.0, "C": 3.0}[k] for k in keys]) * n

    out = np.array([7.0, 7.0, 7.0, 0.0])
    wl = np.array(["solo", "solo", "a1", "solo"], dtype=object)
    r.apply(predict, wl, ["B", "A", "B", "C"], np.array([1.0, 1.0, 1.0, 1.0]), out, True)
    # solo on B: 10 x 2; on A: measured, kept as given; a1 is not a one-card workload; 0 stays 0
    assert out.tolist() == pytest.approx([20.0, 7.0, 7.0, 0.0])
    out = np.array([1.0])
    r.apply(predict, np.array(["solo"], dtype=object), ["C"], np.array([2.0]), out, True)
    # its level at its nearest measured count (1 card of A) times the neighbours' 2 cards of C over 1 of A
    assert out[0] == pytest.approx(10.0 * 6.0)


def test_name_tokens_split_at_separators_keep_formats_and_drop_bare_numbers():
    assert name_tokens("llamacpp-llama2/7B q4_0 tg") == {"llamacpp", "llama2", "llama", "7b", "q4_0", "tg"}
    assert name_tokens("mlperf-inf-v5.1/llama3.1-405b-99") == {"mlperf", "inf", "v5.1", "llama3.1", "405b"}
    # a phase glued to its length is also the phase; a length alone is no word
    assert name_tokens("llamacpp-llama3/70B F16 pp1024") >= {"pp", "pp1024", "f16"}
    assert not name_tokens("trtllm/GPTJ 6B 128/2048") & {"128", "2048"}


def _phases() -> tuple[list[str], np.ndarray]:
    # log ratios Mac / GPU: prompt processing (compute) ~ -2.3, decoding (bandwidth) ~ -0.3
    names = ["s/7B f16 pp", "s/70B q4_0 pp", "s/7B q4_0 pp", "s/7B f16 tg", "s/70B q4_0 tg", "s/7B q4_0 tg"]
    return names, np.array([-2.2, -2.4, -2.3, -0.3, -0.2, -0.35])


def test_the_neighbours_sharing_the_word_that_splits_them_give_the_ratio():
    names, d = _phases()
    assert len(d) >= SPLIT_MIN_NEIGHBOURS
    assert np.median(d) == pytest.approx(-1.275)  # both phases: fits neither
    # a decoding job's ratio is its phase's; "7b" or "q4_0" would split the ratios far less
    assert alike_median(d, names, name_tokens("s/70B f16 tg")) == pytest.approx(-0.3)
    assert alike_median(d, names, name_tokens("s/70B f16 pp")) == pytest.approx(-2.3)


def test_no_split_without_a_telling_word_or_enough_neighbours():
    names, d = _phases()
    # no word of the name splits them (only the prefix, shared by all): the median over all
    assert alike_median(d, names, name_tokens("s/13B q8_0 xx")) == pytest.approx(np.median(d))
    # three neighbours: too few to split
    assert alike_median(d[[0, 3, 4]], [names[i] for i in (0, 3, 4)], name_tokens("s/7B tg")) == pytest.approx(-0.3)
    # a split that removes less than SPLIT_MIN_GAIN of the spread is not taken
    flat = np.array([-1.0, -1.1, -0.9, -1.05, -0.95, -1.2])
    inside = np.array([n.endswith("pp") for n in names])
    a, b = flat[inside], flat[~inside]
    gain = 1 - (np.abs(a - np.median(a)).sum() + np.abs(b - np.median(b)).sum()) / np.abs(flat - np.median(flat)).sum()
    assert gain < SPLIT_MIN_GAIN
    assert alike_median(flat, names, name_tokens("s/x pp")) == pytest.approx(np.median(flat))


def test_apply_takes_the_ratio_of_the_neighbours_of_the_same_phase():
    names, d = _phases()
    measured = {("s/13B tg", "MAC", 1): 10.0}
    for w, r in zip(names, d, strict=True):
        measured |= {(w, "MAC", 1): 1.0, (w, "GPU", 1): float(np.exp(-r))}
    r = OneCardRatios(measured, {w: 0 for w, _, _ in measured})

    def predict(wl, keys, n, use_measured, scaleout):
        return np.array([measured[(w, k, int(c))] for w, k, c in zip(wl, keys, n, strict=True)])

    out = np.array([1.0])
    r.apply(predict, np.array(["s/13B tg"], dtype=object), ["GPU"], np.array([1.0]), out, True)
    assert out[0] == pytest.approx(10.0 * np.exp(0.3))  # decoding's ratio, not the median over both phases (3.6x)


def _table(logs: dict[str, tuple[list[float | None], list[str]]]) -> ReferenceRatios:
    return ReferenceRatios(
        {
            "count": 8,
            "cards": ["A", "B", "C"],
            "workloads": {w: {"log_rate": r, "measured_on": on} for w, (r, on) in logs.items()},
        }
    )


def test_the_reference_ratio_is_the_median_over_workloads_measured_on_both_cards():
    # x1-x3 measured on A and B (B/A: e^0.5, e^0.6, e^0.7); y1-y2 on A only (e^2: left out while three ran on both)
    logs = {f"x{i}": ([0.0, 0.4 + 0.1 * i, 0.0], ["A", "B"]) for i in (1, 2, 3)}
    logs |= {f"y{i}": ([0.0, 2.0, 0.0], ["A"]) for i in (1, 2)}
    r = _table(logs)
    assert r.log_ratio("A", "B") == pytest.approx(0.6)
    assert r.log_ratio("B", "A") == pytest.approx(-0.6)
    # no three ran on A and C, but five on A: their median C/A, e^0
    assert r.log_ratio("A", "C") == pytest.approx(0.0)
    assert r.log_ratio("A", "Z") is None  # a card not in the table


def test_neighbours_that_disagree_give_no_reference_ratio():
    # B/A over x1-x4: 0, 0, 0.3, 0.3: interquartile range 0.3 >= REFERENCE_MAX_IQR
    logs = {f"x{i}": ([0.0, v, 0.0], ["A", "B"]) for i, v in enumerate((0.0, 0.0, 0.3, 0.3))}
    assert REFERENCE_MAX_IQR == 0.2
    assert _table(logs).log_ratio("A", "B") is None
    # a workload predicted not to fit (None) is no neighbour: two left, too few
    logs = {f"x{i}": ([0.0, v, 0.0], ["A", "B"]) for i, v in enumerate((0.1, None, None))}
    assert _table(logs).log_ratio("A", "B") is None


def test_a_group_without_neighbours_moves_toward_the_reference_within_the_bound():
    # "solo" and "duo" ran on A only (a group each, no neighbours); the reference says B = 2 x A, C = 1.1 x A
    measured = {("solo", "A", 1): 10.0, ("duo", "A", 2): 4.0}
    logs = {f"x{i}": ([0.0, np.log(2.0), np.log(1.1)], ["A", "B", "C"]) for i in range(3)}
    r = OneCardRatios(measured, {"solo": 0, "duo": 1}, _table(logs))

    def predict(wl, keys, n, use_measured, scaleout):  # never called: no group has neighbours
        raise AssertionError

    wl = np.array(["solo", "solo", "duo", "solo", "solo"], dtype=object)
    out = np.array([10.0, 10.0, 3.0, 7.0, 0.0])  # the model's predictions, from its priors
    r.apply(predict, wl, ["B", "C", "B", "A", "B"], np.array([1.0, 1.0, 4.0, 1.0, 1.0]), out, True)
    assert REFERENCE_BOUND == 1.2
    # solo on B: the reference says 20, at most 1.2 x the model's 10; on C: 11, within the bound;
    # duo at 4 cards of B: 4 / 2 x 4 x 2 = 16 per the reference, 3 x 1.2 allowed; measured and 0 kept
    assert out.tolist() == pytest.approx([12.0, 11.0, 3.6, 7.0, 0.0])
    # without a reference the model's predictions stand
    out = np.array([10.0, 10.0, 3.0, 7.0, 0.0])
    OneCardRatios(measured, {"solo": 0, "duo": 1}).apply(predict, wl, ["B", "C", "B", "A", "B"], np.ones(5), out, True)
    assert out.tolist() == [10.0, 10.0, 3.0, 7.0, 0.0]


def test_benchmark_names_drop_the_prefix_case_separators_and_accuracy_suffix():
    assert benchmark_name("mlperf-inf-v4.1/llama2-70b-99") == "llama2-70b"
    assert benchmark_name("mlperf-inf-v6.1-server/llama2-70b-99.9") == "llama2-70b"
    assert benchmark_name("mlperf-inf-v5.0/llama3_1-405b") == benchmark_name(" Llama3.1 405B ") == "llama3-1-405b"
    assert benchmark_name("team/a/resnet50") == "resnet50"
    assert benchmark_name("gpt-99b") == "gpt-99b"  # a size, not the accuracy suffix


def test_a_workload_named_as_a_calibration_benchmark_takes_that_benchmark_s_ratio():
    # x1-x3 (B/A e^0.1 each, measured on both) agree; "suite-1/bert-99" (B/A e^1.0) and "suite-2/bert"
    # (e^0.8, measured on neither card: its calibrated rate still counts) are the benchmark "bert": e^0.9
    logs = {f"x{i}": ([0.0, 0.1, 0.0], ["A", "B"]) for i in (1, 2, 3)}
    logs |= {"suite-1/bert-99": ([0.0, 1.0, None], ["A"]), "suite-2/bert": ([0.0, 0.8, 0.3], ["C"])}
    r = _table(logs)
    assert r.named_log_ratio("BERT", "A", "B") == pytest.approx(0.9)
    assert r.named_log_ratio("my/bert-99.9", "B", "A") == pytest.approx(-0.9)
    assert r.named_log_ratio("bert", "A", "C") == pytest.approx(0.3)  # suite-1's None (does not fit) left out
    assert r.named_log_ratio("gptj", "A", "B") is None  # no such benchmark
    assert r.named_log_ratio("bert", "A", "Z") is None  # a card not in the table
    measured = {("bert", "A", 1): 10.0, ("gptj", "A", 1): 10.0}

    def predict(wl, keys, n, use_measured, scaleout):  # never called: no group has neighbours
        raise AssertionError

    out = np.array([10.0, 10.0, 20.0, 10.0])  # the model's predictions, from its priors
    wl = np.array(["bert", "gptj", "bert", "bert"], dtype=object)
    OneCardRatios(measured, {"bert": 0, "gptj": 1}, r).apply(predict, wl, ["B", "B", "B", "C"], np.ones(4), out, True)
    assert REFERENCE_NAME_BOUND == 1.5
    # bert on B: 10 e^0.9 = 24.6, at most 1.5 x the model's 10 (15), and within it from 20 (24.6);
    # gptj: no benchmark of its name, every workload's ratio (e^0.1 = 1.105, within 1.2 x);
    # bert on C: its benchmark's e^0.3 (13.5), not the all-workload median (0)
    assert out.tolist() == pytest.approx([15.0, 10.0 * np.exp(0.1), 10.0 * np.exp(0.9), 10.0 * np.exp(0.3)])


def test_of_a_benchmark_s_workloads_those_sharing_the_most_words_of_the_name_count():
    # three calibration "resnet50"s: B/A e^1.0 at fp16, e^0.2 at fp32, and a bf16 one predicted not to fit on B
    r = _table(
        {
            "tf-fp16/resnet50": ([0.0, 1.0, 0.0], ["A", "B"]),
            "tf-fp32/resnet50": ([0.0, 0.2, 0.0], ["A", "B"]),
            "tf-bf16/resnet50": ([0.0, None, 0.0], ["A"]),
        }
    )
    assert r.named_log_ratio("pt-fp32/resnet50", "A", "B") == pytest.approx(0.2)  # shares fp32 (and fp, resnet50, resnet)
    assert r.named_log_ratio("pt-fp16/resnet50", "A", "B") == pytest.approx(1.0)
    assert r.named_log_ratio("ResNet50", "A", "B") == pytest.approx(0.6)  # no word tells them apart: the median of both
    assert r.named_log_ratio("pt-bf16/resnet50", "A", "B") == pytest.approx(0.6)  # its closest does not fit: the others
    assert r.named_log_ratio("pt-bf16/resnet50", "A", "C") == pytest.approx(0.0)  # ... but on C it does


def test_beside_the_file_s_neighbours_a_calibration_namesake_counts_half():
    # "bert" ran on A only (10 at 1 card) in a file whose neighbours a1-a3 say B = 2 x A; the
    # calibration's "bert" says B = 8 x A (e^ln 8). "solo" has no namesake: the neighbours' ratio alone
    measured = {("bert", "A", 1): 10.0, ("solo", "A", 1): 10.0}
    for w in ("a1", "a2", "a3"):
        measured |= {(w, "A", 1): 1.0, (w, "B", 1): 2.0}
    groups = {w: 0 for w in ("bert", "solo", "a1", "a2", "a3")}
    ref = _table({"suite/bert-99": ([0.0, float(np.log(8.0)), 0.0], ["A", "B"])})
    r = OneCardRatios(measured, groups, ref)

    def predict(wl, keys, n, use_measured, scaleout):  # every neighbour: 2 per card on B, 1 on A
        return np.array([{"A": 1.0, "B": 2.0}[k] for k in keys]) * n

    out = np.array([1.0, 1.0, 1.0])
    r.apply(predict, np.array(["bert", "solo", "bert"], dtype=object), ["B", "B", "B"], np.array([1.0, 1.0, 2.0]), out, True)
    assert REFERENCE_NAME_WEIGHT == 0.5
    # bert on 1 B: sqrt(10 x 2 x 10 x 8) = 40; solo: 10 x 2; bert on 2 B: the neighbours' 2 B / 1 A = 4,
    # the namesake's linear in the count 2 x 8 = 16: 10 x sqrt(4 x 16) = 80
    assert out.tolist() == pytest.approx([40.0, 20.0, 80.0])


def test_the_command_s_fit_of_a_file_of_one_card_type_uses_the_shipped_reference():
    # three jobs on H100 SXM only; the shipped table's neighbours: H200 / H100 agree (its median taken
    # whole, within the bound), L40S / H100 too (bounded), A100 / H100 do not (the model's ratio stands)
    settings = fit_settings()
    ref = ReferenceRatios(settings["reference"])
    assert ref.log_ratio("H100-SXM-80GB", "A100-SXM4-80GB") is None
    m = pd.DataFrame({"workload": ["x", "y", "z"], "card_type": "H100 SXM", "cards": 8, "throughput": [100.0, 50.0, 10.0]})
    q = pd.DataFrame({"workload": ["x", "y", "z"], "card_type": ["A100 SXM4 80GB", "L40S", "H200 SXM"], "cards": 8})
    fitted = ThroughputModel(**settings).fit(m)
    assert fitted.one_card_type()  # no workload on two card types
    with_reference = fitted.predict(q)
    without = ThroughputModel(**{k: v for k, v in settings.items() if k != "reference"}).fit(m).predict(q)
    assert with_reference[0] == pytest.approx(without[0], rel=1e-9)
    assert with_reference[2] == pytest.approx(10.0 * np.exp(ref.log_ratio("H100-SXM-80GB", "H200-SXM-141GB")))
    assert with_reference[2] != pytest.approx(without[2])
    assert 1 / REFERENCE_BOUND - 1e-9 <= with_reference[1] / without[1] <= REFERENCE_BOUND + 1e-9


def test_a_users_card_reads_the_reference_as_its_catalog_twin():
    # --cards ids "h100" and "h200" with the catalog's BF16 peaks stand for the H100 / H200 SXM rows of
    # the table; an "h200" of 400 TFLOPS is another card and keeps the model's ratio
    settings = fit_settings()
    ref = ReferenceRatios(settings["reference"])
    m = pd.DataFrame({"workload": ["x", "y", "z"], "card_type": "h100", "cards": 8, "throughput": [100.0, 50.0, 10.0]})
    q = pd.DataFrame({"workload": ["z"], "card_type": ["h200"], "cards": 8})
    h100 = Card(id="h100", bf16_tflops=989, mem_bw_gbs=3350, memory_gb=80, scaleup_gbs=900)
    for bf16, twin in ((989, True), (400, False)):
        h200 = Card(id="h200", bf16_tflops=bf16, mem_bw_gbs=4800, memory_gb=141, scaleup_gbs=900)
        model = ThroughputModel(resolver=CardResolver(extra=[h100, h200]), **settings).fit(m)
        assert model._catalog_id("h200") == ("H200-SXM-141GB" if twin else "h200")
        if twin:
            assert model.predict(q)[0] == pytest.approx(10.0 * np.exp(ref.log_ratio("H100-SXM-80GB", "H200-SXM-141GB")))
        else:
            plain = {k: v for k, v in settings.items() if k != "reference"}
            alone = ThroughputModel(resolver=CardResolver(extra=[h100, h200]), **plain).fit(m)
            assert model.predict(q)[0] == pytest.approx(alone.predict(q)[0], rel=1e-9)
