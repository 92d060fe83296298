"""A stress test's faulted case, opened in Explore: which one, how it travels, and the marks.

A click on a cell of the *Stress test* matrix opens one faulted case in Explore: the case's
query (corrupted, for a query fault) ranked over the corpus *with the fault injected* — a
stale duplicate added, the expected document OCR-damaged, a table cut by a page break —
with the injected document marked on its row and a note on top naming the fault.

How it travels. The session keeps the run (:data:`RUNS_KEY`) and the case Explore shows
(:data:`TARGET_KEY`, a :class:`StressTarget`). The URL carries only names and numbers —
the run id, the fault, the case's name, where the cases came from (``library``, ``samples``
or ``generated`` with their count), the seed and the rate (:meth:`StressTarget.to_params`)
— never code, a path or document text. A link opened in a fresh session rebuilds the
faulted corpus from those (the core's :func:`ragdash.checks.stress.faulted_variant` is
seeded, so it is the same corpus), or says plainly that the case is gone (a case renamed
or deleted from the library, another corpus)::

    >>> t = StressTarget("a1b2c3", "library", 0, "stale", "refund", "dated", "none", "seed", 0.3, 7)
    >>> StressTarget.from_params(t.to_params()) == (t, "")
    True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import streamlit as st

from ragdash.bundled import SAMPLES, SAMPLES_CASES
from ragdash.case import Case
from ragdash.checks.generate import generate_cases
from ragdash.checks.stress import FAULTS, TARGETED_FIX, FaultedVariant, faulted_variant
from ragdash.errors import RagdashError
from ragdash.ingestion.documents import Corpus
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.ranking import RankedPassage
from ragdash.storage.case_store import load_cases
from ragdash.ui.context import case_library
from ragdash.ui.navigation import pages
from ragdash.ui.sidebar import FIX_LABELS
from ragdash.ui.state import PAGE_PARAMS_KEY
from ragdash.ui.text import code, literal

__all__ = [
    "CASE_SOURCES",
    "CONFIG_TITLES",
    "FAULT_TITLES",
    "INJECTED_BADGE",
    "INJECTED_WORD",
    "RUNS_KEY",
    "TARGET_KEY",
    "StressTarget",
    "base_corpus",
    "base_index",
    "cases_for",
    "config_title",
    "faulted_index",
    "injected_ids",
    "injected_ranks",
    "leave_stress",
    "run_id",
    "stress_note",
]

#: The session's stress runs, by run id (the latest few).
RUNS_KEY = "stress_runs"
#: The faulted case Explore shows (a :class:`StressTarget`), or absent.
TARGET_KEY = "stress_target"
#: Set once the URL's stress parameters were read in this session.
_LINK_READ_KEY = "stress_link_read"
#: The faulted variant shown on this run of Explore.
_SHOWN_KEY = "stress_variant_shown"
#: A problem with the link's stress parameters, to say once.
_LINK_PROBLEM_KEY = "stress_link_problem"

#: Where a run's cases come from.
CASE_SOURCES = {
    "library": "The case library (the docs folder's cases.json and the workspace's cases)",
    "generated": "Generated from the documents (seeded)",
    "samples": "The bundled sample cases, on the bundled sample documents",
}
#: Each fault in words, as the matrix's rows say it.
FAULT_TITLES = {
    "stale": "stale duplicate",
    "ocr-doc": "OCR-damaged document",
    "typo": "typos in the query",
    "ocr-query": "OCR noise in the query",
    "split-table": "table cut by a page break",
}
#: The configurations as the matrix's columns say them: "No fix" and "All fixes" as the Test
#: suite's heatmap names them (:func:`ragdash.settings.configuration_title`).
CONFIG_TITLES = {"none": "No fix", "fix": "Targeted fix", "all": "All fixes"}
#: The mark on an injected document's row in Explore (a Streamlit badge: our own markup).
INJECTED_BADGE = " :orange-badge[:material/science: injected by the stress test]"
#: The same mark in a table cell (plain text).
INJECTED_WORD = " [injected]"
#: What each fault did to the corpus or the query, for the note on top of Explore.
_WHAT_IT_DID = {
    "stale": "A stale duplicate of the expected document was added: same subject and "
    "keywords, the evidence values changed to plausible wrong ones, dated earlier and "
    "listed first",
    "ocr-doc": "The expected document's text was damaged with OCR confusions (letters read "
    "as look-alike digits; codes and numbers left alone)",
    "typo": "The query was given keyboard typos",
    "ocr-query": "The query was given OCR noise (letters read as look-alike digits)",
    "split-table": "The table row holding the evidence was cut by a page break of a "
    "generated PDF, read back through the real ingestion",
}


def config_title(configuration: str) -> str:
    """``none`` → "No fix", ``all`` → "All fixes", the targeted fix (the core names it by
    its fixes: ``recency,status,versions``) → "Targeted fix".

    >>> [config_title(c) for c in ("none", "recency,status,versions", "all")]
    ['No fix', 'Targeted fix', 'All fixes']
    """
    return CONFIG_TITLES.get(configuration, CONFIG_TITLES["fix"])


@dataclass(frozen=True)
class StressTarget:
    """One faulted case of one stress run, as Explore opens it (and a link names it)."""

    run: str
    source: str  # a key of CASE_SOURCES
    n: int  # how many cases were generated (source "generated"), else 0
    fault: str
    case: str
    variant: str
    configuration: str
    retriever: str
    rate: float
    seed: int

    def to_params(self) -> dict[str, str]:
        """The link form: names and numbers only."""
        params = {
            "stress": self.run,
            "sfault": self.fault,
            "scase": self.case,
            "scases": self.source,
            "sseed": str(self.seed),
            "srate": f"{self.rate:g}",
        }
        if self.variant:
            params["svariant"] = self.variant
        if self.configuration != "none":
            params["sconfig"] = self.configuration
        if self.retriever != "seed":
            params["sretriever"] = self.retriever
        if self.source == "generated":
            params["sn"] = str(self.n)
        return params

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> tuple[StressTarget | None, str]:
        """The target a link names, or None with what is wrong ('' when the link names
        none)."""
        if "stress" not in params:
            return None, ""
        fault, source = params.get("sfault", ""), params.get("scases", "library")
        if fault not in FAULTS:
            return None, f"sfault={fault!r} is not one of {', '.join(FAULTS)}"
        if source not in CASE_SOURCES:
            return None, f"scases={source!r} is not one of {', '.join(CASE_SOURCES)}"
        if not params.get("scase"):
            return None, "the link names no case (scase)"
        try:
            seed, rate = int(params.get("sseed", "0")), float(params.get("srate", "0.3"))
            n = int(params.get("sn", "0"))
        except ValueError:
            return None, "sseed, srate and sn must be numbers"
        if not (0 <= seed <= 10**9 and 0.0 <= rate <= 1.0 and 0 <= n <= 1000):
            return None, "sseed, srate or sn is out of range"
        return cls(
            run=params["stress"][:32],
            source=source,
            n=n if source == "generated" else 0,
            fault=fault,
            case=params["scase"],
            variant=params.get("svariant", ""),
            configuration=params.get("sconfig", "none"),
            retriever=params.get("sretriever", "seed"),
            rate=rate,
            seed=seed,
        ), ""


def run_id(fingerprint: str, source: str, n: int, faults, rate: float, seed: int,
           retrievers) -> str:  # fmt: skip
    """A short id for a run's inputs: the same inputs on the same corpus, the same id.

    >>> run_id("c0", "library", 0, ("stale",), 0.3, 0, ("seed",)) == run_id(
    ...     "c0", "library", 0, ("stale",), 0.3, 0, ("seed",))
    True
    """
    text = repr((fingerprint, source, n, tuple(faults), float(rate), int(seed), tuple(retrievers)))
    return hashlib.blake2b(text.encode(), digest_size=5).hexdigest()


@st.cache_resource(show_spinner=False, max_entries=2)
def _samples_index() -> CorpusIndex:
    return CorpusIndex(load_folder(SAMPLES))


def base_index(index: CorpusIndex, source: str) -> CorpusIndex:
    """The clean index a run starts from: the bundled samples' for the sample cases, the
    dashboard's otherwise."""
    return _samples_index() if source == "samples" else index


