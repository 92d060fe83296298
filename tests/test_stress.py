"""``ragdash.checks.stress``: faults injected into any folder break a retriever with no fix and
the targeted fix repairs them; generated cases; determinism; the user's folder untouched."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import dev_set

from ragdash.bundled import SAMPLES
from ragdash.checks.generate import GENERATED_KIND, generate_cases
from ragdash.checks.proof import evidence_found
from ragdash.checks.stress import (
    FAULTS,
    faulted_variant,
    run_stress,
    split_row_pdf,
    wilson_interval,
)
from ragdash.checks.stress_report import stress_report
from ragdash.ingestion.ingest import load_folder
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes

REPO = Path(__file__).resolve().parents[1]


def shared_folder(name: str) -> Path:
    """A dev set beside the repository (``../shared``) or under ``$RAGDASH_SHARED``; skipped
    without it, failed in CI (``conftest.dev_set``)."""
    return dev_set(name)


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


PLAIN = {
    "shipping.md": "# Shipping\n\nParcels leave the Rotterdam depot within 48 hours of the "
    "order. Express parcels reach Lisbon in 3 days.\n\nOversized crates travel by freight "
    "and are insured for 2,500 euros.\n",
    "support.md": "# Support desk\n\nThe helpdesk answers tickets within 4 hours on weekdays. "
    "Critical incidents page the on-call engineer immediately.\n\nPhone support opens at "
    "8 am Lisbon time.\n",
    "billing.md": "# Billing\n\nInvoices are issued on the first working day of the month. "
    "Late payments accrue interest of 2 percent per month.\n\nRefund requests go to the "
    "billing office in Porto.\n",
    "pricing.md": "# Price list\n\nEvery licence includes onboarding.\n\n"
    "| Licence | Seats | Yearly price |\n|---|---|---|\n| Starter | 5 seats | 490 EUR |\n"
    "| Growth | 25 seats | 1900 EUR |\n| Corporate | 250 seats | 9800 EUR |\n",
    "security.md": "# Security\n\nBackups are encrypted with rotating keys every 90 days. "
    "Penetration tests run twice a year by an outside auditor.\n\nAudit logs are retained "
    "for 400 days.\n",
    "onboarding.md": "# Onboarding\n\nNew customers get a kickoff workshop and a migration "
    "checklist. Migration windows are scheduled on Saturdays between 6 and 10 am.\n",
}


@pytest.fixture(scope="module")
def plain_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plain")
    for name, text in PLAIN.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def samples_report():
    corpus = load_folder(SAMPLES)
    cases = generate_cases(corpus, 12, seed=7)
    return corpus, cases, run_stress(corpus, cases, seed=7, retrievers=("seed", "bm25"))


def rates(report, retriever: str) -> dict[str, tuple[int, int, int]]:
    """Per fault: passed under none, under the targeted fix, and the total."""
    out = {}
    for fault in report.faults:
        none, fix, _ = (report.cell(fault, c, retriever) for c in report.configurations(fault))
        out[fault] = (none.passed, fix.passed, none.total)
    return out


def test_generated_cases_are_seeded_pass_clean_and_hold_evidence_only_their_passage_has():
    corpus = load_folder(SAMPLES)
    a, b = generate_cases(corpus, 10, seed=3), generate_cases(corpus, 10, seed=3)
    # five documents: at most two cases each (an even share), so fewer than asked
    assert a == b and 6 <= len(a) <= 10
    assert generate_cases(corpus, 10, seed=4) != a
    index = CorpusIndex(corpus)
    for case in a:
        assert case.kind == GENERATED_KIND and case.query and case.evidence
        holders = [
            p for p in index.passages() if all(evidence_found(e, p.text) for e in case.evidence)
        ]
        assert {p.doc_id for p in holders} == {case.expected_id}


def test_each_fault_breaks_no_fix_and_its_fix_repairs_it_on_the_samples(samples_report):
    _, _, report = samples_report
    for retriever in ("seed", "bm25"):
        for fault, (none, fix, total) in rates(report, retriever).items():
            if fault == "split-table":
                continue  # the samples' one table is already cut: no clean table case
            assert total >= 10, (retriever, fault)
            assert fix > none, (retriever, fault, none, fix, total)
            assert none <= total // 2, (retriever, fault, none, total)


def test_on_a_plain_text_folder_every_fault_including_split_tables(plain_folder):
    corpus = load_folder(plain_folder)
    cases = generate_cases(corpus, 12, seed=7)
    assert any("table row" in c.note for c in cases)
    report = run_stress(corpus, cases, seed=7)
    for fault, (none, fix, total) in rates(report, "seed").items():
        assert total >= 1 and fix > none, (fault, none, fix, total)


def test_split_table_goes_through_a_real_pdf_and_names_the_injected_document(plain_folder):
    corpus = load_folder(plain_folder)
    case = next(c for c in generate_cases(corpus, 12, seed=7) if "table row" in c.note)
    variant = faulted_variant(corpus, case, "split-table", seed=7)
    assert variant is not None and variant.injected == (case.expected_id,)
    doc = variant.corpus.document(case.expected_id)
    assert doc.kind == "pdf" and len(doc.pages) >= 2
    label = case.evidence[0]
    assert doc.pages[0].rstrip().endswith(f"{label} |")  # the break cuts the row
    assert split_row_pdf(["A | B", "x | 1"], 1).startswith(b"%PDF")


def test_stale_copy_is_listed_first_dated_before_with_the_evidence_changed(samples_report):
    corpus, cases, report = samples_report
    case = next(c for c in cases if any(ch.isdigit() for e in c.evidence for ch in e))
    dated = faulted_variant(corpus, case, "stale", "dated", seed=7)
    ids = [d.doc_id for d in dated.corpus.documents]
    stale_id = dated.injected[0]
    assert ids.index(stale_id) + 1 == ids.index(case.expected_id)
    stale, current = dated.corpus.document(stale_id), dated.corpus.document(case.expected_id)
    assert stale.updated < current.updated
    valued = [e for e in case.evidence if any(ch.isdigit() for ch in e)]
    assert valued and not any(evidence_found(e, stale.text) for e in valued)
    withdrawn = faulted_variant(corpus, case, "stale", "withdrawn", seed=7)
    assert withdrawn.corpus.document(withdrawn.injected[0]).status == "withdrawn"


def test_ocr_damage_leaves_numbers_and_evidence_alone():
    corpus = load_folder(SAMPLES)
    case = next(c for c in generate_cases(corpus, 20, seed=7) if c.expected_id == "inventory")
    variant = faulted_variant(corpus, case, "ocr-doc", seed=7, rate=1.0)
    text = variant.corpus.document("inventory").text
    assert text != corpus.document("inventory").text
    assert "every 15 " in text  # numbers untouched
    assert all(evidence_found(e, text) for e in case.evidence)


def test_same_seed_same_report_other_seed_other_faults(samples_report):
    corpus, cases, report = samples_report
    again = run_stress(corpus, cases, seed=7, retrievers=("seed", "bm25"))
    assert again.to_dict() == report.to_dict()
    other = run_stress(corpus, cases, seed=8, retrievers=("seed", "bm25"))
    assert [r.query for r in other.results] != [r.query for r in report.results]


def test_jobs_give_the_same_report(samples_report):
    corpus, cases, report = samples_report
    parallel = run_stress(corpus, cases, seed=7, retrievers=("seed", "bm25"), jobs=2)
    assert parallel.to_dict() == report.to_dict()
    first = report.variants[0]
    rebuilt = parallel.variant(first.case.name, first.fault, first.variant)
    assert [d.doc_id for d in rebuilt.documents] == [d.doc_id for d in first.documents]


def test_json_shape_and_wilson_interval(samples_report):
    _, _, report = samples_report
    record = json.loads(json.dumps(report.to_dict()))
    assert set(record["faults"]) == set(FAULTS)
    for configs in record["faults"].values():
        assert list(configs)[0] == "none" and list(configs)[-1] == "all"
        assert all(set(v) == {"passed", "total"} for v in configs.values())
    assert record["cases"] and record["injected"]
    low, high = wilson_interval(8, 10)
    assert 0.49 < low < 0.5 and 0.94 < high < 0.95


def test_report_is_escaped_offline_html_naming_injected_documents(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in PLAIN.items():
        (folder / name).write_text(text, encoding="utf-8")
    evil = "# <script>alert(1)</script>\n\nThe beacon <img src=x onerror=alert(2)> fires.\n"
    (folder / "evil.md").write_text(evil)
    corpus = load_folder(folder)
    report = run_stress(corpus, generate_cases(corpus, 10, seed=1), seed=1)
    html = stress_report(report)
    assert "<script" not in html and "<img" not in html
    for doc_id in report.injected:
        assert doc_id in html
    assert "95%" in html


def test_the_docs_folder_is_byte_identical_afterwards(plain_folder):
    before = tree_digest(plain_folder)
    corpus = load_folder(plain_folder)
    run_stress(corpus, generate_cases(corpus, 8, seed=2), seed=2)
    assert tree_digest(plain_folder) == before


def test_cancel_stops_between_cases(samples_report):
    import threading

    corpus, cases, _ = samples_report
    stop = threading.Event()
    stop.set()
    report = run_stress(corpus, cases, seed=7, cancel=stop)
    assert report.cancelled and not report.results


@pytest.mark.slow
def test_real_pdfs_split_tables_and_every_fix_beats_none(tmp_path, dev_set_parses):
    source = shared_folder("realpdfs")
    before = tree_digest(source)
    corpus = load_folder(source, cache=dev_set_parses)  # parsed once per run (conftest)
    cases = generate_cases(corpus, 30, seed=7)
    # One job: the suite already keeps every core busy, and two forked jobs each build the
    # clean corpus's lazy tables again (21 CPU-seconds against 15 in one).
    report = run_stress(corpus, cases, seed=7)
    for fault, (none, fix, total) in rates(report, "seed").items():
        assert total >= (3 if fault == "split-table" else 10), (fault, total)
        assert fix > none, (fault, none, fix, total)
    assert tree_digest(source) == before


@pytest.mark.slow
def test_the_repository_docs_as_an_unseen_plain_text_corpus(tmp_path):
    folder = tmp_path / "md"
    folder.mkdir()
    for path in (REPO / "docs").glob("*.md"):
        shutil.copy(path, folder / path.name)
    corpus = load_folder(folder)
    report = run_stress(corpus, generate_cases(corpus, 15, seed=7), seed=7)
    for fault, (none, fix, total) in rates(report, "seed").items():
        if not total:  # the docs hold few tables: split-table may have no case
            continue
        if fault == "ocr-doc":
            # OCR damage is real OCR's (issue 46), most of it not what the cautious OCR fix
            # inverts, and these docs are full of code-like tokens it refuses to touch: the
            # fix may repair none of it here, but never loses a case, and the report names
            # the damage left broken rather than hiding it.
            assert fix >= none, (fault, none, fix, total)
            if fix < total:
                assert any("ocr-doc" in line for line in report.unrepaired("seed"))
        else:
            assert fix > none, (fault, none, fix, total)


@pytest.mark.parametrize("where", ["plain", "samples"])
def test_a_patched_variant_index_ranks_exactly_as_a_fresh_index(plain_folder, where):
    from ragdash.checks.stress import _Corpus, _patched_index, configurations_for, variants

    corpus = load_folder(plain_folder if where == "plain" else SAMPLES)
    clean = _Corpus(corpus)
    for case in generate_cases(corpus, 8, seed=5):
        for fault in ("stale", "ocr-doc", "split-table"):
            for v in variants(clean, case, fault, seed=5, all_stale=True)[0]:
                patched, fresh = _patched_index(clean, v), CorpusIndex(v.corpus)
                for tables, unicode in ((False, False), (True, False), (False, True)):
                    assert patched.inverted(tables).families == fresh.inverted(tables).families
                    got_p = patched.inverted(tables, unicode).postings
                    want_p = fresh.inverted(tables, unicode).postings
                    assert got_p.vocabulary == want_p.vocabulary
                    assert got_p.offsets.tolist() == want_p.offsets.tolist()
                    assert got_p.passage_ids.tolist() == want_p.passage_ids.tolist()
                    for status in (False, True):  # OCR repairs judged again only where changed
                        ocr = Fixes(ocr=True, status=status)
                        got_r = patched.inverted(tables, unicode).view(status).repairs(ocr)
                        want_r = fresh.inverted(tables, unicode).view(status).repairs(ocr)
                        assert got_r.repairs == want_r.repairs
                        assert got_r.refused == want_r.refused
                        assert got_r.unsupported == want_r.unsupported
                for fixes in configurations_for(fault).values():
                    got = [
                        (r.doc_id, r.passage.text, r.score)
                        for r in patched.top(case.query, fixes, 3)
                    ]
                    want = [
                        (r.doc_id, r.passage.text, r.score) for r in fresh.top(case.query, fixes, 3)
                    ]
                    assert got == want, (case.name, fault, v.variant, fixes.label)


@pytest.mark.parametrize("seed", [3, 11])
def test_a_variants_bm25_statistics_equal_a_fresh_build(seed):
    """BM25 over a faulted corpus is put together from the clean corpus's token counts: the
    postings, term counts, lengths, OCR repairs and rankings equal a fresh build's."""
    from ragdash.checks.stress import _Corpus, _patched_index, _retriever_factory, variants
    from ragdash.retrieval.bm25 import Bm25Retriever
    from ragdash.retrieval.spec import RetrieverSpec

    corpus = load_folder(SAMPLES)
    clean = _Corpus(corpus)
    make = _retriever_factory(RetrieverSpec("bm25"))
    everything = Fixes(tables=True, status=True, ocr=True, fuzzy=True, recency=True,
                       versions=True)  # fmt: skip
    settings = [Fixes(), Fixes(ocr=True), Fixes(status=True), Fixes(unicode=True), everything]
    checked = 0
    for case in generate_cases(corpus, 6, seed=seed):
        for fault in ("stale", "ocr-doc", "split-table"):
            for v in variants(clean, case, fault, seed=seed, rate=0.5, all_stale=True)[0]:
                patched = make(_patched_index(clean, v))
                fresh = Bm25Retriever(CorpusIndex(v.corpus), RetrieverSpec("bm25"))
                for fixes in settings:
                    got, want = patched.bm25_index(fixes), fresh.bm25_index(fixes)
                    assert got.postings.vocabulary == want.postings.vocabulary
                    assert got.postings.passage_ids.tolist() == want.postings.passage_ids.tolist()
                    assert got.tf.tolist() == want.tf.tolist()
                    assert got.lengths.tolist() == want.lengths.tolist()
                    assert got.avg_length == want.avg_length
                    assert (got.repairs is None) == (want.repairs is None)
                    if got.repairs is not None:
                        assert got.repairs.repairs == want.repairs.repairs
                    assert got.families == want.families
                    ocr = replace(fixes, ocr=True)  # query repair's table over the vocabulary
                    got_q, want_q = got.lexicon.repairs(ocr), want.lexicon.repairs(ocr)
                    assert (got_q.repairs, got_q.refused, got_q.unsupported) == (
                        want_q.repairs, want_q.refused, want_q.unsupported)  # fmt: skip
                    ranked = [(r.doc_id, r.passage.text, r.score)
                              for r in patched.top(case.query, fixes, 5)]  # fmt: skip
                    assert ranked == [(r.doc_id, r.passage.text, r.score)
                                      for r in fresh.top(case.query, fixes, 5)]  # fmt: skip
                    checked += 1
    assert checked > 20


