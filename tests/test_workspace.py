"""The workspace: uploads checked before saving, edits validated, removal keeps the file,
corrupt files reported and never overwritten, atomic writes."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_DOCS, doc_text, make_pdf

from ragdash.atomic import atomic_write
from ragdash.errors import IngestCancelled, WorkspaceError
from ragdash.ingestion.segmentation import passage_count
from ragdash.ingestion.workspace import Workspace, safe_file_name


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path / "ws")


def test_an_upload_joins_the_corpus_after_the_docs_folder(ws):
    saved = ws.save_upload("Loyalty Rules.md", doc_text("Points expire.", id="loyalty").encode())
    assert saved.name == "Loyalty-Rules.md" and saved.warnings == [] and saved.passages == 1
    corpus = ws.load(SAMPLE_DOCS)
    assert corpus.doc_ids[-1] == "loyalty"
    assert corpus.document("loyalty").order == len(corpus.documents) - 1


def test_upload_names_cannot_escape_the_uploads_folder(ws):
    assert safe_file_name("../../etc/passwd.md") == "passwd.md"
    assert safe_file_name("C:\\docs\\a b.PDF") == "a-b.pdf"
    with pytest.raises(WorkspaceError, match="only .txt, .md, .pdf"):
        safe_file_name("payload.html")


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("empty.pdf", b"", "empty"),
        ("broken.pdf", b"%PDF-1.4\nnot really", "could not be read as a PDF"),
        ("fake.pdf", b"hello", "not a PDF"),
        ("blank.md", b"   \n", "empty"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_written(ws, name, data, problem):
    with pytest.raises(WorkspaceError, match=problem):
        ws.save_upload(name, data)
    assert ws.upload_names() == []


def test_an_image_only_pdf_is_refused_saying_ocr_is_needed(ws, tmp_path):
    pdf = make_pdf(tmp_path / "scan.pdf", [["a line"]], image_only=True).read_bytes()
    with pytest.raises(WorkspaceError, match="OCR"):
        ws.save_upload("scan.pdf", pdf)


def test_uploading_the_same_name_twice_keeps_the_first(ws):
    ws.save_upload("a.md", doc_text("first", id="a").encode())
    with pytest.raises(WorkspaceError, match="already uploaded"):
        ws.save_upload("a.md", doc_text("second", id="a").encode())
    assert "first" in (ws.uploads / "a.md").read_text()


def test_an_upload_reusing_a_bundled_id_is_reported_not_loaded(ws):
    ws.save_upload("copy.md", doc_text("30 days", id="returns-2026").encode())
    corpus = ws.load(SAMPLE_DOCS)
    assert [d.source for d in corpus.documents if d.doc_id == "returns-2026"] == ["returns-2026.md"]
    assert any(
        "duplicate id 'returns-2026'" in m.message and m.source == "copy.md"
        for m in corpus.messages
    )


def test_edits_change_metadata_and_survive_a_reload(ws):
    corpus = ws.load(SAMPLE_DOCS)
    ws.save_edit(
        corpus,
        "plans.pdf",
        {"id": "plans-v2", "subject": "Plans", "updated": "2027-01-01", "status": "withdrawn"},
    )
    again = Workspace(ws.root).load(SAMPLE_DOCS)
    doc = again.document("plans-v2")
    assert doc is not None and doc.status == "withdrawn" and str(doc.updated) == "2027-01-01"
    assert again.document("plans") is None


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"id": ""}, "cannot be empty"),
        ({"id": "crm"}, "already used by crm.md"),
        ({"id": "has space"}, "no spaces"),
        ({"id": "plans", "updated": "01/02/2026"}, "ISO date"),
        ({"id": "plans", "status": "archived"}, "status must be one of"),
    ],
)
def test_bad_edits_are_refused_and_nothing_is_saved(ws, fields, problem):
    corpus = ws.load(SAMPLE_DOCS)
    with pytest.raises(WorkspaceError, match=problem):
        ws.save_edit(corpus, "plans.pdf", fields)
    assert not ws.edits_path.exists()


def test_a_corrupt_edits_file_is_reported_and_never_overwritten(ws):
    ws.root.mkdir(parents=True)
    ws.edits_path.write_bytes(b"no file column here\nx,y\n")
    before = ws.edits_path.read_bytes()
    corpus = ws.load(SAMPLE_DOCS)
    assert any("no 'file' column" in m.message for m in corpus.messages)
    with pytest.raises(WorkspaceError, match="not overwritten"):
        ws.save_edit(corpus, "plans.pdf", {"id": "plans"})
    assert ws.edits_path.read_bytes() == before


def test_removing_an_upload_keeps_the_file_under_removed(ws):
    ws.save_upload("a.md", doc_text("alpha", id="a").encode())
    kept = ws.remove_upload("a.md")
    assert ws.upload_names() == [] and kept.read_text().endswith("alpha\n")
    assert "a" not in ws.load(SAMPLE_DOCS).doc_ids
    with pytest.raises(WorkspaceError, match="not an uploaded document"):
        ws.remove_upload("crm.md")


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "cases.json"
    target.write_text("old")

    with pytest.raises(TypeError):
        atomic_write(target, object())  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["cases.json"], "no temp file left behind"
    atomic_write(target, b"new")
    assert target.read_text() == "new"


def test_an_upload_with_more_passages_than_the_limit_leaves_room_for_is_refused(ws, tmp_path):
    pdf = make_pdf(tmp_path / "big.pdf", [["Page one text."], ["Page two."], ["Page three."]])
    with pytest.raises(WorkspaceError, match=r"3 passages, more than the 2 .*nothing was saved"):
        ws.save_upload("big.pdf", pdf.read_bytes(), passage_room=2)
    assert ws.upload_names() == []
    saved = ws.save_upload("big.pdf", pdf.read_bytes(), passage_room=3)
    assert (saved.name, saved.passages) == ("big.pdf", 3)


def test_a_cancelled_upload_leaves_the_workspace_as_it_was(ws, tmp_path):
    ws.save_upload("first.md", doc_text("Kept before.", id="first").encode())
    before = sorted(p.name for p in ws.root.rglob("*"))
    pdf = make_pdf(tmp_path / "long.pdf", [[f"Page {n} text."] for n in range(1, 7)])
    seen = []

    def cancel_on_page_three(fraction: float, label: str) -> None:
        seen.append(label)
        if label.startswith("page 3"):
            raise IngestCancelled()

    with pytest.raises(WorkspaceError, match="cancelled.*nothing was saved"):
        ws.save_upload("long.pdf", pdf.read_bytes(), progress=cancel_on_page_three)
    assert seen[-1] == "page 3 of 6"
    assert sorted(p.name for p in ws.root.rglob("*")) == before
    assert ws.load(SAMPLE_DOCS).doc_ids[-1] == "first"


def test_loading_a_workspace_past_the_passage_limit_keeps_the_first_documents(ws):
    ws.save_upload("extra.md", doc_text("One more.", id="extra").encode())
    full = ws.load(SAMPLE_DOCS)
    total = sum(passage_count(d) for d in full.documents)
    capped = ws.load(SAMPLE_DOCS, limit=total - 1)
    assert capped.doc_ids == full.doc_ids[:-1]
    assert any(m.source == "extra.md" and "limit" in m.message for m in capped.messages)


def _save_subjects(root: str, prefix: str, count: int) -> None:
    """One session saving ``count`` metadata edits, one per upload (run in a process)."""
    from conftest import SAMPLE_DOCS as docs

    ws = Workspace(root)
    corpus = ws.load(docs)
    for i in range(count):
        ws.save_edit(corpus, f"{prefix}-{i}.md", {"id": f"{prefix}-{i}", "subject": prefix})


def test_concurrent_metadata_saves_from_processes_and_threads_all_survive(ws):
    """Regression: 4 × 20 concurrent saves used to end with an arbitrary one; every
    read-modify-write of the edits file now waits for the lock."""
    import multiprocessing
    import threading

    ws.root.mkdir(parents=True)
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=_save_subjects, args=(str(ws.root), f"p{n}", 10)) for n in (1, 2)
    ]
    threads = [
        threading.Thread(target=_save_subjects, args=(str(ws.root), f"t{n}", 10)) for n in (1, 2)
    ]
    for worker in (*processes, *threads):
        worker.start()
    for worker in (*processes, *threads):
        worker.join(timeout=120)
    assert all(p.exitcode == 0 for p in processes)
    edits, problems = ws.read_edits()
    assert problems == []
    assert len(edits) == 40


def test_uploads_are_staged_in_the_workspace_not_the_system_temp(ws, monkeypatch, tmp_path):
    seen = []

    def progress(fraction: float, label: str) -> None:
        seen.extend(p for p in ws.tmp.rglob("*.pdf"))

    monkeypatch.setattr("tempfile.tempdir", "/nonexistent-system-temp")  # used: it fails
    data = make_pdf(tmp_path / "n.pdf", [["Staged words on a page"]]).read_bytes()
    ws.save_upload("notes.pdf", data, progress=progress)
    assert seen and all(p.name == "notes.pdf" for p in seen)
    assert (ws.uploads / "notes.pdf").is_file()
    assert not ws.tmp.exists()  # moved into uploads/, nothing left behind


@pytest.mark.parametrize(
    "name, saved",
    [
        ("pass\x00wd.md", "pass-wd.md"),
        ("a/b\\c.md", "c.md"),
        ("tab\there\x1b[31m\u202e.md", "tab-here-31m.md"),
        ("x" * 5000 + ".md", "x" * 100 + ".md"),
    ],
)
def test_control_characters_separators_and_long_names_are_sanitized(ws, name, saved):
    assert ws.save_upload(name, doc_text("Some words.", id="n").encode()).name == saved
    assert [p.name for p in ws.uploads.iterdir()] == [saved]


def test_a_kill_9_mid_upload_leaves_a_staging_folder_the_next_start_removes(tmp_path, app):
    """A server killed while it reads a PDF leaves its staged copy in workspace/tmp (never in
    the system temp); starting the dashboard again removes it, and uploads/ never saw it."""
    import os
    import subprocess
    import sys
    import textwrap
    import time
    from pathlib import Path

    from hostile_pdfs import text_ops_pdf

    root = tmp_path / "workspace"
    pdf = tmp_path / "slow.pdf"
    pdf.write_bytes(text_ops_pdf(2_000_000))
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from ragdash.ingestion.workspace import Workspace
        Workspace({str(root)!r}).save_upload("slow.pdf", Path({str(pdf)!r}).read_bytes())
        """
    )
    repo = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "RAGDASH_MAX_PAGE_OBJECTS": "100000000", "PYTHONPATH": repo}
    server = subprocess.Popen([sys.executable, "-c", script], env=env)
    try:
        for _ in range(300):
            if list((root / "tmp").glob("*/slow.pdf")):
                break
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        server.kill()  # SIGKILL: no cleanup runs
        server.wait()
    [left] = list((root / "tmp").glob("*/slow.pdf"))
    assert left.read_bytes() == pdf.read_bytes()
    at = app()
    at.run()
    assert not at.exception
    assert not list((root / "tmp").iterdir())
    assert not (root / "uploads" / "slow.pdf").exists()


