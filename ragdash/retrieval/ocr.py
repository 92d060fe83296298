"""OCR repairs with corpus evidence: which damaged-looking tokens the ``ocr`` fix rewrites.

The seed rewrote every letter-led token with a lone mapped digit, so codes became words:
``sha1 → shai``, ``t1d → tid``, ``h1n1 → hini``. Here a token is rewritten only when the
corpus supports it (:func:`judge_token`):

1. it is not on the user's protected list and is not code-shaped
   (:func:`ragdash.text.is_code_like`: ``t1d``, ``h1n1``, ``covid19``, ``x100``);
2. it is not used consistently as it is: a token found as-is in
   :data:`CONSISTENT_DOCUMENTS` or more documents is a real code (``raid1`` in three
   manuals), not a misreading;
3. a reading of it — every digit replaced by a letter the map allows, ``1`` by ``i`` *or*
   ``l`` — is a word the corpus uses (its *support*: the documents that use the word as-is).
   When no reading is a corpus word, a reading of :data:`ENGLISH_MIN_LENGTH` letters or more
   in the English word list counts as support (``c0ntr0ller`` → ``controller`` in a corpus
   that never spells it right); shorter words need the corpus;
4. when several readings are words (of the corpus or the English list), the token is
   ambiguous and left alone (``fa1l``: ``fail`` or ``fall``?) unless one reading is used by
   at least twice as many documents as the next and the next is no English word — readings
   the glyph allows but the map does not (:data:`CONFUSIONS`: ``1`` for ``l`` when the map
   only says ``1=i``) count as rivals too, so a narrow map cannot force ``fall`` into
   ``fail``;
5. a token no reading of which is a word anywhere (``ss0`` where no document spells
   ``sso``) is not rewritten in the corpus, but a query that asks for one of its readings
   (``sso``) matches it: the query is the evidence (:attr:`RepairTable.unsupported`).

Every rewrite carries its evidence for the breakdown and the rewrite budget
(:attr:`Repair.note`): ``0→o: 'contr0ller' → 'controller', 'controller' appears in 4
documents``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

from ragdash.text import is_code_like, letters_by_digit, ocr_readings

__all__ = [
    "CONFUSIONS",
    "CONSISTENT_DOCUMENTS",
    "ENGLISH_MIN_LENGTH",
    "Repair",
    "RepairTable",
    "build_repairs",
    "judge_vocabulary",
    "RepairMemo",
    "judge_token",
]

#: A token found as-is in this many documents is a word or code the corpus uses: kept.
CONSISTENT_DOCUMENTS = 2
#: The shortest reading the English word list alone may support (``fail``/``fall`` are too
#: short to tell apart without the corpus).
ENGLISH_MIN_LENGTH = 6
CORPUS, WORD_LIST, QUERY = "corpus", "word list", "query"
#: The shortest reading a query alone may support.
QUERY_MIN_LENGTH = 3


@dataclass(frozen=True)
class Repair:
    """One rewrite the OCR fix makes, with its evidence."""

    raw: str
    word: str
    changes: tuple[str, ...]  # e.g. ("0→o",)
    support: int  # documents that use ``word`` as-is (0 when the word list supports it)
    raw_documents: int  # documents that hold ``raw``
    source: str = CORPUS  # "corpus", "word list" or "query"

    @property
    def evidence(self) -> str:
        if self.source == WORD_LIST:
            return f"'{self.word}' is an English word (word list; no document spells it so)"
        if self.source == QUERY:
            return f"the query asks for '{self.word}' (no document spells it so)"
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
    #: reading → (raw token, substitutions) of tokens no reading of which the corpus or the
    #: word list supports: only a query asking for the reading repairs them.
    unsupported: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]] = field(
        default_factory=dict
    )

    @classmethod
    def of(
        cls,
        repairs: Mapping[str, Repair],
        refused: Mapping[str, str],
        unsupported: Mapping[str, list[tuple[str, tuple[str, ...]]]] | None = None,
    ) -> RepairTable:
        by_word: dict[str, list[str]] = {}
        for raw in sorted(repairs):
            by_word.setdefault(repairs[raw].word, []).append(raw)
        open_readings = {w: tuple(sorted(r)) for w, r in (unsupported or {}).items()}
        return cls(
            dict(repairs), dict(refused), {w: tuple(r) for w, r in by_word.items()}, open_readings
        )

    def query_supported(self, word: str) -> list[Repair]:
        """Repairs to ``word`` that only a query asking for ``word`` supports."""
        found = self.unsupported.get(word, ())
        return [Repair(raw, word, changes, 0, 0, QUERY) for raw, changes in found]

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
    verdict = _judge(raw, letters, documents, protected, english)
    return verdict if not isinstance(verdict, list) else _NO_SUPPORT.format(raw=raw)


_NO_SUPPORT = "no reading of '{raw}' is a word the corpus uses: kept"


def _judge(
    raw: str,
    letters: Mapping[str, str],
    documents: Callable[[str], int],
    protected: Collection[str],
    english: Collection[str],
) -> Repair | str | list[tuple[str, tuple[str, ...]]] | None:
    """:func:`judge_token`, but a token with no supported reading gives its readings."""
    if not any(ch in letters for ch in raw):
        return None
    if raw in protected:
        return f"'{raw}' is on the protected list: kept"
    if is_code_like(raw):
        return f"'{raw}' looks like a code (letters and digits mixed like an identifier): kept"
    readings = [(w, c) for w, c in ocr_readings(raw, letters) if w != raw]
    if not readings:
        return None
    raw_documents = documents(raw)
    if raw_documents >= CONSISTENT_DOCUMENTS:
        return f"'{raw}' appears as-is in {_documents(raw_documents)}: a code the corpus uses, kept"
    words = [(w, c, documents(w), w in english) for w, c in readings]
    words = [x for x in words if x[2] > 0 or x[3]]
    # Readings the map does not make but the glyph allows (1 for l when the map says 1=i):
    # a word among them makes the token ambiguous just the same.
    mapped = {w for w, _ in readings}
    rivals = [
        (w, c, documents(w), w in english)
        for w, c in ocr_readings(raw, _with_confusions(letters))
        if w != raw and w not in mapped
    ]
    rivals = [x for x in rivals if x[2] > 0 or x[3]]
    if not words:
        if rivals:
            return f"'{raw}' could read '{rivals[0][0]}', which the OCR map does not allow: kept"
        return [(w, c) for w, c in readings if len(w) >= QUERY_MIN_LENGTH and w.isalpha()]
    words.sort(key=lambda x: (-x[2], x[0]))
    best = words[0]
    competitors = sorted(words[1:] + rivals, key=lambda x: (-x[2], x[0]))
    if competitors:
        second = competitors[0]
        if second[3] or second[2] * 2 > best[2]:
            return f"'{raw}' is ambiguous: '{best[0]}' and '{second[0]}' are both words; kept"
    word, changes, support, is_english = best
    if support:
        return Repair(raw, word, changes, support, raw_documents, CORPUS)
    if is_english and len(word) >= ENGLISH_MIN_LENGTH:
        return Repair(raw, word, changes, 0, raw_documents, WORD_LIST)
    return [(word, changes)]


#: Letters each digit is commonly misread for, whatever the OCR map says: used only to see
#: that a token is ambiguous (``fa1l`` reads ``fall`` as well as ``fail``), never to rewrite.
CONFUSIONS: Mapping[str, str] = {
    "0": "o", "1": "il", "2": "z", "3": "e", "4": "a", "5": "s", "6": "bg", "7": "t", "8": "b",
    "9": "g",
}


def _with_confusions(letters: Mapping[str, str]) -> dict[str, str]:
    merged = dict(CONFUSIONS)
    for digit, options in letters.items():
        merged[digit] = options + "".join(ch for ch in merged.get(digit, "") if ch not in options)
    return merged


def build_repairs(
    words: Iterable[str],
    ocr_map: Iterable[tuple[str, str]] | Mapping[str, str],
    documents: Callable[[str], int],
    protected: Collection[str] = (),
    english: Collection[str] = frozenset(),
) -> RepairTable:
    """The :class:`RepairTable` of a vocabulary: every token with a mapped digit judged."""
    return judge_vocabulary(words, ocr_map, documents, protected, english).table()


@dataclass(frozen=True, eq=False)
class RepairMemo:
    """Every OCR candidate of a vocabulary with its verdict, and for each word the
    candidates whose verdict read that word's document count. Why: a faulted corpus differs
    from the clean one in a few documents, so only the candidates that read a count those
    documents change are judged again (:func:`judge_vocabulary` with ``base``) — the same
    table, without going over every token's readings once per variant.

        >>> df = {"contr0ller": 1, "controller": 4}
        >>> memo = judge_vocabulary(df, {"0": "o"}, lambda w: df.get(w, 0))
        >>> memo.table().repairs["contr0ller"].word, memo.readers["controller"]
        ('controller', ('contr0ller',))
    """

    words: Collection[str]  # the vocabulary judged
    verdicts: dict[str, object]  # candidate → Repair, refusal, open readings or None
    readers: dict[str, tuple[str, ...]]

    def table(self) -> RepairTable:
        repairs: dict[str, Repair] = {}
        refused: dict[str, str] = {}
        unsupported: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for word, verdict in self.verdicts.items():
            if isinstance(verdict, Repair):
                repairs[word] = verdict
            elif isinstance(verdict, list):
                refused[word] = _NO_SUPPORT.format(raw=word)
                for reading, changes in verdict:
                    unsupported.setdefault(reading, []).append((word, changes))
            elif verdict is not None:
                refused[word] = verdict  # type: ignore[assignment]
        return RepairTable.of(repairs, refused, unsupported)


def judge_vocabulary(
    words: Iterable[str],
    ocr_map: Iterable[tuple[str, str]] | Mapping[str, str],
    documents: Callable[[str], int],
    protected: Collection[str] = (),
    english: Collection[str] = frozenset(),
    base: RepairMemo | None = None,
    dirty: Collection[str] = (),
) -> RepairMemo:
    """Judge every candidate of ``words`` (:func:`judge_token`). With ``base`` (the memo of
    another vocabulary under the same map, protected list and word list) and ``dirty`` (every
    word whose document count may differ between the two), a candidate of both whose
    verdict read no dirty count keeps its verdict; the rest are judged again."""
    letters = letters_by_digit(tuple(ocr_map.items()) if isinstance(ocr_map, Mapping) else ocr_map)
    words = words if isinstance(words, Collection) else tuple(words)
    verdicts: dict[str, object] = {}
    readers: dict[str, list[str]] = {}
    stale: set[str] = set()
    if base is not None:
        stale = {raw for w in dirty for raw in base.readers.get(w, ())}
    read: list[str] = []

    def counted(word: str) -> int:
        read.append(word)
        return documents(word)

    for word in words:
        if base is not None and word in base.words and word not in stale:
            if word in base.verdicts:
                verdicts[word] = base.verdicts[word]
            continue
        if not any(ch in letters for ch in word):
            continue
        read.clear()
        verdicts[word] = _judge(word, letters, counted, protected, english)
        for w in read:
            readers.setdefault(w, []).append(word)
    if base is not None:  # readers of kept verdicts are the base's (they read the same words)
        for w, raws in base.readers.items():
            kept = [r for r in raws if r not in stale and r in verdicts]
            if kept:
                readers.setdefault(w, []).extend(kept)
    return RepairMemo(words, verdicts, {w: tuple(r) for w, r in readers.items()})
