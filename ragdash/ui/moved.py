"""Say why results moved: after an upload, a removal or a metadata edit, the cases whose
verdict changed, each with the passage that now comes first.

A 400-page upload made the bundled ``split-table-control`` case fail with no fix (one of the
new pages outranked the plans PDF) and nothing on the page said so. The Documents page keeps
each case's verdict on the corpus it last showed; when the corpus changes it compares."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ragdash.case import Case
from ragdash.checks.proof import check_case
from ragdash.errors import QueryError
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import Fixes, configuration_title
from ragdash.ui.render import verdict_word
from ragdash.ui.text import literal

__all__ = ["Verdict", "VerdictChange", "changed_verdicts", "render_moved", "verdicts"]

#: (corpus key, fixes label, {case name: Verdict}) of the corpus this session last saw here.
SEEN_KEY = "moved_seen"
#: The changes found at the last corpus change, kept until the next one.
CHANGES_KEY = "moved_changes"


@dataclass(frozen=True)
class Verdict:
    """One case's proof check in short: passed, and which passage came first."""

    passed: bool
    first: str  # the first passage's label, '' when nothing was retrieved


@dataclass(frozen=True)
class VerdictChange:
    case: str
    before: Verdict
    after: Verdict


@st.cache_data(show_spinner="Checking which cases the change moved…", max_entries=8)
def verdicts(
    _index: CorpusIndex, corpus_key: tuple, cases: tuple[Case, ...], _fixes: Fixes, label: str
) -> dict[str, Verdict]:
    """Every case's verdict on this corpus under ``_fixes`` (cached on the corpus key and
    the fixes' ``label``)."""
    del corpus_key, label
    found = {}
    for case in cases:
        try:
            check = check_case(_index, case, _fixes)
        except QueryError:
            continue
        first = check.ranked[0].passage.label if check.ranked else ""
        found[case.name] = Verdict(check.passed, first)
    return found


def changed_verdicts(
    before: dict[str, Verdict], after: dict[str, Verdict]
) -> list[VerdictChange]:
    """The cases in both whose verdict changed, in ``after``'s order.

    >>> changed_verdicts({"a": Verdict(True, "x p1 #1")}, {"a": Verdict(False, "y p3 #3")})
    [VerdictChange(case='a', before=Verdict(passed=True, first='x p1 #1'), after=Verdict(passed=False, first='y p3 #3'))]
    """  # noqa: E501
    return [
        VerdictChange(name, before[name], now)
        for name, now in after.items()
        if name in before and before[name].passed != now.passed
    ]


def render_moved(
    index: CorpusIndex, corpus_key: tuple, cases: list[Case], fixes: Fixes
) -> None:
    """Compare the cases' verdicts with the ones this session saw on the previous corpus
    (same fixes) and list what changed, until the corpus changes again."""
    now = verdicts(index, corpus_key, tuple(cases), fixes, fixes.label)
    seen = st.session_state.get(SEEN_KEY)
    if seen is not None and seen[1] == fixes.label and seen[0] != corpus_key:
        st.session_state[CHANGES_KEY] = changed_verdicts(seen[2], now)
    elif seen is not None and seen[1] != fixes.label:
        st.session_state.pop(CHANGES_KEY, None)  # other fixes: not a change of the documents
    st.session_state[SEEN_KEY] = (corpus_key, fixes.label, now)
    changes = st.session_state.get(CHANGES_KEY)
    if not changes:
        return
    lines = []
    for c in changes:
        first = f"now first: {c.after.first or 'nothing'}"
        if c.before.first and c.before.first != c.after.first:
            first += f" (was {c.before.first})"
        lines.append(
            f"- **{literal(c.case)}**: {verdict_word(c.before.passed)} → "
            f"{verdict_word(c.after.passed)} — {literal(first)}"
        )
    st.warning(
        "**The last change to the documents moved these cases** "
        f"(fixes: {literal(configuration_title(fixes.label if fixes.enabled else 'none'))}):"
        "\n\n" + "\n".join(lines),
        icon=":material/swap_vert:",
    )
