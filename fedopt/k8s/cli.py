"""``fedopt import-k8s``: an instance from node/pod dumps of several clusters and a fleet file."""

from __future__ import annotations

import argparse
import json
import sys


def cmd_import_k8s(args: argparse.Namespace) -> int:
    from fedopt.atomic import check_writable, write_atomic
    from fedopt.k8s.config import load_config
    from fedopt.k8s.importer import import_fleet, parse_cluster_arg

    if args.output:
        check_writable(args.output, "--output")
    dumps = [parse_cluster_arg(c) for c in args.cluster or []]
    result = import_fleet(dumps, load_config(args.config), name=args.name)
    text = json.dumps(result.doc, indent=1)
    if args.output:
        write_atomic(args.output, text + "\n")
    else:
        print(text, flush=True)
    if not args.quiet:
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
        doc = result.doc
        for c in doc["clusters"]:
            tally = result.nodes[c["id"]]
            skipped = ", ".join(f"{n} {why}" for why, n in sorted(tally.items()) if why != "counted")
            pools = ", ".join(f"{p['cards']} {p['card_type']}" for p in c["pools"]) or "no cards"
            print(
                f"{c['id']} ({c['region']}): {tally.get('counted', 0)} nodes counted"
                + (f", skipped {skipped}" if skipped else "")
                + f"; {pools}",
                file=sys.stderr,
            )
        pending = len(doc["jobs"]) - result.running
        where = f"wrote {args.output}: " if args.output else ""
        print(f"{where}{result.running} running jobs, {pending} pending jobs, {len(doc['regions'])} regions", file=sys.stderr)
    return 0


def add_import_k8s(sub) -> None:
    p = sub.add_parser(
        "import-k8s",
        help="build an instance from kubectl node/pod dumps of several clusters",
        description="Clusters, pools and running jobs from `kubectl get nodes -o json` and `kubectl get pods -A -o json` "
        "of each cluster; regions, links, datasets, tenants and pending jobs from a fleet file (YAML or JSON). "
        "See docs/ecosystem.md.",
    )
    p.add_argument(
        "--cluster",
        action="append",
        metavar="NAME=NODES[,PODS]",
        help="a cluster's node dump and, optionally, its pod dump (repeat for each cluster)",
    )
    p.add_argument("--config", help="fleet file: regions, links, datasets, tenants, pending jobs (YAML or JSON)")
    p.add_argument("--name", help="instance name (default: the fleet file's, else k8s-fleet)")
    p.add_argument("-o", "--output", help="write the instance here (atomically); default stdout")
    p.add_argument("-q", "--quiet", action="store_true", help="print no summary or warnings")
    p.set_defaults(func=cmd_import_k8s)
