"""``index``, ``inspect``, ``passages``, ``rewrites`` and ``ocr-map``: what ingestion and the
OCR fix make of the documents."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from ragdash.cli.common import (
    EXIT_OK,
    BadInput,
    _cache,
    _docs,
    _fixes,
    _index,
    _LoadProgress,
    _read_text,
    _table,
    emit,
    inputs_line,
    inputs_record,
    say,
)
from ragdash.errors import (
    IngestError,
)
from ragdash.ingestion.textlayer import page_spec
from ragdash.retrieval.saved import check_target
from ragdash.settings import (
    parse_protected,
)
from ragdash.text import more_note

#: Furniture lines ``inspect`` prints before saying how many more there are.
FURNITURE_SHOWN = 20
#: Character confusions ``ocr-map`` prints, most frequent first.
CONFUSIONS_SHOWN = 15

__all__ = ["cmd_index", "cmd_inspect", "cmd_ocr_map", "cmd_passages", "cmd_rewrites"]


def cmd_index(args: argparse.Namespace) -> int:
    """``ragdash index build``: load the docs, build both passage sets' postings, save. The
    output folder is checked first: a folder that is neither new, empty nor a ragdash index
    is refused before minutes of parsing, and left untouched."""
    args.workspace = None
    check_target(args.output)
    say(inputs_line(args))  # which folder the index is of, before minutes of parsing
    index = _index(args)
    started = time.perf_counter()
    for tables in (False, True):
        index.inverted(tables)
    folder = index.save(args.output, _docs(args))
    say(
        f"saved {len(index.passages(False)):,} passages of {len(index.corpus.documents):,} "
        f"documents to {folder} ({time.perf_counter() - started:.1f} s); use it with "
        f"--index {shlex.quote(str(folder))}"
    )
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from ragdash.bundled import file_path
    from ragdash.ingestion.inspection import inspect_pdf
    from ragdash.settings import DEFAULT_OCR_RISK

    path = file_path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{args.file}: cannot be read ({exc.strerror or exc})") from None
    if args.max_pages < 1:
        raise BadInput("--max-pages must be at least 1")
    from ragdash.errors import SettingsError
    from ragdash.ingestion.scans import OcrSettings
    from ragdash.ingestion.textlayer import parse_page_list

    try:
        ocr = OcrSettings(pages=parse_page_list(getattr(args, "ocr_pages", "") or ""))
    except SettingsError as exc:
        raise BadInput(f"--ocr-pages: {exc}") from None
    cache = _cache(args)
    progress = _LoadProgress(cache)
    progress.name = path.name
    try:
        report = inspect_pdf(
            data, max_pages=args.max_pages, progress=progress.page, cache=cache, ocr=ocr
        )
    except IngestError as exc:
        raise BadInput(f"{path.name} {exc}") from None
    finally:
        progress.close()
    if args.json:
        emit(json.dumps({"file": path.name, **report.to_dict()}, indent=2))
        return EXIT_OK
    say(f"{path.name}: {report.pages} page(s)")
    say(f"verdict ({report.level}): {report.verdict}")  # green, amber or red
    for r in report.ocr_read:
        say(
            f"OCR page {r.page}: {r.words} words, {r.unsure} under "
            f"{DEFAULT_OCR_RISK.unsure_below:.0f}% confidence ({r.unsure_share:.0%}), "
            f"{r.uncovered:.0%} of the inked area without words"
        )
    rows: list[tuple[str, ...]] = [("page", "text chars", "tables found")]
    for number, chars in enumerate(report.chars_per_page, start=1):
        found = [
            f"{t.method} {t.rows}x{t.columns}" + (f" x{t.bands} bands" if t.bands > 1 else "")
            for t in report.page_tables
            if t.page == number
        ]
        rows.append((str(number), str(chars), ", ".join(found) or "-"))
    say(_table(rows))
    say(f"\ntables (as the tables fix joins them): {len(report.tables)}")
    if report.tables:
        rows = [("pages", "rows", "columns", "rows re-joined", "header")]
        for t in report.tables:
            span = (
                f"{t.page_start}" if t.page_start == t.page_end else f"{t.page_start}-{t.page_end}"
            )
            columns = f"{t.columns} x{t.bands} bands" if t.bands > 1 else str(t.columns)
            rows.append((span, str(t.rows), columns, str(t.joined_rows), t.header[:110]))
        say(_table(rows))
    say(
        f"fragments joined: {report.fragments_joined} page break(s), "
        f"{report.rows_joined} cut row(s) re-assembled"
    )
    if report.decisions:
        say("\njoin decisions:")
        for d in report.decisions:
            word = "JOINED" if d.joined else "apart"
            say(f"  p{d.page_a}->p{d.page_b} {word}: {d.reason}")
            say(f"    last row before: {d.row_before[:90]}")
            say(f"    first row after: {d.row_after[:90]}")
    if report.furniture:
        say("\npage furniture (kept in page text, skipped when joining):")
        for line in report.furniture[:FURNITURE_SHOWN]:
            say(f"  {line}")
        if len(report.furniture) > FURNITURE_SHOWN:
            say(f"  …{more_note(FURNITURE_SHOWN, len(report.furniture))} (--json lists them all)")
    if report.no_text_pages:
        say(f"\npages with no text layer: {', '.join(map(str, report.no_text_pages))}")
    if report.ocr_empty_pages:
        say(f"OCR ran and found no words on: {', '.join(map(str, report.ocr_empty_pages))}")
    if report.overprinted_pages:
        say(f"letters drawn twice, read once on: {page_spec(report.overprinted_pages)}")
    if report.garbled_pages:
        spec = page_spec(report.garbled_pages)
        say(f"garbled text layer on: {spec} — OCR them: inspect --ocr-pages {spec}")
    rows = [("passages", "count", "min", "median", "p90", "max")]
    for name, s in (
        ("fix off", report.passages_without_fix),
        ("tables fix", report.passages_with_fix),
    ):
        rows.append((name, str(s.count), str(s.min), f"{s.median:g}", str(s.p90), str(s.max)))
    say("\npassage sizes (characters):")
    say(_table(rows))
    for warning in report.warnings:
        say(f"warning: {warning}")
    return EXIT_OK


def cmd_passages(args: argparse.Namespace) -> int:
    """Write the passages the corpus-side fixes leave, for re-indexing elsewhere. Its
    stdout is the passages themselves, so what it ran on goes to stderr first: the inputs
    line, or with ``--json`` one JSON object ``{"inputs": …}``."""
    from ragdash.storage.passages_export import export_passages

    index = _index(args)
    if args.json:
        say(json.dumps({"inputs": inputs_record(args)}), file=sys.stderr)
    else:
        say(inputs_line(args), file=sys.stderr)
    text = export_passages(index, _fixes(args), args.format)
    if args.output:
        from ragdash.atomic import atomic_write

        try:
            atomic_write(args.output, text.encode("utf-8"))
        except OSError as exc:
            raise BadInput(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
        count = _passages_written(text, args.format)
        say(f"ragdash: wrote {count} passage(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _passages_written(text: str, fmt: str) -> int:
    """How many passages ``text`` holds: CSV records (a passage's text may span lines inside
    its quoted field, so lines are no count), else JSON lines."""
    if fmt == "csv":
        import csv
        import io

        return max(sum(1 for _ in csv.reader(io.StringIO(text, newline=""))) - 1, 0)
    return len(text.splitlines())


def cmd_rewrites(args: argparse.Namespace) -> int:
    """The OCR fix's rewrite budget: each rewrite with its evidence, and what it keeps."""
    from ragdash.checks.rewrites import rewrite_budget

    budget = rewrite_budget(_index(args), _fixes(args))
    if args.json:
        record = {"inputs": inputs_record(args), **budget.to_dict()}
        emit(json.dumps(record, indent=2, ensure_ascii=False))
        return EXIT_OK
    say(inputs_line(args))
    say(budget.summary)
    for repair in budget.rewrites:
        say(f"  {repair.note}")
    if budget.kept:
        say("kept:")
        for token, why in budget.kept:
            say(f"  {token}: {why}")
    if budget.note:
        say(f"note: {budget.note}")
    return EXIT_OK


