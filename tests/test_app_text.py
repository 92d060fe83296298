"""The real app (AppTest) on a docs folder with a payload in every field, opened on a link with
payloads in its URL parameters: on every page, every string Streamlit draws as Markdown —
titles, captions, alerts, progress text, widget and expander labels, tab labels, tooltips —
renders to no image, no link, no colored text, no icon, and shows no raw bidirectional
control. (Chromium checks the same in a real browser: tests/test_browser_hostile.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from conftest import open_documents
from hostile_corpus import (
    EVIL_HOST,
    META_ID,
    PDF_ID,
    RLO,
    hostile_params,
    write_hostile_docs,
)
from markdown_it import MarkdownIt

EXPLORE = "ragdash/ui/pages/explore.py"
SUITE = "ragdash/ui/pages/suite.py"
DOCUMENTS = "ragdash/ui/pages/documents.py"
TRIAGE = "ragdash/ui/pages/triage.py"
TOUR = "ragdash/ui/pages/tour.py"

#: CommonMark with GFM tables and strikethrough. Bare-URL linking is GFM's and differs
#: between renderers (linkify-it also links ``//host``): Chromium checks it on the real page.
GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
#: Code spans (any fence length): nothing inside is markup.
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
#: Elements that show text as it is (not Markdown), or escaped HTML (checked in Chromium).
NOT_MARKDOWN = {"code", "html", "dataframe", "text", "vega_lite_chart", "arrow_vega_lite_chart"}
#: Fields of a proto drawn as Markdown. Select box and multiselect options are plain text.
MARKDOWN_FIELDS = {"body", "label", "help", "text", "caption"}
#: Streamlit's colored text / background and icon syntax left unescaped.
DIRECTIVE = re.compile(r"(?<!\\):(?:red|blue|green|orange|violet|gray|grey|rainbow|primary|"
                       r"[a-z]+-background|material/[a-z_]+)[\[:]")  # fmt: skip


def walk(node) -> Iterator:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from walk(child)


def drawn_strings(at) -> Iterator[tuple[str, str, str]]:
    """(element type, field, text) of every string the page draws."""
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        kind = getattr(node, "type", "")
        if proto is None or not hasattr(proto, "ListFields"):
            continue
        for field, value in proto.ListFields():
            values = value if hasattr(value, "append") else [value]
            for v in values:
                if isinstance(v, str):
                    yield kind, field.name, v


def markup_problems(at) -> list[str]:
    problems = []
    for kind, field, raw in drawn_strings(at):
        text = CODE_SPAN.sub("`code`", raw)
        # an input's value stays exactly as typed (it is edited); what labels it does not
        if RLO in raw and (field in MARKDOWN_FIELDS or field == "options"):
            problems.append(f"{kind}.{field}: raw U+202E in {text[:80]!r}")
        if kind in NOT_MARKDOWN or field not in MARKDOWN_FIELDS:
            continue
        html = GFM.render(text)
        if re.search(r"<(img|a)\b", html):
            problems.append(f"{kind}.{field}: link or image from {text[:120]!r}")
        if re.search(r"<h\d", html) and kind not in {"title", "markdown", "subheader"}:
            problems.append(f"{kind}.{field}: heading from {text[:120]!r}")
        if EVIL_HOST in text and re.search(r"(?<!\\)\]\(http", text):
            problems.append(f"{kind}.{field}: unescaped Markdown link in {text[:120]!r}")
        if DIRECTIVE.search(text):
            problems.append(f"{kind}.{field}: Streamlit color/icon syntax from data {text[:120]!r}")
        if EVIL_HOST in text and re.search(r"(?<!\\)\$x\^2(?<!\\)\$", text):
            problems.append(f"{kind}.{field}: formula from {text[:120]!r}")
    return problems


@pytest.fixture
def hostile_app(app, tmp_path, monkeypatch):
    docs = write_hostile_docs(tmp_path / "docs")
    monkeypatch.setenv("RAGDASH_DOCS", str(docs))

    def make():
        at = app(**hostile_params())
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make


@pytest.mark.parametrize("page", [EXPLORE, SUITE, DOCUMENTS, TRIAGE, TOUR])
def test_payloads_in_every_field_stay_text_on_every_page(hostile_app, page):
    at = hostile_app()
    if page != EXPLORE:
        at.switch_page(page).run()
    if page == DOCUMENTS:
        open_documents(at)  # the rows are lazy: closed, their fields are not drawn
    assert not at.exception, [e.value for e in at.exception]
    problems = markup_problems(at)
    assert problems == [], "\n".join(problems)


def test_the_documents_page_names_ids_with_blank_lines_on_one_line(hostile_app):
    """A metadata.csv id with blank lines (and a PDF's) is one label, its line breaks shown
    as code points — not a paragraph break followed by an image or a link."""
    at = hostile_app()
    at.switch_page(DOCUMENTS).run()
    labels = [e.label for e in at.expander]
    for doc_id in (META_ID, PDF_ID):
        first = doc_id.split("\n")[0]
        match = [lab for lab in labels if lab.startswith(first + "⟨U\\+000A⟩⟨U\\+000A⟩")]
        assert match, (doc_id, labels)
        assert "\n" not in match[0]


def test_the_tie_caption_names_an_id_with_blank_lines_on_one_line(hostile_app):
    at = hostile_app()
    (tie,) = [c.value for c in at.caption if c.value.startswith("Tie at the top:")]
    assert "\n" not in tie and "⟨U\\+000A⟩" in tie


def test_a_shared_link_cannot_put_an_image_or_a_link_in_the_verdict(hostile_app):
    """The ``expect`` and ``corpus`` parameters arrive from a link anyone can send."""
    at = hostile_app()
    texts = [t for _, _, t in drawn_strings(at)]
    assert any("different corpus" in t for t in texts)  # the link's corpus is named, as text
    assert markup_problems(at) == []


def test_the_routing_test_would_catch_a_raw_id(hostile_app, monkeypatch):
    """The check above finds the failure it exists for: an expander labelled with a raw id."""
    import ragdash.ui.documents as documents

    monkeypatch.setattr(documents, "label", lambda value: str(value))
    at = hostile_app()
    at.switch_page(DOCUMENTS).run()
    assert any("link or image" in p for p in markup_problems(at))
