"""The simulator: each policy on a small fleet for half a day, with the whole fleet's plan checked
by fedopt's checker at every re-plan; metrics sane; the move budget kept; same seed, same report."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedopt.cli import main
from fedopt.errors import InputError
from fedopt.simulate import SimConfig, prepare, simulate
from fedopt.simulate.cli import parse_minutes
from fedopt.simulate.engine import Simulation
from fedopt.simulate.fleet import JobSpec
from fedopt.simulate.policies import FifoBackfill
from fedopt.simulate.report import format_table
from fedopt.simulate.trace import arrival_stream, load_trace

BASE = SimConfig(trace="philly", fleet="s", days=0.5, seed=3, interval_minutes=10, drain_days=3, check=True)


@pytest.fixture(scope="module")
def setup():
    return prepare(BASE)


@pytest.fixture(scope="module")
def runs(setup):
    out = {}
    for policy, extra in [("greedy", {}), ("fifo-backfill", {}), ("fedopt", {"max_moves": 2})]:
        out[policy] = simulate(replace(BASE, policy=policy, **extra), setup)
    return out


@pytest.mark.parametrize("policy", ["greedy", "fifo-backfill", "fedopt"])
def test_every_replan_is_feasible(runs, policy):
    report, sim = runs[policy]
    assert report["replans"]["count"] > 10
    assert report["check_violations"] == []  # fedopt.check_plan on the whole fleet, every re-plan
    assert report["capacity_violations"] == []
    assert (sim.usage.pools >= 0).all()


@pytest.mark.parametrize("policy", ["greedy", "fifo-backfill", "fedopt"])
def test_metrics_are_sane(runs, policy):
    report, sim = runs[policy]
    arrival = np.array([j.arrival for j in sim.jobs])
    pure = np.array([j.pure_hours for j in sim.jobs])
    done = ~np.isnan(sim.finish)
    assert done.sum() > 50
    # a job never completes faster than its work alone on the best cards
    assert ((sim.finish - arrival)[done] >= pure[done] * (1 - 1e-9)).all()
    assert report["min_completion_over_pure_run"] >= 1 - 1e-9
    # it starts no earlier than it arrives, and not before the re-plan after its arrival
    started = ~np.isnan(sim.start)
    assert (sim.start[started] >= arrival[started] - 1e-9).all()
    grid = sim.interval
    assert np.allclose(sim.start[started] / grid, np.round(sim.start[started] / grid))
    for key in ("raw", "normalized", "raw_until_end", "normalized_until_end"):
        assert 0 <= report["utilization"][key] <= 1
    for row in sim.timeline:
        assert 0 <= row.busy_card_hours <= sim.fleet.cards * row.hours + 1e-6
        assert 0 <= row.work <= sim.peak_work_per_hour * row.hours + 1e-6
    assert report["completion_hours"]["mean"] >= report["queueing_hours"]["mean"] >= 0
    assert report["completion_hours"]["p95"] >= report["completion_hours"]["p50"]
    jobs = report["jobs"]
    assert jobs["finished"] + jobs["unfinished"] + report["stream"]["never_fit"] == len(sim.jobs)
    if jobs["unfinished"] == 0:
        assert report["makespan_hours"] == pytest.approx(float(np.nanmax(sim.finish)))
    assert report["traffic"]["cross_region_tb"] >= 0 and report["traffic"]["egress_cost"] >= 0


def test_baselines_never_move_jobs(runs):
    for policy in ("greedy", "fifo-backfill"):
        report, _ = runs[policy]
        assert report["moves"]["migrations"] == report["moves"]["preemptions"] == 0


def test_fedopt_keeps_the_move_budget(runs):
    report, sim = runs["fedopt"]
    assert report["moves"]["max_per_replan"] <= 2
    assert all(r["migrated"] + r["preempted"] <= 2 for r in sim.replans)
    assert report["moves"]["migrations"] + report["moves"]["preemptions"] <= 2 * report["replans"]["count"]


def test_fedopt_beats_greedy_on_completion_time(runs):
    assert runs["fedopt"][0]["completion_hours"]["mean"] < runs["greedy"][0]["completion_hours"]["mean"]


def _without_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


def test_same_seed_same_report(setup, runs):
    cfg = replace(BASE, policy="fedopt", max_moves=2, check=False)
    again, _ = simulate(cfg, prepare(cfg))
    first = _without_timing(runs["fedopt"][0])
    first["config"]["check"] = False
    first["check_violations"] = None
    assert json.dumps(_without_timing(again), sort_keys=True) == json.dumps(first, sort_keys=True)


def test_other_seed_other_stream():
    a = prepare(replace(BASE, days=0.2, check=False))
    b = prepare(replace(BASE, days=0.2, seed=4, check=False))
    assert [j.arrival for j in a.jobs] != [j.arrival for j in b.jobs]


# ---------------------------------------------------------------------- fifo-backfill by hand
def _job(i: int, cards: int, hours: float, arrival: float = 0.0) -> JobSpec:
    return JobSpec(
        index=i,
        doc={"id": f"j{i}", "cards": cards, "throughput": {"X": 1.0}},
        arrival=arrival,
        duration=hours,
        work0=cards * hours,
        priority=1.0,
        totals=np.array([cards]),
        granularity=1,
        max_parts=1,
        federation=False,
        rate=np.array([1.0]),
        region_ok=np.array([True]),
        read_gbps=0.0,
        best_speed=float(cards),
    )


def test_fifo_backfill_reserves_for_the_blocked_head():
    import fedopt

    doc = {
        "version": 1,
        "card_types": [{"id": "X", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 100, "mem_bw_gbs": 1000}],
        "regions": [{"id": "r"}],
        "clusters": [{"id": "c", "region": "r", "pools": [{"card_type": "X", "cards": 12}]}],
    }
    jobs = [
        _job(0, 6, 10.0),  # runs: 6 free left
        _job(1, 10, 1.0),  # blocked: reserved at t=10h, when 12 are free (2 spare)
        _job(2, 2, 1.0),  # backfilled: ends before the reservation
        _job(3, 3, 20.0),  # fits now but would still hold 3 > 2 spare cards at t=10h: waits
        _job(4, 1, 20.0),  # holds 1 <= 2 spare: backfilled
    ]
    sim = Simulation(fedopt.parse_instance(doc), jobs, FifoBackfill(), interval_h=1.0, arrival_hours=1.0, end_hours=100.0)
    sim.pending = {j: None for j in range(5)}
    decision = sim.policy.decide(sim)
    assert sorted(decision.placements) == [0, 2, 4]
    sim.run()
    finish = sim.finish
    assert finish[1] == pytest.approx(10.0 + 1.0)  # starts at t=10h as reserved
    assert sim.start[3] >= 10.0


# ---------------------------------------------------------------------- inputs and the command line
def test_traces_load():
    for name in ("philly", "alibaba"):
        tr = load_trace(name)
        assert len(tr) > 1000 and (tr.cards >= 1).all() and (tr.duration_s > 0).all()
        assert (np.diff(tr.arrival_s) >= 0).all()
    stream = arrival_stream(load_trace("alibaba"), 0.5, 128, 0.5, np.random.default_rng(0))
    assert len(stream) > 0 and (stream.arrival_h < 12).all()
    assert stream.offered_card_hours == pytest.approx(0.5 * 128 * 12, rel=0.5)


def test_csv_trace_and_errors(tmp_path):
    good = tmp_path / "t.csv"
    good.write_text("submit,duration,gpus\n0,3600,1\n60,7200,2\n120,0,4\n")
    tr = load_trace(str(good))
    assert len(tr) == 2 and list(tr.cards) == [1, 2]
    bad = tmp_path / "bad.csv"
    bad.write_text("submit,duration,gpus\n0,abc,1\n")
    with pytest.raises(InputError, match="line 2"):
        load_trace(str(bad))
    with pytest.raises(InputError, match="arrival"):
        (tmp_path / "nohead.csv").write_text("a,b\n1,2\n")
        load_trace(str(tmp_path / "nohead.csv"))
    with pytest.raises(InputError):
        load_trace(str(tmp_path / "missing.csv"))


def test_interval_parsing():
    assert parse_minutes("5m") == 5
    assert parse_minutes("30s") == 0.5
    assert parse_minutes("1h") == 60
    assert parse_minutes("2") == 2
    for bad in ("", "5x", "-1m", "0m"):
        with pytest.raises(InputError):
            parse_minutes(bad)


def test_cli(tmp_path, capsys):
    from fedopt.generate import generate

    fleet = tmp_path / "fleet.json"
    fleet.write_text(json.dumps(generate("s", 2)))
    out = tmp_path / "report.json"
    plots = tmp_path / "plots"
    argv = ["simulate", "--trace", "alibaba", "--fleet", str(fleet), "--days", "0.25", "--interval", "15m"]
    argv += ["--policy", "fedopt,greedy,fifo-backfill", "--max-moves", "1", "--json", str(out), "--plots", str(plots), "-q"]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert set(doc["policies"]) == {"fedopt", "greedy", "fifo-backfill"}
    text = capsys.readouterr().out
    assert "completion mean h" in text
    # every re-plan of this small run finished: nothing in it depends on the clock
    assert [line.split()[-3:] for line in text.splitlines() if line.startswith("replans at limit")] == [["0", "0", "0"]]
    for name in ("utilization.png", "completion_cdf.png"):
        assert (plots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_bad_input(tmp_path, capsys):
    assert main(["simulate", "--fleet", str(tmp_path / "nope.json"), "-q"]) == 2
    assert main(["simulate", "--fleet", "s", "--policy", "lottery", "-q"]) == 2
    assert main(["simulate", "--fleet", "s", "--interval", "soon", "-q"]) == 2
    (tmp_path / "bad.json").write_text('{"version": 1, "card_types": []}')
    assert main(["simulate", "--fleet", str(tmp_path / "bad.json"), "-q"]) == 2
    assert "error" in capsys.readouterr().err


def test_table_counts_replans_stopped_by_the_clock(runs):
    # their plans depend on how far the solver got: the row says the run may not repeat exactly
    report = json.loads(json.dumps(runs["fedopt"][0]))
    report["replans"]["statuses"] = {"optimal": 5, "timeout": 2}
    row = [line for line in format_table({"fedopt": report}).splitlines() if line.startswith("replans at limit")]
    assert row and row[0].split()[-1] == "2"