def test_documents_per_token_count_documents_whether_or_not_their_passages_are_together():
    from ragdash.retrieval.bm25 import _documents_per_token
    from ragdash.retrieval.inverted import build_postings

    passages = CorpusIndex(load_folder(SAMPLES)).passages()
    for pool in (list(passages), list(reversed(passages))[::2] + list(passages)[::3]):
        postings = build_postings(p.tokens for p in pool)
        want = {t: len({p.doc_id for p in pool if t in p.tokens}) for t in postings.vocabulary}
        got = dict(zip(postings.vocabulary, _documents_per_token(postings, pool).tolist(),
                       strict=True))  # fmt: skip
        assert got == want


def test_dense_stress_reads_the_clean_corpus_vectors_from_the_cache_and_embeds_only_changes(
    monkeypatch, tmp_path
):
    """Dense stress embeds the clean corpus once (into the vector cache, as a dense check
    does) and each variant's injected or damaged passages only; a second run reads the clean
    vectors back and embeds only what the faults changed."""
    import numpy as np

    import ragdash.retrieval.dense as dense
    from ragdash.retrieval.reindex import indexed_texts

    encoded: list[str] = []

    class Counting:
        identity, label = "counting-test-embedder-1", "counting"

        def encode(self, texts, progress=False):
            # hashed bag of words: lexical enough to answer cases clean (only cases a
            # retriever answers clean are stressed), and deterministic across processes
            encoded.extend(texts)
            vectors = np.full((len(texts), 256), 1e-3, np.float32)
            for i, t in enumerate(texts):
                for w in re.findall(r"\w+", t.lower()):
                    vectors[i, hashlib.sha256(w.encode()).digest()[0]] += 1
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    monkeypatch.setattr(dense, "make_embedder", lambda spec: Counting())
    monkeypatch.setenv("RAGDASH_CACHE_DIR", str(tmp_path))
    corpus = load_folder(SAMPLES)
    cases = generate_cases(corpus, 4, seed=7)
    clean = set(indexed_texts(CorpusIndex(corpus), Fixes())[1])
    run_stress(corpus, cases, seed=7, retrievers=("dense",))
    first = set(encoded)
    assert clean <= first and len(encoded) == len(first)  # each text embedded once
    encoded.clear()
    report = run_stress(corpus, cases, seed=7, retrievers=("dense",))
    # only texts the faults changed (an OCR-repaired text of an unchanged passage may
    # differ too: a variant's vocabulary decides the repairs)
    assert report.results and set(encoded) < first and not set(encoded) & clean
    assert list((tmp_path / "dense").glob("*.npy"))


