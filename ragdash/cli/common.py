"""What every command shares: the one-line errors and exit codes, the options, and loading the
docs, cases and retriever."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ragdash.bundled import SAMPLES, SAMPLES_CASES, SAMPLES_WORD, cases_path, docs_path
from ragdash.case import Case
from ragdash.errors import (
    CaseFileError,
    IngestError,
    RagdashError,
    RetrieverError,
    RetrieverUnreachable,
    SettingsError,
)
from ragdash.ingestion.ingest import load_folder
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.segmentation import cap_passages, max_passages
from ragdash.ingestion.user_cache import CACHE_ENV, parse_cache
from ragdash.ingestion.workspace import Workspace
from ragdash.retrieval.index import CorpusIndex
from ragdash.retrieval.wordlist import word_list_label, word_list_note
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    DEFAULT_OCR_MAP,
    DEFAULT_THRESHOLD,
    FIX_NAMES,
    FUZZY_RULES,
    Fixes,
    format_ocr_map,
)
from ragdash.storage.case_store import load_cases, workspace_cases
from ragdash.visible import visible_controls

if TYPE_CHECKING:  # imported where it runs: most commands never diff
    from ragdash.checks.rundiff import RunDiff

__all__ = [
    "BadInput",
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_RETRIEVER",
    "EXIT_TERMINATED",
    "MAX_WORD_SHOWN",
    "default_docs",
    "emit",
    "field",
    "inputs_line",
    "inputs_record",
    "one_line",
    "say",
]


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
    """argparse with one-line errors and no abbreviations: ``--doc`` for ``--docs`` or
    ``--fix`` for ``--fixes`` is refused, not silently taken (an option added later would
    change what an abbreviation in a CI script means)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # argparse would exit 2 with usage; keep one line
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


def _is_samples(text: str | Path, bundled: Path) -> bool:
    """``text`` names the bundled samples (the word, or the path of the bundled file)."""
    if text == SAMPLES_WORD:
        return True
    try:
        return Path(text).resolve() == bundled.resolve()
    except OSError:
        return False


def _refuse_samples_for_own_cases(args: argparse.Namespace) -> None:
    """``--cases mine.json`` without ``--docs``: the cases are about the user's documents,
    and checking them against the bundled samples fails every one with "not in the corpus"
    — refused, asking for the folder (never a silent fall-back)."""
    cases = getattr(args, "cases", None)
    if not cases or _is_samples(cases, SAMPLES_CASES):
        return
    if args.docs or getattr(args, "index", None) or os.environ.get("RAGDASH_DOCS"):
        return
    raise BadInput(
        f"--cases {cases} names your own cases: give --docs DIR, the folder they are about "
        "(--docs samples for the bundled samples)"
    )


def inputs_record(args: argparse.Namespace, cases: Sequence[Case] | None = None) -> dict:
    """Which docs folder and which cases a command used — its ``--json`` ``inputs`` and
    (by :func:`inputs_line`) its first line, so a run always says what it ran on::

        >>> ns = argparse.Namespace(docs="samples", cases="samples", workspace=None)
        >>> inputs_record(ns)
        {'docs': 'samples', 'docs_from': '--docs', 'cases': 'samples'}
    """
    if getattr(args, "index", None):
        docs, origin = str(args.index), "--index (a saved index)"
    else:
        folder = _docs(args)
        docs = SAMPLES_WORD if _is_samples(folder, SAMPLES) else str(folder)
        if args.docs:
            origin = "--docs"
        elif os.environ.get("RAGDASH_DOCS"):
            origin = "$RAGDASH_DOCS"
        else:
            origin = "default (no --docs, no $RAGDASH_DOCS): the bundled samples"
    record: dict = {"docs": docs, "docs_from": origin}
    if getattr(args, "workspace", None):
        record["workspace"] = str(args.workspace)
    generate = getattr(args, "generate", None)
    given = getattr(args, "cases", None)
    if generate is not None:
        record["cases"] = f"generated with seed {args.seed}"
    elif given:
        record["cases"] = SAMPLES_WORD if _is_samples(given, SAMPLES_CASES) else str(given)
    elif getattr(args, "workspace", None):
        record["cases"] = f"{docs}/cases.json and the workspace's case library"
    if cases is not None:
        record["case_count"] = len(cases)
    return record


