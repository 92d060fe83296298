"""``stress``: the four flaws injected into a docs folder, cases run under no fix, the
targeted fix and all fixes (see :mod:`ragdash.checks.stress`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ragdash.cli.common import (
    EXIT_OK,
    BadInput,
    _cases,
    _fixes,
    _index,
    _table,
    _warn_unknown_expected,
    emit,
    field,
    inputs_line,
    inputs_record,
    say,
)

__all__ = ["add_stress_parser", "cmd_stress"]


def add_stress_parser(sub, common, jobs_option) -> None:
    """Register ``ragdash stress`` (``common`` adds --docs, --cases, fixes, --json...)."""
    from ragdash.checks.stress import DEFAULT_RATE, FAULTS

    p = sub.add_parser(
        "stress", help="inject the four flaws into the docs; which fix repairs what"
    )
    common(p, cases=True)
    p.add_argument(
        "--generate",
        type=int,
        default=None,
        metavar="N",
        help="generate N cases from the docs (seeded) instead of --cases",
    )
    p.add_argument(
        "--retriever", default="builtin",
        help="comma-separated: builtin (ragdash's own scorer), bm25, dense, hybrid; http "
             "(--url), python or langchain (--callable): query faults reach every kind, "
             "corpus faults the ones ragdash rebuilds (built-ins, python --factory) "
             "(default builtin)",
    )  # fmt: skip
    p.add_argument("--url", default=None, help="--retriever http: the service's search URL")
    p.add_argument("--callable", default=None, metavar="MODULE:FUNCTION",
                   help="--retriever python/langchain: the callable")  # fmt: skip
    p.add_argument("--factory", action="store_true", default=None,
                   help="python: --callable is build(passages, options) returning "
                        "search(query, k); rebuilt once per faulted corpus")  # fmt: skip
    p.add_argument(
        "--faults",
        default=",".join(FAULTS),
        help=f"comma-separated faults (default all: {','.join(FAULTS)})",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE,
        help=f"share of other words OCR damage hits in the document (default {DEFAULT_RATE:g})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for faults and generated cases")
    p.add_argument("--report", default=None, metavar="FILE", help="write an HTML report")
    p.add_argument(
        "--save-cases",
        action="store_true",
        help="save the generated cases to the --workspace case library for review",
    )
    jobs_option(p)
    # Stress runs five faults per case: two workers by default where there are two cores
    # (the report is the same with any --jobs).
    p.set_defaults(jobs=min(2, os.cpu_count() or 1))


def _faults(text: str) -> tuple[str, ...]:
    from ragdash.checks.stress import FAULTS

    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    bad = [n for n in names if n not in FAULTS]
    if bad or not names:
        raise BadInput(f"--faults: unknown {', '.join(map(repr, bad)) or 'empty list'}; "
                       f"choose from {', '.join(FAULTS)}")  # fmt: skip
    return names


def _retrievers(args: argparse.Namespace) -> tuple:
    """The specs ``--retriever`` names: built-in kinds by name, an http/python/langchain
    retriever with ``--url`` / ``--callable`` / ``--factory``."""
    from ragdash.checks.stress import IN_PROCESS, STRESSABLE
    from ragdash.errors import SettingsError
    from ragdash.retrieval.spec import RetrieverSpec, retriever_kind, shown_kind

    names = tuple(dict.fromkeys(retriever_kind(n) for n in args.retriever.split(",")
                                if n.strip()))  # fmt: skip
    bad = [n for n in names if n not in STRESSABLE]
    if bad or not names:
        raise BadInput(
            f"--retriever: {', '.join(map(repr, bad)) or 'empty list'} cannot be stressed; "
            f"choose from {', '.join(map(shown_kind, STRESSABLE))}"
        )
    specs: list[str | RetrieverSpec] = []
    for kind in names:
        if kind in IN_PROCESS:
            specs.append(kind)
            continue
        values = {"kind": kind, "url": args.url or "", "callable": args.callable or "",
                  "factory": bool(args.factory)}  # fmt: skip
        try:
            specs.append(RetrieverSpec.resolve(values))
        except SettingsError as exc:
            raise BadInput(f"--retriever {kind}: {exc}") from None
    if sum(not isinstance(x, str) and x.kind in ("python", "langchain") for x in specs) > 1:
        raise BadInput("--retriever: one python or langchain retriever per run (one --callable)")
    return tuple(specs)


def cmd_stress(args: argparse.Namespace) -> int:
    from ragdash.checks.stress import generate_cases, run_stress
    from ragdash.retrieval.spec import shown_kind

    faults = _faults(args.faults)
    retrievers = _retrievers(args)
    if not 0 <= args.rate <= 1:
        raise BadInput(f"--rate must be between 0 and 1, got {args.rate:g}")
    if args.generate is not None and args.cases:
        raise BadInput("give --cases FILE or --generate N, not both")
    if args.generate is not None and not 1 <= args.generate <= 10_000:
        raise BadInput(f"--generate must be from 1 to 10000, got {args.generate}")
    if args.save_cases and (args.generate is None or not args.workspace):
        raise BadInput("--save-cases saves generated cases: give --generate N and --workspace DIR")
    if args.report:
        target = Path(args.report)
        if not target.parent.is_dir():
            raise BadInput(f"--report {args.report}: folder {str(target.parent)!r} does not exist")
    fixes = _fixes(args)
    given = _cases(args) if args.generate is None else None  # refused before any parsing
    index = _index(args, write_workspace=False)  # the workspace: only --save-cases
    if given is not None:
        cases = given
        _warn_unknown_expected(cases, index)
    else:
        cases = generate_cases(index.corpus, args.generate, args.seed, index)
        if not cases:
            raise BadInput(f"no case could be generated from {args.docs or 'the docs'}: no "
                           "passage holds a value or phrase found nowhere else")  # fmt: skip
    if "dense" in retrievers:  # a built-in kind is named by its string
        from ragdash.errors import RetrieverError
        from ragdash.retrieval.dense import make_embedder
        from ragdash.retrieval.spec import RetrieverSpec

        try:
            make_embedder(RetrieverSpec("dense"))
        except RetrieverError as exc:
            raise BadInput(str(exc)) from None
    if any(not isinstance(r, str) and r.kind in ("python", "langchain") for r in retrievers):
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # like `python -m`: mypkg in the current folder
        from ragdash.errors import RetrieverError, RetrieverUnreachable
        from ragdash.retrieval.retrievers import make_retriever

        for r in retrievers:
            if not isinstance(r, str) and r.kind in ("python", "langchain"):
                try:
                    make_retriever(r, index)
                except RetrieverUnreachable:
                    raise  # down, not bad input: exit 4
                except RetrieverError as exc:
                    raise BadInput(str(exc)) from None
    report = run_stress(
        index.corpus, cases, faults=faults, rate=args.rate, seed=args.seed,
        retrievers=retrievers, fixes=fixes, jobs=args.jobs, index=index,
    )  # fmt: skip
    saved = _save(args, cases) if args.save_cases else None
    if args.report:
        from ragdash.atomic import atomic_write
        from ragdash.checks.stress_report import stress_report

        atomic_write(Path(args.report), stress_report(report).encode("utf-8"))
    if args.json:
        record = {"inputs": inputs_record(args, cases), **report.to_dict()}
        if saved:
            record["saved_cases"] = saved
        emit(json.dumps(record, indent=2))
        return EXIT_OK
    say(inputs_line(args, cases))
    origin = f"generated with seed {args.seed}" if args.generate else "from the case file"
    say(f"{len(report.cases)} cases ({origin}), faults at rate {args.rate:g}, seed {args.seed}")
    if args.generate is not None and len(cases) < args.generate:
        from ragdash.checks.generate import per_document_cap

        cap = per_document_cap(args.generate, len(index.corpus.documents))
        say(f"note: {len(cases)} of the {args.generate} cases asked for: no document gives "
            f"more than {cap} (a tenth of the cases, or an even share)")  # fmt: skip
    for retriever in report.retrievers:
        rows: list[tuple[str, ...]] = [("fault", "none", "targeted fix", "all", "targeted")]
        for fault in report.faults:
            configs = report.configurations(fault)
            cells = []
            for c in configs:
                cell = report.cell(fault, c, retriever)
                if cell is None or not cell.total:
                    cells.append("-")
                else:
                    low, high = cell.interval
                    cells.append(
                        f"{cell.passed}/{cell.total} {cell.rate:.0%} [{low:.0%}-{high:.0%}]"
                    )
            rows.append((fault, *cells, configs[1]))
        answered = report.clean_passed(retriever)
        say(f"\n{shown_kind(retriever)}: answers {answered}/{len(report.cases)} cases on the "
            "clean docs; each fault is measured on those (clean → faulted → fixed):")  # fmt: skip
        say(_table(rows))
        for fault, b in report.baseline(retriever).items():
            if b["clean"]:
                parts = report.by_variant(fault, retriever)
                split = "; ".join(f"{v} {x['clean']} → {x['faulted']} → {x['fixed']}"
                                  for v, x in parts.items()) if len(parts) > 1 else ""  # fmt: skip
                say(f"  {fault}: {b['clean']} → {b['faulted']} → {b['fixed']}"
                    + (f" ({split})" if split else ""))
        for fault, words in report.repairs(retriever).items():
            say(f"  {fault}: {words}")
        for words in report.unrepaired(retriever):
            say(f"  no fix repairs: {words}")
    skipped: dict[str, list[str]] = {}
    for fault, _, why in report.skipped:
        skipped.setdefault(fault, []).append(why)
    for fault, whys in skipped.items():
        say(f"skipped {fault} for {len(whys)} case(s): {field(whys[0])}")
    unsaved = report.unsaved()
    if unsaved:
        say(f"\n{len(unsaved)} faulted variant(s) no fix saves (failing under all):")
        for r in unsaved[:20]:
            missing = "; ".join(r.missing_evidence) or "-"
            say(f"  {field(r.case)} {r.fault}/{r.variant} [{shown_kind(r.retriever)}]: "
                f"{r.diagnosis}, first {field(r.first_id or '-')}, "
                f"missing {field(missing)}")  # fmt: skip
        if len(unsaved) > 20:
            say(f"  … and {len(unsaved) - 20} more (--json or --report for all)")
    injected = report.injected
    say(f"\ninjected documents ({len(injected)}, in memory only): "
        f"{field(', '.join(injected[:10]))}{' …' if len(injected) > 10 else ''}")  # fmt: skip
    for note in (*report.notes, *report.too_few()):
        say(f"note: {field(note)}")
    if saved:
        say(f"saved {len(saved)} generated case(s) to {field(saved_where(args))} for review")
    if args.report:
        say(f"wrote {field(args.report)}")
    return EXIT_OK


def saved_where(args: argparse.Namespace) -> str:
    from ragdash.storage.case_store import library_path

    return str(library_path(args.workspace))


def _save(args: argparse.Namespace, cases) -> list[str]:
    """Add the generated cases to the workspace's library, renamed ``stress-<seed>-NNN`` so
    a second run with another seed does not collide; names already there are skipped."""
    from dataclasses import replace

    from ragdash.errors import LibraryError
    from ragdash.storage.case_store import open_library

    library = open_library(args.workspace, create=True)
    assert library is not None
    saved = []
    for case in cases:
        named = replace(case, name=f"stress-{args.seed}-{case.name.removeprefix('gen-')}")
        try:
            if library.get(named.name) is None:
                library.add(named)
                saved.append(named.name)
        except LibraryError as exc:
            say(f"ragdash: warning: {field(exc)}", file=sys.stderr)
            break
    return saved