def test_a_case_a_retriever_fails_clean_is_not_counted_against_a_fault(plain_folder):
    """Issue 46: a case the retriever cannot answer on the clean folder says nothing about a
    fault; each retriever's matrix counts only the cases it answers clean, and says how many."""
    from dataclasses import replace

    corpus = load_folder(plain_folder)
    good = generate_cases(corpus, 3, seed=7)
    # the evidence is in another document: no retriever answers this clean
    bad = replace(good[0], name="gen-bad", evidence=("Porto",))
    report = run_stress(corpus, [*good, bad], faults=("typo", "stale"), seed=7,
                        retrievers=("seed", "bm25"))  # fmt: skip
    for retriever in ("seed", "bm25"):
        assert report.clean_passed(retriever) <= len(good)
        assert not any(r.case == "gen-bad" for r in report.results if r.retriever == retriever)
        counted = {r.case for r in report.results if r.retriever == retriever}
        assert counted <= {c for r, c in report.clean if r == retriever}
    record = report.to_dict()["baseline"]["builtin"]
    assert record["cases"] == 4 and record["clean_passed"] == 3
    typo = record["faults"]["typo"]
    assert typo["clean"] == report.cell("typo", "none", "seed").total
    assert typo["faulted"] < typo["clean"] and typo["fixed"] > typo["faulted"]


