"""``ragdash`` (or ``python -m ragdash``): check cases, run a query, ablate, inspect a PDF,
export cases, list what the OCR fix rewrites, or start the dashboard.

Exit codes: 0 all passed (or the command succeeded), 1 a case failed, 2 bad input, 3 an
internal error (a ragdash bug), 4 the retriever failed (check and ablate could not run a case
against it), 130 interrupted (SIGINT), 143 terminated (SIGTERM) — each error is one line on
stderr, never a traceback.

Exit code 4 in detail: a service down, timing out or answering junk, or a callable raising,
left at least one case without an answer. The causes are printed once each; after
``--max-failures`` connection failures in a row (default 3) the run stops asking and says
``stopped after 3 connection failures in a row: <cause>``. It outranks 1: a run that could
not ask its retriever has not shown that the retriever is fine *or* broken. Killed mid-run,
ragdash prints ``ragdash: terminated (SIGTERM): stopped before the end; nothing more is
written`` and exits 143 (130 for Ctrl-C).

``--workspace DIR`` makes a command see exactly what the dashboard started with the same
folders sees: the docs folder, the uploads and metadata edits of the workspace, and (for
``check``, ``ablate`` and ``fragility`` without ``--cases``) the bundled ``cases.json`` plus
the workspace's case library.

PDFs are parsed once: every command that reads them keeps the parse in the user's cache
folder (:mod:`ragdash.ingestion.user_cache`; ``--cache-dir DIR`` or ``RAGDASH_CACHE_DIR``
moves it, ``--no-cache`` parses again and keeps nothing; with ``--workspace`` the
workspace's own cache is used). On a terminal, stderr shows the pages and OCR of a long
load; piped, nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ragdash.bundled import SAMPLES, SAMPLES_WORD, cases_path, docs_path
from ragdash.case import EVIDENCE_RULE
from ragdash.checks.ablation import AblationRow
from ragdash.checks.report import ranked_record, run_record
from ragdash.errors import (
    CaseFileError,
    IngestError,
    QueryError,
    RagdashError,
    RetrieverError,
    SettingsError,
)
from ragdash.ingestion.ingest import MAX_PDF_PAGES, load_folder
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.segmentation import cap_passages, max_passages
from ragdash.ingestion.user_cache import CACHE_ENV, parse_cache
from ragdash.ingestion.workspace import Workspace
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.matching import MatchKind
from ragdash.retrieval.saved import check_target
from ragdash.retrieval.wordlist import word_list_label, word_list_note
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    DEFAULT_OCR_MAP,
    DEFAULT_THRESHOLD,
    FIX_NAMES,
    FUZZY_RULES,
    Fixes,
    format_ocr_map,
    parse_protected,
)
from ragdash.storage.case_store import load_cases, workspace_cases
from ragdash.visible import visible_controls

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_RETRIEVER = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
#: Longest run of one word an error line repeats (a 5,000-digit --top-k is cut; a long
#: path the user typed is not).
MAX_WORD_SHOWN = 240
#: One label of a host name (RFC 1123).
_HOST_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


class BadInput(RagdashError):
    """Anything the user gave that cannot be used; printed as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with usage; keep one line
        raise BadInput(message)


def _fixes(args: argparse.Namespace) -> Fixes:
    try:
        extra = {"ocr_map": args.ocr_map} if getattr(args, "ocr_map", None) else {}
        return Fixes.parse(
            args.fixes,
            threshold=args.threshold,
            fuzzy_rule=args.fuzzy_rule,
            protected=getattr(args, "protect", "") or "",
            **extra,
        )
    except SettingsError as exc:
        raise BadInput(f"fix settings: {exc}") from None


def default_docs() -> Path:
    """``$RAGDASH_DOCS``, else the bundled samples (shipped in the package, so an installed
    ragdash has them wherever it runs; ``samples`` names them in either place)."""
    return docs_path(os.environ.get("RAGDASH_DOCS") or SAMPLES_WORD)


def _docs(args: argparse.Namespace) -> Path:
    return docs_path(args.docs) if args.docs else default_docs()


def _note_reserved_word(args: argparse.Namespace) -> None:
    """``samples`` names the bundled samples even where a folder of that name exists: say
    so, or a team's own ``samples/`` would be silently passed over."""
    if not Path(SAMPLES_WORD).is_dir():
        return
    for option in ("docs", "cases"):
        if getattr(args, option, None) == SAMPLES_WORD:
            say(f"ragdash: note: --{option} samples means the samples bundled with ragdash; "
                  f"write ./samples for the folder of that name here", file=sys.stderr)  # fmt: skip


def check_command(docs: str | Path, workspace: str | Path) -> str:
    """The shell command that checks every case the dashboard sees, as pages print it (the
    bundled samples by their word, not by a path inside site-packages)::

        >>> check_command(SAMPLES, "ws")
        'ragdash check --docs samples --workspace ws --fixes all'
    """
    shown = SAMPLES_WORD if Path(docs).resolve() == SAMPLES.resolve() else str(docs)
    return (
        f"ragdash check --docs {shlex.quote(shown)} "
        f"--workspace {shlex.quote(str(workspace))} --fixes all"
    )


class _LoadProgress:
    """What a long load is doing, on one line of stderr — only when stderr is a terminal
    (piped or captured, it says nothing): the file being read, its pages, its OCR, and at the
    end how many PDFs were parsed and how many came from the parse cache."""

    def __init__(self, cache: PdfCache | None) -> None:
        self.stream = sys.stderr
        self.on = bool(getattr(self.stream, "isatty", lambda: False)())
        self.cache = cache
        self.name = ""
        self.parsed: set[str] = set()
        self.cached: set[str] = set()
        self.width = 0

    def _show(self, text: str) -> None:
        if not self.on:
            return
        line = f"ragdash: {text}"[:100]
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def file(self, fraction: float, name: str) -> None:
        """``load_folder``'s progress: the file about to be read."""
        if fraction < 1.0:
            self.name = name
            self._show(f"reading {name} ({fraction:.0%} of the files done)")

    def page(self, fraction: float, text: str) -> None:
        """``read_pdf``'s progress: pages read and OCR, or a cache hit."""
        if text.startswith("done (parsed before"):
            self.cached.add(self.name)
        elif text != "done":
            self.parsed.add(self.name)
            self._show(f"{self.name}: {text}")

    def close(self) -> None:
        if not self.on or not self.width:
            return
        self.stream.write("\r" + " " * self.width + "\r")
        if self.parsed:
            where = f" (kept in {self.cache.folder})" if self.cache is not None else ""
            self.stream.write(
                f"ragdash: parsed {len(self.parsed)} PDF(s), {len(self.cached)} read from the "
                f"parse cache{where}\n"
            )
        self.stream.flush()


