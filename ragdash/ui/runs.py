"""The Test suite's *Saved runs*: keep the run on screen, list the kept runs, compare two
of them (what moved, and why) and download a standalone HTML report of a run or a diff.

The page only draws; saving, the diff and the report are the core's
(:mod:`ragdash.checks.snapshot`, :mod:`ragdash.checks.rundiff`,
:mod:`ragdash.checks.html_report`), so the dashboard and ``ragdash runs`` / ``diff`` /
``report`` show the same thing. Runs go to the workspace's case library, where ``ragdash
runs list --workspace DIR`` finds them::

    render_saved_runs(index, retriever, runs, view.fixes, k, ablation_table)
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from ragdash.checks.html_report import diff_report, run_report
from ragdash.checks.rundiff import diff_runs
from ragdash.checks.runs import CaseRun
from ragdash.checks.snapshot import snapshot
from ragdash.errors import LibraryError, RunError
from ragdash.retrieval.hits import Retriever
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes, configuration_title
from ragdash.storage.case_store import open_library
from ragdash.storage.library import CaseLibrary, RunSummary
from ragdash.ui.context import error_text, settings
from ragdash.ui.glossary import show_table
from ragdash.ui.render import human_time
from ragdash.ui.text import grid, literal, plain

__all__ = ["render_saved_runs", "runs_frame"]


def runs_frame(runs: Sequence[RunSummary]) -> pd.DataFrame:
    """One row per saved run, newest first."""
    return pd.DataFrame(
        [
            {
                "run": r.id,
                "when": human_time(r.at),
                "name": r.name,
                "retriever": r.retriever_label,
                "fixes": configuration_title(r.fixes_label),
                "corpus": r.corpus_fingerprint,
                "passed": f"{r.passed}/{r.total}",
                "MRR": r.mrr,
            }
            for r in reversed(runs)
        ],
        columns=["run", "when", "name", "retriever", "fixes", "corpus", "passed", "MRR"],
    )


def _save_form(index, retriever, runs, fixes, k, ablation) -> None:
    with st.form("runs_save", clear_on_submit=True):
        # A row that gives the button the width of its label ("Save this r…" in a quarter
        # of an 800 px window's column) and the name box the rest.
        row = st.container(horizontal=True, vertical_alignment="bottom")
        name = row.text_input("Run name", key="runs_name", placeholder="e.g. before re-indexing")
        if not row.form_submit_button("Save this run", width="content"):
            return
    cells = ()
    if ablation is not None and not ablation.empty:
        cells = tuple(ablation[["case", "configuration", "diagnosis"]].itertuples(index=False))
    run = snapshot(runs, retriever.spec, fixes, index, k=k, name=name.strip(), ablation=cells)
    try:
        library = open_library(settings().workspace, create=True)
        assert library is not None
        kept = library.save_run(run)
    except LibraryError as exc:
        st.error(f"Not saved: {error_text(exc)}")
        return
    st.success(f"Saved run #{kept.id:d} ({kept.passed:d} of {kept.total:d} cases pass).")


def _diff_view(library: CaseLibrary, saved: list[RunSummary]) -> None:
    by_label = {r.label: r for r in reversed(saved)}
    labels = list(by_label)
    c1, c2 = st.columns(2)
    before = c1.selectbox("Before", labels, index=1, key="runs_before", format_func=plain)
    after = c2.selectbox("After", labels, index=0, key="runs_after", format_func=plain)
    try:
        diff = diff_runs(library.saved_run(by_label[before].id),
                         library.saved_run(by_label[after].id))  # fmt: skip
    except (LibraryError, RunError) as exc:
        st.error(error_text(exc))
        return
    others = len(diff.changes) - len(diff.fixed) - len(diff.broke)
    st.markdown(
        f"**{len(diff.fixed)} fail→pass**, **{len(diff.broke)} pass→fail**"
        + (f", {others:d} other change(s)" if others else "")
        + f" — from {diff.a.passed:d}/{diff.a.total:d} to "
        f"{diff.b.passed:d}/{diff.b.total:d} passing."
    )
    if diff.a.corpus_fingerprint != diff.b.corpus_fingerprint:
        st.info(f"The corpus changed: {literal(diff.corpus.phrase())}.")
    if diff.changes:
        show_table(
            grid(pd.DataFrame([{"case": c.case, "change": c.change, "before": c.before,
                           "after": c.after} for c in diff.changes])),  # fmt: skip
            hide_index=True,
            width="stretch",
            key="runs_changes",
        )
        st.markdown("**Why**")
        for c in diff.changes:
            st.markdown(
                f"- **{literal(c.case)}** ({literal(c.change)}): "
                + "; ".join(literal(r) for r in c.reasons)
            )
    else:
        st.caption("No case changed its verdict, diagnosis or rank.")

    def shown(value: float | None, signed: bool = False) -> str:
        return "—" if value is None else (f"{value:+.3f}" if signed else f"{value:.3f}")

    show_table(
        grid(pd.DataFrame(
            [{"metric": m.name, "before": shown(m.before), "after": shown(m.after),
              "delta": shown(m.delta, signed=True)} for m in diff.metrics]
        )),  # fmt: skip
        hide_index=True,
        key="runs_deltas",
    )
    st.download_button(
        "Download the diff as an HTML report",
        diff_report(diff),
        f"ragdash-diff-{diff.a.id}-{diff.b.id}.html",
        "text/html",
        key="runs_diff_report",
    )


def render_saved_runs(
    index: CorpusIndex,
    retriever: Retriever,
    runs: list[CaseRun],
    fixes: Fixes,
    k: int,
    ablation: pd.DataFrame | None = None,
) -> None:
    """The *Saved runs* section: save, list, compare, report, delete."""
    st.subheader("Saved runs")
    st.caption(
        "Keep this run (retriever, fix settings, corpus fingerprint, every verdict, the "
        "metrics and the ablation) in the workspace's case library, compare two runs and "
        "download a standalone HTML report. The CLI sees the same runs: `ragdash runs list "
        "--workspace DIR`, `ragdash diff A B`, `ragdash report RUN -o report.html`."
    )
    _save_form(index, retriever, runs, fixes, k, ablation)
    try:
        library = open_library(settings().workspace)
        saved = library.run_summaries() if library is not None else []
    except (LibraryError, RunError) as exc:
        st.error(error_text(exc))
        return
    if library is None or not saved:
        st.caption("No saved run yet.")
        return
    show_table(grid(runs_frame(saved)), hide_index=True, width="stretch", key="runs_table")
    labels = {r.label: r for r in reversed(saved)}
    c1, c2, c3 = st.columns([3, 2, 1], vertical_alignment="bottom")
    picked = labels[c1.selectbox("Run", list(labels), key="runs_pick", format_func=plain)]
    damaged = False
    try:
        chosen = library.saved_run(picked.id)
        report = run_report(chosen)
    except (LibraryError, RunError, RecursionError, MemoryError) as exc:
        # one damaged run is one error card; its Delete button below still clears it
        reason = error_text(exc) if isinstance(exc, LibraryError | RunError) else (
            "it is too large or nested too deeply to show"
        )  # fmt: skip
        st.error(f"Run #{picked.id:d} cannot be shown: {reason}", icon=":material/error:")
        damaged = True
    else:
        c2.download_button(
            "Download HTML report",
            report,
            f"ragdash-run-{chosen.id}.html",
            "text/html",
            key="runs_report",
            width="stretch",
        )
    if c3.button("Delete", key="runs_delete", width="stretch"):
        try:
            library.delete_run(picked.id)
        except (LibraryError, RunError) as exc:
            st.error(error_text(exc))
            return
        st.rerun()
    if len(saved) >= 2 and not damaged:  # (pick another run to compare)
        st.markdown("**Compare two runs**")
        _diff_view(library, saved)
