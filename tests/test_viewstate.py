"""The view's URL form: a link reproduces the view; bad values fall back with a message."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.settings import FIX_NAMES, FUZZY_RULES, Fixes
from ragdash.ui.viewstate import DEFAULT_TOP_K, ViewState, from_params, split_evidence


def test_round_trip_through_the_url():
    view = ViewState(
        q="warehuse sync",
        fault="typo",
        rate=0.25,
        seed=4,
        fixes=Fixes.parse(
            "ocr,fuzzy",
            threshold=72.0,
            ocr_map=(("0", "o"), ("1", "i"), ("5", "s")),
            fuzzy_rule="typos-5-9",
            protected="sha1, t1d",
        ),
        k=4,
        expect="inventory",
        evidence=("15 minutes", "warehouse"),
    )
    again, problems = from_params(view.to_params())
    assert problems == [] and again == view


def test_defaults_stay_out_of_the_url():
    assert ViewState(q="x").to_params() == {"q": "x", "fixes": "none"}


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "q",
                "fault",
                "rate",
                "seed",
                "fixes",
                "threshold",
                "fuzzyrule",
                "k",
                "ocrmap",
                "expect",
                "evidence",
            ]
        ),
        st.text(),
    )
)
def test_any_parameters_give_a_valid_view(params):
    view, problems = from_params(params)
    assert view.fault in ("none", "ocr", "typo")
    assert 1 <= view.k <= 20 and 0 <= view.rate <= 1 and 0 <= view.fixes.threshold <= 100
    assert set(view.fixes.enabled) <= set(FIX_NAMES)
    assert view.fixes.fuzzy_rule in FUZZY_RULES
    assert all(isinstance(p, str) and p for p in problems)


def test_bad_values_are_named():
    view, problems = from_params({"fixes": "speed", "k": "99", "rate": "lots"})
    assert view.fixes.enabled == () and view.k == DEFAULT_TOP_K
    assert any("speed" in p for p in problems) and any("k=" in p for p in problems)
    assert any("rate" in p for p in problems)


@pytest.mark.parametrize("rule", ["es-auto", "typos-5-9"])
def test_a_fuzzy_preset_is_in_the_link_and_comes_back(rule):
    view = ViewState(q="warehuse sync", fixes=Fixes.parse("fuzzy", fuzzy_rule=rule))
    params = view.to_params()
    assert params["fuzzyrule"] == rule
    assert from_params(params) == (view, [])
    # The default rule stays out of the link.
    assert "fuzzyrule" not in ViewState(q="x", fixes=Fixes.parse("fuzzy")).to_params()


def test_a_bad_fuzzy_rule_is_named_and_the_default_kept():
    view, problems = from_params({"q": "warehuse", "fixes": "fuzzy", "fuzzyrule": "AUTO"})
    assert view.fixes.fuzzy_rule == "ratio" and view.fixes.enabled == ("fuzzy",)
    assert len(problems) == 1 and "fuzzyrule='AUTO'" in problems[0]
    assert "es-auto" in problems[0]


def test_evidence_is_split_on_semicolons_and_lines():
    assert split_evidence(" 30 days; refund\n card ;") == ("30 days", "refund", "card")


def test_a_link_carries_the_retriever_kind_but_never_a_callable_or_a_url():
    from ragdash.retrieval.spec import RetrieverSpec

    bm25 = ViewState(retriever=RetrieverSpec("bm25", k1=2.0, b=0.5))
    assert from_params(bm25.to_params())[0].retriever == bm25.retriever
    service = RetrieverSpec("http", url="https://u:pw@h.example/s?key=abc")
    assert ViewState(retriever=service).to_params()["retriever"] == "http"
    assert "h.example" not in str(ViewState(retriever=service).to_params())
    team = RetrieverSpec("python", callable="mypkg.mod:search")
    assert "mypkg" not in str(ViewState(retriever=team).to_params())
    # retriever=http|python means the one the dashboard was started with, or none
    assert from_params({"retriever": "python"}, operator=team)[0].retriever == team
    view, problems = from_params({"retriever": "python", "callable": "os:system"}, operator=team)
    assert view.retriever == team and "callable: a link never names" in problems[0]
    view, problems = from_params({"retriever": "python", "callable": "os:system"})
    assert view.retriever.kind == "seed" and "started without a Python function" in problems[1]
    view, problems = from_params({"retriever": "http", "url": "http://10.0.0.5/admin"})
    assert view.retriever.kind == "seed" and "url: a link never names" in problems[0]
    view, problems = from_params({"retriever": "http", "url": "http://10.0.0.5/x"}, operator=team)
    assert view.retriever.kind == "seed" and "without an HTTP service" in problems[1]
    view, problems = from_params({"retriever": "bm25", "b": "7"})
    assert view.retriever.kind == "seed" and problems == ["retriever: bm25 b 7 is outside 0-1"]


def test_a_link_never_loads_an_embedding_model_the_operator_did_not_start_with():
    """``retriever=dense`` (or hybrid) in a link would make the server load a model and embed
    the corpus — minutes of CPU any visitor could trigger: only the operator's is used."""
    from ragdash.retrieval.spec import RetrieverSpec

    for kind in ("dense", "hybrid"):
        view, problems = from_params({"retriever": kind})
        assert view.retriever.kind == "seed" and f"retriever={kind}" in problems[0]
        operator = RetrieverSpec(kind)
        assert from_params({"retriever": kind}, operator=operator)[0].retriever == operator


def test_the_protected_list_travels_in_the_url_and_a_bad_entry_is_reported():
    params = ViewState(fixes=Fixes(ocr=True, protected="T1D,sha1")).to_params()
    assert params["protect"] == "sha1,t1d"
    view, problems = from_params({"fixes": "ocr", "protect": "sha-1"})
    assert view.fixes.protected == () and problems and "protect" in problems[0]
def test_a_link_without_k_means_the_top_k_a_fresh_app_opens_with():
    from ragdash.case import Case

    assert DEFAULT_TOP_K == Case("c", "q", "d").top_k == ViewState().k


def test_a_bad_name_in_the_fixes_list_drops_only_that_name():
    view, problems = from_params({"fixes": "fuzzy,bogus,ocr"})
    assert view.fixes.enabled == ("ocr", "fuzzy")
    assert problems == ["fixes: unknown fix 'bogus' ignored"]


def test_a_bad_entry_in_the_ocr_map_drops_only_that_entry():
    view, problems = from_params({"ocrmap": "0=o,9=xx,5=s"})
    assert view.fixes.ocr_map == (("0", "o"), ("5", "s"))
    assert len(problems) == 1 and "9=xx" in problems[0] and "ignored" in problems[0]
    view, problems = from_params({"ocrmap": "bogus"})
    assert view.fixes.ocr_map == ViewState().fixes.ocr_map and problems
