"""The documentation does what it says: every shell block marked runnable runs, the README
stays short enough to read in two minutes, and no relative link points nowhere.

A block is runnable when the line before its opening fence is ``<!-- runnable -->``. Only
blocks that are quick and need no network, server or browser are marked; each runs in
``bash -euo pipefail`` from the repository root, with ``python`` the interpreter running the
tests, ``ragdash`` importable from the checkout, and the workspace and caches in a temporary
folder so the docs never write into the checkout or the user's home."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__: list[str] = []

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOC_FILES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- runnable -->"
README_MAX_LINES = 200
#: Pages another branch is writing; linked already, checked as soon as they exist.
BLOCK_TIMEOUT_S = 300

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@dataclass(frozen=True)
class Block:
    """One runnable shell block: where it is (for the test id) and its text."""

    path: Path
    line: int
    code: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def runnable_blocks(path: Path) -> list[Block]:
    """The ```bash blocks of ``path`` whose previous line is the runnable marker.

    A marker before anything but a bash fence is an error in the docs, not a block to skip:
    a marker that silently stops applying would let a statement go untested."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        fence = lines[i + 1].strip() if i + 1 < len(lines) else ""
        where = f"{path.name}:{i + 1}"
        assert fence == "```bash", f"{where}: the runnable marker is not above a ```bash block"
        end = next((j for j in range(i + 2, len(lines)) if lines[j].strip() == "```"), None)
        assert end is not None, f"{where}: the runnable block is never closed"
        blocks.append(Block(path, i + 2, "\n".join(lines[i + 2 : end]) + "\n"))
    return blocks


ALL_BLOCKS = [block for path in DOC_FILES for block in runnable_blocks(path)]


def prose(text: str) -> str:
    """``text`` without fenced blocks and inline code, where brackets are not links."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = "".join(ch for ch in text if ch in " -" or unicodedata.category(ch)[0] in ("L", "N"))
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (repeated headings get -1, -2, … as on GitHub)."""
    seen: dict[str, int] = {}
    result = set()
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def broken_links(path: Path) -> list[str]:
    """Relative links of ``path`` whose file (or heading anchor) does not exist."""
    problems = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target} (no file {dest.relative_to(ROOT)})")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{target} (no heading #{anchor} in {dest.relative_to(ROOT)})")
    return problems


def checkout_changes() -> set[str]:
    """Files git sees as new or changed in the checkout (empty outside a git checkout)."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return set()
    return {line[3:] for line in out.splitlines()}


def test_the_readme_reads_in_two_minutes():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_readme_defines_the_proof_check_before_using_it_and_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    defined = text.index("**proof check**")
    assert "proof check" not in text[:defined].lower()
    linked = {Path(t).name for t in LINK.findall(text) if t.startswith("docs/")}
    for page in (ROOT / "docs").glob("*.md"):
        if page.name != "README.md":
            assert page.name in linked, f"README.md does not link docs/{page.name}"


def test_the_readme_has_three_runnable_cli_examples():
    blocks = [b for b in ALL_BLOCKS if b.path == README]
    assert len(blocks) >= 3
    assert all("python -m ragdash" in b.code for b in blocks)


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file_that_exists(path):
    assert broken_links(path) == []


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_repository_path_the_docs_name_exists(path):
    """`ragdash/cli/checks.py`, `tests/test_bm25.py`, `sample_docs/plans.pdf`: a path written in
    code style is a promise to a reader looking for it (globs such as `ui/pages/*` skipped)."""
    text = path.read_text(encoding="utf-8")
    named = re.findall(r"`((?:ragdash|tests|scripts|benchmarks|docs|sample_docs)/[^`\s]*)`", text)
    missing = sorted({n for n in named if "*" not in n and not (ROOT / n).exists()})
    assert missing == []


def python_on_path(bin_dir: Path) -> Path:
    """A ``python`` in ``bin_dir`` that runs this interpreter (the docs say ``python``): a
    script exec'ing ``sys.executable`` by its own path. A symlink would not do: a venv's
    python reached through a link elsewhere finds no ``pyvenv.cfg`` beside it and runs the
    base interpreter without the venv's packages."""
    script = bin_dir / "python"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} \"$@\"\n")
    script.chmod(0o755)
    return script


def test_the_python_on_path_sees_the_packages_this_interpreter_sees(tmp_path):
    python = python_on_path(tmp_path)
    probe = "import sys, pytest; print(sys.prefix)"
    result = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == sys.prefix


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda b: b.name)
def test_every_runnable_shell_block_exits_0(block, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python_on_path(bin_dir)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "RAGDASH_WORKSPACE": str(tmp_path / "workspace"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HOME": str(tmp_path / "home"),
    }
    env.pop("RAGDASH_DOCS", None)
    before = checkout_changes()
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S,
    )  # fmt: skip
    assert result.returncode == 0, (
        f"{block.name} exited {result.returncode}\n{block.code}\n"
        f"stdout:\n{result.stdout[-2000:]}\nstderr:\n{result.stderr[-2000:]}"
    )
    assert checkout_changes() <= before, f"{block.name} wrote into the checkout"


def test_a_marker_above_anything_but_a_bash_block_is_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- runnable -->\n```python\nprint(1)\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not above a ```bash block"):
        runnable_blocks(page)


def test_a_link_to_a_missing_file_or_heading_is_found(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "there.md").write_text("# A heading — with a dash\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#a-heading--with-a-dash) [gone](missing.md) [bad](there.md#nope)\n"
        "`[not a link](nowhere.md)` [web](https://example.com/x)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.md (no file missing.md)",
        "there.md#nope (no heading #nope in there.md)",
    ]
