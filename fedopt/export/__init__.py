"""Kubernetes out: a plan as Karmada, Kueue (MultiKueue) or Volcano manifests.

>>> from fedopt.export import Options, export_plan, write_manifests
>>> manifests, ctx = export_plan(inst, raw_instance_dict, plan_doc, "kueue", Options())
>>> write_manifests(manifests, "out/")
"""

from __future__ import annotations

import os
from pathlib import Path

from fedopt.export.context import ExportContext, Options, build_context
from fedopt.export.manifest import Manifest, dump_all
from fedopt.instance.model import Instance
from fedopt.instance.schema import PlanDoc

FORMATS = ("karmada", "kueue", "volcano")


def export_plan(
    inst: Instance, raw: dict, plan: PlanDoc, fmt: str, options: Options | None = None
) -> tuple[list[Manifest], ExportContext]:
    """The manifests of ``plan`` in ``fmt``; ``raw`` is the instance as parsed JSON (for its ``k8s`` fields)."""
    from fedopt.export import karmada, kueue, volcano

    makers = {"karmada": karmada.manifests, "kueue": kueue.manifests, "volcano": volcano.manifests}
    if fmt not in makers:
        raise ValueError(f"unknown format {fmt!r}; choose {', '.join(FORMATS)}")
    ctx = build_context(inst, raw, plan, options)
    return makers[fmt](ctx), ctx


def write_manifests(manifests: list[Manifest], outdir: str | os.PathLike, multi_doc: bool = False) -> list[Path]:
    """One YAML file per manifest (or one multi-document ``manifests.yaml`` per target), atomically each."""
    from fedopt.atomic import write_atomic

    root = Path(outdir)
    files: dict[Path, list[Manifest]] = {}
    for m in manifests:
        path = root / (Path(m.target) / "manifests.yaml" if multi_doc else Path(m.filename()))
        files.setdefault(path, []).append(m)
    for path, group in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, dump_all(group) if multi_doc else group[0].to_yaml())
    return sorted(files)


__all__ = ["FORMATS", "ExportContext", "Manifest", "Options", "export_plan", "write_manifests"]
