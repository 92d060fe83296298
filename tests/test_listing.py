"""Large folders on the Documents page (the real app under AppTest): a metadata.csv of
100,000 rows naming missing files draws a table of message kinds and ten alerts, not 100,000
alerts, and every message is downloadable; 10,000 documents are listed 25 to a page, with a
filter, instead of 10,000 expanders. (Times are measured in the report, not asserted here.)"""

from __future__ import annotations

import csv

import pytest

from ragdash.ingestion.documents import IngestMessage
from ragdash.ui.listing import (
    DOCUMENTS_PER_PAGE,
    MESSAGES_SHOWN,
    group_messages,
    messages_csv,
)

DOCUMENTS = "ragdash/ui/pages/documents.py"
ROWS = 100_000
FILES = 10_000


def open_documents(app, monkeypatch, docs):
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def huge_metadata(tmp_path_factory):
    docs = tmp_path_factory.mktemp("meta")
    (docs / "present.md").write_text("A note about apples.\n", encoding="utf-8")
    with open(docs / "metadata.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", "id"])
        writer.writerows([f"missing-{i}.md", f"id-{i}"] for i in range(ROWS))
    return docs


@pytest.fixture(scope="module")
def many_documents(tmp_path_factory):
    docs = tmp_path_factory.mktemp("many")
    for i in range(FILES):
        (docs / f"note-{i:05d}.md").write_text(f"Note {i} about gadget g{i}.\n", encoding="utf-8")
    return docs


def test_a_metadata_csv_of_100000_missing_files_draws_ten_alerts_and_a_count(
    app, monkeypatch, huge_metadata
):
    at = open_documents(app, monkeypatch, huge_metadata)
    assert len(at.warning) + len(at.error) <= MESSAGES_SHOWN + 2  # + the page's own notices
    title = next(e.label for e in at.expander if e.label.startswith("Ingestion messages"))
    assert f"({ROWS + 1:,}: 0 errors" in title  # + present.md's "no updated date" warning
    groups = [df for df in (d.value for d in at.dataframe) if "count" in df.columns]
    assert groups and groups[0]["count"].sum() == ROWS + 1
    assert groups[0]["count"].max() == ROWS  # one kind: "lists '…', no such file"
    assert any(f"{ROWS + 1 - MESSAGES_SHOWN:,} more" in c.value for c in at.caption)
    downloads = [e for e in at.get("download_button") if "messages" in e.proto.label]
    assert downloads, "every message can be downloaded"


def test_10000_documents_are_listed_a_page_at_a_time_with_a_filter(
    app, monkeypatch, many_documents
):
    at = open_documents(app, monkeypatch, many_documents)
    documents = [e for e in at.expander if e.label.startswith("note")]
    assert len(documents) == DOCUMENTS_PER_PAGE
    assert documents[0].label.startswith("note\\-00000")
    page = next(n for n in at.number_input if n.label.startswith("Page"))
    assert page.label == "Page (of 400)"
    assert any(f"1–{DOCUMENTS_PER_PAGE} of 10,000" in c.value for c in at.caption)
    # the whole list stays in the table above (one element, however long)
    assert any(len(d.value) == FILES for d in at.dataframe)

    page.set_value(2).run()
    documents = [e for e in at.expander if e.label.startswith("note")]
    assert documents[0].label.startswith("note\\-00025")

    at.text_input(key="docs_find").input("note-09999").run()
    documents = [e for e in at.expander if e.label.startswith("note")]
    assert [d.label.split(" ")[0] for d in documents] == ["note\\-09999"]
    assert not at.exception


def test_messages_are_grouped_by_what_they_say():
    messages = [
        IngestMessage("metadata.csv", "warning", f"row {i} repeats file 'a{i}.md'; ignored")
        for i in range(5)
    ] + [IngestMessage("b.pdf", "error", "unreadable: broken xref")]
    groups = group_messages(messages)
    assert [(g.level, g.count) for g in groups] == [("error", 1), ("warning", 5)]
    assert groups[1].kind == "row N repeats file '…'; ignored"
    assert messages_csv(messages).count("\n") == 7  # header + 6 rows


def test_many_stale_version_pairs_draw_ten_warnings_and_a_table(app, monkeypatch, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    topics = ["apples", "boats", "cables", "drills", "eggs", "ferns", "gears", "hats",
              "inks", "jars", "kites", "lamps", "maps", "nets", "oars"]  # fmt: skip
    for topic in topics:
        for year, days in (("2024", 60), ("2025", 30)):
            (docs / f"{topic}-{year}.md").write_text(
                f"---\nsubject: {topic} return policy\nupdated: {year}-01-01\n---\n"
                f"Return {topic} within {days} days of delivery for a full refund.\n",
                encoding="utf-8",
            )
    at = open_documents(app, monkeypatch, docs)
    pair_warnings = [w for w in at.warning if "older version" in w.value or "version" in w.value]
    tables = [d.value for d in at.dataframe if "pair" in d.value.columns]
    assert tables and len(tables[0]) >= MESSAGES_SHOWN + 1, "every pair is in the table"
    assert len(pair_warnings) <= MESSAGES_SHOWN