@pytest.mark.parametrize("where", ["samples", "plain"])
def test_a_stale_copy_differs_from_its_original_only_in_a_few_values_in_their_format(
    where, plain_folder
):
    """Issue 46: an older version has the same text with a few values changed in their own
    format (``142,526`` stays ``999,999``-shaped) — never an unrelated word swapped in."""
    import re

    from ragdash.checks.stress import STALE_OTHER_VALUES

    corpus = load_folder(SAMPLES if where == "samples" else plain_folder)
    cases = generate_cases(corpus, 12, seed=5)
    changed_any = 0
    for case in cases:
        original = corpus.document(case.expected_id)
        for v in faulted_variant_all(corpus, case):
            stale = next(d for d in v.corpus.documents if d.doc_id == v.injected[0])
            a, b = original.text.split(), stale.text.split()
            assert len(a) == len(b), (case.name, v.variant)
            pairs = {(x, y) for x, y in zip(a, b, strict=True) if x != y}
            for x, y in pairs:
                assert re.sub(r"\d", "9", x) == re.sub(r"\d", "9", y), (x, y)
                assert re.search(r"\d", x), (x, y)  # only values change, never words
            values = {x for x, _ in pairs}
            evidence_values = sum(len(re.findall(r"\d+", e)) for e in case.evidence)
            assert len(values) <= evidence_values + STALE_OTHER_VALUES + 1, values
            changed_any += bool(pairs)
    assert changed_any