def _cache(args: argparse.Namespace) -> PdfCache | None:
    """The parse cache of ``--cache-dir`` / ``$RAGDASH_CACHE_DIR`` / the user's cache
    folder, or None with ``--no-cache``."""
    if getattr(args, "no_cache", False):
        return None
    return parse_cache(getattr(args, "cache_dir", None))


def _index(args: argparse.Namespace) -> CorpusIndex:
    if getattr(args, "index", None):
        return _saved_index(args)
    docs = _docs(args)
    cache = _cache(args)
    progress = _LoadProgress(cache)
    try:
        if args.workspace:
            workspace = Workspace(args.workspace)  # its own parse cache, as the dashboard's
            if cache is None:
                workspace.cache = None  # type: ignore[assignment]
            corpus = workspace.load(docs, progress=progress.file, limit=max_passages())
        else:
            corpus = load_folder(
                docs, progress=progress.file, cache=cache, page_progress=progress.page
            )
            corpus = cap_passages(corpus, max_passages())
    except IngestError as exc:
        raise BadInput(str(exc)) from None
    finally:
        progress.close()
    for message in corpus.messages:
        say(f"ragdash: {field(message)}", file=sys.stderr)
    if not corpus.documents:
        raise BadInput(f"no loadable documents in {str(docs)!r}")
    return CorpusIndex(corpus)


def _saved_index(args: argparse.Namespace) -> CorpusIndex:
    """``--index DIR``: the index ``ragdash index build`` saved (checked against ``--docs``
    when given, else the docs folder it was built from)."""
    if args.workspace:
        raise BadInput("--index cannot be combined with --workspace: an index is built from a "
                       "docs folder alone (ragdash index build --docs DIR -o INDEX)")  # fmt: skip
    return CorpusIndex.load(args.index, args.docs)


def cmd_index(args: argparse.Namespace) -> int:
    """``ragdash index build``: load the docs, build both passage sets' postings, save. The
    output folder is checked first: a folder that is neither new, empty nor a ragdash index
    is refused before minutes of parsing, and left untouched."""
    args.workspace = None
    check_target(args.output)
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


def _cases(args: argparse.Namespace, index: CorpusIndex):
    if args.cases:
        try:
            cases = load_cases(cases_path(args.cases))
        except CaseFileError as exc:
            raise BadInput(_case_file_hint(args.cases, str(exc))) from None
        if not cases:
            # an empty list "passes" every case it holds: a CI gate on it would pass forever
            raise BadInput(f"{args.cases} holds no cases: nothing to check (add cases, or "
                           "import logged queries with ragdash import-cases)")  # fmt: skip
    elif args.workspace:
        found = workspace_cases(_docs(args), args.workspace)
        for problem in found.problems:
            say(f"ragdash: warning: {field(problem)}", file=sys.stderr)
        cases = list(found.cases)
        if not cases:
            raise BadInput(f"no cases in {str(_docs(args))!r} or the workspace's case library")
    else:
        raise BadInput("give --cases FILE (cases.json or a case library) or --workspace DIR")
    known = set(index.corpus.doc_ids)
    for case in cases:
        if case.expected_id not in known:
            say(
                f"ragdash: warning: case {case.name!r} expects {case.expected_id!r}, "
                "which is not in the corpus",
                file=sys.stderr,
            )
    if args.top_k is not None:
        from dataclasses import replace

        cases = [replace(case, top_k=args.top_k) for case in cases]
    return cases


