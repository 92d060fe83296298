"""A general English word list: a query word found in it is a real word, never a typo.

Why: fuzzy matching at a usable threshold joins real words to other real words (``login`` →
``logic`` at ratio 80, ``desk`` → ``disk`` at one edit, ``trail`` → ``rail``). The corpus
alone cannot say that ``login`` is a word when no document uses it; a word list can.

The list is the :data:`TOP_WORDS` most frequent English words of `wordfreq`_, a pip
dependency (its data ships inside the wheel), so every machine — Debian, macOS, Windows, a CI
image — reads the same words and fuzzes the same way; no OS file is consulted. Why a
frequency cut and not the whole list: wordfreq counts the web as written, typos included, and
the common ones (``teh``, ``thier``, ``recieve``, ``untill``) sit just below the cut, while the
words a help desk uses (``login``, ``checklist``, ``firmware``, ``throughput``) sit above it.
``RAGDASH_WORDS`` may name a word-per-line file whose words are *added* (a team's jargon).

:func:`word_list_label` names the list (saved with every run, so a baseline made elsewhere
can be compared); :func:`word_list_note` says in words when something is wrong with it.

.. _wordfreq: https://pypi.org/project/wordfreq/
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

__all__ = [
    "LANGUAGE",
    "TOP_WORDS",
    "english_words",
    "extra_words_path",
    "word_list_label",
    "word_list_note",
]

#: wordfreq's language code of the list.
LANGUAGE = "en"
#: How many of wordfreq's most frequent English words count as words (zipf ≈ 3.1, about
#: once in a million words of text). Above it: ``teh`` (rank ~27,700), ``thier``, ``untill``.
TOP_WORDS = 25_000


def extra_words_path() -> Path | None:
    """``RAGDASH_WORDS``: a word-per-line file added to the list (None when unset)."""
    value = os.environ.get("RAGDASH_WORDS")
    return Path(value) if value else None


@functools.cache
def _wordfreq() -> tuple[frozenset[str], str]:
    """wordfreq's top words (letters only, casefolded) and its version ("" when missing)."""
    try:
        from importlib.metadata import version

        import wordfreq

        words = wordfreq.top_n_list(LANGUAGE, TOP_WORDS)
        release = version("wordfreq")
    except Exception:  # not installed or its data unreadable: the note says so
        return frozenset(), ""
    # "Bill" and "bill" are one token to the retriever; "isn't" is no token at all.
    return frozenset(w.casefold() for w in words if w.isalpha()), release


@functools.lru_cache(maxsize=4)
def _extra(path: str) -> frozenset[str] | None:
    """The words of an extra list (None when it cannot be read)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return frozenset(w.casefold() for w in text.split() if w.isalpha())


@functools.lru_cache(maxsize=4)
def _combined(extra: str) -> frozenset[str]:
    base, _ = _wordfreq()
    added = _extra(extra) if extra else None
    return base | added if added else base


def english_words() -> frozenset[str]:
    """The words of the list, casefolded. Asked once per fuzzy query token, so the merged
    list is cached by the setting's text, without building a path each time."""
    return _combined(os.environ.get("RAGDASH_WORDS") or "")


def word_list_label() -> str:
    """What the list is, in one line: recorded with every run and printed by ``check``, so
    two machines can tell that they fuzz with the same words."""
    base, release = _wordfreq()
    label = (
        f"wordfreq {release} {LANGUAGE} top {TOP_WORDS:,} ({len(base):,} words)"
        if release
        else "none (wordfreq is not installed)"
    )
    extra = extra_words_path()
    if extra is not None:
        added = _extra(str(extra))
        label += (
            f" + {extra.name} ({len(added):,} words)" if added is not None
            else f" + {extra.name} (unreadable)"
        )  # fmt: skip
    return label


def word_list_note() -> str | None:
    """None when the word list is loaded as set; otherwise what is wrong and what it costs."""
    _, release = _wordfreq()
    if not release:
        return (
            "No English word list (the wordfreq package is not installed): the fuzzy fix "
            "protects only words the corpus uses, so a real word no document uses may be "
            "matched to a word one typo away (form → from). Install ragdash's requirements."
        )
    extra = extra_words_path()
    if extra is not None and _extra(str(extra)) is None:
        return (
            f"RAGDASH_WORDS names {str(extra)!r}, which cannot be read: only wordfreq's "
            "English words are used."
        )
    return None
