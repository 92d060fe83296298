"""Retrieval metrics: the README's formulas on worked examples, and on the testbed."""

from __future__ import annotations

import math

import pytest
from conftest import make_document, make_index

from ragdash.case import Case
from ragdash.checks.ablation import configurations
from ragdash.checks.metrics import case_metrics, summarize
from ragdash.checks.runs import metrics_of, run_cases, run_configurations
from ragdash.retrieval.retrievers import make_retriever
from ragdash.settings import Fixes


@pytest.fixture
def index():
    return make_index(
        make_document("a", "alpha"),
        make_document("b", "alpha beta"),
        make_document("c", "alpha beta gamma 30 days"),
    )


def test_ranks_1_3_and_missing_give_the_readme_example(index):
    ranked = make_retriever("seed", index).search("alpha beta gamma", Fixes())
    assert [r.doc_id for r in ranked] == ["c", "b", "a"]
    cases = [
        Case("first", "q", "c", evidence=("30 days", "refund")),
        Case("third", "q", "a"),
        Case("missing", "q", "z"),
    ]
    per_case = [case_metrics(case, ranked, 5) for case in cases]
    assert [m.rank for m in per_case] == [1, 3, None]
    assert per_case[0].evidence_recall == 0.5 and per_case[1].evidence_recall is None
    metrics = summarize(list(zip(cases, per_case, strict=True)), 5)
    assert metrics.hit == pytest.approx(2 / 3) == metrics.doc_recall
    assert metrics.mrr == pytest.approx((1 + 1 / 3) / 3)
    assert metrics.ndcg == pytest.approx((1 + 1 / math.log2(4)) / 3)
    assert metrics.evidence_recall == 0.5 and metrics.evidence_cases == 1


def test_k_cuts_the_ranking(index):
    ranked = make_retriever("seed", index).search("alpha beta gamma", Fixes())
    assert case_metrics(Case("third", "q", "a"), ranked, 2).rank is None
    assert case_metrics(Case("third", "q", "a"), ranked, 3).ndcg == pytest.approx(0.5)


def test_a_failed_case_scores_zero_and_is_counted_as_an_error():
    cases = [Case("ok", "q", "a", evidence=("x",)), Case("down", "q", "a", evidence=("y",))]
    ok = case_metrics(cases[0], [], 5)
    metrics = summarize([(cases[0], ok), (cases[1], None)], 5)
    assert metrics.errors == 1 and metrics.hit == 0 and metrics.evidence_recall == 0
    assert metrics.to_dict()["ndcg_at_k"] == 0


def test_on_the_testbed_the_fixes_lift_every_metric_for_seed_and_bm25(sample_index, sample_cases):
    for kind in ("seed", "bm25"):
        retriever = make_retriever(kind, sample_index)
        before = metrics_of(run_cases(retriever, sample_cases, Fixes()))
        after = metrics_of(run_cases(retriever, sample_cases, Fixes.all()))
        assert after.mrr == after.ndcg == after.hit == 1.0
        assert before.mrr < 1
    seed = metrics_of(run_cases(make_retriever("seed", sample_index), sample_cases, Fixes()))
    bm25 = metrics_of(run_cases(make_retriever("bm25", sample_index), sample_cases, Fixes()))
    assert bm25.mrr > seed.mrr  # BM25's idf already repairs the typo case


def test_every_configuration_gets_a_row_beside_the_ablation(sample_index, sample_cases):
    rows, metrics = run_configurations(
        make_retriever("bm25", sample_index), sample_cases, configurations()
    )
    assert [m.configuration for m in metrics] == list(configurations())
    assert len(rows) == len(sample_cases) * len(configurations())
    row = next(m for m in metrics if m.configuration == "all")
    assert row.passed == 8 and row.mrr == 1.0


def test_ragdash_ablate_metrics_prints_one_row_per_configuration():
    from conftest import SAMPLE_CASES, SAMPLE_DOCS, run_module

    result = run_module("ragdash", "ablate", "--docs", str(SAMPLE_DOCS), "--cases",
                        str(SAMPLE_CASES), "--retriever", "bm25", "--metrics")  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = result.stdout.split("metrics at k=5 (bm25 (k1=1.2, b=0.75)):")[1].splitlines()
    by_name = {r.split()[0]: r.split()[1] for r in rows[2:]}
    assert list(by_name) == list(configurations())
    assert by_name["none"] == "5" and by_name["all"] == "8"
