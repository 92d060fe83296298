r"""The one path from untrusted text to a Streamlit element that interprets Markdown.

Streamlit draws almost every string as Markdown — ``st.markdown`` and ``st.caption``, the
alerts, progress and status text, toasts, every widget label, ``help`` tooltip and
``format_func`` result, expander and tab labels — with its own additions on top: colored text
``:red[...]``, icons ``:material/...:``, emoji shortcodes ``:smile:`` and ``$``-LaTeX. A
document id, a file name, a URL parameter, a metadata cell or a case name shown there as it
is could draw an image from any host (``![x](http://evil.example/x.png)``), a clickable
phishing link, colored text or a heading inside the verdict box. And a bidirectional control
(U+202E) shown raw reverses the text around it, so a label would not read as it is stored.

Every such string goes through one of three functions here (an architecture test checks the
UI modules for Streamlit text calls fed anything else):

* :func:`literal` — text inside Markdown prose (captions, alerts, ``st.markdown``): shown
  exactly as typed, line breaks kept.
* :func:`label` — a one-line label (widget, expander, tab, option, progress text): as
  :func:`literal`, and a line break is shown as its code point too (a label is one line).
* :func:`code` — an inline code span (monospace), for ids and commands.

(:func:`plain` is for the few elements that show plain text: select box options, and
:func:`grid` for every table drawn with ``st.dataframe``: its cells are plain text, but a
raw U+202E in a cell reverses it all the same.)

All three show bidirectional controls and other invisible format characters as visible code
points, the way the passage view does (``⟨U+202E⟩``)::

    >>> print(literal("**bold** ![x](evil.png) :red[alarm] $x^2$"))
    \*\*bold\*\* \!\[x\]\(evil\.png\) \:red\[alarm\] \$x\^2\$
    >>> print(label("pay \u202eevil\u202c now\n# next"))
    pay ⟨U\+202E⟩evil⟨U\+202C⟩ now⟨U\+000A⟩\# next
    >>> print(code("a`b \u2066x"))
    `` a`b ⟨U+2066⟩x ``
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragdash.visible import visible_controls

__all__ = [
    "code", "colored_grid", "grid", "label", "literal", "plain", "upper_first", "visible_controls",
]  # fmt: skip

#: CommonMark lets a backslash escape any ASCII punctuation character, and an escaped one is
#: never markup: escaping all of them (rather than a list of the ones that are markup today)
#: also covers Streamlit's additions (``:``, ``$``, ``[``) and GFM's autolinks (``.``, ``@``,
#: ``/``) and entity references (``&``).
_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
#: GFM turns bare URLs and e-mail addresses into links *after* parsing, from the text itself,
#: so escaping cannot stop it: a word joiner (U+2060, invisible, no line break) after the
#: scheme, after ``www`` and after ``@`` keeps the text from matching.
_AUTOLINK = re.compile(r"(?i)(https?(?=:)|\bwww(?=\.)|@)")


def _escape_line(line: str) -> str:
    line = _AUTOLINK.sub("\\1\u2060", line)
    escaped = _PUNCTUATION.sub(r"\\\1", line)
    # Leading spaces would make an indented code block (four) or be dropped: keep them as
    # no-break spaces (an entity, so no parser takes them for indentation).
    stripped = escaped.lstrip(" ")
    return "&#160;" * (len(escaped) - len(stripped)) + stripped


def upper_first(text: str) -> str:
    """``text`` with its first letter upper-cased and the rest as it is. ``str.capitalize``
    lower-cases the rest too: "without Recency tie-break or Skip withdrawn" read "without
    recency tie-break or skip withdrawn", and a document id ``RFC-7`` would read ``rfc-7``.

    >>> upper_first("the old one: without Skip withdrawn"), "ab RFC".capitalize()
    ('The old one: without Skip withdrawn', 'Ab rfc')
    """
    return text[:1].upper() + text[1:]


def literal(value: object) -> str:
    """``value`` as Markdown that shows exactly its text: no markup, link, image, color,
    icon, emoji or formula; invisible characters as code points; line breaks kept (as hard
    breaks, so a blank line cannot start a new block).

    >>> literal("x\\n\\n    ![i](u)").split("\\n")
    ['x\\\\', '&#160;\\\\', '&#160;&#160;&#160;&#160;\\\\!\\\\[i\\\\]\\\\(u\\\\)']
    """
    lines = visible_controls(str(value), keep_newlines=True).split("\n")
    # A backslash at the end of a line is a hard line break; an empty line would end the
    # paragraph, so it holds a no-break space.
    return "\\\n".join(_escape_line(line) or "&#160;" for line in lines)


def label(value: object) -> str:
    """``value`` as a one-line Markdown label (widgets, expanders, tabs, options, progress
    text): as :func:`literal`, with line breaks shown as code points.

    >>> print(label("id\\n\\n![x](evil.png)"))
    id⟨U\\+000A⟩⟨U\\+000A⟩\\!\\[x\\]\\(evil\\.png\\)
    >>> label("http://evil.example") == "http\\u2060\\\\:\\\\/\\\\/evil\\\\.example"
    True
    """
    return _escape_line(visible_controls(str(value)))


def plain(value: object) -> str:
    """``value`` for an element that shows plain text (a select box's or multiselect's
    options, ``st.text``): no escaping — a backslash would show — but invisible and
    reordering characters as code points, on one line.

    >>> plain("**crm.md** \u202eevil")
    '**crm.md** ⟨U+202E⟩evil'
    """
    return visible_controls(str(value))


def code(value: object) -> str:
    """``value`` as an inline code span: monospace, nothing inside is markup. The fence is one
    backtick longer than the longest run inside, with spaces so an edge backtick shows.

    >>> code("crm.md")
    '`crm.md`'
    >>> code("``x")
    '``` ``x ```'
    """
    text = visible_controls(str(value))
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    if runs or text.startswith(" ") or text.endswith(" "):
        text = f" {text} "
    return f"{fence}{text or ' '}{fence}"


def _cell(value: Any) -> Any:
    return visible_controls(value, keep_newlines=True) if isinstance(value, str) else value


def grid(table: Any) -> pd.DataFrame:
    r"""``table`` (a DataFrame, or rows for one) for ``st.dataframe``: every text cell, column
    name and index label with invisible and reordering characters as code points (line
    breaks kept: passage text is shown with them); numbers and dates untouched.

    A grid draws its cells on a canvas as plain text, so Markdown is no danger there, but a
    right-to-left override is: a case named ``\u202eesac`` read as ``case`` in the grid.

    >>> grid(pd.DataFrame({"case\u202e": ["a\u202eb", 1]})).to_dict("list")
    {'case⟨U+202E⟩': ['a⟨U+202E⟩b', 1]}
    """
    shown = table.copy() if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    for column in shown.columns:
        if shown[column].dtype == object or pd.api.types.is_string_dtype(shown[column]):
            shown[column] = shown[column].map(_cell)
    shown.columns = pd.Index([_cell(c) for c in shown.columns], name=shown.columns.name)
    if shown.index.dtype == object:
        shown.index = pd.Index([_cell(i) for i in shown.index], name=shown.index.name)
    return shown


def colored_grid(table: Any, column: str, colors: Mapping[str, str]) -> Any:
    """:func:`grid`, with the cells of ``column`` whose text is a key of ``colors`` drawn in
    that colour (a pandas Styler, which ``st.dataframe`` takes as it takes a frame): the
    documents list's verdict in green, amber or red, its text escaped as every grid's is.

    >>> styled = colored_grid(pd.DataFrame({"verdict": ["good", "x"]}), "verdict",
    ...                       {"good": "#2b8a3e"})
    >>> "color: #2b8a3e" in styled.to_html()
    True
    """
    return grid(table).style.map(
        lambda v: f"color: {colors[v]}; font-weight: 600" if v in colors else "",
        subset=[column],
    )