def _staging_folder(ws, name: str, upload: bytes = b"%PDF-1.4 staged") -> object:
    """A staging folder as save_upload writes it (token file first, then the upload)."""
    import hashlib
    import json

    folder = ws.tmp / name
    folder.mkdir(parents=True)
    token = name.split("-", 1)[1]
    files = {"doc.pdf": hashlib.sha256(upload).hexdigest()}
    marker = {"format": "ragdash-staging", "token": token, "files": files}
    (folder / ".ragdash-staging").write_text(json.dumps(marker))
    (folder / "doc.pdf").write_bytes(upload)
    return folder


def test_a_live_servers_staging_folder_is_kept(ws):
    import os

    mine = _staging_folder(ws, f"{os.getpid()}-0123456789abcdef")
    dead = _staging_folder(ws, "999999999-0123456789abcdef")
    assert ws.clean_stale_temp() == [dead.name]
    assert mine.is_dir() and not dead.exists()


def _user_files(tmp_path):
    """What a user keeps in folders of their own: must survive every clean-up."""
    docs = tmp_path / "Documents"
    (docs / "thesis").mkdir(parents=True)
    (docs / "thesis" / "thesis.md").write_text("my thesis")
    (docs / "notes.txt").write_text("my notes")
    (docs / "999999999-0123456789abcdef").mkdir()  # named like a staging folder
    (docs / "999999999-0123456789abcdef" / "keep.pdf").write_text("mine")
    return docs


