"""Highlighting passage text as safe HTML: every piece of document text is escaped first,
then matched tokens and evidence strings are wrapped in ``<mark>`` elements.

Pure functions, no Streamlit: the dashboard renders the result with ``st.html``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ragdash.retrieval.matching import MatchKind, TokenMatch
from ragdash.visible import visible_controls

__all__ = [
    "HIGHLIGHT_CSS",
    "escape_text",
    "evidence_pattern",
    "highlight_html",
    "highlight_spans",
    "match_kinds",
]

_TOKEN_SPAN = re.compile(r"[A-Za-z0-9]+")
#: Tokens as the unicode fix reads them (letters of any script), so ``café`` is marked too.
_UNICODE_SPAN = re.compile(r"[^\W_]+")
def escape_text(text: str) -> str:
    """Document text as HTML text: escaped, with bidirectional controls, zero-width and
    other invisible characters shown as their code points (``⟨U+202E⟩``,
    :func:`ragdash.visible.visible_controls`): an override shows "evil" as "live", a mark
    moves digits to the other side, a zero-width space hides inside a word — a passage
    would not read as it is stored. Line breaks stay (passages are drawn ``pre-wrap``).

    >>> escape_text("<b>\u202eevil\u200b</b>")
    '&lt;b&gt;⟨U+202E⟩evil⟨U+200B⟩&lt;/b&gt;'
    """
    return visible_controls(html.escape(text), keep_newlines=True)


@lru_cache(maxsize=4096)  # one compile per evidence string: a stress run judges each many times
def evidence_pattern(evidence: str, cjk: bool = True) -> re.Pattern[str] | None:
    """A regex finding ``evidence`` case-insensitively and only on token boundaries: where
    the evidence starts (ends) with a letter or digit, the text must not continue with one
    before (after) it. So ``4 disks`` is not found in ``24 disks``, ``30 days`` not in
    ``130 days``, ``Basic`` not in ``Basically`` — the same comparison the proof check makes.

    Spaces are not evidence: text extraction and OCR disagree on them. A PDF's text layer
    glues ``543149BAW`` and ``ReturnAmount`` that the page shows apart (and OCR reads
    apart), and splits words at line ends; so any whitespace (a line break too) may stand
    between two words of the evidence or be missing there, and whitespace may stand inside
    a word — except between two digits, where a space makes two numbers (``1 030`` is not
    ``1030``, ``10 30`` not ``1030``). Dashes match any dash and apostrophes any
    apostrophe: a PDF prints ``45–54`` with an en dash that OCR reads as a hyphen; the
    sign ``×`` matches the letter ``x``. A dot leader (three dots or more) matches one of
    any length.

    >>> bool(evidence_pattern("543149BAW BEDLAM").search("543149 BAW BEDLAM"))
    True
    >>> bool(evidence_pattern("Return Amount").search("Last ReturnAmount Code"))
    True
    >>> found = lambda e, t: bool(evidence_pattern(e).search(t))
    >>> found("10 30", "1030"), found("4 disks", "24 disks"), found("Basic", "Basically")
    (False, False, False)
    >>> found("45–54 345", "45-54 345"), found("l’épicerie", "l'épicerie"), found("4-5", "4.5")
    (True, True, False)
    >>> found("Formal ..........", "Formal ....."), found("a...b", "a..b")
    (True, False)
    >>> found("$160,850 $ × 28%", "$160,850 $ x 28%"), found("2 x 3", "2 X 3"), found("x", "y")
    (True, True, False)

    ``cjk=False`` leaves the CJK scripts out of the boundary test: the same matches on a text
    with no CJK character (only a CJK neighbour is treated differently), and it compiles in
    a fraction of a millisecond where the CJK ranges take tens (``re`` expands each range,
    case-folded) — generating cases tests thousands of evidence strings.

    >>> fast = evidence_pattern("30 days", cjk=False)
    >>> bool(fast.search("within 30 days")), found("18", "9時18時")
    (True, True)
    """
    words = evidence.split()
    if not words:
        return None
    parts: list[str] = []
    for n, word in enumerate(words):
        k = 0
        while k < len(word):
            ch = word[k]
            before = word[k - 1] if k else (words[n - 1][-1] if n else "")
            if before:
                digits = before.isdigit() and ch.isdigit()
                # between two digits a space is kept as it is; anywhere else it may vary
                parts.append(("" if k else r"\s+") if digits else r"\s*")
            leader = len(word[k:]) - len(word[k:].lstrip("."))
            if leader >= 3:  # a dot leader: as long as the line needed, not content
                parts.append(r"\.{3,}")
                k += leader
                continue
            parts.append(_ALIKE.get(ch) or re.escape(ch))
            k += 1
    spaced = _CJK if cjk else ""
    start = f"(?<![^\\W_{spaced}])" if _needs_boundary(words[0][0]) else ""
    end = f"(?![^\\W_{spaced}])" if _needs_boundary(words[-1][-1]) else ""
    return re.compile(start + "".join(parts) + end, re.IGNORECASE)


#: Marks that print alike and that extraction and OCR exchange: any dash for any dash
#: (``45–54`` read as ``45-54``), any apostrophe for any apostrophe (``l’épicerie``,
#: ``l'épicerie``), the multiplication sign for the letter x (a tax worksheet's
#: ``$ × 28%`` is read ``$ x 28%``, and typed so). One character class each.
_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_APOSTROPHES = "'\u2018\u2019\u02bc\u2032"
_TIMES = "x\u00d7"
_ALIKE = {
    **{ch: f"[{re.escape(_DASHES)}]" for ch in _DASHES},
    **{ch: f"[{re.escape(_APOSTROPHES)}]" for ch in _APOSTROPHES},
    **{ch: f"[{_TIMES}]" for ch in (*_TIMES, "X")},
}

#: Scripts written without spaces between words: no token boundary to require there
#: (``18時`` is found in ``9時から18時です``).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_CHAR = re.compile(f"[{_CJK}]")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character: only then does evidence need the slower
    pattern that lets a CJK neighbour stand next to it (``evidence_pattern(cjk=True)``)."""
    return _CJK_CHAR.search(text) is not None