def cmd_ocr_map(args: argparse.Namespace) -> int:
    """OCR map entries learned from a scan's OCR output aligned to its clean text."""
    from ragdash.checks.ocr_learn import learn_ocr_map, pairs_from_pages
    from ragdash.ingestion.ingest import read_pdf
    from ragdash.ingestion.scans import OcrSettings

    clean = _read_text(args.clean, "clean text")
    if args.pdf:
        try:
            data = Path(args.pdf).read_bytes()
        except OSError as exc:
            raise BadInput(f"{args.pdf}: cannot be read ({exc.strerror or exc})") from None
        cache = _cache(args)
        progress = _LoadProgress(cache)
        progress.name = Path(args.pdf).name
        ocr = OcrSettings(mode="all" if args.force_ocr else "auto")
        try:
            pages = read_pdf(data, progress=progress.page, cache=cache, ocr=ocr).pages
        except IngestError as exc:
            raise BadInput(f"{Path(args.pdf).name} {exc}") from None
        finally:
            progress.close()
    else:
        pages = (_read_text(args.ocr_text, "OCR text"),)
    clean_pages = clean.split("\f") if "\f" in clean else [clean]
    learned = learn_ocr_map(
        pairs_from_pages(pages, clean_pages), parse_protected(args.protect), args.min_count
    )
    if learned.mismatch:  # an alignment of two different texts proposes noise
        raise BadInput(learned.mismatch)
    if args.json:
        emit(json.dumps({
            "characters": learned.characters,
            "error_rate": round(learned.error_rate, 4),
            "ocr_map": learned.ocr_map,
            "proposals": [{"entry": p.entry, "count": p.count, "examples": list(p.examples)}
                          for p in learned.proposals],
            "refused": [{"entry": p.entry, "count": p.count, "why": p.refused}
                        for p in learned.refused],
            "confusions": [{"truth": c.truth, "read": c.read, "count": c.count}
                           for c in learned.confusions],
        }, indent=2, ensure_ascii=False))  # fmt: skip
        return EXIT_OK
    say(
        f"aligned {learned.characters} characters of clean text: {learned.errors} edit(s), "
        f"character error rate {learned.error_rate:.1%}"
    )
    rows = [("clean", "read as", "count", "examples")]
    for c in learned.confusions[:CONFUSIONS_SHOWN]:
        rows.append(
            (
                repr(c.truth) if c.truth else "(added)",
                repr(c.read) if c.read else "(dropped)",
                str(c.count),
                ", ".join(c.examples),
            )
        )
    if len(rows) > 1:
        say(_table(rows))
    if len(learned.confusions) > CONFUSIONS_SHOWN:
        left = more_note(CONFUSIONS_SHOWN, len(learned.confusions))
        say(f"…{left} confusion(s) seen less often (--json lists them all)")
    if learned.proposals:
        say("\nproposed OCR map entries (digit read for a letter):")
        for p in learned.proposals:
            say(f"  {p.entry}  x{p.count}  {', '.join(p.examples)}")
        say(f'use: --ocr-map "{learned.ocr_map}"')
    else:
        say("\nno OCR map entry proposed: OCR read no digit for a letter")
    for p in learned.refused:
        say(f"refused: {p.entry} x{p.count}: {p.refused}")
    return EXIT_OK
