"""``fedopt export``: a checked plan as Karmada, Kueue or Volcano manifests."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from fedopt.errors import EXIT_VIOLATIONS, FedoptError, InputError


class PlanNotValid(FedoptError):
    exit_status = EXIT_VIOLATIONS


def cmd_export(args: argparse.Namespace) -> int:
    from fedopt.atomic import check_folder
    from fedopt.check import check_plan
    from fedopt.export import export_plan, write_manifests
    from fedopt.export.context import Options
    from fedopt.export.names import DNS_LABEL
    from fedopt.instance import load_plan, parse_instance
    from fedopt.instance.io import read_bytes

    if not DNS_LABEL.match(args.namespace):
        raise InputError("--namespace", f"{args.namespace!r} is not a DNS-1123 label")
    check_folder(args.output, "--output")
    data = read_bytes(args.instance)
    inst = parse_instance(data, args.instance)
    raw = json.loads(data)
    plan = load_plan(args.plan)
    verdict = check_plan(inst, plan, check_objective=False)
    if verdict.violations and not args.force:
        lines = "\n  ".join(str(v) for v in verdict.violations[:20])
        raise PlanNotValid(
            f"{args.plan}: the plan breaks {len(verdict.violations)} rule(s); nothing written "
            f"(--force exports anyway):\n  {lines}"
        )
    options = Options(
        namespace=args.namespace,
        workload_api_version=args.workload_api_version,
        workload_kind=args.workload_kind,
        kueue_api=args.kueue_api,
        multikueue={"auto": None, "on": True, "off": False}[args.multikueue],
        volcano_kind=args.volcano_kind,
        image=args.image,
    )
    manifests, ctx = export_plan(inst, raw, plan, args.format, options)
    if args.crds:
        from fedopt.export.validate import Schemas

        schemas = Schemas(args.crds)
        if not schemas.crds:
            raise InputError("--crds", f"no CustomResourceDefinition found under {args.crds}")
        problems = [e for m in manifests for e in schemas.validate(m.obj)]
        if problems:
            raise FedoptError("manifests do not validate; nothing written:\n  " + "\n  ".join(problems[:30]))
    files = write_manifests(manifests, args.output, multi_doc=args.multi_doc)
    if not args.quiet:
        kinds = Counter(m.kind for m in manifests)
        status = Counter(j.status for j in ctx.jobs)
        print(
            f"wrote {len(files)} file(s) to {args.output}: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())),
            file=sys.stderr,
        )
        print(
            "jobs: "
            + "  ".join(f"{k} {status.get(k, 0)}" for k in ("started", "kept", "migrated", "later", "preempted", "pending")),
            file=sys.stderr,
        )
        for status_, what in (
            ("preempted", "preempted by the plan (stop them)"),
            ("pending", "pending"),
            ("later", "reserved for later slots"),
        ):
            ids = [j.id for j in ctx.jobs if j.status == status_]
            if ids:
                shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
                print(f"{what}: {shown}", file=sys.stderr)
        for note in ctx.notes:
            print(f"note: {note}", file=sys.stderr)
        if args.crds:
            print(f"validated {len(manifests)} manifest(s) against the CRDs in {args.crds}", file=sys.stderr)
    return 0


def add_export(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write a plan as Karmada, Kueue or Volcano manifests",
        description="Turn a checked plan into Kubernetes manifests: Karmada PropagationPolicies, Kueue flavors/queues/Workloads "
        "(MultiKueue for several clusters), or Volcano Queues and PodGroups/Jobs per member cluster. See docs/ecosystem.md.",
    )
    p.add_argument("plan", help="plan.json")
    p.add_argument("--instance", required=True, help="the plan's instance.json")
    p.add_argument("--format", required=True, choices=["karmada", "kueue", "volcano"])
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the YAML files")
    p.add_argument(
        "--multi-doc", action="store_true", help="one multi-document manifests.yaml per target instead of a file per object"
    )
    p.add_argument("--namespace", default="default", help="namespace of jobs that name none (default: default)")
    p.add_argument(
        "--workload-api-version", default="batch/v1", help="apiVersion of the workloads Karmada selects (default batch/v1)"
    )
    p.add_argument("--workload-kind", default="Job", help="kind of the workloads Karmada selects (default Job)")
    p.add_argument("--kueue-api", default="v1beta1", choices=["v1beta1", "v1beta2"], help="Kueue API version (default v1beta1)")
    p.add_argument(
        "--multikueue", default="auto", choices=["auto", "on", "off"], help="auto: on when the fleet has several clusters"
    )
    p.add_argument(
        "--volcano-kind", default="podgroup", choices=["podgroup", "job"], help="Volcano gang object (default podgroup)"
    )
    p.add_argument("--image", help="container image for generated pod templates")
    p.add_argument("--crds", metavar="DIR", help="validate every manifest against the CRDs under DIR before writing")
    p.add_argument("--force", action="store_true", help="export a plan even if it breaks rules")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_export)
