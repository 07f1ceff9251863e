"""``python -m fedopt normalize --catalog`` and ``--resolve``: the card catalog and what card names
resolve to, for an operator checking a file's names before trusting a prediction.

normalize --catalog [--cards cards.json] [--json]
normalize --resolve [NAME ...] [--measurements M.csv] [--query Q.csv] [--cards cards.json] [--json]
"""

from __future__ import annotations

from fedopt.errors import InputError
from fedopt.normalize.cli import _out, _resolver


def catalog(args) -> int:
    """``--catalog``: every card type with its figures (``--json``: with each figure's source)."""
    from fedopt.normalize.catalog_view import card_sources, catalog_frame

    res = _resolver(args)
    tab = catalog_frame(res)
    if args.json:
        import json

        import pandas as pd

        records = [
            {
                "card": cid,
                **{k: (None if pd.isna(v) else v) for k, v in row.items()},
                "sources": card_sources(res.resolve(cid), res),
            }
            for cid, row in tab.iterrows()
        ]
        _out(json.dumps(records, indent=1))
        return 0
    _out(
        f"{len(tab)} card types: dense peaks in TFLOPS (fp8: FP8, or INT8 where the card has none), memory GB, "
        "bandwidths GB/s, power W; each figure's source: --json, or --resolve NAME"
    )
    _out(tab.to_string(float_format=lambda v: f"{v:g}", na_rep="-"))
    return 0


def _names_to_resolve(args) -> list[str]:
    """--resolve's names, else every card name of --measurements and --query, in order of appearance."""
    names = list(args.resolve)
    if not names:
        from fedopt.normalize.data import MEASUREMENT_COLUMNS, QUERY_COLUMNS, read_table

        for path, cols, what in (
            (args.measurements, MEASUREMENT_COLUMNS, "--measurements"),
            (args.query, QUERY_COLUMNS, "--query"),
        ):
            if path:
                names += [str(n) for n in read_table(path, cols, what)["card_type"]]
    if not names:
        raise InputError("--resolve", "give card names, or --measurements / --query files whose card names to resolve")
    return list(dict.fromkeys(names))


def resolve_names(args) -> int:
    """``--resolve``: what each name resolves to, how, what it lacks, and its figures' sources."""
    from fedopt.normalize.catalog_view import FIGURES, card_sources, resolution_frame
    from fedopt.normalize.cloud_instances import cloud_instance
    from fedopt.normalize.mig import mig_parent_id

    res = _resolver(args)
    tab = resolution_frame(_names_to_resolve(args), res)
    if args.json:
        import json

        records = []
        for row in tab.to_dict(orient="records"):
            card = res.resolve(row["name"])
            figures = {f: getattr(card, f) for f in FIGURES} if card is not None else {}
            record = {**row, "figures": figures, "sources": card_sources(card, res)}
            if row["how"].endswith(" instance"):
                record["instance_source"] = cloud_instance(row["name"]).source
            records.append(record)
        _out(json.dumps(records, indent=1))
        return 0
    _out(
        "each name's card (none: no specs, predicted as a typical card of the fit), how it matched, what it lacks, "
        "the other cards of its chip"
    )
    _out(tab.to_string(index=False))
    for name in tab.loc[tab["how"].str.endswith(" instance"), "name"]:
        _out(f"  {name}: {cloud_instance(name).source}")
    for cid in dict.fromkeys(c for c in tab["card"] if c):
        card = res.resolve(cid)
        given = {f: v for f in FIGURES if (v := getattr(card, f)) is not None}
        _out(f"\n{cid}: " + ", ".join(f"{f} {v:.4g}" for f, v in given.items()))
        if mig_parent_id(cid) is not None:
            _out("  a MIG slice: its card's figures scaled to the slice (docs/normalize.md, Card names); the card's sources:")
        by_source: dict[str, list[str]] = {}
        for f, src in card_sources(card, res).items():
            by_source.setdefault(src, []).append(f)
        for src, fields in by_source.items():
            _out(f"  {', '.join(fields)}: {src}")
    return 0
