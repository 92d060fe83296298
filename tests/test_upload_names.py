"""Upload names are user text: a NUL byte, control characters, path separators, an overlong
name or a name whose real suffix is not allowed is sanitized or refused with a clear
message, and the session keeps working (the real app under AppTest)."""

from __future__ import annotations

import pytest

DOCUMENTS = "ragdash/ui/pages/documents.py"
BODY = b"---\nid: {id}\nupdated: 2026-01-01\n---\nSome notes about loyalty points.\n"


def _upload(app, name: str, body: bytes):
    at = app()
    at.run()
    at.switch_page(DOCUMENTS).run()
    at.file_uploader(key="upload").upload(name, body, "text/markdown").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize(
    "name, saved",
    [
        ("notes\x00evil.md", "notes-evil.md"),
        ("../../etc/cron.d/notes.md", "notes.md"),
        ("a\x1b[31mred\u202e\x07.md", "a-31mred.md"),
        ("n" * 3000 + ".md", "n" * 100 + ".md"),
    ],
)
def test_a_hostile_name_is_saved_under_a_safe_one(app, tmp_path, name, saved):
    at = _upload(app, name, BODY.replace(b"{id}", b"loyal"))
    assert [p.name for p in (tmp_path / "workspace" / "uploads").iterdir()] == [saved]
    shown = " ".join(s.value for s in at.success)
    assert "added to the workspace" in shown and "\x00" not in shown
    assert "loyal" in list(at.dataframe[0].value["id"])
    # the session keeps working: another page, then back
    at.switch_page("ragdash/ui/pages/explore.py").run()
    assert not at.exception


def test_a_name_whose_real_suffix_is_not_allowed_is_refused_clearly(app, tmp_path):
    at = _upload(app, "notes.md\x00.exe", BODY.replace(b"{id}", b"x"))
    errors = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "only .txt, .md, .pdf files can be uploaded" in errors
    assert not (tmp_path / "workspace" / "uploads").exists() or not list(
        (tmp_path / "workspace" / "uploads").iterdir()
    )
    at.switch_page("ragdash/ui/pages/explore.py").run()
    assert not at.exception
