"""Third-party text for the benchmarks: passages of the standard library's and installed
packages' docstrings — text nobody here wrote, in a stable order, so every run of
:mod:`benchmarks.bench` and :mod:`benchmarks.dashboard` measures the same corpus.

It is its own module so the query benchmark and the dashboard benchmark share it without
importing each other."""

from __future__ import annotations

import ast
import random
import sysconfig
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragdash.text import tokenize

__all__ = ["docstrings", "passage_texts", "remixed", "source_files", "split_passages"]

MIN_PASSAGE_CHARS, MAX_PASSAGE_CHARS = 200, 900
_DOC_NODES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def source_files() -> Iterator[Path]:
    """Standard-library sources, then installed packages', in a stable order (no tests)."""
    paths = sysconfig.get_paths()
    stdlib, purelib = Path(paths["stdlib"]), Path(paths["purelib"])
    for root, skip_site in ((stdlib, True), (purelib, False)):
        for path in sorted(root.rglob("*.py")):
            parts = set(path.relative_to(root).parts)
            if (skip_site and "site-packages" in parts) or parts & {"test", "tests"}:
                continue
            yield path


def docstrings(path: Path) -> list[str]:
    """The module, class and function docstrings of one source file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return []
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        text = ast.get_docstring(node)
        if text:
            found.append(text)
        stack.extend(n for n in reversed(node.body) if isinstance(n, _DOC_NODES))
    return found


def split_passages(text: str) -> list[str]:
    """Blank-line paragraphs merged up to :data:`MIN_PASSAGE_CHARS`, long ones cut at lines."""
    pieces: list[str] = []
    for para in text.split("\n\n"):
        lines, size = [], 0
        for line in para.strip().splitlines():
            if lines and size + len(line) > MAX_PASSAGE_CHARS:
                pieces.append("\n".join(lines))
                lines, size = [], 0
            lines.append(line)
            size += len(line) + 1
        if lines:
            pieces.append("\n".join(lines))
    merged: list[str] = []
    for piece in pieces:
        if merged and len(merged[-1]) < MIN_PASSAGE_CHARS:
            merged[-1] = f"{merged[-1]}\n\n{piece}"
        else:
            merged.append(piece)
    return [m for m in merged if len(tokenize(m)) >= 5]


def passage_texts(count: int) -> list[str]:
    """``count`` distinct passages of third-party text (fewer if the sources run out)."""
    seen: dict[str, None] = {}
    for path in source_files():
        for doc in docstrings(path):
            for text in split_passages(doc):
                seen.setdefault(text)
                if len(seen) >= count:
                    return list(seen)
    return list(seen)


def remixed(texts: Sequence[str], count: int, seed: int = 3) -> list[str]:
    """``count`` more distinct passages when the sources run out (a million passages is
    more docstring text than a Python install holds): the first half of one passage joined
    to the second half of another, cut at spaces — still text nobody here wrote, with the
    same vocabulary and the same passage lengths."""
    rng = random.Random(seed)
    seen = set(texts)
    extra: list[str] = []
    while len(extra) < count and len(texts) > 1:
        a, b = rng.choice(texts), rng.choice(texts)
        head = a[: a.find(" ", len(a) // 2)] if " " in a[len(a) // 2 :] else a
        tail = b[b.find(" ", len(b) // 2) :] if " " in b[len(b) // 2 :] else b
        text = f"{head}{tail}"
        if text not in seen:
            seen.add(text)
            extra.append(text)
    return extra