def _case_file_hint(path: str, message: str) -> str:
    """A case file that is a CSV (or JSON lines) of logged queries is no cases.json: say
    which command reads it."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    except OSError:
        return message  # unreadable: the message says so
    tabular = Path(path).suffix.lower() in {".csv", ".jsonl", ".tsv"}
    if (start and start not in b"[{") or (tabular and start):
        return (f"{message} — a CSV or JSONL of logged queries is imported first: ragdash "
                f"import-cases {shlex.quote(path)} --workspace DIR, then check --workspace "
                "DIR")  # fmt: skip
    return message


def cmd_check(args: argparse.Namespace) -> int:
    from ragdash.checks.runs import metrics_of, run_cases

    index = _index(args)
    fixes = _fixes(args)
    retriever = _retriever(args, index)
    cases = _cases(args, index)
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


def _messages_by_cause(runs) -> list[str]:
    """Each case's message once per cause: a service that is down fails every case with the
    same words, which were printed once per case (8 identical lines); cases sharing a
    message are named together, in case order."""
    cases: dict[str, list[str]] = {}
    for r in runs:
        if r.message:
            cases.setdefault(r.message, []).append(r.case.name)
    lines = []
    for message, names in cases.items():
        if len(names) == 1:
            lines.append(f"{names[0]}: {message}")
        else:
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5
                                            else "")  # fmt: skip
            every = "all " if len(names) == len(runs) else ""
            lines.append(f"{every}{len(names)} cases ({shown}): {message}")
    return lines


def _print_word_list(fixes: Fixes) -> None:
    """Name the English word list the fuzzy and OCR fixes judge real words by (a run made
    with another list may decide differently), and what is wrong with it, if anything."""
    if fixes.fuzzy or fixes.ocr:
        say(f"word list: {word_list_label()}")
        if word_list_note():
            say(f"note: {word_list_note()}")


@dataclass(frozen=True)
class _Kept:
    """What ``check`` did with its run: saved (library id), written to files, diffed
    against a baseline, gated."""

    run: object  # SavedRun
    saved: str = ""
    files: tuple[str, ...] = ()
    diff: object = None  # RunDiff
    gated: bool = False
    reasons: tuple[str, ...] = ()

    def text(self) -> str:
        from ragdash.checks.rundiff import diff_text

        lines = []
        if self.saved:
            lines.append(f"\nsaved run {self.saved}")
        lines += [f"wrote {f}" for f in self.files]
        if self.diff is not None:
            lines.append("\ncompared with the baseline:")
            lines.append(diff_text(self.diff))
        if self.gated:
            if self.reasons:
                lines.append("\ngate: FAILED")
                lines += [f"  {r}" for r in self.reasons]
            else:
                lines.append("\ngate: passed")
        return "\n".join(lines)

    def record(self) -> dict:
        data: dict = {"run_id": self.run.id}  # type: ignore[attr-defined]
        if self.diff is not None:
            from ragdash.checks.rundiff import diff_record

            data["baseline"] = diff_record(self.diff)  # type: ignore[arg-type]
        if self.gated:
            data["gate"] = {"passed": not self.reasons, "reasons": list(self.reasons)}
        return data


def _gate_options(args: argparse.Namespace) -> tuple[dict, bool]:
    from ragdash.checks.rundiff import parse_min_metric

    try:
        minimums = dict(parse_min_metric(m) for m in args.min_metric or ())
    except SettingsError as exc:
        raise BadInput(str(exc)) from None
    if args.min_pass_rate is not None and not 0 <= args.min_pass_rate <= 1:
        raise BadInput(f"--min-pass-rate {args.min_pass_rate:g} must be between 0 and 1")
    if args.margin < 0:
        raise BadInput(f"--margin {args.margin:g} must be 0 or more")
    if args.fail_on == "regression" and not args.baseline:
        raise BadInput("--fail-on regression needs --baseline RUN_OR_FILE")
    gated = bool(args.baseline or minimums or args.min_pass_rate is not None
                 or args.fail_on != "failure")  # fmt: skip
    return minimums, gated


def _keep_run(args, retriever, index, cases, fixes, runs) -> _Kept | None:
    """``--save-run``, ``--run-file``, ``--report``, ``--baseline`` and the gate."""
    from ragdash.checks.rundiff import diff_runs, gate
    from ragdash.checks.snapshot import snapshot

    minimums, gated = _gate_options(args)
    wanted = args.save_run or args.run_file or args.report or gated
    if not wanted:
        return None
    baseline = _load_run(args.baseline, args) if args.baseline else None
    ablation = ()
    if args.ablation or (not retriever.spec.external and (args.save_run or args.run_file
                                                         or args.report)):  # fmt: skip
        from ragdash.checks.ablation import configurations
        from ragdash.checks.runs import run_configurations

        rows, _ = run_configurations(retriever, cases, configurations(fixes), args.metrics_k)
        ablation = tuple((r.case, r.configuration, r.diagnosis) for r in rows)
    run = snapshot(runs, retriever.spec, fixes, index, k=args.metrics_k,
                   name=args.run_name or "", ablation=ablation)  # fmt: skip
    saved = ""
    if args.save_run:
        library = _run_library(args, create=True)
        try:
            run = library.save_run(run)
        except RagdashError as exc:
            raise BadInput(str(exc)) from None
        saved = f"#{run.id} in {library.path}"
    files = []
    if args.run_file:
        _write_text(args.run_file, json.dumps(run.to_dict(), indent=2, ensure_ascii=False))
        files.append(args.run_file)
    diff = diff_runs(baseline, run) if baseline is not None else None
    if baseline is not None:
        from ragdash.checks.snapshot import word_list_warning

        warning = word_list_warning(baseline, run)
        if warning:
            say(f"ragdash: warning: {warning}", file=sys.stderr)
    if args.report:
        from ragdash.checks.html_report import diff_report, run_report

        _write_text(args.report, diff_report(diff) if diff is not None else run_report(run))
        files.append(args.report)
    reasons = ()
    if gated:
        try:
            reasons = tuple(gate(run, diff, fail_on=args.fail_on, margin=args.margin,
                                 min_pass_rate=args.min_pass_rate, min_metrics=minimums))
        except SettingsError as exc:
            raise BadInput(str(exc)) from None
    return _Kept(run, saved, tuple(files), diff, gated, reasons)


def _write_text(path: str, text: str) -> None:
    from ragdash.atomic import atomic_write

    try:
        atomic_write(path, text.encode("utf-8", "surrogatepass"))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(path, 0o666 & ~umask)  # a report is for others to read, like any new file
    except OSError as exc:
        raise BadInput(f"cannot write {path!r}: {exc.strerror or exc}") from None


def _run_library(args: argparse.Namespace, create: bool = False):
    """The library runs are kept in: ``--library FILE``, else the workspace's."""
    from ragdash.errors import LibraryError
    from ragdash.storage.case_store import library_path
    from ragdash.storage.library import CaseLibrary

    library = getattr(args, "library", None)
    workspace = getattr(args, "workspace", None)
    if not library and not workspace:
        raise BadInput("runs are kept in a case library: give --workspace DIR or --library FILE")
    path = Path(library) if library else library_path(workspace)
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.exists():
            raise BadInput(f"case library {str(path)!r} does not exist (no run saved there yet)")
        return CaseLibrary(path)
    except LibraryError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise BadInput(f"case library {str(path)!r}: {exc.strerror or exc}") from None


def _load_run(ref: str, args: argparse.Namespace):
    """A run id in the library (``3``, ``#3``, ``latest``) or a run file."""
    from ragdash.checks.snapshot import load_run_file
    from ragdash.errors import RunError

    try:
        if Path(ref).is_file():
            return load_run_file(ref)
        if not ref.strip().lstrip("#").isdigit() and ref.strip().lower() != "latest":
            raise BadInput(f"run {ref!r} is neither a run id (a number, or latest) nor a file")
        return _run_library(args).saved_run(ref)
    except RunError as exc:
        raise BadInput(str(exc)) from None


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
        rows = [("id", "when", "name", "retriever", "fixes", "corpus", "passed", "MRR")]
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
    say(f"ragdash: wrote the report of {run.ref} to {args.output} ({len(html.encode())} bytes)",
          file=sys.stderr)
    return EXIT_OK


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
        "cases": [{"name": r.case.name, "verdict": r.verdict, "diagnosis": r.diagnosis,
                   "error": r.error or None} for r in runs],  # fmt: skip
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
    metric_rows = [("run", "passed", *METRIC_NAMES)]
    for name, runs in (("before", before), ("after", after)):
        values = metrics_of(runs, k).row()
        cells = ["-" if v is None else f"{v:.3f}" for v in values.values()]
        metric_rows.append((name, f"{sum(r.passed for r in runs)}/{len(runs)}", *cells))
    lines.append(f"\nmetrics at k={k}:")
    lines.append(_table(metric_rows))
    return "\n".join(lines)