def test_a_stale_copy_leaves_codes_names_and_lists_that_hold_digits_alone():
    """Review of issue 46: a stale copy changed ``0,0001`` into ``0,2`` (a decimal comma lost
    its format), a chemical name's ``1,2,3-``, a man page section ``polkit(8)`` and bug
    numbers. Only amounts, years and dates change; each keeps its format."""
    import re

    from ragdash.checks.stress import _replace_values, _rng, _stale_values

    kept = ("0,0001", "1,2,3-trichloropropane", "polkit(8)", "#123456", "007")
    text = ("Dose 0,0001 mg of 1,2,3-trichloropropane; see polkit(8) and Closes: #123456 for "
            "agent 007. Served 142,526 people in 2019 over 30 days.")  # fmt: skip
    amounts = 0
    for n in range(30):
        changed = _stale_values(text, (), _rng(n, "stale"))
        out = _replace_values(text, changed)
        for k in kept:
            assert k in out, (n, changed)
        for old, new in changed.items():
            assert re.sub(r"\d", "9", old) == re.sub(r"\d", "9", new), (old, new)
        amounts += bool(changed)
    assert amounts  # the amounts, the year and the duration do change


def faulted_variant_all(corpus, case):
    from ragdash.checks.stress import variants

    found, _ = variants(corpus, case, "stale", seed=5, all_stale=True)
    return found


