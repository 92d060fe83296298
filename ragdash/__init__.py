"""ragdash: a plain-Python retrieval core that shows how realistic flaws break a simple
RAG retriever, and how targeted fixes repair it. The Streamlit dashboard (``ragdash
dashboard`` or ``streamlit run app.py``) and the CLI (``ragdash``) are thin layers over it.

The public API, in the order a check uses it::

    import ragdash

    index = ragdash.CorpusIndex(ragdash.load_folder(ragdash.SAMPLES))  # the bundled samples
    case = ragdash.Case("stale", "return policy days", "returns-2026", evidence=("30 days",))
    check = ragdash.check_case(index, case, ragdash.Fixes.parse("recency"))
    print(check.passed, check.diagnosis)        # True pass

The same checks run against any retriever — ``bm25``, a team's HTTP service or Python
function — through :func:`make_retriever` and :func:`run_cases`, which also score the
standard retrieval metrics::

    retriever = ragdash.make_retriever(ragdash.RetrieverSpec("bm25"), index)
    runs = ragdash.run_cases(retriever, [case], ragdash.Fixes())
    print(runs[0].verdict, ragdash.metrics_of(runs).mrr)   # fail 0.5

Everything ragdash refuses on purpose raises a :class:`RagdashError` whose message names
the file or value at fault.
"""

from typing import TYPE_CHECKING

from ragdash.version import VERSION

if TYPE_CHECKING:
    from ragdash.bundled import SAMPLES, SAMPLES_CASES
    from ragdash.case import Case, Diagnosis
    from ragdash.checks.proof import ProofCheck, check_case
    from ragdash.checks.runs import CaseRun, metrics_of, run_cases
    from ragdash.errors import RagdashError, RetrieverError
    from ragdash.ingestion.documents import Corpus
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.hits import Hit, Retrieval, Retriever
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.retrieval.retrievers import make_retriever
    from ragdash.retrieval.spec import RetrieverSpec
    from ragdash.settings import Fixes
    from ragdash.storage.case_store import load_cases

#: Where each public name lives. A name is imported when first used: a parse worker
#: (``ragdash.ingestion.parse_child``), a Streamlit page or ``ragdash --version`` imports
#: only what it uses, where importing every layer here cost each new parse worker about
#: 0.45 CPU-seconds (three times what it then spent reading the bundled samples).
_HOMES = {
    "SAMPLES": "ragdash.bundled",
    "SAMPLES_CASES": "ragdash.bundled",
    "Case": "ragdash.case",
    "Diagnosis": "ragdash.case",
    "ProofCheck": "ragdash.checks.proof",
    "check_case": "ragdash.checks.proof",
    "CaseRun": "ragdash.checks.runs",
    "metrics_of": "ragdash.checks.runs",
    "run_cases": "ragdash.checks.runs",
    "RagdashError": "ragdash.errors",
    "RetrieverError": "ragdash.errors",
    "Corpus": "ragdash.ingestion.documents",
    "load_folder": "ragdash.ingestion.ingest",
    "Hit": "ragdash.retrieval.hits",
    "Retrieval": "ragdash.retrieval.hits",
    "Retriever": "ragdash.retrieval.hits",
    "CorpusIndex": "ragdash.retrieval.index",
    "make_retriever": "ragdash.retrieval.retrievers",
    "RetrieverSpec": "ragdash.retrieval.spec",
    "Fixes": "ragdash.settings",
    "load_cases": "ragdash.storage.case_store",
}


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ragdash' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "Case",
    "CaseRun",
    "Corpus",
    "CorpusIndex",
    "Diagnosis",
    "Fixes",
    "Hit",
    "ProofCheck",
    "RagdashError",
    "Retrieval",
    "Retriever",
    "RetrieverError",
    "RetrieverSpec",
    "SAMPLES",
    "SAMPLES_CASES",
    "check_case",
    "load_cases",
    "load_folder",
    "make_retriever",
    "metrics_of",
    "run_cases",
]

__version__ = VERSION