def cmd_query(args: argparse.Namespace) -> int:
    index = _index(args)
    fixes = _fixes(args)
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
                    "query": args.text,
                    "retriever": retriever.spec.label,
                    "fixes": fixes.label,
                    "ranked": [ranked_record(r) for r in ranked],
                },
                indent=2,
            )
        )
        return EXIT_OK
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
    index = _index(args)
    fixes = _fixes(args)
    retriever = _retriever(args, index)
    metrics = None
    identical: dict[str, tuple[str, str]] = {}
    try:
        if retriever.spec.kind == "seed" and not args.metrics:
            from ragdash.checks.parallel import parallel_ablation

            table = parallel_ablation(index, _cases(args, index), fixes, jobs=args.jobs)
        else:
            from ragdash.checks.ablation import configurations
            from ragdash.checks.runs import run_configurations

            configs = configurations(fixes)
            run, identical = _distinct_configurations(retriever.spec.kind, configs)
            shared = getattr(retriever, "answers_shared", None)
            with shared() if shared is not None else contextlib.nullcontext():
                table, metrics = run_configurations(retriever, _cases(args, index), run,
                                                    args.metrics_k)  # fmt: skip
            table, metrics = _expand_identical(configs, identical, table, metrics)
    except QueryError as exc:
        raise BadInput(str(exc)) from None
    if args.json:
        from ragdash.frames import records

        if args.metrics and metrics is not None:
            emit(json.dumps({
                "retriever": retriever.spec.label,
                "rows": records(table),
                "metrics": records(metrics),
                "identical": {label: {"same_as": same, "reason": why}
                              for label, (same, why) in identical.items()},
            }, indent=2))  # fmt: skip
        else:
            emit(json.dumps(records(table), indent=2))
    else:
        import pandas as pd

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
                applies, how = fix_support(retriever.spec.kind, name)
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
    index = _index(args)
    fixes = _fixes(args)
    cases = _cases(args, index)
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

        emit(json.dumps(records(table), indent=2))
        return EXIT_OK
    say(f"seed {args.seed}, up to {args.max_edits} edits, beam {args.beam}")
    for case in cases:
        rows = [("fault", "fixes", "result", "corrupted query", "failure", "evaluations")]
        for row in (r for r in table if r.case == case.name):
            broken = row.outcome == "breaks"
            rows.append(
                (
                    row.fault,
                    row.configuration,
                    result_phrase(row.outcome, row.edits, row.depth, row.stopped),
                    row.corrupted_query if broken else "-",
                    row.failure or "-",
                    str(row.evaluations),
                )
            )
        say(f"\n{case.name}: {case.query!r} → {case.expected_id}")
        say(_table(rows))
        say(case_summary(table, case.name))
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
    cache = _cache(args)
    progress = _LoadProgress(cache)
    progress.name = path.name
    try:
        report = inspect_pdf(data, max_pages=args.max_pages, progress=progress.page, cache=cache)
    except IngestError as exc:
        raise BadInput(f"{path.name} {exc}") from None
    finally:
        progress.close()
    if args.json:
        emit(json.dumps({"file": path.name, **report.to_dict()}, indent=2))
        return EXIT_OK
    say(f"{path.name}: {report.pages} page(s)")
    say(f"verdict: {report.verdict}")
    rows = [("page", "text chars", "tables found")]
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
        for line in report.furniture[:20]:
            say(f"  {line}")
    if report.no_text_pages:
        say(f"\npages with no text layer: {', '.join(map(str, report.no_text_pages))}")
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