def test_ocr_damage_is_real_ocr_confusions_and_leaves_paths_codes_and_urls_alone():
    """Issue 46: OCR damage is not only the digit swaps the ocr fix inverts: rn/m, cl/d, li/h,
    split and merged words, lost accents; paths, URLs and codes stay as written."""
    from ragdash.checks.stress import OCR_CONFUSIONS, _rng, ocr_damage

    text = ("The modern children held the café tables; see lib/fribidi-bidi.c, "
            "https://example.org/handbook and x86_64 builds.")  # fmt: skip
    seen = set()
    for n in range(40):
        out = ocr_damage(text, set(), 1.0, _rng(n, "t"))
        for kept in ("lib/fribidi-bidi.c", "https://example.org/handbook", "x86_64"):
            assert kept in out
        if "rn" in out.replace("modern", "") or "cl" in out or "li" in out.replace("children", ""):
            seen.add("shapes")
        if "cafe" in out:
            seen.add("accents")
        if "heldthe" in out or "moderncl" in out or "modernchildren" in out:
            seen.add("merge")
        if any(ch.isdigit() for ch in out.replace("x86_64", "")):
            seen.add("digits")
        if len(out.split()) > len(text.split()):
            seen.add("split")
    assert seen == set(OCR_CONFUSIONS)


def test_the_report_shows_the_ocr_fix_on_damage_it_was_not_built_to_invert(samples_report):
    _, _, report = samples_report
    parts = report.by_variant("ocr-doc", "seed")
    assert "digits" in parts and {"shapes", "split"} & set(parts), parts
    record = report.to_dict()["baseline"]["builtin"]["faults"]["ocr-doc"]["variants"]
    assert record == parts
    digits = parts["digits"]
    assert digits["fixed"] == digits["clean"]  # the fix inverts what it was built for
    other = [v for k, v in parts.items() if k != "digits"]
    # what it was not built for it does not all repair, and the report says so in words
    if any(v["all"] < v["clean"] for v in other):
        assert any("ocr-doc" in line for line in report.unrepaired("seed"))