def _tree(folder):
    return sorted(
        (str(p.relative_to(folder)), p.read_bytes() if p.is_file() else None)
        for p in folder.rglob("*")
    )


def test_a_symlinked_tmp_is_never_followed_and_foreign_entries_survive(ws, tmp_path, caplog):
    """Regression (issue 40 #1): with ``tmp`` a link to ~/Documents, a start emptied the
    linked folder; a user's own ``tmp/my-notes/`` was deleted too."""
    documents = _user_files(tmp_path)
    before = users = _tree(documents)
    ws.root.mkdir()
    ws.tmp.symlink_to(documents, target_is_directory=True)
    with caplog.at_level("WARNING", logger="ragdash"):
        assert ws.clean_stale_temp() == []
    assert _tree(documents) == before
    assert "symbolic link" in caplog.text
    with pytest.raises(WorkspaceError, match="symbolic link"):  # never staged through it
        ws.save_upload("a.md", doc_text("Alpha.", id="a").encode())
    assert _tree(documents) == before

    ws.tmp.unlink()
    (ws.tmp / "my-notes").mkdir(parents=True)
    (ws.tmp / "my-notes" / "ideas.md").write_text("mine")
    (ws.tmp / "todo.txt").write_text("mine")
    unmarked = ws.tmp / "999999999-0123456789abcdef"  # our naming, no token file
    unmarked.mkdir()
    (unmarked / "thesis.pdf").write_text("mine")
    forged = _staging_folder(ws, "999999998-0123456789abcdef")  # a token file, but …
    (forged / "doc.pdf").write_text("changed since")  # … the hash it records is not this
    extra = _staging_folder(ws, "999999997-0123456789abcdef")
    (extra / "thesis.md").write_text("mine")  # a file the token file does not record
    wrong_token = _staging_folder(ws, "999999996-0123456789abcdef")
    wrong_token.rename(ws.tmp / "999999996-fedcba9876543210")
    linked = ws.tmp / "999999995-0123456789abcdef"
    linked.symlink_to(documents / "999999999-0123456789abcdef")
    ours = _staging_folder(ws, "999999994-0123456789abcdef")
    before = _tree(ws.tmp)
    assert ws.clean_stale_temp() == [ours.name]
    assert _tree(ws.tmp) == [e for e in before if not e[0].startswith(ours.name)]
    assert _tree(documents) == users  # nothing through the link either
    assert (documents / "999999999-0123456789abcdef" / "keep.pdf").read_text() == "mine"


