"""ragdash: a plain-Python retrieval core that shows how realistic flaws break a simple
RAG retriever, and how targeted fixes repair it. The Streamlit dashboard (``ragdash
dashboard`` or ``streamlit run app.py``) and the CLI (``ragdash``) are thin layers over it.

The public API, in the order a check uses it::

    import ragdash

    index = ragdash.CorpusIndex(ragdash.load_folder("sample_docs"))
    case = ragdash.Case("stale", "return policy days", "returns-2026", evidence=("30 days",))
    check = ragdash.check_case(index, case, ragdash.Fixes.parse("recency"))
    print(check.passed, check.diagnosis)        # True pass

Everything ragdash refuses on purpose raises a :class:`RagdashError` whose message names
the file or value at fault.
"""

from ragdash.checks.proof import Case, Diagnosis, ProofCheck, check_case
from ragdash.errors import RagdashError
from ragdash.ingestion.documents import Corpus
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes
from ragdash.storage.case_store import load_cases

__all__ = [
    "Case",
    "Corpus",
    "CorpusIndex",
    "Diagnosis",
    "Fixes",
    "ProofCheck",
    "RagdashError",
    "check_case",
    "load_cases",
    "load_folder",
]

__version__ = "0.2.0"
