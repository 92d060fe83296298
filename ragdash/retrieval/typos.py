"""How typo-like one spelling is of another: a weighted edit distance for choosing among
fuzzy candidates.

A plain similarity treats every edit alike, so ``login`` is as close to ``logic`` as
``warehuse`` is to ``warehouse``. People's typos are not alike: they hit a neighbouring key
(``sunc``), swap two letters (``snyc``), drop one (``warehuse``) or double one
(``poliicy``). :func:`typo_cost` charges those half an edit and any other change a full one
(an extra letter that is neither doubled nor a neighbour's key: three quarters), so among
candidates the most typo-like wins, and :func:`max_typo_cost` lets short words only one
typo-like edit::

    >>> typo_cost("warehuse", "warehouse")
    (0.5, ('dropped letter',))
    >>> typo_cost("login", "logic")
    (1.0, ('replaced letter',))
"""

from __future__ import annotations

__all__ = [
    "KEY_NEIGHBOURS",
    "TYPO",
    "max_typo_cost",
    "typo_cost",
    "typo_cost_value",
    "typo_cost_within",
]

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, frozenset[str]]:
    """Letters next to each letter on a QWERTY keyboard: the same row one key away, or the
    row above or below less than a key away (rows are staggered: ``a`` sits between ``q``
    and ``w``, ``z`` between ``a`` and ``s``)."""
    offsets = (0.0, 0.25, 0.75)
    where = {ch: (r, c + offsets[r]) for r, row in enumerate(_ROWS) for c, ch in enumerate(row)}
    result: dict[str, frozenset[str]] = {}
    for ch, (r, x) in where.items():
        result[ch] = frozenset(
            other
            for other, (r2, x2) in where.items()
            if other != ch
            and ((r2 == r and abs(x2 - x) == 1) or (abs(r2 - r) == 1 and abs(x2 - x) < 1))
        )
    return result


KEY_NEIGHBOURS = _neighbours()

TYPO, OTHER_INSERT, OTHER = 0.5, 0.75, 1.0


#: The edits of :func:`typo_cost`'s alignment, by step code (0 is "same letter").
_HOW = ("=", "neighbouring key", "replaced letter", "dropped letter", "doubled letter",
        "extra letter", "swapped letters")  # fmt: skip
_SAME, _NEAR, _REPLACED, _DROPPED, _DOUBLED, _EXTRA, _SWAPPED = range(7)
_EMPTY: frozenset[str] = frozenset()


def typo_cost(typed: str, word: str) -> tuple[float, tuple[str, ...]]:
    """The cheapest way to turn the intended ``word`` into ``typed``, and its edits in words.

    Costs: a swap of adjacent letters, a neighbouring key, a dropped letter or a doubled
    letter 0.5; a stray extra letter 0.75; any other replacement 1.0 (optimal string
    alignment: each letter is edited once).
    """
    found = typo_cost_within(typed, word, float("inf"))
    assert found is not None  # nothing exceeds an infinite limit
    return found


def typo_cost_within(typed: str, word: str, limit: float) -> tuple[float, tuple[str, ...]] | None:
    """:func:`typo_cost` when its cost is at most ``limit``, else None — worked out only
    near the diagonal, which is why it is cheaper than :func:`typo_cost` and a filter.

    Why it is exact: every step off the diagonal (a dropped or extra letter) costs at least
    :data:`TYPO`, so a cell ``k`` columns off it costs at least ``k * TYPO``; cells beyond
    ``limit / TYPO`` columns cost more than ``limit``, can lie on no alignment within it and
    never tie with one that does. The alignment stops early once two rows in a row (a swap
    skips one row, never two) cost more than ``limit`` everywhere::

        >>> typo_cost_within("warehuse", "warehouse", 0.75)
        (0.5, ('dropped letter',))
        >>> typo_cost_within("login", "logic", 0.75) is None
        True
    """
    steps: list[list[int]] = []
    cost = _align(typed, word, steps, limit)
    if cost > limit:
        return None
    edits: list[str] = []
    i, j = len(typed), len(word)
    while i or j:
        how = steps[i][j]
        if how != _SAME:
            edits.append(_HOW[how])
        if how <= _REPLACED:
            i, j = i - 1, j - 1
        elif how == _DROPPED:
            j -= 1
        elif how == _SWAPPED:
            i, j = i - 2, j - 2
        else:
            i -= 1
    return cost, tuple(reversed(edits))


