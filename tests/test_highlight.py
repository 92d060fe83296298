"""Highlighting: escaped first, then hits and evidence wrapped in <mark>."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ragdash.retrieval.highlight import escape_text, highlight_html, highlight_spans, match_kinds
from ragdash.retrieval.matching import TokenMatch

BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def test_hits_are_marked_by_kind_and_evidence_across_whitespace():
    out = highlight_html(
        "Basic |\n10   Go and Enterpr1se",
        {"basic": "exact", "enterpr1se": "ocr", "go": "fuzzy"},
        ["10 go"],
    )
    assert '<mark class="hit-exact">Basic</mark>' in out
    assert '<mark class="hit-ocr">Enterpr1se</mark>' in out
    # One evidence string is one outlined box, the hit inside it marked within it.
    assert '<mark class="evidence">10   <mark class="hit-fuzzy">Go</mark></mark>' in out
    assert out.count('class="evidence"') == 1


def test_markup_in_document_text_is_escaped():
    out = highlight_html('<script>alert(1)</script><img src=x onerror="x()">', {"script": "exact"})
    assert "<script>" not in out and "<img" not in out
    assert "&lt;<mark" in out and "onerror=&quot;x()&quot;" in out


@given(st.text(), st.lists(st.text(min_size=1, max_size=5), max_size=3))
def test_removing_the_marks_gives_back_the_escaped_text(text, evidence):
    tokens = {t: "exact" for t in re.findall(r"[a-z0-9]+", text.lower())[:3]}
    out = highlight_html(text, tokens, evidence)
    assert re.sub(r"</?mark[^>]*>", "", out) == escape_text(text)
    assert not BIDI.search(out)  # nothing may reorder what is shown
    assert "".join(chunk for chunk, _ in highlight_spans(text, tokens, evidence)) == text


def test_match_kinds_keeps_the_strongest_kind_per_token():
    breakdown = [
        TokenMatch("warehuse", "warehouse", "fuzzy", 94, 0.94),
        TokenMatch("warehouse", "warehouse", "exact", 100, 1),
        TokenMatch("sync", None, "none", 0, 0),
    ]
    assert match_kinds(breakdown) == {"warehouse": "exact"}


def test_bidirectional_controls_are_shown_not_obeyed():
    # An override would display "evil" as "live": the stored text must be what is read.
    text = "pay \u202eevil\u202c now \u2067x\u2069 <b>"
    assert escape_text(text) == "pay ⟨U+202E⟩evil⟨U+202C⟩ now ⟨U+2067⟩x⟨U+2069⟩ &lt;b&gt;"
    # Zero-width characters hide inside a word (issue 24 #9: "raw in passages"): shown too,
    # the emoji joiner included (this machine has no emoji font anyway).
    assert escape_text("zero\u200bwidth 👩\u200d💻") == "zero⟨U+200B⟩width 👩⟨U+200D⟩💻"
    assert escape_text("a\u200fb\u200ec\u061cd") == "a⟨U+200F⟩b⟨U+200E⟩c⟨U+061C⟩d"
    assert "⟨U+202E⟩<mark" in highlight_html(text, {"evil": "exact"})