def cmd_export(args: argparse.Namespace) -> int:
    import os

    from ragdash.atomic import atomic_write
    from ragdash.storage.export import DOCS_ENV, json_export, path_from, pytest_module

    try:
        cases = load_cases(cases_path(args.cases))
    except CaseFileError as exc:
        raise BadInput(_case_file_hint(args.cases, str(exc))) from None
    if args.format == "json":
        text = json_export(cases)
    else:
        docs = args.docs or os.environ.get(DOCS_ENV) or SAMPLES_WORD
        if not docs_path(docs).is_dir():
            raise BadInput(f"docs folder {docs!r} does not exist or is not a folder (--docs)")
        if args.output:  # the module reads a relative path from its own folder
            docs = path_from(Path(args.output).parent, docs)
        elif not Path(docs).is_absolute():
            say(f"ragdash: note: the exported tests read {docs!r} from the folder the file "
                  "is saved in (or set RAGDASH_DOCS when they run)", file=sys.stderr)  # fmt: skip
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
        say(f"ragdash: wrote {len(cases)} case(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.flush()  # bytes straight to the buffer: UTF-8 whatever the locale says
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            sys.stdout.write(text)
    return EXIT_OK


def _retriever(args: argparse.Namespace, index: CorpusIndex):
    """The retriever the ``--retriever`` options name (``seed`` when none is given)."""
    from ragdash.retrieval.retrievers import make_retriever

    spec = _retriever_spec(args)
    if spec.kind in ("python", "langchain") and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: mypkg in the current folder
    try:
        retriever = make_retriever(spec, index)
    except RetrieverError as exc:
        raise BadInput(str(exc)) from None
    limit = getattr(args, "max_failures", None)
    if spec.external:
        from ragdash.retrieval.breaker import DEFAULT_MAX_FAILURES, FailureBreaker

        if limit is not None and limit < 0:
            raise BadInput(f"--max-failures {limit} must be 0 (never stop) or more")
        return FailureBreaker(retriever, DEFAULT_MAX_FAILURES if limit is None else limit)
    return retriever


def _retriever_spec(args: argparse.Namespace):
    from ragdash.retrieval.options import spec_from_args

    try:
        return spec_from_args(args)
    except SettingsError as exc:
        raise BadInput(f"retriever settings: {exc}") from None


def _print_fix_support(spec, fixes: Fixes, kind: str | None = None) -> None:
    """Say which of the fixes that are on reach this retriever, and which do not."""
    from ragdash.retrieval.spec import fix_support

    for name in fixes.enabled:
        applies, how = fix_support(kind or spec.kind, name)
        say(f"  {name}: {'applied' if applies else 'NOT applied'} — {how}")


def _metrics_table(retriever, cases, fixes: Fixes, k: int) -> str:
    """Metrics with no fixes and with ``fixes`` (one row each)."""
    from ragdash.checks.metrics import METRIC_NAMES
    from ragdash.checks.runs import run_configurations

    configs = {"none": fixes.with_only(())}
    configs[fixes.names] = fixes
    _, metrics = run_configurations(retriever, cases, configs, k)
    rows = [("configuration", "passed", "errors", *METRIC_NAMES)]
    for m in metrics:
        values = (m.hit_at_k, m.recall_at_k_docs, m.recall_at_k_evidence, m.mrr, m.ndcg_at_k)
        cells = ["-" if v is None else f"{v:.3f}" for v in values]
        rows.append((m.configuration, f"{m.passed}/{len(cases)}", str(m.errors), *cells))
    return _table(rows)


def _retriever_options(p: argparse.ArgumentParser) -> None:
    """``--retriever`` and its settings: what :func:`_retriever` reads."""
    from ragdash.retrieval.options import add_retriever_options

    add_retriever_options(p)
    p.add_argument("--max-failures", type=int, default=None, metavar="N",
                   help="stop asking an http/python/langchain retriever after N connection "
                   "failures in a row; later cases fail at once with the cause (default 3; "
                   "0 never stops)")


def cmd_passages(args: argparse.Namespace) -> int:
    """Write the passages the corpus-side fixes leave, for re-indexing elsewhere."""
    from ragdash.storage.passages_export import export_passages

    index = _index(args)
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


def cmd_import_cases(args: argparse.Namespace) -> int:
    """Import a CSV/JSONL of logged queries into the workspace's case library."""
    from ragdash.storage.case_store import open_library
    from ragdash.storage.log_import import MAX_LOG_BYTES, parse_log_cases

    path = Path(args.file)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:  # refused before it is read into memory
            raise BadInput(f"{args.file}: is larger than {MAX_LOG_BYTES // 2**20} MiB; split it")
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise BadInput(f"{args.file}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BadInput(f"{args.file}: is not UTF-8 text") from None
    known = None
    if args.docs or os.environ.get("RAGDASH_DOCS"):
        known = set(_index(args).corpus.doc_ids)
    try:
        library = open_library(args.workspace, create=True)
        assert library is not None
        taken = () if args.replace else {c.name for c in library.cases()}
        found = parse_log_cases(text, path.name, args.format, known, taken)
        result = library.import_cases(found.cases, replace=args.replace)
    except (CaseFileError, RagdashError) as exc:
        raise BadInput(str(exc)) from None
    replaced = f", {len(result.updated)} replaced" if result.updated else ""
    say(f"imported {len(result.added)} case(s){replaced} into {args.workspace}; "
          f"{len(found.errors)} row(s) with errors")
    for error in found.errors:
        say(f"  {error}")
    return EXIT_OK if not found.errors else EXIT_FAILED


def _fix_options(p: argparse.ArgumentParser, default: str) -> None:
    """``--fixes``, ``--threshold``, ``--fuzzy-rule``, ``--ocr-map`` and ``--protect``: what
    :func:`_fixes` reads."""
    p.add_argument(
        "--protect",
        default="",
        help="tokens the OCR fix never rewrites, comma-separated (e.g. sha1,t1d)",
    )
    p.add_argument(
        "--ocr-map",
        default="",
        help="digit=letter pairs the OCR fix may read (default "
        f"{format_ocr_map(DEFAULT_OCR_MAP).replace(' ', '')})",
    )
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
        "run); default $RAGDASH_DOCS or samples (the bundled samples)",
    )
    # An exported suite guards the repairs: by default they are all on (pytest format only).
    _fix_options(p, default="all")
    p.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")


def _cache_options(p: argparse.ArgumentParser) -> None:
    """``--cache-dir`` and ``--no-cache``: what :func:`_cache` reads."""
    p.add_argument(
        "--cache-dir",
        default=None,
        metavar="DIR",
        help=f"where parsed PDFs are kept between calls (default ${CACHE_ENV}, else the "
        "user's cache folder); with --workspace, the workspace's own cache is used",
    )
    p.add_argument("--no-cache", action="store_true",
                   help="parse every PDF again and keep nothing")  # fmt: skip


def say(*values: object, file: TextIO | None = None) -> None:
    """Print human-readable output: every line the CLI shows a person goes through here, so
    file names, case and run names and messages from documents show bidi controls,
    zero-width and control characters as code points (``⟨U+202E⟩``,
    :func:`ragdash.visible.visible_controls`) — a raw override would make ``\u202eevil.md``
    read as ``dm.live`` and an escape sequence would drive the terminal. Line breaks between
    lines stay; a one-line field inside a line goes through :func:`field` first."""
    text = " ".join(str(v) for v in values)
    print(visible_controls(text, keep_newlines=True), file=file or sys.stdout)


def emit(text: str) -> None:
    """Print machine-readable output (JSON) exactly as it is: a program reads it."""
    print(text)


def field(value: object) -> str:
    """One value of a one-line field (a table cell, a run name) with line breaks and every
    invisible character as code points: ``'a\nb'`` → ``a⟨U+000A⟩b``."""
    return visible_controls(str(value))


def _table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as aligned columns; every cell is one line (:func:`field`), so a run or case
    name holding a newline cannot fake a row."""
    cells = [[field(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join(
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def _plain(text: str) -> str:
    """Docstring text as ``--help`` shows it: whole sentences on one line, no rst markup
    (the first line alone stopped at a comma; double backticks showed as typed)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)  # :func:`x` -> x
    return " ".join(text.replace("``", "").split())