def typo_cost_value(typed: str, word: str) -> float:
    """:func:`typo_cost`'s cost alone, without the edits (nothing kept to trace them back).

        >>> typo_cost_value("warehuse", "warehouse") == typo_cost("warehuse", "warehouse")[0]
        True
    """
    return _align(typed, word, None, float("inf"))


def _align(typed: str, word: str, steps: list[list[int]] | None, limit: float) -> float:
    """The optimal string alignment of :func:`typo_cost` over rolling rows; ``steps`` (when
    given) receives each cell's cheapest step, the first cheapest in this order: same or
    replaced letter, dropped letter, extra letter, swapped letters. Per letter of ``word``
    its neighbouring keys and the next letter are looked up once, not once per cell. With a
    finite ``limit`` only cells within ``limit / TYPO`` columns of the diagonal are worked
    out (see :func:`typo_cost_within`), and a cost above ``limit`` may come back as inf."""
    m = len(word)
    inf = float("inf")
    get = KEY_NEIGHBOURS.get
    letters: list[str | None] = [*word, None]  # letters[j]: the letter after column j
    near = [get(ch, _EMPTY) for ch in word]
    near.append(_EMPTY)
    two_back = [inf] * (m + 1)
    prev = [j * TYPO for j in range(m + 1)]  # row 0: only dropped letters
    if steps is not None:
        steps.append([_SAME] + [_DROPPED] * m)
    band = m + len(typed) if limit == inf else int(limit // TYPO)
    if band < m:  # row 0 beyond the band costs more than the limit
        prev[band + 1 :] = [inf] * (m - band)
    t_prev = ""
    over_prev = False  # the previous row costs more than the limit everywhere
    for i, t in enumerate(typed, 1):
        row = [inf] * (m + 1)
        how_row = [0] * (m + 1) if steps is not None else None
        doubled_prev = t_prev == t
        if i <= band:  # column 0: extra letters only
            doubled = doubled_prev or letters[0] == t
            row[0] = prev[0] + (TYPO if doubled or t in near[0] else OTHER_INSERT)
            if how_row is not None:
                how_row[0] = _DOUBLED if doubled else _EXTRA
        for j in range(max(1, i - band), min(m, i + band) + 1):
            w = letters[j - 1]
            near_w = near[j - 1]
            if t == w:
                best, how = prev[j - 1], _SAME
            elif t in near_w:
                best, how = prev[j - 1] + TYPO, _NEAR
            else:
                best, how = prev[j - 1] + OTHER, _REPLACED
            c = row[j - 1] + TYPO
            if c < best:
                best, how = c, _DROPPED
            doubled = doubled_prev or letters[j] == t
            c = prev[j] + (TYPO if doubled or t in near_w or t in near[j] else OTHER_INSERT)
            if c < best:
                best, how = c, _DOUBLED if doubled else _EXTRA
            if j > 1 and t_prev == w and t == letters[j - 2] and t != t_prev:
                c = two_back[j - 2] + TYPO
                if c < best:
                    best, how = c, _SWAPPED
            row[j] = best
            if how_row is not None:
                how_row[j] = how
        if steps is not None and how_row is not None:
            steps.append(how_row)
        if limit != inf:
            over = min(row) > limit
            if over and over_prev:
                return inf
            over_prev = over
        two_back, prev, t_prev = prev, row, t
    return round(prev[m], 4)


def max_typo_cost(length: int, edits: int | None = None) -> float:
    """The most typo-like cost a fuzzy match of a ``length``-letter token may have.

    Under 5 letters: one typo-like edit (short words are one edit away from many words).
    With the ``ratio`` rule (``edits`` None): under 9 letters one typo-like edit or one stray
    letter — never a replaced letter that is no neighbouring key, which turns one real word
    into another (``login`` → ``logic``); longer words three typo-like edits' worth. With an
    edit preset allowing ``edits`` edits: that many typo-like edits, or all but one typo-like
    and one stray letter (so ``es-auto``'s one edit at 4 letters never makes ``desk`` of
    ``disk``)."""
    if length < 5:
        return TYPO
    if edits is not None:
        return TYPO * edits + (OTHER_INSERT - TYPO)
    return OTHER_INSERT if length < 9 else 1.5
