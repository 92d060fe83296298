"""Stress tests: the seed's fault injection on a team's own documents.

For every case, :func:`variants` derives faulted variants deterministically from ``seed``
and :func:`run_stress` runs the proof check on each under ``none``, the fix that targets the
fault (:data:`TARGETED_FIX`) and ``all``:

* ``stale`` — a stale duplicate of the expected document as an older version reads: the
  same text with a few values changed in their own format (the evidence's ``30 days`` →
  ``45 days``, a date a year earlier, ``142,526`` → ``139,871``), listed first, in one of
  three variants per case (the seed picks it): ``dated`` a year before it, ``withdrawn`` (a
  newer withdrawn draft) and ``older`` (two years before). Repaired by the version fixes
  (``recency``, ``status``, ``versions``).
* ``ocr-doc`` — the expected document misread with the OCR map's confusions (``o→0``,
  ``i→1``): every distinctive query word it holds, other words at ``rate``; numbers, codes
  and the evidence itself left alone. Repaired by ``ocr``.
* ``typo`` / ``ocr-query`` — the query's distinctive words (4+ letters) each get one
  keyboard typo / OCR misreading. Repaired by ``fuzzy`` / ``ocr``.
* ``split-table`` — for a case whose evidence is a table row, the expected document's page
  re-laid as a generated PDF (:mod:`ragdash.checks.pdfgen`) whose page break cuts the row
  after its label, read back by the real ingestion. Repaired by ``tables``. Skipped with a
  reason when the evidence is in no table row.

The user's files are never written: faulted corpora live in memory, the generated PDF in a
temporary folder ragdash creates and removes. Only changed documents are segmented again;
the other passages are shared with the clean index.

    >>> from ragdash.bundled import SAMPLES; from ragdash.ingestion.ingest import load_folder
    >>> corpus = load_folder(SAMPLES)
    >>> report = run_stress(corpus, generate_cases(corpus, 5, 7), faults=("typo",), seed=7)
    >>> fixed, broken = report.cell("typo", "fuzzy", "seed"), report.cell("typo", "none", "seed")
    >>> fixed.total == broken.total > 0 and fixed.passed > broken.passed
    True
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from threading import Event
from typing import Any

import numpy as np

from ragdash.case import Case
from ragdash.checks.faults import typo_noise
from ragdash.checks.generate import STOPWORDS, generate_cases, table_rows
from ragdash.checks.pdfgen import PAGE_HEIGHT, text_pdf
from ragdash.checks.proof import evidence_found, judge
from ragdash.errors import QueryError, RagdashError, RetrieverError
from ragdash.ingestion.documents import Corpus, Document, Passage
from ragdash.ingestion.segmentation import document_passages
from ragdash.ingestion.tables import cells
from ragdash.retrieval.index import CorpusIndex, tables_neutral
from ragdash.retrieval.inverted import InvertedIndex, Postings, changed_words, postings_from_ids
from ragdash.retrieval.spec import RetrieverSpec, shown_kind
from ragdash.settings import FIX_NAMES, STRESS_STATISTICS, Fixes
from ragdash.text import is_ocr_candidate, tokenizer

__all__ = [
    "CONFIG_NONE",
    "CONFIG_ALL",
    "FAULTS",
    "TARGETED_FIX",
    "FaultedVariant",
    "StressCell",
    "StressReport",
    "StressResult",
    "configurations_for",
    "faulted_variant",
    "generate_cases",
    "run_stress",
    "variants",
    "wilson_interval",
]

#: The faults, in display order.
FAULTS = ("stale", "ocr-doc", "typo", "ocr-query", "split-table")
#: The fixes that target each fault: the middle configuration of its row.
TARGETED_FIX: dict[str, tuple[str, ...]] = {
    "stale": ("recency", "status", "versions"),
    "ocr-doc": ("ocr",),
    "typo": ("fuzzy",),
    "ocr-query": ("ocr",),
    "split-table": ("tables",),
}
CONFIG_NONE, CONFIG_ALL = "none", "all"
#: The share of other words OCR damage hits in a document, unless asked otherwise: one
#: default for ``ragdash stress --rate`` and the Stress page's slider, so both give the
#: same numbers for the same inputs.
DEFAULT_RATE = 0.3
#: Retriever kinds whose index ragdash builds, so corpus faults can reach them.
IN_PROCESS = ("seed", "bm25", "dense")
#: Every kind stress runs: query faults (typo, ocr-query) need no re-index, so they reach
#: any retriever; corpus faults reach the kinds ragdash can rebuild (:func:`rebuildable`).
STRESSABLE = ("seed", "bm25", "dense", "hybrid", "http", "python", "langchain")


def rebuildable(spec: RetrieverSpec) -> tuple[bool, str]:
    """Whether ragdash can rebuild ``spec``'s index over a faulted corpus, and why not: a
    built-in index or a Python factory (``build(passages, options)``, rebuilt once per
    faulted corpus) can; an http service, a plain Python search function and a LangChain
    retriever search their own copy of the documents, which ragdash cannot fault."""
    if spec.kind in (*IN_PROCESS, "hybrid"):
        return True, ""
    if spec.kind == "python":
        from ragdash.retrieval.factory import is_factory
        from ragdash.retrieval.python_retriever import load_callable

        try:
            if spec.factory or is_factory(load_callable(spec.callable)):
                return True, ""
        except RagdashError:
            pass
        return False, ("a plain python search function searches its own index (a factory, "
                       "--factory, is rebuilt per faulted corpus)")  # fmt: skip
    if spec.kind == "http":
        return False, "an http service indexes its own copy of the documents"
    return False, "a LangChain retriever holds its own index of the documents"
_CORPUS_FAULTS = ("stale", "ocr-doc", "split-table")
#: When the expected document has no date, the stale variants date it this day.
UNDATED_STAND_IN = date(2026, 1, 1)


def configurations_for(fault: str, base: Fixes | None = None) -> dict[str, Fixes]:
    """``none``, the targeted fix (named by its fixes, e.g. ``recency,status,versions``)
    and ``all``, with ``base``'s settings (threshold, OCR map)."""
    base = base or Fixes()
    fixes = TARGETED_FIX[fault]
    return {
        CONFIG_NONE: base.with_only(()),
        ",".join(fixes): base.with_only(fixes),
        CONFIG_ALL: base.with_only(FIX_NAMES),
    }


