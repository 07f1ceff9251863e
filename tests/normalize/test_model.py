"""The throughput model: number-format shares, links, the serial fraction, replicas of a model that fits one card."""

from __future__ import annotations

import pandas as pd
import pytest

from fedopt.normalize.cards import CardResolver
from fedopt.normalize.model import Hyper, ThroughputModel

# V100 and TITAN V have no INT8/FP8 matrix units (8-bit peak = BF16's), B200, GB200 and MI355X
# have FP4 at 4x BF16; on the others the 8-bit peak is 2x BF16 and there is no FP4. The shares are
# pulled toward the prior (mostly BF16, 1% FP4): several cards at several counts must show a format.
MEASURED = ["H100", "A100", "V100", "TITAN V", "B200", "GB200", "MI355X"]
COUNTS = (1, 2, 4, 8)
PEAK = {"tf32": "tf32", "bf16": "bf16_tflops", "fp8": "p8", "fp4": "p4"}  # each job runs at one format's peak
JOBS = {"pretrain": "bf16", "cnn-int8": "fp8", "decode-fp4": "fp4", "fp32-train": "tf32"}


@pytest.fixture(scope="module")
def model():
    res = CardResolver()
    rows = [
        (job, card, n, n * getattr(res.resolve(card), PEAK[fmt]) / 1000)
        for job, fmt in JOBS.items()
        for card in MEASURED
        for n in COUNTS
    ]
    return ThroughputModel().fit(pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"]))


def _predict(model, card: str) -> dict[str, float]:
    q = pd.DataFrame({"workload": list(JOBS), "card_type": card, "cards": 8})
    return dict(zip(JOBS, model.predict(q, use_measured=False), strict=True))


def test_format_shares_are_read_from_the_data(model):
    # priors: TF32 2%, BF16 83%, 8-bit 14%, 4-bit 1%
    assert model.shares("pretrain")["bf16"] >= 0.84
    assert model.shares("cnn-int8")["fp8"] > 0.4
    assert model.shares("decode-fp4")["fp4"] > 0.4
    # the V100 and TITAN V run FP32 work at their vector peak (no TF32): 8x slower than BF16
    assert model.shares("fp32-train")["tf32"] > 0.4
    assert model.shares("pretrain")["tf32"] < 0.05


def test_a_new_card_is_predicted_at_the_format_its_job_uses(model):
    # B300 (not measured): the B200's BF16 and 8-bit peaks, 13 PFLOPS FP4 against 9
    b300, b200 = _predict(model, "B300"), _predict(model, "B200")
    assert b300["pretrain"] / b200["pretrain"] == pytest.approx(1.0, abs=0.05)
    assert b300["decode-fp4"] / b200["decode-fp4"] == pytest.approx(13000 / 9000, rel=0.15)
    # RTX 4090 (not measured): INT8 at 4x its BF16 (FP32-accumulate) peak, where an H100 has 2x: the
    # INT8 job gains up to 2x over the BF16 one on it (less the time the fit leaves to memory and host;
    # without format shares both would be predicted alike, 1x)
    rtx, h100 = _predict(model, "RTX 4090"), _predict(model, "H100")
    gain = (rtx["cnn-int8"] / rtx["pretrain"]) / (h100["cnn-int8"] / h100["pretrain"])
    assert 1.25 < gain <= 2.05


def test_an_fp32_job_on_a_card_without_tf32(model):
    # Quadro RTX 8000 (not measured): FP16 matrix units at 8x its FP32 peak and no TF32, where an
    # RTX A6000 runs FP32 work as TF32 at half its BF16 peak: the FP32 job loses far more on the Quadro
    quadro, a6000 = _predict(model, "Quadro RTX 8000"), _predict(model, "RTX A6000")
    assert (quadro["fp32-train"] / quadro["pretrain"]) < 0.5 * (a6000["fp32-train"] / a6000["pretrain"])


def test_basis_says_what_each_prediction_rests_on():
    m = pd.DataFrame(
        [("bert", "H100", 8, 10.0), ("bert", "A100", 8, 4.0), ("resnet", "H100", 8, 50.0), ("resnet", "L40S", 1, 3.0)],
        columns=["workload", "card_type", "cards", "throughput"],
    )
    model = ThroughputModel().fit(m)
    q = pd.DataFrame(
        [
            ("bert", "NVIDIA H100-SXM5-80GB", 8, "measured"),  # another name of a measured cell
            ("bert", "H100", 1, "card measured"),  # another count
            ("resnet", "A100", 8, "card measured"),  # other workloads ran on it
            ("bert", "H20", 8, "architecture measured"),  # Hopper: the H100's efficiency
            ("bert", "RTX 4090", 1, "architecture measured"),  # Ada: the L40S's
            ("bert", "B200", 8, "new architecture"),  # no Blackwell card measured
            ("bert", "MI300X", 8, "new architecture"),
            ("bert", "Totally Unknown Accelerator", 8, "no specs"),
            ("never-seen", "H100", 8, "workload unmeasured"),
        ],
        columns=["workload", "card_type", "cards", "expected"],
    )
    assert list(model.basis(q)) == list(q["expected"])
    assert len(model.basis(q.iloc[:0])) == 0


def test_a_prediction_of_zero_from_a_failure_says_so():
    # a 70B job failed (0) on a 24 GB card and ran on an 80 GB one: a 16 GB card is ineligible, and
    # a job that failed everywhere it was tried is 0 on a card no larger, not the average level
    m = pd.DataFrame(
        [("llm70b", "RTX 4090", 1, 0.0), ("llm70b", "H100", 1, 20.0), ("huge", "H100", 1, 0.0), ("cnn", "H100", 1, 9.0)],
        columns=["workload", "card_type", "cards", "throughput"],
    )
    model = ThroughputModel().fit(m)
    q = pd.DataFrame(
        [("llm70b", "RTX 4080", 1), ("llm70b", "A100-80GB", 1), ("huge", "A100-80GB", 1), ("huge", "B200", 1)],
        columns=["workload", "card_type", "cards"],
    )
    assert list(model.predict(q) == 0) == [True, False, True, False]
    assert list(model.basis(q)) == ["ineligible", "new architecture", "ineligible", "workload unmeasured"]


def test_a_fitted_model_pickles_and_predicts_the_same():
    # worker processes and notebooks pickle fitted models; the fit's objective stays behind
    import pickle

    m = pd.DataFrame(
        [("bert", "H100", 8, 10.0), ("bert", "A100", 8, 4.0), ("resnet", "H100", 1, 50.0), ("resnet", "L40S", 1, 21.0)],
        columns=["workload", "card_type", "cards", "throughput"],
    )
    model = ThroughputModel().fit(m)
    copy = pickle.loads(pickle.dumps(model))
    q = pd.DataFrame({"workload": ["bert", "resnet"], "card_type": ["H20", "A100"], "cards": [8, 1]})
    assert list(copy.predict(q)) == list(model.predict(q)) and copy._objective is None
    assert model._objective is not None  # the original keeps it for diagnostics


def test_a_pcie_ring_is_not_extrapolated_from_nvlink_rows():
    # every multi-card row on NVLink (H100 SXM 900 GB/s, B200 1,800): the file cannot say how much a
    # PCIe ring (H100 PCIe, 128 GB/s) slows a job, so it slows it no more than the narrowest link
    # it saw; with the extrapolation (clip_links off) the same fit predicts it far slower
    rows = [(w, c, n, level * f * n) for w, level in (("a", 1.0), ("b", 2.0), ("c", 0.5))
            for c, f in (("H100-SXM-80GB", 1.0), ("B200-SXM-180GB", 2.6)) for n in (1, 8)]  # fmt: skip
    m = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    q = pd.DataFrame({"workload": "a", "card_type": ["H100-PCIe-80GB", "H100-PCIe-80GB"], "cards": [1, 8]})
    one, eight = ThroughputModel().fit(m).predict(q)
    assert eight / (8 * one) > 0.9  # as SXM's own 8-card rows scale: linearly here
    one_x, eight_x = ThroughputModel(hyper=Hyper(clip_links=False)).fit(m).predict(q)
    assert eight_x / (8 * one_x) < eight / (8 * one)


def test_a_job_that_does_not_speed_up_with_cards_is_read_as_one():
    # llama.cpp's layer split: one token at a time through every card, so 1-8 cards decode at one
    # card's speed; a data-parallel job on the same cards scales. The serial fraction's double-well
    # prior lets each job's own rows pick its end (hand-made: "flat" is 100 and 60 tokens/s at every
    # count, "dp" 0.95 n times its one-card speed)
    rows = [("flat", c, n, level) for c, level in (("RTX 4090", 100.0), ("RTX 3090", 60.0)) for n in (1, 2, 4)]
    rows += [("dp", c, n, level * n * (0.95 if n > 1 else 1.0)) for c, level in (("RTX 4090", 50.0), ("RTX 3090", 30.0))
             for n in (1, 2, 4)]  # fmt: skip
    model = ThroughputModel().fit(pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"]))
    assert model.shares("flat")["serial"] > 0.9 and model.shares("dp")["serial"] < 0.05
    q = pd.DataFrame({"workload": ["flat", "dp"], "card_type": "RTX 4090", "cards": 8})
    flat8, dp8 = model.predict(q)
    assert flat8 == pytest.approx(100.0, rel=0.15)  # one card's speed, not 8x nor a fall
    assert dp8 == pytest.approx(0.95 * 8 * 50.0, rel=0.15)


def test_a_model_that_fits_on_one_card_runs_as_replicas():
    # hand-made, PCIe cards: a training job ("bert", no size in its name) runs 8 cards at 60% of
    # linear; offline serving of a 70B model (70 GB at one byte per parameter) scales linearly on
    # 96 GB RTX PRO 6000 and 80 GB A100 PCIe cards (replicas), but 32 GB RTX PRO 4500s must split it
    # and run it at 40% of linear. Told that jobs run as replicas where they fit, the fit predicts a
    # new 80 GB PCIe card (H100 PCIe) linear and a 48 GB one (L40S) slowed as the split cards are;
    # without it the H100 PCIe pays about what the split cards and the training job pay
    speed = {"RTX PRO 6000 Blackwell": 3.0, "A100 PCIe 80GB": 1.5, "RTX PRO 4500 Blackwell": 1.2}
    rows = [("bert", c, n, v * n * (0.6 if n > 1 else 1.0)) for c, v in speed.items() for n in (1, 8)]
    rows += [("llama2-70b", c, n, v * n) for c, v in list(speed.items())[:2] for n in (1, 8)]
    rows += [("llama2-70b", "RTX PRO 4500 Blackwell", n, 0.4 * 1.2 * n) for n in (4, 8)]
    m = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    q = pd.DataFrame({"workload": "llama2-70b", "card_type": ["H100 PCIe", "H100 PCIe", "L40S", "L40S"], "cards": [1, 8] * 2})
    h1, h8, l1, l8 = ThroughputModel(hyper=Hyper(replicas=True)).fit(m).predict(q)
    assert h8 / (8 * h1) == pytest.approx(1.0, abs=1e-9)  # no overhead at all where it fits
    assert l8 / (8 * l1) < 0.7
    x1, x8, _, _ = ThroughputModel().fit(m).predict(q)
    assert x8 / (8 * x1) < 0.8


def test_an_architectures_calibrated_miss_moves_its_centre_when_it_is_in_the_file():
    """One MI300X row cannot show that CDNA3 runs below its peaks (a card's rows move its efficiency
    little); the calibrated miss (arch_bias) does, at Hyper.arch_bias_in_fit of its strength, also
    for a sibling the file never measured. Without a miss for the architecture nothing moves."""
    res = CardResolver()
    jobs = {"train": 1.0, "serve": 0.4}
    peak = {card: res.resolve(card).bf16_tflops / 1000 for card in ("H100", "H200", "MI300X")}
    rows = [(job, card, 8, 8 * scale * peak[card]) for job, scale in jobs.items() for card in ("H100", "H200")]
    rows += [("train", "MI300X", 8, 8 * 0.6 * peak["MI300X"])]  # CDNA3 well below its peak
    data = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    ask = pd.DataFrame({"workload": ["serve"], "card_type": ["MI325X"], "cards": [8]})
    fits = {
        share: ThroughputModel(hyper=Hyper(arch_bias_in_fit=share), arch_bias={"amd-cdna3": -0.3}).fit(data)
        for share in (0.0, 0.5, 1.0)
    }
    centre = {share: m.fitted.eta_arch["amd-cdna3"] for share, m in fits.items()}
    assert centre[1.0] < centre[0.5] < centre[0.0]
    pred = {share: float(m.predict(ask)[0]) for share, m in fits.items()}
    assert pred[1.0] < pred[0.5] < pred[0.0]
    other = ThroughputModel(hyper=Hyper(arch_bias_in_fit=1.0), arch_bias={"nvidia-blackwell": 0.3}).fit(data)
    assert other.fitted.eta_arch["amd-cdna3"] == pytest.approx(centre[0.0], abs=1e-6)


def test_a_users_card_takes_its_catalog_twins_calibrated_offset():
    """--cards (or an instance's) "h100" / "a100" with the catalog's specs are the H100 / A100 SXM the
    calibration measured: the fit gives them those cards' offsets and predicts as the catalog names do;
    an "a100" of another BF16 peak has no twin and no offset."""
    import dataclasses

    from fedopt.normalize.calibrate import fit_settings

    settings = {k: v for k, v in fit_settings().items() if k != "reference"}  # card priors, not namesakes
    assert settings["card_priors"]["H100-SXM-80GB"] != 0 and settings["card_priors"]["A100-SXM4-80GB"] != 0
    rates = {"x": (1.0, 0.5), "y": (1.0, 0.4), "z": (1.0, 0.3)}
    ask = pd.DataFrame({"workload": list(rates), "card_type": "H20", "cards": 1})

    def fit(h100: str, a100: str, extra=()) -> ThroughputModel:
        rows = [(w, c, 1, r) for w, pair in rates.items() for c, r in zip((h100, a100), pair, strict=True)]
        data = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
        return ThroughputModel(resolver=CardResolver(extra=list(extra)), **settings).fit(data)

    catalog = CardResolver()
    h100 = dataclasses.replace(catalog.resolve("H100-SXM-80GB"), id="h100")
    as_catalog = fit("H100-SXM-80GB", "A100-SXM4-80GB").predict(ask)
    for a100_bf16, twin in ((312, True), (250, False)):
        a100 = dataclasses.replace(catalog.resolve("A100-SXM4-80GB"), id="a100", bf16_tflops=a100_bf16)
        users = fit("h100", "a100", (h100, a100))
        assert users._card_prior("h100") == settings["card_priors"]["H100-SXM-80GB"]
        assert users._card_prior("a100") == (settings["card_priors"]["A100-SXM4-80GB"] if twin else 0.0)
        if twin:
            assert users.predict(ask) == pytest.approx(as_catalog, rel=1e-6)


def test_an_export_variant_reads_as_the_measured_card_of_its_chip():
    """An H800 beside a measured H100 SXM (one chip, clock and memory; NVLink 400 against 900 GB/s):
    at a measured count it is the H100's measurement (a card's links do not matter on one card); at 8
    cards a sync-heavy job is slower on it than the H100 is predicted; its basis is "card measured". A
    file without any A100: the A800 takes the A100 SXM's calibrated offset and is predicted as it is."""
    from fedopt.normalize.calibrate import efficiency, fit_settings

    settings = {k: v for k, v in fit_settings().items() if k != "reference"}
    rows = [
        ("gpt", "H100-SXM-80GB", 1, 1.0),
        ("gpt", "L40S", 1, 0.28),
        ("gpt", "H100-SXM-80GB", 2, 1.9),
        ("gpt", "L40S", 2, 0.5),
        ("bert", "H100-SXM-80GB", 8, 0.186),
        ("bert", "L40S", 8, 0.031),
        ("resnet", "H100-SXM-80GB", 8, 0.074),
        ("resnet", "L40S", 8, 0.021),
    ]
    data = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    m = ThroughputModel(**settings).fit(data)
    ask = pd.DataFrame(
        {
            "workload": ["gpt", "gpt", "gpt", "gpt", "bert"],
            "card_type": ["H800"] * 2 + ["H100-SXM-80GB", "H800", "H800"],
            "cards": [1, 2, 8, 8, 8],
        }
    )
    got = m.predict(ask)
    assert got[0] == pytest.approx(1.0, rel=1e-9)  # one card: the H100's measurement
    assert 0.9 * 1.9 < got[1] < 1.9  # two: the H100's less what its slower NVLink costs the all-reduce
    assert got[3] < got[2]  # its NVLink
    assert 0.85 * 0.186 < got[4] < 0.186  # a job measured at 8: the H100's figure, less its links
    assert set(m.basis(ask)) == {"card measured"}
    # without the H100 SXM's rows the H800 is an unmeasured Hopper card again
    alone = ThroughputModel(**settings).fit(data[data.card_type == "L40S"])
    assert alone.basis(ask.head(1))[0] == "new architecture"

    no_ampere = ThroughputModel(**settings).fit(data)
    a = pd.DataFrame({"workload": ["gpt", "bert"] * 2, "card_type": ["A100-SXM4-80GB"] * 2 + ["A800-SXM4-80GB"] * 2, "cards": 1})
    pa = no_ampere.predict(a)
    assert no_ampere._card_prior("A800-SXM4-80GB") == settings["card_priors"]["A100-SXM4-80GB"] != 0
    assert pa[2:] == pytest.approx(pa[:2], rel=1e-9)
    assert efficiency("H800-SXM-80GB") == efficiency("H100-SXM-80GB") != efficiency("H20-96GB")


def test_one_chip_with_more_memory_bandwidth_is_no_slower():
    # the H20 on 141 GB of HBM3e (4.8 TB/s) against the 96 GB board (4.0 TB/s), neither measured: same
    # matrix peaks, so it must not come out slower. It did, by 6-10%, until its catalog row carried
    # the chip's FP32 peak (2026-12-07): without one a card takes 1/8 of its BF16 peak, a third of the H20's
    rows = [("llm", "H100", 8, 100.0), ("llm", "A100", 8, 40.0), ("cnn", "H100", 1, 10.0), ("cnn", "A100", 1, 5.0)]
    data = pd.DataFrame([*rows, ("cnn", "L40S", 1, 4.0)], columns=["workload", "card_type", "cards", "throughput"])
    fitted = ThroughputModel().fit(data)
    q = pd.DataFrame({"workload": ["llm", "cnn"] * 2, "card_type": ["H20"] * 2 + ["H20 141GB"] * 2, "cards": [8, 1] * 2})
    rate = fitted.predict(q)
    assert rate[2] >= rate[0] and rate[3] >= rate[1]


def test_one_dies_cards_keep_one_efficiency_so_a_memory_gain_stays_memorys():
    """An H200 SXM is an H100 SXM's die at its power on faster memory: where the shares are held
    (a firm share prior, as a file of one compute peak leaves them), its gain must not be read as a
    better compute efficiency (Hyper.lam_die); untied, the fit credits part of it there."""
    rows = []
    for i, ratio in enumerate([1.22, 1.25, 1.28, 1.2, 1.3, 1.24]):
        rows += [(f"w{i}", "H100 SXM", 1, 100.0 * (i + 1)), (f"w{i}", "H200 SXM", 1, 100.0 * (i + 1) * ratio)]
    data = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    held = {"share_prior": (0.7, 0.2, 0.1), "lam_theta0": 10.0, "lam_group": 10.0, "adapt_shrink": False, "lam_share": 10.0}
    gain = {}
    for lam in (0.0, Hyper().lam_die):
        model = ThroughputModel(hyper=Hyper(lam_die=lam, **held)).fit(data)
        gain[lam] = model.efficiency("H200 SXM") / model.efficiency("H100 SXM")
    assert gain[Hyper().lam_die] == pytest.approx(1.0, abs=0.01)
    assert gain[0.0] > 1.03
