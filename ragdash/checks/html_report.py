"""A standalone HTML report of a saved run, or of the diff of two: what a stakeholder gets.

One file that opens offline in any browser: inline CSS, no script at all, no external
resource (a ``Content-Security-Policy`` of ``default-src 'none'`` says so to the browser as
well, so even a mistake could not load or run anything). Charts are plain HTML: the
ablation heatmap is a table of colored cells (each with its diagnosis as text, so it reads
without color too), the pass rate and metrics are inline SVG bars drawn here.

Every piece of text that came from documents, cases or settings goes through
:func:`ragdash.retrieval.highlight.escape_text` (HTML-escaped, bidirectional controls shown
as code points); passages are highlighted by :func:`~ragdash.retrieval.highlight.
highlight_html` with :data:`~ragdash.retrieval.highlight.HIGHLIGHT_CSS` — exactly as
Explore shows them::

    >>> html = run_report(run)                               # doctest: +SKIP
    >>> "<script" in html, html.count('class="rd-passage"')  # doctest: +SKIP
    (False, 4)
"""

from __future__ import annotations

from ragdash.case import DIAGNOSIS_TEXT, EVIDENCE_RULE, Diagnosis
from ragdash.checks.rundiff import BROKE, FIXED, METRIC_KEYS, RunDiff
from ragdash.checks.snapshot import CaseResult, SavedRun
from ragdash.retrieval.highlight import HIGHLIGHT_CSS, escape_text, highlight_html
from ragdash.settings import configuration_title

__all__ = ["DIAGNOSIS_COLORS", "diff_report", "run_report"]

#: As the dashboard's heatmap colors them.
DIAGNOSIS_COLORS = {"pass": "#2f9e44", "ranking": "#e03131", "extraction": "#f08c00",
                    "error": "#868e96"}  # fmt: skip
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"

BASE_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 0;
  color: #1f2328; background: #fff; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 1.2rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .6rem;
  border-bottom: 1px solid #e3e3e8; padding-bottom: .2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .4rem 0; }
th, td { border: 1px solid #e3e3e8; padding: .25rem .5rem; text-align: left;
  vertical-align: top; overflow-wrap: anywhere; }
