"""Untrusted text made visible: every character that draws nothing or reorders what is
around it shown as its code point (``⟨U+202E⟩``), for every place ragdash shows document
text, file names, case and run names — the dashboard's Markdown, HTML and grids, and the
CLI's output.

Why one function in the base layer: a right-to-left override (U+202E) shown raw makes
``\u202eevil.md`` read as ``dm.live``; a zero-width space makes two ids that print alike
differ; a newline in a run name shown raw fakes a second row of ``runs list``. The
dashboard (:mod:`ragdash.ui.text`), the passage HTML (:mod:`ragdash.retrieval.highlight`)
and the CLI all call :func:`visible_controls`, so they cannot disagree.

What counts: bidirectional controls (U+202A–E, U+2066–9), the marks U+200E/F and U+061C,
every other format character (zero-width space and joiners, the byte-order mark, tag
characters), control characters (NUL, ESC — a terminal would obey an escape sequence),
line and paragraph separators, private-use and unassigned code points. Letters of every
script stay as they are::

    >>> visible_controls("pay \u202eevil\u202c now \u200bCafé 東京")
    'pay ⟨U+202E⟩evil⟨U+202C⟩ now ⟨U+200B⟩Café 東京'
    >>> visible_controls("run one\\nrun two")
    'run one⟨U+000A⟩run two'
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible_controls"]

_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_HIDDEN = {"Cf", "Cc", "Zl", "Zp", "Co", "Cn"}


def _invisible(char: str) -> bool:
    return char in _BIDI or unicodedata.category(char) in _HIDDEN


def _code_point(char: str) -> str:
    return f"⟨U+{ord(char):04X}⟩"


def visible_controls(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every invisible or reordering character replaced by its code point.

    A tab becomes a space; with ``keep_newlines`` a line break stays one (``\\r\\n`` and
    ``\\r`` become ``\\n``), else it shows as ``⟨U+000A⟩`` (a one-line field).

    >>> visible_controls("a\u200bb\\tc\\u0000")
    'a⟨U+200B⟩b c⟨U+0000⟩'
    >>> visible_controls("one\\r\\ntwo", keep_newlines=True)
    'one\\ntwo'
    """
    if keep_newlines:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    out = []
    for char in text:
        if char == "\t":
            out.append(" ")
        elif char == "\n" and keep_newlines or char.isascii() and char.isprintable():
            out.append(char)
        elif _invisible(char):
            out.append(_code_point(char))
        else:
            out.append(char)
    return "".join(out)
