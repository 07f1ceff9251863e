"""The generator: same seed, same file; realistic shape; every backend agrees on a small fleet."""

import json

import numpy as np
import pytest

import fedopt
from fedopt.generate import generate
from fedopt.instance import parse_instance


def test_same_seed_same_document():
    assert json.dumps(generate("s", seed=7)) == json.dumps(generate("s", seed=7))
    assert json.dumps(generate("s", seed=7)) != json.dumps(generate("s", seed=8))


def test_realistic_shape():
    inst = parse_instance(generate("m", seed=3))
    cards = inst.pool_cards.sum()
    assert 900 <= cards <= 1150
    sizes = np.array([t.max() for t in inst.job_totals])
    assert np.median(sizes) <= 8  # most jobs take 1-8 cards (Philly)
    held = inst.running_cards.sum()
    assert 0.35 * cards <= held <= 0.65 * cards  # about half the fleet is running
    assert inst.pinned.any() and (inst.job_max_parts > 1).any()
    assert any(len(t) > 1 for t in inst.job_totals)  # elastic jobs
    assert (inst.job_read_gbps > 0).mean() > 0.4


@pytest.mark.parametrize("seed", [1, 2])
def test_backends_agree_on_small_fleet(seed):
    inst = parse_instance(generate("s", seed=seed))
    objectives = {}
    for backend in ("highs", "cpsat", "pyomo"):
        r = fedopt.solve(inst, backend=backend, time_limit=60)
        assert r.status == "optimal", backend
        objectives[backend] = r.objective
    assert objectives["cpsat"] == pytest.approx(objectives["highs"], rel=1e-6)
    assert objectives["pyomo"] == pytest.approx(objectives["highs"], rel=1e-6)


@pytest.mark.parametrize("preset", ["s", "m"])
def test_committed_examples_are_the_generators_output(preset):
    """The draws' order is part of the format: instances/examples/ must stay reproducible."""
    from pathlib import Path

    path = Path(__file__).parent.parent / "instances" / "examples" / f"fleet-{preset}.json"
    committed = json.loads(path.read_text())
    assert generate(preset, seed=1, name=committed["name"]) == committed


def test_without_the_public_traces_generate_says_where_it_looked(monkeypatch, tmp_path, capsys):
    # a regular install ships the package, not ../shared/data: exit 2 naming the file, no traceback
    import fedopt.generate as gen
    from fedopt.cli import main

    monkeypatch.setattr(gen, "SHARED_DATA", tmp_path / "nowhere")
    gen._philly.cache_clear()
    try:
        assert main(["generate", "--preset", "s", "--seed", "1", "-o", str(tmp_path / "g.json")]) == 2
    finally:
        gen._philly.cache_clear()
    err = capsys.readouterr().err
    assert "nowhere/philly/philly.csv" in err and "FEDOPT_SHARED_DATA" in err and "Traceback" not in err
    assert not (tmp_path / "g.json").exists()


def test_calibrated_rates_use_the_calibrated_efficiencies(tmp_path):
    """``--calibrated-rates``: the same fleet and jobs, each rate the profile's roofline on the
    calibrated specs (``roofline.profile_rate_calibrated``), not the plain roofline; the file solves
    and checks."""
    from fedopt.check import check_plan
    from fedopt.cli import main
    from fedopt.generate import WORKLOADS, _specs
    from fedopt.normalize.roofline import profile_rate, profile_rate_calibrated

    plain, cal = generate("s", seed=1), generate("s", seed=1, calibrated=True)
    assert cal["name"] == "gen-s-1-calibrated" and cal["clusters"] == plain["clusters"]
    assert [j["profile"] for j in cal["jobs"]] == [j["profile"] for j in plain["jobs"]]
    specs = _specs(cal["card_types"])
    ref = int(np.argmax([s.bf16_tflops for s in specs]))
    moved = 0
    for job in cal["jobs"]:
        w = next(w for w in WORKLOADS.values() if w["mem"] == job["profile"]["memory_gb"])  # memory tells them apart
        multi = job["cards"] if isinstance(job["cards"], int) else job["cards"]["max"]
        work = (w["tflop"], w["gb"], w["comm"] * (multi > 1), w["mem"])
        for spec in specs:
            want = profile_rate_calibrated(*work, spec, specs[ref])
            assert job["throughput"].get(spec.id, 0.0) == pytest.approx(round(want, 4), abs=1e-9)
            moved += abs(round(profile_rate(*work, spec, specs[ref]), 4) - round(want, 4)) > 1e-3
    assert moved > 0  # the efficiencies change some rates
    out = tmp_path / "cal.json"
    assert main(["generate", "--preset", "s", "--seed", "1", "--calibrated-rates", "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == cal
    inst = parse_instance(cal)
    r = fedopt.solve(inst, time_limit=60)
    assert r.status == "optimal" and check_plan(inst, r.to_doc()).ok
