"""``python -m benchmarks.docs_numbers``: rerun every run-derived figure README and docs/
state in a generated block, and print, check or refresh them.

A figure in the docs is only worth what the command behind it gives today: stale numbers
in the README (``1/20 → 20/20 … seed and bm25 alike``) had drifted from what ``ragdash
stress`` printed. Each block sits between ``<!-- docs-numbers:NAME -->`` and
``<!-- /docs-numbers -->`` in its page and is written here, from the command it names, the
way that command prints it::

    python -m benchmarks.docs_numbers            # print every fast block
    python -m benchmarks.docs_numbers --check    # exit 1 when a page's block differs
    python -m benchmarks.docs_numbers --write    # refresh the pages' blocks
    python -m benchmarks.docs_numbers --slow --write   # also the dense stress matrix
    python -m benchmarks.docs_numbers --slow --check   # what CI runs where the model is

The fast blocks (check and ablate counts, the stress matrices of the built-in scorer and
bm25 on the samples) take seconds and ``tests/test_docs_numbers.py`` reruns them. A slow
block (the dense model's matrix) is refreshed only with ``--slow`` and names its command
and the date it was run beside the figures. Figures outside blocks (real-scan and
performance history) name their command and date in their own lines.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import json
import os
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["BLOCKS", "Block", "block_text", "main", "page_block", "replace_block"]

ROOT = Path(__file__).resolve().parent.parent

#: The stress run the docs quote (README and docs/stress.md).
STRESS_ARGS = ("--docs", "samples", "--generate", "20", "--seed", "7")
STRESS_COMMAND = "ragdash stress " + " ".join(STRESS_ARGS)
FAULT_WORDS = {"stale": "stale", "ocr-doc": "OCR in the document", "typo": "typo",
               "ocr-query": "OCR in the query", "split-table": "split table"}  # fmt: skip


def _wrapped(text: str) -> str:
    """A sentence as the pages wrap prose (lines of at most 92 characters)."""
    return textwrap.fill(text, 92, break_long_words=False, break_on_hyphens=False)


def ragdash_json(*args: str) -> dict:
    """``ragdash ARGS --json`` run in this process, parsed."""
    from ragdash.cli import main as cli

    out = io.StringIO()
    environ = os.environ.pop("RAGDASH_DOCS", None)
    try:
        with contextlib.redirect_stdout(out):
            cli([*args, "--json"])
    finally:
        if environ is not None:
            os.environ["RAGDASH_DOCS"] = environ
    return json.loads(out.getvalue())


@cache
def _stress(retrievers: str) -> dict:
    """One seeded stress run per retriever list in a process: the README's sentence and
    docs/stress.md's table quote the same run (the result is the same every time: seeded)."""
    return ragdash_json("stress", *STRESS_ARGS, "--retriever", retrievers, "--jobs", "1")


def _none_to_fix(report: dict, retriever: str) -> dict[str, str]:
    """fault → ``none P/T → fix P/T`` for one retriever of a stress report."""
    cells = report["retrievers"][retriever]
    out = {}
    for fault, fix in report["targeted"].items():
        none, fixed = cells[fault]["none"], cells[fault][fix]
        out[fault] = (
            f"{none['passed']}/{none['total']} → {fixed['passed']}/{fixed['total']}"
        )
    return out


def stress_readme() -> str:
    report = _stress("builtin,bm25")
    builtin, bm25 = _none_to_fix(report, "builtin"), _none_to_fix(report, "bm25")
    parts = []
    for fault, words in FAULT_WORDS.items():
        same = builtin[fault] == bm25[fault]
        shown = builtin[fault] if same else f"{builtin[fault]} (bm25 {bm25[fault]})"
        parts.append(f"{words} {shown}")
    return _wrapped(
        f"On the samples (`{STRESS_COMMAND} --retriever builtin,bm25`; passed/total, no fix → "
        f"targeted fix, the built-in scorer, bm25 where it differs): {', '.join(parts)}."
    )


