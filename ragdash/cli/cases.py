"""``import-cases`` and ``export``: cases in from logs, out as pytest files or JSON."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ragdash.bundled import SAMPLES_WORD, cases_path, docs_path
from ragdash.cli.common import EXIT_FAILED, EXIT_OK, BadInput, _case_file_hint, _fixes, _index, say
from ragdash.errors import (
    CaseFileError,
    RagdashError,
)
from ragdash.storage.case_store import load_cases

__all__ = ["cmd_export", "cmd_import_cases"]


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
    say(
        f"imported {len(result.added)} case(s){replaced} into {args.workspace}; "
        f"{len(found.errors)} row(s) with errors"
    )
    for error in found.errors:
        say(f"  {error}")
    return EXIT_OK if not found.errors else EXIT_FAILED