def build_parser() -> argparse.ArgumentParser:
    head, codes = __doc__.split("\n\n")[:2]
    parser = _Parser(prog="ragdash", description=_plain(head), epilog=_plain(codes))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p: argparse.ArgumentParser, cases: bool, fixes: str = "none") -> None:
        p.add_argument(
            "--docs",
            default=None,
            help="docs folder (.txt, .md, .pdf, metadata.csv), or samples: the bundled "
            "samples; default $RAGDASH_DOCS, else the bundled samples",
        )
        p.add_argument(
            "--workspace",
            default=None,
            help="the dashboard's workspace folder: its uploads and metadata edits join the "
            "docs, and its case library joins the bundled cases",
        )
        p.add_argument(
            "--index",
            default=None,
            metavar="DIR",
            help="a saved index (ragdash index build) instead of loading the docs; refused "
            "when the docs changed since",
        )
        if cases:
            p.add_argument(
                "--cases",
                default=None,
                help="cases.json or a SQLite case library, or samples: the bundled cases "
                "(default with --workspace: the docs folder's cases.json plus the "
                "workspace's library)",
            )
        _fix_options(p, default=fixes)
        p.add_argument(
            "--top-k",
            type=int,
            default=None,
            help="passages sent to the model (overrides each case's top_k)",
        )
        p.add_argument("--json", action="store_true", help="machine-readable output")
        _cache_options(p)

    index = sub.add_parser("index", help="build an index once and save it (index build)")
    index.add_argument("action", choices=("build",), help="build: load --docs and save")
    index.add_argument("--docs", default=None, help="docs folder (default as for check)")
    _cache_options(index)
    index.add_argument("-o", "--output", required=True, metavar="DIR",
                       help="folder to write the index to (replaced atomically)")  # fmt: skip

    check = sub.add_parser("check", help="run proof-check cases")
    common(check, cases=True)
    _retriever_options(check)
    _metrics_options(check)
    _run_options(check)
    runs = sub.add_parser("runs", help="the runs kept in the case library: list, show, "
                          "delete, export")  # fmt: skip
    runs.add_argument("action", choices=("list", "show", "delete", "export"))
    runs.add_argument("run", nargs="?", default=None,
                      help="show/delete/export: a run id (ragdash runs list), or latest")
    _library_options(runs)
    runs.add_argument("-o", "--output", default=None, help="export: file to write")
    runs.add_argument("--json", action="store_true", help="machine-readable output")
    diff = sub.add_parser("diff", help="what moved between two runs, and why")
    diff.add_argument("run_a", help="before: a run id, latest, or a run file")
    diff.add_argument("run_b", help="after: a run id, latest, or a run file")
    _library_options(diff)
    diff.add_argument("--json", action="store_true", help="machine-readable output")
    report = sub.add_parser("report", help="a standalone HTML report of a run (or of a diff)")
    report.add_argument("run", help="a run id, latest, or a run file")
    report.add_argument("--against", default=None,
                        help="a baseline run: report the diff from it to RUN")
    report.add_argument("-o", "--output", required=True, help="the HTML file to write")
    _library_options(report)
    query = sub.add_parser("query", help="rank passages for one query")
    query.add_argument("text", help="the query")
    common(query, cases=False)
    _retriever_options(query)
    ablate = sub.add_parser("ablate", help="cases × fix configurations")
    common(ablate, cases=True)
    _retriever_options(ablate)
    _metrics_options(ablate, compare=False)
    _jobs_option(ablate)
    passages = sub.add_parser(
        "passages", help="write the passages the fixes leave (to re-index in your retriever)"
    )
    common(passages, cases=False)
    passages.add_argument("--format", choices=("jsonl", "csv"), default="jsonl",
                          help="one JSON object per line (default) or CSV")
    passages.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    imports = sub.add_parser(
        "import-cases", help="add cases from a CSV/JSONL of logged queries to the case library"
    )
    imports.add_argument("file", help="CSV or JSONL: query, expected_id, optional evidence")
    imports.add_argument("--workspace", required=True, help="the workspace whose library gets them")
    imports.add_argument("--docs", default=None,
                         help="docs folder: rows expecting a document not in it are reported")
    imports.add_argument("--format", choices=("csv", "jsonl"), default=None,
                         help="default: from the file name")
    _cache_options(imports)
    imports.add_argument("--replace", action="store_true",
                         help="overwrite library cases with the same name")
    imports.add_argument("--ocr-map", default="0=o,1=i", help=argparse.SUPPRESS)
    fragility = sub.add_parser(
        "fragility", help="fewest OCR/typo edits that break each case, no fixes vs --fixes"
    )
    common(fragility, cases=True, fixes="all")  # compared with no fixes: do they help?
    _fragility_options(fragility)
    _jobs_option(fragility)
    _retriever_options(fragility)
    inspect = sub.add_parser("inspect", help="what ingestion makes of one PDF")
    inspect.add_argument("file", help="the PDF file")
    inspect.add_argument(
        "--max-pages",
        type=int,
        default=MAX_PDF_PAGES,
        help=f"refuse PDFs with more pages (default {MAX_PDF_PAGES})",
    )
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    _cache_options(inspect)
    _export_options(
        sub.add_parser("export", help="write cases as a standalone pytest file or cases.json")
    )
    dashboard = sub.add_parser("dashboard", help="start the Streamlit dashboard")
    dashboard.add_argument("--docs", default=None, help="docs folder (default as for check)")
    dashboard.add_argument("--workspace", default="workspace", help="default ./workspace")
    dashboard.add_argument("--port", type=int, default=8501, help="default 8501")
    dashboard.add_argument(
        "--address",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; expose it only "
        "behind an authenticating proxy)",
    )
    _retriever_options(dashboard)  # the operator's retriever; a page visitor never names one
    common(sub.add_parser("rewrites", help="what the OCR fix rewrites in the docs, and why"),
           cases=False, fixes="ocr")
    learn = sub.add_parser(
        "ocr-map", help="OCR map entries learned from a scan's OCR aligned to its clean text"
    )
    learn.add_argument("clean", help="the clean text of the scanned pages (a form feed "
                       "between pages aligns page by page)")
    source = learn.add_mutually_exclusive_group(required=True)
    source.add_argument("--pdf", help="the scanned PDF (OCR'd as ingestion would)")
    source.add_argument("--ocr-text", help="OCR output already made, as a text file")
    learn.add_argument("--force-ocr", action="store_true",
                       help="OCR every page of --pdf, even those with a text layer")
    learn.add_argument("--protect", default="",
                       help="tokens the OCR fix must never rewrite, e.g. 'wi5e, t1d'")
    learn.add_argument("--min-count", type=int, default=1,
                       help="propose an entry seen at least this often (default 1)")
    learn.add_argument("--json", action="store_true", help="machine-readable output")
    _cache_options(learn)
    return parser