def stress_table() -> str:
    report = _stress("builtin,bm25")
    builtin, bm25 = _none_to_fix(report, "builtin"), _none_to_fix(report, "bm25")
    rows = ["| fault | builtin none → fix | bm25 none → fix |", "|---|---|---|"]
    clean = [report["baseline"][r] for r in ("builtin", "bm25")]
    rows += ["| answered clean | "
             + " | ".join(f"{b['clean_passed']}/{b['cases']}" for b in clean) + " |"]  # fmt: skip
    rows += [f"| {f} | {builtin[f]} | {bm25[f]} |" for f in FAULT_WORDS]
    return f"`{STRESS_COMMAND} --retriever builtin,bm25`:\n\n" + "\n".join(rows)


def stress_dense() -> str:
    dense = _none_to_fix(_stress("dense"), "dense")
    rows = ["| fault | dense none → fix |", "|---|---|"]
    rows += [f"| {f} | {dense[f]} |" for f in FAULT_WORDS]
    return (
        f"`{STRESS_COMMAND} --retriever dense` (all-MiniLM-L6-v2 offline, "
        f"`HF_HUB_OFFLINE=1`; run {dt.date.today().isoformat()} by "
        "`python -m benchmarks.docs_numbers --slow --write`):\n\n" + "\n".join(rows)
    )


def check_counts() -> str:
    none = ragdash_json("check", "--docs", "samples", "--cases", "samples", "--fixes", "none")
    every = ragdash_json("check", "--docs", "samples", "--cases", "samples", "--fixes", "all")
    total = none["passed"] + none["failed"]
    return _wrapped(
        f"with all fixes on every case passes ({none['passed']}/{total} → "
        f"{every['passed']}/{total}: `ragdash check --docs samples --cases samples --fixes "
        "none`, then `--fixes all`)."
    )


def ablate_counts() -> str:
    rows = ragdash_json("ablate", "--docs", "samples", "--cases", "samples")["rows"]
    passed: dict[str, int] = {}
    for r in rows:
        passed[r["configuration"]] = passed.get(r["configuration"], 0) + bool(r["passed"])
    total = len({r["case"] for r in rows})
    shown = ", ".join(f"{c} {n}/{total}" for c, n in passed.items())
    return _wrapped(
        f"`ragdash ablate --docs samples --cases samples`, cases passed per configuration: "
        f"{shown}."
    )


@dataclass(frozen=True)
class Block:
    name: str
    page: str  # relative to the repository
    make: Callable[[], str]
    slow: bool = False


BLOCKS = (
    Block("stress-readme", "README.md", stress_readme),
    Block("stress-samples", "docs/stress.md", stress_table),
    Block("stress-samples-dense", "docs/stress.md", stress_dense, slow=True),
    Block("check-counts", "docs/cli.md", check_counts),
    Block("ablate-counts", "docs/cli.md", ablate_counts),
)


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- docs-numbers:{re.escape(name)} -->\n)(.*?)(\n<!-- /docs-numbers -->)", re.S
    )


def page_block(text: str, name: str) -> str | None:
    """The text of block ``name`` in a page, or None when the page has no such block."""
    found = _pattern(name).search(text)
    return found.group(2) if found else None


def replace_block(text: str, name: str, body: str) -> str:
    return _pattern(name).sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def _undated(text: str) -> str:
    return re.sub(r"\brun \d{4}-\d{2}-\d{2}\b", "run DATE", text)


def block_text(block: Block) -> str:
    return block.make()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.docs_numbers",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--write", action="store_true", help="refresh the pages' blocks")
    parser.add_argument("--check", action="store_true", help="exit 1 when a block differs")
    parser.add_argument("--slow", action="store_true", help="also the slow blocks (dense)")
    parser.add_argument("--only", default="", help="comma-separated block names")
    args = parser.parse_args(argv)
    only = {n for n in args.only.split(",") if n}
    differ = 0
    for block in BLOCKS:
        if (block.slow and not args.slow) or (only and block.name not in only):
            continue
        body = block_text(block)
        page = ROOT / block.page
        text = page.read_text(encoding="utf-8")
        current = page_block(text, block.name)
        if current is None:
            print(f"{block.page}: no block {block.name!r}", file=sys.stderr)
            differ += 1
            continue
        same = _undated(current) == _undated(body)  # a slow block's date is not a figure
        print(f"== {block.name} ({block.page}){'' if same else ': differs'}\n{body}\n")
        if not same:
            differ += 1
            if args.write:
                page.write_text(replace_block(text, block.name, body), encoding="utf-8")
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
