"""``runs``, ``diff`` and ``report``: the runs kept in the case library, compared and reported."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ragdash.cli.common import (
    EXIT_OK,
    BadInput,
    _load_run,
    _run_library,
    _table,
    _write_text,
    emit,
    field,
    say,
)

__all__ = ["cmd_diff", "cmd_report", "cmd_runs"]


def _delete_run(library, ref: str) -> int:
    """``runs delete ID|latest``: by the run's summary, never its data, so a run too damaged
    to read can still be deleted."""
    from ragdash.errors import RunError

    summaries = {r.id: r for r in library.run_summaries()}
    text = ref.strip().lstrip("#").lower()
    if text == "latest":
        if not summaries:
            raise BadInput(f"{library.path} holds no saved run yet")
        text = str(max(summaries))
    if not text.isdigit():
        raise BadInput(f"run {ref!r} is not a run id (a number, or latest) nor a run file")
    summary = summaries.get(int(text))
    if summary is None:
        raise BadInput(f"no run #{text} in {library.path} (ragdash runs list shows them)")
    try:
        library.delete_run(summary.id)
    except RunError as exc:
        raise BadInput(str(exc)) from None
    say(f"deleted run #{summary.id}" + (f" {field(summary.name)!r}" if summary.name else ""))
    return EXIT_OK


def cmd_runs(args: argparse.Namespace) -> int:
    """``runs list|show|delete|export``: the runs kept in the library."""
    from ragdash.errors import RunError

    library = _run_library(args)
    if args.action == "list":
        runs = library.run_summaries()
        if args.json:
            emit(json.dumps([{"id": r.id, "name": r.name, "at": r.at,
                               "retriever": r.retriever_label, "fixes": r.fixes_label,
                               "corpus": r.corpus_fingerprint, "passed": r.passed,
                               "total": r.total, "metrics": dict(r.metrics)} for r in runs],
                             indent=2, ensure_ascii=False))  # fmt: skip
            return EXIT_OK
        if not runs:
            say(f"no saved runs in {library.path}")
            return EXIT_OK
        rows: list[tuple[str, ...]] = [
            ("id", "when", "name", "retriever", "fixes", "corpus", "passed", "MRR")
        ]
        for r in runs:
            rows.append((str(r.id), r.at, r.name or "-", r.retriever_label, r.fixes_label,
                         r.corpus_fingerprint, f"{r.passed}/{r.total}",
                         "-" if r.mrr is None else f"{r.mrr:.3f}"))  # fmt: skip
        say(_table(rows))
        return EXIT_OK
    if not args.run:
        raise BadInput(f"runs {args.action} needs a run id (ragdash runs list shows them)")
    if args.action == "delete" and not Path(args.run).is_file():
        return _delete_run(library, args.run)  # without reading it: a damaged run goes too
    run = _load_run(args.run, args)
    if args.action == "show":
        if args.json:
            emit(json.dumps(run.to_dict(), indent=2, ensure_ascii=False))
            return EXIT_OK
        say(f"run {run.ref} at {run.at}")
        say(f"retriever: {run.retriever_label}")
        say(f"fixes: {run.fixes_label}")
        say(f"corpus: {run.corpus_fingerprint} ({len(run.documents)} documents)")
        rows = [("case", "expected", "ranked first", "verdict", "diagnosis", "rank",
                 "missing evidence")]  # fmt: skip
        for c in run.cases:
            rows.append((c.name, c.expected_id, c.first_id or "-", c.verdict.upper(), c.diagnosis,
                         "-" if c.rank is None else str(c.rank),
                         "; ".join(c.missing_evidence) or "-"))  # fmt: skip
        say(_table(rows))
        say(f"{run.passed} of {run.total} cases passed")
        metrics = ", ".join(f"{k} {v:.3f}" for k, v in run.metric_values.items()
                            if isinstance(v, float))  # fmt: skip
        say(f"metrics at k={run.metric_k}: {metrics}")
        return EXIT_OK
    if args.action == "export":
        text = json.dumps(run.to_dict(), indent=2, ensure_ascii=False)
        if args.output:
            _write_text(args.output, text)
            say(f"ragdash: wrote run {run.ref} to {args.output}", file=sys.stderr)
        else:
            emit(text)
        return EXIT_OK
    # delete
    if run.id is None:
        raise BadInput(f"{args.run!r} is a run file, not a run in the library")
    try:
        library.delete_run(run.id)
    except RunError as exc:
        raise BadInput(str(exc)) from None
    say(f"deleted run {run.ref}")
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    """What moved from run A to run B, and why where it can be known."""
    from ragdash.checks.rundiff import diff_runs, diff_text

    diff = diff_runs(_load_run(args.run_a, args), _load_run(args.run_b, args))
    if args.json:
        from ragdash.checks.rundiff import diff_record

        emit(json.dumps(diff_record(diff), indent=2, ensure_ascii=False))
    else:
        say(diff_text(diff))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """A standalone HTML report of a run, or of the diff of two runs."""
    from ragdash.checks.html_report import diff_report, run_report
    from ragdash.checks.rundiff import diff_runs

    run = _load_run(args.run, args)
    if args.against:
        html = diff_report(diff_runs(_load_run(args.against, args), run))
    else:
        html = run_report(run)
    _write_text(args.output, html)
    say(
        f"ragdash: wrote the report of {run.ref} to {args.output} ({len(html.encode())} bytes)",
        file=sys.stderr,
    )
    return EXIT_OK
