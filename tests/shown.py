"""What Streamlit shows for text ragdash escaped (``ragdash.ui.text`` backslash-escapes every
ASCII punctuation character of data before Markdown sees it)."""

from __future__ import annotations

import re

__all__ = ["unescaped"]


def unescaped(markdown: str) -> str:
    """The text a reader sees: ``Remove bad\\.md`` shows as ``Remove bad.md``."""
    return re.sub(r"\\(.)", r"\1", markdown)
