"""What Streamlit shows for text ragdash escaped (``ragdash.ui.text`` backslash-escapes every
ASCII punctuation character of data before Markdown sees it)."""

from __future__ import annotations

import re

__all__ = ["unescaped"]


def unescaped(markdown: str) -> str:
    """The text a reader sees: ``Remove bad\\.md`` shows as ``Remove bad.md``."""
    return re.sub(r"\\(.)", r"\1", markdown)


def verdict_boxes(at) -> list[str]:
    """The proof-check verdict boxes an AppTest page drew (``ragdash.ui.render.verdict_panel``),
    in order, as read: ``FAIL · No fix Ranking problem: #1 is crm, …``."""
    import html as html_module

    boxes = []
    for element in at.get("html"):
        body = element.proto.body
        for part in body.split('<div class="rd-verdict ')[1:]:
            text = re.sub(r"<[^>]+>", " ", part.split(">", 1)[1])
            boxes.append(" ".join(html_module.unescape(text).split()))
    return boxes