def _needs_boundary(ch: str) -> bool:
    """A letter or digit of a spaced script: the text must not run on past it."""
    return ch.isalnum() and not _CJK_CHAR.match(ch)


def match_kinds(breakdown: Iterable[TokenMatch]) -> dict[str, str]:
    """Passage token → match kind, from a score breakdown (strongest kind kept)."""
    kinds: dict[str, str] = {}
    for m in breakdown:
        kind = MatchKind(m.kind)
        if m.passage_token and kind is not MatchKind.NONE:
            old = kinds.get(m.passage_token)
            if old is None or kind.preference < MatchKind(old).preference:
                kinds[m.passage_token] = kind
    return kinds


def highlight_spans(
    text: str, token_kinds: Mapping[str, str], evidence: Sequence[str] = ()
) -> list[tuple[str, tuple[str, ...]]]:
    """Cut ``text`` into (chunk, classes) pieces: ``hit-exact``/``hit-ocr``/``hit-fuzzy``
    for matched tokens, ``evidence`` for required evidence strings, () for plain text."""
    marks: list[set[str]] = [set() for _ in text]
    for span in (_TOKEN_SPAN, _UNICODE_SPAN):
        for m in span.finditer(text):
            kind = token_kinds.get(m.group().lower()) or token_kinds.get(m.group().casefold())
            if kind:
                for i in range(m.start(), m.end()):
                    marks[i].add(f"hit-{kind}")
    for item in evidence:
        pattern = evidence_pattern(item)
        if pattern is None:
            continue
        for m in pattern.finditer(text):
            for i in range(m.start(), m.end()):
                marks[i].add("evidence")
    pieces: list[tuple[str, tuple[str, ...]]] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or marks[i] != marks[start]:
            pieces.append((text[start:i], tuple(sorted(marks[start]))))
            start = i
    return pieces


def highlight_html(text: str, token_kinds: Mapping[str, str], evidence: Sequence[str] = ()) -> str:
    """Escaped HTML of ``text`` with hits and evidence wrapped in ``<mark class=...>``."""
    out = []
    in_evidence = False
    for chunk, classes in highlight_spans(text, token_kinds, evidence):
        escaped = escape_text(chunk)
        # One evidence string is one outlined box, whatever hits lie inside it: the hits
        # are marked within it (a "30 days" whose "days" matched the query was two boxes).
        if ("evidence" in classes) != in_evidence:
            out.append('<mark class="evidence">' if not in_evidence else "</mark>")
            in_evidence = not in_evidence
        hits = [c for c in classes if c != "evidence"]
        if hits:
            out.append(f'<mark class="{" ".join(hits)}">{escaped}</mark>')
        else:
            out.append(escaped)
    if in_evidence:
        out.append("</mark>")
    return "".join(out)


HIGHLIGHT_CSS = """
.rd-passage { white-space: pre-wrap; font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
  font-size: 0.86rem; line-height: 1.5; padding: 0.6rem 0.8rem; border-radius: 0.4rem;
  background: #f7f7f9; border: 1px solid #e3e3e8; overflow-wrap: anywhere; }
.rd-passage mark { padding: 0 1px; border-radius: 2px; color: inherit; background: none; }
.rd-passage mark.hit-exact { background: #b6e3b6; }
.rd-passage mark.hit-ocr { background: #ffd59e; }
.rd-passage mark.hit-fuzzy { background: #c9d7ff; }
.rd-passage mark.evidence { outline: 2px solid #7048e8; outline-offset: 0; }
.rd-legend mark { padding: 0 4px; border-radius: 2px; margin-right: 6px; }
"""