def base_corpus(index: CorpusIndex, source: str) -> Corpus:
    """The corpus a run injects faults into (:func:`base_index`'s)."""
    return base_index(index, source).corpus


def cases_for(index: CorpusIndex, source: str, n: int, seed: int) -> list[Case]:
    """The cases a run uses: the library's, the bundled ones, or ``n`` generated with
    ``seed`` (the same cases for the same seed)."""
    if source == "samples":
        return load_cases(SAMPLES_CASES)
    if source == "generated":
        return list(generate_cases(index.corpus, n, seed, index=index))
    return case_library()[0]


@st.cache_resource(show_spinner="Injecting the fault…", max_entries=8)
def _variant(
    _index: CorpusIndex, fingerprint: str, target: StressTarget
) -> tuple[FaultedVariant | None, CorpusIndex | None, str]:
    """The faulted variant of ``target`` and an index over its corpus, or why not."""
    del fingerprint  # the key: another corpus, another entry
    run = st.session_state.get(RUNS_KEY, {}).get(target.run)
    kept = run.report.variant(target.case, target.fault, target.variant or None) if run else None
    if kept is not None:  # the very variant the run measured
        return kept, CorpusIndex(kept.corpus), ""
    cases = cases_for(_index, target.source, target.n, target.seed)
    case = next((c for c in cases if c.name == target.case), None)
    if case is None:
        return None, None, "its case is no longer among the run's cases"
    corpus = base_corpus(_index, target.source)
    try:
        variant = faulted_variant(
            corpus, case, target.fault, target.variant or None, rate=target.rate, seed=target.seed
        )
    except (RagdashError, ValueError, KeyError) as exc:
        return None, None, f"the fault cannot be injected again ({exc})"
    if variant is None:
        return None, None, "the fault does not apply to this case on this corpus"
    assert variant.corpus is not None  # made here, not sent back by a worker
    return variant, CorpusIndex(variant.corpus), ""


