"""``python -m benchmarks.bench --dashboard``: how long each dashboard rerun takes on a big corpus.

The query benchmark (:mod:`benchmarks.bench`) times the core; this one times what a user
waits for. It writes a docs folder of third-party text (the same generator: docstrings of the
standard library and installed packages) at 1k, 10k and 100k passages — ten passages per
Markdown file, seeded dates and statuses, a case library drawn from the passages — and drives
the real app with ``streamlit.testing.v1.AppTest``: the first load, changing the query,
toggling each fix on, then the Test suite, Documents and Triage pages the same way. Each step
is timed in wall and CPU seconds (the app runs in this process, so CPU time is its own even on
a loaded machine), with the core's own top-k query time for the same query and fixes beside
it: the difference is what the page costs on top of the ranking. Not a test: nothing here
asserts a timing; the summary marks reruns over :data:`TARGET_S`.

AppTest runs every tab's body on every run (there is no DOM to switch tabs in), so each
rerun below already pays for every tab of its page; the step list names the tabs it drew.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

__all__ = ["PAGES", "Step", "TARGET_S", "main", "run_sizes", "write_corpus"]

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
#: Every rerun of these pages should take less than this at 100k passages.
TARGET_S = 1.0
PASSAGES_PER_FILE = 10
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
CASES = 24
#: The pages driven, by title and script (relative to ``app.py``).
PAGES = {
    "Explore": "ragdash/ui/pages/explore.py",
    "Test suite": "ragdash/ui/pages/suite.py",
    "Documents": "ragdash/ui/pages/documents.py",
    "Triage": "ragdash/ui/pages/triage.py",
}
#: The fixes toggled on, one rerun each, on every page.
FIXES = ("recency", "status", "ocr", "fuzzy", "tables", "versions", "unicode")


@dataclass(frozen=True)
class Step:
    """One timed interaction: its page, what was done, wall and CPU seconds of the rerun,
    the core's own top-k query time (CPU ms) for the view it ended in, and the tabs drawn."""

    page: str
    action: str
    wall_s: float
    cpu_s: float
    core_ms: float
    tabs: tuple[str, ...] = ()
    first: bool = False  # a page's first visit (may build caches: not a rerun)
    builds: bool = False  # built another inverted index (the unicode or tables tokens)


@dataclass
class SizeResult:
    passages: int
    files: int
    steps: list[Step] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def paragraphs_of(texts: Sequence[str], count: int, min_chars: int = 200) -> list[str]:
    """``count`` one-line paragraphs of at least ``min_chars``, cut at sentence ends (short
    docstrings are merged, long ones cut), so each is a passage of its own in a long file.

    >>> paragraphs_of(["One. Two.", "Three is longer. Four."], 2, min_chars=9)
    ['One. Two.', 'Three is longer.']
    """
    out: list[str] = []
    pending = ""
    for text in texts:
        flat = " ".join(text.replace("---", "- - -").split())
        for sentence in _SENTENCE_END.split(flat):
            pending = f"{pending} {sentence}" if pending else sentence
            if len(pending) >= min_chars:
                out.append(pending)
                pending = ""
                if len(out) >= count:
                    return out
    return out


def write_corpus(paragraphs: Sequence[str], folder: Path, seed: int = 0) -> tuple[int, int]:
    """A docs folder of Markdown files, :data:`PASSAGES_PER_FILE` paragraphs each (one
    passage per paragraph), with front matter (10% undated, 10% withdrawn), and a
    ``cases.json`` of :data:`CASES` proof cases (3 words of a paragraph, one of them the
    evidence). Returns (files, cases)."""
    from ragdash.text import tokenize

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    files = 0
    ids: list[tuple[str, str]] = []
    for start in range(0, len(paragraphs), PASSAGES_PER_FILE):
        chunk = list(paragraphs[start : start + PASSAGES_PER_FILE])
        doc_id = f"d{files:06d}"
        lines = [f"id: {doc_id}", f"subject: passages {start}-{start + len(chunk) - 1}"]
        if rng.random() >= 0.1:
            lines.append(f"updated: {date(2020, 1, 1) + timedelta(rng.randrange(2500))}")
        if rng.random() < 0.1:
            lines.append("status: withdrawn")
        body = "\n\n".join(chunk)
        (folder / f"{doc_id}.md").write_text(
            "---\n" + "\n".join(lines) + "\n---\n" + body + "\n", encoding="utf-8"
        )
        ids.extend((doc_id, t) for t in chunk)
        files += 1
    cases = []
    for i in range(CASES):
        doc_id, text = ids[rng.randrange(len(ids))]
        words = sorted({w for w in tokenize(text) if w.isalpha() and len(w) >= 4})
        if len(words) < 2:
            continue
        picked = rng.sample(words, min(3, len(words)))
        cases.append({"name": f"case-{i:02d}", "query": " ".join(picked),
                      "expected_id": doc_id, "evidence": [picked[0]]})  # fmt: skip
    (folder / "cases.json").write_text(json.dumps({"cases": cases}), encoding="utf-8")
    return files, len(cases)