def test_no_document_gives_more_than_its_share_and_every_document_with_evidence_gets_cases(
    tmp_path,
):
    """Issue 46: generated cases spread over the documents (at most a tenth of the cases,
    or an even share, per document) instead of clustering in the few longest ones."""
    from collections import Counter

    from ragdash.checks.generate import per_document_cap

    for n in range(24):
        letters = "bcdfghjklmnpqrstvwxz"
        words = " ".join(f"{letters[n % 20]}{letters[(n * 7 + k) % 20]}arkon{'aeiou'[k]}"
                         for k in range(3))  # fmt: skip
        text = "\n\n".join(
            f"Section {k}. The {['harbour', 'orchard', 'quarry'][k % 3]} ledger for "
            f"{words} records {100 + 37 * n + k} crates shipped in {k + 2} days."
            for k in range(12 if n < 3 else 2)  # three long documents, twenty-one short
        )
        (tmp_path / f"doc{n:02d}.md").write_text(f"# Ledger {n}\n\n{text}\n", encoding="utf-8")
    corpus = load_folder(tmp_path)
    cases = generate_cases(corpus, 20, seed=3)
    per_doc = Counter(c.expected_id for c in cases)
    assert max(per_doc.values()) <= per_document_cap(20, len(corpus.documents)) == 2
    assert len(per_doc) >= 15, per_doc  # spread, not piled on the three long documents


def test_intervals_widen_when_cases_cluster_in_few_documents():
    from ragdash.checks.stress import StressCell

    spread = StressCell("typo", "none", "seed", 5, 10, tuple([(1, 1)] * 5 + [(0, 1)] * 5), 7)
    clustered = StressCell("typo", "none", "seed", 5, 10, ((5, 5), (0, 5)), 7)
    (a, b), (c, d) = spread.interval, clustered.interval
    assert d - c > b - a + 0.3
    assert clustered.interval == StressCell("typo", "none", "seed", 5, 10,
                                            ((5, 5), (0, 5)), 7).interval  # seeded  # fmt: skip


def test_a_git_diffstat_is_no_table_row():
    from ragdash.checks.generate import table_rows
    from ragdash.ingestion.documents import Document

    text = ("Changes in 2.1:\n\n src/ls.c      | 12 +++---\n src/cp.c      |  3 ++-\n"
            " doc/logo.png  | Bin 0 -> 1234 bytes\n 3 files changed\n\n"
            "| Plan | Storage |\n|---|---|\n| Basic | 10 Go |\n")  # fmt: skip
    doc = Document("news", "news", None, "current", "news.md", "text", (text,), 0)
    assert [r.cells for r in table_rows(doc)] == [("Basic", "10 Go")]


def test_an_http_service_and_a_python_factory_can_be_stressed(monkeypatch):
    """Issue 46: query faults reach any retriever (a real BM25 service on 127.0.0.1 here);
    corpus faults reach a Python factory, rebuilt once per faulted corpus; the http
    service's corpus faults are refused with the reason."""
    pytest.importorskip("bm25s")
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from bm25_service import running

    from ragdash.retrieval.spec import RetrieverSpec
    from ragdash.storage.passages_export import passage_records

    corpus = load_folder(SAMPLES)
    cases = generate_cases(corpus, 8, seed=7)
    records = list(passage_records(CorpusIndex(corpus), Fixes()))
    factory = RetrieverSpec("python", callable="team_stack:build", factory=True)
    with running(records) as service:
        http = RetrieverSpec("http", url=service.url + "/search")
        report = run_stress(corpus, cases, faults=("typo", "ocr-query", "stale"), seed=7,
                            retrievers=(http, factory))  # fmt: skip
    labels = dict(zip(("http", "factory"), report.retrievers, strict=True))
    for name, label in labels.items():
        assert report.clean_passed(label) >= 4, name
        typo = report.cell("typo", "none", label)
        assert typo.total >= 4 and typo.passed < typo.total, name
    # corpus faults: the factory is rebuilt over the stale corpus, the service is refused
    assert report.cell("stale", "none", labels["factory"]).total >= 4
    assert report.cell("stale", "none", labels["http"]).total == 0
    assert any("http service indexes its own copy" in why for _, _, why in report.skipped)
    assert any("rebuilt once per faulted corpus" in n for n in report.notes)


