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

__all__ = ["KEY_NEIGHBOURS", "TYPO", "max_typo_cost", "typo_cost", "typo_cost_value"]

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


def _near(a: str, b: str) -> bool:
    return b in KEY_NEIGHBOURS.get(a, ())


def typo_cost(typed: str, word: str) -> tuple[float, tuple[str, ...]]:
    """The cheapest way to turn the intended ``word`` into ``typed``, and its edits in words.

    Costs: a swap of adjacent letters, a neighbouring key, a dropped letter or a doubled
    letter 0.5; a stray extra letter 0.75; any other replacement 1.0 (optimal string
    alignment: each letter is edited once).
    """
    n, m = len(typed), len(word)
    inf = float("inf")
    neighbours = KEY_NEIGHBOURS
    empty: frozenset[str] = frozenset()
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    step: list[list[str]] = [[""] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    # The options in this order, the first cheapest wins: same letter, replaced letter,
    # dropped letter, extra letter, swapped letters.
    for i in range(n + 1):
        t = typed[i - 1] if i else ""
        doubled_prev = i > 1 and typed[i - 2] == t
        here, above = cost[i], cost[i - 1] if i else None
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            best, how = inf, ""
            w = word[j - 1] if j else ""
            if i and j:
                if t == w:
                    best, how = above[j - 1], "="
                elif t in neighbours.get(w, empty):
                    best, how = above[j - 1] + TYPO, "neighbouring key"
                else:
                    best, how = above[j - 1] + OTHER, "replaced letter"
            if j and here[j - 1] + TYPO < best:  # a letter of the word is missing
                best, how = here[j - 1] + TYPO, "dropped letter"
            if i:  # an extra letter was typed
                doubled = doubled_prev or (j < m and word[j] == t)
                cheap = (
                    doubled
                    or (j and t in neighbours.get(w, empty))
                    or (j < m and t in neighbours.get(word[j], empty))
                )
                c = above[j] + (TYPO if cheap else OTHER_INSERT)
                if c < best:
                    best, how = c, "doubled letter" if doubled else "extra letter"
            if i > 1 and j > 1 and t == word[j - 2] != typed[i - 2] and typed[i - 2] == w:
                c = cost[i - 2][j - 2] + TYPO
                if c < best:
                    best, how = c, "swapped letters"
            here[j], step[i][j] = best, how
    edits: list[str] = []
    i, j = n, m
    while i or j:
        how = step[i][j]
        if how != "=":
            edits.append(how)
        if how in ("=", "neighbouring key", "replaced letter"):
            i, j = i - 1, j - 1
        elif how == "dropped letter":
            j -= 1
        elif how == "swapped letters":
            i, j = i - 2, j - 2
        else:
            i -= 1
    return round(cost[n][m], 4), tuple(reversed(edits))


def typo_cost_value(typed: str, word: str) -> float:
    """:func:`typo_cost`'s cost alone, without the edits: the same recurrence over three
    rolling rows, for ranking many candidates (the edits are worked out for the one kept).

        >>> typo_cost_value("warehuse", "warehouse") == typo_cost("warehuse", "warehouse")[0]
        True
    """
    n, m = len(typed), len(word)
    inf = float("inf")
    neighbours = KEY_NEIGHBOURS
    empty: frozenset[str] = frozenset()
    near_next = [word[j] in neighbours for j in range(m)]  # has a neighbour table at all
    two_back = [inf] * (m + 1)
    prev = [j * TYPO for j in range(m + 1)]  # row 0: only dropped letters
    for i in range(1, n + 1):
        t = typed[i - 1]
        t_prev = typed[i - 2] if i > 1 else ""
        row = [inf] * (m + 1)
        doubled_prev = i > 1 and t_prev == t
        # column 0: extra letters only
        extra = TYPO if (doubled_prev or (m and word[0] == t)
                         or (m and t in neighbours.get(word[0], empty))) else OTHER_INSERT
        row[0] = prev[0] + extra
        for j in range(1, m + 1):
            w = word[j - 1]
            if t == w:
                best = prev[j - 1]
            else:
                best = prev[j - 1] + (TYPO if near_next[j - 1] and t in neighbours[w] else OTHER)
            c = row[j - 1] + TYPO
            if c < best:
                best = c
            cheap = (
                doubled_prev
                or (j < m and word[j] == t)
                or t in neighbours.get(w, empty)
                or (j < m and t in neighbours.get(word[j], empty))
            )
            c = prev[j] + (TYPO if cheap else OTHER_INSERT)
            if c < best:
                best = c
            if i > 1 and j > 1 and t == word[j - 2] != t_prev and t_prev == w:
                c = two_back[j - 2] + TYPO
                if c < best:
                    best = c
            row[j] = best
        two_back, prev = prev, row
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
