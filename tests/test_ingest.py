"""Loading a docs folder: front matter, metadata.csv, PDFs and every kind of bad input."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest
from conftest import doc_text, make_pdf
from reportlab.lib import pdfencrypt

from ragdash.ingestion.ingest import (
    IngestError,
    decode_text,
    load_document,
    load_folder,
    read_pdf,
    split_front_matter,
)

GOOD = {"good.md": doc_text("The good document about widgets.", id="good")}


def _messages_for(corpus, source):
    return [m for m in corpus.messages if m.source == source]


def _only_message(corpus, source, level):
    found = _messages_for(corpus, source)
    assert len(found) == 1, corpus.messages
    assert found[0].level == level
    return found[0].message


def test_front_matter_sets_id_subject_date_and_status(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "a.md": doc_text(
                "Body text.",
                id="policy",
                subject="Return policy",
                updated="2026-01-05",
                status="withdrawn",
            )
        },
    )
    corpus = load_folder(folder)
    [doc] = corpus.documents
    assert (doc.doc_id, doc.subject, doc.updated, doc.status) == (
        "policy",
        "Return policy",
        date(2026, 1, 5),
        "withdrawn",
    )
    assert doc.kind == "text"
    assert doc.text.strip() == "Body text."
    assert corpus.messages == ()


def test_defaults_id_from_stem_undated_oldest_with_a_warning(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"release-notes.txt": "Plain text, no front matter."})
    corpus = load_folder(folder)
    [doc] = corpus.documents
    assert doc.doc_id == "release-notes"
    assert doc.subject == "release-notes"
    assert doc.updated is None
    assert doc.status == "current"
    assert "no 'updated' date" in _only_message(corpus, "release-notes.txt", "warning")


def test_only_txt_md_and_pdf_files_are_loaded(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "a.txt": doc_text("text"),
            "b.md": doc_text("markdown"),
            "c.pdf": [["pdf text"]],
            "d.docx": b"PK\x03\x04 not a doc we read",
            "e.json": "{}",
            "notes.csv": "x,y\n1,2\n",
        },
    )
    (folder / "sub.md").mkdir()
    corpus = load_folder(folder)
    assert sorted(corpus.doc_ids) == ["a", "b", "c"]
    assert {m.source for m in corpus.messages} <= {"c.pdf"}  # only "no date" for the PDF


def test_list_order_is_metadata_rows_then_remaining_files_by_name(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "zeta.md": doc_text("z"),
            "alpha.md": doc_text("a"),
            "mid.md": doc_text("m"),
            "beta.md": doc_text("b"),
            "metadata.csv": "file\nmid.md\nzeta.md\n",
        },
    )
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("mid", "zeta", "alpha", "beta")
    assert [d.order for d in corpus.documents] == [0, 1, 2, 3]


def test_metadata_csv_overrides_front_matter(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "a.md": doc_text("text", id="front", subject="Front", updated="2020-01-01"),
            "metadata.csv": "file,id,status,updated\na.md,csv-id,withdrawn,2026-02-03\n",
        },
    )
    [doc] = load_folder(folder).documents
    assert (doc.doc_id, doc.status, doc.updated, doc.subject) == (
        "csv-id",
        "withdrawn",
        date(2026, 2, 3),
        "Front",
    )


def test_metadata_csv_blank_cells_keep_front_matter(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {"a.md": doc_text("text", id="front"), "metadata.csv": "file,id,subject\na.md,,\n"},
    )
    assert load_folder(folder).doc_ids == ("front",)


def test_metadata_csv_gives_pdfs_their_metadata(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "plans.pdf": [["Subscription plans"]],
            "metadata.csv": "file,id,subject,updated\nplans.pdf,plans-2025,Plans,2025-06-16\n",
        },
    )
    [doc] = load_folder(folder).documents
    assert (doc.doc_id, doc.subject, doc.updated, doc.kind) == (
        "plans-2025",
        "Plans",
        date(2025, 6, 16),
        "pdf",
    )


def test_metadata_csv_problems_are_reported_and_loading_continues(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            **GOOD,
            "metadata.csv": "file,id\nghost.md,ghost\ngood.md,first\ngood.md,again\n,x\n",
        },
    )
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("first",)
    text = " ".join(m.message for m in _messages_for(corpus, "metadata.csv"))
    assert "'ghost.md', no such file" in text
    assert "repeats file 'good.md'" in text
    assert "has no file" in text


def test_metadata_csv_without_a_file_column_is_ignored_with_an_error(tmp_path, make_docs):
    folder = make_docs(tmp_path, {**GOOD, "metadata.csv": "name,id\ngood.md,other\n"})
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("good",)
    assert "no 'file' column" in _only_message(corpus, "metadata.csv", "error")


def test_a_pdf_is_loaded_page_by_page(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"guide.pdf": [["Page one", "second line"], ["Page two"]]})
    [doc] = load_folder(folder).documents
    assert doc.kind == "pdf"
    assert len(doc.pages) == 2
    assert "Page one" in doc.pages[0] and "second line" in doc.pages[0]
    assert "Page two" in doc.pages[1]


def test_a_pdf_with_one_blank_page_loads_with_a_warning_naming_the_page(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"guide.pdf": [["Page one"], [], ["Page three"]]})
    corpus = load_folder(folder)
    assert len(corpus.documents[0].pages) == 3
    message = " ".join(m.message for m in _messages_for(corpus, "guide.pdf"))
    assert "page(s) 2 have no text layer" in message


def test_duplicate_ids_skip_the_second_file_naming_both(tmp_path, make_docs):
    folder = make_docs(
        tmp_path,
        {
            "a.md": doc_text("first copy", id="policy"),
            "b.md": doc_text("second copy", id="policy"),
            "c.md": doc_text("other", id="other"),
        },
    )
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("policy", "other")
    assert "first copy" in corpus.document("policy").text
    message = _only_message(corpus, "b.md", "error")
    assert "duplicate id 'policy'" in message
    assert "a.md" in message


def _bad_input_cases(tmp_path):
    valid_pdf = make_pdf(tmp_path / "valid.pdf", [["Some real text"], ["More text"]]).read_bytes()
    return {
        "encrypted": (
            "locked.pdf",
            make_pdf(tmp_path / "enc.pdf", [["Secret text"]], encrypt="secret").read_bytes(),
            "error",
            "encrypted with a password",
        ),
        "truncated": ("cut.pdf", valid_pdf[: len(valid_pdf) // 2], "error", "corrupt or truncated"),
        "zero-byte": ("empty.pdf", b"", "error", "empty (0 bytes)"),
        "image-only": (
            "scan.pdf",
            make_pdf(tmp_path / "img.pdf", [["x"], ["y"]], image_only=True).read_bytes(),
            "error",
            "no text layer",
        ),
        "not-a-pdf": ("fake.pdf", b"<html>hello</html>", "error", "not a PDF"),
        "empty-text": ("empty.txt", b"", "error", "is empty"),
        "blank-text": ("blank.md", b"  \n\n\t\n", "error", "is empty"),
        "front-matter-only": (
            "meta.md",
            b"---\nid: meta\n---\n\n",
            "error",
            "front matter but no text",
        ),
        "unterminated-front-matter": (
            "open.md",
            b"---\nid: open\nbody without closing\n",
            "error",
            "never closed",
        ),
        "bad-front-matter-line": (
            "odd.md",
            b"---\nid: odd\njust words\n---\nbody\n",
            "error",
            "not 'key: value'",
        ),
        "bad-date": (
            "dated.md",
            doc_text("body text", id="dated", updated="05/01/2026").encode(),
            "warning",
            "'05/01/2026' is not an ISO date",
        ),
        "unknown-status": (
            "status.md",
            doc_text("body text", id="status", status="archived").encode(),
            "warning",
            "status 'archived' is not one of current, withdrawn",
        ),
        "non-utf8": (
            "legacy.txt",
            "---\nupdated: 2025-01-01\n---\nCafé naïve – 10 €\n".encode("cp1252"),
            "warning",
            "not valid UTF-8",
        ),
    }


BAD_INPUTS = [
    "encrypted",
    "truncated",
    "zero-byte",
    "image-only",
    "not-a-pdf",
    "empty-text",
    "blank-text",
    "front-matter-only",
    "unterminated-front-matter",
    "bad-front-matter-line",
    "bad-date",
    "unknown-status",
    "non-utf8",
]


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_gives_a_clear_message_and_the_other_files_still_load(tmp_path, make_docs, case):
    name, data, level, fragment = _bad_input_cases(tmp_path)[case]
    folder = make_docs(tmp_path, {**GOOD, "other.pdf": [["Other pdf text"]], name: data})
    corpus = load_folder(folder)
    assert {"good", "other"} <= set(corpus.doc_ids)
    message = _only_message(corpus, name, level)
    assert fragment in message
    stem = name.rsplit(".", 1)[0]
    if level == "error":
        assert "file skipped" in message
        assert stem not in corpus.doc_ids
    else:
        assert stem in corpus.doc_ids


def test_a_bad_date_leaves_the_document_undated(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"a.md": doc_text("body", id="a", updated="2026-13-40")})
    assert load_folder(folder).document("a").updated is None


def test_an_unknown_status_is_treated_as_current(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"a.md": doc_text("body", id="a", status="Archived")})
    assert load_folder(folder).document("a").status == "current"


def test_status_is_case_insensitive(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"a.md": doc_text("body", id="a", status="Withdrawn")})
    assert load_folder(folder).document("a").status == "withdrawn"


def test_non_utf8_text_is_loaded_with_its_accents_preserved(tmp_path, make_docs):
    data = "---\nid: legacy\nupdated: 2025-01-01\n---\nCafé naïve – 10 €\n".encode("cp1252")
    corpus = load_folder(make_docs(tmp_path, {"legacy.txt": data}))
    doc = corpus.document("legacy")
    assert "Café naïve – 10 €" in doc.text
    message = _only_message(corpus, "legacy.txt", "warning")
    assert "Windows-1252" in message
    assert "0xe9" in message  # names the offending byte


def test_utf8_bom_and_utf16_text_decode_without_warnings():
    assert decode_text("\ufeffhello".encode()) == ("hello", None)
    assert decode_text("héllo".encode("utf-16")) == ("héllo", None)


def test_front_matter_is_optional_and_comments_are_skipped():
    assert split_front_matter("no front matter") == ({}, "no front matter")
    meta, body = split_front_matter("---\n# a comment\nID: 'x'\n\n---\nbody")
    assert meta == {"id": "x"}
    assert body == "body"


def test_read_pdf_refuses_more_pages_than_the_limit(tmp_path):
    data = make_pdf(tmp_path / "long.pdf", [["one"], ["two"], ["three"]]).read_bytes()
    with pytest.raises(IngestError, match="3 pages; the limit is 2"):
        read_pdf(data, max_pages=2)
    assert len(read_pdf(data, max_pages=3).pages) == 3


def test_load_folder_respects_max_pages_per_file(tmp_path, make_docs):
    folder = make_docs(tmp_path, {**GOOD, "long.pdf": [["one"], ["two"], ["three"]]})
    corpus = load_folder(folder, max_pages=2)
    assert corpus.doc_ids == ("good",)
    assert "the limit is 2" in _only_message(corpus, "long.pdf", "error")


def test_a_file_that_vanished_cannot_be_read(tmp_path):
    with pytest.raises(IngestError, match="cannot be read"):
        load_document(tmp_path / "gone.md", {}, 0)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_an_unreadable_file_is_skipped_with_a_message(tmp_path, make_docs):
    folder = make_docs(tmp_path, {**GOOD, "secret.md": doc_text("hidden")})
    (folder / "secret.md").chmod(0)
    try:
        corpus = load_folder(folder)
    finally:
        (folder / "secret.md").chmod(0o644)
    assert corpus.doc_ids == ("good",)
    assert "cannot be read" in _only_message(corpus, "secret.md", "error")


def test_a_file_that_cannot_be_read_is_skipped_with_a_message(tmp_path, make_docs, monkeypatch):
    # Works as root too: reading this one file fails the way a permission problem does.
    folder = make_docs(tmp_path, {**GOOD, "secret.md": doc_text("hidden")})
    real_read = Path.read_bytes

    def read_bytes(self):
        if self.name == "secret.md":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("good",)
    message = _only_message(corpus, "secret.md", "error")
    assert "cannot be read (Permission denied)" in message


def test_a_pdf_with_a_user_password_from_a_standard_encryption_is_refused(tmp_path, make_docs):
    locked = make_pdf(
        tmp_path / "locked.pdf",
        [["Secret"]],
        encrypt=pdfencrypt.StandardEncryption("user", ownerPassword="owner"),
    )
    folder = make_docs(tmp_path, {**GOOD, "locked.pdf": locked.read_bytes()})
    corpus = load_folder(folder)
    assert corpus.doc_ids == ("good",)
    assert "encrypted with a password" in _only_message(corpus, "locked.pdf", "error")


def test_a_pdf_with_only_an_owner_password_opens_and_loads(tmp_path, make_docs):
    restricted = make_pdf(
        tmp_path / "restricted.pdf",
        [["Printing is restricted"]],
        encrypt=pdfencrypt.StandardEncryption("", ownerPassword="owner", canPrint=0),
    )
    folder = make_docs(tmp_path, {"restricted.pdf": restricted.read_bytes()})
    doc = load_folder(folder).document("restricted")
    assert "Printing is restricted" in doc.text


def test_a_missing_folder_is_an_error_naming_it(tmp_path):
    with pytest.raises(IngestError, match="does not exist"):
        load_folder(tmp_path / "nope")


def test_an_empty_folder_loads_as_an_empty_corpus(tmp_path):
    corpus = load_folder(tmp_path)
    assert corpus.documents == ()
    assert corpus.messages == ()


def test_progress_is_reported_per_file_and_finishes_at_one(tmp_path, make_docs):
    folder = make_docs(tmp_path, {"a.md": doc_text("a"), "b.md": doc_text("b")})
    calls = []
    load_folder(folder, progress=lambda fraction, name: calls.append((fraction, name)))
    assert [name for _, name in calls[:2]] == ["a.md", "b.md"]
    assert calls[-1][0] == 1.0
    assert [f for f, _ in calls] == sorted(f for f, _ in calls)


def test_ingest_message_reads_as_one_line(tmp_path, make_docs):
    corpus = load_folder(make_docs(tmp_path, {"x.pdf": b""}))
    [message] = corpus.messages
    assert str(message).startswith("x.pdf: error: ")
    assert "\n" not in str(message)


def test_symbolic_links_in_the_docs_folder_are_not_followed(tmp_path, monkeypatch):
    """A link planted in the docs folder (``notes.md`` → a server file) is skipped with a
    warning; with RAGDASH_FOLLOW_SYMLINKS=1 a link inside the folder is read, one to a file
    outside never is."""
    outside = tmp_path / "secret.txt"
    outside.write_text("root:x:0:0 password hash")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "real.md").write_text("Real notes about sync.")
    (docs / "notes.md").symlink_to(outside)
    (docs / "alias.md").symlink_to(docs / "real.md")
    monkeypatch.delenv("RAGDASH_FOLLOW_SYMLINKS", raising=False)
    corpus = load_folder(docs)
    assert list(corpus.doc_ids) == ["real"]
    links = [m for m in corpus.messages if "symbolic link" in m.message]
    assert {m.source for m in links} == {"notes.md", "alias.md"}
    monkeypatch.setenv("RAGDASH_FOLLOW_SYMLINKS", "1")
    corpus = load_folder(docs)
    assert "alias" in corpus.doc_ids and "notes" not in corpus.doc_ids
    assert any("outside the docs folder" in m.message for m in corpus.messages)
    assert all("password" not in d.pages[0] for d in corpus.documents)


def test_a_metadata_csv_linked_to_a_file_outside_the_docs_folder_is_not_read(
    tmp_path, monkeypatch
):
    """Regression (issue 40 #6): ``metadata.csv`` as a link to a file outside the docs folder
    was read (documents get the link check; it did not)."""
    outside = tmp_path / "server-secrets.csv"
    outside.write_text("file,id,subject\nreal.md,leaked,SECRET subject from outside\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "real.md").write_text("Real notes about sync.")
    (docs / "metadata.csv").symlink_to(outside)
    for follow in ("", "1"):
        monkeypatch.setenv("RAGDASH_FOLLOW_SYMLINKS", follow)
        corpus = load_folder(docs)
        assert list(corpus.doc_ids) == ["real"]
        assert all("SECRET" not in d.subject for d in corpus.documents)
        [message] = [m for m in corpus.messages if m.source == "metadata.csv"]
        assert "symbolic link" in message.message
    inside = docs / "kept.csv"  # a link inside the folder is read once links are followed
    inside.write_text("file,id\nreal.md,renamed\n")
    (docs / "metadata.csv").unlink()
    (docs / "metadata.csv").symlink_to(inside)
    assert list(load_folder(docs).doc_ids) == ["renamed"]


def test_a_folder_of_undated_files_is_warned_about_in_one_line(tmp_path, make_docs):
    """Ten undated files were ten warning lines; they are one, naming the first files and
    how many more."""
    folder = make_docs(tmp_path, {f"note-{n:02d}.txt": f"Note {n}." for n in range(10)})
    corpus = load_folder(folder)
    assert len(corpus.documents) == 10
    undated = [m for m in corpus.messages if "no 'updated' date" in m.message]
    assert len(undated) == 1
    assert undated[0].source == "10 files"
    assert "note-00.txt" in undated[0].message and "and 5 more" in undated[0].message
