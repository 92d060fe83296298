"""The inverted index ranks exactly as the straightforward scorer, and is built once."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import product

import pytest
from conftest import make_document, make_index

from ragdash.errors import QueryError
from ragdash.retrieval import inverted
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.inverted import FuzzyPool, build_postings, letter_mask
from ragdash.retrieval.matching import SetLexicon, extract_edits, extract_fuzzy, plan_with_lexicon
from ragdash.retrieval.ranking import rank_passages
from ragdash.settings import EDIT_RULES, FIX_NAMES, FUZZY_RULES, Fixes

WORDS = [
    "return", "returns", "policy", "policies", "days", "sync", "synch", "warehouse",
    "warehouses", "plan", "plans", "storage", "basic", "pro", "enterpr1se", "enterprise",
    "ss0", "sso", "30", "60", "10", "minutes", "io", "1o", "c0ntract", "contract",
    "sha1", "shai", "t1d", "tid", "fa1l", "fail", "fall", "b00t", "boot", "c0ntr0ller",
    "controller", "login", "logic", "Café", "caf", "東京都", "東京", "ＳＳＯ", "2024", "2025",
]  # fmt: skip
TYPOS = [
    "warehuse", "polcy", "storag", "xyz", "enterpr1ze", "contrakt", "s5o", "contoller",
    "wareh0sue", "b0ot", "logn", "cafe",
]  # fmt: skip
ALL_FIXES = [
    Fixes().with_only(name for name, on in zip(FIX_NAMES, flags, strict=True) if on)
    for flags in product([False, True], repeat=len(FIX_NAMES))
]


def random_index(rng: random.Random) -> CorpusIndex:
    docs = []
    shared = " ".join(rng.choices(WORDS, k=8))  # versions share most of their words
    for i in range(rng.randint(0, 9)):
        text = " ".join(rng.choices(WORDS, k=rng.randint(0, 12)))
        if rng.random() < 0.4:
            text = f"{shared} {text}"
        pages = [text[: len(text) // 2], text[len(text) // 2 :], "basic | pro\n30 | 60"]
        body = pages if rng.random() < 0.4 else (text or "!!")
        updated = rng.choice([None, "2024-02-01", "2025-06-30", "2026-01-05"])
        status = rng.choice(["current", "current", "withdrawn"])
        # Some ids and subjects say "another version of the same document".
        doc_id = rng.choice([f"d{i}", f"policy-202{i}", f"guide-v{i}"])
        doc_id = doc_id if all(d.doc_id != doc_id for d in docs) else f"d{i}"
        subject = rng.choice(["", "Return policy", "Return policy 2025", "Setup guide"])
        docs.append(
            make_document(doc_id, body, updated=updated, status=status, subject=subject)
        )
    return make_index(*docs)


#: Misspellings the edit presets treat differently by length: swaps, 3-letter words, two edits.
PRESET_TYPOS = ["snyc", "pr0", "prp", "sos", "wrehuse", "warehuoes", "polciies", "dyas", "mintues"]


def random_query(rng: random.Random, typos: Sequence[str] = TYPOS) -> str:
    return " ".join(rng.choices([*WORDS, *typos], k=rng.randint(1, 5)))


def outcome(ranked):
    return [(r.rank, r.passage, r.score, r.breakdown) for r in ranked]


def reference(index: CorpusIndex, query: str, fixes: Fixes):
    return rank_passages(index.passages(fixes.tables), query, fixes)


def assert_same(index: CorpusIndex, query: str, fixes: Fixes, k: int) -> None:
    """The index and the reference rank alike, or both refuse the query (a CJK-only query
    has no token without the unicode fix)."""
    try:
        expected = outcome(reference(index, query, fixes))
    except QueryError:
        with pytest.raises(QueryError):
            index.search(query, fixes)
        return
    assert outcome(index.search(query, fixes)) == expected
    assert outcome(index.top(query, fixes, k)) == expected[:k]


@pytest.mark.parametrize("fixes", ALL_FIXES, ids=lambda f: f.label)
def test_search_and_top_equal_the_reference_scorer_on_random_corpora(fixes):
    assert len(ALL_FIXES) == 2 ** len(FIX_NAMES)
    rng = random.Random(fixes.label)
    for _ in range(12):
        index = random_index(rng)
        for _ in range(4):
            assert_same(index, random_query(rng), fixes, rng.randint(0, 8))


@pytest.mark.parametrize("share", [0.0, 1e9], ids=["dense", "sparse"])
@pytest.mark.parametrize("spec", ["none", "ocr,fuzzy", "status,recency,versions", "all"])
def test_sparse_and_dense_summing_rank_alike(spec, share, monkeypatch):
    """Scores are summed over the postings read (sorted) or in a dense array when the
    postings cover much of the corpus: both paths equal the reference."""
    monkeypatch.setattr(inverted, "DENSE_SHARE", share)
    rng = random.Random(spec)
    fixes = Fixes.parse(spec)
    for _ in range(25):
        index = random_index(rng)
        for _ in range(4):
            assert_same(index, random_query(rng), fixes, rng.randint(0, 8))


@pytest.mark.parametrize("threshold", [0.0, 50.0, 95.0])
def test_fuzzy_thresholds_and_custom_ocr_maps_equal_the_reference(threshold):
    rng = random.Random(int(threshold))
    ocr_map = (("1", "i"), ("1", "l"), ("5", "s"), ("0", "o"))
    for _ in range(30):
        index = random_index(rng)
        protected = rng.choice(["", "b00t", "ss0,fa1l", "c0ntr0ller"])
        for spec in ("fuzzy", "ocr,fuzzy", "all"):
            fixes = Fixes.parse(spec, threshold=threshold, ocr_map=ocr_map, protected=protected)
            assert_same(index, random_query(rng), fixes, 3)


@pytest.mark.parametrize("rule", list(FUZZY_RULES))
def test_every_fuzzy_rule_equals_the_reference_under_every_fix_combination(rule):
    combos = [f for f in ALL_FIXES if f.fuzzy]
    rng = random.Random(rule)
    for _ in range(12):
        index = random_index(rng)
        for fixes in combos:
            # The threshold must not matter to a preset: vary it anyway.
            fixes = Fixes.parse(fixes.names, fuzzy_rule=rule, threshold=rng.choice([0, 80, 100]))
            query = random_query(rng, [*TYPOS, *PRESET_TYPOS])
            assert_same(index, query, fixes, rng.randint(0, 4))


def test_a_preset_ranks_the_misspelled_document_first_like_the_reference():
    index = make_index(
        make_document("crm", "contacts sync every five minutes"),
        make_document("inventory", "stock levels sync from the warehouse"),
    )
    for rule in EDIT_RULES:
        fixes = Fixes.parse("fuzzy", fuzzy_rule=rule)
        ranked = index.search("warehuse sync", fixes)
        assert [r.doc_id for r in ranked] == ["inventory", "crm"]
        assert outcome(ranked) == outcome(reference(index, "warehuse sync", fixes))


def test_top_fills_with_zero_score_passages_in_list_order():
    index = make_index(
        make_document("a", "nothing here"),
        make_document("b", "sync plan"),
        make_document("c", "still nothing"),
    )
    assert [r.doc_id for r in index.top("sync", Fixes(), 3)] == ["b", "a", "c"]
    assert [r.score for r in index.top("sync", Fixes(), 3)] == [1.0, 0.0, 0.0]
    assert index.top("sync", Fixes(), 0) == []


def test_bad_queries_are_refused_by_the_index_too():
    index = make_index(make_document("a", "sync"))
    with pytest.raises(QueryError, match="empty"):
        index.top("?!", Fixes(), 3)


def test_postings_are_built_once_per_passage_set_and_reused_by_every_query():
    index = make_index(
        make_document("a", "sync plan"), make_document("b", ["page one", "page two sync"])
    )
    index.search("sync", Fixes())
    postings = index.inverted(False).postings
    index.search("plan page", Fixes.parse("recency,status,ocr,fuzzy"))
    index.top("warehuse", Fixes.parse("fuzzy"), 1)
    assert index.inverted(False).postings is postings
    tables = index.inverted(True)
    index.search("sync", Fixes.all())
    assert index.inverted(True) is tables and tables is not index.inverted(False)


def test_a_corpus_without_pages_shares_one_index_for_both_tables_settings():
    index = make_index(make_document("a", "sync plan"), make_document("b", "plan"))
    assert index.inverted(False) is index.inverted(True)
    assert index.passages(False) is index.passages(True)


def test_ocr_repairs_and_fuzzy_pools_are_cached_per_map_and_status():
    index = make_index(make_document("a", "enterpr1se plan"), make_document("b", "warehouse"))
    inverted = index.inverted(False)
    index.search("enterprise warehuse", Fixes.parse("ocr,fuzzy"))
    view = inverted.view(False)
    pool = view.fuzzy_pool()
    index.search("enterprise warehuse", Fixes.parse("ocr,fuzzy"))
    assert inverted.view(False) is view and view.fuzzy_pool() is pool
    assert len(view._repairs) == 1
    index.search("enterprise", Fixes.parse("ocr", ocr_map=(("1", "l"),)))
    index.search("enterprise", Fixes.parse("ocr", protected="enterpr1se"))
    assert len(view._repairs) == 3
    # The edit presets look up the same pool.
    for rule in EDIT_RULES:
        index.search("warehuse plna", Fixes.parse("fuzzy", fuzzy_rule=rule))
    assert view.fuzzy_pool() is pool


def test_postings_list_each_token_s_passages_in_ascending_order():
    postings = build_postings([frozenset({"a", "b"}), frozenset(), frozenset({"b"})])
    assert postings.ids("a").tolist() == [0]
    assert postings.ids("b").tolist() == [0, 2]
    assert postings.ids("zzz").tolist() == []


def near_miss(rng: random.Random, base: str, letters: str = "aeinorstu") -> str:
    """``base`` with 0-3 random swaps, substitutions, insertions and deletions."""
    token = list(base)
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(token) + 1)
        op = rng.choice("sidt")
        if op == "s" and i < len(token):
            token[i] = rng.choice(letters)
        elif op == "i":
            token.insert(i, rng.choice(letters))
        elif op == "d" and i < len(token) and len(token) > 1:
            del token[i]
        elif op == "t" and i + 1 < len(token):
            token[i], token[i + 1] = token[i + 1], token[i]
    return "".join(token)


def found(pairs):
    return sorted(pairs)


@pytest.mark.parametrize("threshold", [0.0, 40.0, 66.6, 80.0, 90.0, 100.0])
def test_the_length_and_letter_filters_never_drop_a_fuzzy_match(threshold):
    rng = random.Random(threshold)
    words = sorted({"".join(rng.choices("aeinorsté", k=rng.randint(4, 10))) for _ in range(400)})
    pool = FuzzyPool.build(words)
    assert pool.masks.tolist() == [letter_mask(w) for w in pool.words]  # one token alike
    for _ in range(60):
        token = near_miss(rng, rng.choice(words)) if rng.random() < 0.6 else "".join(
            rng.choices("aeinorstu", k=rng.randint(4, 10))
        )
        kept = pool.candidates(token, threshold)
        assert set(kept) <= set(words)
        assert found(extract_fuzzy(token, kept, threshold)) == found(
            extract_fuzzy(token, words, threshold)
        )
        for near in (1, 2, 3):  # and within ``near`` OSA edits, when that is all that is asked
            close = {w for w, _ in extract_edits(token, words, near)}
            expected = [(w, s) for w, s in extract_fuzzy(token, words, threshold) if w in close]
            kept = pool.candidates(token, threshold, near=near)
            assert {w for w, _ in expected} <= set(kept)


@pytest.mark.parametrize("edits", [1, 2])
def test_the_edit_prefilter_never_drops_a_word_within_the_edits(edits):
    rng = random.Random(edits)
    words = sorted({"".join(rng.choices("aeinorst", k=rng.randint(1, 9))) for _ in range(600)})
    pool = FuzzyPool.build(words)
    for _ in range(150):
        token = near_miss(rng, rng.choice(words))
        token = token if rng.random() < 0.8 else "".join(rng.choices("aeinost", k=5))
        for min_length in (0, 3, 5):
            kept = pool.within_edits(token, edits, min_length)
            eligible = [w for w in words if len(w) >= min_length]
            assert set(kept) <= set(eligible)
            assert found(extract_edits(token, kept, edits)) == found(
                extract_edits(token, eligible, edits)
            )


@pytest.mark.parametrize("rule", list(FUZZY_RULES))
def test_the_fast_candidate_generator_rewrites_typos_exactly_as_the_plain_reference(rule):
    """The index's cached pool (length slices, letter masks, the typo-cost bound) and the
    plain scan of every word (:class:`SetLexicon`) choose the same rewrite, or none, for
    near misses of a larger vocabulary — real words stay as they are in both."""
    rng = random.Random(rule)
    letters = "abcdefghiklmnoprstuw"
    words = {"".join(rng.choices(letters, k=rng.randint(3, 13))) for _ in range(1500)}
    words |= {"warehouse", "policy", "login", "logic", "storage"}
    docs = [make_document(f"d{i}", " ".join(rng.sample(sorted(words), 40))) for i in range(60)]
    index = make_index(*docs)
    view = index.inverted(False).view(False)
    plain = SetLexicon({w: view.documents(w) for w in view.words})
    rewritten = 0
    for threshold in (60.0, 80.0, 90.0):
        fixes = Fixes(fuzzy=True, fuzzy_rule=rule, threshold=threshold)
        for _ in range(80):
            token = near_miss(rng, rng.choice(sorted(view.words)), letters)
            fast = plan_with_lexicon([token], view, fixes)
            slow = plan_with_lexicon([token], plain, fixes)
            assert fast == slow, token
            rewritten += any(m.kind == "fuzzy" for m in fast.candidates[token].values())
    assert rewritten > 20  # the near misses do get rewritten


def test_passages_of_a_document_are_its_passages_in_order(sample_index):
    for tables in (False, True):
        everything = sample_index.passages(tables)
        for doc_id in sample_index.corpus.doc_ids:
            assert sample_index.passages_of(doc_id, tables) == tuple(
                p for p in everything if p.doc_id == doc_id
            )
    assert sample_index.passages_of("no-such-document") == ()


def test_a_document_with_a_40000_letter_word_does_not_break_fuzzy_queries(tmp_path):
    """Regression: one 40,000-letter token overflowed the fuzzy pool's int16 letter counts,
    so every fuzzy query (and the Test suite page) crashed. Such a token is no word anyone
    types: it takes no part in fuzzy matching, in the index and the reference alike."""
    from conftest import write_docs

    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex

    docs = write_docs(
        tmp_path / "docs",
        {"long.txt": "x" + "a" * 40_000 + " sync", "b.md": "inventory warehouse sync"},
    )
    index = CorpusIndex(load_folder(docs))
    fixes = Fixes.all()
    fast = index.search("warehuse sync", fixes)
    assert fast[0].doc_id == "b"
    slow = rank_passages(index.passages(True), "warehuse sync", fixes)
    assert [(r.doc_id, r.score) for r in fast] == [(r.doc_id, r.score) for r in slow]
