"""A general English word list: a query word found in it is a real word, never a typo.

Why: fuzzy matching at a usable threshold joins real words to other real words (``login`` →
``logic`` at ratio 80, ``desk`` → ``disk`` at one edit). The corpus alone cannot say that
``login`` is a word when no document uses it; a dictionary can.

The list is Debian's ``wamerican`` (``/usr/share/dict/words``; ``scripts/test.sh`` installs
it), or the file named by ``RAGDASH_WORDS``. When it is absent the fuzzy fix still works and
only corpus words are protected; :func:`word_list_note` says so in words for the UI and CLI.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

__all__ = ["DEFAULT_WORDS_PATH", "english_words", "word_list_note", "words_path"]

DEFAULT_WORDS_PATH = Path("/usr/share/dict/words")
_DEFAULT_TEXT = str(DEFAULT_WORDS_PATH)


def words_path() -> Path:
    """Where the word list is read from: ``RAGDASH_WORDS`` or the Debian default."""
    return Path(os.environ.get("RAGDASH_WORDS") or DEFAULT_WORDS_PATH)


@lru_cache(maxsize=4)
def _load(path: str) -> frozenset[str]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    # "Bill" and "bill" are one token to the retriever; "isn't" is no token at all.
    return frozenset(w.casefold() for w in text.split() if w.isalpha())


def english_words() -> frozenset[str]:
    """The words of the list, casefolded (empty when the list is missing). Asked once per
    fuzzy query token, so the cached list is found by the setting's text, without building
    a path each time."""
    return _load(os.environ.get("RAGDASH_WORDS") or _DEFAULT_TEXT)


def word_list_note() -> str | None:
    """None when the word list is loaded; otherwise what is missing and what it costs."""
    if english_words():
        return None
    return (
        f"No English word list at {words_path()}: the fuzzy fix protects only words the corpus "
        "uses, so a real word no document uses may be matched to a word one typo away "
        "(form → from). Install Debian's wamerican or set RAGDASH_WORDS to a word-per-line file."
    )
