"""The report: figures show the plan's own numbers; the HTML page stands alone and renders in Chromium."""

import base64
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

import fedopt
from fedopt.cli import main
from fedopt.report import (
    analyze,
    history_of,
    plot_convergence,
    plot_data_reads,
    plot_gantt,
    plot_pending,
    plot_pool_use,
    plot_region_graph,
    render_report,
)
from tests.conftest import tiny_doc
from tests.k8s.roundtrip import HORIZON, HORIZON_PLAN


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_heatmap_shows_used_and_idle_cards_of_every_pool(roundtrip):
    inst, plan = roundtrip.inst, roundtrip.plan_doc
    used = {}
    for a in plan.assignments:
        for p in a.parts:
            used[(p.cluster, p.card_type)] = used.get((p.cluster, p.card_type), 0) + p.count
    fig = plot_pool_use(inst, plan)
    labels = texts(fig)
    for c in inst.doc.clusters:
        for p in c.pools:
            u = used.get((c.id, p.card_type), 0)
            assert f"{u}/{p.cards}\n{p.cards - u} idle" in labels
    shares = fig.axes[0].images[0].get_array()
    cols = [t for t in inst.card_ids]
    sh, h100 = inst.cluster_ids.index("gpu-sh"), cols.index("H100")
    assert shares[sh, h100] == pytest.approx(used[("gpu-sh", "H100")] / 24)
    assert np.ma.is_masked(shares[inst.cluster_ids.index("gpu-sz"), cols.index("A100")])  # no pool there


def test_region_graph_labels_link_use_against_capacity(roundtrip):
    inst, plan = roundtrip.inst, roundtrip.plan_doc
    view = analyze(inst, plan)
    sh, sz = inst.region_ids.index("cn-shanghai"), inst.region_ids.index("cn-shenzhen")
    k = next(k for k, (a, b) in enumerate(inst.link_ends) if {int(a), int(b)} == {sh, sz})
    # pretrain-70b: anchor gpu-sz (16 of 24 cards) syncs 10 Gbit/s to cn-shanghai, and its gpu-sz
    # part reads c4 (6 Gbit/s, replica in cn-shanghai) for 16/24 of it: 10 + 4 = 14
    assert view.link_use[k] == pytest.approx(14.0)
    labels = texts(plot_region_graph(inst, plan, view))
    assert "14/40 Gbit/s" in labels and "0/100 Gbit/s" in labels
    assert any(t.startswith("cn-shanghai\n") and t.endswith("/32 cards") for t in labels)


def test_data_reads_split_local_and_remote(roundtrip):
    inst, plan = roundtrip.inst, roundtrip.plan_doc
    view = analyze(inst, plan)
    fig = plot_data_reads(inst, plan, view)
    local_bars, remote_bars = fig.axes[0].containers
    heights_local = [r.get_height() for r in local_bars]
    heights_remote = [r.get_height() for r in remote_bars]
    c = {cid: i for i, cid in enumerate(inst.cluster_ids)}
    # pretrain-70b reads 6 Gbit/s of c4 (in cn-shanghai): 2 locally in gpu-sh, 4 remotely in gpu-sz;
    # sft-7b reads 2 of pile in gpu-bj, where pile lives
    assert heights_local[c["gpu-sh"]] == pytest.approx(2.0) and heights_remote[c["gpu-sz"]] == pytest.approx(4.0)
    assert heights_local[c["gpu-bj"]] == pytest.approx(2.0) and heights_remote[c["gpu-sh"]] == 0
    assert "4 vs remotely 4" in fig.axes[0].get_title()


def test_pending_reasons_on_the_fleet(roundtrip):
    inst, plan = roundtrip.inst, roundtrip.plan_doc
    view = analyze(inst, plan)
    why = {inst.job_ids[u.j]: u for u in view.unplaced}
    assert set(why) == set(inst.job_ids) - {a.job for a in plan.assignments}
    assert why["giant"].category == "too large" and why["giant"].needs == 256
    pangu = why["gpu-bj/team-b/pangu-pt"]
    assert (pangu.status, pangu.category) == ("preempted", "quota")
    assert "tenant team-b uses 32 of 32 cards" in pangu.reasons[0]
    fig = plot_pending(inst, plan, view)
    shown = dict(
        zip(
            [t.get_text() for t in fig.axes[0].get_yticklabels()], [r.get_width() for r in fig.axes[0].containers[0]], strict=True
        )
    )
    assert shown == {f"{inst.job_ids[u.j]} ({u.status})": u.needs for u in view.unplaced}


