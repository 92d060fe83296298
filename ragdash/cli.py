"""``python -m ragdash``: check cases, run a query, ablate, inspect a PDF, or export cases.

Exit codes: 0 all passed (or the command succeeded), 1 a case failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from ragdash.checks.ablation import ablation_matrix, run_ablation
from ragdash.checks.cases import load_cases
from ragdash.checks.proof import check_case
from ragdash.checks.report import check_record, ranked_record
from ragdash.errors import CaseFileError, IngestError, QueryError, RagdashError
from ragdash.ingestion.ingest import MAX_PDF_PAGES, load_folder
from ragdash.ingestion.segmentation import cap_passages, max_passages
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.matching import DEFAULT_FUZZY_RULE, DEFAULT_THRESHOLD, FUZZY_RULES
from ragdash.retrieval.ranking import FIX_NAMES, Fixes

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class BadInput(RagdashError):
    """Anything the user gave that cannot be used; printed as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with usage; keep one line
        raise BadInput(message)


def _fixes(args: argparse.Namespace) -> Fixes:
    if not 0 <= args.threshold <= 100:
        raise BadInput(f"--threshold must be between 0 and 100, got {args.threshold}")
    try:
        return Fixes.parse(
            args.fixes,
            threshold=args.threshold,
            fuzzy_rule=args.fuzzy_rule,
        )
    except ValueError as exc:
        raise BadInput(f"--fixes: {exc}") from None


def _index(args: argparse.Namespace) -> CorpusIndex:
    try:
        corpus = cap_passages(load_folder(args.docs), max_passages())
    except IngestError as exc:
        raise BadInput(str(exc)) from None
    for message in corpus.messages:
        print(f"ragdash: {message}", file=sys.stderr)
    if not corpus.documents:
        raise BadInput(f"no loadable documents in {args.docs!r}")
    return CorpusIndex(corpus)


def _cases(args: argparse.Namespace, index: CorpusIndex):
    try:
        cases = load_cases(args.cases)
    except CaseFileError as exc:
        raise BadInput(str(exc)) from None
    known = set(index.corpus.doc_ids)
    for case in cases:
        if case.expected_id not in known:
            print(
                f"ragdash: warning: case {case.name!r} expects {case.expected_id!r}, "
                "which is not in the corpus",
                file=sys.stderr,
            )
    if args.top_k is not None:
        from dataclasses import replace

        cases = [replace(case, top_k=args.top_k) for case in cases]
    return cases


def cmd_check(args: argparse.Namespace) -> int:
    index = _index(args)
    fixes = _fixes(args)
    try:
        checks = [check_case(index, case, fixes) for case in _cases(args, index)]
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        passed = sum(c.passed for c in checks)
        print(
            json.dumps(
                {
                    "fixes": fixes.label,
                    "passed": passed,
                    "failed": len(checks) - passed,
                    "cases": [check_record(c) for c in checks],
                },
                indent=2,
            )
        )
    else:
        rows = [("case", "expected", "ranked first", "verdict", "diagnosis", "missing evidence")]
        for c in checks:
            rows.append(
                (
                    c.case.name,
                    c.case.expected_id,
                    c.first_id or "-",
                    "PASS" if c.passed else "FAIL",
                    c.diagnosis.value,
                    "; ".join(c.missing_evidence) or "-",
                )
            )
        print(f"fixes: {fixes.label}")
        print(_table(rows))
        passed = sum(c.passed for c in checks)
        print(f"{passed} of {len(checks)} cases passed")
    return EXIT_OK if all(c.passed for c in checks) else EXIT_FAILED


