"""The view's URL form: a link reproduces the view; bad values fall back with a message."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dashboard.viewstate import ViewState, from_params, split_evidence
from ragdash.ranking import FIX_NAMES, Fixes


def test_round_trip_through_the_url():
    view = ViewState(
        q="warehuse sync",
        fault="typo",
        rate=0.25,
        seed=4,
        fixes=Fixes.parse(
            "ocr,fuzzy", threshold=72.0, ocr_map=(("0", "o"), ("1", "i"), ("5", "s"))
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
    assert all(isinstance(p, str) and p for p in problems)


def test_bad_values_are_named():
    view, problems = from_params({"fixes": "speed", "k": "99", "rate": "lots"})
    assert view.fixes.enabled == () and view.k == 3
    assert any("speed" in p for p in problems) and any("k=" in p for p in problems)
    assert any("rate" in p for p in problems)


def test_evidence_is_split_on_semicolons_and_lines():
    assert split_evidence(" 30 days; refund\n card ;") == ("30 days", "refund", "card")
