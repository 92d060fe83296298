"""Cutting documents into passages, with the tables fix off and on."""

from __future__ import annotations

from collections import Counter

from conftest import make_corpus, make_document

from ragdash.ingestion.segmentation import (
    DEFAULT_MAX_PASSAGES,
    LONG_TEXT_CHARS,
    MAX_PASSAGES_ENV,
    MIN_PARAGRAPH_CHARS,
    cap_passages,
    corpus_passages,
    document_passages,
    max_passages,
    paragraphs,
    passage_count,
)
from ragdash.ingestion.tables import cells
from ragdash.text import tokenize

HEADER = "Plan | Storage | Monthly price"


def _paragraph(word: str, chars: int = 300) -> str:
    return " ".join([word] * (chars // (len(word) + 1)))


def _long_text() -> str:
    parts = ["# Heading"] + [_paragraph(w) for w in ("alpha", "bravo", "charlie", "delta", "echo")]
    text = "\n\n".join(parts)
    assert len(text) > LONG_TEXT_CHARS
    return text


def test_a_short_text_document_is_one_passage():
    text = "# Title\n\nFirst paragraph.\n\nSecond paragraph."
    [passage] = document_passages(make_document("doc", text))
    assert passage.kind == "document"
    assert passage.text == text
    assert (passage.page_start, passage.page_end, passage.position) == (1, 1, 0)


def test_a_text_document_at_the_length_limit_stays_whole():
    text = "x" * LONG_TEXT_CHARS
    assert len(document_passages(make_document("doc", text))) == 1


def test_a_long_text_document_is_split_into_paragraphs_and_loses_no_word():
    text = _long_text()
    passages = document_passages(make_document("doc", text))
    assert len(passages) == 5
    assert {p.kind for p in passages} == {"paragraph"}
    assert [p.position for p in passages] == list(range(5))
    joined = [t for p in passages for t in tokenize(p.text)]
    assert Counter(joined) == Counter(tokenize(text))


def test_a_heading_stays_with_the_paragraph_after_it():
    passages = document_passages(make_document("doc", _long_text()))
    assert passages[0].text.startswith("# Heading\n\nalpha")
    assert all(len(p.text) >= MIN_PARAGRAPH_CHARS for p in passages)


def test_paragraphs_merge_a_trailing_short_paragraph_into_the_previous_one():
    body = _paragraph("alpha", 200)
    assert paragraphs(f"{body}\n\nThe end.") == [f"{body}\n\nThe end."]


def test_paragraphs_ignore_extra_blank_lines():
    a, b = _paragraph("alpha", 100), _paragraph("bravo", 100)
    assert paragraphs(f"\n\n{a}\n\n \n\n\n{b}\n\n") == [a, b]


def test_an_empty_text_document_has_no_passages():
    assert document_passages(make_document("doc", "   \n\n ")) == []


def test_a_pdf_is_one_passage_per_page_at_baseline_and_skips_blank_pages():
    doc = make_document("manual", ["Page one text", "  ", "Page three text"])
    passages = document_passages(doc)
    assert [(p.page_start, p.page_end, p.kind) for p in passages] == [
        (1, 1, "page"),
        (3, 3, "page"),
    ]
    assert [p.label for p in passages] == ["manual p1 #1", "manual p3 #2"]


def test_a_pdf_without_tables_keeps_its_page_passages_with_the_tables_fix():
    doc = make_document("manual", ["Page one text", "Page two text"])
    passages = document_passages(doc, join_tables=True)
    assert passages == document_passages(doc, join_tables=False)


def test_the_tables_fix_joins_a_cut_table_into_one_passage_with_its_header():
    doc = make_document(
        "plans",
        [
            f"Our plans\n{HEADER}\nBasic |",
            "10 Go | 5 EUR\nPro | 100 Go | 15 EUR\nPrices exclude VAT.",
        ],
    )
    before = document_passages(doc)
    assert not any("Basic | 10 Go" in p.text for p in before)

    after = document_passages(doc, join_tables=True)
    tables = [p for p in after if p.kind == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.text.splitlines()[0] == HEADER
    assert ["Basic", "10 Go", "5 EUR"] in [cells(line) for line in table.text.splitlines()]
    assert table.label == "plans p1-2 #2"
    # the rest of each page stays a page passage; the table sits after the page it starts on
    assert [(p.kind, p.text) for p in after] == [
        ("page", "Our plans"),
        ("table", table.text),
        ("page", "Prices exclude VAT."),
    ]


def test_the_tables_fix_keeps_every_word_of_a_pdf():
    pages = [f"Our plans\n{HEADER}\nBasic |", "10 Go | 5 EUR\nPro | 100 Go | 15 EUR\nBye."]
    doc = make_document("plans", pages)
    words = Counter(t for p in document_passages(doc, join_tables=True) for t in tokenize(p.text))
    assert words == Counter(tokenize("\n".join(pages)))


def test_a_long_table_is_chunked_and_every_chunk_carries_the_header():
    rows = [f"Item {i} | {i} units | {i} EUR" for i in range(60)]
    pages = ["\n".join(["Item | Quantity | Price", *rows[:30]]), "\n".join(rows[30:])]
    doc = make_document("stock", pages)
    tables = [p for p in document_passages(doc, join_tables=True) if p.kind == "table"]
    assert len(tables) >= 3
    assert all(p.text.splitlines()[0] == "Item | Quantity | Price" for p in tables)
    body = [line for p in tables for line in p.text.splitlines()[1:]]
    assert body == rows


def test_the_tables_fix_does_not_change_text_documents():
    doc = make_document("note", f"A note\n{HEADER}\nBasic | 10 Go | 5 EUR")
    assert document_passages(doc) == document_passages(doc, join_tables=True)


def test_corpus_passages_follow_list_order_and_carry_document_metadata():
    corpus = make_corpus(
        make_document("b", "bravo text", updated="2024-01-01", status="withdrawn"),
        make_document("a", ["alpha page"], updated=None),
    )
    passages = corpus_passages(corpus)
    assert [(p.doc_id, p.order) for p in passages] == [("b", 0), ("a", 1)]
    assert passages[0].status == "withdrawn"
    assert str(passages[0].updated) == "2024-01-01"
    assert passages[1].updated is None


def test_passage_count_is_the_number_of_passages_with_the_tables_fix_off(sample_corpus):
    docs = [
        *sample_corpus.documents,
        make_document("long", _long_text()),
        make_document("paged", ["page one", "", "page three"]),
    ]
    for doc in docs:
        assert passage_count(doc) == len(document_passages(doc, join_tables=False)), doc.doc_id


def test_documents_past_the_passage_limit_are_left_out_with_a_message():
    corpus = make_corpus(
        make_document("a", "alpha"),
        make_document("b", ["one", "two", "three"]),
        make_document("c", "charlie"),
    )
    capped = cap_passages(corpus, limit=2)
    # "b" (3 passages) does not fit after "a"; "c" still does: list order decides, nothing else.
    assert capped.doc_ids == ("a", "c")
    assert [d.order for d in capped.documents] == [0, 1]
    [message] = capped.messages
    assert message.level == "error" and message.source == "b.pdf"
    assert "3 passage(s)" in message.message and "limit of 2 passages" in message.message
    assert MAX_PASSAGES_ENV in message.message
    assert cap_passages(corpus, limit=5) is corpus  # within the limit: untouched


def test_the_passage_limit_comes_from_the_environment_when_it_is_a_positive_number():
    assert max_passages({}) == DEFAULT_MAX_PASSAGES
    assert max_passages({MAX_PASSAGES_ENV: "50"}) == 50
    for bad in ("0", "-3", "lots", ""):
        assert max_passages({MAX_PASSAGES_ENV: bad}) == DEFAULT_MAX_PASSAGES
