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
from ragdash.version import VERSION

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