def _metrics_options(p: argparse.ArgumentParser, compare: bool = True) -> None:
    from ragdash.checks.metrics import DEFAULT_METRIC_K

    p.add_argument("--metrics", action="store_true",
                   help="also print hit@k, recall@k, MRR and nDCG@k per configuration")
    p.add_argument("--metrics-k", type=int, default=DEFAULT_METRIC_K,
                   help=f"depth k of the metrics (default {DEFAULT_METRIC_K})")
    if not compare:
        return
    p.add_argument("--compare-url", default=None,
                   help="http: the service before re-indexing; prints the cases whose verdict "
                   "changed and both runs' metrics")


def _library_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", default="workspace",
                   help="the workspace whose case library keeps the runs (default ./workspace)")
    p.add_argument("--library", default=None, help="a case library file (overrides --workspace)")


def _run_options(p: argparse.ArgumentParser) -> None:
    """Keeping a run, comparing it with a baseline, and the CI gate."""
    g = p.add_argument_group("runs, reports and the CI gate")
    g.add_argument("--save-run", action="store_true",
                   help="keep this run in the case library (--workspace's or --library)")
    g.add_argument("--run-name", default="", help="a name for the saved run")
    g.add_argument("--library", default=None,
                   help="the case library file runs are kept in (default: the workspace's)")
    g.add_argument("--run-file", default=None, help="write the run as a JSON run file")
    g.add_argument("--report", default=None,
                   help="write a standalone HTML report (of the diff, with --baseline)")
    g.add_argument("--ablation", action="store_true",
                   help="also run the ablation for the report (always for seed and bm25)")
    g.add_argument("--baseline", default=None,
                   help="a run id, latest, or a run file: print the diff from it")
    g.add_argument("--fail-on", choices=("failure", "regression", "nothing"), default="failure",
                   help="exit 1 on any failing case (default), on a regression from the "
                   "baseline (a case that passed fails, or a metric drops more than --margin), "
                   "or only on the thresholds")
    g.add_argument("--margin", type=float, default=0.0,
                   help="how much a metric may drop before it is a regression (default 0)")
    g.add_argument("--min-pass-rate", type=float, default=None,
                   help="exit 1 when fewer cases pass (0-1)")
    g.add_argument("--min-metric", action="append", default=None, metavar="METRIC=VALUE",
                   help="exit 1 when a metric is lower, e.g. mrr=0.8 (repeatable; hit_at_k, "
                   "recall_at_k_docs, recall_at_k_evidence, mrr, ndcg_at_k)")


def _jobs(text: str) -> int:
    from ragdash.checks.parallel import parse_jobs

    try:
        return parse_jobs(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs", type=_jobs, default=1, metavar="N",
        help="run the cases in N worker processes (built-in retriever; same results as 1, "
        "default 1)",
    )  # fmt: skip


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


def check_address(address: str, port: int) -> None:
    """Refuse, in one line, an address or port the server could not listen on (Streamlit
    would print a traceback): not an IP address or host name, a name that does not resolve,
    an address of another machine, a port in use or not allowed."""
    import ipaddress
    import socket

    if not 1 <= port <= 65535:
        raise BadInput(f"--port must be 1-65535, got {port}")
    shown = one_line(address)
    try:
        ipaddress.ip_address(address)
    except ValueError:
        labels = address.rstrip(".").split(".")
        if (not address or len(address) > 253 or not all(_HOST_LABEL.match(x) for x in labels)
                or labels[-1].isdigit()):  # fmt: skip
            raise BadInput(
                f"--address {shown!r} is not an IP address (e.g. 127.0.0.1) or a host name"
            ) from None
    try:
        found = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise BadInput(f"--address {shown!r}: no such host on this machine's network") from None
    family, kind, proto, _, where = found[0]
    with socket.socket(family, kind, proto) as probe:
        if os.name == "posix":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(where)
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise BadInput(f"cannot listen on {shown} port {port}: {why}") from None