def inputs_line(args: argparse.Namespace, cases: Sequence[Case] | None = None) -> str:
    """The first line of a command's output: ``docs: samples (--docs) · cases: mine.json
    (3 cases)``."""
    record = inputs_record(args, cases)
    parts = [f"docs: {record['docs']} ({record['docs_from']})"]
    if "workspace" in record:
        parts.append(f"workspace: {record['workspace']}")
    if "cases" in record:
        count = record.get("case_count")
        counted = f" ({count} case{'' if count == 1 else 's'})" if count is not None else ""
        parts.append(f"cases: {record['cases']}{counted}")
    return field(" · ".join(parts))


def _index(args: argparse.Namespace, write_workspace: bool = True) -> CorpusIndex:
    """The corpus of ``--docs`` (and ``--workspace``'s uploads and edits) indexed.
    ``write_workspace=False`` (``stress``, which promises to write nothing there) keeps
    the parses in the command line's cache instead of the workspace's own."""
    _refuse_samples_for_own_cases(args)
    if getattr(args, "index", None):
        return _saved_index(args)
    docs = _docs(args)
    cache = _cache(args)
    progress = _LoadProgress(cache)
    try:
        if args.workspace:
            workspace = Workspace(args.workspace)  # its own parse cache, as the dashboard's
            if cache is None or not write_workspace:
                workspace.cache = cache  # type: ignore[assignment]
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
        raise BadInput(f"no loadable documents in {str(docs)!r}{_unread_note(docs)}")
    return CorpusIndex(corpus)


def _unread_note(docs: Path, shown: int = 5) -> str:
    """What a folder without a document holds instead, so the user sees why (a folder of
    ``.html`` or ``.docx`` files said only "no loadable documents")."""
    from ragdash.ingestion.ingest import DOC_SUFFIXES, unread_files

    names = unread_files(docs)
    if not names:
        return ""
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown
                                         else "")  # fmt: skip
    readable = ", ".join(DOC_SUFFIXES[:-1]) + f" and {DOC_SUFFIXES[-1]}"
    return (f": ragdash reads {readable} files and skipped {len(names)} other file(s): "
            f"{listed}")


def _saved_index(args: argparse.Namespace) -> CorpusIndex:
    """``--index DIR``: the index ``ragdash index build`` saved (checked against ``--docs``
    when given, else the docs folder it was built from)."""
    if args.workspace:
        raise BadInput("--index cannot be combined with --workspace: an index is built from a "
                       "docs folder alone (ragdash index build --docs DIR -o INDEX)")  # fmt: skip
    return CorpusIndex.load(args.index, args.docs)


def _cases(args: argparse.Namespace) -> list[Case]:
    """The cases of ``--cases`` or the workspace, read and checked before any document is
    parsed: a case file that cannot be used is refused in a second, not after minutes of
    parsing (pair with :func:`_warn_unknown_expected` once the index is built)."""
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
    if args.top_k is not None:
        from dataclasses import replace

        cases = [replace(case, top_k=args.top_k) for case in cases]
    return cases


def _warn_unknown_expected(cases: Sequence[Case], index: CorpusIndex) -> None:
    """A warning for each case whose expected document is not in the corpus."""
    known = set(index.corpus.doc_ids)
    for case in cases:
        if case.expected_id not in known:
            say(
                f"ragdash: warning: case {case.name!r} expects {case.expected_id!r}, "
                "which is not in the corpus",
                file=sys.stderr,
            )


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
    diff: RunDiff | None = None
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
    ablation: tuple[tuple[str, str, str], ...] = ()
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
    reasons: tuple[str, ...] = ()
    if gated:
        try:
            reasons = tuple(
                gate(
                    run,
                    diff,
                    fail_on=args.fail_on,
                    margin=args.margin,
                    min_pass_rate=args.min_pass_rate,
                    min_metrics=minimums,
                )
            )
        except SettingsError as exc:
            raise BadInput(str(exc)) from None
    return _Kept(run, saved, tuple(files), diff, gated, reasons)


def _write_text(path: str, text: str) -> None:
    from ragdash.atomic import atomic_write

    try:
        atomic_write(path, text.encode("utf-8", "surrogatepass"))  # mode as for a new file
    except OSError as exc:
        raise BadInput(f"cannot write {path!r}: {exc.strerror or exc}") from None


def _run_library(args: argparse.Namespace, create: bool = False):
    """The library runs are kept in: ``--library FILE``, else the workspace's."""
    from ragdash.errors import LibraryError
    from ragdash.storage.case_store import library_path
    from ragdash.storage.library import CaseLibrary

    library = getattr(args, "library", None)
    workspace = getattr(args, "workspace", None)
    if library:
        path = Path(library)
    elif workspace:
        path = library_path(workspace)
    else:
        raise BadInput("runs are kept in a case library: give --workspace DIR or --library FILE")
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


