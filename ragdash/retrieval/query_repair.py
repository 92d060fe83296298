"""Query-side fixes: repair the query text itself, so the repair reaches any retriever.

The seed scorer repairs OCR noise and typos *while matching* (a query token may match a
passage word it is not equal to). A retriever ragdash does not own — BM25, a team's
service — only sees the query string, so the same two fixes are applied to the string
before it is sent:

* ``ocr``: a token that looks like a word with a digit misread for a letter is normalized
  (``enterpr1se`` → ``enterprise``) when the corpus has the repaired word and not the token
  itself — corpus evidence, as the seed's OCR fix asks — and the token is neither protected
  nor code-shaped (``sha1``, ``t1d`` stay);
* ``fuzzy``: a word found nowhere in the corpus is replaced by its closest corpus word
  under the fuzzy rule (``warehuse`` → ``warehouse``); a word the corpus has is kept.

::

    >>> repair_query("warehuse sync", Fixes(fuzzy=True), {"warehouse", "sync"})
    RepairedQuery(text='warehouse sync', changes=('warehuse → warehouse',))

An unrepaired query is sent exactly as typed; a repaired one is sent as its tokens joined by
spaces (case and punctuation carry no meaning for a ``[a-z0-9]+`` tokenizer).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ragdash.retrieval.matching import Lexicon, SetLexicon, fuzzy_eligible, fuzzy_lookup
from ragdash.retrieval.ranking import query_tokens
from ragdash.settings import Fixes
from ragdash.text import is_code_like, normalize_ocr, tokenizer

__all__ = ["RepairedQuery", "repair_query"]


@dataclass(frozen=True)
class RepairedQuery:
    """The query to send, and each change made (``old → new``)."""

    text: str
    changes: tuple[str, ...] = ()


def repair_query(
    query: str, fixes: Fixes, vocabulary: AbstractSet[str] | Lexicon
) -> RepairedQuery:
    """Apply the query-side fixes that are on to ``query`` against the corpus
    ``vocabulary`` (a set of words or a :class:`Lexicon`). Raises ``QueryError`` for a query
    that cannot be run."""
    query_tokens(query, fixes.unicode)  # the same refusal as every retriever: empty, too long
    if not (fixes.ocr or fixes.fuzzy):
        return RepairedQuery(query)
    lexicon = vocabulary if hasattr(vocabulary, "fuzzy_matches") else SetLexicon(vocabulary)
    subs = fixes.substitutions
    out: list[str] = []
    changes: list[str] = []
    for token in tokenizer(fixes.unicode)(query):
        new = token
        if fixes.ocr and token not in lexicon and token not in fixes.protected:
            reading = normalize_ocr(token, subs)
            if reading != token and reading in lexicon and not is_code_like(token):
                new = reading
        if fixes.fuzzy and new not in lexicon and fuzzy_eligible(new, fixes.fuzzy_rule):
            found = fuzzy_lookup(lexicon, new, fixes)  # type: ignore[arg-type]
            if found:
                new = max(found, key=lambda item: (item[1], [-ord(c) for c in item[0]]))[0]
        if new != token:
            changes.append(f"{token} → {new}")
        out.append(new)
    if not changes:
        return RepairedQuery(query)
    return RepairedQuery(" ".join(out), tuple(dict.fromkeys(changes)))