@pytest.mark.parametrize(("name", "job", "category"), [("quota", "T1", "quota"), ("capacity", "A", "capacity")])
def test_pending_reasons_on_tiny_instances(name, job, category):
    inst = fedopt.parse_instance(tiny_doc(name))
    view = analyze(inst, fedopt.solve(inst))
    why = {inst.job_ids[u.j]: u for u in view.unplaced}
    assert set(why) == {job} and why[job].category == category


def test_no_eligible_pool_reason():
    doc = tiny_doc("capacity")
    doc["jobs"].append({"id": "cann-job", "cards": 1, "stack": "cann", "throughput": {doc["card_types"][0]["id"]: 1.0}})
    inst = fedopt.parse_instance(doc)
    view = analyze(inst, fedopt.solve(inst))
    (u,) = [u for u in view.unplaced if inst.job_ids[u.j] == "cann-job"]
    assert u.category == "no eligible pool"


def test_convergence_plots_the_history_when_present(roundtrip):
    plan = roundtrip.plan_doc
    assert plot_convergence(plan) is None or history_of(plan) is not None
    rows = [
        {
            "round": 0,
            "phase": "colgen",
            "seconds": 0.1,
            "lp": 120.0,
            "bound": 120.0,
            "incumbent": 90.0,
            "gap": 0.33,
            "columns": 10,
        },
        {
            "round": 1,
            "phase": "colgen",
            "seconds": 0.4,
            "lp": 112.0,
            "bound": 112.0,
            "incumbent": 104.0,
            "gap": 0.08,
            "columns": 30,
        },
        {
            "round": 2,
            "phase": "branch",
            "seconds": 0.9,
            "lp": None,
            "bound": 110.0,
            "incumbent": 110.0,
            "gap": 0.0,
            "columns": 31,
        },
    ]
    doc = plan.model_copy(update={"stats": {"history": rows}})
    fig = plot_convergence(doc)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert list(lines["bound"].get_xdata()) == [0.1, 0.4, 0.9] and list(lines["bound"].get_ydata()) == [120.0, 112.0, 110.0]
    assert list(lines["incumbent"].get_ydata()) == [90.0, 104.0, 110.0]
    assert "final gap 0.000%" in fig.axes[0].get_title()
    assert history_of(plan.model_copy(update={"stats": {"history": "junk"}})) is None


