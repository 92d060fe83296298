"""Generated cases for a team that has none: seeded passages, a query from each passage's
distinctive words, evidence found in that passage only.

Why these rules: a stress test asks whether a *fault* breaks a case, so a generated case must
pass on the clean corpus with no fix (else the fault is not what breaks it), its query must
lean on words that pick out its document (the words OCR damage and typos then hit, as the
seed's ``warehuse sync`` does), and its evidence must be something only the right passage
holds — a value (``30 days``, ``10 Go``) where there is one, else a short phrase. When the
corpus has text tables, about a third of the cases come from table rows (evidence: the row's
label and a value), so the ``split-table`` fault has cases to cut.

    >>> from ragdash.bundled import SAMPLES; from ragdash.ingestion.ingest import load_folder
    >>> cases = generate_cases(load_folder(SAMPLES), 4, seed=7)
    >>> len(cases), cases[0].kind
    (4, 'generated')
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ragdash.case import Case
from ragdash.checks.proof import found_in_normalized, normalized
from ragdash.ingestion.documents import Corpus, Document
from ragdash.ingestion.tables import cells, is_table_line
from ragdash.retrieval.highlight import has_cjk
from ragdash.retrieval.index import CorpusIndex
from ragdash.settings import FIX_NAMES, STRESS_STATISTICS, Fixes
from ragdash.text import tokenize

__all__ = ["GENERATED_KIND", "STOPWORDS", "TableRow", "generate_cases", "is_value", "table_rows"]

#: The ``kind`` of a generated case.
GENERATED_KIND = "generated"
ALL_FIXES = Fixes().with_only(FIX_NAMES)
#: Words never used as distinctive query words.
STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "among",
        "another",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "can",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "every",
        "few",
        "from",
        "further",
        "have",
        "having",
        "here",
        "hers",
        "herself",
        "himself",
        "however",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "much",
        "must",
        "never",
        "only",
        "other",
        "ought",
        "ours",
        "over",
        "same",
        "shall",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "upon",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "whose",
        "will",
        "with",
        "within",
        "without",
        "would",
        "your",
        "yours",
        "page",
        "pages",
        "table",
        "total",
        "none",
        "shall",
    ]
)
_VALUE = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)*(?:\s?%|\s(?!(?:you|the|and|for|of|to|in|on|or|a|an|at|by|is|are)\b)[A-Za-z]{2,12}\b)?"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z]{4,}")
#: A git diffstat line (``src/ls.c | 12 +++---``, ``logo.png | Bin 0 -> 1234 bytes``):
#: a ``|`` between a path and a change count is no table row.
_DIFFSTAT = re.compile(r"^\s*\S+\s+\|\s+(?:\d+\s+[+-]+|Bin\b.*)\s*$")
#: Candidates a document may offer per round-robin visit before the next document's turn.
_TRIES_PER_VISIT = 4
#: A table row's label and value must fit these lengths to be a case.
MAX_LABEL, MAX_VALUE, MAX_LABEL_WORDS = 40, 20, 5


def is_value(cell: str) -> bool:
    """A table value: short, and mostly digits (``10 Go``, ``$1.2M``, ``37%``, ``1,142``).

    >>> is_value("10 Go"), is_value("apply if your 5-year")
    (True, False)
    """
    chars = [ch for ch in cell if not ch.isspace()]
    digits = sum(ch.isdigit() for ch in chars)
    return 0 < len(cell) <= MAX_VALUE and digits >= max(1, 0.3 * len(chars))


@dataclass(frozen=True)
class TableRow:
    """One data row of a text table: where it is and its cells."""

    doc_id: str
    page: int  # 0-based page of the document
    line: int  # line index within the page's table-laid text
    header: tuple[str, ...]
    cells: tuple[str, ...]


def _page_texts(doc: Document) -> tuple[str, ...]:
    """Each page with its tables as ``|`` rows where ingestion found them."""
    if doc.table_pages is not None and len(doc.table_pages) == len(doc.pages):
        return doc.table_pages
    return doc.pages


def _latin(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def table_rows(doc: Document) -> list[TableRow]:
    """Data rows of the document's text tables with a label (letters) and a value (a cell
    with a digit), each row's table header alongside."""
    rows = []
    header: tuple[str, ...] | None = None
    for page_no, page in enumerate(_page_texts(doc)):
        lines = page.splitlines()
        for i, line in enumerate(lines):
            if _DIFFSTAT.match(line):  # ``file | 3 ++-``: a git diffstat, not a table row
                header = None
                continue
            if not is_table_line(line) or set(line.strip()) <= set("|-: "):
                header = None if not is_table_line(line) else header
                continue
            row = tuple(cells(line))
            if header is None:
                header = row
                continue
            if len(row) < 2 or not re.search(r"[A-Za-z]{3,}", row[0]):
                continue
            if len(row[0]) > MAX_LABEL or not all(_latin(c) for c in (*row, *header)):
                continue
            if len(row[0].split()) <= MAX_LABEL_WORDS and any(is_value(c) for c in row[1:]):
                rows.append(TableRow(doc.doc_id, page_no, i, header, row))
    return rows


