"""The OCR rewrite budget: what the fix rewrites in a corpus, with evidence, and what it keeps."""

from __future__ import annotations

from conftest import make_document, make_index

from ragdash.checks.rewrites import rewrite_budget
from ragdash.settings import Fixes


def test_the_testbed_budget_is_one_rewrite_and_one_token_only_a_query_can_repair(sample_index):
    budget = rewrite_budget(sample_index, Fixes(ocr=True))
    assert [r.note for r in budget.rewrites] == [
        "1→i: 'enterpr1se' → 'enterprise', 'enterprise' appears in 1 document"
    ]
    assert [token for token, _ in budget.kept] == ["ss0"]
    assert budget.summary.startswith("the OCR fix rewrites 1 of ")


def test_the_budget_follows_the_map_and_the_protected_list():
    index = make_index(
        make_document("scan", "the b00t menu and the c0ntr0ller"),
        make_document("clean", "boot order; controller list"),
    )
    assert [r.raw for r in rewrite_budget(index, Fixes()).rewrites] == ["b00t", "c0ntr0ller"]
    protected = rewrite_budget(index, Fixes(protected="b00t"))
    assert [r.raw for r in protected.rewrites] == ["c0ntr0ller"]
    assert protected.to_dict()["kept"] == [
        {"token": "b00t", "why": "'b00t' is on the protected list: kept"}
    ]
    assert rewrite_budget(index, Fixes(ocr_map="1=i")).rewrites == ()
