"""Stress test: inject the four flaws into the documents, run every case under no fix, the
fix that targets the fault and all fixes, and show what breaks — the matrix as a heatmap
(fault × configuration, one per retriever, ``7/10`` in each cell), which fix repairs which
fault, the cases no fix saves, and a click-through from a cell to its faulted case in
Explore with the injected document marked.

The page only draws: the run is the core's :func:`ragdash.checks.stress.run_stress`, called
with the same arguments ``ragdash stress`` passes, so the numbers are the CLI's. Faulted
corpora live in memory (the core's promise): the docs folder and the workspace are never
written, not even generated cases (saving them to the library is the CLI's ``--generate``).

Why a page of its own rather than a tab of Test suite: a stress run is started on request
(seconds to minutes, with a progress bar and *Cancel*) and has its own inputs — faults, rate,
seed, cases, retrievers — while Test suite recomputes on every visit; and a tab's content
runs on every rerun of the Test suite whether or not it is open.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from ragdash.bundled import SAMPLES
from ragdash.checks.stress import (
    DEFAULT_RATE,
    FAULTS,
    IN_PROCESS,
    TARGETED_FIX,
    StressReport,
    StressResult,
    run_stress,
)
from ragdash.checks.stress_report import stress_report
from ragdash.errors import RagdashError
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.spec import RetrieverSpec, shown_kind
from ragdash.settings import FIX_NAMES
from ragdash.ui.context import error_text, hide_paths, settings
from ragdash.ui.guard import section_guard
from ragdash.ui.navigation import pages
from ragdash.ui.render import html_table, tooltips
from ragdash.ui.retriever_picker import operator_retriever
from ragdash.ui.shell import empty_corpus_notice
from ragdash.ui.sidebar import FIX_LABELS
from ragdash.ui.state import VIEW_KEY, open_case, set_view
from ragdash.ui.stress_view import (
    CASE_SOURCES,
    FAULT_TITLES,
    RUNS_KEY,
    TARGET_KEY,
    StressTarget,
    base_corpus,
    base_index,
    cases_for,
    config_title,
    run_id,
)
from ragdash.ui.text import code, grid, label, literal, plain
from ragdash.ui.viewstate import ViewState

__all__ = [
    "LABEL_PX",
    "MATRIX_SELECTION",
    "RUNNING_KEY",
    "StressRun",
    "clicked_cell",
    "fix_sentences",
    "fix_words",
    "matrix",
    "matrix_frame",
    "render",
    "stress_command",
    "stress_retrievers",
    "unsaved_cases",
    "variant_rows",
]

LABEL_PX = 11
MATRIX_SELECTION = "stresscell"
#: Set while a run is in progress; a rerun that finds it knows the run was stopped.
RUNNING_KEY = "stress_running"
#: How many runs a session keeps (the matrix shown and a few before it, for open links).
KEPT_RUNS = 3
DEFAULT_GENERATED = 20
#: The faults as a sentence starts them ("OCR-damaged document", not "Ocr-damaged …").
FAULT_HEADINGS = {k: v[0].upper() + v[1:] for k, v in FAULT_TITLES.items()}
SOURCE_WORDS = {"library": "the case library", "generated": "generated",
                "samples": "bundled samples"}  # fmt: skip


@dataclass(frozen=True)
class StressRun:
    """One run from the page: its inputs, the core's report and how long it took."""

    run: str
    source: str
    n: int
    faults: tuple[str, ...]
    rate: float
    seed: int
    retrievers: tuple[str, ...]
    report: StressReport
    seconds: float


def stress_retrievers(
    view_spec: RetrieverSpec, operator: RetrieverSpec
) -> dict[str, RetrieverSpec]:
    """The retrievers a stress run may use, by kind: ragdash's own scorers (bm25 with the
    sidebar's k1/b when bm25 is chosen there), and the operator's dense model when the
    dashboard was started with one. Never a team's service or code (nor hybrid, which the
    core runs as one): faults are injected into the corpus ragdash indexes, which a
    service's own index never sees."""
    found = {"seed": RetrieverSpec(),
             "bm25": view_spec if view_spec.kind == "bm25" else RetrieverSpec("bm25")}  # fmt: skip
    if operator.operator_only and operator.kind in IN_PROCESS:  # dense: the model re-embeds
        found[operator.kind] = operator  # only the injected passages
    return found