def _core_ms(query: str, view: object) -> float:
    """CPU milliseconds of the core's own top-k for ``query`` under the view's fixes, on the
    app's cached index (median of 3, after one warm call)."""
    from ragdash.ui.context import current_index

    index = current_index(quiet=True)
    if index is None or not query:
        return 0.0
    fixes, k = view.fixes, view.k  # type: ignore[attr-defined]
    index.top(query, fixes, k)
    times = []
    for _ in range(3):
        start = time.process_time()
        index.top(query, fixes, k)
        times.append(time.process_time() - start)
    return 1000 * statistics.median(times)


def _indexes_built() -> int:
    """How many inverted indexes the app's cached index holds (0 before the first load)."""
    from ragdash.ui.context import current_index

    try:
        index = current_index(quiet=True)
    except Exception:  # noqa: BLE001 — before the first run there is nothing to count
        return 0
    # Distinct objects: a corpus without PDFs shares one index between tables off and on.
    return len({id(v) for v in (getattr(index, "_inverted", {}) or {}).values()})


def _tabs(at: object) -> tuple[str, ...]:
    try:
        return tuple(str(t.label) for t in at.tabs)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 — a page without tabs
        return ()


def drive(
    at: object, page: str, result: SizeResult, query: str, first: bool, only_load: bool = False
) -> None:
    """Time one page: its first visit, a new query, each fix toggled on, then all off."""

    def step(action: str, do: Callable[[], object], is_first: bool = False) -> None:
        # Not before a first load: asking for the index would build it outside the timing.
        before = 0 if is_first else _indexes_built()
        wall, cpu = time.perf_counter(), time.process_time()
        do()
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
        builds = not is_first and _indexes_built() > before
        for exc in at.exception:  # type: ignore[attr-defined]
            result.errors.append(f"{page} / {action}: {exc.message}")
        view = at.session_state["view"]  # type: ignore[index]
        core = _core_ms(view.q, view)
        result.steps.append(Step(page, action, wall, cpu, core, _tabs(at), is_first, builds))
        print(f"  {page:<10} {action:<28} {wall:7.2f} s wall {cpu:7.2f} s CPU"
              f"   core {core:6.2f} ms{'  (built an index)' if builds else ''}",
              flush=True)  # fmt: skip

    if first:
        step("first load", at.run, True)  # type: ignore[attr-defined]
        if only_load:
            return
    else:
        step("open page", lambda: at.switch_page(PAGES[page]).run(), True)  # type: ignore[attr-defined]
        step("rerun (no change)", at.run)  # type: ignore[attr-defined]
    if _has_text_input(at, "w_q"):
        step("change the query", lambda: at.text_input(key="w_q").set_value(query).run())  # type: ignore[attr-defined]  # fmt: skip
    for name in FIXES:
        step(f"toggle {name} on",
             lambda n=name: at.toggle(key=f"w_fix_{n}").set_value(True).run())  # type: ignore[attr-defined]  # fmt: skip
    for name in FIXES:
        at.toggle(key=f"w_fix_{name}").set_value(False)  # type: ignore[attr-defined]
    step("all fixes off", at.run)  # type: ignore[attr-defined]


def _has_text_input(at: object, key: str) -> bool:
    try:
        at.text_input(key=key)  # type: ignore[attr-defined]
        return True
    except KeyError:
        return False


def measure_size(
    texts: Sequence[str], root: Path, queries: Sequence[str], pages: Sequence[str] = tuple(PAGES)
) -> SizeResult:
    """Write the corpus, point the app at it, and drive every page."""
    from streamlit.testing.v1 import AppTest

    docs, ws = root / "docs", root / "workspace"
    files, _ = write_corpus(texts, docs)
    os.environ["RAGDASH_DOCS"], os.environ["RAGDASH_WORKSPACE"] = str(docs), str(ws)
    os.environ.setdefault("RAGDASH_MAX_PASSAGES", str(max(len(texts) * 2, 200_000)))
    result = SizeResult(len(texts), files)
    at = AppTest.from_file(str(APP), default_timeout=3600)
    for i, page in enumerate(pages):
        query = queries[i % len(queries)]
        if i == 0 and page != "Explore":
            drive(at, "Explore", SizeResult(0, 0), query, first=True, only_load=True)
        drive(at, page, result, query, first=i == 0 and page == "Explore")
    from ragdash.ui.context import current_index

    index = current_index(quiet=True)
    if index is not None:
        result.passages = len(index.passages(False))
    return result


def _query_strings(texts: Sequence[str], count: int = 8, seed: int = 3) -> list[str]:
    from ragdash.text import tokenize

    rng = random.Random(seed)
    out = []
    while len(out) < count:
        words = sorted({w for w in tokenize(rng.choice(texts)) if w.isalpha() and len(w) >= 4})
        if len(words) >= 2:
            picked = rng.sample(words, min(3, len(words)))
            if len(picked[-1]) > 5:  # a typo, so fuzzy has work to do
                w = picked[-1]
                picked[-1] = w[:2] + w[3:]
            out.append(" ".join(picked))
    return out