def _read_link() -> None:
    """Once per session: a link naming a stress case opens it."""
    if st.session_state.get(_LINK_READ_KEY):
        return
    st.session_state[_LINK_READ_KEY] = True
    target, problem = StressTarget.from_params(dict(st.query_params.to_dict()))
    if target is not None:
        st.session_state[TARGET_KEY] = target
    elif problem:
        st.session_state[_LINK_PROBLEM_KEY] = problem


def leave_stress() -> None:
    """Back to the real corpus (a button's callback)."""
    st.session_state.pop(TARGET_KEY, None)


def faulted_index(index: CorpusIndex) -> tuple[CorpusIndex, FaultedVariant | None]:
    """The index Explore ranks over: the faulted corpus when a stress case is open (and the
    variant that made it), else ``index`` itself. Says plainly when a link's case is gone."""
    _read_link()
    problem = st.session_state.pop(_LINK_PROBLEM_KEY, "")
    if problem:
        st.warning(f"Stress-test link ignored: {literal(problem)}.", icon=":material/link_off:")
    st.session_state.pop(_SHOWN_KEY, None)
    target: StressTarget | None = st.session_state.get(TARGET_KEY)
    if target is None:
        return index, None
    variant, faulted, why = _variant(index, index.fingerprint, target)
    if variant is None or faulted is None:
        st.session_state.pop(TARGET_KEY, None)
        st.warning(
            f"The stress-test case {code(target.case)} ({literal(FAULT_TITLES[target.fault])}) "
            f"is gone: {literal(why)}. Explore shows your documents as they are; run the "
            "stress test again to open its cases.",
            icon=":material/link_off:",
        )
        return index, None
    st.session_state[PAGE_PARAMS_KEY] = target.to_params()  # the link keeps the case
    st.session_state[_SHOWN_KEY] = variant
    return faulted, variant


def injected_ids() -> frozenset[str]:
    """The ids of the documents the open stress case injected or damaged (none when no
    stress case is open)."""
    variant = st.session_state.get(_SHOWN_KEY)
    return frozenset(variant.injected) if variant is not None else frozenset()


def injected_ranks(
    baseline: Sequence[RankedPassage], ranked: Sequence[RankedPassage], fixes_name: str
) -> str:
    """Where each injected document's best passage ranks with no fix and with the current
    fixes — the mark is seen even when the injected document is not in the top-k shown
    ('' when the open stress case injected no document).

    >>> injected_ranks([], [], "recency")
    ''
    """
    ids = injected_ids()
    if not ids:
        return ""

    def rank(results: Sequence[RankedPassage], doc_id: str) -> str:
        found = next((r.rank for r in results if r.passage.doc_id == doc_id), None)
        return f"#{found}" if found is not None else f"below #{len(results)}"

    return "; ".join(
        f"{doc_id} (injected) ranks {rank(baseline, doc_id)} with no fix, "
        f"{rank(ranked, doc_id)} with {fixes_name}"
        for doc_id in sorted(ids)
    )


def stress_note(variant: FaultedVariant) -> None:
    """The note on top of Explore: which fault was injected, into which document, which
    fix targets it — and the way back."""
    target: StressTarget = st.session_state[TARGET_KEY]
    fix = " + ".join(FIX_LABELS[name] for name in TARGETED_FIX.get(variant.fault, ()))
    asked = (
        f" The query as asked: {code(variant.case.query)} (written {code(variant.original_query)})."
        if variant.case.query != variant.original_query
        else ""
    )
    # stale and split tables come in several variants; the others in one, named as the fault
    several = variant.variant and variant.fault in ("stale", "split-table")
    kind = f" (variant {literal(variant.variant)})" if several else ""
    note = f" {literal(variant.note.rstrip('.'))}." if variant.note else ""
    box = st.container(border=True)
    box.markdown(
        f"**:material/science: Stress test — fault injected: "
        f"{literal(FAULT_TITLES[variant.fault])}**{kind}, case {code(target.case)}. "
        f"{literal(_WHAT_IT_DID[variant.fault])}.{note}{asked}"
    )
    if variant.injected:
        injected = ", ".join(code(d) for d in variant.injected)
        box.markdown(
            f"Injected documents: {injected} — marked *injected* below. They exist only in "
            f"this view: your documents are unchanged. The fix that targets this fault: "
            f"**{literal(fix)}**."
        )
    else:
        box.markdown(
            "No document was changed: only the query was corrupted. The fix that targets "
            f"this fault: **{literal(fix)}**."
        )
    row = box.container(horizontal=True)
    row.page_link(pages().stress, label="Back to the stress test", icon=":material/arrow_back:")
    row.button(
        "Leave the faulted corpus",
        key="stress_leave",
        icon=":material/close:",
        on_click=leave_stress,
    )