def dashboard_command(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command ``ragdash dashboard`` becomes: the docs, the workspace
    and the operator's retriever (``--retriever …``) go to the app after ``--``."""
    from ragdash.retrieval.options import spec_argv
    from ragdash.ui import APP_SCRIPT
    from ragdash.ui.serve import streamlit_flags

    docs = _docs(args)
    if not docs.is_dir():
        raise BadInput(f"docs folder {str(docs)!r} does not exist or is not a folder")
    spec = _retriever_spec(args)
    if spec.body_template:  # read now: a bad file is one line here, not an error per page
        from dataclasses import replace as _replace

        from ragdash.retrieval.http_retriever import load_template

        try:
            load_template(spec.body_template)
        except RetrieverError as exc:
            raise BadInput(str(exc)) from None
        spec = _replace(spec, body_template=str(Path(spec.body_template).resolve()))
    check_address(args.address, args.port)
    flags = streamlit_flags(server_port=args.port, server_address=args.address)
    return [
        sys.executable, "-m", "streamlit", "run", str(APP_SCRIPT), *flags,
        "--", "--docs", str(docs.resolve()), "--workspace", str(Path(args.workspace).resolve()),
        *spec_argv(spec),
    ]  # fmt: skip


def cmd_dashboard(args: argparse.Namespace) -> int:
    """Run ``streamlit run`` on the app inside the installed package."""
    import subprocess

    command = dashboard_command(args)
    if os.name == "posix":
        # Become the server: a SIGTERM to `ragdash dashboard` (a service manager, a test's
        # terminate()) then stops Streamlit itself instead of orphaning it on its port.
        sys.stdout.flush()
        os.execv(sys.executable, command)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return EXIT_OK


def cmd_rewrites(args: argparse.Namespace) -> int:
    """The OCR fix's rewrite budget: each rewrite with its evidence, and what it keeps."""
    from ragdash.checks.rewrites import rewrite_budget

    budget = rewrite_budget(_index(args), _fixes(args))
    if args.json:
        emit(json.dumps(budget.to_dict(), indent=2, ensure_ascii=False))
        return EXIT_OK
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


def _read_text(path: str, what: str) -> str:
    from ragdash.ingestion.ingest import decode_text

    try:
        return decode_text(Path(path).read_bytes())[0]
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except IngestError as exc:
        raise BadInput(f"{path} ({what}) {exc}") from None


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
    for c in learned.confusions[:15]:
        rows.append((repr(c.truth) if c.truth else "(added)", repr(c.read) if c.read else
                     "(dropped)", str(c.count), ", ".join(c.examples)))
    if len(rows) > 1:
        say(_table(rows))
    if learned.proposals:
        say("\nproposed OCR map entries (digit read for a letter):")
        for p in learned.proposals:
            say(f"  {p.entry}  x{p.count}  {', '.join(p.examples)}")
        say(f"use: --ocr-map \"{learned.ocr_map}\"")
    else:
        say("\nno OCR map entry proposed: OCR read no digit for a letter")
    for p in learned.refused:
        say(f"refused: {p.entry} x{p.count}: {p.refused}")
    return EXIT_OK


COMMANDS = {
    "ocr-map": cmd_ocr_map,
    "index": cmd_index,
    "dashboard": cmd_dashboard,
    "check": cmd_check,
    "query": cmd_query,
    "ablate": cmd_ablate,
    "fragility": cmd_fragility,
    "inspect": cmd_inspect,
    "export": cmd_export,
    "passages": cmd_passages,
    "import-cases": cmd_import_cases,
    "rewrites": cmd_rewrites,
    "runs": cmd_runs,
    "diff": cmd_diff,
    "report": cmd_report,
}


def one_line(message: str) -> str:
    """An error message as one short line: newlines folded, NUL, bidi, zero-width and other
    invisible characters shown as code points (``⟨U+202E⟩``), any word longer than
    :data:`MAX_WORD_SHOWN` cut::

        >>> line = one_line("invalid int value: '" + "9" * 5000 + "'")
        >>> line.endswith("…(5,002 characters)"), len(line) < 200
        (True, True)
    """
    text = visible_controls(" ".join(message.split()))

    def cut(match: re.Match) -> str:
        word = match.group(0)
        return f"{word[: MAX_WORD_SHOWN // 2]}…({len(word):,} characters)"

    return re.sub(rf"\S{{{MAX_WORD_SHOWN + 1},}}", cut, text)


def _where(exc: BaseException) -> str:
    """`` at ragdash/x.py:12`` — the last ragdash line the error passed, for a bug report
    (a path inside the package, never where it is installed)."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "ragdash" in f.filename]
    if not frames:
        return ""
    parts = Path(frames[-1].filename).parts
    inside = parts[len(parts) - 1 - parts[::-1].index("ragdash") :]
    return f" at {'/'.join(inside)}:{frames[-1].lineno}"


def _refuse_nul(argv: Sequence[str]) -> None:
    for arg in argv:
        if "\x00" in arg:
            shown = one_line(arg)
            raise BadInput(f"argument {shown!r} contains a NUL byte; no file has such a name")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. Every error prints one line, never a traceback:
    exit 2 for input ragdash cannot use, 3 for a ragdash bug (with the error's type, to
    report)."""
    previous = _on_sigterm()
    try:
        _refuse_nul(sys.argv[1:] if argv is None else argv)
        args = build_parser().parse_args(argv)
        if getattr(args, "top_k", None) is not None and args.top_k < 1:
            raise BadInput("--top-k must be at least 1")
        if getattr(args, "metrics_k", 1) < 1:
            raise BadInput("--metrics-k must be at least 1")
        _note_reserved_word(args)
        return COMMANDS[args.command](args)
    except BadInput as exc:
        say(f"ragdash: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RagdashError as exc:  # e.g. a library locked while runs are listed: one line too
        say(f"ragdash: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        say("ragdash: interrupted (SIGINT): stopped before the end; nothing more is "
              "written", file=sys.stderr)  # fmt: skip
        return EXIT_INTERRUPTED
    except _Terminated:
        say("ragdash: terminated (SIGTERM): stopped before the end; nothing more is "
              "written", file=sys.stderr)  # fmt: skip
        return EXIT_TERMINATED
    except MemoryError:
        say("ragdash: error: out of memory (the input is too large)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        say("ragdash: error: the input is nested too deeply", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # noqa: BLE001 — a bug: one line with its type, no traceback
        say(
            f"ragdash: error: internal error ({type(exc).__name__}{_where(exc)}) — please "
            "report it with the command that caused it; RAGDASH_TRACEBACK=1 shows the details",
            file=sys.stderr,
        )
        if os.environ.get("RAGDASH_TRACEBACK") == "1":
            raise
        return EXIT_INTERNAL
    finally:
        _restore_sigterm(previous)


class _Terminated(BaseException):  # noqa: N818 - like KeyboardInterrupt, not an Exception
    """SIGTERM arrived: unwind (closing files and connections) and exit 143."""


def _on_sigterm():
    """Turn SIGTERM into :class:`_Terminated` while :func:`main` runs (the default action
    kills the process with no line and no chance to say the run is incomplete). Only the
    main thread may set a handler; elsewhere nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum, frame):
        raise _Terminated()

    return signal.signal(signal.SIGTERM, stop)


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def main_exit() -> None:
    """The ``ragdash`` console command: :func:`main`'s return value as the exit status."""
    sys.exit(main())
