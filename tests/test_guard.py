"""No stored document can break a page: when drawing one document fails, Documents,
Explore, Triage and the Test suite show an error card (what is wrong, in plain words, no
server path) with the upload's Remove button, and the rest of the page still works.

The failure is made by breaking the drawing of one uploaded document (``bad.md``) the way
an unforeseen bug in a renderer would; the other documents go through the real code."""

from __future__ import annotations

import pytest
from conftest import open_documents
from shown import unescaped

import ragdash.ui.documents
import ragdash.ui.explore
import ragdash.ui.suite
import ragdash.ui.triage.report
from ragdash.ingestion.workspace import Workspace
from ragdash.ui.guard import plain_reason

DOCUMENTS = "ragdash/ui/pages/documents.py"
SUITE = "ragdash/ui/pages/suite.py"
TRIAGE = "ragdash/ui/pages/triage.py"
BAD = b"---\nid: bad\nupdated: 2026-01-01\n---\nWarehouse sync runs nightly for bad stock.\n"


@pytest.fixture
def stored_bad(tmp_path):
    ws = Workspace(tmp_path / "workspace")
    ws.save_upload("bad.md", BAD)
    return ws


def _breaks_on_bad(original):
    def draw(first, *args, **kwargs):
        doc_id = getattr(first, "doc_id", None) or getattr(first.passage, "doc_id", None)
        if doc_id == "bad":
            raise KeyError(f"{'/srv/secret/path'}/bad.md")  # a server path must not show
        return original(first, *args, **kwargs)

    return draw


def _card(at) -> list[str]:
    return [e.value for e in at.error if "cannot be shown" in e.value]


def _no_server_path(at) -> None:
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "/srv/secret" not in shown and "/tmp/" not in shown, shown


def test_documents_page_shows_a_card_with_remove_and_draws_the_rest(app, stored_bad, monkeypatch):
    monkeypatch.setattr(
        ragdash.ui.documents, "_edit_form", _breaks_on_bad(ragdash.ui.documents._edit_form)
    )
    at = app()
    at.run()
    open_documents(at.switch_page(DOCUMENTS).run())  # a row draws only when open
    assert not at.exception, [e.value for e in at.exception]
    [card] = _card(at)
    assert "bad.md" in card.replace("\\", "") and "unexpected error" in card
    _no_server_path(at)
    # every other document is drawn: its expander is there
    labels = [e.label.replace("\\", "") for e in at.expander]
    assert any(label.startswith("returns-2026") for label in labels)
    remove = [b for b in at.button if unescaped(b.label) == "Remove bad.md"]
    assert len(remove) == 1
    remove[0].click().run()
    assert not at.exception
    assert stored_bad.upload_names() == []
    assert (stored_bad.removed).is_dir() and len(list(stored_bad.removed.iterdir())) == 1
    assert _card(at) == []


def test_explore_shows_a_card_for_the_bad_result_and_the_other_results(
    app, stored_bad, monkeypatch
):
    monkeypatch.setattr(
        ragdash.ui.explore, "ranked_passage", _breaks_on_bad(ragdash.ui.explore.ranked_passage)
    )
    at = app(q="warehouse sync nightly", fixes="none", k="3")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [card] = _card(at)
    assert "bad.md" in card.replace("\\", "")
    _no_server_path(at)
    headings = [m.value for m in at.markdown if m.value.startswith("**#")]
    assert [h.split("**")[1] for h in headings] == ["#2 · inventory", "#3 · crm"]
    assert any(unescaped(b.label) == "Remove bad.md" for b in at.button)


def test_the_test_suite_shows_a_card_and_the_sidebar_still_works(app, monkeypatch):
    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(ragdash.ui.suite, "heatmap", broken)
    at = app()
    at.run()
    at.switch_page(SUITE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("nested too deeply" in e.value for e in at.error)
    assert at.sidebar.toggle, "the sidebar is still drawn"


def test_triage_shows_a_card_for_the_bad_passage(app, stored_bad, monkeypatch):
    monkeypatch.setattr(
        ragdash.ui.triage.report,
        "ranked_passage",
        _breaks_on_bad(ragdash.ui.triage.report.ranked_passage),
    )
    at = app()
    at.run()
    at.switch_page(TRIAGE).run()
    assert not at.exception
    at.text_input(key="tr_query").input("warehouse sync nightly")
    at.selectbox(key="tr_expect").select("inventory")
    at.number_input(key="tr_k").set_value(3)
    at.button(key="FormSubmitter:triage_form-Diagnose").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("bad.md" in card.replace("\\", "") for card in _card(at))
    _no_server_path(at)
    assert any(m.value.startswith("#2 · inventory") for m in at.markdown) or any(
        "inventory" in m.value for m in at.markdown
    )


def test_plain_reasons_name_no_server_path():
    assert plain_reason(PermissionError(13, "Permission denied", "/srv/x.pdf")) == (
        "its file cannot be read (Permission denied)"
    )
    assert "/srv" not in plain_reason(ValueError("/srv/x.pdf is bad"))


def test_errors_on_every_page_name_files_without_server_paths(app, tmp_path):
    """A 0-byte case library (refused, never replaced) is reported on the Test suite and
    Triage as workspace/library.sqlite, never as the server's absolute path."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "library.sqlite").write_bytes(b"")
    at = app()
    at.run()
    for page in (SUITE, TRIAGE, DOCUMENTS):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        shown = [e.value.replace("\\", "") for e in (*at.error, *at.warning)]
        assert all(str(tmp_path) not in text for text in shown), shown
        if page != DOCUMENTS:
            assert any("workspace/library.sqlite" in text for text in shown), shown
