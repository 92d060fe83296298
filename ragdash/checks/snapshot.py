"""A saved run: one ``check`` kept as data, so it can be listed, compared and reported later.

Per-case history (:class:`ragdash.storage.library.Run`) says *that* a case passed; a
triage question is "it was wrong last week; is it right now, and what else moved?". That
needs the whole picture at the time: which retriever with which settings, the full fix
settings (:attr:`ragdash.settings.Fixes.label`), the corpus fingerprint *and one fingerprint
per document* (so a later diff can say which documents were added, removed or changed),
every case's verdict, diagnosis, rank of the expected document, missing evidence and the
passages sent to the model (so a report can show them highlighted as Explore does), the
metrics, and — when it was run — the ablation (which fix alone repairs which case)::

    >>> run = snapshot(runs, RetrieverSpec(), Fixes.all(), index, name="all")  # doctest: +SKIP
    >>> run.passed, run.total, run.corpus_fingerprint                           # doctest: +SKIP
    (8, 8, 'bf4addf6cc')
    >>> SavedRun.from_dict(run.to_dict()) == run                                # doctest: +SKIP
    True

``to_dict`` is the run file format (``ragdash runs export``, ``check --run-file``), a
versioned JSON object; :meth:`SavedRun.from_dict` refuses anything else with a
:class:`~ragdash.errors.RunError` naming the problem.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragdash.checks.metrics import DEFAULT_METRIC_K
from ragdash.checks.runs import CaseRun, metrics_of
from ragdash.errors import RagdashError, RunError
from ragdash.ingestion.documents import Corpus, Document
from ragdash.retrieval.highlight import match_kinds
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.spec import RetrieverSpec, shown_kind
from ragdash.retrieval.wordlist import word_list_label
from ragdash.settings import Fixes

__all__ = [
    "RUN_FORMAT",
    "RUN_FORMAT_VERSION",
    "AblationCell",
    "CaseResult",
    "DocumentPrint",
    "SavedPassage",
    "SavedRun",
    "document_fingerprint",
    "document_prints",
    "load_run_file",
    "snapshot",
    "word_list_warning",
]

RUN_FORMAT = "ragdash-run"
RUN_FORMAT_VERSION = 1


@dataclass(frozen=True)
class DocumentPrint:
    """One document of the corpus a run was made on: its id and a short content hash."""

    doc_id: str
    fingerprint: str


@dataclass(frozen=True)
class SavedPassage:
    """A passage sent to the model, with what the report needs to highlight it as Explore
    does: ``kinds`` maps each matched passage token to its match kind."""

    rank: int
    doc_id: str
    label: str
    score: float
    text: str
    kinds: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CaseResult:
    """One case of a saved run: the case as it was, and its outcome."""

    name: str
    query: str
    expected_id: str
    evidence: tuple[str, ...]
    top_k: int
    kind: str
    verdict: str  # pass / fail / error
    diagnosis: str  # pass / ranking / extraction / error
    rank: int | None  # rank of the expected document in the top metric_k (None: not there)
    first_id: str  # the document ranked first ("" when nothing matched or on error)
    missing_evidence: tuple[str, ...]
    message: str = ""  # the retriever's error or notes
    passages: tuple[SavedPassage, ...] = ()

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def definition(self) -> tuple:
        """What the case asks (a changed definition explains a changed verdict)."""
        return (self.query, self.expected_id, self.evidence, self.top_k)


@dataclass(frozen=True)
class AblationCell:
    """The diagnosis of one case under one named configuration (``none``, ``ocr``,
    ``all-but-ocr``…)."""

    case: str
    configuration: str
    diagnosis: str


@dataclass(frozen=True)
class SavedRun:
    """A run as the library and the run file keep it. ``id`` is the library's (None for a
    run read from a file or not saved yet)."""

    name: str
    at: str  # ISO 8601, UTC
    retriever: tuple[tuple[str, Any], ...]  # RetrieverSpec.to_dict() items
    retriever_label: str
    fixes: tuple[tuple[str, Any], ...]  # Fixes.to_dict() items
    fixes_label: str
    corpus_fingerprint: str
    documents: tuple[DocumentPrint, ...]
    metric_k: int
    metrics: tuple[tuple[str, Any], ...]  # Metrics.to_dict() items
    cases: tuple[CaseResult, ...]
    ablation: tuple[AblationCell, ...] = ()
    id: int | None = None
    source: str = field(default="", compare=False)  # a file it was read from
    #: The fuzzy fix's English word list (:func:`ragdash.retrieval.wordlist.word_list_label`):
    #: a baseline made with another list may fuzz differently. "" in runs saved before it.
    word_list: str = ""

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.cases)

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    @property
    def metric_values(self) -> dict[str, Any]:
        return dict(self.metrics)

    @property
    def settings(self) -> Fixes:
        """The fixes the run used, as the settings type."""
        return Fixes.resolve(dict(self.fixes))

    @property
    def retriever_settings(self) -> dict[str, Any]:
        return dict(self.retriever)

    @property
    def ref(self) -> str:
        """How a user names this run: ``#3 'all fixes'`` or the file it came from."""
        if self.id is not None:
            return f"#{self.id}" + (f" {self.name!r}" if self.name else "")
        return self.source or (repr(self.name) if self.name else "this run")

    def case(self, name: str) -> CaseResult | None:
        return next((c for c in self.cases if c.name == name), None)

    def ablation_of(self, case: str) -> dict[str, str]:
        """Configuration → diagnosis of one case (empty when no ablation was recorded)."""
        return {a.configuration: a.diagnosis for a in self.ablation if a.case == case}

    def with_id(self, run_id: int | None) -> SavedRun:
        return replace(self, id=run_id)

    # -- the run file ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The run file's JSON object (see the module docstring)."""
        return {
            "format": RUN_FORMAT,
            "version": RUN_FORMAT_VERSION,
            "id": self.id,
            "name": self.name,
            "at": self.at,
            "retriever": dict(self.retriever),
            "retriever_label": self.retriever_label,
            "fixes": dict(self.fixes),
            "fixes_label": self.fixes_label,
            "corpus_fingerprint": self.corpus_fingerprint,
            "documents": [[d.doc_id, d.fingerprint] for d in self.documents],
            "metric_k": self.metric_k,
            "metrics": dict(self.metrics),
            "passed": self.passed,
            "total": self.total,
            "cases": [_case_dict(c) for c in self.cases],
            "ablation": [[a.case, a.configuration, a.diagnosis] for a in self.ablation],
            "word_list": self.word_list,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "run") -> SavedRun:
        """Read :meth:`to_dict`'s object back; anything else raises :class:`RunError`
        naming ``where`` and what is wrong."""
        if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
            raise RunError(f"{where} is not a ragdash run (no \"format\": \"{RUN_FORMAT}\")")
        if data.get("version") != RUN_FORMAT_VERSION:
            raise RunError(f"{where} has run format version {data.get('version')!r}; this "
                           f"ragdash reads version {RUN_FORMAT_VERSION}")  # fmt: skip
        try:
            Fixes.resolve(dict(data["fixes"]))  # settings this ragdash can use (ValueError)
            return cls(
                name=str(data.get("name") or ""),
                at=str(data["at"]),
                retriever=_items(data["retriever"]),
                retriever_label=shown_kind(str(data["retriever_label"])),
                fixes=_items(data["fixes"]),
                fixes_label=str(data["fixes_label"]),
                corpus_fingerprint=str(data["corpus_fingerprint"]),
                documents=tuple(DocumentPrint(str(d), str(f)) for d, f in data["documents"]),
                metric_k=int(data["metric_k"]),
                metrics=_items(data["metrics"]),
                cases=tuple(_case_from(c) for c in data["cases"]),
                ablation=tuple(
                    AblationCell(str(c), str(g), str(d)) for c, g, d in data.get("ablation", [])
                ),
                id=data.get("id") if isinstance(data.get("id"), int) else None,
                word_list=str(data.get("word_list") or ""),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            detail = str(exc) if isinstance(exc, RagdashError) else f"{type(exc).__name__} {exc}"
            raise RunError(f"{where} cannot be read: {detail}") from None


def _items(value: object) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return tuple((str(k), v) for k, v in value.items())


def _case_dict(c: CaseResult) -> dict[str, Any]:
    return {
        "name": c.name,
        "query": c.query,
        "expected_id": c.expected_id,
        "evidence": list(c.evidence),
        "top_k": c.top_k,
        "kind": c.kind,
        "verdict": c.verdict,
        "diagnosis": c.diagnosis,
        "rank": c.rank,
        "first_id": c.first_id,
        "missing_evidence": list(c.missing_evidence),
        "message": c.message,
        "passages": [
            {"rank": p.rank, "doc_id": p.doc_id, "label": p.label, "score": p.score,
             "text": p.text, "kinds": [list(k) for k in p.kinds]}  # fmt: skip
            for p in c.passages
        ],
    }


def _case_from(d: Mapping[str, Any]) -> CaseResult:
    rank = d.get("rank")
    return CaseResult(
        name=str(d["name"]),
        query=str(d["query"]),
        expected_id=str(d["expected_id"]),
        evidence=tuple(str(e) for e in d.get("evidence", ())),
        top_k=int(d.get("top_k", 1)),
        kind=str(d.get("kind", "")),
        verdict=str(d["verdict"]),
        diagnosis=str(d["diagnosis"]),
        rank=None if rank is None else int(rank),
        first_id=str(d.get("first_id") or ""),
        missing_evidence=tuple(str(e) for e in d.get("missing_evidence", ())),
        message=str(d.get("message") or ""),
        passages=tuple(
            SavedPassage(int(p["rank"]), str(p["doc_id"]), str(p["label"]), float(p["score"]),
                         str(p["text"]), tuple((str(t), str(k)) for t, k in p.get("kinds", ())))
            for p in d.get("passages", ())
        ),  # fmt: skip
    )


def load_run_file(path: str | Path) -> SavedRun:
    """A run file (``ragdash runs export`` / ``check --run-file``); :class:`RunError` names
    the file when it cannot be read or is not a run."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunError(f"run file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunError(f"run file {str(path)!r} is not JSON ({exc})") from None
    run = SavedRun.from_dict(data, f"run file {str(path)!r}")
    return replace(run, id=None, source=str(path))


# -- making one -------------------------------------------------------------------------


def document_fingerprint(doc: Document) -> str:
    """10 hex characters over what of one document can change a result — its kind, date,
    status, page text and table text (as :func:`ragdash.ingestion.fingerprint.
    corpus_fingerprint` hashes them) — but not its list position, so inserting a document
    does not make every later one look changed."""
    record = [
        doc.kind,
        doc.updated.isoformat() if doc.updated else None,
        doc.status,
        list(doc.pages),
        list(doc.table_pages) if doc.table_pages is not None else None,
    ]
    payload = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("ascii")).hexdigest()[:10]


def document_prints(corpus: Corpus) -> tuple[DocumentPrint, ...]:
    """Every document's fingerprint, in list order."""
    return tuple(DocumentPrint(d.doc_id, document_fingerprint(d)) for d in corpus.documents)


def _case_result(run: CaseRun) -> CaseResult:
    case, check = run.case, run.check
    passages: tuple[SavedPassage, ...] = ()
    if check is not None:
        passages = tuple(
            SavedPassage(r.rank, r.doc_id, r.passage.label, float(r.score), r.passage.text,
                         tuple(sorted((t, str(k)) for t, k in match_kinds(r.breakdown).items())))
            for r in check.ranked
        )  # fmt: skip
    return CaseResult(
        name=case.name,
        query=case.query,
        expected_id=case.expected_id,
        evidence=tuple(case.evidence),
        top_k=case.top_k,
        kind=case.kind,
        verdict=run.verdict,
        diagnosis=run.diagnosis,
        rank=run.metrics.rank if run.metrics is not None else None,
        first_id=(check.first_id or "") if check is not None else "",
        missing_evidence=tuple(check.missing_evidence) if check else tuple(case.evidence),
        message=run.message,
        passages=passages,
    )


def snapshot(
    runs: Sequence[CaseRun],
    spec: RetrieverSpec,
    fixes: Fixes,
    index: CorpusIndex,
    *,
    k: int = DEFAULT_METRIC_K,
    name: str = "",
    ablation: Iterable[tuple[str, str, str]] = (),
    at: str | None = None,
) -> SavedRun:
    """A :class:`SavedRun` of ``runs`` (from :func:`ragdash.checks.runs.run_cases` with
    ``fixes`` against the retriever ``spec`` on ``index``); ``ablation`` holds (case,
    configuration, diagnosis) triples when the ablation was run too."""
    return SavedRun(
        name=name,
        at=at or datetime.now(UTC).isoformat(timespec="seconds"),
        retriever=tuple(spec.to_dict().items()),
        retriever_label=spec.label,
        fixes=tuple(fixes.to_dict().items()),
        fixes_label=fixes.label,
        corpus_fingerprint=index.fingerprint,
        documents=document_prints(index.corpus),
        metric_k=k,
        metrics=tuple(metrics_of(runs, k).to_dict().items()),
        cases=tuple(_case_result(r) for r in runs),
        ablation=tuple(AblationCell(c, g, d) for c, g, d in ablation),
        word_list=word_list_label(),
    )


def word_list_warning(baseline: SavedRun, run: SavedRun) -> str | None:
    """A warning when ``run`` fuzzes with another English word list than ``baseline`` did
    (a baseline made on another machine, or before the list came with pip): a case that
    moved may have moved because of the list, not the change being gated."""
    if baseline.word_list == run.word_list:
        return None
    before = baseline.word_list or "not recorded (a run saved before ragdash recorded it)"
    return (
        f"the baseline's English word list differs from this run's: baseline {before}; "
        f"this run {run.word_list}. The fuzzy and OCR fixes may decide differently."
    )
