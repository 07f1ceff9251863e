"""Calibrated priors: the shipped parameters file, priors calibrated without a set, and how an
architecture absent from a user's file is placed from the calibrated gaps."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.calibrate import _params_without, arch_priors, calibrate, fit_settings, load_params
from fedopt.normalize.data import CALIBRATION_SOURCES, HELD_OUT_SOURCES, TEST_ONLY_SOURCES, calibration_measurements
from fedopt.normalize.model import Hyper, ThroughputModel

# two Hopper cards and one Ada card, three jobs at their BF16 peak ratio
ROWS = [
    (w, c, 8, 8 * tf * s)
    for w, s in (("a", 1.0), ("b", 0.7), ("c", 0.4))
    for c, tf in (("H100 SXM", 989.0), ("H100 PCIe", 756.0), ("L40S", 362.0))
]
GAPS = {
    "nvidia-hopper": (0.0, "nvidia"),
    "nvidia-ada": (0.1, "nvidia"),
    "amd-cdna3": (math.log(0.5), "amd"),
    "amd-cdna4": (math.log(0.6), "amd"),
}


@pytest.fixture(scope="module")
def data():
    return pd.DataFrame(ROWS, columns=["workload", "card_type", "cards", "throughput"])


def test_an_unmeasured_architecture_sits_at_its_calibrated_gap(data):
    plain = ThroughputModel().fit(data)
    fz = plain.fitted
    assert plain.efficiency("MI300X") == pytest.approx(math.exp(fz.mu))  # no AMD card, no gaps: the common level
    gapped = ThroughputModel(arch_priors=GAPS).fit(data)
    ea = gapped.fitted.eta_arch
    # no AMD anchor: the mean over the fitted NVIDIA architectures of their level plus the gap
    want = np.mean([ea["nvidia-hopper"] + math.log(0.5) - 0.0, ea["nvidia-ada"] + math.log(0.5) - 0.1])
    assert gapped.efficiency("MI300X") == pytest.approx(math.exp(want))  # a CDNA3 flagship: no power deficit
    # a measured architecture keeps its fitted level
    assert gapped.efficiency("L40") == pytest.approx(plain.efficiency("L40"), rel=1e-6)


def test_the_same_vendors_architectures_anchor_first(data):
    rows = data.copy()
    mi = rows[rows["card_type"] == "H100 SXM"].assign(card_type="MI300X", throughput=lambda d: d["throughput"] * 0.9)
    model = ThroughputModel(arch_priors=GAPS).fit(pd.concat([rows, mi], ignore_index=True))
    ea = model.fitted.eta_arch
    # MI355X (CDNA4) from CDNA3 alone: the NVIDIA architectures are not its anchors
    assert model.efficiency("MI355X") == pytest.approx(math.exp(ea["amd-cdna3"] + math.log(0.6) - math.log(0.5)))


def test_arch_priors_read_the_parameters_file():
    params = {
        "architectures": {"nvidia-hopper": 1.1, "amd-cdna3": 0.9},
        "cards": {
            "MI300X": {"architecture": "amd-cdna3", "vendor": "amd"},
            "H100-SXM-80GB": {"architecture": "nvidia-hopper", "vendor": "nvidia"},
        },
    }
    got = arch_priors(params)
    assert got["amd-cdna3"] == (pytest.approx(math.log(0.9)), "amd")
    assert got["nvidia-hopper"] == (pytest.approx(math.log(1.1)), "nvidia")
    assert fit_settings(priors=False).keys() == {"hyper"}


def test_priors_for_an_evaluation_never_see_the_evaluated_set():
    every = calibration_measurements()
    assert set(every["source"]) == {"gavel", "mlperf", *HELD_OUT_SOURCES} - set(TEST_ONLY_SOURCES)
    # the calibration sets are named once; every other held-out set is a test set
    assert set(every["source"]) == {"gavel", "mlperf", *CALIBRATION_SOURCES}
    assert "training-v5.0" in TEST_ONLY_SOURCES  # a test set: evaluated, never calibrated on
    without = _params_without(("training-v6.0",))
    assert "training-v6.0" not in without["sources"]
    assert without["rows"] == int((every.loc[every["source"] != "training-v6.0", "throughput"] > 0).sum())
    shared_only = _params_without(HELD_OUT_SOURCES)
    assert shared_only["sources"] == ["gavel", "mlperf"]
    assert "MI300X" not in shared_only["cards"] and "amd-cdna3" not in shared_only["architectures"]
    # nor do the reference table's workloads (the neighbours of a file of one card type)
    assert not any(w.startswith("mlperf-train-v6.0") for w in without["reference"]["workloads"])
    assert fit_settings(exclude=("training-v6.0",))["reference"] is without["reference"]


def test_priors_for_a_server_set_never_see_its_rounds_offline_set(monkeypatch):
    """A round's scenarios ran on the same submissions' cards: evaluating one, the priors are
    calibrated without the others too (the v4.1 Offline set is a calibration set)."""
    import fedopt.normalize.calibrate as cal

    seen = []
    monkeypatch.setattr(cal, "_params_without", lambda exclude: seen.append(exclude) or load_params())
    fit_settings(exclude=("inference-v4.1-server",))
    fit_settings(exclude=("lambda-pytorch",))
    assert seen == [("inference-v4.1", "inference-v4.1-interactive", "inference-v4.1-server"), ("lambda-pytorch",)]


def test_profiles_of_an_interactive_set_never_see_its_rounds_offline_set(monkeypatch, capsys):
    # --evaluate --profiles calibrates the efficiencies as the model's evaluations do (it called
    # the calibration without the round's other scenarios until 2026-12-05)
    import fedopt.normalize.calibrate as cal
    from fedopt.cli import main

    seen = []
    monkeypatch.setattr(cal, "_params_without", lambda exclude: seen.append(exclude) or load_params())
    profiles = str(Path(cal.__file__).parents[2] / "data" / "profiles" / "mlperf_held_out_precision.csv")
    args = ["normalize", "--evaluate", "--held-out", "--sets", "inference-v5.1-interactive", "--profiles", profiles]
    assert main(args) == 0
    assert ("inference-v5.1", "inference-v5.1-interactive", "inference-v5.1-server") in seen
    assert all("inference-v5.1" in exclude for exclude in seen if "inference-v5.1-interactive" in exclude)
    assert "| inference-v5.1-interactive | 13 |" in capsys.readouterr().out


def test_the_shipped_parameters_are_current():
    # python -m fedopt normalize --calibrate rewrites them; a stale file fails here
    shipped, fresh = load_params(), calibrate()
    assert shipped["sources"] == fresh["sources"] and shipped["rows"] == fresh["rows"]
    assert shipped["cards"].keys() == fresh["cards"].keys()
    for key, card in fresh["cards"].items():
        assert shipped["cards"][key]["efficiency"] == pytest.approx(card["efficiency"], abs=2e-3), key
    for arch, eff in fresh["architectures"].items():
        assert shipped["architectures"][arch] == pytest.approx(eff, abs=2e-3), arch
    # the reference table (models/normalize_params.reference.json): the same workloads, cards and rates
    ref, new = shipped["reference"], fresh["reference"]
    assert ref["cards"] == new["cards"] and ref["workloads"].keys() == new["workloads"].keys()
    for w, row in new["workloads"].items():
        assert ref["workloads"][w]["measured_on"] == row["measured_on"], w
        old = np.array(ref["workloads"][w]["log_rate"], dtype=float)
        assert np.array_equal(np.isnan(old), np.isnan(np.array(row["log_rate"], dtype=float))), w
        assert np.nan_to_num(old) == pytest.approx(np.nan_to_num(np.array(row["log_rate"], dtype=float)), abs=5e-3), w


def test_an_unmeasured_architecture_takes_its_calibrated_miss(data):
    bias = {"amd-cdna3": math.log(0.5), "nvidia-ada": 0.7}
    alone = Hyper(arch_bias_in_fit=0.0)  # the rule for an architecture the file lacks, alone
    plain = ThroughputModel(hyper=alone, arch_priors=GAPS).fit(data)
    biased = ThroughputModel(hyper=alone, arch_priors=GAPS, arch_bias=bias).fit(data)
    q = pd.DataFrame({"workload": ["a", "a", "b"], "card_type": ["MI300X", "L40", "H200"], "cards": 8})
    p0, p1 = plain.predict(q), biased.predict(q)
    assert p1[0] == pytest.approx(0.5 * p0[0])  # CDNA3 is not in the fit: corrected
    assert p1[1:] == pytest.approx(p0[1:])  # Ada and Hopper are: their calibrated misses do not apply
    # by default a measured architecture's miss also lifts its centre (Hyper.arch_bias_in_fit): the
    # L40, an Ada card the file lacks, reads faster beside its L40S; Hopper's H200 far less
    default = ThroughputModel(arch_priors=GAPS, arch_bias=bias).fit(data).predict(q)
    assert default[1] > 1.1 * p0[1]
    assert default[1] / p0[1] > default[2] / p0[2]


def test_architecture_bias_is_the_median_over_sets_of_each_sets_median(monkeypatch):
    import fedopt.normalize.evaluate as evaluate
    from fedopt.normalize.calibrate import arch_bias, architecture_bias

    # hidden-architecture predictions by hand: CDNA3 predicted 2x, 2x, 1x (set a) and 4x (set b);
    # Ada, measured in set a only, is never hidden (a miss one set shows is not used)
    fake = pd.DataFrame(
        {
            "card": ["amd-cdna3"] * 4,
            "card_type": ["MI300X", "MI300X", "MI325X", "MI300X"],
            "source": ["a", "a", "a", "b"],
            "throughput": [1.0, 1.0, 1.0, 1.0],
            "pred": [2.0, 2.0, 1.0, 4.0],
        }
    )
    data = pd.concat([fake, fake.iloc[:1].assign(card="nvidia-ada", card_type="L40S")], ignore_index=True)
    hidden = {}
    monkeypatch.setattr(evaluate, "leave_one_card_out", lambda *a, **k: hidden.update(k) or fake)
    got = architecture_bias(data)
    assert hidden["only"] == {"amd-cdna3"} and hidden["unit"] == "architecture"
    # set a: median of log(1/2), log(1/2), 0 = log(1/2); set b: log(1/4); over sets: log(1/8) / 2
    assert got["amd-cdna3"]["log_bias"] == pytest.approx(round(math.log(1 / 8) / 2, 4))
    assert got["amd-cdna3"]["rows"] == 4
    assert got["amd-cdna3"]["per_set"] == {"a": round(math.log(0.5), 4), "b": round(math.log(0.25), 4)}
    # the prior of a fit: half of it, and only where two sets or more miss in the same direction
    params = {"architecture_bias": got | {"nvidia-hopper": {"log_bias": 0.1, "per_set": {"a": 0.3, "b": -0.1}}}}
    assert arch_bias(params) == {"amd-cdna3": pytest.approx(0.5 * got["amd-cdna3"]["log_bias"])}
