"""Query-side fixes: repair the query text itself, so the repair reaches any retriever.

The seed scorer repairs OCR noise and typos *while matching* (a query token may match a
passage word it is not equal to). A retriever ragdash does not own — BM25, a team's
service — only sees the query string, so the same two fixes are applied to the string
before it is sent:

Both go through the seed's own decision — :func:`ragdash.retrieval.matching.plan_with_lexicon`,
the one code path :class:`CorpusIndex` ranks with — so every guard holds for every retriever:

* ``ocr``: a token that looks like a word with a digit misread for a letter is read through
  the OCR map when the corpus evidence supports it (``enterpr1se`` → ``enterprise``);
  protected and code-shaped tokens (``sha1``, ``t1d``) stay;
* ``fuzzy``: a word found nowhere in the corpus may become its most typo-like close corpus
  word (``warehuse`` → ``warehouse``), but never when it is a word of the corpus or of the
  English word list (``login`` stays ``login``, not ``logic``), a short token gets only a
  swap of adjacent letters, and with ``ocr`` on a token is read through the OCR map first
  (``wareh0sue`` → ``warehosue`` → ``warehouse``).

A token is sent as the corpus spells the word the seed matches it to — the clean word when
the corpus has it (``wareh0sue`` → ``warehouse``), else the passage's own spelling: when the
only ``sso`` in the corpus is a scan's ``SS0`` the query asks for ``ss0``, because that is
what a service indexing the exported text can find (``ragdash passages`` keeps the text as
extracted and lists the reading in ``metadata.ocr_readings``).

A token left alone for a reason (an English word, a code) carries the seed's note, which
the retrieval shows.

::

    >>> repair_query("warehuse sync", Fixes(fuzzy=True), {"warehouse", "sync"})
    RepairedQuery(text='warehouse sync', changes=('warehuse → warehouse',), notes=())

An unrepaired query is sent exactly as typed; a repaired one is sent as typed with each
repaired token replaced where it stands, in the typed token's case (``SS0`` → ``SSO``): a
case-sensitive retriever still finds the corpus's words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ragdash.retrieval.matching import Lexicon, QueryPlan, SetLexicon, plan_with_lexicon
from ragdash.retrieval.ranking import query_tokens
from ragdash.settings import Fixes
from ragdash.text import _UNICODE_WORD, TOKEN_PATTERN, tokenizer

__all__ = ["RepairedQuery", "repair_query"]


@dataclass(frozen=True)
class RepairedQuery:
    """The query to send, each change made (``old → new``) and why a token that matches
    nothing was left alone (``notes``, the seed's words: "'login' is an English word: not
    fuzzed")."""

    text: str
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def repair_query(
    query: str, fixes: Fixes, vocabulary: AbstractSet[str] | Lexicon,
    spelled: Callable[[str], Sequence[str]] | None = None,
) -> RepairedQuery:
    """Apply the query-side fixes that are on to ``query`` against the corpus
    ``vocabulary`` (a set of words or a :class:`Lexicon`). ``spelled`` gives how the corpus
    writes a token, most used first (``ss0`` → ``SS0``): a repaired token is sent in a case
    the corpus uses, for a retriever that keeps case. Raises ``QueryError`` for a query
    that cannot be run."""
    query_tokens(query, fixes.unicode)  # the same refusal as every retriever: empty, too long
    if not (fixes.ocr or fixes.fuzzy):
        return RepairedQuery(query)
    lexicon = vocabulary if hasattr(vocabulary, "fuzzy_matches") else SetLexicon(vocabulary)
    tokens = tokenizer(fixes.unicode)(query)
    plan = plan_with_lexicon(tokens, lexicon, fixes)  # type: ignore[arg-type]
    out: list[str] = []
    changes: list[str] = []
    kept: list[str] = []
    for token in tokens:
        new = _replacement(plan, token, lexicon)  # type: ignore[arg-type]
        if new != token:
            changes.append(f"{token} → {new}")
        elif token in plan.notes:
            kept.append(plan.notes[token])
        out.append(new)
    notes = tuple(dict.fromkeys(kept))
    if not changes:
        return RepairedQuery(query, (), notes)
    return RepairedQuery(_in_place(query, tokens, out, fixes.unicode, spelled),
                         tuple(dict.fromkeys(changes)), notes)  # fmt: skip


def _in_place(
    query: str, tokens: list[str], out: list[str], unicode: bool,
    spelled: Callable[[str], Sequence[str]] | None = None,
) -> str:  # fmt: skip
    """``query`` as typed with each repaired token replaced where it stands, in the typed
    typed token's case when the corpus writes it so (``SS0 login`` → ``SSO login``), else
    in the corpus's usual case (``sso`` → ``SS0`` when the scan only reads that): a
    case-sensitive retriever (LangChain's BM25Retriever splits on spaces and keeps case)
    then finds the words as the corpus writes them. Falls back to the tokens joined by
    spaces when the typed text cannot be lined up with its tokens.

    >>> _in_place("Reset the SS0 login.", ["reset", "the", "ss0", "login"],
    ...           ["reset", "the", "sso", "login"], False)
    'Reset the SSO login.'
    """
    lowered = query.casefold() if unicode else query.lower()
    pattern = _UNICODE_WORD if unicode else TOKEN_PATTERN
    spans = [m.span() for m in pattern.finditer(lowered)]
    if len(lowered) != len(query) or [lowered[a:b] for a, b in spans] != tokens:
        return " ".join(out)  # NFKC, CJK bigrams: the typed text does not line up
    parts, at = [], 0
    for (a, b), old, new in zip(spans, tokens, out, strict=True):
        typed = query[a:b]
        if new != old:
            want = new.upper() if typed.isupper() else (
                new[:1].upper() + new[1:] if typed[:1].isupper() else new)  # fmt: skip
            forms = spelled(new) if spelled is not None else ()
            new = want if want in forms or not forms else forms[0]
            parts += [query[at:a], new]
            at = b
    return "".join([*parts, query[at:]])


def _replacement(plan: QueryPlan, token: str, lexicon: Lexicon) -> str:
    """The corpus spelling the seed would match ``token`` to: the token itself when the corpus
    has it (or nothing matches), else the passage token of its strongest repair — a clean
    word before a damaged spelling, then the one more documents use."""
    if token in lexicon:
        return token
    options = plan.candidates.get(token, {})
    if not options:
        return token
    best = max(
        options.values(),
        key=lambda m: (
            m.points,
            (m.passage_token or "").isalpha(),
            lexicon.documents(m.passage_token or ""),
            [-ord(c) for c in m.passage_token or ""],
        ),
    )
    return best.passage_token or token
