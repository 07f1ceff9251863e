"""Cross-reference checks of an instance document; every error names its JSON path."""

from __future__ import annotations

from collections.abc import Iterable

from fedopt.errors import InputError, InputErrors
from fedopt.instance.schema import ElasticCards, InstanceDoc

MAX_TOTALS = 10_000  # allowed totals of one elastic job


def _unique_ids(items: Iterable, field: str, errors: list[InputError]) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, item in enumerate(items):
        if item.id in index:
            errors.append(InputError(f"{field}[{i}].id", f"duplicate id {item.id!r} (first at {field}[{index[item.id]}])"))
        else:
            index[item.id] = i
    return index


def _known(value: str, index: dict[str, int], path: str, what: str, errors: list[InputError]) -> bool:
    if value not in index:
        errors.append(InputError(path, f"unknown {what} {value!r}"))
        return False
    return True


def validate_references(doc: InstanceDoc, source: str | None = None) -> None:
    """Raise InputErrors listing every bad reference, duplicate id or inconsistent range."""
    errors: list[InputError] = []
    types = _unique_ids(doc.card_types, "card_types", errors)
    regions = _unique_ids(doc.regions, "regions", errors)
    clusters = _unique_ids(doc.clusters, "clusters", errors)
    datasets = _unique_ids(doc.datasets, "datasets", errors)
    tenants = _unique_ids(doc.tenants, "tenants", errors)
    jobs = _unique_ids(doc.jobs, "jobs", errors)

    pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(doc.links):
        ok = _known(link.a, regions, f"links[{i}].a", "region", errors)
        ok &= _known(link.b, regions, f"links[{i}].b", "region", errors)
        if ok and link.a == link.b:
            errors.append(InputError(f"links[{i}]", f"link from region {link.a!r} to itself"))
        key = frozenset((link.a, link.b))
        if ok and key in pairs:
            errors.append(InputError(f"links[{i}]", f"duplicate link {link.a}-{link.b} (first at links[{pairs[key]}])"))
        pairs.setdefault(key, i)

    pool_types: dict[str, set[str]] = {}
    for i, cl in enumerate(doc.clusters):
        _known(cl.region, regions, f"clusters[{i}].region", "region", errors)
        seen: set[str] = set()
        for k, pool in enumerate(cl.pools):
            path = f"clusters[{i}].pools[{k}].card_type"
            if _known(pool.card_type, types, path, "card type", errors) and pool.card_type in seen:
                errors.append(InputError(path, f"second pool of {pool.card_type!r} in cluster {cl.id!r}"))
            seen.add(pool.card_type)
        pool_types[cl.id] = seen

    for i, ds in enumerate(doc.datasets):
        for k, r in enumerate(ds.replicas):
            _known(r, regions, f"datasets[{i}].replicas[{k}]", "region", errors)

    for i, job in enumerate(doc.jobs):
        p = f"jobs[{i}]"
        if job.tenant is not None:
            _known(job.tenant, tenants, f"{p}.tenant", "tenant", errors)
        if isinstance(job.cards, ElasticCards) and job.cards.min > job.cards.max:
            errors.append(InputError(f"{p}.cards", f"min {job.cards.min} > max {job.cards.max}"))
        elif isinstance(job.cards, ElasticCards) and (job.cards.max - job.cards.min) // job.cards.step >= MAX_TOTALS:
            errors.append(InputError(f"{p}.cards", f"more than {MAX_TOTALS} allowed totals; use a larger step"))
        for k, t in enumerate(job.card_types or []):
            _known(t, types, f"{p}.card_types[{k}]", "card type", errors)
        for k, r in enumerate(job.regions or []):
            _known(r, regions, f"{p}.regions[{k}]", "region", errors)
        for t in job.throughput:
            _known(t, types, f"{p}.throughput.{t}", "card type", errors)
        for k, d in enumerate(job.data):
            _known(d.dataset, datasets, f"{p}.data[{k}].dataset", "dataset", errors)
        if job.affinity is not None:
            for kind in ("same_region", "different_cluster"):
                for k, other in enumerate(getattr(job.affinity, kind)):
                    path = f"{p}.affinity.{kind}[{k}]"
                    if _known(other, jobs, path, "job", errors) and other == job.id:
                        errors.append(InputError(path, "a job cannot have an affinity with itself"))
        if job.running is not None:
            for k, part in enumerate(job.running.parts):
                pp = f"{p}.running.parts[{k}]"
                ok = _known(part.cluster, clusters, f"{pp}.cluster", "cluster", errors)
                ok &= _known(part.card_type, types, f"{pp}.card_type", "card type", errors)
                if ok and part.card_type not in pool_types.get(part.cluster, set()):
                    errors.append(InputError(f"{pp}.card_type", f"cluster {part.cluster!r} has no {part.card_type!r} pool"))
    ref = doc.settings.reference_card
    if ref is not None:
        _known(ref, types, "settings.reference_card", "card type", errors)
    if errors:
        raise InputErrors(errors, source)
