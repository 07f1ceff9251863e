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