def _retriever(args: argparse.Namespace, index: CorpusIndex):
    """The retriever the ``--retriever`` options name (``seed`` when none is given)."""
    from ragdash.retrieval.retrievers import make_retriever

    spec = _retriever_spec(args)
    if spec.kind in ("python", "langchain") and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: mypkg in the current folder
    try:
        retriever = make_retriever(spec, index)
    except RetrieverUnreachable:
        raise  # the retriever is down (exit 4), not input ragdash cannot use
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
    rows: list[tuple[str, ...]] = [("configuration", "passed", "errors", *METRIC_NAMES)]
    for m in metrics:
        values = (m.hit_at_k, m.recall_at_k_docs, m.recall_at_k_evidence, m.mrr, m.ndcg_at_k)
        cells = ["-" if v is None else f"{v:.3f}" for v in values]
        rows.append((m.configuration, f"{m.passed}/{len(cases)}", str(m.errors), *cells))
    return _table(rows)


def _retriever_options(p: argparse.ArgumentParser) -> None:
    """``--retriever`` and its settings: what :func:`_retriever` reads."""
    from ragdash.retrieval.options import add_retriever_options

    add_retriever_options(p)
    p.add_argument(
        "--max-failures",
        type=int,
        default=None,
        metavar="N",
        help="stop asking an http/python/langchain retriever after N connection "
        "failures in a row; later cases fail at once with the cause (default 3; "
        "0 never stops)",
    )


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
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells
    )


def _plain(text: str) -> str:
    """Docstring text as ``--help`` shows it: whole sentences on one line, no rst markup
    (the first line alone stopped at a comma; double backticks showed as typed)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)  # :func:`x` -> x
    return " ".join(text.replace("``", "").split())


def _metrics_options(p: argparse.ArgumentParser, compare: bool = True) -> None:
    from ragdash.checks.metrics import DEFAULT_METRIC_K

    p.add_argument(
        "--metrics",
        action="store_true",
        help="also print hit@k, recall@k, MRR and nDCG@k per configuration",
    )
    p.add_argument(
        "--metrics-k",
        type=int,
        default=DEFAULT_METRIC_K,
        help=f"depth k of the metrics (default {DEFAULT_METRIC_K})",
    )
    if not compare:
        return
    p.add_argument(
        "--compare-url",
        default=None,
        help="http: the service before re-indexing; prints the cases whose verdict "
        "changed and both runs' metrics",
    )


def _library_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workspace",
        default="workspace",
        help="the workspace whose case library keeps the runs (default ./workspace)",
    )
    p.add_argument("--library", default=None, help="a case library file (overrides --workspace)")


def _run_options(p: argparse.ArgumentParser) -> None:
    """Keeping a run, comparing it with a baseline, and the CI gate."""
    g = p.add_argument_group("runs, reports and the CI gate")
    g.add_argument(
        "--save-run",
        action="store_true",
        help="keep this run in the case library (--workspace's or --library)",
    )
    g.add_argument("--run-name", default="", help="a name for the saved run")
    g.add_argument(
        "--library",
        default=None,
        help="the case library file runs are kept in (default: the workspace's)",
    )
    g.add_argument("--run-file", default=None, help="write the run as a JSON run file")
    g.add_argument(
        "--report",
        default=None,
        help="write a standalone HTML report (of the diff, with --baseline)",
    )
    g.add_argument(
        "--ablation",
        action="store_true",
        help="also run the ablation for the report (always for builtin and bm25)",
    )
    g.add_argument(
        "--baseline", default=None, help="a run id, latest, or a run file: print the diff from it"
    )
    g.add_argument(
        "--fail-on",
        choices=("failure", "regression", "nothing"),
        default="failure",
        help="exit 1 on any failing case (default), on a regression from the "
        "baseline (a case that passed fails, or a metric drops more than --margin), "
        "or only on the thresholds",
    )
    g.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="how much a metric may drop before it is a regression (default 0)",
    )
    g.add_argument(
        "--min-pass-rate", type=float, default=None, help="exit 1 when fewer cases pass (0-1)"
    )
    g.add_argument(
        "--min-metric",
        action="append",
        default=None,
        metavar="METRIC=VALUE",
        help="exit 1 when a metric is lower, e.g. mrr=0.8 (repeatable; hit_at_k, "
        "recall_at_k_docs, recall_at_k_evidence, mrr, ndcg_at_k)",
    )


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


def _read_text(path: str, what: str) -> str:
    from ragdash.ingestion.ingest import decode_text

    try:
        return decode_text(Path(path).read_bytes())[0]
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except IngestError as exc:
        raise BadInput(f"{path} ({what}) {exc}") from None


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
