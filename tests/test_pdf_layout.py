"""Table detection on real PDFs: ruled, column-aligned and pipe text tables over page breaks,
joined by the tables fix into whole rows under their header, with the baseline untouched."""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pdfplumber
import pytest
from pdf_factory import (
    inventory_rows,
    prose,
    table_pdf,
    text_pages_pdf,
    two_tables_pdf,
)
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph

from ragdash.checks.faults import ocr_noise_document
from ragdash.ingestion.documents import Corpus, Document, Passage
from ragdash.ingestion.ingest import read_pdf
from ragdash.ingestion.joins import Row
from ragdash.ingestion.segmentation import PASSAGE_MAX_CHARS, document_passages, document_tables
from ragdash.ingestion.tables import cells, is_table_line
from ragdash.text import tokenize

FIXTURES = Path(__file__).parent / "fixtures"


def as_document(data: bytes) -> Document:
    pdf = read_pdf(data)
    return Document(
        "doc", "doc", None, "current", "doc.pdf", "pdf", pdf.pages, 0, pdf.table_pages, pdf.layouts
    )


def plain_pages(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [page.extract_text() or "" for page in pdf.pages]


def tables(passages: list[Passage]) -> list[Passage]:
    return [p for p in passages if p.kind == "table"]


def data_rows(passages: list[Passage]) -> list[str]:
    """Every data row of the table passages (each passage's first line is its header)."""
    return [line for p in tables(passages) for line in p.text.splitlines()[1:]]


def key_of(row: str) -> str:
    """The first cell of a row: before the first ``|``, or (a row as the page's text gives
    it) its first word."""
    return cells(row)[0] if "|" in row else (row.split() or [""])[0]


def row_of(passages: list[Passage], key: str) -> list[str]:
    return [row for row in data_rows(passages) if key_of(row) == key]


def joined_rows(data: bytes) -> list[Row]:
    """The data rows of every table as the tables fix joins them (cells, not text)."""
    tables, _ = document_tables(as_document(data))
    return [row for table in tables for row in table.rows]


@pytest.fixture(scope="module")
def long_ruled() -> bytes:
    return table_pdf(inventory_rows(90), ruled=True, before=prose(3), after=prose(3, "billing"))


@pytest.fixture(scope="module")
def long_aligned() -> bytes:
    return table_pdf(inventory_rows(90), ruled=False, before=prose(3), after=prose(3, "billing"))


#: A one-line row (ruled or not) reads as the page's own text line in a passage.
HEADERS = {
    "long_ruled": "Item code Product Warehouse Quantity",
    "long_aligned": "Item code Product Warehouse Quantity",
}


@pytest.mark.parametrize("kind", ["long_ruled", "long_aligned"])
def test_table_over_three_pages_joins_into_whole_rows_under_its_header(kind, request):
    data = request.getfixturevalue(kind)
    passages = document_passages(as_document(data), join_tables=True)
    table_passages = tables(passages)
    assert table_passages[0].page_start == 1 and table_passages[-1].page_end >= 3
    assert all(p.text.splitlines()[0] == HEADERS[kind] for p in table_passages)
    rows = data_rows(passages)
    # Every item exactly once (the repeated header is not data), each row with its 4 cells.
    assert [key_of(r) for r in rows] == [f"SKU-{i:04d}" for i in range(1, 91)]
    assert all(len(r.cells) == 4 for r in joined_rows(data))
    assert row_of(passages, "SKU-0042") == ["SKU-0042 Widget model 42 Gdansk 294"]


@pytest.mark.parametrize("kind", ["long_ruled", "long_aligned"])
def test_baseline_is_exactly_pdfplumber_text_one_passage_per_page(kind, request):
    data = request.getfixturevalue(kind)
    passages = document_passages(as_document(data), join_tables=False)
    expected = [text.strip() for text in plain_pages(data)]
    assert [p.text for p in passages] == expected
    assert [p.kind for p in passages] == ["page"] * len(expected)


@pytest.mark.parametrize("ruled", [True, False])
def test_table_without_repeated_header_still_joins(ruled):
    data = table_pdf(inventory_rows(70), ruled=ruled, before=prose(2), repeat_header=False)
    passages = document_passages(as_document(data), join_tables=True)
    assert [key_of(r) for r in data_rows(passages)] == [f"SKU-{i:04d}" for i in range(1, 71)]
    assert {p.text.splitlines()[0] for p in tables(passages)} == {
        HEADERS["long_ruled" if ruled else "long_aligned"]
    }


def test_aligned_row_whose_cell_is_cut_by_the_page_break_is_glued_back():
    rows = inventory_rows(40)
    note = " ".join(f"part{n} of the long note" for n in range(40))
    rows[27][1] = Paragraph(note, getSampleStyleSheet()["Normal"])
    data = table_pdf(
        rows,
        ruled=False,
        before=prose(3),
        repeat_header=False,
        split_in_row=True,
        col_widths=[70, 250, 80, 60],
    )
    pages = plain_pages(data)
    assert "part0 " in pages[0] and "part39" in pages[1]  # the break really cuts the cell
    (row,) = [r for r in joined_rows(data) if r.cells[0] == "SKU-0027"]
    assert row.cells == ("SKU-0027", note, "Gdansk", "189") and row.pages == (1, 2)
    passages = document_passages(as_document(data), join_tables=True)
    # the passage reads the row as the pages' text lines, both halves in one chunk
    (table,) = [p for p in tables(passages) if "part0 of the long note" in p.text]
    assert "part39 of the long note" in table.text and (table.page_start, table.page_end) == (1, 2)
    assert row_of(passages, "SKU-0028") == ["SKU-0028 Widget model 28 Leeds 196"]


def test_text_table_cut_inside_a_row_over_three_pages():
    data = text_pages_pdf(
        [
            ["Price list", "", "Plan | Storage | Monthly price", "Basic |"],
            ["10 Go | 5 EUR", "Pro | 100 Go | 15 EUR", "Team | 500"],
            ["Go | 40 EUR", "Enterprise | 1 To | on request"],
        ]
    )
    passages = document_passages(as_document(data), join_tables=True)
    (table,) = tables(passages)
    assert (table.page_start, table.page_end) == (1, 3)
    assert table.text.splitlines() == [
        "Plan | Storage | Monthly price",
        "Basic | 10 Go | 5 EUR",
        "Pro | 100 Go | 15 EUR",
        "Team | 500 Go | 40 EUR",
        "Enterprise | 1 To | on request",
    ]


@pytest.mark.parametrize("ruled", [True, False])
def test_prose_after_a_table_on_the_next_page_is_not_swallowed(ruled):
    # 31 rows fill page 1 exactly; the prose starts page 2.
    data = table_pdf(inventory_rows(60), ruled=ruled, after=prose(4, "billing"))
    passages = document_passages(as_document(data), join_tables=True)
    assert all("billing" not in p.text for p in tables(passages))
    (closing,) = [p for p in passages if "billing" in p.text]
    assert closing.kind == "page"
    assert tokenize(closing.text) == tokenize(prose(4, "billing"))


@pytest.mark.parametrize("ruled", [True, False])
def test_two_tables_on_one_page_stay_two_tables(ruled):
    carriers = [["Carrier", "Phone"], ["Norlys", "555-0100"], ["Vexa Freight", "555-0199"]]
    data = two_tables_pdf(inventory_rows(5), carriers, ruled=ruled)
    found, decisions = document_tables(as_document(data))
    assert [[r.cells[0] for r in t.rows] for t in found] == [
        [f"SKU-{i:04d}" for i in range(1, 6)],
        ["Norlys", "Vexa Freight"],
    ]
    assert [d.joined for d in decisions] == [False]
    # tables within one page stay in their page's passage, exactly as without the fix
    passages = document_passages(as_document(data), join_tables=True)
    assert passages == document_passages(as_document(data), join_tables=False)


def test_libreoffice_ruled_table_over_five_pages_with_a_row_cut_by_the_break():
    data = (FIXTURES / "lo_long_ruled.pdf").read_bytes()
    passages = document_passages(as_document(data), join_tables=True)
    rows = data_rows(passages)
    # a ruled row of several lines reads as its cells, then its page lines (same key)
    keys = [key_of(r) for r in rows if key_of(r).startswith("ART-")]
    keys = [k for n, k in enumerate(keys) if n == 0 or k != keys[n - 1]]
    assert keys == [f"ART-{i:04d}" for i in range(1, 121)]
    # the tall row cut by the break: one row, its cells merged, read as pdfplumber's cells
    tall = row_of(passages, "ART-0038")[0]
    assert "|" in tall
    assert "note line 1 about" in tall and "note line 12 about" in tall
    assert cells(tall)[2:] == ["Leeds", "418"]
    assert all(p.page_end <= 5 and len(p.text) <= PASSAGE_MAX_CHARS for p in passages)
    closing = [p for p in passages if "Closing notes" in p.text]
    assert [p.kind for p in closing] == ["page"] and "ART-" not in closing[0].text


def test_libreoffice_borderless_tables_two_on_a_page_and_prose_on_the_next_page():
    data = (FIXTURES / "lo_unruled_two_tables.pdf").read_bytes()
    found, _ = document_tables(as_document(data))
    assert [t.header_text for t in found] == [
        "Carrier | Phone | Depot",
        "Supplier | Country",
        "Item code | Product | Warehouse | Quantity",
    ]
    assert [(t.page_start, t.page_end) for t in found] == [(1, 1), (1, 1), (1, 4)]
    stock = [r.cells[0] for r in found[2].rows if r.cells[0].startswith("ART-")]
    assert stock == [f"ART-{i:04d}" for i in range(1, 76)]
    passages = document_passages(as_document(data), join_tables=True)
    audit = [p for p in passages if "Audit" in p.text]
    assert [p.kind for p in audit] == ["page"] and audit[0].page_start == 5


@pytest.mark.parametrize(
    "name", ["long_ruled", "long_aligned", "lo_long_ruled.pdf", "lo_unruled_two_tables.pdf"]
)
def test_structured_pages_keep_every_word_of_the_text_layer(name, request):
    data = (
        (FIXTURES / name).read_bytes() if name.endswith(".pdf") else request.getfixturevalue(name)
    )
    doc = as_document(data)
    assert doc.table_pages is not None
    for laid, plain in zip(doc.table_pages, doc.pages, strict=True):
        assert Counter(tokenize(laid)) == Counter(tokenize(plain))
    assert any(is_table_line(line) for line in doc.table_pages[0].splitlines())


def test_page_without_tables_keeps_its_text_exactly():
    data = text_pages_pdf([["A short memo about", "returns and restocking."]])
    doc = as_document(data)
    assert doc.table_pages == tuple(plain_pages(data))


def test_a_changed_page_is_not_shadowed_by_its_old_layout(long_ruled):
    doc = as_document(long_ruled)
    corpus = ocr_noise_document(Corpus((doc,)), "doc", rate=0.5, seed=3)
    noisy = corpus.documents[0]
    assert noisy.pages != doc.pages and noisy.table_pages == doc.table_pages
    fixed = " ".join(p.text for p in document_passages(noisy, join_tables=True))
    assert Counter(tokenize(fixed)) == Counter(tokenize(" ".join(noisy.pages)))


def test_edit_that_drops_the_layout_falls_back_to_the_text_join(long_ruled):
    doc = replace(as_document(long_ruled), table_pages=None, layouts=None)
    passages = document_passages(doc, join_tables=True)
    assert not tables(passages)  # no pipes in the text layer: nothing to join
    assert len(passages) >= len(doc.pages)


def test_a_ruled_row_of_sentences_under_the_header_is_data_though_it_holds_no_figure():
    """An action plan's grid: a header row of names, then rows of sentences and list items,
    the first with no figure in it (its year reads "En continu"). Counted as a second
    header row, it made the header repeated on the next page look new, and the table was
    not joined there; a header cell is a name, not a sentence or a list item."""
    from ragdash.ingestion.pdf_layout import ruled_region

    raw = [
        ["Axes", "Actions", "Échéancier", "Responsables"],
        ["Suivi Dont les éléments s'enchaînent pour former un tout, sur une période prolongée.",
         "• Planifier à court, moyen et long terme le transport actif.", "En continu",
         "Responsable du transport actif"],
        ["", "• Définir des cibles précises.", "2021", "Comité de TA"],
    ]  # fmt: skip
    boxes = [(10, 10 + 30 * n, 400, 40 + 30 * n) for n in range(3)]
    region = ruled_region((10, 10, 400, 100), raw, boxes, [])
    assert region is not None and region.header_rows == 1
    names = [["Région", "Année"], ["Nord Est", "Population"], ["Ouest", "12"], ["Sud", "14"]]
    boxes = [(10, 10 + 30 * n, 400, 40 + 30 * n) for n in range(4)]
    region = ruled_region((10, 10, 400, 130), names, boxes, [])
    assert region is not None and region.header_rows == 2  # a header of two rows of names
