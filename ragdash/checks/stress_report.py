"""The standalone HTML report of a stress run: one offline file, like the run reports.

Same page shell as :mod:`ragdash.checks.html_report` (inline CSS, no script, a
``default-src 'none'`` Content-Security-Policy); every string from documents, cases or
settings goes through :func:`ragdash.retrieval.highlight.escape_text`. It shows, per fault ×
configuration × retriever, passed/total and the rate with its 95% interval; which fix
repairs which fault on this corpus; the variants no configuration saves, with their
diagnosis; and every injected document by name::

    >>> html = stress_report(report)                 # doctest: +SKIP
    >>> "<script" in html                            # doctest: +SKIP
    False
"""

from __future__ import annotations

from ragdash.case import DIAGNOSIS_TEXT, Diagnosis
from ragdash.checks.html_report import DIAGNOSIS_COLORS, _page, _t
from ragdash.checks.stress import StressReport
from ragdash.retrieval.spec import shown_kind
from ragdash.settings import configuration_title

__all__ = ["stress_report"]


def _rate_cell(passed: int, total: int, low: float, high: float) -> str:
    if not total:
        return '<td class="muted">no case</td>'
    rate = passed / total
    shade = int(235 - 120 * rate)
    color = f"rgb({shade + 20 if rate < 0.5 else 60},{int(110 + 90 * rate)},{shade - 60})"
    return (
        f'<td style="background:{color};color:#fff;text-align:center">'
        f"<b>{passed}/{total}</b><br>{rate:.0%} <small>[{low:.0%}–{high:.0%}]</small></td>"
    )


def _matrix(report: StressReport) -> str:
    parts = []
    for retriever in report.retrievers:
        rows = ["<tr><th>fault</th><th>Clean</th><th>No fix</th><th>Targeted fix</th>"
                "<th>All fixes</th><th>targeted fix is</th></tr>"]  # fmt: skip
        baseline = report.baseline(retriever)
        for fault in report.faults:
            configs = report.configurations(fault)
            clean = baseline.get(fault, {}).get("clean", 0)
            cells = [f"<td>{clean}</td>"]
            for c in configs:
                cell = report.cell(fault, c, retriever)
                if cell is None:
                    cells.append('<td class="muted">-</td>')
                else:
                    cells.append(_rate_cell(cell.passed, cell.total, *cell.interval))
            rows.append(
                f"<tr><th>{_t(fault)}</th>{''.join(cells)}<td>{_t(configuration_title(configs[1]))}"
                "</td></tr>"
            )
        answered = (f"<p>Answers {report.clean_passed(retriever)}/{len(report.cases)} cases on "
                    "the clean docs; each fault is measured on those cases only, so a drop "
                    "from <i>clean</i> is the fault's doing.</p>")  # fmt: skip
        parts.append(f"<h3>{_t(shown_kind(retriever))}</h3>{answered}"
                     "<div class='scroll'><table class='heat'>"
                     f"{''.join(rows)}</table></div>")  # fmt: skip
    return "".join(parts)


def _repairs(report: StressReport) -> str:
    rows = ["<tr><th>retriever</th><th>fault</th><th>on this corpus</th></tr>"]
    for retriever in report.retrievers:
        for fault, words in report.repairs(retriever).items():
            label = report.configurations(fault)[1]
            if words.startswith(f"{label} "):  # the fix by the dashboard's name, not its code
                words = configuration_title(label) + words[len(label) :]
            rows.append(
                f"<tr><td>{_t(shown_kind(retriever))}</td><td>{_t(fault)}</td><td>{_t(words)}</td></tr>"
            )
    return f"<table>{''.join(rows)}</table>"


def _variant(fault: str, variant: str) -> str:
    """A variant's name, or '' where it only repeats its fault's (``ocr`` of ``ocr-query``:
    a code name the reader would take for the fix's).

    >>> _variant("ocr-query", "ocr"), _variant("stale", "dated")
    ('', 'dated')
    """
    return "" if variant in fault.split("-") else variant