def test_a_dashboard_start_keeps_a_symlinked_tmp_and_a_users_folder(tmp_path, app):
    """The UI's start path (``context.workspace``) removes only a proven staging folder."""
    documents = _user_files(tmp_path)
    before = _tree(documents)
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "tmp").symlink_to(documents, target_is_directory=True)
    at = app()
    at.run()
    assert not at.exception
    assert _tree(documents) == before

    (root / "tmp").unlink()
    ws = Workspace(root)
    (ws.tmp / "my-notes").mkdir(parents=True)
    (ws.tmp / "my-notes" / "ideas.md").write_text("mine")
    ours = _staging_folder(ws, "999999994-0123456789abcdef")
    from ragdash.ui import context

    context._clean_on_start.clear()  # a new server process
    at = app()
    at.run()
    assert not at.exception
    assert (ws.tmp / "my-notes" / "ideas.md").read_text() == "mine"
    assert not ours.exists()


def _claim_id(root: str, docs: str, source: str, new_id: str, barrier, results) -> None:
    """One session saving ``new_id`` for ``source`` from the corpus its page loaded before
    the other session saved (run in a thread or a forked process)."""
    ws = Workspace(root)
    corpus = ws.load(docs)
    barrier.wait(timeout=60)
    try:
        ws.save_edit(corpus, source, {"id": new_id})
    except WorkspaceError as exc:
        results.put((source, str(exc)))
    else:
        results.put((source, "saved"))


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_two_concurrent_saves_of_one_new_id_let_exactly_one_win(ws, tmp_path, kind):
    """Regression (issue 24 #7): two saves giving two documents the same new id were both
    accepted (20/20 trials) and one document then dropped out of the corpus; the id check
    now runs inside the lock that spans the read and the write."""
    import multiprocessing
    import queue
    import threading

    docs = tmp_path / "docs"
    docs.mkdir()
    ws.save_upload("a.md", doc_text("Alpha words.", id="a").encode())
    ws.save_upload("b.md", doc_text("Beta words.", id="b").encode())
    context = multiprocessing.get_context("fork")
    for trial in range(20):
        new_id = f"shared-{trial}"
        if kind == "threads":
            barrier, results = threading.Barrier(2), queue.Queue()
            workers = [
                threading.Thread(
                    target=_claim_id, args=(str(ws.root), str(docs), s, new_id, barrier, results)
                )
                for s in ("a.md", "b.md")
            ]
        else:
            barrier, results = context.Barrier(2), context.Queue()
            workers = [
                context.Process(
                    target=_claim_id, args=(str(ws.root), str(docs), s, new_id, barrier, results)
                )
                for s in ("a.md", "b.md")
            ]
        for worker in workers:
            worker.start()
        outcomes = dict(results.get(timeout=60) for _ in workers)
        for worker in workers:
            worker.join(timeout=60)
        winners = [s for s, outcome in outcomes.items() if outcome == "saved"]
        assert len(winners) == 1, (trial, outcomes)
        (loser,) = set(outcomes) - set(winners)
        assert outcomes[loser] == (
            f"id {new_id!r} is already used by {winners[0]}; nothing was saved"
        )
        corpus = ws.load(docs)
        assert sorted(d.source for d in corpus.documents) == ["a.md", "b.md"]
        assert not [m for m in corpus.messages if m.level == "error"]
