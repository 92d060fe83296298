"""OCR repairs with corpus evidence: which damaged-looking tokens the ``ocr`` fix rewrites.

The seed rewrote every letter-led token with a lone mapped digit, so codes became words:
``sha1 → shai``, ``t1d → tid``, ``h1n1 → hini``. Here a token is rewritten only when the
corpus supports it (:func:`judge_token`):

1. it is not on the user's protected list and is not code-shaped
   (:func:`ragdash.retrieval.tokens.is_code_like`: ``t1d``, ``h1n1``, ``covid19``, ``x100``);
2. it is not used consistently as it is: a token found as-is in
   :data:`CONSISTENT_DOCUMENTS` or more documents is a real code (``raid1`` in three
   manuals), not a misreading;
3. a reading of it — every digit replaced by a letter the map allows, ``1`` by ``i`` *or*
   ``l`` — is a word the corpus uses (its *support*: the documents that use the word as-is).
   When no reading is a corpus word, a reading of :data:`ENGLISH_MIN_LENGTH` letters or more
   in the English word list counts as support (``c0ntr0ller`` → ``controller`` in a corpus
   that never spells it right); shorter words need the corpus;
4. the best-supported reading wins; two readings with the same support are ambiguous
   (``fa1l``: ``fail`` and ``fall`` both in two documents) and the token is left alone.

Every rewrite carries its evidence for the breakdown and the rewrite budget
(:attr:`Repair.note`): ``0→o: 'contr0ller' → 'controller', 'controller' appears in 4
documents``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

from ragdash.retrieval.tokens import is_code_like, letters_by_digit, ocr_readings

__all__ = [
    "CONSISTENT_DOCUMENTS",
    "ENGLISH_MIN_LENGTH",
    "Repair",
    "RepairTable",
    "build_repairs",
    "judge_token",
]

#: A token found as-is in this many documents is a word or code the corpus uses: kept.
CONSISTENT_DOCUMENTS = 2
#: The shortest reading the English word list alone may support (``fail``/``fall`` are too
#: short to tell apart without the corpus).
ENGLISH_MIN_LENGTH = 6
CORPUS, WORD_LIST = "corpus", "word list"


@dataclass(frozen=True)
class Repair:
    """One rewrite the OCR fix makes, with its evidence."""

    raw: str
    word: str
    changes: tuple[str, ...]  # e.g. ("0→o",)
    support: int  # documents that use ``word`` as-is (0 when the word list supports it)
    raw_documents: int  # documents that hold ``raw``
    source: str = CORPUS  # "corpus" or "word list"

    @property
    def evidence(self) -> str:
        if self.source == WORD_LIST:
            return f"'{self.word}' is an English word (word list; no document spells it so)"
        return f"'{self.word}' appears in {_documents(self.support)}"

    @property
    def note(self) -> str:
        """``0→o: 'contr0ller' → 'controller', 'controller' appears in 4 documents``."""
        return f"{', '.join(self.changes)}: '{self.raw}' → '{self.word}', {self.evidence}"


def _documents(n: int) -> str:
    return f"{n} document" if n == 1 else f"{n} documents"


@dataclass(frozen=True)
class RepairTable:
    """The OCR fix's rewrites over one vocabulary: raw token → :class:`Repair`, the reasons
    candidates were refused, and word → the raw tokens repaired to it."""

    repairs: Mapping[str, Repair]
    refused: Mapping[str, str]
    by_word: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, repairs: Mapping[str, Repair], refused: Mapping[str, str]) -> RepairTable:
        by_word: dict[str, list[str]] = {}
        for raw in sorted(repairs):
            by_word.setdefault(repairs[raw].word, []).append(raw)
        return cls(dict(repairs), dict(refused), {w: tuple(r) for w, r in by_word.items()})

    def raws_of(self, word: str) -> tuple[str, ...]:
        """The raw tokens the fix rewrites to ``word``."""
        return self.by_word.get(word, ())


def judge_token(
    raw: str,
    letters: Mapping[str, str],
    documents: Callable[[str], int],
    protected: Collection[str] = (),
    english: Collection[str] = frozenset(),
) -> Repair | str | None:
    """The repair of ``raw`` (see the module docstring), the reason it is refused (a
    sentence), or None when it is no OCR candidate at all (no mapped digit).

    ``documents(word)`` is how many documents use ``word`` as-is::

        >>> df = {"controller": 4, "contr0ller": 1}.get
        >>> judge_token("contr0ller", {"0": "o"}, lambda w: df(w, 0)).note
        "0→o: 'contr0ller' → 'controller', 'controller' appears in 4 documents"
        >>> judge_token("t1d", {"1": "il"}, lambda w: 1)
        "'t1d' looks like a code (letters and digits mixed like an identifier): kept"
    """
    if not any(ch in letters for ch in raw):
        return None
    if raw in protected:
        return f"'{raw}' is on the protected list: kept"
    if is_code_like(raw):
        return f"'{raw}' looks like a code (letters and digits mixed like an identifier): kept"
    readings = ocr_readings(raw, letters)
    if not readings:
        return None
    raw_documents = documents(raw)
    if raw_documents >= CONSISTENT_DOCUMENTS:
        return f"'{raw}' appears as-is in {_documents(raw_documents)}: a code the corpus uses, kept"
    supported = [(w, c, documents(w)) for w, c in readings if w != raw]
    supported = [s for s in supported if s[2] > 0]
    source = CORPUS
    if not supported:
        supported = [
            (w, c, 0) for w, c in readings if len(w) >= ENGLISH_MIN_LENGTH and w in english
        ]
        source = WORD_LIST
    if not supported:
        return f"no reading of '{raw}' is a word the corpus uses: kept"
    supported.sort(key=lambda s: (-s[2], s[0]))
    if len(supported) > 1 and supported[0][2] == supported[1][2]:
        words = " and ".join(f"'{w}'" for w, _, _ in supported[:2])
        how = f"both appear in {_documents(supported[0][2])}" if source == CORPUS else "both words"
        return f"'{raw}' is ambiguous: {words} {how}; kept"
    word, changes, support = supported[0]
    return Repair(raw, word, changes, support, raw_documents, source)


def build_repairs(
    words: Iterable[str],
    ocr_map: Iterable[tuple[str, str]] | Mapping[str, str],
    documents: Callable[[str], int],
    protected: Collection[str] = (),
    english: Collection[str] = frozenset(),
) -> RepairTable:
    """The :class:`RepairTable` of a vocabulary: every token with a mapped digit judged."""
    letters = letters_by_digit(tuple(ocr_map.items()) if isinstance(ocr_map, Mapping) else ocr_map)
    repairs: dict[str, Repair] = {}
    refused: dict[str, str] = {}
    for word in words:
        if not any(ch in letters for ch in word):
            continue
        verdict = judge_token(word, letters, documents, protected, english)
        if isinstance(verdict, Repair):
            repairs[word] = verdict
        elif verdict is not None:
            refused[word] = verdict
    return RepairTable.of(repairs, refused)