def _unsaved(report: StressReport) -> str:
    failing = report.unsaved()
    if not failing:
        return "<p>Every faulted variant passes under All fixes.</p>"
    rows = ["<tr><th>case</th><th>fault</th><th>variant</th><th>retriever</th><th>query</th>"
            "<th>diagnosis</th><th>ranked first</th><th>missing evidence</th></tr>"]  # fmt: skip
    for r in failing:
        color = DIAGNOSIS_COLORS.get(r.diagnosis, "#868e96")
        why = DIAGNOSIS_TEXT.get(Diagnosis(r.diagnosis), r.diagnosis) if r.diagnosis in (
            "pass", "ranking", "extraction") else r.diagnosis  # fmt: skip
        rows.append(
            f"<tr><td>{_t(r.case)}</td><td>{_t(r.fault)}</td>"
            f"<td>{_t(_variant(r.fault, r.variant))}</td>"
            f"<td>{_t(shown_kind(r.retriever))}</td><td>{_t(r.query)}</td>"
            f"<td style='color:{color}'><b>{_t(r.diagnosis)}</b><br><small>{_t(why)}</small></td>"
            f"<td>{_t(r.first_id or '-')}</td>"
            f"<td>{_t('; '.join(r.missing_evidence) or '-')}</td></tr>"
        )
    return f"<div class='scroll'><table>{''.join(rows)}</table></div>"


def _injected(report: StressReport) -> str:
    rows = ["<tr><th>case</th><th>fault</th><th>variant</th><th>injected document</th>"
            "<th>query run</th><th>what was done</th></tr>"]  # fmt: skip
    for v in report.variants:
        rows.append(
            f"<tr><td>{_t(v.case.name)}</td><td>{_t(v.fault)}</td>"
            f"<td>{_t(_variant(v.fault, v.variant))}</td>"
            f"<td>{_t(', '.join(v.injected) or '(none: the query is faulted)')}</td>"
            f"<td>{_t(v.case.query)}</td><td>{_t(v.note)}</td></tr>"
        )
    return f"<div class='scroll'><table>{''.join(rows)}</table></div>"


def _cases(report: StressReport) -> str:
    rows = ["<tr><th>case</th><th>query</th><th>expected</th><th>evidence</th><th>note</th></tr>"]
    for c in report.cases:
        rows.append(f"<tr><td>{_t(c.name)}</td><td>{_t(c.query)}</td><td>{_t(c.expected_id)}</td>"
                    f"<td>{_t('; '.join(c.evidence))}</td><td>{_t(c.note)}</td></tr>")  # fmt: skip
    return f"<div class='scroll'><table>{''.join(rows)}</table></div>"


def stress_report(report: StressReport, title: str = "ragdash stress test") -> str:
    """The report as one HTML page (a string)."""
    skipped: dict[str, int] = {}
    for fault, _, _ in report.skipped:
        skipped[fault] = skipped.get(fault, 0) + 1
    skipped_text = ", ".join(f"{f}: {n}" for f, n in skipped.items())
    facts = (
        f"<table class='facts'><tr><td>seed</td><td>{report.seed}</td></tr>"
        f"<tr><td>rate</td><td>{report.rate:g}</td></tr>"
        f"<tr><td>cases</td><td>{len(report.cases)}</td></tr>"
        f"<tr><td>retrievers</td><td>{_t(', '.join(map(shown_kind, report.retrievers)))}</td></tr>"
        f"<tr><td>skipped</td><td>{_t(skipped_text or 'none')}</td></tr></table>"
    )
    notes = "".join(f"<p class='muted'>{_t(n)}</p>" for n in (*report.notes, *report.too_few()))
    if report.cancelled:
        notes += "<p><b>Cancelled:</b> the numbers cover the cases run before the stop.</p>"
    body = (
        f"<h1>{_t(title)}</h1>{facts}{notes}"
        "<h2>Pass rate per fault and configuration</h2>"
        "<p class='muted'>passed/total, the rate and its 95% interval (Wilson, widened to "
        "a bootstrap over the documents behind the cases); each stale case "
        "gets one variant the seed picks: dated, withdrawn or older.</p>"
        f"{_matrix(report)}<h2>Which fix repairs which fault here</h2>{_repairs(report)}"
        f"<h2>Variants no fix saves</h2>{_unsaved(report)}"
        f"<h2>Injected documents and faulted queries</h2>{_injected(report)}"
        f"<h2>Cases</h2>{_cases(report)}"
    )
    return _page(title, body)
