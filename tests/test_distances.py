"""A retriever that ranks by distance (Chroma's ``distances``, LanceDB's ``_distance``, a
schema v1 ``distance``, any score with ``--lower-is-better``) is judged by the order it
returned, shown as a similarity, and never diagnosed "no passage matched" when it returned
hits — whatever the distances' sign and scale. (Issue 42: the distances were turned into
``-distance``, which the proof check read as "every score is 0": 0/8 with every fix.)"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragdash.case import Case, Diagnosis
from ragdash.checks.proof import judge
from ragdash.checks.runs import run_cases
from ragdash.retrieval.bm25 import Bm25Retriever
from ragdash.retrieval.hits import parse_hits, similarity
from ragdash.retrieval.retrievers import ExternalRetriever
from ragdash.retrieval.spec import RetrieverSpec
from ragdash.settings import Fixes


def _answer(form: str, hits: list[tuple[str, str, float]]):
    """``hits`` (doc id, text, distance) as each store answers them."""
    if form == "chroma":
        return {
            "ids": [[f"{doc}#{n}" for n, (doc, _, _) in enumerate(hits)]],
            "documents": [[text for _, text, _ in hits]],
            "metadatas": [[{"doc_id": doc} for doc, _, _ in hits]],
            "distances": [[d for _, _, d in hits]],
            "embeddings": None,
        }
    if form == "lancedb":  # table.search(vector).to_list(): the row's columns + _distance
        return [{"doc_id": doc, "text": text, "_distance": d} for doc, text, d in hits]
    if form == "schema-v1":
        return [{"id": doc, "text": text, "distance": d} for doc, text, d in hits]
    return [{"id": doc, "text": text, "score": d} for doc, text, d in hits]  # lower-is-better


SPECS = {
    "chroma": RetrieverSpec("python", callable="store:search", shape="chroma"),
    "lancedb": RetrieverSpec("python", callable="store:search", id_field="doc_id"),
    "schema-v1": RetrieverSpec("python", callable="store:search"),
    "lower-is-better": RetrieverSpec("python", callable="store:search", lower_is_better=True),
}


class DistanceStore:
    """A store answering in ``form`` with distances ``scale(bm25 score)``: BM25's order over
    the passages it indexed (``indexed``: as ``ragdash passages --fixes ...`` exports them)."""

    def __init__(self, index, form: str, scale, indexed: Fixes) -> None:
        self.bm25 = Bm25Retriever(index)
        self.form, self.scale, self.indexed, self.name = form, scale, indexed, "store:search"

    def fetch(self, query: str, k: int):
        hits = [(r.doc_id, r.passage.text, self.scale(r.score))
                for r in self.bm25.top(query, self.indexed, k)]  # fmt: skip
        return parse_hits(_answer(self.form, hits), SPECS[self.form].response_shape, self.name, k)


SCALES = {
    "l2 distances (positive)": lambda s: 1.0 / (1.0 + s),
    "negative (inner product)": lambda s: -1.0 - s,
    "around 0": lambda s: 2.0 - s,
    "huge": lambda s: 1e12 * (10.0 - s),
    "tiny": lambda s: 1e-9 * (10.0 - s),
}


@pytest.mark.parametrize("form", list(SPECS))
@pytest.mark.parametrize("scale", list(SCALES))
def test_a_store_ranking_by_distance_passes_the_testbed_with_all_fixes(
    sample_index, sample_cases, form, scale
):
    reindexed = DistanceStore(sample_index, form, SCALES[scale], Fixes.parse("tables,ocr,status"))
    retriever = ExternalRetriever(sample_index, SPECS[form], reindexed)
    runs = run_cases(retriever, sample_cases, Fixes.parse("all"))
    failed = [(r.case.name, r.message) for r in runs if not r.passed]
    assert failed == [], failed
    assert not any(r.check.no_match for r in runs)
    plain = DistanceStore(sample_index, form, SCALES[scale], Fixes())
    none = run_cases(ExternalRetriever(sample_index, SPECS[form], plain), sample_cases, Fixes())
    # BM25 with no fix: stale-version, ocr-noise and split-table fail, each as a ranking or
    # extraction miss — never "no passage matched"
    assert sorted(r.case.name for r in none if not r.passed) == [
        "ocr-noise", "split-table", "stale-version"]  # fmt: skip
    assert not any(r.check.no_match for r in none)


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(distances=st.lists(finite, min_size=1, max_size=12), form=st.sampled_from(list(SPECS)),
       repeat=st.booleans())  # fmt: skip
def test_any_distances_keep_the_services_order_and_count_as_retrieved(
    sample_index, distances, form, repeat
):
    """Every sign and scale (negative, 0, ±1e308, subnormal, equal): the first hit the
    service returned is first and passes; scores are similarities (positive, finite, never
    rising down the list, equal for equal distances)."""
    distances = sorted(distances)  # a service answers closest first
    if repeat:
        distances = [distances[0]] * len(distances)  # every hit ties
    docs = [d.doc_id for d in sample_index.corpus.documents]
    hits = [(docs[n % len(docs)], f"passage {n} says word{n}", d) for n, d in enumerate(distances)]

    class Store:
        name = "store:search"

        def fetch(self, query, k):
            return parse_hits(_answer(form, hits), SPECS[form].response_shape, self.name, k)

    retriever = ExternalRetriever(sample_index, SPECS[form], Store())
    ranked = retriever.top("anything", Fixes(), len(hits))
    assert [(r.doc_id, r.passage.text) for r in ranked] == [(d, t) for d, t, _ in hits]
    scores = [r.score for r in ranked]
    assert all(s > 0 and math.isfinite(s) for s in scores)
    assert all(a >= b for a, b in zip(scores, scores[1:], strict=False))
    for (_, _, d1), s1 in zip(hits, scores, strict=True):
        for (_, _, d2), s2 in zip(hits, scores, strict=True):
            if d1 == d2:
                assert s1 == s2
    case = Case("first", "anything", hits[0][0], evidence=("word0",), top_k=1)
    check = judge(case, ranked, Fixes())
    assert not check.no_match and check.diagnosis is Diagnosis.PASS


def test_a_distance_is_shown_as_a_similarity():
    assert [similarity(d) for d in (0.0, 1.0, 3.0)] == [1.0, 0.5, 0.25]
    assert similarity(-2.0) == 3.0 and similarity(1.7e308) > 0
    shape = SPECS["chroma"].response_shape
    hits = parse_hits(_answer("chroma", [("a", "t", 0.25), ("b", "u", 4.0)]), shape, "s", 5)
    assert [(h.id, h.score) for h in hits] == [("a", 0.8), ("b", 0.2)]