def test_gantt_bars_are_the_plan_s_starts_and_durations():
    inst = fedopt.parse_instance(HORIZON)
    assert fedopt.check_plan(inst, fedopt.instance.schema.PlanDoc.model_validate(HORIZON_PLAN), check_objective=False).ok
    fig = plot_gantt(inst, HORIZON_PLAN)
    bars = {t.get_text(): None for t in fig.axes[0].get_yticklabels()}
    rects = fig.axes[0].patches
    spans = dict(zip(bars, [(r.get_x(), r.get_width()) for r in rects], strict=True))
    # durations: ceil(work / (cards x rate) / slot_hours): a 16/8 = 2, b 8/4 = 2, c 12/4 = 3
    assert spans == {"a": (0, 2), "b": (2, 2), "c": (2, 3)}
    assert plot_gantt(fedopt.parse_instance(tiny_doc("capacity")), {"assignments": []}) is None  # no horizon
    view = analyze(inst, HORIZON_PLAN)
    assert view.pool_use.tolist() == [8]  # peak over slots: a alone, then b + c
    assert [inst.job_ids[u.j] for u in view.unplaced] == ["d"] and view.unplaced[0].category == "too large"


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.ids, self.refs, self.scripts = [], set(), [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.imgs.append(a)
        if tag == "script":
            self.scripts += 1
        for k in ("src", "href"):
            if k in a:
                self.refs.append(a[k])


@pytest.fixture(scope="module")
def report_html(roundtrip, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    png = out.parent / "png"
    assert (
        main(["report", str(roundtrip.plan), "--instance", str(roundtrip.instance), "-o", str(out), "--png-dir", str(png), "-q"])
        == 0
    )
    return out


def test_report_is_one_self_contained_page(report_html):
    html = report_html.read_text()
    page = _Page()
    page.feed(html)
    assert {
        "summary",
        "cards",
        "links",
        "data",
        "pending",
        "convergence",
        "fig-pools",
        "fig-links",
        "fig-data",
        "fig-pending",
    } <= page.ids
    assert page.scripts == 0
    assert all(r.startswith("data:image/png;base64,") for r in page.refs)  # nothing fetched from anywhere
    for img in page.imgs:
        data = base64.b64decode(img["src"].split(",", 1)[1])
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000
    assert "gpu-bj/team-b/pangu-pt" in html and "tenant team-b uses 32 of 32 cards" in html
    assert sorted(p.name for p in (report_html.parent / "png").iterdir()) == ["data.png", "links.png", "pending.png", "pools.png"]


CHECK = """<script>
window.__errors = [];
window.addEventListener('error', e => {
  window.__errors.push(e.message || ('failed to load ' + (e.target && e.target.tagName)));
}, true);
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const broken = imgs.filter(i => !i.complete || i.naturalWidth === 0).length;
  const out = document.createElement('div');
  out.id = 'render-check';
  out.textContent = `images=${imgs.length} broken=${broken} errors=${window.__errors.length} width=${document.body.scrollWidth}`;
  document.body.appendChild(out);
});
</script>"""


def test_report_renders_in_headless_chromium(report_html, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium)")
    probe = tmp_path / "probe.html"
    probe.write_text(report_html.read_text().replace("<head>", "<head>" + CHECK, 1))
    cmd = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--dump-dom",
        probe.as_uri(),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    m = re.search(r'<div id="render-check">images=(\d+) broken=(\d+) errors=(\d+) width=(\d+)</div>', out.stdout)
    assert m, out.stdout[-2000:]
    images, broken, errors, width = map(int, m.groups())
    assert images >= 4 and broken == 0 and errors == 0 and width > 0


def test_render_report_accepts_a_result_and_horizon_plans():
    inst = fedopt.parse_instance(HORIZON)
    html = render_report(inst, HORIZON_PLAN)
    assert 'id="fig-gantt"' in html and "6 slots of 1 h" in html
    inst = fedopt.parse_instance(tiny_doc("bandwidth"))
    html = render_report(inst, fedopt.solve(inst))
    assert "<td>6</td><td>10</td><td>60%</td>" in html  # R2 reads 6 Gbit/s over the 10 Gbit/s link


def test_report_cli_bad_input(tmp_path, roundtrip, capsys):
    plan = json.loads(roundtrip.plan.read_text())
    plan["assignments"][0]["job"] = "nope"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(plan))
    out = tmp_path / "r.html"
    assert main(["report", str(bad), "--instance", str(roundtrip.instance), "-o", str(out)]) == 2
    assert "nope" in capsys.readouterr().err and not out.exists()


def test_report_with_history_and_without_links():
    inst = fedopt.parse_instance(tiny_doc("capacity"))
    assert len(inst.link_gbps) == 0
    doc = fedopt.solve(inst).to_doc()
    rows = [{"seconds": 0.1 * i, "bound": 20.0 - i, "incumbent": 10.0 + i} for i in range(4)]
    html = render_report(inst, doc.model_copy(update={"stats": {"history": rows}}))
    page = _Page()
    page.feed(html)
    assert "fig-convergence" in page.ids and "fig-links" not in page.ids
    assert "The instance has no links." in html


def test_report_lists_a_plan_s_violations(roundtrip):
    plan = json.loads(roundtrip.plan.read_text())
    plan["assignments"].append({"job": "giant", "parts": [{"cluster": "gpu-sh", "card_type": "H100", "count": 256}]})
    html = render_report(roundtrip.inst, plan)
    assert 'id="violations"' in html and "rule 4: pool gpu-sh/H100 280 &gt; 24" in html
    assert "every rule holds" in render_report(roundtrip.inst, roundtrip.plan_doc)
