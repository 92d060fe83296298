"""The sidebar, on every page: the retriever, one toggle per fix (greyed out, with the
reason, when it cannot reach the chosen retriever), then *Advanced settings* (collapsed):
the fuzzy rule and threshold, the OCR map, the protected tokens, top-k."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ragdash.errors import SettingsError
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.wordlist import word_list_note
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    FIX_DESCRIPTIONS,
    FIX_NAMES,
    FIX_TITLES,
    FUZZY_RULES,
    Fixes,
    format_ocr_map,
    format_protected,
    parse_ocr_map,
    parse_protected,
)
from ragdash.ui.retriever_picker import fix_note, render_retriever_picker
from ragdash.ui.state import seed_widget, set_view
from ragdash.ui.text import literal
from ragdash.ui.viewstate import MAX_TOP_K, ViewState

__all__ = ["FIX_LABELS", "corpus_caption", "render_sidebar"]

#: The fixes by their display names: the one mapping of the core (every chart uses it).
FIX_LABELS = FIX_TITLES


def render_sidebar(
    view: ViewState, index: CorpusIndex | None, toggles: bool = True
) -> ViewState:
    """Draw the fix controls and return the view with their current values. With
    ``toggles`` False (the Guided tour, where each step turns its own fix on and off) the
    fix toggles are left out, saying so: there they looked live but changed nothing."""
    bar = st.sidebar
    retriever = render_retriever_picker(view.retriever)
    bar.markdown("### Fixes")
    for name in FIX_NAMES:
        seed_widget(f"w_fix_{name}", getattr(view.fixes, name))
    if not toggles:
        bar.caption(
            "On the Guided tour each step runs its case with no fix and with the fix that "
            "repairs it, so the fix toggles are hidden here; they are back on every other page."
        )
    else:
        bar.caption(
            "One toggle per fix; three act on stale versions (the Guided tour says why). "
            "The tour shows which flaw each fix repairs."
        )
    for name in FIX_NAMES if toggles else ():
        applies, how = fix_note(retriever, name)
        bar.toggle(
            FIX_LABELS[name],
            key=f"w_fix_{name}",
            help=FIX_DESCRIPTIONS[name]
            + (f" — with {literal(retriever.kind)}: {literal(how)}" if applies else ""),
            disabled=not applies,
        )
        if not applies:
            bar.caption(f"Not applied with {literal(retriever.kind)}: {literal(how)}")
    seed_widget("w_ocrmap", format_ocr_map(view.fixes.ocr_map))
    seed_widget("w_protect", format_protected(view.fixes.protected))
    with bar.expander("Advanced settings", icon=":material/tune:", expanded=_bad_text_input()):
        fixes, k = _advanced(view)
    if fixes.fuzzy and word_list_note():
        bar.caption(literal(word_list_note() or ""))
    new_view = replace(view, fixes=fixes, k=k, retriever=retriever)
    set_view(new_view)
    if index is not None:
        bar.caption(literal(corpus_caption(index, fixes)))
    return new_view


def _bad_text_input() -> bool:
    """Whether the typed OCR map or protected list cannot be used (then the expander opens,
    so the error next to it is seen)."""
    try:
        parse_ocr_map(str(st.session_state.get("w_ocrmap", "")))
        parse_protected(str(st.session_state.get("w_protect", "")))
    except SettingsError:
        return True
    return False


def corpus_caption(index: CorpusIndex, fixes: Fixes) -> str:
    """``5 documents · 9 passages · 1 error``: counts with their nouns in the right number."""
    corpus = index.corpus
    errors = sum(m.level == "error" for m in corpus.messages)
    warnings = len(corpus.messages) - errors
    parts = [
        _count(len(corpus.documents), "document"),
        _count(len(index.passages(fixes.tables)), "passage"),
    ]
    if errors:
        parts.append(_count(errors, "error"))
    if warnings:
        parts.append(_count(warnings, "warning"))
    return " · ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _advanced(view: ViewState) -> tuple[Fixes, int]:
    """The fuzzy rule and threshold, the OCR map, the protected tokens and top-k; the fixes
    they make with the toggles."""
    bar = st
    seed_widget("w_fuzzyrule", view.fixes.fuzzy_rule)
    rule = bar.selectbox(
        "Fuzzy rule",
        list(FUZZY_RULES),
        key="w_fuzzyrule",
        help="how close a misspelled word must be to match: "
        + "; ".join(f"**{name}**: {text}" for name, text in FUZZY_RULES.items()),
    )
    seed_widget("w_threshold", float(view.fixes.threshold))
    threshold = bar.slider(
        "Fuzzy threshold (similarity %)",
        50.0,
        100.0,
        step=1.0,
        key="w_threshold",
        disabled=rule != DEFAULT_FUZZY_RULE,
        help="rapidfuzz ratio a misspelled word needs to match: too low joins unrelated "
        "words, too high misses common typos (only for the ratio rule; a preset counts edits)",
    )
    ocr_text = bar.text_input(
        "OCR substitutions", key="w_ocrmap", help="digit=letter pairs, e.g. 0=o, 1=i, 5=s"
    )
    ocr_map = view.fixes.ocr_map
    try:
        ocr_map = parse_ocr_map(ocr_text)
    except SettingsError as exc:
        bar.error(literal(str(exc)))
    protect_text = bar.text_input(
        "Never rewrite (protected tokens)",
        key="w_protect",
        help="codes the OCR fix must leave alone whatever the corpus says, e.g. sha1, t1d",
    )
    protected = view.fixes.protected
    try:
        protected = parse_protected(protect_text)
    except SettingsError as exc:
        bar.error(literal(str(exc)))
    seed_widget("w_k", view.k)
    k = bar.number_input("Passages sent to the model (top-k)", 1, MAX_TOP_K, key="w_k")
    on = [name for name in FIX_NAMES if st.session_state[f"w_fix_{name}"]]
    fixes = replace(
        Fixes(), threshold=threshold, ocr_map=ocr_map, fuzzy_rule=rule, protected=protected
    ).with_only(on)
    return fixes, int(k)