def report(results: Sequence[SizeResult], machine: str) -> str:
    """Markdown: every step per size, then the worst rerun per page and size."""
    out = [f"### Dashboard reruns (AppTest; {machine}; {date.today().isoformat()})", ""]
    out.append("Wall / CPU seconds of each rerun; *core* is the CPU time of the core's own "
               "top-k for the same query and fixes, measured in the same run.")  # fmt: skip
    out.append("")
    sizes = [r.passages for r in results]
    out.append("| page | step | " + " | ".join(f"{n:,} passages" for n in sizes) + " |")
    out.append("|---|---|" + "---:|" * len(sizes))
    keys = list(dict.fromkeys((s.page, s.action) for r in results for s in r.steps))
    for page, action in keys:
        cells = []
        for r in results:
            found = [s for s in r.steps if (s.page, s.action) == (page, action)]
            cells.append(
                f"{found[0].wall_s:.2f} / {found[0].cpu_s:.2f} (core {found[0].core_ms:.1f} ms)"
                if found
                else "n/a"
            )
        out.append(f"| {page} | {action} | " + " | ".join(cells) + " |")
    out += ["", "### Worst rerun per page, CPU s (wall s)", "",
            "First visits and the one rerun that builds a second inverted index (the first "
            "time the Unicode tokenizer is switched on) are left out here; both are in the "
            "table above.", ""]  # fmt: skip
    out.append("| page | " + " | ".join(f"{n:,}" for n in sizes) + " | tabs drawn |")
    out.append("|---|" + "---:|" * len(sizes) + "---|")
    driven = {s.page for r in results for s in r.steps}
    for page in (p for p in PAGES if p in driven):
        cells, tabs = [], ()
        for r in results:
            reruns = [s for s in r.steps if s.page == page and not s.first and not s.builds]
            if not reruns:
                cells.append("n/a")
                continue
            worst = max(reruns, key=lambda s: s.cpu_s)
            tabs = tabs or tuple(dict.fromkeys(next((s.tabs for s in reruns if s.tabs), ())))
            mark = "" if worst.cpu_s < TARGET_S else " **over**"
            cells.append(f"{worst.cpu_s:.2f} ({worst.wall_s:.2f}){mark} — {worst.action}")
        out.append(f"| {page} | " + " | ".join(cells) + f" | {_tab_names(tabs)} |")
    errors = [e for r in results for e in r.errors]
    if errors:
        out += ["", "Exceptions shown by the app:", *(f"- {e}" for e in errors[:20])]
    return "\n".join(out)


def _tab_names(tabs: Sequence[str]) -> str:
    names = list(dict.fromkeys(tabs))
    return ", ".join(names[:6]) + (" …" if len(names) > 6 else "") if names else "—"


def machine_line() -> str:
    import platform

    cpus = os.cpu_count() or 0
    try:
        load = os.getloadavg()[0]
        load_text = f", load {load:.1f}"
    except OSError:
        load_text = ""
    return f"{platform.machine()}, {cpus} CPUs{load_text}, Python {platform.python_version()}"


def run_sizes(sizes: Sequence[int], pages: Sequence[str] = tuple(PAGES)) -> list[SizeResult]:
    """Each size in its own fresh folder; the app's caches are cleared between sizes."""
    import streamlit as st

    from benchmarks.texts import passage_texts

    start = time.perf_counter()
    texts = paragraphs_of(passage_texts(2 * max(sizes)), max(sizes))
    print(f"corpus: {len(texts):,} paragraphs of standard-library and package docstrings "
          f"({time.perf_counter() - start:.1f} s to read)", flush=True)  # fmt: skip
    queries = _query_strings(texts)
    results = []
    for size in sorted({min(s, len(texts)) for s in sizes}):
        st.cache_data.clear()
        st.cache_resource.clear()
        root = Path(tempfile.mkdtemp(prefix=f"ragdash-dash-{size}-"))
        try:
            print(f"{size:,} passages:", flush=True)
            results.append(measure_size(texts[:size], root, queries, pages))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return results


def parse_sizes(values: Sequence[str]) -> list[int]:
    """``1k 10k 100k`` or plain numbers, each a positive whole number of passages."""
    sizes = []
    for value in values:
        text = value.strip().lower().replace("_", "").replace(",", "")
        scale = 1
        if text.endswith("k"):
            text, scale = text[:-1], 1000
        elif text.endswith("m"):
            text, scale = text[:-1], 1_000_000
        if not text.isdigit() or int(text) * scale <= 0:
            raise argparse.ArgumentTypeError(
                f"--sizes: {value!r} is not a positive number of passages (e.g. 1000, 10k)"
            )
        sizes.append(int(text) * scale)
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench --dashboard",
                                     description=__doc__, allow_abbrev=False)  # fmt: skip
    parser.add_argument("--sizes", nargs="+", default=["1k", "10k", "100k"],
                        help="corpus sizes in passages (default: 1k 10k 100k)")  # fmt: skip
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES),
                        metavar="PAGE", help="pages to drive (default: all four)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        sizes = parse_sizes(args.sizes)
    except argparse.ArgumentTypeError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    results = run_sizes(sizes, args.pages)
    print()
    print(report(results, machine_line()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
