"""``check``, ``query``, ``ablate`` and ``fragility``: cases and queries against a retriever."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from dataclasses import dataclass

from ragdash.case import EVIDENCE_RULE
from ragdash.checks.ablation import AblationRow
from ragdash.checks.report import ranked_record, run_record
from ragdash.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_RETRIEVER,
    BadInput,
    _cases,
    _fixes,
    _index,
    _keep_run,
    _messages_by_cause,
    _metrics_table,
    _print_fix_support,
    _print_word_list,
    _retriever,
    _table,
    _warn_unknown_expected,
    emit,
    field,
    inputs_line,
    inputs_record,
    say,
)
from ragdash.errors import (
    QueryError,
    RetrieverError,
    SettingsError,
)
from ragdash.retrieval.matching import MatchKind
from ragdash.retrieval.wordlist import word_list_label, word_list_note
from ragdash.settings import (
    FIX_NAMES,
    Fixes,
)

__all__ = ["cmd_ablate", "cmd_check", "cmd_fragility", "cmd_query"]


def cmd_check(args: argparse.Namespace) -> int:
    from ragdash.checks.runs import metrics_of, run_cases

    fixes = _fixes(args)
    cases = _cases(args)
    index = _index(args)
    retriever = _retriever(args, index)
    _warn_unknown_expected(cases, index)
    try:
        runs = run_cases(retriever, cases, fixes, args.metrics_k)
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    metrics = metrics_of(runs, args.metrics_k)
    passed = sum(r.passed for r in runs)
    before = _compared_runs(args, retriever, index, cases, fixes)
    kept = _keep_run(args, retriever, index, cases, fixes, runs)
    if args.json:
        report = {
            "inputs": inputs_record(args, cases),
            "retriever": retriever.spec.label,
            "fixes": fixes.label,
            "passed": passed,
            "failed": len(runs) - passed,
            "errors": metrics.errors,
            "metrics": metrics.to_dict(),
            "word_list": word_list_label(),
            "cases": [run_record(r) for r in runs],
        }
        if before is not None:
            report["compared"] = _comparison_record(before, args.metrics_k)
        if kept is not None:
            report.update(kept.record())
        emit(json.dumps(report, indent=2))
    else:
        say(inputs_line(args, cases))
        rows = [("case", "expected", "ranked first", "verdict", "diagnosis", "missing evidence")]
        for r in runs:
            c = r.check
            rows.append(
                (
                    r.case.name,
                    r.case.expected_id,
                    (c.first_id or ("(no passage matched)" if c.no_match else "-")) if c else "-",
                    r.verdict.upper(),
                    r.diagnosis,
                    "; ".join(c.missing_evidence) or "-" if c else "-",
                )
            )
        if retriever.spec.kind != "seed":
            say(f"retriever: {retriever.spec.label}")
            _print_fix_support(retriever.spec, fixes, getattr(retriever, "support_kind", None))
        say(f"fixes: {fixes.label}")
        _print_word_list(fixes)
        say(_table(rows))
        for line in _messages_by_cause(runs):
            say(line)
        errors = f"; {metrics.errors} could not be run" if metrics.errors else ""
        say(f"{passed} of {len(runs)} cases passed{errors}")
        say(f"({EVIDENCE_RULE})")
        if args.metrics:
            say(f"\nmetrics at k={args.metrics_k} ({retriever.spec.label}):")
            say(_metrics_table(retriever, cases, fixes, args.metrics_k))
        if before is not None:
            say(_comparison_text(before[0], before[1], runs, args.metrics_k))
        if kept is not None:
            say(kept.text())
    if metrics.errors:
        return EXIT_RETRIEVER
    if kept is not None and kept.gated:
        return EXIT_FAILED if kept.reasons else EXIT_OK
    return EXIT_OK if all(r.passed for r in runs) else EXIT_FAILED


def _compared_runs(args, retriever, index, cases, fixes):
    """With ``--compare-url OLD``: (the old service's spec, its runs), else None — the same
    cases and fixes asked of the service before re-indexing."""
    if not getattr(args, "compare_url", None):
        return None
    from dataclasses import replace

    from ragdash.checks.runs import run_cases
    from ragdash.retrieval.retrievers import make_retriever

    if retriever.spec.kind != "http":
        raise BadInput("--compare-url compares two http services: give --retriever http")
    try:
        spec = replace(retriever.spec, url=args.compare_url)
    except SettingsError as exc:
        raise BadInput(f"--compare-url: {exc}") from None
    return spec, run_cases(make_retriever(spec, index), cases, fixes, args.metrics_k)


def _comparison_record(before, k: int) -> dict:
    from ragdash.checks.runs import metrics_of

    spec, runs = before
    return {
        "retriever": spec.label,
        "metrics": metrics_of(runs, k).to_dict(),
        "cases": [
            {
                "name": r.case.name,
                "verdict": r.verdict,
                "diagnosis": r.diagnosis,
                "error": r.error or None,
            }
            for r in runs
        ],  # fmt: skip
    }


def _comparison_text(spec, before, after, k: int) -> str:
    """Per case, the verdict before and after (changes only), then both metric rows."""
    from ragdash.checks.metrics import METRIC_NAMES
    from ragdash.checks.runs import metrics_of

    lines = [f"\nbefore: {spec.label}"]
    rows = [("case", "before", "after")]
    for old, new in zip(before, after, strict=True):
        if (old.verdict, old.diagnosis) != (new.verdict, new.diagnosis):
            rows.append((new.case.name, f"{old.verdict} ({old.diagnosis})",
                         f"{new.verdict} ({new.diagnosis})"))  # fmt: skip
    lines.append(_table(rows) if len(rows) > 1 else "no case changed its verdict")
    metric_rows: list[tuple[str, ...]] = [("run", "passed", *METRIC_NAMES)]
    for name, runs in (("before", before), ("after", after)):
        values = metrics_of(runs, k).row()
        cells = ["-" if v is None else f"{v:.3f}" for v in values.values()]
        metric_rows.append((name, f"{sum(r.passed for r in runs)}/{len(runs)}", *cells))
    lines.append(f"\nmetrics at k={k}:")
    lines.append(_table(metric_rows))
    return "\n".join(lines)


def cmd_query(args: argparse.Namespace) -> int:
    fixes = _fixes(args)
    index = _index(args)
    retriever = _retriever(args, index)
    try:
        retrieval = retriever.retrieve(args.text, fixes, args.top_k or 3)
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    except RetrieverError as exc:
        raise BadInput(str(exc)) from None
    ranked = list(retrieval.ranked)
    for note in retrieval.notes:
        say(f"ragdash: {field(note)}", file=sys.stderr)
    if args.json:
        say(
            json.dumps(
                {
                    "inputs": inputs_record(args),
                    "query": args.text,
                    "retriever": retriever.spec.label,
                    "fixes": fixes.label,
                    "ranked": [ranked_record(r) for r in ranked],
                },
                indent=2,
            )
        )
        return EXIT_OK
    say(inputs_line(args))
    if retriever.spec.kind != "seed":
        say(f"retriever: {retriever.spec.label}")
    say(f"fixes: {fixes.label}")
    if fixes.fuzzy and word_list_note():
        say(f"note: {word_list_note()}")
    if ranked and not ranked[0].matched:
        say("no passage matched the query: every score is 0 (listed in list order below)")
    for r in ranked:
        say(f"\n#{r.rank}  {r.passage.label}  score {r.score:g}")
        if not r.breakdown and retriever.spec.external:
            say("    (the retriever's own score; it reports no per-token breakdown)")
        if r.moved:
            say(f"    moved: {r.moved}")
        for m in r.breakdown:
            how = m.kind if m.kind != MatchKind.FUZZY else f"fuzzy {m.similarity:.0f}"
            target = m.passage_token or "-"
            note = f"  ({m.note})" if m.note else ""
            say(f"    {m.query_token:<16} -> {target:<16} {how:<10} +{m.points:g}{note}")
        snippet = " ".join(r.passage.text.split())
        say(f"    | {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    return EXIT_OK


def cmd_ablate(args: argparse.Namespace) -> int:
    fixes = _fixes(args)
    cases = _cases(args)
    index = _index(args)
    retriever = _retriever(args, index)
    metrics = None
    identical: dict[str, tuple[str, str]] = {}
    _warn_unknown_expected(cases, index)
    try:
        if retriever.spec.kind == "seed" and not args.metrics:
            from ragdash.checks.parallel import parallel_ablation

            table = parallel_ablation(index, cases, fixes, jobs=args.jobs)
        else:
            from ragdash.checks.ablation import configurations
            from ragdash.checks.runs import run_configurations

            configs = configurations(fixes)
            # a python factory's row (tables and ocr reach it), not the python kind's
            kind = getattr(retriever, "support_kind", retriever.spec.kind)
            run, identical = _distinct_configurations(kind, configs)
            shared = getattr(retriever, "answers_shared", None)
            with shared() if shared is not None else contextlib.nullcontext():
                table, metrics = run_configurations(retriever, cases, run,
                                                    args.metrics_k)  # fmt: skip
            table, metrics = _expand_identical(configs, identical, table, metrics)
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        from ragdash.frames import records

        if args.metrics and metrics is not None:
            emit(json.dumps({
                "inputs": inputs_record(args, cases),
                "retriever": retriever.spec.label,
                "rows": records(table),
                "metrics": records(metrics),
                "identical": {label: {"same_as": same, "reason": why}
                              for label, (same, why) in identical.items()},
            }, indent=2))  # fmt: skip
        else:
            emit(json.dumps({"inputs": inputs_record(args, cases),
                             "retriever": retriever.spec.label, "rows": records(table)},
                            indent=2))  # fmt: skip
    else:
        import pandas as pd

        say(inputs_line(args, cases))
        from ragdash.checks.runs import RunRow
        from ragdash.frames import ablation_matrix, frame, metrics_table

        row_type = AblationRow if metrics is None else RunRow
        with pd.option_context("display.width", 250, "display.max_columns", 50):
            say(ablation_matrix(frame(table, row_type)).to_string())
            if args.metrics and metrics is not None:
                say(f"\nmetrics at k={args.metrics_k} ({retriever.spec.label}):")
                say(metrics_table(metrics).to_string(index=False))
        if identical:
            say(f"\nnot asked again ({len(identical)} configurations cannot differ for "
                  f"{retriever.spec.kind}):")  # fmt: skip
            for label, (same, why) in identical.items():
                say(f"  {label}: identical to {same} — {why}")
            from ragdash.retrieval.spec import fix_support

            for name in FIX_NAMES:
                applies, how = fix_support(
                    getattr(retriever, "support_kind", retriever.spec.kind), name
                )
                if not applies:
                    say(f"  ({name}: {how})")
        for line in _messages_by_cause(_error_rows(table)):
            say(line)
    errors = sum(getattr(r, "diagnosis", "") == "error" for r in table)
    return EXIT_RETRIEVER if errors else EXIT_OK


@dataclass(frozen=True)
class _ErrorRow:
    """An ablation row's error, shaped for :func:`_messages_by_cause`."""

    case: object
    message: str


@dataclass(frozen=True)
class _Named:
    name: str


def _error_rows(table) -> list[_ErrorRow]:
    """One row per case, with the first error it got in any configuration ("" when none:
    later configurations repeat the cause), so an outage prints its cause once, not 16
    times per case."""
    seen: dict[str, _ErrorRow] = {}
    for r in table:
        errored = getattr(r, "diagnosis", "") == "error"
        if r.case not in seen or (errored and not seen[r.case].message):
            seen[r.case] = _ErrorRow(_Named(r.case), r.message if errored else "")
    return list(seen.values())


def _distinct_configurations(kind: str, configs):
    """The configurations worth running against retriever ``kind`` — a fix that does not
    reach it (:func:`ragdash.retrieval.spec.fix_support`) cannot change what it returns, so
    two configurations differing only in such fixes rank alike — and, for each one left
    out, (the configuration it is identical to, why)."""
    from ragdash.retrieval.spec import fix_support

    reaching = {name for name in FIX_NAMES if fix_support(kind, name)[0]}
    run: dict[str, Fixes] = {}
    identical: dict[str, tuple[str, str]] = {}
    seen: dict[Fixes, str] = {}
    for label, config in configs.items():
        effective = config.with_only(set(config.enabled) & reaching)
        if effective not in seen:
            seen[effective] = label
            run[label] = config
            continue
        same = seen[effective]
        differ = [n for n in FIX_NAMES if n in set(config.enabled) ^ set(configs[same].enabled)]
        verb = "does" if len(differ) == 1 else "do"
        identical[label] = (same, f"{', '.join(differ)} {verb} not reach {kind}")
    return run, identical


def _expand_identical(configs, identical, table, metrics):
    """``table`` and ``metrics`` with a copy of the run configuration's rows for each
    configuration left out as identical, in ``configs`` order."""
    from dataclasses import replace as _replace

    rows_by: dict[str, list] = {}
    for row in table:
        rows_by.setdefault(row.configuration, []).append(row)
    metrics_by = {m.configuration: m for m in metrics}
    rows, out_metrics = [], []
    for label in configs:
        source = identical[label][0] if label in identical else label
        rows += [_replace(r, configuration=label) for r in rows_by.get(source, [])]
        if source in metrics_by:
            out_metrics.append(_replace(metrics_by[source], configuration=label))
    return tuple(rows), tuple(out_metrics)


def cmd_fragility(args: argparse.Namespace) -> int:
    """The fewest OCR/typo edits that break each case, with no fixes and with ``--fixes``."""
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
    fixes = _fixes(args)
    cases = _cases(args)
    index = _index(args)
    _warn_unknown_expected(cases, index)
    retriever = _retriever(args, index)  # anything with top(query, fixes, k) is searched
    kinds = QUERY_FAULTS if args.kind == "both" else (args.kind,)
    options = {"seed": args.seed, "max_edits": args.max_edits, "beam": args.beam,
               "max_evaluations": args.max_evaluations}  # fmt: skip
    try:
        if retriever.spec.kind == "seed":
            from ragdash.checks.parallel import parallel_fragility

            table = parallel_fragility(
                index, cases, compared_configurations(fixes), kinds, args.jobs, **options
            )
        else:
            table = fragility_table(
                retriever,  # type: ignore[arg-type]
                cases, compared_configurations(fixes), kinds, **options,  # type: ignore[arg-type]
            )  # fmt: skip
    except (QueryError, RetrieverError) as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        from ragdash.frames import records

        emit(json.dumps({"inputs": inputs_record(args, cases), "rows": records(table)},
                        indent=2))  # fmt: skip
        return EXIT_OK
    say(inputs_line(args, cases))
    say(f"seed {args.seed}, up to {args.max_edits} edits, beam {args.beam}")
    for case in cases:
        rows: list[tuple[str, ...]] = [
            ("fault", "fixes", "result", "corrupted query", "failure", "evaluations")
        ]
        for row in (r for r in table if r.case == case.name):
            broken = row.outcome == "breaks"
            rows.append(
                (
                    row.fault,
                    row.configuration,
                    result_phrase(row.outcome, row.edits, row.depth, row.stopped),
                    (row.corrupted_query or "-") if broken else "-",
                    row.failure or "-",
                    str(row.evaluations),
                )
            )
        say(f"\n{case.name}: {case.query!r} → {case.expected_id}")
        say(_table(rows))
        say(case_summary(table, case.name))
    return EXIT_OK
