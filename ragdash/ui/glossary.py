"""Plain words for every term the pages use: one glossary, shown as hover help.

A stakeholder met "p90 chars", "side-by-side bands", "MRR" or "all-but-ocr" with nothing to
say what they mean. Every table column, metric and HTML table header the pages show has an
entry here (tests/test_glossary.py opens each page and checks), and the pages take their
``help=`` tooltips from it — a table drawn through :func:`show_table` gets each column's
definition as its header tooltip, an :func:`html_table <ragdash.ui.render.html_table>` as
its header's ``title``. docs/dashboard.md's *Glossary* section lists the same entries
(tested), so a term reads the same on the page and in the docs.

>>> define("MRR").startswith("Mean reciprocal rank")
True
>>> define("hit@k") == define("HIT@K")
True
>>> define("no such term") is None
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from ragdash.ingestion.scans import LOW_CONFIDENCE
from ragdash.retrieval.highlight import escape_text
from ragdash.settings import FIX_DESCRIPTIONS, FIX_TITLES, configuration_title
from ragdash.ui.text import grid

__all__ = [
    "CONFIGURATIONS",
    "GLOSSARY",
    "define",
    "glossary_markdown",
    "help_for",
    "render_glossary",
    "show_table",
]

#: The fixes and the configurations of the ablation, by the names the heatmap, the tables
#: and the sidebar give them (:func:`ragdash.settings.configuration_title`): "Skip
#: withdrawn", never ``status`` — whose entry was the document status column's tooltip.
CONFIGURATIONS: dict[str, str] = {
    "No fix": "No fix turned on: the retriever as it ranks out of the box.",
    **{
        FIX_TITLES[name]: f"Only this fix on: {text}."
        for name, text in FIX_DESCRIPTIONS.items()
    },
    "All fixes": "Every fix turned on at once.",
    "All but …": "Every fix but the one named (All but OCR normalization: every fix except "
    "OCR normalization) — shows whether the others cover for it.",
}

#: Term → one plain sentence or two. Keys are the words as the pages show them; lookups
#: ignore case (:func:`define`).
GLOSSARY: dict[str, str] = {
    # --- the proof check and its words
    "proof check": "For one question: is the expected document ranked first (#1), and do the "
    "top k passages sent to the model contain every evidence string? PASS if both, FAIL "
    "otherwise.",
    "verdict": "PASS or FAIL from the proof check (ERROR when the retriever did not answer).",
    "diagnosis": "Why a case fails: ranking (the right document is not ranked first) or "
    "extraction (it is first, but the evidence is missing from the text sent to the model); "
    "pass when it passes.",
    "ranking": "A ranking failure: another document is ranked first, not the expected one.",
    "extraction": "An extraction failure: the expected document is first, but the words that "
    "prove the answer are not in the passage (lost when the file was read or cut).",
    "evidence": "The exact words the right passage must contain for the answer to count, "
    "e.g. '30 days'. Matched as whole words: '4 disks' is not found inside '24 disks'.",
    "missing evidence": "Evidence strings not found in the passages returned.",
    "missing": "Evidence strings not found in the passages returned.",
    "case": "A saved question with the document that should answer it and the evidence it "
    "must contain — one test of the retriever.",
    "query": "The question as a user typed it.",
    "expected": "The document that should answer the query.",
    "ranked first": "The document the retriever put at the top.",
    "top k": "How many passages are sent to the model: the evidence must be in their text. "
    "The expected document must still be ranked first.",
    "configuration": "Which fixes are on for that row (see the fix names in this glossary).",
    "fixes": "The fixes turned on (see the fix names in this glossary).",
    "passed": "How many cases pass under that configuration, of all cases.",
    "errors": "Cases the retriever failed to answer (counted as misses).",
    "message": "What an external retriever said: an error, or how it rewrote the query.",
    # --- retrieval metrics
    "hit@k": "Share of cases whose expected document is in the top k (1 = all of them).",
    "recall@k docs": "Share of the expected documents found in the top k. One expected "
    "document per case, so it equals hit@k.",
    "recall@k evidence": "Share of the evidence strings found in the text of the top-k "
    "passages.",
    "evidence@k": "Recall of the evidence at k: share of the evidence strings found in the "
    "text of the top-k passages.",
    "MRR": "Mean reciprocal rank: 1 when the expected document is first, 1/2 when second, "
    "1/3 when third… averaged over the cases. Higher is better.",
    "nDCG@k": "Like MRR but gentler with lower ranks: 1 / log2(rank + 1) for the expected "
    "document, 0 if it is not in the top k.",
    # --- the score breakdown (Explore)
    "passage": "A piece of a document (a page, a section, a table) that the retriever ranks.",
    "rank": "The position in the results: #1 is the top result.",
    "score": "The points a passage earned for the query; the highest is ranked first.",
    "query token": "One word of the query, as the retriever reads it.",
    "matched": "The word in the passage that the query word matched.",
    "how": "How the words matched: exact, OCR-normalized (a misread digit undone) or fuzzy "
    "(a close spelling).",
    "similarity": "How alike two spellings are, 0–100 (fuzzy matches only).",
    "points": "What this word added to the passage's score.",
    "rewrite / why": "How the word was rewritten before matching, and why.",
    # --- the ablation and the fragility search (Test suite)
    "fault": "The kind of damage applied to the query: OCR misreads or keyboard typos.",
    "edits": "How many characters were changed in the query before the check failed.",
    "evaluations": "How many corrupted queries the search tried.",
    "outcome": "What the search found: the query breaks after some edits, already fails, "
    "or survived every edit tried.",
    "failure": "How the corrupted query failed (ranking or extraction).",
    "corrupted query": "The query after the edits that made the check fail.",
    "sentence": "The result in one sentence.",
    # --- Documents
    "order": "The document's place in the list: with no fix on, a tie in score goes to the "
    "one listed first.",
    "id": "The document's name in the corpus (from metadata or the file name).",
    "subject": "What the document is about (from metadata).",
    "file": "The file the document was read from.",
    "kind": "The file type: text (.md, .txt) or pdf.",
    "pages": "How many pages the document has (or which pages a row covers).",
    "updated": "The document's update date (from metadata); Recency tie-break uses it.",
    "status": "current or withdrawn; Skip withdrawn leaves withdrawn documents out.",
    "Tables detected": "Tables found in the PDF's pages.",
    "Text joined across page breaks": "Places where a page break cut text in two and the "
    "tables fix glued it back into one passage.",
    "Table rows rejoined": "Table rows split by a page break (label on one page, value on "
    "the next) that the tables fix put back together.",
    "tables fix": "The Join split tables fix, off or on.",
    "passages": "How many passages the document was cut into.",
    "shortest": "The shortest passage, in characters.",
    "median": "The middle passage length, in characters: half are shorter, half longer.",
    "90% up to": "90 % of passages are this many characters or shorter (the 90th "
    "percentile); the longest tenth are longer.",
    "longest": "The longest passage, in characters.",
    "rows": "How many rows the table has.",
    "columns": "How many columns the table has.",
    "tables side by side": "How many tables sit next to each other on the page; each is read "
    "as its own block.",
    "header": "The table's header row, repeated in each passage cut from it.",
    "rows rejoined": "Rows of this table put back together across a page break.",
    "joined": "Whether the text at this page break was glued into one passage.",
    "why": "The reason for the decision, in full.",
    "last row before": "The last table row on the earlier page.",
    "first row after": "The first table row on the later page.",
    "change": "What the tables fix did to this passage: unchanged, re-cut, new or gone.",
    "before": "The passage with the tables fix off.",
    "after": "The passage with the tables fix on.",
    "where they differ": "The text around the first character that differs, the differing "
    "part marked «like this».",
    "fix off": "Passages holding the evidence with the tables fix off.",
    "fix on": "Passages holding the evidence with the tables fix on.",
    "chars": "Length of the passage in characters.",
    "text": "The passage text.",
    "text before": "The passage's text with the tables fix off.",
    "text after": "The passage's text with the tables fix on.",
    "token": "A word as it appears in the document.",
    "read as": "The word the OCR fix turns it into.",
    "kept because": "Why the OCR fix leaves this word as it is (a code, a word other "
    "documents use as it is, an ambiguous reading, the protected list).",
    "count": "How many times it occurs.",
    "seen elsewhere": "How many times the repaired word appears elsewhere in the corpus.",
    "could be": "The word the token would be with its digits read as letters.",
    "substitution": "The digit=letter pairs that turn the token into the word.",
    "in the map": "Whether the OCR map already holds that substitution.",
    "document": "The document the row is about.",
    "OCR fix rewrites": "Words with a digit read for a letter (c0ntr0ller) that the OCR fix "
    "turns back into the word the rest of the corpus uses; the others are left as they are.",
    # --- scanned pages
    "Words read": "Words Tesseract (the OCR engine) found on the page image.",
    f"Under {LOW_CONFIDENCE:.0f}%": f"Words Tesseract was less than {LOW_CONFIDENCE:.0f} % sure "
    "of, boxed in red on the image.",
    "Fix rewrites": "Words on this page the OCR fix rewrites, boxed in blue on the image.",
    "word": "A word as OCR read it.",
    "confidence": "How sure OCR was of a word, 0–100 % (for a page: the mean over its "
    "words).",
    "clean": "The character in the clean text.",
    "examples": "Words where the confusion happened.",
    # --- Triage
    "how it passes": "Which fixes make the reported query pass.",
    "threshold": "The fuzzy threshold: how alike (0–100) a misspelling must be to match.",
    "repaired": "Queries that fail with no fix and pass with fuzzy matching.",
    "broken": "Queries that pass with no fix and fail with fuzzy matching.",
    "which cases": "The cases repaired, broken or falsely matched at this threshold.",
    "false fuzzy matches": "Fuzzy matches to a word other than the one meant.",
    "repaired cases": "The queries fuzzy matching repaired.",
    "broken cases": "The queries fuzzy matching broke.",
    "false matches": "The wrong fuzzy matches made, as typed → matched.",
    "rule": "The fuzzy rule: ratio (a similarity threshold) or an edit-distance preset "
    "(es-auto, typos-5-9).",
    "description": "What the rule allows, in words.",
    "error": "The kind of error at the chosen threshold.",
    "rate": "Share of letters corrupted in each query.",
    "total": "How many corrupted queries were run.",
    "pass rate": "Share of corrupted queries that still pass (1 = all).",
    "reason": "Why the case is in the library.",
    "name": "The case's name.",
    "run": "The saved run's number.",
    "when": "When the run was saved.",
    "retriever": "The retriever the cases ran against.",
    "corpus": "A fingerprint of the documents: two runs with the same one searched the "
    "same files.",
    "metric": "The retrieval metric (see hit@k, MRR, nDCG@k).",
    "delta": "After minus before.",
    "problem": "What is wrong with that row.",
    "row": "The row number in the uploaded file.",
    # --- the fixes and configurations (heatmap rows, metric tables)
    **CONFIGURATIONS,
}

_FOLDED = {term.casefold(): text for term, text in GLOSSARY.items()}
#: The configurations' code labels (``status``, ``all-but-ocr``, ``none``) a cell key holds.
_CODES = {"none", "all", *FIX_TITLES, *(f"all-but-{name}" for name in FIX_TITLES)}


def define(term: object) -> str | None:
    """The plain definition of ``term`` (any case), or None when the glossary has none. A
    configuration is defined by its title whether it comes as a code label (``all-but-ocr``,
    a heatmap cell's key) or as shown ("All but OCR normalization")."""
    text = str(term).strip()
    if text.casefold() in _CODES and text.casefold() not in _FOLDED:  # "status": a column
        text = configuration_title(text.casefold())
    key = text.casefold()
    if key.startswith("all but ") and key != "all but …":
        return f"Every fix but {text[len('All but '):]}: shows whether the others cover for it."
    return _FOLDED.get(key)


def help_for(
    columns: Iterable[object], config: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``column_config`` for ``st.dataframe``: each column's glossary definition as its
    header tooltip (a help already given wins) and ``snake_case`` names shown as words; a
    number in ``config`` is that column's width in px.

    >>> help_for(["pass_rate"])["pass_rate"]["label"]
    'pass rate'
    """
    merged: dict[str, Any] = dict(config or {})
    for column in columns:
        name = str(column)
        given = merged.get(name)
        if isinstance(given, str):
            entry: dict[str, Any] = {"label": given}
        elif isinstance(given, int):
            entry = {"width": given}
        else:
            entry = dict(given or {})
        shown = entry.get("label") or name.replace("_", " ")
        if shown != name:
            entry["label"] = shown
        if not entry.get("help") and (definition := define(shown)):
            entry["help"] = definition
        if entry:
            merged[name] = entry
    return merged


def show_table(
    data: pd.DataFrame, *, column_config: Mapping[str, Any] | None = None, **kwargs: Any
) -> Any:
    """``st.dataframe`` of ``data`` through :func:`ragdash.ui.text.grid` (invisible
    characters as code points), every column header with its glossary tooltip."""
    shown = grid(data)
    return st.dataframe(shown, column_config=help_for(shown.columns, column_config), **kwargs)


def glossary_markdown() -> str:
    """The glossary as a Markdown list (what docs/dashboard.md's Glossary section holds)."""
    return "\n".join(f"- **{term}** — {text}" for term, text in GLOSSARY.items())


def render_glossary() -> None:
    """The glossary in the sidebar, collapsed: every term in one place, for the words that
    appear in sentences rather than headers (proof check, ranking, extraction, evidence)."""
    # HTML, not Markdown: a definition list no page test mistakes for its own bullets
    items = "".join(
        f"<dt><b>{escape_text(term)}</b></dt><dd>{escape_text(text)}</dd>"
        for term, text in GLOSSARY.items()
    )
    with st.sidebar.expander("Glossary", icon=":material/menu_book:"):
        st.html(f'<dl class="rd-glossary">{items}</dl>')