CASE_KEPT = '''
def search(query, k):
    """Case-sensitive, as LangChain's BM25Retriever with its default str.split preprocess."""
    from ragdash.bundled import SAMPLES
    from ragdash.ingestion.ingest import load_folder
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.settings import Fixes
    from ragdash.storage.passages_export import passage_records

    rows = [(r["doc_id"], r["text"], set(r["text"].split()))
            for r in passage_records(CorpusIndex(load_folder(SAMPLES)), Fixes())]
    words = query.split()
    scored = sorted(((sum(w in t for w in words), d, x) for d, x, t in rows), key=lambda s: -s[0])
    return [{"id": d, "text": x, "score": float(n)} for n, d, x in scored[:k] if n]
'''


def test_the_ocr_query_rewrite_sends_the_corpus_spelling_in_its_case(tmp_path, monkeypatch):
    """Issue 46: the plans PDF reads ``SS0``; the OCR fix sends the corpus's spelling, and a
    case-sensitive retriever only finds it as the corpus writes it (``SS0``, not ``ss0``)."""
    import json
    import sys

    from ragdash.case import Case
    from ragdash.checks.proof import judge
    from ragdash.retrieval.retrievers import make_retriever

    (tmp_path / "case_kept.py").write_text(CASE_KEPT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("case_kept", None)
    raw = json.loads((SAMPLES / "cases.json").read_text())["cases"]
    c = next(x for x in raw if x["name"] == "ocr-noise")
    case = Case(c["name"], c["query"], c["expected_id"], tuple(c["evidence"]), 1)
    retriever = make_retriever({"kind": "python", "callable": "case_kept:search"},
                               CorpusIndex(load_folder(SAMPLES)))  # fmt: skip
    for fixes in (Fixes(ocr=True), Fixes.all()):
        got = retriever.retrieve(case.query, fixes, 3)
        assert "SS0" in got.query_sent.split(), got.query_sent
        assert judge(case, list(got.ranked), fixes).passed


def test_generated_cases_are_questions_spread_over_text_and_pdf_documents(tmp_path):
    """Issues 43/46: a generated case reads as a question a user would ask (a template per
    kind of evidence, the distinctive words kept), and every document with evidence — text
    or PDF — gets cases, none more than its share."""
    from collections import Counter

    from ragdash.checks.generate import per_document_cap
    from ragdash.checks.pdfgen import text_pdf

    topics = {"harbour": "Rotterdam", "orchard": "Valencia", "quarry": "Carrara",
              "vineyard": "Bordeaux", "foundry": "Sheffield", "tannery": "Fez"}  # fmt: skip
    for n, (topic, town) in enumerate(topics.items()):
        lines = [f"The {topic} office in {town} ships {120 + 7 * n} crates every {n + 3} days.",
                 f"Each {topic} inspection in {town} takes {n + 2} hours on site.",
                 f"Insurance for the {topic} fleet costs {2000 + 150 * n} euros a year."]
        if n < 2:  # two PDFs, four text files
            page = [(72, 700 - 14 * i, 10, t) for i, t in enumerate(lines)]
            (tmp_path / f"{topic}.pdf").write_bytes(text_pdf([page]))
        else:
            (tmp_path / f"{topic}.md").write_text(f"# {topic.title()}\n\n" + "\n\n".join(lines),
                                                  encoding="utf-8")  # fmt: skip
    corpus = load_folder(tmp_path)
    assert {d.kind for d in corpus.documents} == {"text", "pdf"}
    cases = generate_cases(corpus, 12, seed=1)
    per_doc = Counter(c.expected_id for c in cases)
    assert set(per_doc) == {d.doc_id for d in corpus.documents}, per_doc
    assert max(per_doc.values()) <= per_document_cap(12, len(corpus.documents))
    for case in cases:
        assert case.query.endswith("?") and case.query.split()[0] in ("What", "How", "When")
    assert any(c.query.startswith("How many days for") for c in cases)
