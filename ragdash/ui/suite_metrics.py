"""The Test suite page's retriever parts: the cases run against the chosen retriever, the
metrics table beside the ablation heatmap, and importing cases from logs.

Runs against ``seed`` and ``bm25`` are cheap and deterministic; runs against an external
retriever are cached for :data:`ragdash.ui.retriever_picker.EXTERNAL_TTL` seconds per
(retriever settings, corpus, cases, fix settings, k) — a re-indexed service is seen within
that time, and a failed run is never cached (errors are per case and shown as such).
"""

from __future__ import annotations

from dataclasses import astuple

import pandas as pd
import streamlit as st

from ragdash.case import Case
from ragdash.checks.ablation import configurations
from ragdash.checks.runs import CaseRun, RunRow, run_cases, run_configurations
from ragdash.errors import CaseFileError, LibraryError
from ragdash.frames import frame, metrics_table
from ragdash.retrieval.hits import Retriever
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.storage.case_store import open_library
from ragdash.storage.log_import import parse_log_cases
from ragdash.ui.context import error_text
from ragdash.ui.glossary import show_table
from ragdash.ui.retriever_picker import EXTERNAL_TTL
from ragdash.ui.text import grid, literal

__all__ = [
    "METRICS_HELP",
    "METRICS_WIDTHS",
    "metrics_columns",
    "configuration_runs",
    "metrics_frame",
    "render_log_import",
    "suite_runs",
]

METRICS_HELP = (
    "Means over the cases at depth k. hit@k: the expected document is in the top k; recall@k "
    "docs: expected documents found (one per case, so equal to hit@k); recall@k evidence: "
    "evidence strings found in the top-k text; MRR: 1 / rank of the expected document; "
    "nDCG@k: 1 / log2(rank + 1). A case the retriever failed on scores 0."
)


@st.cache_data(ttl=EXTERNAL_TTL, max_entries=32, show_spinner="Running the cases…")
def _runs(
    _retriever: Retriever, spec: tuple, corpus: tuple, cases: tuple[Case, ...], fixes: tuple,
    k: int,
) -> list[CaseRun]:  # fmt: skip
    return run_cases(_retriever, cases, Fixes.resolve(dict(fixes)), k)


def suite_runs(
    retriever: Retriever, corpus_key: tuple, cases: list[Case], fixes: Fixes, k: int
) -> list[CaseRun]:
    """Every case against ``retriever`` (cached for external retrievers)."""
    if not retriever.spec.external:
        return run_cases(retriever, cases, fixes, k)
    key = tuple(sorted(fixes.to_dict().items()))
    return _runs(retriever, astuple(retriever.spec), corpus_key, tuple(cases), key, k)


@st.cache_data(max_entries=16, show_spinner="Running every case under every configuration…")
def _configuration_runs(
    _retriever: Retriever, spec: tuple, corpus: tuple, cases: tuple[Case, ...], settings: tuple,
    k: int, _ttl_bucket: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    base = Fixes.resolve(dict(settings))
    rows, metrics = run_configurations(_retriever, cases, configurations(base), k)
    return frame(rows, RunRow), metrics_table(metrics)


def configuration_runs(
    retriever: Retriever, corpus_key: tuple, cases: list[Case], fixes: Fixes, k: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(ablation table, metrics per configuration) against ``retriever``."""
    import time

    settings = tuple(sorted(fixes.with_only(()).to_dict().items()))
    # an external retriever's answers may change: its runs expire like its searches
    bucket = int(time.time() // EXTERNAL_TTL) if retriever.spec.external else 0
    return _configuration_runs(
        retriever, astuple(retriever.spec), corpus_key, tuple(cases), settings, k, bucket
    )


#: The metrics table's columns as shown, with their widths in px: they fit the 468 px main
#: column of an 800 px window (seven columns scrolled sideways, MRR and nDCG@k out of view).
#: recall@k docs is left out of the page (one expected document per case makes it hit@k)
#: and kept in the downloads.
METRICS_WIDTHS = {
    "configuration": 112,
    "passed": 56,
    "hit@k": 52,
    "recall@k evidence": 80,
    "MRR": 50,
    "nDCG@k": 62,
    "errors": 52,
}


def metrics_columns() -> dict[str, dict]:
    """``column_config`` of the metrics table: widths, two decimals, short headers."""
    config: dict[str, dict] = {}
    for name, width in METRICS_WIDTHS.items():
        entry: dict = {"width": width}
        if name in ("hit@k", "recall@k evidence", "MRR", "nDCG@k"):
            entry = dict(st.column_config.NumberColumn(format="%.2f", width=width))
        if name == "recall@k evidence":
            entry["label"] = "evidence@k"
        config[name] = entry
    return config


def metrics_frame(metrics: pd.DataFrame, cases: int) -> pd.DataFrame:
    frame = metrics.copy()
    frame["passed"] = [f"{p}/{cases}" for p in frame["passed"]]
    if not frame["errors"].any():
        frame = frame.drop(columns=["errors"])
    return frame


def render_log_import(index: CorpusIndex, workspace, cases: list[Case]) -> None:
    """Upload a CSV/JSONL of logged queries into the case library, with a per-row report."""
    with st.expander("Import cases from logs (CSV or JSONL)"):
        st.caption(
            "One row per logged query: `query`, `expected_id` (the document that should "
            "answer it), optional `evidence` (`;` between strings in CSV), `name`, `top_k`."
        )
        upload = st.file_uploader("Log file", type=["csv", "jsonl", "ndjson"], key="log_upload")
        if upload is None or not st.button("Import", key="log_import"):
            return
        try:
            text = upload.getvalue().decode("utf-8-sig")
        except UnicodeDecodeError:
            st.error(f"{literal(upload.name)} is not UTF-8 text.")
            return
        try:
            found = parse_log_cases(text, upload.name, known_ids=set(index.corpus.doc_ids),
                                    taken={c.name for c in cases})  # fmt: skip
            library = open_library(workspace, create=True)
            assert library is not None
            result = library.import_cases(found.cases)
        except (CaseFileError, LibraryError) as exc:
            st.error(error_text(exc))
            return
        st.success(f"Imported {len(result.added)} case(s) into the case library.")
        if found.errors:
            st.warning(f"{len(found.errors)} row(s) not imported:")
            show_table(
                grid(pd.DataFrame([{"row": e.row, "problem": e.message} for e in found.errors])),
                hide_index=True,
                width="stretch",
            )