def matrix_frame(report: StressReport, retriever: str) -> pd.DataFrame:
    """One row per fault × configuration of ``retriever``: the cell's words (``7/10``), the
    pass rate and its 95% interval, and the keys a click reports."""
    rows = []
    for fault in report.faults:
        for configuration in report.configurations(fault):
            cell = report.cell(fault, configuration, retriever)
            if cell is None:
                continue
            low, high = cell.interval
            fix = fix_words(fault)
            rows.append(
                {
                    "fault": FAULT_TITLES.get(fault, fault),
                    "configuration": config_title(configuration),
                    "cell": f"{cell.passed}/{cell.total}" if cell.total else "n/a",
                    "rate": cell.rate if cell.rate is not None else -1.0,
                    "pass rate": f"{cell.rate:.0%}" if cell.rate is not None else "no case",
                    "95% interval": f"{low:.0%}–{high:.0%}" if cell.total else "—",
                    "fix": "All fixes" if configuration == "all" else (
                        "No fix" if configuration == "none" else fix),  # fmt: skip
                    "fault_key": fault,
                    "config_key": configuration,
                    "retriever": retriever,
                }
            )
    return pd.DataFrame(rows)


def matrix(frame: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Faults (rows) × configurations (columns), ``passed/total`` in each cell on a red →
    green scale of the pass rate; grey where no case applied. A click selects a cell
    (:data:`MATRIX_SELECTION`), which the page opens in Explore."""
    shown = grid(frame)  # fault and configuration names drawn as labels
    faults = list(dict.fromkeys(shown["fault"]))
    configurations = list(dict.fromkeys(shown["configuration"]))
    pick = alt.selection_point(
        name=MATRIX_SELECTION, fields=["fault_key", "config_key"], on="click"
    )
    tooltip = tooltips("fault", "configuration", "fix", "cell", "pass rate", "95% interval")
    base = alt.Chart(shown).encode(
        x=alt.X(
            "configuration:N",
            sort=configurations,
            title=None,
            axis=alt.Axis(orient="top", labelAngle=0, labelLimit=0, labelFontSize=LABEL_PX),
        ),
        y=alt.Y(
            "fault:N",
            sort=faults,
            title=None,
            axis=alt.Axis(labelLimit=0, labelOverlap=False, labelFontSize=LABEL_PX),
        ),
    )
    cells = (
        base.mark_rect(stroke="white", strokeWidth=1, cursor="pointer")
        .encode(
            color=alt.condition(
                "datum.rate >= 0",
                alt.Color(
                    "rate:Q",
                    scale=alt.Scale(domain=[0, 0.5, 1], range=["#e03131", "#f08c00", "#2f9e44"]),
                    legend=None,
                ),
                alt.value("#adb5bd"),
            ),
            tooltip=tooltip,
        )
        .add_params(pick)
    )
    words = base.mark_text(fontSize=LABEL_PX + 2, fontWeight="bold", color="white").encode(
        text=alt.Text("cell:N"), tooltip=tooltip
    )
    return alt.layer(cells, words).properties(height=34 * len(faults) + 40)


def clicked_cell(event: object) -> tuple[str, str] | None:
    """The (fault, configuration) keys of the matrix cell clicked, from the chart's event."""
    selection = getattr(event, "selection", None) or {}
    points = selection.get(MATRIX_SELECTION) or []
    point = next((p for p in points if isinstance(p, dict) and "fault_key" in p), None)
    return (str(point["fault_key"]), str(point.get("config_key", ""))) if point else None


def _configuration_of(result: StressResult) -> str:
    """A result's configuration as the matrix keys it (the core's label)."""
    return result.configuration


def fix_words(fault: str) -> str:
    """The fixes that target ``fault``, by the names the sidebar gives them.

    >>> fix_words("stale")
    'Recency tie-break + Skip withdrawn + Demote older versions'
    """
    return " + ".join(FIX_LABELS[name] for name in TARGETED_FIX.get(fault, ()))


def stress_command(
    source: str, n: int, faults: Sequence[str], rate: float, seed: int,
    retrievers: Sequence[str], docs: Path, workspace: Path,
) -> str:  # fmt: skip
    """The ``ragdash stress`` command that prints a page run's numbers (the page and the
    command call the same core with the same arguments; fix settings at their defaults)::

        >>> stress_command("generated", 20, FAULTS, 0.3, 7, ("seed", "bm25"), SAMPLES,
        ...                Path("ws")).split(" --workspace ws ")
        ['ragdash stress --docs samples', '--generate 20 --seed 7 --retriever builtin,bm25']
    """
    shown = "samples" if docs.resolve() == SAMPLES.resolve() else str(docs)
    parts = ["ragdash", "stress"]
    if source == "samples":
        parts += ["--docs", "samples", "--cases", "samples"]
    else:  # the dashboard's documents: the docs folder and the workspace's uploads
        parts += ["--docs", shown, "--workspace", str(workspace)]
        if source == "generated":
            parts += ["--generate", str(n)]
    parts += ["--seed", str(seed)]
    if rate != DEFAULT_RATE:
        parts += ["--rate", f"{rate:g}"]
    if tuple(faults) != tuple(FAULTS):
        parts += ["--faults", ",".join(faults)]
    parts += ["--retriever", ",".join(shown_kind(k) for k in retrievers)]
    return shlex.join(parts)


def fix_sentences(report: StressReport) -> list[str]:
    """Which fix repairs which fault on this corpus, one plain sentence per fault (plain
    text): the targeted fix's pass count against no fix, for every retriever."""
    sentences = []
    for fault in report.faults:
        fix = fix_words(fault) or "its fix"
        targeted = report.configurations(fault)[1]
        pairs = [
            (retriever, none, fixed)
            for retriever in report.retrievers
            for none, fixed in [(report.cell(fault, "none", retriever),
                                 report.cell(fault, targeted, retriever))]
            if none is not None and fixed is not None and none.total
        ]  # fmt: skip
        counts = "; ".join(
            f"{shown_kind(r)}: {a.passed:d}/{a.total:d} → {b.passed:d}/{b.total:d}"
            for r, a, b in pairs
        )
        title = FAULT_HEADINGS.get(fault, fault)
        if not pairs:
            reason = next((r for f, _, r in report.skipped if f == fault), "")
            why = f" ({reason})" if reason else ""
            sentences.append(f"{title}: no case could be tested{why}.")
        elif any(b.passed > a.passed for _, a, b in pairs):
            sentences.append(
                f"{title}: {fix} repairs it (cases passing, no fix → with it: {counts})."
            )
        elif all(a.passed == a.total for _, a, _ in pairs):
            sentences.append(
                f"{title}: breaks none of these cases — every one passes with no fix "
                f"({counts})."
            )
        else:
            sentences.append(
                f"{title}: {fix} does not repair it here (cases passing, no fix → with it: "
                f"{counts})."
            )
    return sentences


def unsaved_cases(report: StressReport) -> list[StressResult]:
    """The faulted cases no fix saves (the core's: failing even with all fixes), each the
    all-fixes result, whose diagnosis says what is still wrong."""
    return list(report.unsaved())


def _sources(index: CorpusIndex, library: int) -> list[str]:
    """The case sources on offer: generated cases always (the default), the library when it
    has cases, and the bundled sample cases when the docs folder is not the samples
    already."""
    # generated first, the default: the library's cases rarely hold a table row, so the
    # table fault was n/a in every column
    found = ["generated"]
    if library:
        found.append("library")
    if settings().docs != SAMPLES:
        found.append("samples")
    return found


def _inputs(index: CorpusIndex, view: ViewState) -> tuple | None:
    """The form: faults, rate, seed, cases and retrievers; the run's arguments on *Run*."""
    library = len(cases_for(index, "library", 0, 0))
    offered = stress_retrievers(view.retriever, operator_retriever())
    with st.form("stress_form", border=True):
        faults = st.multiselect(
            "Faults to inject", list(FAULTS), default=list(FAULTS), key="stress_faults",
            format_func=lambda fault: plain(FAULT_TITLES.get(fault, fault)),
        )  # fmt: skip
        c1, c2 = st.columns(2)
        rate = c1.slider(
            "Damage rate (OCR and typos, per letter)", 0.05, 1.0, DEFAULT_RATE, 0.05,
            key="stress_rate",
        )
        seed = c2.number_input("Seed", 0, 10**9, 0, key="stress_seed",
                               help="the same seed injects the same faults")  # fmt: skip
        sources = _sources(index, library)
        source = st.radio(
            "Cases", sources, key="stress_source", format_func=CASE_SOURCES.get,
        )  # fmt: skip
        n = st.number_input(
            "How many cases to generate (generated cases only)", 1, 200, DEFAULT_GENERATED,
            key="stress_n",
            help="Only for generated cases: passages picked with the seed, a query from each "
            "passage's distinctive words, evidence found in that passage only. They are not "
            "saved (`ragdash stress --generate N --save-cases --workspace DIR` saves them to "
            "the workspace's case library for review).",
        )  # fmt: skip
        default = view.retriever.kind if view.retriever.kind in offered else "seed"
        kinds = st.multiselect(
            "Retrievers", list(offered), default=[default], key="stress_retrievers",
            format_func=lambda kind: plain(shown_kind(kind)),
            help="ragdash's own scorers (builtin and bm25), and the dense or hybrid model when "
            "the dashboard was started with one. A team's service or code is not offered: its "
            "index never sees the injected documents.",
        )  # fmt: skip
        submitted = st.form_submit_button("Run the stress test", icon=":material/play_arrow:",
                                          type="primary")  # fmt: skip
    if not submitted:
        return None
    if not faults or not kinds:
        st.warning("Pick at least one fault and one retriever.")
        return None
    if source == "library" and not library:
        st.warning("The case library is empty: generate cases instead.")
        return None
    specs = tuple(offered[k] for k in kinds)
    return tuple(faults), float(rate), int(seed), str(source), int(n), specs


def _run(index: CorpusIndex, args: tuple) -> StressRun | None:
    """Run the core under a progress bar with *Cancel*. A click on *Cancel* (or on any
    control) reruns the page, which stops this run at its next progress update: nothing of
    it is kept, the previous matrix stays."""
    faults, rate, seed, source, n, specs = args
    kinds = tuple(s.kind for s in specs)
    n = n if source == "generated" else 0
    ident = run_id(index.fingerprint, source, n, faults, rate, seed, kinds)
    st.session_state[RUNNING_KEY] = ident
    slot = st.empty()  # the bar and Cancel, gone once the run ends
    working = slot.container()
    bar = working.progress(0.0, text="Preparing the cases…")
    working.button("Cancel", key="stress_cancel", icon=":material/cancel:")
    started = time.perf_counter()
    try:
        cases = cases_for(index, source, n, seed)
        if not cases:
            st.warning("No case to run: the documents gave no passage to generate a case from.")
            return None

        def progress(fraction: float, step: str) -> None:
            bar.progress(min(max(fraction, 0.0), 1.0), text=label(step))

        report = run_stress(
            base_corpus(index, source),
            cases,
            faults=faults,
            rate=rate,
            seed=seed,
            retrievers=specs,
            progress=progress,
            index=base_index(index, source),  # the cached clean index: built once
        )
    except RagdashError as exc:
        st.session_state.pop(RUNNING_KEY, None)
        st.error(f"The stress test stopped: {error_text(exc)}")
        return None
    except Exception:
        # not cancelled but broken: the page's error card says so (section_guard), and
        # the next visit must not call it a cancellation. Streamlit's own Stop/Rerun
        # (Cancel) are BaseExceptions and pass by, leaving the mark.
        st.session_state.pop(RUNNING_KEY, None)
        raise
    finally:
        slot.empty()
    st.session_state.pop(RUNNING_KEY, None)
    seconds = time.perf_counter() - started
    return StressRun(ident, source, n, faults, rate, seed, kinds, report, seconds)


def _keep(run: StressRun) -> None:
    runs: dict[str, StressRun] = st.session_state.setdefault(RUNS_KEY, {})
    runs.pop(run.run, None)
    runs[run.run] = run
    while len(runs) > KEPT_RUNS:
        runs.pop(next(iter(runs)))
    st.session_state["stress_shown"] = run.run


def _open(run: StressRun, result: StressResult) -> None:
    """Open one faulted case in Explore: its query as asked, its expectation, the fixes of
    its cell (the targeted fix beside no fix for a no-fix cell, so Explore's two columns
    show the repair)."""
    case = next((c for c in run.report.cases if c.name == result.case), None)
    if case is None:
        return
    open_case(replace(case, query=result.query))
    configuration = _configuration_of(result)
    on = list(FIX_NAMES) if configuration == "all" else list(TARGETED_FIX.get(result.fault, ()))
    view = st.session_state[VIEW_KEY]
    spec = stress_retrievers(view.retriever, operator_retriever()).get(result.retriever)
    set_view(replace(view, fixes=view.fixes.with_only(on), retriever=spec or view.retriever))
    for key in (*(f"w_fix_{n}" for n in FIX_NAMES), "w_retriever", "w_k1", "w_b"):
        st.session_state.pop(key, None)
    st.session_state[TARGET_KEY] = StressTarget(
        run=run.run, source=run.source, n=run.n, fault=result.fault, case=result.case,
        variant=result.variant, configuration=configuration, retriever=result.retriever,
        rate=run.rate, seed=run.seed,
    )  # fmt: skip
    st.switch_page(pages().explore)


def _cell_results(run: StressRun, fault: str, configuration: str, retriever: str):
    wanted = (fault, configuration, retriever)
    found = [
        r for r in run.report.results if (r.fault, _configuration_of(r), r.retriever) == wanted
    ]
    # the cases the fault broke first (fail faulted, pass clean), then other failures: a
    # case that fails without the fault said FAIL → FAIL with an unrelated suggestion
    return sorted(found, key=lambda r: (not r.broken_by_fault, r.passed))


def _open_clicked(event: object, run: StressRun, retriever: str) -> None:
    """Open a case the clicked cell's fault broke (else its first failing case, its first
    case when all pass) in Explore, once per click (the chart keeps its selection when the
    page is opened again)."""
    cell = clicked_cell(event)
    key = f"stress_opened_{retriever}"
    if cell == st.session_state.get(key):
        return
    st.session_state[key] = cell
    if cell is None:
        return
    found = _cell_results(run, *cell, retriever)
    if found:
        _open(run, found[0])


def _interrupted() -> None:
    if st.session_state.pop(RUNNING_KEY, None):
        st.info(
            "The stress run was cancelled before it finished (Cancel, or another control "
            "was used while it ran): nothing of it was kept.",
            icon=":material/cancel:",
        )


def render(index: CorpusIndex, view: ViewState, corpus_key: tuple) -> None:
    """The Stress test page."""
    section_guard("The stress test", lambda: _render(index, view))


def _render(index: CorpusIndex, view: ViewState) -> None:
    st.title("Stress test")
    st.markdown(
        "Would a stale duplicate of a document, an OCR-damaged copy, a misspelled query or "
        "a table cut by a page break hurt **your** retriever — and would the fixes save "
        "it? ragdash injects each fault into every case (seeded: the same seed, the same "
        "faults) and runs the proof check with **no fix**, **the fix that targets the "
        "fault** and **all fixes**. Faulted documents live in memory only: your documents "
        "and workspace are never changed."
    )
    if empty_corpus_notice(index):
        return
    _interrupted()
    args = _inputs(index, view)
    if args is not None:
        run = _run(index, args)
        if run is not None:
            _keep(run)
    runs: dict[str, StressRun] = st.session_state.get(RUNS_KEY, {})
    shown = runs.get(st.session_state.get("stress_shown", ""))
    if shown is None:
        st.caption("Pick the faults and the cases, then *Run the stress test*.")
        return
    _results(shown)


def _results(run: StressRun) -> None:
    report = run.report
    variants = len({(r.case, r.fault, r.variant) for r in report.results})
    st.subheader("What breaks, and what repairs it")
    command = stress_command(run.source, run.n, run.faults, run.rate, run.seed,
                             run.retrievers, settings().docs, settings().workspace)  # fmt: skip
    command = hide_paths(command)  # a visitor never sees the server's folders
    st.caption(
        f"{len(report.cases):d} cases ({literal(SOURCE_WORDS[run.source])}), "
        f"{variants:d} faulted variants, rate {run.rate:g}, seed {run.seed:d} — "
        f"ran in {run.seconds:.1f} s. The same numbers as {code(command)} (fix settings at "
        "their defaults)."
    )
    for retriever in report.retrievers:
        frame = matrix_frame(report, retriever)
        if frame.empty:
            continue
        st.markdown(f"**Retriever: {literal(shown_kind(retriever))}** — answers "
                    f"{report.clean_passed(retriever):d}/{len(report.cases):d} cases on the clean "
                    "docs; faulted cases passing, per fault and fix, counted on those "
                    "cases only")  # fmt: skip
        event = st.altair_chart(
            matrix(frame), width="stretch", on_select="rerun", key=f"stress_matrix_{retriever}"
        )
        _open_clicked(event, run, retriever)
    _picker(run)
    st.caption(
        "Each cell: faulted cases passing / tested (a fault may give a case several "
        "variants — a stale duplicate dated, withdrawn or older — each counted; hover "
        "for the pass rate and its 95% interval). Columns: no fix, the fixes that "
        "target the fault, all fixes. Red is few passing, green all; grey: no case could be "
        "faulted this way. **Click a cell** to open a case the fault broke (it passes "
        "without the fault) in Explore, with the injected document marked."
    )
    st.markdown("**Which fix repairs which fault**")
    for sentence in fix_sentences(report):
        st.markdown(f"- {literal(sentence)}")
    _unsaved(run)
    skipped: dict[tuple[str, str], list[str]] = {}
    for fault, case, reason in report.skipped:
        skipped.setdefault((fault, reason), []).append(case)
    for (fault, reason), names in skipped.items():
        st.caption(
            f"{literal(FAULT_HEADINGS.get(fault, fault))}: not tested on {len(names):d} "
            f"case{'s' if len(names) != 1 else ''} ({literal(reason)}): "
            f"{literal(', '.join(names[:8]))}{' …' if len(names) > 8 else ''}."
        )
    _downloads(run)


def variant_rows(report: StressReport) -> list[tuple[StressResult, str]]:
    """Every faulted case of a run, once per retriever, failures first, each with its
    verdicts in words (``No fix FAIL · Targeted fix PASS · All fixes PASS``) and the result
    to open (its no-fix one: Explore shows no fix beside the targeted fix)."""
    groups: dict[tuple, list[StressResult]] = {}
    for r in report.results:
        groups.setdefault((r.case, r.fault, r.variant, r.retriever), []).append(r)
    rows = []
    for results in groups.values():
        words = " · ".join(
            f"{config_title(_configuration_of(r))} {'PASS' if r.passed else 'FAIL'}"
            for r in results
        )
        first = next((r for r in results if r.configuration == "none"), results[0])
        broke = any(r.broken_by_fault for r in results)
        rows.append((first, words, (not broke, all(r.passed for r in results))))
    rows.sort(key=lambda row: row[2])
    return [(first, words) for first, words, _ in rows]


def _picker(run: StressRun) -> None:
    """Open any faulted case in Explore from a list (what a click on a cell does, for the
    one you pick)."""
    rows = variant_rows(run.report)
    if not rows:
        return
    # a variant is named only where a fault has several (a stale copy dated, withdrawn or
    # reworded): "OCR noise in the query (ocr)" said the fault twice, the second time in code
    several = {f for f in {r.fault for r, _ in rows}
               if len({r.variant for r, _ in rows if r.fault == f}) > 1}  # fmt: skip
    names = [
        f"{r.case} · {FAULT_TITLES.get(r.fault, r.fault)}"
        + (f" ({r.variant})" if r.variant and r.fault in several else "")
        + f" · {shown_kind(r.retriever)}: {words}"
        for r, words in rows
    ]
    row = st.container(horizontal=True, vertical_alignment="bottom")
    picked = row.selectbox(
        "Open a faulted case in Explore", range(len(names)), key="stress_pick",
        format_func=lambda i: plain(names[i]),
    )  # fmt: skip
    if row.button("Open in Explore", key="stress_pick_open", icon=":material/open_in_new:"):
        _open(run, rows[int(picked)][0])


def _unsaved(run: StressRun) -> None:
    lost = unsaved_cases(run.report)
    st.markdown("**Cases no fix saves**")
    if not lost:
        st.caption("None: every faulted case passes under at least one configuration.")
        return
    rows = [
        {
            "case": r.case,
            "fault": FAULT_TITLES.get(r.fault, r.fault) + (f" ({r.variant})" if r.variant else ""),
            "retriever": shown_kind(r.retriever),
            "diagnosis": r.diagnosis,
            "ranked first": r.first_id or "nothing",
            "missing": "; ".join(r.missing_evidence),
        }
        for r in lost
    ]
    st.html(html_table(rows, list(rows[0]), "Cases no fix saves"))


def _downloads(run: StressRun) -> None:
    report = run.report
    try:
        data = report.to_dict()
    except NotImplementedError:
        return
    c1, c2 = st.columns(2)
    c1.download_button("Download the report (JSON)", json.dumps(data, indent=2),
                       f"ragdash-stress-{run.run}.json", "application/json",
                       key="stress_json")  # fmt: skip
    html = _html_report(report)
    if html is not None:
        c2.download_button("Download the report (HTML)", html, f"ragdash-stress-{run.run}.html",
                           "text/html", key="stress_html")  # fmt: skip


def _html_report(report: StressReport) -> str | None:
    """The core's offline HTML report of the run (what ``ragdash stress --report`` writes)."""
    return stress_report(report)
