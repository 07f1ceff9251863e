"""One self-contained HTML page per plan: figures inline as base64 PNG, tables beside them, no scripts, no network."""

from __future__ import annotations

import datetime as dt
import html
from collections import Counter

from fedopt.report._figure import png_data_uri
from fedopt.report.analysis import PlanView, analyze, as_plan_doc, history_of
from fedopt.report.convergence import plot_convergence
from fedopt.report.data_reads import plot_data_reads
from fedopt.report.gantt import plot_gantt
from fedopt.report.network import plot_region_graph
from fedopt.report.pending import plot_pending
from fedopt.report.pool_use import plot_pool_use

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:right}
th{background:#f5f5f5}td.l,th.l{text-align:left}img{max-width:100%;height:auto;display:block;margin:.5em 0}
.kv td{border:none;padding:.1em 1em .1em 0;text-align:left}.note{color:#666;font-size:.9em}.over{color:#b00;font-weight:bold}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _img(fig, alt: str, fig_id: str) -> str:
    if fig is None:
        return ""
    return f'<img id="{fig_id}" alt="{_e(alt)}" src="{png_data_uri(fig)}">'


def _table(header: list[str], rows: list[list], left: int = 1, cls: str = "") -> str:
    th = "".join(f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for r in rows:
        tds = "".join(
            f'<td class="l">{_e(v)}</td>' if i < left else f"<td>{v if isinstance(v, _Raw) else _e(v)}</td>"
            for i, v in enumerate(r)
        )
        body.append(f"<tr>{tds}</tr>")
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{"".join(body)}</tbody></table>'


class _Raw(str):
    """Already-escaped HTML for a table cell."""


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.6g}"


def render_report(inst, plan, title: str | None = None, view: PlanView | None = None) -> str:
    """The report page as a string (UTF-8 HTML5)."""
    from fedopt.check import check_plan

    doc = as_plan_doc(plan)
    view = view or analyze(inst, doc)
    verdict = check_plan(inst, doc, check_objective=doc.objective is not None)
    status = Counter(view.status_of(j) for j in range(inst.n_jobs))
    title = title or f"fedopt plan report: {inst.name}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
    ]
    kv = [
        ("instance", inst.name),
        ("plan status", doc.status),
        ("objective", _fmt(doc.objective) + ("" if doc.objective is not None else f" (recomputed {verdict.objective:.6g})")),
        ("bound", _fmt(doc.bound)),
        ("gap", "-" if doc.gap is None else f"{doc.gap:.4%}"),
        ("jobs", "  ".join(f"{k} {status.get(k, 0)}" for k in ("started", "later", "kept", "migrated", "preempted", "pending"))),
        ("horizon", f"{inst.horizon.slots} slots of {inst.horizon.slot_hours:g} h" if inst.horizon else "none (snapshot plan)"),
    ]
    kv.append(("check", "every rule holds" if verdict.ok else f"{len(verdict.violations)} violation(s), listed below"))
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in kv)
    parts.append(f'<table class="kv" id="summary">{rows}</table>')
    if not verdict.ok:
        items = "".join(f"<li>{_e(v)}</li>" for v in verdict.violations[:100])
        more = f"<li>... and {len(verdict.violations) - 100} more</li>" if len(verdict.violations) > 100 else ""
        parts.append(f'<div id="violations" class="over"><p>The plan breaks these rules:</p><ul>{items}{more}</ul></div>')

    # cards
    used, cards = view.pool_matrix()
    parts.append('<h2 id="cards">Cards used and idle per cluster and card type</h2>')
    parts.append(_img(plot_pool_use(inst, doc, view), "heatmap of cards used per cluster and card type", "fig-pools"))
    rows = []
    for c in range(len(inst.cluster_ids)):
        for t in range(len(inst.card_ids)):
            if cards[c, t] >= 0:
                share = used[c, t] / cards[c, t] if cards[c, t] else 0.0
                rows.append(
                    [
                        inst.cluster_ids[c],
                        inst.card_ids[t],
                        int(used[c, t]),
                        int(cards[c, t] - used[c, t]),
                        int(cards[c, t]),
                        f"{share:.0%}",
                    ]
                )
    peak = " (peak)" if view.horizon else ""
    parts.append(_table(["cluster", "card type", f"used{peak}", "idle", "cards", "share"], rows, left=2, cls="pools"))

    # network
    parts.append('<h2 id="links">Region graph: link use against capacity</h2>')
    if len(inst.link_gbps):
        parts.append(_img(plot_region_graph(inst, doc, view), "region graph with link use", "fig-links"))
        rows = []
        for k, (a, b) in enumerate(inst.link_ends):
            cap, use = float(inst.link_gbps[k]), float(view.link_use[k])
            share = use / cap if cap > 0 else (float("inf") if use > 0 else 0.0)
            cell = _Raw(f'<span class="over">{share:.0%}</span>' if share > 1 + 1e-9 else f"{share:.0%}")
            rows.append([f"{inst.region_ids[a]} - {inst.region_ids[b]}", f"{use:.4g}", f"{cap:.4g}", cell])
        parts.append(_table(["link", "use Gbit/s", "capacity Gbit/s", "share"], rows, cls="links"))
    else:
        parts.append('<p class="note">The instance has no links.</p>')

    # data
    parts.append('<h2 id="data">Data read locally and remotely</h2>')
    parts.append(_img(plot_data_reads(inst, doc, view), "data read locally and remotely per cluster", "fig-data"))
    rows = [
        [inst.cluster_ids[c], f"{view.local_read[c]:.4g}", f"{view.remote_read[c]:.4g}"]
        for c in range(len(inst.cluster_ids))
        if view.local_read[c] > 0 or view.remote_read[c] > 0
    ]
    if rows:
        parts.append(_table(["cluster", "local Gbit/s", "remote Gbit/s"], rows, cls="reads"))

    # unplaced
    parts.append('<h2 id="pending">Jobs not placed, and why</h2>')
    if view.unplaced:
        parts.append(_img(plot_pending(inst, doc, view), "jobs not placed by reason", "fig-pending"))
        rows = [
            [inst.job_ids[u.j], u.status, inst.doc.jobs[u.j].tenant or "-", u.needs, "; ".join(u.reasons)]
            for u in sorted(view.unplaced, key=lambda u: inst.job_ids[u.j])
        ]
        parts.append(_table(["job", "status", "tenant", "cards needed", "reasons"], rows, left=3, cls="unplaced"))
    else:
        parts.append('<p class="note">Every job is placed.</p>')

    # convergence
    parts.append('<h2 id="convergence">Convergence</h2>')
    if history_of(doc) is not None:
        parts.append(_img(plot_convergence(doc), "bound and incumbent over time", "fig-convergence"))
    else:
        parts.append('<p class="note">The plan\'s stats hold no history of rounds (a single exact solve).</p>')

    # schedule
    if inst.horizon is not None:
        parts.append('<h2 id="gantt">Schedule</h2>')
        parts.append(_img(plot_gantt(inst, doc, view), "Gantt chart of the horizon plan", "fig-gantt"))
        rows = []
        for pl in sorted(view.placed.values(), key=lambda p: (p.start, inst.job_ids[p.j])):
            where = ", ".join(f"{n} {inst.card_ids[t]} in {inst.cluster_ids[c]}" for c, t, n in pl.parts)
            rows.append([inst.job_ids[pl.j], pl.start, pl.duration, pl.start + pl.duration, where])
        parts.append(_table(["job", "start slot", "slots", "ends", "parts"], rows, cls="schedule"))

    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f'<p class="note">Made by fedopt report on {when}.</p></body></html>')
    return "\n".join(parts)
