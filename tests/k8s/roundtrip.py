"""import-k8s -> solve -> plan.json on the three-cluster fleet, for the export and report tests."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

import fedopt
from fedopt.cli import main
from tests.k8s.fleet import write_fleet


@dataclass
class RoundTrip:
    dir: Path
    instance: Path
    plan: Path
    inst: fedopt.Instance
    raw: dict
    plan_doc: object  # PlanDoc


def build(tmp: Path) -> RoundTrip:
    args, cfg = write_fleet(tmp)
    inst_path, plan_path = tmp / "instance.json", tmp / "plan.json"
    argv = ["import-k8s", "-q", *(x for a in args for x in ("--cluster", a)), "--config", str(cfg), "-o", str(inst_path)]
    assert main(argv) == 0
    assert main(["solve", str(inst_path), "-o", str(plan_path), "-q"]) == 0
    from fedopt.instance.io import parse_document, read_bytes
    from fedopt.instance.schema import PlanDoc

    inst = fedopt.load_instance(inst_path)
    plan = parse_document(read_bytes(plan_path), PlanDoc, str(plan_path))
    return RoundTrip(tmp, inst_path, plan_path, inst, json.loads(inst_path.read_text()), plan)


def crds_or_skip() -> Path:
    from fedopt.export.validate import crd_dir

    d = crd_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("the CRDs (shared/data/crds beside the project, or $FEDOPT_CRDS) are missing in CI")
        pytest.skip("no CRD folder: shared/data/crds beside the project, or $FEDOPT_CRDS")
    return d


# A one-cluster horizon instance and a feasible plan: a runs slots 0-1, b and c from slot 2; d (16 cards) fits nowhere.
HORIZON = {
    "version": 1,
    "name": "tiny-gantt",
    "card_types": [{"id": "H100", "vendor": "nvidia", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 989, "mem_bw_gbs": 3350}],
    "regions": [{"id": "r"}],
    "clusters": [{"id": "c1", "region": "r", "pools": [{"card_type": "H100", "cards": 8}]}],
    "jobs": [
        {"id": "a", "cards": 8, "throughput": {"H100": 1.0}, "work": 16},
        {"id": "b", "cards": 4, "throughput": {"H100": 1.0}, "work": 8, "release_slot": 2},
        {"id": "c", "cards": 4, "throughput": {"H100": 1.0}, "work": 12, "deadline_slot": 6},
        {"id": "d", "cards": 16, "throughput": {"H100": 1.0}, "work": 1},
    ],
    "settings": {"horizon": {"slots": 6, "slot_hours": 1.0}},
}
HORIZON_PLAN = {
    "version": 1,
    "instance": "tiny-gantt",
    "status": "feasible",
    "assignments": [
        {"job": "a", "start_slot": 0, "parts": [{"cluster": "c1", "card_type": "H100", "count": 8}]},
        {"job": "b", "start_slot": 2, "parts": [{"cluster": "c1", "card_type": "H100", "count": 4}]},
        {"job": "c", "start_slot": 2, "parts": [{"cluster": "c1", "card_type": "H100", "count": 4}]},
    ],
}
