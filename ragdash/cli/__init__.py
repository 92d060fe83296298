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
workspace's own cache is used, except by ``stress``, which writes nothing there unless
``--save-cases``). On a terminal, stderr shows the pages and OCR of a long
load; piped, nothing."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ragdash.cli.cases import cmd_export, cmd_import_cases
from ragdash.cli.checks import cmd_ablate, cmd_check, cmd_fragility, cmd_query
from ragdash.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RETRIEVER,
    EXIT_TERMINATED,
    BadInput,
    _cache_options,
    _export_options,
    _fix_options,
    _fragility_options,
    _jobs_option,
    _library_options,
    _metrics_options,
    _note_reserved_word,
    _Parser,
    _plain,
    _retriever_options,
    _run_options,
    _where,
    one_line,
    say,
)
from ragdash.cli.dashboard import cmd_dashboard
from ragdash.cli.documents import cmd_index, cmd_inspect, cmd_ocr_map, cmd_passages, cmd_rewrites
from ragdash.cli.runs import cmd_diff, cmd_report, cmd_runs
from ragdash.cli.stress import add_stress_parser, cmd_stress
from ragdash.errors import (
    RagdashError,
    RetrieverUnreachable,
)
from ragdash.ingestion.ingest import MAX_PDF_PAGES
from ragdash.version import VERSION

__all__ = ["COMMANDS", "build_parser", "main", "main_exit"]


def build_parser() -> argparse.ArgumentParser:
    head, codes = __doc__.split("\n\n")[:2]
    parser = _Parser(prog="ragdash", description=_plain(head), epilog=_plain(codes))
    parser.add_argument("--version", action="version", version=f"ragdash {VERSION}")
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
    runs.add_argument(
        "run",
        nargs="?",
        default=None,
        help="show/delete/export: a run id (ragdash runs list), or latest",
    )
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
    report.add_argument(
        "--against", default=None, help="a baseline run: report the diff from it to RUN"
    )
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
    passages.add_argument(
        "--format",
        choices=("jsonl", "csv"),
        default="jsonl",
        help="one JSON object per line (default) or CSV",
    )
    passages.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    imports = sub.add_parser(
        "import-cases", help="add cases from a CSV/JSONL of logged queries to the case library"
    )
    imports.add_argument("file", help="CSV or JSONL: query, expected_id, optional evidence")
    imports.add_argument("--workspace", required=True, help="the workspace whose library gets them")
    imports.add_argument(
        "--docs", default=None, help="docs folder: rows expecting a document not in it are reported"
    )
    imports.add_argument(
        "--format", choices=("csv", "jsonl"), default=None, help="default: from the file name"
    )
    _cache_options(imports)
    imports.add_argument(
        "--replace", action="store_true", help="overwrite library cases with the same name"
    )
    imports.add_argument("--ocr-map", default="0=o,1=i", help=argparse.SUPPRESS)
    add_stress_parser(sub, common, _jobs_option)
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
    inspect.add_argument(
        "--ocr-pages",
        default="",
        metavar="PAGES",
        help="OCR these pages even though they have a text layer (a garbled one): '3,5-7'",
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
    dashboard.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a host name the dashboard is opened under besides this machine's (a proxy's, "
        "e.g. dash.example.org); repeatable. Pages under other names are refused",
    )
    _retriever_options(dashboard)  # the operator's retriever; a page visitor never names one
    common(
        sub.add_parser("rewrites", help="what the OCR fix rewrites in the docs, and why"),
        cases=False,
        fixes="ocr",
    )
    learn = sub.add_parser(
        "ocr-map", help="OCR map entries learned from a scan's OCR aligned to its clean text"
    )
    learn.add_argument(
        "clean",
        help="the clean text of the scanned pages (a form feed between pages aligns page by page)",
    )
    source = learn.add_mutually_exclusive_group(required=True)
    source.add_argument("--pdf", help="the scanned PDF (OCR'd as ingestion would)")
    source.add_argument("--ocr-text", help="OCR output already made, as a text file")
    learn.add_argument(
        "--force-ocr",
        action="store_true",
        help="OCR every page of --pdf, even those with a text layer",
    )
    learn.add_argument(
        "--protect", default="", help="tokens the OCR fix must never rewrite, e.g. 'wi5e, t1d'"
    )
    learn.add_argument(
        "--min-count",
        type=int,
        default=1,
        help="propose an entry seen at least this often (default 1)",
    )
    learn.add_argument("--json", action="store_true", help="machine-readable output")
    _cache_options(learn)
    return parser


COMMANDS = {
    "ocr-map": cmd_ocr_map,
    "index": cmd_index,
    "dashboard": cmd_dashboard,
    "check": cmd_check,
    "query": cmd_query,
    "ablate": cmd_ablate,
    "fragility": cmd_fragility,
    "stress": cmd_stress,
    "inspect": cmd_inspect,
    "export": cmd_export,
    "passages": cmd_passages,
    "import-cases": cmd_import_cases,
    "rewrites": cmd_rewrites,
    "runs": cmd_runs,
    "diff": cmd_diff,
    "report": cmd_report,
}


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
    except RetrieverUnreachable as exc:  # a retriever that cannot be reached while set up
        say(f"ragdash: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_RETRIEVER
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