def wilson_interval(passed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``passed / total`` (``(0, 1)`` when total is 0).

    >>> [round(x, 3) for x in wilson_interval(8, 10)]
    [0.49, 0.943]
    """
    if total <= 0:
        return (0.0, 1.0)
    p = passed / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * ((p * (1 - p) / total + z * z / (4 * total * total)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class FaultedVariant:
    """One case with one fault injected: the case as run (its query may be corrupted), the
    documents ragdash added or damaged (``injected``) and the corpus the retriever ran over
    (the clean one for query faults)."""

    fault: str
    # "dated", "withdrawn", "older"; "digits", "shapes", "split"; "typo", "ocr"; "label-value"
    variant: str
    case: Case
    original_query: str
    injected: tuple[str, ...]
    corpus: Corpus | None = field(repr=False, compare=False)  # None: sent back by a worker
    note: str = ""
    changed: tuple[str, ...] = ()  # ids whose passages differ from the clean corpus

    @property
    def documents(self) -> tuple[Document, ...]:
        assert self.corpus is not None, "a worker's variant: StressReport.variant rebuilds it"
        return self.corpus.documents


@dataclass(frozen=True)
class StressResult:
    """One faulted variant under one configuration against one retriever."""

    case: str
    fault: str
    variant: str
    configuration: str
    retriever: str
    query: str
    passed: bool
    diagnosis: str
    first_id: str
    missing_evidence: tuple[str, ...]
    injected: tuple[str, ...]
    #: Whether the case passes on the clean corpus with its own query under the same
    #: configuration and retriever: a failure with ``clean_passed`` is one the fault caused
    #: (what a click on a matrix cell should open), not one the case had anyway.
    clean_passed: bool | None = None

    @property
    def broken_by_fault(self) -> bool:
        """Fails faulted, passes clean: the fault broke it."""
        return not self.passed and bool(self.clean_passed)


@dataclass(frozen=True)
class StressCell:
    """Passed/total for one fault × configuration × retriever, with the 95% interval."""

    fault: str
    configuration: str
    retriever: str
    passed: int
    total: int
    #: (passed, total) per document behind the cell's cases (the case's expected document),
    #: in document-id order: the clusters the interval resamples.
    clusters: tuple[tuple[int, int], ...] = ()
    seed: int = 0

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval: the Wilson interval widened to the bootstrap over documents
        (:func:`cluster_interval`) — cases from one document stand or fall together, so
        ten cases from two documents say less than ten from ten."""
        low, high = wilson_interval(self.passed, self.total)
        if len(self.clusters) >= 2:
            key = f"{self.seed}:{self.fault}:{self.configuration}:{self.retriever}"
            b_low, b_high = cluster_interval(self.clusters, key)
            low, high = min(low, b_low), max(high, b_high)
        return (low, high)


def cluster_interval(
    clusters: Sequence[tuple[int, int]], key: str, rounds: int | None = None
) -> tuple[float, float]:
    """The 95% percentile interval of the pass rate when whole documents are resampled
    (``clusters``: passed, total per document), seeded by ``key`` (a stable hash: the same
    in every process).

    >>> [round(x, 2) for x in cluster_interval([(5, 5), (0, 5)], "k")]
    [0.0, 1.0]
    """
    import zlib

    rounds = STRESS_STATISTICS.bootstrap_rounds if rounds is None else rounds
    passed = np.asarray([c[0] for c in clusters], dtype=np.float64)
    total = np.asarray([c[1] for c in clusters], dtype=np.float64)
    if not len(total) or total.sum() <= 0:
        return (0.0, 1.0)
    rng = np.random.default_rng(zlib.crc32(key.encode("utf-8")))
    picks = rng.integers(0, len(total), size=(rounds, len(total)))
    tot = total[picks].sum(axis=1)
    rates = np.where(tot > 0, passed[picks].sum(axis=1) / np.maximum(tot, 1), np.nan)
    rates = rates[~np.isnan(rates)]
    if not len(rates):
        return (0.0, 1.0)
    return (float(np.quantile(rates, 0.025)), float(np.quantile(rates, 0.975)))


def _cells(
    results: Sequence[StressResult], faults: Sequence[str], labels: Sequence[str],
    cases: Sequence[Case], seed: int,
) -> tuple[StressCell, ...]:  # fmt: skip
    """Passed/total per fault × configuration × retriever, with its documents' tallies."""
    doc_of = {c.name: c.expected_id for c in cases}
    tallies: dict[tuple[str, str, str], dict[str, list[int]]] = {}
    for x in results:
        per_doc = tallies.setdefault((x.fault, x.configuration, x.retriever), {})
        row = per_doc.setdefault(doc_of.get(x.case, x.case), [0, 0])
        row[0] += x.passed
        row[1] += 1
    cells = []
    for fault in faults:
        for label in configurations_for(fault):
            for r in labels:
                per_doc = tallies.get((fault, label, r), {})
                clusters = tuple((a, b) for _, (a, b) in sorted(per_doc.items()))
                cells.append(StressCell(fault, label, r, sum(a for a, _ in clusters),
                                        sum(b for _, b in clusters), clusters, seed))  # fmt: skip
    return tuple(cells)


@dataclass(frozen=True)
class StressReport:
    """Everything one stress run found; ``variants`` rebuild any faulted case for Explore."""

    cells: tuple[StressCell, ...]
    results: tuple[StressResult, ...]
    cases: tuple[Case, ...]
    skipped: tuple[tuple[str, str, str], ...]  # (fault, case, reason)
    variants: tuple[FaultedVariant, ...] = field(repr=False)
    seed: int = 0
    rate: float = 0.3
    faults: tuple[str, ...] = FAULTS
    retrievers: tuple[str, ...] = ("seed",)
    notes: tuple[str, ...] = ()
    cancelled: bool = False
    #: The clean corpus, to rebuild a variant's faulted corpus when a worker sent it back
    #: without one (``jobs`` > 1).
    corpus: Corpus | None = field(default=None, repr=False, compare=False)
    #: (retriever, case) for every case the retriever answers on the clean corpus under
    #: every configuration run: only those cases' variants are measured for it, so a drop
    #: is the fault's doing for every retriever, not only the scorer that made the cases.
    clean: tuple[tuple[str, str], ...] = ()

    def clean_passed(self, retriever: str) -> int:
        """How many of the cases ``retriever`` answers on the clean corpus."""
        return sum(r == retriever for r, _ in self.clean)

    def baseline(self, retriever: str) -> dict[str, dict[str, int]]:
        """Per fault, on the cases ``retriever`` answers clean: ``clean`` (faulted variants
        of those cases), ``faulted`` (passing with no fix), ``fixed`` (with the targeted fix)
        and ``all`` (with every fix).

        A drop from ``clean`` to ``faulted`` is the fault's doing: each counted case passed
        on the clean corpus with this same retriever."""
        out = {}
        for fault in self.faults:
            configs = self.configurations(fault)
            got = [self.cell(fault, c, retriever) for c in configs]
            none, fix, every = got
            if none is None or fix is None or every is None:
                continue
            out[fault] = {"clean": none.total, "faulted": none.passed, "fixed": fix.passed,
                          "all": every.passed}  # fmt: skip
        return out

    def too_few(self) -> list[str]:
        """A note per fault and retriever with fewer faulted cases than
        :attr:`StressStatistics.min_cases`: too few to judge."""
        least = STRESS_STATISTICS.min_cases
        out = []
        for r in self.retrievers:
            for fault in self.faults:
                cell = self.cell(fault, CONFIG_NONE, r)
                if cell is not None and cell.total < least:
                    docs = len(cell.clusters)
                    out.append(f"{fault} ({shown_kind(r)}): {cell.total} faulted case(s) "
                               f"from {docs} document(s) — too few to judge (fewer than "
                               f"{least})")  # fmt: skip
        return out

    def by_variant(self, fault: str, retriever: str) -> dict[str, dict[str, int]]:
        """``baseline`` split by the fault's variant (``ocr-doc``: ``digits``, the damage
        the ``ocr`` fix inverts, against ``shapes`` and ``split``, which it was not built
        for; ``stale``: ``dated``, ``withdrawn``, ``older``)."""
        configs = self.configurations(fault)
        out: dict[str, dict[str, int]] = {}
        for r in self.results:
            if r.fault != fault or r.retriever != retriever:
                continue
            row = out.setdefault(r.variant, {"clean": 0, "faulted": 0, "fixed": 0, "all": 0})
            if r.configuration == configs[0]:
                row["clean"] += 1
                row["faulted"] += r.passed
            elif r.configuration == configs[1]:
                row["fixed"] += r.passed
            else:
                row["all"] += r.passed
        return dict(sorted(out.items()))

    def unrepaired(self, retriever: str) -> list[str]:
        """In words, the damage no fix repairs on this corpus: each fault variant whose
        faulted cases still fail with every fix on."""
        out = []
        for fault in self.faults:
            for variant, row in self.by_variant(fault, retriever).items():
                if row["clean"] and row["all"] < row["clean"]:
                    lost = row["clean"] - row["all"]
                    out.append(f"{fault} ({variant}): {lost} of {row['clean']} faulted "
                               "cases fail even with every fix")  # fmt: skip
        return out

    @property
    def injected(self) -> tuple[str, ...]:
        """Every document id ragdash added or damaged, in first-seen order."""
        return tuple(dict.fromkeys(d for v in self.variants for d in v.injected))

    def configurations(self, fault: str) -> tuple[str, ...]:
        return tuple(configurations_for(fault))

    def cell(self, fault: str, configuration: str, retriever: str) -> StressCell | None:
        for c in self.cells:
            if (c.fault, c.configuration, c.retriever) == (fault, configuration, retriever):
                return c
        return None

    def variant(self, case: str, fault: str, variant: str | None = None) -> FaultedVariant | None:
        """The faulted variant behind a result (the first of the case's for that fault)."""
        for v in self.variants:
            if v.case.name == case and v.fault == fault and variant in (None, v.variant):
                if v.corpus is None and self.corpus is not None:
                    original = next(c for c in self.cases if c.name == case)
                    return faulted_variant(self.corpus, original, fault, v.variant,
                                           rate=self.rate, seed=self.seed)  # fmt: skip
                return v
        return None

    def repairs(self, retriever: str) -> dict[str, str]:
        """Per fault, in words: does its targeted fix repair it on this corpus?"""
        out = {}
        for fault in self.faults:
            configs = self.configurations(fault)
            none, fix = (
                self.cell(fault, configs[0], retriever),
                self.cell(fault, configs[1], retriever),
            )
            if none is None or fix is None:
                out[fault] = "no case to test"
                continue
            change = f"{none.passed}/{none.total} → {fix.passed}/{fix.total}"
            if none is None or fix is None or not none.total:
                out[fault] = "no case to test"
            elif fix.passed > none.passed:
                out[fault] = f"{configs[1]} repairs it ({change})"
            elif none.passed == none.total:
                out[fault] = "does not break this retriever here"
            else:
                out[fault] = f"{configs[1]} does not repair it ({change})"
        return out

    def unsaved(self) -> tuple[StressResult, ...]:
        """Variants no configuration saves (failing under ``all``)."""
        return tuple(r for r in self.results if r.configuration == CONFIG_ALL and not r.passed)

    def to_dict(self) -> dict:
        faults: dict[str, dict] = {}
        for retriever in self.retrievers[:1]:
            for fault in self.faults:
                faults[fault] = {
                    c: {"passed": cell.passed, "total": cell.total}
                    for c in self.configurations(fault)
                    if (cell := self.cell(fault, c, retriever)) is not None
                }
        by_retriever = {  # by the names users read: builtin, not "seed" (that is --seed)
            shown_kind(r): {
                f: {
                    c: _cell_record(cell)
                    for c in self.configurations(f)
                    if (cell := self.cell(f, c, r)) is not None
                }
                for f in self.faults
            }
            for r in self.retrievers
        }
        baseline = {
            shown_kind(r): {
                "cases": len(self.cases),
                "clean_passed": self.clean_passed(r),
                "faults": {
                    f: {**b, "variants": self.by_variant(f, r)}
                    for f, b in self.baseline(r).items()
                },
                "unrepaired": self.unrepaired(r),
            }
            for r in self.retrievers
        }
        return {
            "faults": faults,
            "retrievers": by_retriever,
            "baseline": baseline,
            "targeted": {f: self.configurations(f)[1] for f in self.faults},
            "seed": self.seed,
            "rate": self.rate,
            "cases": [
                {
                    "name": c.name,
                    "query": c.query,
                    "expected_id": c.expected_id,
                    "evidence": list(c.evidence),
                    "kind": c.kind,
                    "note": c.note,
                }
                for c in self.cases
            ],
            "results": [
                {
                    "case": r.case,
                    "fault": r.fault,
                    "variant": r.variant,
                    "configuration": r.configuration,
                    "retriever": shown_kind(r.retriever),
                    "query": r.query,
                    "passed": r.passed,
                    "diagnosis": r.diagnosis,
                    "first_id": r.first_id,
                    "missing_evidence": list(r.missing_evidence),
                    "injected": list(r.injected),
                }
                for r in self.results
            ],
            "skipped": [{"fault": f, "case": c, "reason": why} for f, c, why in self.skipped],
            "injected": list(self.injected),
            "notes": [*self.notes, *self.too_few()],
            "cancelled": self.cancelled,
        }


def _cell_record(cell: StressCell) -> dict:
    low, high = cell.interval
    rate = cell.rate
    return {
        "passed": cell.passed,
        "total": cell.total,
        "rate": None if rate is None else round(rate, 4),
        "interval": [round(low, 4), round(high, 4)],
    }


# --- faults ---------------------------------------------------------------------------


class _Corpus:
    """The clean corpus with its index and word statistics, shared by every variant."""

    def __init__(self, corpus: Corpus, index: CorpusIndex | None = None) -> None:
        self.corpus = corpus
        self.index = index or CorpusIndex(corpus)
        df: dict[str, set[str]] = {}
        for p in self.index.passages():
            for token in p.tokens:
                df.setdefault(token, set()).add(p.doc_id)
        self.df = {t: len(d) for t, d in df.items()}
        self.rare = max(2, len(corpus.documents) // 10)
        self.by_pages = {id(d.pages): d for d in corpus.documents}
        self._names: dict[bool, _FamilyNames] = {}
        self._rows: dict[tuple[bool, bool], _TokenRows] = {}
        self._current_families: dict[bool, object] = {}
        self._bm25: dict[tuple, object] = {}
        self._retrievers: dict[RetrieverSpec, object] = {}

    def tables(self, tables: bool) -> bool:
        """``tables`` as a cache key: False when the tables fix changes no passage of this
        corpus (one passage set, so its rows, families and indexes are worked out once)."""
        return tables and self.index.passages(True) is not self.index.passages(False)

    def token_rows(self, tables: bool, unicode: bool) -> _TokenRows:
        """Each clean passage's distinct tokens as ids into the clean vocabulary (worked out
        once): a variant's postings are put together from these rows, so only the passages
        of changed documents are tokenized again."""
        tables = self.tables(tables)
        key = (tables, unicode)
        if key not in self._rows:
            inverted = self.index.inverted(tables, unicode)
            ids, split = inverted.postings.token_ids, tokenizer(unicode)
            flat: list[int] = []
            counts: list[int] = []
            starts = [0]
            by_text: dict[str, int] = {}
            for pid, p in enumerate(inverted.passages):
                by_text.setdefault(p.text, pid)
                counted = Counter(split(p.text))
                flat.extend(ids[t] for t in counted)
                counts.extend(counted.values())
                starts.append(len(flat))
            self._rows[key] = _TokenRows(
                list(inverted.postings.vocabulary), dict(ids), np.asarray(flat, dtype=np.int64),
                np.asarray(counts, dtype=np.int64), np.asarray(starts, dtype=np.int64), by_text,
            )  # fmt: skip
        return self._rows[key]

    def retriever(self, spec: RetrieverSpec, make: Callable):
        """The retriever of the clean index (query faults run on it); a BM25 one is kept
        across a worker's chunks, so its clean statistics are built once per worker."""
        if spec.kind != "bm25":
            return make(self.index)
        if spec not in self._retrievers:
            retriever = make(self.index)
            retriever.clean = self  # its indexes: this corpus's, from the token rows
            self._retrievers[spec] = retriever
        return self._retrievers[spec]

    def bm25_index(self, fixes: Fixes):
        """The clean corpus's BM25 index under ``fixes`` (made as a variant's is, from the
        token rows), worked out once per setting: a variant's OCR repairs start from it."""
        from ragdash.retrieval.bm25 import Bm25Index
        from ragdash.retrieval.ranking import eligible_passages

        tables = self.tables(fixes.tables)
        key = (tables, fixes.status, fixes.unicode, fixes.ocr, fixes.ocr_map, fixes.protected)
        if key not in self._bm25:
            pool = eligible_passages(self.index.passages(fixes.tables), fixes)
            rows = self.token_rows(fixes.tables, fixes.unicode)
            self._bm25[key] = Bm25Index.from_counts(pool, *rows.gather(pool, fixes.unicode), fixes)
        return self._bm25[key]

    def families(self, tables: bool, current: bool = False):
        """The clean corpus's version families (``current``: of its current documents only,
        as BM25 with the status fix sees them), worked out once each: a variant's are
        patched from these."""
        from ragdash.retrieval.families import families_of

        tables = self.tables(tables)
        if not current:
            return self.index.inverted(tables).families
        if tables not in self._current_families:
            self._current_families[tables] = families_of(
                [p for p in self.index.passages(tables) if p.status != "withdrawn"]
            )
        return self._current_families[tables]

    def family_names(self, tables: bool) -> _FamilyNames:
        tables = self.tables(tables)
        if tables not in self._names:
            docs = _family_documents(self.index.passages(tables))
            by_key: dict[tuple, list[str]] = {}
            name_keys = {}
            for d in docs:
                keys, names = _family_keys(d)
                name_keys[d.doc_id] = names
                for k in keys:
                    by_key.setdefault(k, []).append(d.doc_id)
            named: dict[tuple[int, str], list[str]] = {}
            for doc_id, pair in name_keys.items():
                for slot, k in enumerate(pair):
                    if k:
                        named.setdefault((slot, k), []).append(doc_id)
            self._names[tables] = _FamilyNames(
                {d.doc_id: d for d in docs}, by_key, name_keys, named
            )
        return self._names[tables]

    def distinctive(self, query: str, doc_id: str | None = None) -> list[str]:
        """The query's words (4+ letters, not stopwords) that pick out few documents — the
        words a fault must hit to break the case (at least the rarest one)."""
        words = [
            w
            for w in dict.fromkeys(re.findall(r"[A-Za-z]{4,}", query))
            if w.lower() not in STOPWORDS
        ]
        if not words:
            return []
        picked = [w for w in words if self.df.get(w.lower(), 0) <= self.rare]
        return picked or [min(words, key=lambda w: self.df.get(w.lower(), 0))]


def _rng(seed: int, *parts: str) -> random.Random:
    return random.Random(":".join((str(seed), *parts)))


#: A value in running text: an ISO date, or a number with its thousands separators and
#: decimals (``142,526``, ``1.5``, ``48``). Never part of a code, path, version, name or
#: list: ``v1.2``, ``lib2``, ``1.2.3``, ``x86_64``, ``/usr/lib/3``, a bug number ``#4711``,
#: a man page section ``polkit(8)``, a decimal comma ``0,0001`` and a chemical name's
#: ``1,2,3-`` are left alone.
_VALUE = re.compile(
    r"(?<![\w./\\:#-])(?<!\w\()(?<!\d,)"
    r"(?:\d{4}-\d{2}-\d{2}|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?![\w/\\-]|[.,]\d)"
)
#: At most this many values besides the evidence change in a stale copy.
STALE_OTHER_VALUES = 2


def _shape(value: str) -> str:
    """A value's format: every digit as ``9`` (``142,526`` → ``999,999``)."""
    return re.sub(r"\d", "9", value)


def stale_value(value: str, rng: random.Random) -> str:
    """An older version's value in the same format: a date a year or two earlier, a year
    1–3 earlier, another number with the same digits count, separators and decimals
    (``142,526`` → ``139,871``, ``30`` → ``45``, ``1.5`` → ``2.5``). ``value`` itself when
    it cannot change in its format (``0``).

    >>> import random; [stale_value(v, random.Random(1)) for v in ("2024-03-01", "142,526", "2019")]
    ['2023-03-01', '114,021', '2018']
    """
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        year = int(value[:4]) - rng.randint(1, 2)
        return f"{year:04d}{value[4:]}"
    whole, _, decimals = value.partition(".")
    digits = whole.replace(",", "")
    n = int(digits)
    if len(digits) == 4 and 1900 <= n <= 2100 and "," not in whole and not decimals:
        return str(n - rng.randint(1, 3))  # a year: earlier
    width = len(digits)
    if width > 1 and digits.startswith("0"):
        return value  # ``007`` is a code, not an amount
    low, high = (10 ** (width - 1) if width > 1 else 1), 10**width - 1
    if low >= high or n == 0:
        return value
    for _ in range(20):
        step = max(1, round(n * rng.choice((0.1, 0.2, 0.25, 0.5))))
        new = n + step * rng.choice((-1, 1))
        if low <= new <= high and new != n:
            break
    else:
        new = n + 1 if n < high else n - 1
    text = f"{new:,}" if "," in whole else str(new)
    return f"{text}.{decimals}" if decimals else text


def wrong_value(evidence: str, words: Sequence[str], rng: random.Random) -> str:
    """The evidence as an older version states it: each of its values changed in its own
    format (``30 days`` → ``45 days``); a phrase with no value stays as it is (an older
    version says the same words). ``words`` is kept for callers' signature."""
    del words
    return _VALUE.sub(lambda m: stale_value(m.group(0), rng), evidence)


def _stale_values(text: str, evidence: Sequence[str], rng: random.Random) -> dict[str, str]:
    """The values a stale copy changes: the evidence's own, plus up to
    :data:`STALE_OTHER_VALUES` other values of the document (each found at most twice),
    picked by the seed — the rest of the text stays as it is."""
    changed: dict[str, str] = {}
    for e in evidence:
        for m in _VALUE.finditer(e):
            new = stale_value(m.group(0), rng)
            if new != m.group(0):
                changed.setdefault(m.group(0), new)
    counts = Counter(m.group(0) for m in _VALUE.finditer(text))
    inside = {m.group(0) for e in evidence for m in _VALUE.finditer(e)}
    others = sorted(v for v, k in counts.items() if k <= 2 and v not in inside)
    rng.shuffle(others)
    for v in others[:STALE_OTHER_VALUES]:
        new = stale_value(v, rng)
        if new != v:
            changed[v] = new
    return changed


def _replace_values(text: str, changed: dict[str, str]) -> str:
    if not changed:
        return text
    return _VALUE.sub(lambda m: changed.get(m.group(0), m.group(0)), text)


def _stale(
    clean: _Corpus, case: Case, seed: int, all_variants: bool = False
) -> list[FaultedVariant]:
    doc = clean.corpus.document(case.expected_id)
    if doc is None:
        return []
    rng = _rng(seed, "stale", case.name)
    changed = _stale_values(doc.text, case.evidence, rng)
    wrong = {e: _replace_values(e, changed) for e in case.evidence}
    wrong = {e: w for e, w in wrong.items() if w != e}
    others = {o: n for o, n in changed.items() if not any(o in e for e in case.evidence)}
    current = doc
    note = ""
    if doc.updated is None:
        current = replace(doc, updated=UNDATED_STAND_IN)
        note = f"{doc.doc_id} has no date; the test dates it {UNDATED_STAND_IN}"
    when = current.updated or UNDATED_STAND_IN

    def pages(texts: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if texts is None:
            return None
        return tuple(_replace_values(page, changed) for page in texts)

    variants = []
    kinds = (
        ("dated", "current", when - timedelta(days=365)),
        ("withdrawn", "withdrawn", when + timedelta(days=30)),
        ("older", "current", when - timedelta(days=730)),
    )
    # One variant per case, picked by the seed: every case counts once per fault, and a
    # run stays three corpora per case lighter (all three with ``all_stale``).
    picked = kinds if all_variants else (kinds[rng.randrange(len(kinds))],)
    for name, status, day in picked:
        stale_id = f"{doc.doc_id}-stale-{day.year}"
        stale = replace(
            doc,
            doc_id=stale_id,
            updated=day,
            status=status,
            pages=pages(doc.pages) or (),
            table_pages=pages(doc.table_pages),
            layouts=None,
            source=f"{doc.source} (stale copy injected by ragdash)",
            order=doc.order - 0.5,
        )
        docs: list[Document] = []
        for d in clean.corpus.documents:
            if d is doc:
                docs.extend((stale, current))
            else:
                docs.append(d)
        what = ", ".join(f"{o!r} → {n!r}" for o, n in (*wrong.items(), *others.items()))
        what = what or "the same text (no value to change)"
        variants.append(
            FaultedVariant(
                "stale",
                name,
                case,
                case.query,
                (stale_id,),
                Corpus(tuple(docs), clean.corpus.messages),
                "; ".join(
                    x
                    for x in (
                        f"{stale_id} ({status}, {day}) listed before {doc.doc_id}: {what}",
                        note,
                    )
                    if x
                ),
                (stale_id, doc.doc_id),
            )
        )
    return variants


#: The confusions real OCR makes, as the scan pipeline's alignment of OCR with clean text
#: finds them (``ragdash ocr-map``; Tesseract on the dev scans): ``digits`` swaps letters for
#: look-alike digits (``Table`` → ``Ta8le``, what the ``ocr`` fix inverts); the ``shapes``
#: confusions are letter for letter (``rn``↔``m``, ``cl``↔``d``, ``li``↔``h``), ``split``
#: and ``merge`` break or join words at a space, ``accents`` loses diacritics (``café`` →
#: ``cafe``). The ``ocr`` fix is built to invert ``digits`` only.
OCR_CONFUSIONS = ("digits", "shapes", "split", "merge", "accents")
_SHAPES = (("m", "rn"), ("rn", "m"), ("d", "cl"), ("cl", "d"), ("h", "li"), ("li", "h"))
#: A word OCR may misread: letters only (Unicode), never touching a path, URL, e-mail,
#: version or code (``lib/fribidi.c``, ``https://x.org``, ``x86_64`` and ``v1.2`` stay).
_OCR_WORD = re.compile(r"(?<![\w/.\\@:~+=-])[^\W\d_]{4,}(?![\w/\\@:~+=-]|\.\w)( ?)")


def _digit_word(word: str, rng: random.Random, ocr_map: dict[str, str]) -> str:
    reverse = {letter: digit for digit, letter in ocr_map.items()}
    spots = [i for i, ch in enumerate(word) if ch.lower() in reverse]
    if not spots:
        return word
    for _ in range(6):
        hits = [i for i in spots if rng.random() < 0.5] or [rng.choice(spots)]
        chars = list(word)
        for i in hits:
            chars[i] = reverse[chars[i].lower()]
        out = "".join(chars)
        if is_ocr_candidate(out.lower(), ocr_map):
            return out
    return word


def _shape_word(word: str, rng: random.Random) -> str:
    found = [(i, a, b) for a, b in _SHAPES for i in range(len(word)) if word.startswith(a, i)]
    if not found:
        return word
    i, a, b = rng.choice(sorted(found))
    return word[:i] + b + word[i + len(a):]


def _strip_accents(word: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def ocr_misread(
    word: str, confusion: str, rng: random.Random, ocr_map: dict[str, str] | None = None
) -> tuple[str, bool]:
    """``word`` misread with one ``confusion`` of :data:`OCR_CONFUSIONS` (the word itself
    when that confusion has nothing to take hold of), and whether the following space is
    lost (``merge``).

    >>> import random; ocr_misread("modern", "shapes", random.Random(0))
    ('moclern', False)
    """
    ocr_map = dict(ocr_map or Fixes().ocr_map)
    if confusion == "digits":
        return _digit_word(word, rng, ocr_map), False
    if confusion == "shapes":
        return _shape_word(word, rng), False
    if confusion == "split":
        cut = rng.randint(2, len(word) - 2)
        return f"{word[:cut]} {word[cut:]}", False
    if confusion == "merge":
        return word, True
    return _strip_accents(word), False


def _ocr_word(word: str, rng: random.Random, ocr_map: dict[str, str]) -> str:
    """The digit misreading the ``ocr`` fix inverts (the query fault's)."""
    return _digit_word(word, rng, ocr_map)


def ocr_damage(
    text: str,
    targets: set[str],
    rate: float,
    rng: random.Random,
    protect: Sequence[str] = (),
    ocr_map: dict[str, str] | None = None,
    confusion: str = "digits",
) -> str:
    """``text`` misread by OCR: every word in ``targets`` (lowercase) with ``confusion``,
    others at ``rate`` with a confusion the seed picks from :data:`OCR_CONFUSIONS`; words
    of 4+ letters only, so numbers, codes, paths and URLs are never touched; ``protect``
    spans (the evidence) kept legible."""
    ocr_map = dict(ocr_map or Fixes().ocr_map)
    spans = []
    for p in protect:
        pattern = re.compile(r"\s+".join(map(re.escape, p.split())), re.I)
        spans += [m.span() for m in pattern.finditer(text)]

    def damage(m: re.Match) -> str:
        word, space = m.group(0)[: len(m.group(0)) - len(m.group(1))], m.group(1)
        if any(a <= m.start() < b or a < m.end() - len(space) <= b for a, b in spans):
            return m.group(0)
        if word.lower() in targets:
            kind = confusion
        elif rng.random() < rate:
            kind = OCR_CONFUSIONS[rng.randrange(len(OCR_CONFUSIONS))]
        else:
            return m.group(0)
        out, merged = ocr_misread(word, kind, rng, ocr_map)
        if out == word and not merged and kind != "digits":
            out = _digit_word(word, rng, ocr_map)  # nothing to take hold of: a digit misread
        nxt = m.end()
        joins = merged and space and nxt < len(text) and text[nxt].isalpha()
        if joins and any(a <= nxt < b for a, b in spans):
            joins = False  # the evidence that follows stays legible
        return out if joins else out + space

    return _OCR_WORD.sub(damage, text)


def _ocr_doc(
    clean: _Corpus, case: Case, seed: int, rate: float, fixes: Fixes
) -> list[FaultedVariant]:
    doc = clean.corpus.document(case.expected_id)
    if doc is None:
        return []
    rng = _rng(seed, "ocr-doc", case.name)
    targets = {w.lower() for w in clean.distinctive(case.query)}
    ocr_map = dict(fixes.ocr_map)
    if not targets:
        return []
    # Half the cases (the seed picks) get the digit misreadings the ocr fix inverts on their
    # distinctive words; the other half a confusion it was not built for — so the report
    # shows the fix's rate on both, and which damage no fix repairs.
    confusion = "digits" if rng.random() < 0.5 else "shapes"
    if confusion == "digits" and not any(set(w) & set(ocr_map.values()) for w in targets):
        confusion = "shapes"
    if confusion == "shapes" and not any(
        a in w for w in targets for a, _ in _SHAPES
    ):  # fmt: skip
        confusion = "split"

    def damaged(texts: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if texts is None:
            return None
        return tuple(
            ocr_damage(
                t, targets, rate, _rng(seed, "ocr-doc", case.name, str(n)), case.evidence,
                ocr_map, confusion,
            )  # fmt: skip
            for n, t in enumerate(texts)
        )

    del rng
    faulted = replace(doc, pages=damaged(doc.pages) or (), table_pages=damaged(doc.table_pages))
    docs = tuple(faulted if d is doc else d for d in clean.corpus.documents)
    return [
        FaultedVariant(
            "ocr-doc",
            confusion,
            case,
            case.query,
            (doc.doc_id,),
            Corpus(docs, clean.corpus.messages),
            f"{doc.doc_id} misread by OCR ({', '.join(sorted(targets))} with {confusion} "
            f"confusions, {rate:.0%} of other words with any)",
            (doc.doc_id,),
        )
    ]


def _query_fault(
    clean: _Corpus, case: Case, fault: str, seed: int, fixes: Fixes
) -> list[FaultedVariant]:
    targets = clean.distinctive(case.query)
    query = case.query
    hit = []
    ocr_map = dict(fixes.ocr_map)
    for n, word in enumerate(targets):
        rng = _rng(seed, fault, case.name, str(n))
        if fault == "typo":
            new = typo_noise(word, 1e-9, rng.randrange(1 << 30))
        else:
            new = _ocr_word(word, rng, ocr_map)
        if new != word:
            query = re.sub(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", new, query, count=1)
            hit.append(f"{word} → {new}")
    if not hit:
        return []
    variant = "typo" if fault == "typo" else "ocr"
    return [
        FaultedVariant(
            fault, variant, replace(case, query=query), case.query, (), clean.corpus, "; ".join(hit)
        )
    ]


def _table_row(doc: Document, case: Case):
    for row in table_rows(doc):
        if all(any(evidence_found(e, c) for c in row.cells) for e in case.evidence):
            return row
    return None


_LINE, _SIZE, _TOP, _FOOT = 14.0, 9.0, PAGE_HEIGHT - 60, 60.0
_PER_PAGE = int((_TOP - _FOOT) // _LINE)


def _wrap(line: str, width: int = 110) -> list[str]:
    if len(line) <= width or "|" in line:
        return [line]
    out, cur = [], ""
    for word in line.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return [*out, cur] if cur else out


def split_row_pdf(lines: Sequence[str], row: int) -> bytes:
    """A PDF of ``lines`` whose page break falls inside line ``row`` (a table row), right
    after its first cell: ``Basic |`` ends a page at its foot, ``10 Go | 5 EUR`` opens the
    next — the seed's split table."""
    row_cells = cells(lines[row])
    before = [w for line in lines[:row] for w in _wrap(line)] + [f"{row_cells[0]} |"]
    rest = " | ".join(row_cells[1:])
    if len(row_cells) == 2:  # a lone value cell still reads as a table line: "$1.1M |"
        rest = f"{rest} |"
    after = [rest] + [w for line in lines[row + 1 :] for w in _wrap(line)]
    pages: list[list[tuple[float, float, float, str]]] = []
    chunks = [before[i : i + _PER_PAGE] for i in range(0, len(before), _PER_PAGE)] or [[]]
    for n, chunk in enumerate(chunks):
        last = n == len(chunks) - 1
        y0 = _FOOT + _LINE * (len(chunk) - 1) if last else _TOP  # the cut page: to its foot
        pages.append([(72, y0 - i * _LINE, _SIZE, t) for i, t in enumerate(chunk)])
    for i in range(0, len(after), _PER_PAGE):
        pages.append(
            [(72, _TOP - j * _LINE, _SIZE, t) for j, t in enumerate(after[i : i + _PER_PAGE])]
        )
    return text_pdf(pages)


def _split_table(clean: _Corpus, case: Case) -> tuple[list[FaultedVariant], str]:
    doc = clean.corpus.document(case.expected_id)
    if doc is None:
        return [], "expected document not in the corpus"
    row = _table_row(doc, case)
    if row is None:
        return [], "the evidence is in no table row of the expected document"
    source = (
        doc.table_pages
        if doc.table_pages is not None and len(doc.table_pages) == len(doc.pages)
        else doc.pages
    )
    lines = source[row.page].splitlines()
    # ragdash wrote these bytes itself, so they are parsed in this process (an upload goes
    # through the bounded child); pdfplumber and the layout reader are the real ingestion.
    from ragdash.ingestion.ingest import _parse_pdf

    try:
        made = _parse_pdf(split_row_pdf(lines, row.line), 100, None)
    except RagdashError as exc:
        return [], f"the generated PDF could not be read: {exc}"
    p = row.page

    def splice(old: tuple | None, new: tuple | None) -> tuple | None:
        if old is None or new is None:
            return None
        return (*old[:p], *new, *old[p + 1 :])

    # The generated pages carry their text with the "|" cells the PDF shows; the layouts
    # are dropped so the tables fix reads the pages' text tables, the same for every page.
    pages = (*doc.pages[:p], *made.pages, *doc.pages[p + 1 :])
    table_pages = splice(doc.table_pages, made.pages)
    layouts = None
    faulted = replace(doc, pages=pages, table_pages=table_pages, layouts=layouts, kind="pdf")
    docs = tuple(faulted if d is doc else d for d in clean.corpus.documents)
    label = row.cells[0]
    return [
        FaultedVariant(
            "split-table",
            "label-value",
            case,
            case.query,
            (doc.doc_id,),
            Corpus(docs, clean.corpus.messages),
            f"page {p + 1} of {doc.doc_id} re-laid as a PDF whose page break cuts "
            f"the row {label!r} after its label",
            (doc.doc_id,),
        )
    ], ""


def variants(
    corpus: Corpus | _Corpus,
    case: Case,
    fault: str,
    *,
    rate: float = 0.3,
    seed: int = 0,
    fixes: Fixes | None = None,
    all_stale: bool = False,
) -> tuple[list[FaultedVariant], str]:
    """The faulted variants of one case for one fault, and why there are none ("" when
    there are). ``stale`` gives the variant the seed picks for the case (``dated``,
    ``withdrawn`` or ``older``), or all three with ``all_stale``."""
    clean = corpus if isinstance(corpus, _Corpus) else _Corpus(corpus)
    fixes = fixes or Fixes()
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; choose from {', '.join(FAULTS)}")
    if clean.corpus.document(case.expected_id) is None and fault in _CORPUS_FAULTS:
        return [], f"no document {case.expected_id!r} in the corpus"
    if fault == "stale":
        found = _stale(clean, case, seed, all_stale)
        return found, "" if found else "nothing to duplicate"
    if fault == "ocr-doc":
        found = _ocr_doc(clean, case, seed, rate, fixes)
        return found, "" if found else "no distinctive query word holds a letter OCR misreads"
    if fault in ("typo", "ocr-query"):
        found = _query_fault(clean, case, fault, seed, fixes)
        why = (
            "no distinctive query word of 4+ letters"
            if fault == "typo"
            else "no distinctive query word holds a letter OCR misreads"
        )
        return found, "" if found else why
    return _split_table(clean, case)


def faulted_variant(
    corpus: Corpus,
    case: Case,
    fault: str,
    variant: str | None = None,
    *,
    rate: float = 0.3,
    seed: int = 0,
) -> FaultedVariant | None:
    """The faulted corpus and query of one case, fault and variant (the first variant when
    ``variant`` is None; None when the fault does not apply) — the same a stress run with
    this ``rate`` and ``seed`` built, for Explore."""
    found, _ = variants(corpus, case, fault, rate=rate, seed=seed, all_stale=variant is not None)
    return next((v for v in found if variant in (None, v.variant)), None)


# --- running --------------------------------------------------------------------------


def _family_documents(passages) -> list[Document]:
    """Documents as :func:`ragdash.retrieval.families.families_of` sees them."""
    texts: dict[str, list[str]] = {}
    first: dict[str, Passage] = {}
    for p in passages:
        texts.setdefault(p.doc_id, []).append(p.text)
        first.setdefault(p.doc_id, p)
    return [
        Document(
            d, p.subject or d, p.updated, p.status, "", "text", ("\n".join(texts[d]),), p.order
        )
        for d, p in first.items()
    ]


def _family_keys(doc: Document) -> tuple[frozenset, tuple[str, str]]:
    from ragdash.retrieval.families import _stem_key, _subject_key
    from ragdash.retrieval.versions import _Name

    return _Name.of(doc).keys, (_stem_key(doc), _subject_key(doc))


@dataclass(frozen=True)
class _FamilyNames:
    """The clean corpus's documents as the version detector sees them, with their keys."""

    documents: dict[str, Document]
    by_key: dict[tuple, list[str]]
    name_keys: dict[str, tuple[str, str]]
    named: dict[tuple[int, str], list[str]]  # (0 stem / 1 subject, key) → documents


@dataclass(frozen=True)
class _TokenRows:
    """The clean passages as token ids: passage ``i``'s distinct tokens, in first-seen order,
    are ``flat[starts[i]:starts[i + 1]]``, ids into ``words``; ``by_text`` finds the first
    clean passage of a text (a passage's tokens depend on its text alone)."""

    words: list[str]
    ids: dict[str, int]
    flat: np.ndarray
    counts: np.ndarray  # how often each token of ``flat`` occurs in its passage
    starts: np.ndarray
    by_text: dict[str, int]

    def gather(
        self, passages: Sequence[Passage], unicode: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """``passages`` as (flat token ids, their counts, tokens per passage, words): a clean
        text reuses its row, any other text is tokenized (new words numbered after the
        clean ones)."""
        words, ids, split = self.words, self.ids, tokenizer(unicode)
        rows = np.empty(len(passages), dtype=np.int64)
        extra: list[int] = []
        extra_counts: list[int] = []
        extra_starts = [0]
        base = len(self.starts) - 1
        for i, p in enumerate(passages):
            pid = self.by_text.get(p.text)
            if pid is None:
                if words is self.words:
                    words, ids = list(words), dict(ids)
                counted = Counter(split(p.text))
                for t in counted:
                    if t not in ids:
                        ids[t] = len(words)
                        words.append(t)
                    extra.append(ids[t])
                extra_counts.extend(counted.values())
                extra_starts.append(len(extra))
                pid = base + len(extra_starts) - 2
            rows[i] = pid
        flat = np.concatenate([self.flat, np.asarray(extra, dtype=np.int64)])
        counts = np.concatenate([self.counts, np.asarray(extra_counts, dtype=np.int64)])
        starts = np.concatenate([self.starts[:-1], len(self.flat) + np.asarray(extra_starts)])
        lengths = starts[rows + 1] - starts[rows]
        total = int(lengths.sum())
        at = np.repeat(starts[rows] - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        return flat[at], counts[at], lengths, words

    def postings(self, passages: Sequence[Passage], unicode: bool) -> Postings:
        """The postings :func:`build_postings` makes of ``passages``."""
        flat, _, lengths, words = self.gather(passages, unicode)
        return postings_from_ids(flat, lengths, words)


class _PatchedIndex(CorpusIndex):
    """A variant's index that shares every unchanged document's passages with the clean
    index: only the changed documents are segmented again, and a document whose text is
    unchanged (a date given, a copy renamed) reuses its passages with the new metadata."""

    def __init__(self, clean: _Corpus, variant: FaultedVariant) -> None:
        assert variant.corpus is not None, "a worker's variant: StressReport.variant rebuilds it"
        super().__init__(variant.corpus)
        self._clean = clean
        self._changed = set(variant.changed)
        self._family_cache: dict[tuple[bool, bool], object] = {}

    def passages(self, tables: bool = False) -> tuple[Passage, ...]:
        if tables and tables not in self._passages and self._neutral():
            self._passages[True] = self.passages(False)  # the tables fix changes nothing
        if tables not in self._passages:
            out: list[Passage] = []
            for doc in self.corpus.documents:
                if doc.doc_id in self._changed:
                    out.extend(self._segment(doc, tables))
                else:
                    out.extend(self._clean.index.passages_of(doc.doc_id, tables))
            self._passages[tables] = tuple(out)
        return self._passages[tables]

    def _neutral(self) -> bool:
        """Whether the tables fix changes no passage: none of the clean corpus's, and every
        changed document is one page of text (see :func:`tables_neutral`)."""
        docs = (d for d in self.corpus.documents if d.doc_id in self._changed)
        return not self._clean.tables(True) and tables_neutral(Corpus(tuple(docs)))

    def _build_inverted(self, passages, tables: bool, unicode: bool) -> InvertedIndex:
        current = np.fromiter((p.status != "withdrawn" for p in passages), bool, len(passages))
        postings = self._clean.token_rows(tables, unicode).postings(passages, unicode)
        inverted = InvertedIndex(passages, postings, current, unicode)
        inverted.derive_from(self._clean.index.inverted(tables, unicode), self._changed)
        inverted._families = self.families_of(tables)
        return inverted

    def families_of(self, tables: bool, current: bool = False):
        """The version families of the variant's passages (``current``: withdrawn documents
        left out, as BM25 with the status fix indexes them), worked out once each."""
        key = (tables and self.passages(True) is not self.passages(False), current)
        if key not in self._family_cache:
            passages = self.passages(tables)
            if current:
                passages = tuple(p for p in passages if p.status != "withdrawn")
            self._family_cache[key] = self._families(tables, passages, current)
        return self._family_cache[key]

    def _families(
        self, tables: bool, passages: Sequence[Passage] | None = None, current: bool = False
    ):
        """The version families of ``passages`` (all of the variant's by default; BM25 with
        the status fix leaves withdrawn ones out), worked out again only for the changed
        documents: a pair's verdict depends on its two documents alone (tested against a
        fresh index), so the clean pairs of documents present are kept."""
        from ragdash.retrieval.families import VersionFamilies, patch_families
        from ragdash.retrieval.versions import find_version_pairs

        passages = self.passages(tables) if passages is None else passages
        present = {p.doc_id for p in passages}
        if len(present) < 2:
            return VersionFamilies()
        names = self._clean.family_names(tables)
        clean = self._clean.families(tables, current)
        changed_docs = _family_documents(p for p in passages if p.doc_id in self._changed)
        keys = {d.doc_id: _family_keys(d) for d in changed_docs}
        wanted = {k for ks in keys.values() for k in ks[0]}
        near = {i for k in wanted for i in names.by_key.get(k, ())} - self._changed
        sub = sorted([*changed_docs, *(names.documents[i] for i in near)], key=lambda d: d.order)
        touched = self._changed
        fresh = [pair for pair in find_version_pairs(Corpus(tuple(sub)))
                 if pair.older_id in touched or pair.newer_id in touched]  # fmt: skip
        kept = [pair for pair in clean.pairs
                if pair.older_id not in touched and pair.newer_id not in touched]  # fmt: skip
        pairs = sorted(
            [p for p in (*kept, *fresh) if p.older_id in present and p.newer_id in present],
            key=lambda p: (p.older_order, p.newer_order, p.older_id, p.newer_id),
        )
        return patch_families(clean, pairs, present, touched,
                              lambda d: keys[d][1] if d in keys else names.name_keys[d],
                              names.named)  # fmt: skip

    def _segment(self, doc: Document, tables: bool) -> list[Passage]:
        source = self._clean.corpus.document(doc.doc_id) or self._clean.by_pages.get(id(doc.pages))
        if source is not None and source.pages is doc.pages and source.layouts is doc.layouts:
            return [
                replace(p, doc_id=doc.doc_id, order=doc.order, subject=doc.subject,
                        updated=doc.updated, status=doc.status)
                for p in self._clean.index.passages_of(source.doc_id, tables)
            ]  # fmt: skip
        return document_passages(doc, tables)


def _patched_index(clean: _Corpus, variant: FaultedVariant) -> CorpusIndex:
    """The variant's index (the clean one for a query fault)."""
    return _PatchedIndex(clean, variant) if variant.changed else clean.index


def _bm25(spec: RetrieverSpec, index: CorpusIndex):
    """The BM25 retriever; over a variant's index its BM25 statistics are put together from
    the clean corpus's token counts (only the changed documents tokenized again), equal to
    :meth:`Bm25Index.build` (tested), and its version families are the variant index's."""
    from ragdash.retrieval.bm25 import Bm25Index, Bm25Retriever
    from ragdash.retrieval.matching import SetLexicon
    from ragdash.retrieval.ranking import eligible_passages

    class _Bm25(Bm25Retriever):
        clean: _Corpus | None = None  # set on the clean corpus's own retriever

        def bm25_index(self, fixes: Fixes) -> Bm25Index:
            ocr = (fixes.ocr_map, fixes.protected) if fixes.ocr else None
            key = (fixes.tables, fixes.status, fixes.unicode, ocr)
            patched = self.index
            if key in self._built:
                return self._built[key]
            if self.clean is not None:  # the clean index a variant's starts from, made once
                bm = self.clean.bm25_index(fixes)
                every = self.index.passages(fixes.tables)
                current = len(bm.passages) < len(every)
                bm.__dict__["families"] = self.clean.families(fixes.tables, current)
                self._built[key] = bm
                return bm
            if not isinstance(patched, _PatchedIndex):
                return super().bm25_index(fixes)
            every = patched.passages(fixes.tables)
            pool = eligible_passages(every, fixes)
            clean = patched._clean
            rows = clean.token_rows(fixes.tables, fixes.unicode)
            base = None
            if fixes.ocr:  # the OCR fix judges again only what the changed documents touch
                base = (clean.bm25_index(fixes).repair_memo,
                        changed_words(clean.index.passages(fixes.tables), every,
                                      patched._changed, fixes.unicode))  # fmt: skip
            bm = Bm25Index.from_counts(pool, *rows.gather(pool, fixes.unicode), fixes, base)
            # query repair reads the vocabulary: judged again only where it differs
            known = clean.bm25_index(fixes).lexicon
            vocabulary = frozenset(bm.postings.vocabulary)
            bm.__dict__["lexicon"] = SetLexicon(vocabulary, (known, vocabulary ^ known.words))
            # families with no seed index built: the same passages give the same families
            bm.__dict__["families"] = patched.families_of(fixes.tables, len(pool) < len(every))
            self._built[key] = bm
            return bm

    return _Bm25(index, spec)


class _MemoEmbedder:
    """An embedder that encodes each distinct text once per run (variants share all but
    their changed passages); the clean corpus's vectors are read from (or written to) the
    vector cache first, so a variant encodes only its injected or damaged passages."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.identity, self.label = inner.identity, inner.label
        self.memo: dict[str, np.ndarray] = {}  # text -> its embedding

    def encode(self, texts, progress: bool = False):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if missing:
            for t, v in zip(missing, self.inner.encode(missing), strict=True):
                self.memo[t] = v
        if not texts:
            return np.zeros((0, 1), np.float32)
        return np.stack([self.memo[t] for t in texts]).astype(np.float32)


def _retriever_factory(spec: RetrieverSpec):
    from ragdash.retrieval.retrievers import make_retriever

    if spec.kind == "bm25":
        return lambda index: _bm25(spec, index)
    if spec.kind != "dense":
        return lambda index: make_retriever(spec, index)
    from ragdash.retrieval.dense import DenseIndex, DenseRetriever, cached_vectors, make_embedder
    from ragdash.retrieval.reindex import index_key, indexed_texts

    memo = _MemoEmbedder(make_embedder(spec))
    primed: set[tuple] = set()

    class _Dense(DenseRetriever):
        def dense_index(self, fixes: Fixes, refresh: bool = False) -> DenseIndex:
            key = index_key(fixes)  # refresh: the memo holds what the service answered
            if key not in primed:
                # the clean corpus's vectors come from the vector cache (written on the first
                # run, as a dense check writes them): a variant encodes only its new texts
                primed.add(key)
                clean = getattr(self.index, "_clean", None)
                clean_index = clean.index if clean is not None else self.index
                _, texts = indexed_texts(clean_index, fixes)
                about = {"corpus": clean_index.fingerprint, "tables": fixes.tables,
                         "ocr": fixes.ocr}  # fmt: skip
                vectors = cached_vectors(memo, texts, about)  # a miss encodes via the memo
                memo.memo.update(zip(texts, vectors, strict=True))
            if key not in self._built or refresh:
                passages, texts = indexed_texts(self.index, fixes)
                self._built[key] = DenseIndex(passages, memo.encode(texts))
            return self._built[key]

    return lambda index: _Dense(index, spec, memo)


def _run_serial(
    corpus: Corpus,
    cases: Sequence[Case],
    *,
    faults: Sequence[str] = FAULTS,
    rate: float = 0.3,
    seed: int = 0,
    retrievers: Sequence[RetrieverSpec | str] = ("seed",),
    fixes: Fixes | None = None,
    jobs: int = 1,
    progress: Callable[[float, str], None] | None = None,
    cancel: Event | None = None,
    index: CorpusIndex | None = None,
) -> StressReport:
    for fault in faults:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; choose from {', '.join(FAULTS)}")
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be between 0 and 1, got {rate}")
    fixes = fixes or Fixes()
    clean = _CLEAN if _CLEAN is not None and _CLEAN.corpus is corpus else _Corpus(corpus, index)
    specs = [RetrieverSpec.resolve(r) for r in retrievers]
    labels = tuple(s.kind if s.kind in IN_PROCESS else s.label for s in specs)
    rebuilds = [rebuildable(s) for s in specs]
    makers = [_retriever_factory(s) for s in specs]
    rebuilt = [0] * len(specs)
    results: list[StressResult] = []
    made: list[FaultedVariant] = []
    skipped: list[tuple[str, str, str]] = []
    notes: list[str] = []
    cancelled = False
    total = max(len(cases) * len(faults), 1)
    clean_retrievers = [clean.retriever(s, m) for s, m in zip(specs, makers, strict=True)]
    # Every configuration this run uses: a case counts for a retriever only when that
    # retriever answers it on the clean corpus under each of them.
    every_config: dict[str, Fixes] = {}
    for fault in faults:
        for label, config in configurations_for(fault, fixes).items():
            every_config.setdefault(label, config)
    answered: list[tuple[str, str]] = []
    for c, case in enumerate(cases):
        if cancel is not None and cancel.is_set():
            cancelled = True
            break
        ok = [
            _answers_clean(r, case, every_config.values()) for r in clean_retrievers
        ]  # fmt: skip
        answered += [(labels[s], case.name) for s in range(len(specs)) if ok[s]]
        for f, fault in enumerate(faults):
            if progress:
                progress((c * len(faults) + f) / total, f"{case.name} · {fault}")
            found, why = variants(clean, case, fault, rate=rate, seed=seed, fixes=fixes)
            if not found:
                skipped.append((fault, case.name, why))
                continue
            configs = configurations_for(fault, fixes)
            for v in found:
                made.append(v)
                index_v = _patched_index(clean, v)
                for s in range(len(specs)):
                    if not ok[s]:
                        continue  # not answered clean: a failure would not be the fault's
                    if v.changed and not rebuilds[s][0]:
                        skipped.append((fault, case.name, f"{shown_kind(labels[s])}: corpus "
                                        f"faults need a re-index; {rebuilds[s][1]}"))  # fmt: skip
                        continue
                    if v.changed:
                        retriever = makers[s](index_v)
                        rebuilt[s] += 1
                    else:
                        retriever = clean_retrievers[s]
                    for label, config in configs.items():
                        # Measured only where answered clean under every configuration, so
                        # a failure here is one the fault broke (what a cell click opens).
                        result = _judge(retriever, v, label, labels[s], config)
                        results.append(replace(result, clean_passed=True))
    if progress:
        progress(1.0, "done")
    run = tuple(cases) if not cancelled else tuple(cases[:c])  # the cases measured
    cells = _cells(results, faults, labels, run, seed)
    for s, spec in enumerate(specs):
        if spec.kind not in IN_PROCESS and rebuilds[s][0] and rebuilt[s]:
            notes.append(f"{shown_kind(labels[s])}: its index is rebuilt once per faulted "
                         f"corpus — {rebuilt[s]} rebuilds, each as slow as building it over "
                         "the whole folder")  # fmt: skip
        elif not rebuilds[s][0] and any(f in _CORPUS_FAULTS for f in faults):
            notes.append(f"{shown_kind(labels[s])}: query faults only (typo, ocr-query); "
                         f"corpus faults refused: {rebuilds[s][1]}")  # fmt: skip
    if any(d.updated is None for d in corpus.documents):
        notes.append(
            f"undated documents: the stale variants date the current copy {UNDATED_STAND_IN} "
            "so the recency fix has dates to compare"
        )
    return StressReport(
        cells, tuple(results), run, tuple(skipped), tuple(made), seed, rate,
        tuple(faults), labels, tuple(notes), cancelled, corpus, tuple(answered),
    )  # fmt: skip


def _answers_clean(retriever, case: Case, configs) -> bool:
    """The retriever passes ``case`` on the clean corpus under every configuration."""
    try:
        for config in configs:
            ranked = retriever.top(case.query, config, max(case.top_k, 1))
            if not judge(case, ranked, config).passed:
                return False
    except (QueryError, RetrieverError):
        return False
    return True


def _judge(retriever, v: FaultedVariant, label: str, name: str, config: Fixes) -> StressResult:
    case = v.case
    try:
        ranked = retriever.top(case.query, config, max(case.top_k, 1))
        check = judge(case, ranked, config)
        passed, diagnosis = check.passed, check.diagnosis.value
        first, missing = check.first_id or "", check.missing_evidence
    except (QueryError, RetrieverError) as exc:
        passed, diagnosis, first, missing = False, "error", "", (str(exc),)
    return StressResult(
        case.name,
        v.fault,
        v.variant,
        label,
        name,
        case.query,
        passed,
        diagnosis,
        first,
        tuple(missing),
        v.injected,
    )


_CLEAN: _Corpus | None = None


def _chunk(cases: list[Case], options: dict) -> StressReport:
    """A worker's share (the clean corpus is inherited through the fork, not pickled); the
    variants go back without their corpora, which the parent rebuilds when asked."""
    assert _CLEAN is not None
    report = _run_serial(_CLEAN.corpus, cases, **options)
    return replace(report, variants=tuple(replace(v, corpus=None) for v in report.variants))


def run_stress(
    corpus: Corpus,
    cases: Sequence[Case],
    *,
    faults: Sequence[str] = FAULTS,
    rate: float = 0.3,
    seed: int = 0,
    retrievers: Sequence[RetrieverSpec | str] = ("seed",),
    fixes: Fixes | None = None,
    jobs: int = 1,
    progress: Callable[[float, str], None] | None = None,
    cancel: Event | None = None,
    index: CorpusIndex | None = None,
) -> StressReport:
    """Inject every fault into every case and run the proof check on each variant under
    ``none``, the targeted fix and ``all``, against each retriever. ``cancel`` (set from
    another thread) stops between cases and returns what was measured so far.

    ``jobs`` > 1 runs contiguous chunks of cases in worker processes (forked, sharing the
    clean index); every variant is seeded from the case, so the report is the one ``jobs=1``
    gives, result for result."""
    options: dict[str, Any] = {"faults": tuple(faults), "rate": rate, "seed": seed,
               "retrievers": tuple(retrievers), "fixes": fixes}  # fmt: skip
    if jobs <= 1 or len(cases) <= 1:
        return _run_serial(corpus, cases, **options, progress=progress, cancel=cancel, index=index)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from ragdash.checks.parallel import CHUNKS_PER_JOB, chunks

    global _CLEAN
    if "fork" not in multiprocessing.get_all_start_methods():
        return _run_serial(corpus, cases, **options, progress=progress, cancel=cancel, index=index)
    _CLEAN = _Corpus(corpus, index)
    try:
        # one case run here first works out the clean corpus's indexes, token rows and
        # families, which the forked workers then share instead of each building them
        _run_serial(corpus, list(cases[:1]), **options)
        parts = chunks(list(cases), jobs * CHUNKS_PER_JOB)
        reports: list[StressReport] = []
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_chunk, part, options) for part in parts]
            for done, future in enumerate(futures, start=1):
                if cancel is not None and cancel.is_set():
                    for f in futures:
                        f.cancel()
                    break
                reports.append(future.result())
                if progress:
                    progress(done / len(futures), f"{done} of {len(futures)} chunks")
    finally:
        _CLEAN = None
    return _merge(reports, corpus, options, cancelled=len(reports) < len(parts))


def _merge(
    reports: list[StressReport], corpus: Corpus, options: dict, cancelled: bool
) -> StressReport:
    results = tuple(r for rep in reports for r in rep.results)
    first = reports[0] if reports else None
    labels = first.retrievers if first else tuple(
        RetrieverSpec.resolve(r).kind for r in options["retrievers"])  # fmt: skip
    cases = tuple(c for rep in reports for c in rep.cases)
    cells = _cells(results, options["faults"], labels, cases, options["seed"])
    return StressReport(
        cells, results, cases,
        tuple(s for rep in reports for s in rep.skipped),
        tuple(v for rep in reports for v in rep.variants), options["seed"], options["rate"],
        options["faults"], labels, first.notes if first else (),
        cancelled or any(rep.cancelled for rep in reports),
        corpus,
        tuple(x for rep in reports for x in rep.clean),
    )  # fmt: skip