class _Stats:
    """Document frequencies and passage texts of the clean corpus."""

    def __init__(self, index: CorpusIndex) -> None:
        self.index = index
        self.passages = index.passages()
        df: dict[str, set[str]] = {}
        self.holders: dict[str, set[int]] = {}
        for n, p in enumerate(self.passages):
            for token in p.tokens:
                df.setdefault(token, set()).add(p.doc_id)
                self.holders.setdefault(token, set()).add(n)
        self.df = {t: len(d) for t, d in df.items()}
        self.documents = max(len(index.corpus.documents), 1)
        self._unique: dict[tuple[str, str], bool] = {}
        self._texts: dict[str, tuple[str, bool]] = {}

    def found(self, evidence: str, passage_text: str) -> bool:
        """:func:`~ragdash.checks.proof.evidence_found`, each passage's text normalized once
        (a large corpus asks about tens of thousands of evidence strings in its passages)."""
        if passage_text not in self._texts:
            text = normalized(passage_text)
            self._texts[passage_text] = (text, has_cjk(text))
        text, cjk = self._texts[passage_text]
        return found_in_normalized(evidence, text, cjk)

    def unique_to(self, evidence: str, passage_text: str) -> bool:
        """``evidence`` is in ``passage_text`` and in no other passage (worked out once per
        pair: later rounds over a document ask again)."""
        key = (evidence, passage_text)
        if key not in self._unique:
            self._unique[key] = self._unique_to(evidence, passage_text)
        return self._unique[key]

    def _unique_to(self, evidence: str, passage_text: str) -> bool:
        if not self.found(evidence, passage_text):
            return False
        tokens = tokenize(evidence)
        if not tokens:
            return False
        holders = set.intersection(*(self.holders.get(t, set()) for t in tokens))
        hits = 0
        for n in sorted(holders):
            if self.found(evidence, self.passages[n].text):
                hits += 1
                if hits > 1:
                    return False
        return hits == 1

    def row_answers(self, query: str, row: TableRow, holder_text: str) -> bool:
        """Whether the table row, read as a passage of its own (header and row, as the
        ``tables`` fix makes a joined table), matches more of the question's words than any
        other passage, the prose around the row included — ragdash's scorer counts matched
        query words. A question's template words (``what``, ``is``, ``the``, ``of``) are in
        almost every prose passage and in no table: a row that wins only with the prose
        around it loses once a cut table is joined into a passage of its own, and the
        split-table fault would then measure the template, not the cut.
        """
        words = set(tokenize(query))
        own = len(words & set(tokenize(" ".join((*row.header, *row.cells)))))
        cells_lower = [c.strip().lower() for c in (*row.header, *row.cells) if c.strip()]
        prose = "\n".join(line for line in holder_text.splitlines()
                          if not any(c in line.lower() for c in cells_lower))  # fmt: skip
        best = len(words & set(tokenize(prose)))
        shared: Counter[int] = Counter()
        for w in words:
            shared.update(self.holders.get(w, ()))
        for n, count in shared.most_common():  # most shared words first
            if count <= best:
                break
            if self.passages[n].text != holder_text:
                best = count
        return own > best

    def distinctive(self, text: str, exclude: Iterable[str], rng: random.Random) -> list[str]:
        """The text's words (4+ letters, no stopwords) rarest first (seeded among ties)."""
        banned = {t for e in exclude for t in tokenize(e)}
        # Sorted before the shuffle: a set lists in hash order, which differs between
        # processes (PYTHONHASHSEED), so the same seed would pick other words each run.
        found = sorted({w.lower() for w in _WORD.findall(text)})
        words = [w for w in found if w not in STOPWORDS and w not in banned and w in self.df]
        rng.shuffle(words)
        return sorted(words, key=lambda w: self.df[w])


