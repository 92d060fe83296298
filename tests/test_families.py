"""Version families: recency orders only versions of one document; versions demotes only
the older of a detected pair."""

from __future__ import annotations

from conftest import make_document, make_index

from ragdash.retrieval.families import families_of, version_markers
from ragdash.settings import Fixes


def _ids(ranked):
    return [r.doc_id for r in ranked]


def test_ids_equal_but_for_a_date_are_versions_for_recency():
    index = make_index(
        make_document("vpn-guide-2024", "connect the vpn client", updated="2024-01-15"),
        make_document("vpn-guide-2025", "connect the vpn client now", updated="2025-08-15"),
    )
    families = families_of(index.passages())
    assert families.recency_family["vpn-guide-2024"] == families.recency_family["vpn-guide-2025"]
    assert _ids(index.search("vpn client", Fixes(recency=True))) == [
        "vpn-guide-2025",
        "vpn-guide-2024",
    ]


def test_a_shared_subject_is_enough_for_recency_but_not_for_versions():
    # Same subject, different words: recency may order their ties, versions never demotes.
    index = make_index(
        make_document("a", "printer toner order form", updated="2023-01-01", subject="Office"),
        make_document("b", "kitchen rota and coffee", updated="2025-01-01", subject="Office"),
    )
    families = families_of(index.passages())
    assert "a" in families.recency_family and families.pair_family == {}
    assert _ids(index.search("printer toner coffee", Fixes(versions=True))) == ["a", "b"]


def test_a_single_document_or_unrelated_ones_make_no_family():
    index = make_index(make_document("a", "x y z"), make_document("b", "p q r"))
    assert families_of(index.passages()).empty


def test_version_markers_are_the_years_and_numbers_that_name_a_version():
    [passage] = make_index(
        make_document("policy-v2", "text", updated="2024-05-01", subject="Policy 2024 v2")
    ).passages()
    assert {"2024", "v2"} <= version_markers(passage)
