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


def test_patched_families_equal_a_fresh_count_whatever_documents_change():
    """A stress variant's families are patched from the clean corpus's (only the families
    its changed or missing documents touch are joined again): over random edits — a new
    copy, a renamed id, a new subject, a removed document — they equal a fresh count."""
    import random

    from ragdash.retrieval.families import _stem_key, _subject_key, patch_families

    subjects = ["Remote work", "Travel", "Office", "Expenses", "Remote work policy"]
    words = ["vpn", "client", "travel", "claims", "office", "rota", "expenses", "policy"]

    def document(rng: random.Random, name: str, extra: tuple[str, ...] = ()):
        text = " ".join(rng.choice(words) for _ in range(6))
        year = rng.choice(["2023-01-01", "2024-06-01", "2025-03-01"])
        return make_document(name, text, updated=year, subject=rng.choice([*subjects, *extra]))

    for seed in range(40):
        rng = random.Random(seed)

        def doc(i: int, name: str, extra: tuple[str, ...] = (), rng=rng):
            return document(rng, name, extra)

        docs = [doc(i, f"{rng.choice(['memo', 'plan', 'faq'])}-{2020 + i % 6}-{i}")
                for i in range(24)]  # fmt: skip
        docs += [doc(30 + i, f"guide-{2021 + i}") for i in range(4)]
        clean = families_of(make_index(*docs).passages())
        changed = set()
        variant = list(docs)
        for _ in range(3):
            at = rng.randrange(len(variant))
            name = rng.choice([variant[at].doc_id, f"guide-{2030 + at}", f"memo-2031-{at}",
                               f"zeta-{2030 + at}"])  # a stem only variants have  # fmt: skip
            if rng.random() < 0.3 and name == variant[at].doc_id:
                changed.add(variant.pop(at).doc_id)  # removed
                continue
            changed |= {variant[at].doc_id, name}
            variant[at] = doc(at, name, ("Brand new", "Brand new"))
        variant = list({d.doc_id: d for d in variant}.values())
        # some documents left out (BM25 with the status fix indexes current ones only)
        present = {d.doc_id for d in variant if seed % 2 == 0 or rng.random() > 0.2}
        passages = [p for p in make_index(*variant).passages() if p.doc_id in present]
        want = families_of(passages)
        by_id = {d.doc_id: d for d in variant if d.doc_id in present}
        named: dict[tuple[int, str], list[str]] = {}
        for d in docs:
            for slot, key in enumerate((_stem_key(d), _subject_key(d))):
                if key:
                    named.setdefault((slot, key), []).append(d.doc_id)

        def keys(d: str, by_id=by_id):
            return _stem_key(by_id[d]), _subject_key(by_id[d])

        got = patch_families(clean, want.pairs, set(by_id), changed, keys, named)
        assert got == want, seed