th { background: #f7f7f9; }
.facts td:first-child { font-weight: 600; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.heat th { white-space: nowrap; overflow-wrap: normal; }
.heat td.cell { text-align: center; color: #fff; font-size: .7rem; padding: .2rem .25rem; }
td.change-fixed, td.change-broke { white-space: nowrap; }
.heat th.config { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap;
  font-weight: 500; }
.verdict-pass { color: #2f9e44; font-weight: 600; } .verdict-fail, .verdict-error {
  color: #e03131; font-weight: 600; }
.case { border: 1px solid #e3e3e8; border-radius: .4rem; padding: .2rem .9rem .8rem;
  margin: 1rem 0; }
.muted { color: #59636e; font-size: .85rem; }
.change-fixed { color: #2f9e44; font-weight: 600; } .change-broke { color: #e03131;
  font-weight: 600; }
code { background: #f3f3f6; padding: 0 .25rem; border-radius: .2rem; }
"""


def _t(value: object) -> str:
    """Untrusted text as HTML text (escaped, bidirectional controls visible)."""
    return escape_text(str(value))


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<meta name=\"generator\" content=\"ragdash\"><title>{_t(title)}</title>"
        f"<style>{BASE_CSS}{HIGHLIGHT_CSS}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )


def _facts(run: SavedRun) -> str:
    rows = [
        ("run", run.ref),
        ("when", run.at),
        ("retriever", run.retriever_label),
        ("fixes", configuration_title(run.fixes_label)),
        ("corpus", f"{run.corpus_fingerprint} ({len(run.documents)} documents)"),
        ("passed", f"{run.passed} of {run.total} cases"),
    ]
    cells = "".join(f"<tr><td>{_t(k)}</td><td>{_t(v)}</td></tr>" for k, v in rows)
    return f'<table class="facts">{cells}</table>'


def _bar(label: str, value: float | None, width: int = 260) -> str:
    """One labelled horizontal bar (inline SVG) for a 0-1 value."""
    shown = "-" if value is None else f"{value:.3f}"
    fill = 0 if value is None else max(0.0, min(1.0, value)) * width
    return (
        f'<svg role="img" aria-label="{_t(label)} {shown}" width="{width + 175}" height="20" '
        f'xmlns="http://www.w3.org/2000/svg"><rect x="120" y="3" width="{width}" height="14" '
        f'fill="#eef0f3"/><rect x="120" y="3" width="{fill:.1f}" height="14" fill="#4c6ef5"/>'
        f'<text x="0" y="15" font-size="12">{_t(label)}</text>'
        f'<text x="{width + 124}" y="15" font-size="12">{shown}</text></svg>'
    )


def _metrics(run: SavedRun) -> str:
    values = run.metric_values
    bars = [_bar("pass rate", run.pass_rate)]
    bars += [_bar(name, values.get(key)) for key, name in METRIC_KEYS.items()]
    return (f"<h2>Metrics at k={run.metric_k}</h2>"
            f'<div class="metrics">{"<br>".join(bars)}</div>'
            f'<p class="muted">Means over the cases: hit@k — the expected document is in '
            "the top k; recall@k evidence — evidence strings found in the top-k text; MRR — "
            "1 / rank of the expected document; nDCG@k — 1 / log2(rank + 1).</p>")  # fmt: skip


def _heatmap(run: SavedRun) -> str:
    if not run.ablation:
        return ("<h2>Ablation</h2><p class=\"muted\">No ablation was recorded with this run "
                "(run it with <code>--ablation</code>).</p>")  # fmt: skip
    configs = list(dict.fromkeys(a.configuration for a in run.ablation))
    cases = list(dict.fromkeys(a.case for a in run.ablation))
    cells = {(a.case, a.configuration): a.diagnosis for a in run.ablation}
    # one name per fix, the dashboard's: "Skip withdrawn", "All but OCR normalization"
    head = "".join(f'<th class="config">{_t(configuration_title(c))}</th>' for c in configs)
    rows = []
    for case in cases:
        tds = []
        for config in configs:
            diagnosis = cells.get((case, config), "")
            color = DIAGNOSIS_COLORS.get(diagnosis, "#adb5bd")
            tds.append(f'<td class="cell" style="background:{color}" '
                       f'title="{_t(case)} · {_t(configuration_title(config))}: '
                       f'{_t(diagnosis)}">'
                       f"{_t(diagnosis)}</td>")  # fmt: skip
        rows.append(f"<tr><th>{_t(case)}</th>{''.join(tds)}</tr>")
    legend = " ".join(
        f'<span style="background:{c};color:#fff;padding:0 .4rem;border-radius:.2rem">'
        f"{_t(d)}</span>"
        for d, c in DIAGNOSIS_COLORS.items()
    )
    return ("<h2>Ablation: which fix repairs which case</h2>"
            f'<div class="scroll"><table class="heat"><tr><th></th>{head}</tr>{"".join(rows)}'
            "</table></div>"
            f'<p class="muted">Columns: no fixes, each fix alone, all fixes, and all fixes but '
            f"one (with the run's fix settings). {legend}</p>")  # fmt: skip


def _cases_table(run: SavedRun) -> str:
    rows = ["<tr><th>case</th><th>query</th><th>expected</th><th>ranked first</th>"
            "<th>verdict</th><th>diagnosis</th><th>rank</th><th>missing evidence</th></tr>"]
    for c in run.cases:
        rows.append(
            f"<tr><td>{_t(c.name)}</td><td>{_t(c.query)}</td><td>{_t(c.expected_id)}</td>"
            f"<td>{_t(c.first_id or '—')}</td>"
            f'<td class="verdict-{_t(c.verdict)}">{_t(c.verdict.upper())}</td>'
            f"<td>{_t(c.diagnosis)}</td><td>{'—' if c.rank is None else c.rank}</td>"
            f"<td>{_t('; '.join(c.missing_evidence) or '—')}</td></tr>"
        )  # fmt: skip
    return f"<h2>Cases</h2><table class=\"cases\">{''.join(rows)}</table>"


def _legend() -> str:
    return ('<div class="rd-passage rd-legend" style="white-space:normal">'
            '<mark class="hit-exact">exact</mark><mark class="hit-ocr">OCR-normalized</mark>'
            '<mark class="hit-fuzzy">fuzzy</mark>'
            '<mark class="evidence">required evidence</mark></div>')  # fmt: skip


def _explanation(c: CaseResult) -> str:
    try:
        return DIAGNOSIS_TEXT[Diagnosis(c.diagnosis)]
    except ValueError:
        return "the retriever failed on this case"


def _case_block(c: CaseResult, heading: str = "") -> str:
    parts = [f'<section class="case"><h3>{heading}{_t(c.name)} — '
             f'<span class="verdict-{_t(c.verdict)}">{_t(c.verdict.upper())}</span> '
             f"({_t(c.diagnosis)})</h3>",
             f"<p>Query <code>{_t(c.query)}</code> should rank <code>{_t(c.expected_id)}</code> "
             f"first (top-k {c.top_k}); ranked first: <code>{_t(c.first_id or '—')}</code>; "
             f"expected document's rank: {'not in the top k' if c.rank is None else c.rank}."
             "</p>",
             f"<p>{_t(_explanation(c))}.</p>"]  # fmt: skip
    if c.evidence:
        missing = "; ".join(c.missing_evidence) or "none"
        parts.append(f"<p>Required evidence: {_t('; '.join(c.evidence))} — missing: "
                     f"<strong>{_t(missing)}</strong></p>")  # fmt: skip
    if c.message:
        parts.append(f'<p class="muted">{_t(c.message)}</p>')
    if not c.passages and c.verdict != "error":
        parts.append("<p><em>No passage matched the query: nothing was sent to the model."
                     "</em></p>")  # fmt: skip
    for p in c.passages:
        body = highlight_html(p.text, dict(p.kinds), c.evidence)
        parts.append(f'<p class="muted">#{p.rank} · {_t(p.label)} · score {p.score:g}</p>'
                     f'<div class="rd-passage">{body}</div>')  # fmt: skip
    parts.append("</section>")
    return "".join(parts)


def _failing(run: SavedRun) -> str:
    failing = [c for c in run.cases if not c.passed]
    if not failing:
        return "<h2>Failing cases</h2><p>Every case passes.</p>"
    blocks = "".join(_case_block(c) for c in failing)
    return (f"<h2>Failing cases ({len(failing)})</h2>"
            f"<p class=\"muted\">The passages sent to the model, highlighted as in Explore; "
            f"{_t(EVIDENCE_RULE)}.</p>{_legend()}{blocks}")  # fmt: skip


def _run_sections(run: SavedRun) -> str:
    return _metrics(run) + _heatmap(run) + _cases_table(run) + _failing(run)


def run_report(run: SavedRun) -> str:
    """The report of one run: summary, metrics, ablation heatmap, cases, failing cases with
    their passages highlighted."""
    title = f"ragdash run {run.ref}"
    body = (f"<h1>{_t(title)}</h1><p class=\"muted\">A standalone ragdash report: a proof "
            "check passes when the expected document is ranked first and every evidence "
            "string is in the top-k text.</p>"
            f"<h2>Summary</h2>{_facts(run)}{_run_sections(run)}")  # fmt: skip
    return _page(title, body)


def _changes(diff: RunDiff) -> str:
    if not diff.changes:
        return "<p>No case changed its verdict, diagnosis or rank.</p>"
    rows = ["<tr><th>case</th><th>change</th><th>before</th><th>after</th><th>why</th></tr>"]
    for c in diff.changes:
        cls = {FIXED: "change-fixed", BROKE: "change-broke"}.get(c.change, "")
        why = "<br>".join(_t(r) for r in c.reasons)
        rows.append(
            f"<tr><td>{_t(c.case)}</td><td class=\"{cls}\">{_t(c.change)}</td>"
            f"<td>{_t(c.before)}</td><td>{_t(c.after)}</td><td>{why}</td></tr>"
        )
    return f'<table class="changes">{"".join(rows)}</table>'


def _deltas(diff: RunDiff) -> str:
    def fmt(v: float | None) -> str:
        return "—" if v is None else f"{v:.3f}"

    rows = ["<tr><th>metric</th><th>before</th><th>after</th><th>delta</th></tr>"]
    rows.append(f"<tr><td>passed</td><td>{diff.a.passed}/{diff.a.total}</td>"
                f"<td>{diff.b.passed}/{diff.b.total}</td>"
                f"<td>{diff.b.passed - diff.a.passed:+d}</td></tr>")  # fmt: skip
    for m in diff.metrics:
        delta = "—" if m.delta is None else f"{m.delta:+.3f}"
        rows.append(f"<tr><td>{_t(m.name)}</td><td>{fmt(m.before)}</td><td>{fmt(m.after)}</td>"
                    f"<td>{delta}</td></tr>")  # fmt: skip
    return f'<table class="deltas">{"".join(rows)}</table>'


def _side_by_side(a: SavedRun, b: SavedRun) -> str:
    rows = [("run", a.ref, b.ref), ("when", a.at, b.at),
            ("retriever", a.retriever_label, b.retriever_label),
            ("fixes", configuration_title(a.fixes_label), configuration_title(b.fixes_label)),
            ("corpus", a.corpus_fingerprint, b.corpus_fingerprint),
            ("passed", f"{a.passed} of {a.total}", f"{b.passed} of {b.total}")]  # fmt: skip
    cells = "".join(f"<tr><td>{_t(k)}</td><td>{_t(x)}</td><td>{_t(y)}</td></tr>"
                    for k, x, y in rows)  # fmt: skip
    return f'<table class="facts"><tr><th></th><th>before</th><th>after</th></tr>{cells}</table>'


def diff_report(diff: RunDiff) -> str:
    """The report of a diff: both runs side by side, the cases that moved with why, the
    metric deltas, then the newer run's full report (heatmap, failing cases)."""
    a, b = diff.a, diff.b
    title = f"ragdash diff {a.ref} → {b.ref}"
    corpus = ""
    if a.corpus_fingerprint != b.corpus_fingerprint:
        corpus = f"<p>The corpus changed: {_t(diff.corpus.phrase())}.</p>"
    fixed = [b.case(c.case) for c in diff.fixed]
    repaired = "".join(_case_block(c, "repaired: ") for c in fixed if c is not None)
    body = (f"<h1>{_t(title)}</h1>"
            f"<p class=\"muted\">What moved between two ragdash runs, and why where the runs "
            "recorded it.</p>"
            f"<h2>Summary</h2>{_side_by_side(a, b)}{corpus}"
            f"<p><span class=\"change-fixed\">{len(diff.fixed)} fail→pass</span>, "
            f"<span class=\"change-broke\">{len(diff.broke)} pass→fail</span>, "
            f"{len(diff.changes) - len(diff.fixed) - len(diff.broke)} other change(s).</p>"
            f"<h2>Cases that changed</h2>{_changes(diff)}"
            f"<h2>Metric deltas (k={b.metric_k})</h2>{_deltas(diff)}"
            f"<h2>The newer run: {_t(b.ref)}</h2>{_run_sections(b)}"
            + (f"<h2>Repaired cases</h2>{_legend()}{repaired}" if repaired else "")
            )  # fmt: skip
    return _page(title, body)