def cmd_query(args: argparse.Namespace) -> int:
    index = _index(args)
    fixes = _fixes(args)
    try:
        ranked = index.search(args.text, fixes)[: args.top_k or 3]
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        print(
            json.dumps(
                {
                    "query": args.text,
                    "fixes": fixes.label,
                    "ranked": [ranked_record(r) for r in ranked],
                },
                indent=2,
            )
        )
        return EXIT_OK
    print(f"fixes: {fixes.label}")
    for r in ranked:
        print(f"\n#{r.rank}  {r.passage.label}  score {r.score:g}")
        for m in r.breakdown:
            how = m.kind if m.kind != "fuzzy" else f"fuzzy {m.similarity:.0f}"
            target = m.passage_token or "-"
            note = f"  ({m.note})" if m.note else ""
            print(f"    {m.query_token:<16} -> {target:<16} {how:<10} +{m.points:g}{note}")
        snippet = " ".join(r.passage.text.split())
        print(f"    | {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    return EXIT_OK


def cmd_ablate(args: argparse.Namespace) -> int:
    index = _index(args)
    fixes = _fixes(args)
    try:
        table = run_ablation(index, _cases(args, index), fixes)
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        print(table.to_json(orient="records", indent=2))
    else:
        import pandas as pd

        with pd.option_context("display.width", 250, "display.max_columns", 50):
            print(ablation_matrix(table).to_string())
    return EXIT_OK


def cmd_fragility(args: argparse.Namespace) -> int:
    """The fewest OCR/typo edits that break each case, with no fixes and with ``--fixes``."""
    import pandas as pd

    from ragdash.checks.faults import QUERY_FAULTS
    from ragdash.checks.fragility import (
        case_summary,
        compared_configurations,
        fragility_table,
        result_phrase,
    )

    for name in ("max_edits", "beam", "max_evaluations"):
        if getattr(args, name) < 1:
            raise BadInput(f"--{name.replace('_', '-')} must be at least 1")
    index = _index(args)
    fixes = _fixes(args)
    cases = _cases(args, index)
    try:
        table = fragility_table(
            index,
            cases,
            compared_configurations(fixes),
            QUERY_FAULTS if args.kind == "both" else (args.kind,),
            seed=args.seed,
            max_edits=args.max_edits,
            beam=args.beam,
            max_evaluations=args.max_evaluations,
        )
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        print(table.to_json(orient="records", indent=2))
        return EXIT_OK
    print(f"seed {args.seed}, up to {args.max_edits} edits, beam {args.beam}")
    for case in cases:
        rows = [("fault", "fixes", "result", "corrupted query", "failure", "evaluations")]
        for row in table[table["case"] == case.name].itertuples(index=False):
            broken = row.outcome == "breaks"
            edits = None if pd.isna(row.edits) else int(row.edits)
            rows.append(
                (
                    row.fault,
                    row.configuration,
                    result_phrase(row.outcome, edits, row.depth, row.stopped),
                    row.corrupted_query if broken else "-",
                    row.failure or "-",
                    str(row.evaluations),
                )
            )
        print(f"\n{case.name}: {case.query!r} → {case.expected_id}")
        print(_table(rows))
        print(case_summary(table, case.name))
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragdash.ingestion.inspection import inspect_pdf

    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{args.file}: cannot be read ({exc.strerror or exc})") from None
    if args.max_pages < 1:
        raise BadInput("--max-pages must be at least 1")
    try:
        report = inspect_pdf(data, max_pages=args.max_pages)
    except IngestError as exc:
        raise BadInput(f"{path.name} {exc}") from None
    if args.json:
        print(json.dumps({"file": path.name, **report.to_dict()}, indent=2))
        return EXIT_OK
    print(f"{path.name}: {report.pages} page(s)")
    print(f"verdict: {report.verdict}")
    rows = [("page", "text chars", "tables found")]
    for number, chars in enumerate(report.chars_per_page, start=1):
        found = [f"{t.method} {t.rows}x{t.columns}" for t in report.page_tables if t.page == number]
        rows.append((str(number), str(chars), ", ".join(found) or "-"))
    print(_table(rows))
    print(f"\ntables (as the tables fix joins them): {len(report.tables)}")
    if report.tables:
        rows = [("pages", "rows", "columns", "rows re-joined", "header")]
        for t in report.tables:
            span = (
                f"{t.page_start}" if t.page_start == t.page_end else f"{t.page_start}-{t.page_end}"
            )
            rows.append((span, str(t.rows), str(t.columns), str(t.joined_rows), t.header[:60]))
        print(_table(rows))
    print(
        f"fragments joined: {report.fragments_joined} page break(s), "
        f"{report.rows_joined} cut row(s) re-assembled"
    )
    if report.decisions:
        print("\njoin decisions:")
        for d in report.decisions:
            word = "JOINED" if d.joined else "apart"
            print(f"  p{d.page_a}->p{d.page_b} {word}: {d.reason}")
            print(f"    last row before: {d.row_before[:90]}")
            print(f"    first row after: {d.row_after[:90]}")
    if report.furniture:
        print("\npage furniture (kept in page text, skipped when joining):")
        for line in report.furniture[:20]:
            print(f"  {line}")
    if report.no_text_pages:
        print(f"\npages with no text layer: {', '.join(map(str, report.no_text_pages))}")
    rows = [("passages", "count", "min", "median", "p90", "max")]
    for name, s in (
        ("fix off", report.passages_without_fix),
        ("tables fix", report.passages_with_fix),
    ):
        rows.append((name, str(s.count), str(s.min), f"{s.median:g}", str(s.p90), str(s.max)))
    print("\npassage sizes (characters):")
    print(_table(rows))
    for warning in report.warnings:
        print(f"warning: {warning}")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ragdash.storage.atomic import atomic_write
    from ragdash.storage.export import DOCS_ENV, json_export, pytest_module

    try:
        cases = load_cases(args.cases)
    except CaseFileError as exc:
        raise BadInput(str(exc)) from None
    if args.format == "json":
        text = json_export(cases)
    else:
        docs = args.docs or os.environ.get(DOCS_ENV) or "sample_docs"
        if not Path(docs).is_dir():
            raise BadInput(f"docs folder {docs!r} does not exist or is not a folder (--docs)")
        text = pytest_module(cases, docs=docs, fixes=_fixes(args))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape in a case file
        raise BadInput("a case holds text that cannot be written as UTF-8") from None
    if args.output:
        try:
            atomic_write(args.output, data)
        except OSError as exc:
            raise BadInput(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
        print(f"ragdash: wrote {len(cases)} case(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.flush()  # bytes straight to the buffer: UTF-8 whatever the locale says
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            sys.stdout.write(text)
    return EXIT_OK


def _fix_options(p: argparse.ArgumentParser, default: str) -> None:
    """``--fixes``, ``--threshold`` and ``--fuzzy-rule``: what :func:`_fixes` reads."""
    p.add_argument(
        "--fixes",
        default=default,
        help=f"all, none, or a comma list of {','.join(FIX_NAMES)} (default {default})",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"fuzzy similarity threshold 0-100 (default {DEFAULT_THRESHOLD:g}; "
        "only for --fuzzy-rule ratio)",
    )
    p.add_argument(
        "--fuzzy-rule",
        choices=list(FUZZY_RULES),
        default=DEFAULT_FUZZY_RULE,
        help="how close a misspelled word must be: ratio (similarity threshold), es-auto "
        "(Elasticsearch fuzziness AUTO) or typos-5-9 (one typo from 5 letters, two from 9); "
        f"default {DEFAULT_FUZZY_RULE}",
    )


def _export_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cases", required=True, help="cases.json or a SQLite case library")
    p.add_argument("--format", required=True, choices=("pytest", "json"), help="what to write")
    p.add_argument(
        "--docs",
        default=None,
        help="pytest: default docs folder of the tests (RAGDASH_DOCS overrides it when they "
        "run); default $RAGDASH_DOCS or sample_docs",
    )
    # An exported suite guards the repairs: by default they are all on (pytest format only).
    _fix_options(p, default="all")
    p.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m ragdash", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p: argparse.ArgumentParser, cases: bool, fixes: str = "none") -> None:
        p.add_argument("--docs", required=True, help="docs folder (.txt, .md, .pdf, metadata.csv)")
        if cases:
            p.add_argument("--cases", required=True, help="cases.json file")
        _fix_options(p, default=fixes)
        p.add_argument(
            "--top-k",
            type=int,
            default=None,
            help="passages sent to the model (overrides each case's top_k)",
        )
        p.add_argument("--json", action="store_true", help="machine-readable output")

    common(sub.add_parser("check", help="run proof-check cases"), cases=True)
    query = sub.add_parser("query", help="rank passages for one query")
    query.add_argument("text", help="the query")
    common(query, cases=False)
    common(sub.add_parser("ablate", help="cases × fix configurations"), cases=True)
    fragility = sub.add_parser(
        "fragility", help="fewest OCR/typo edits that break each case, no fixes vs --fixes"
    )
    common(fragility, cases=True, fixes="all")  # compared with no fixes: do they help?
    _fragility_options(fragility)
    inspect = sub.add_parser("inspect", help="what ingestion makes of one PDF")
    inspect.add_argument("file", help="the PDF file")
    inspect.add_argument(
        "--max-pages",
        type=int,
        default=MAX_PDF_PAGES,
        help=f"refuse PDFs with more pages (default {MAX_PDF_PAGES})",
    )
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    _export_options(
        sub.add_parser("export", help="write cases as a standalone pytest file or cases.json")
    )
    return parser


def _fragility_options(p: argparse.ArgumentParser) -> None:
    from ragdash.checks.fragility import DEFAULT_BEAM, DEFAULT_MAX_EDITS, DEFAULT_MAX_EVALUATIONS

    p.add_argument("--kind", choices=("ocr", "typo", "both"), default="both", help="fault kind")
    p.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    p.add_argument(
        "--max-edits",
        type=int,
        default=DEFAULT_MAX_EDITS,
        help=f"give up after this many edits (default {DEFAULT_MAX_EDITS})",
    )
    p.add_argument(
        "--beam", type=int, default=DEFAULT_BEAM, help=f"beam width (default {DEFAULT_BEAM})"
    )
    p.add_argument(
        "--max-evaluations",
        type=int,
        default=DEFAULT_MAX_EVALUATIONS,
        help=f"proof checks per search at most (default {DEFAULT_MAX_EVALUATIONS})",
    )


COMMANDS = {
    "check": cmd_check,
    "query": cmd_query,
    "ablate": cmd_ablate,
    "fragility": cmd_fragility,
    "inspect": cmd_inspect,
    "export": cmd_export,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. Bad input prints one line, never a traceback."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "top_k", None) is not None and args.top_k < 1:
            raise BadInput("--top-k must be at least 1")
        return COMMANDS[args.command](args)
    except BadInput as exc:
        print(f"ragdash: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