def _query(stats: _Stats, text: str, evidence: tuple[str, ...], rng: random.Random) -> str:
    words = stats.distinctive(text, evidence, rng)
    rare = [w for w in words if stats.df[w] <= max(2, stats.documents // 10)]
    if not rare:
        return ""
    chosen = rare[:2] if rng.random() < 0.7 or len(rare) < 3 else [rare[0], rare[2]]
    common = [w for w in words if w not in chosen and stats.df[w] > 1]
    if common:
        chosen.append(common[len(common) // 2])  # a word other documents share, as "sync"
    # in the order the passage has them, so the question reads as the text does
    at = {w: text.lower().find(w) for w in chosen}
    return question(sorted(chosen, key=lambda w: at[w]), evidence)


_UNIT = re.compile(r"^\d[\d.,]*\s?(%|[A-Za-z]{2,12})$")
_YEAR = re.compile(r"^(?:19|20)\d\d$|^\d{4}-\d{2}-\d{2}$")


def question(words: Sequence[str], evidence: tuple[str, ...], field: str = "") -> str:
    """A question a user would type, from a template per kind of evidence, keeping the
    distinctive ``words`` that pick out the passage (the words a fault must hit): a table
    row's value → ``What is the storage of basic plan?``, a value with a unit → ``How many
    days for refund window?``, a year or date → ``When was …?``, another value → ``What is
    the figure for …?``, a phrase → ``What about …?``. Deterministic: no randomness here.

    >>> question(["warehouse", "sync"], ("15 minutes",))
    'How many minutes for warehouse sync?'
    >>> question(["basic", "plan"], ("Basic", "10 Go"), field="storage")
    'What is the storage of basic plan?'
    """
    about = " ".join(words)
    if field:
        return f"What is the {field} of {about}?"
    value = evidence[-1].strip()
    unit = _UNIT.match(value)
    if _YEAR.match(value):
        return f"When was {about}?"
    if unit and unit.group(1) == "%":
        return f"What percentage for {about}?"
    if unit and unit.group(1).isalpha():
        return f"How many {unit.group(1).lower()} for {about}?"
    if re.search(r"\d", value):
        return f"What is the figure for {about}?"
    return f"What about {about}?"


def _passes(index: CorpusIndex, case: Case) -> bool:
    from ragdash.checks.proof import check_case
    from ragdash.errors import QueryError

    try:  # clean, it passes with no fix and with every fix: only a fault can break it
        return all(check_case(index, case, f).passed for f in (Fixes(), ALL_FIXES))
    except QueryError:
        return False


def _prose_candidates(
    stats: _Stats, rng: random.Random, passages: Sequence[int] | None = None
) -> Iterable[tuple[str, tuple[str, ...], str]]:
    """(doc id, evidence, sentence) candidates from prose sentences holding a unique value
    (and unique two-word phrases), ``passages`` (indices; all by default) in seeded order,
    made as they are asked for."""
    order = list(range(len(stats.passages))) if passages is None else list(passages)
    rng.shuffle(order)
    for n in order:
        p = stats.passages[n]
        sentences = [s for s in _SENTENCE.split(p.text) if "|" not in s and len(s) >= 20]
        rng.shuffle(sentences)
        for sentence in sentences:
            if "|" in sentence or len(sentence) < 20:
                continue
            values = [m.group(0).strip().rstrip(".,") for m in _VALUE.finditer(sentence)]
            values = [v for v in values if v and stats.unique_to(v, p.text)]
            if values:
                yield p.doc_id, (rng.choice(values),), sentence
            words = [w for w in re.findall(r"[A-Za-z]{4,}", sentence) if w.lower() not in STOPWORDS]
            pairs = [
                f"{a} {b}"
                for a, b in zip(words, words[1:], strict=False)
                if re.search(rf"\b{a}\s+{b}\b", sentence)
            ]
            rng.shuffle(pairs)
            for phrase in pairs[:3]:
                if stats.unique_to(phrase, p.text):
                    yield p.doc_id, (phrase,), sentence
                    break


def per_document_cap(n: int, documents: int, share: float | None = None) -> int:
    """The most generated cases one document may give: ``share`` of ``n`` rounded up (a
    tenth by default), or an even share when there are fewer documents than ``1 / share``.

    >>> per_document_cap(30, 300), per_document_cap(20, 5), per_document_cap(8, 40)
    (3, 4, 1)
    """
    share = STRESS_STATISTICS.case_share if share is None else share
    return max(1, math.ceil(n * share), math.ceil(n / max(documents, 1)))


def _strata_order(corpus: Corpus, rng: random.Random) -> list[str]:
    """Document ids interleaved across strata (folder × kind: text, pdf), each stratum's
    documents in seeded order — so the cases spread over folders and file types before any
    document gives a second one."""
    strata: dict[tuple[str, str], list[str]] = {}
    for doc in corpus.documents:
        folder = doc.source.replace("\\", "/").rpartition("/")[0]
        strata.setdefault((folder, doc.kind), []).append(doc.doc_id)
    groups = [strata[k] for k in sorted(strata)]
    for g in groups:
        rng.shuffle(g)
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out


def generate_cases(
    corpus: Corpus, n: int, seed: int = 0, index: CorpusIndex | None = None
) -> list[Case]:
    """Up to ``n`` cases over ``corpus``, the same for the same seed; each passes on the
    clean corpus with no fix (ragdash's own scorer, top 1). Table-row cases (evidence: the
    row's label and a value) make about a third when the corpus has text tables."""
    if n <= 0:
        return []
    index = index or CorpusIndex(corpus)
    stats = _Stats(index)
    rng = random.Random(f"generate:{seed}")
    table = []
    for doc in corpus.documents:
        for row in table_rows(doc):
            value = next(c for c in row.cells[1:] if is_value(c))
            table.append((row, value))
    rng.shuffle(table)
    cap = per_document_cap(n, len(corpus.documents))
    given: Counter[str] = Counter()
    by_doc: dict[str, list[int]] = {}
    for i, p in enumerate(stats.passages):
        by_doc.setdefault(p.doc_id, []).append(i)

    def doc_candidates(doc_id: str) -> Iterator[tuple[str, tuple[str, ...], str]]:
        for r in range(3):  # later rounds: other queries
            rng_r = random.Random(f"generate:{seed}:{r}:{doc_id}")
            yield from _prose_candidates(stats, rng_r, by_doc.get(doc_id, ()))

    want_table = min(len(table), max(n // 3, 1) if table else 0)
    cases: list[Case] = []
    seen: set[tuple[str, str]] = set()

    def add(doc_id: str, query: str, evidence: tuple[str, ...], note: str) -> bool:
        if not query or (doc_id, query) in seen:
            return False
        case = Case(f"gen-{len(cases) + 1:03d}", query, doc_id, evidence, 1, GENERATED_KIND, note)
        if given[doc_id] >= cap or not _passes(index, case):
            return False
        seen.add((doc_id, query))
        cases.append(case)
        given[doc_id] += 1
        return True

    made_table = 0
    rank = {d: i for i, d in enumerate(_strata_order(corpus, random.Random(f"strata:{seed}")))}
    seen_rows: Counter[str] = Counter()
    spread: list[tuple] = []
    for row, value in table:  # the k-th row of each document before any document's k+1-th
        seen_rows[row.doc_id] += 1
        spread.append((seen_rows[row.doc_id], rank.get(row.doc_id, 0), len(spread), row, value))
    for *_, row, value in sorted(spread, key=lambda t: t[:3]):
        if made_table >= want_table:
            break
        label = row.cells[0]
        doc_passages = index.passages_of(row.doc_id)
        holder = next(
            (
                p
                for p in doc_passages
                if stats.found(value, p.text) and stats.found(label, p.text)
            ),
            None,
        )
        if holder is None or not stats.unique_to(value, holder.text):
            continue
        # a row label may be a short word ("Pro"): 3 letters are enough here
        words = sorted(
            {
                t
                for t in tokenize(label)
                if len(t) >= 3 and t.isalpha() and t not in STOPWORDS and t in stats.df
            },
            key=lambda t: (stats.df[t], t),
        )
        head = stats.distinctive(" ".join(row.header), (value, label), rng)
        column = row.cells.index(value)
        field = row.header[column].strip().lower() if column < len(row.header) else ""
        field = field if re.fullmatch(r"[a-z][a-z ]{1,30}", field) else ""
        # the row's own words pick it out: the label's, then the rarest of its other
        # cells' (not the value asked for), then the header's — three at most
        others = stats.distinctive(" ".join(c for c in row.cells[1:] if c != value),
                                   (value, label), rng)  # fmt: skip
        about = [w for w in dict.fromkeys([*words[:2], *others[:2], *head[:1]])
                 if w not in field.split()][:3]  # fmt: skip
        about = about or words[:2]
        # the column's name when the header has one ("What is the storage of basic plan?"),
        # with fewer template words when those would outweigh the row's ("What storage for
        # basic plan?"), else the plain question; the first the row answers on its own
        shorter = f"What {field} for {' '.join(about)}?" if field else ""
        forms = (question(about, (label, value), field=field), shorter,
                 f"What is {' '.join(about)}?")  # fmt: skip
        for query in dict.fromkeys(q for q in forms if q):
            if not (about and stats.row_answers(query, row, holder.text)):
                continue  # the template's words, not the row's, would pick the passage
            if add(row.doc_id, query, (label, value),
                   f"table row {label!r} of {row.doc_id} page {row.page + 1}"):
                made_table += 1
                break
    # Round-robin over the documents (strata interleaved): each visit a document offers its
    # next candidates until one passes (a few tries), so every document holding evidence
    # gets a case before any gets a second, and none gets more than ``cap``.
    live = {d: doc_candidates(d) for d in _strata_order(corpus, random.Random(f"strata:{seed}"))}
    while live and len(cases) < n:
        for doc_id in list(live):
            if len(cases) >= n:
                break
            if given[doc_id] >= cap:
                del live[doc_id]
                continue
            for _ in range(_TRIES_PER_VISIT):
                item = next(live[doc_id], None)
                if item is None:
                    del live[doc_id]
                    break
                _, evidence, sentence = item
                if add(doc_id, _query(stats, sentence, evidence, rng), evidence,
                       f"from {doc_id}: {sentence.strip()[:80]!r}"):  # fmt: skip
                    break
    return cases[:n]
