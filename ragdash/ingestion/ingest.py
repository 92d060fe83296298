"""Loading a docs folder: text/markdown with front matter, PDFs via pdfplumber, and an
optional ``metadata.csv``. Every per-file problem becomes an :class:`IngestMessage`; the
other files still load."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path

from ragdash.errors import IngestError, SettingsError
from ragdash.ingestion.bounded import run_in_child
from ragdash.ingestion.documents import STATUSES, Corpus, Document, IngestMessage
from ragdash.ingestion.pdf_cache import PdfCache
from ragdash.ingestion.pdf_layout import PageLayout, page_layout
from ragdash.ingestion.pdf_text import PdfText
from ragdash.ingestion.scans import DEFAULT_OCR, OcrSettings, ocr_pages_of, ocr_variant
from ragdash.ingestion.textlayer import (
    garbled_pages,
    page_spec,
    parse_page_list,
    without_overprint,
)
from ragdash.text import shortened

__all__ = [
    "DOC_SUFFIXES",
    "FOLLOW_LINKS_ENV",
    "MAX_PDF_PAGES",
    "METADATA_FIELDS",
    "METADATA_FILE",
    "PDF_SUFFIX",
    "Progress",
    "READ_OPTION_FIELDS",
    "TEXT_SUFFIXES",
    "decode_text",
    "link_refusal",
    "list_order",
    "load_document",
    "load_folder",
    "parse_date",
    "read_metadata_csv",
    "read_pdf",
    "split_front_matter",
    "unread_files",
]

TEXT_SUFFIXES = (".txt", ".md")
PDF_SUFFIX = ".pdf"
DOC_SUFFIXES = (*TEXT_SUFFIXES, PDF_SUFFIX)
METADATA_FILE = "metadata.csv"
METADATA_FIELDS = ("id", "subject", "updated", "status")
#: ``metadata.csv`` columns that say how a PDF is read: ``ocr`` is ``auto`` (OCR pages with no
#: text layer, the default), ``all`` (OCR every page: its text layer is garbage) or ``off``;
#: ``ocr_pages`` (``3, 5-7``) OCRs those pages too, whose text layer is garbled.
READ_OPTION_FIELDS = ("ocr", "ocr_pages")
#: PDFs with more pages than this are refused with a message rather than stalling the app.
MAX_PDF_PAGES = 500

Progress = Callable[[float, str], None]


def decode_text(data: bytes) -> tuple[str, str | None]:
    """Decode text bytes: UTF-8 (with or without BOM) or UTF-16 with a BOM; anything else
    is read as Windows-1252/Latin-1 so nothing is lost, with a warning to say so."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError as exc:
            raise IngestError(
                f"has a UTF-16 byte-order mark but is not valid UTF-16 ({exc.reason})"
            ) from None
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        try:
            text = data.decode("cp1252")
            name = "Windows-1252"
        except UnicodeDecodeError:
            text = data.decode("latin-1")
            name = "Latin-1"
        return text, f"is not valid UTF-8 ({where}); read as {name} — check accented characters"


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Split a leading ``---`` block of ``key: value`` lines from the body.

    Raises :class:`IngestError` for an unterminated block or a line that is not
    ``key: value``.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise IngestError("front matter opened with '---' is never closed with '---'")
    meta: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise IngestError(f"front matter line {number} is not 'key: value': {line.strip()!r}")
        meta[key.strip().lower()] = value.strip().strip("'\"")
    return meta, "\n".join(lines[end + 1 :])


def parse_date(value: str) -> date:
    """Parse an ISO date (``2026-01-05``); raises :class:`IngestError` naming the value."""
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise IngestError(f"date {value!r} is not an ISO date like 2026-01-05") from None


def read_pdf(
    data: bytes,
    max_pages: int = MAX_PDF_PAGES,
    progress: Progress | None = None,
    cache: PdfCache | None = None,
    ocr: OcrSettings = DEFAULT_OCR,
) -> PdfText:
    """Extract the text layer of a PDF with pdfplumber, page by page, and in the same pass
    read each page's lines and tables (:func:`ragdash.ingestion.pdf_layout.page_layout`,
    from the same cached text map as ``extract_text``). Letter-spaced lines are repaired
    and reported in the warnings.

    With a ``cache``, a PDF whose bytes were parsed before is not parsed again.
    ``progress(fraction, "page N of M")`` is called before each page.
    Pages with no text layer are OCR'd (``ocr``, :mod:`ragdash.ingestion.scans`) when
    Tesseract is installed. Raises :class:`IngestError` for an empty, corrupt, encrypted or
    oversized PDF, and for an image-only one that cannot be OCR'd.
    """
    if not data:
        raise IngestError("is empty (0 bytes)")
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise IngestError("is not a PDF (it does not start with %PDF)")
    variant = ocr_variant(ocr)  # the OCR settings and whether Tesseract can run
    cached = cache.get(data, variant) if cache is not None else None
    if isinstance(cached, PdfText):
        if len(cached.pages) > max_pages:
            raise IngestError(
                f"has {len(cached.pages)} pages; the limit is {max_pages} — split it into "
                "smaller files"
            )
        if progress:
            progress(1.0, "done (parsed before: read from the cache)")
        return cached
    # in a child process with time and memory limits (ragdash.ingestion.bounded), which
    # runs _parse_pdf below (OCR included); the limits come from the environment
    parsed = run_in_child("parse", {"data": data, "max_pages": max_pages, "ocr": ocr}, progress)
    if cache is not None:
        cache.put(data, parsed, variant)
    return parsed


def _parse_pdf(
    data: bytes,
    max_pages: int,
    progress: Progress | None,
    ocr: OcrSettings = DEFAULT_OCR,
    ocr_budget: Callable[[int], tuple[float, str] | None] | None = None,
) -> PdfText:
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            total = len(pdf.pages)
            if total > max_pages:
                raise IngestError(
                    f"has {total} pages; the limit is {max_pages} — split it into smaller files"
                )
            texts: list[str] = []
            layouts: list[PageLayout] = []
            overprinted: list[int] = []
            for number, page in enumerate(pdf.pages, start=1):
                if progress:
                    progress((number - 1) / total, f"page {number} of {total}")
                read, twice = without_overprint(page)  # "HHEELLLLOO": glyphs drawn twice
                if twice:
                    overprinted.append(number)
                text = read.extract_text() or ""
                layout = page_layout(read, number)
                texts.append(layout.plain if layout.letter_spaced else text)
                layouts.append(layout)
                page.close()  # drop the page's parsed objects: memory stays flat
            scanned = ocr_pages_of(pdf, texts, layouts, ocr, progress, ocr_budget)  # no text
            pages = tuple(texts)
    except IngestError:
        raise
    except PDFPasswordIncorrect:
        raise IngestError("is encrypted with a password; decrypt it first") from None
    except Exception as exc:  # pdfminer raises many unrelated types for damaged files
        # pdfplumber wraps pdfminer's errors: PdfminerException(PDFPasswordIncorrect())
        if isinstance(exc, MemoryError) or any(isinstance(a, MemoryError) for a in exc.args):
            raise MemoryError from None  # the memory limit of the child: named by its caller
        wrapped = any(isinstance(arg, PDFPasswordIncorrect) for arg in exc.args)
        if wrapped or "password" in str(exc).lower() or "encrypt" in type(exc).__name__.lower():
            raise IngestError("is encrypted with a password; decrypt it first") from None
        detail = str(exc).strip() or type(exc).__name__
        raise IngestError(f"could not be read as a PDF (corrupt or truncated: {detail})") from None
    if not pages:
        raise IngestError("has no pages")
    empty = [str(n) for n, text in enumerate(pages, start=1) if not text.strip()]
    if len(empty) == len(pages):
        raise IngestError(f"has no text layer (image-only or scanned){scanned.why_empty}")
    warnings = list(scanned.notes)
    if empty:
        warnings.append(f"page(s) {', '.join(empty)} have no text layer{scanned.why_pages_empty}")
    spaced = [layout for layout in layouts if layout.letter_spaced]
    if spaced:
        example = spaced[0].letter_spaced[0]
        warnings.append(
            f"page(s) {', '.join(str(x.page) for x in spaced)} had letter-spaced text "
            f"(e.g. {example[:40]!r}); it was rejoined so it can be searched"
        )
    if overprinted:
        warnings.append(
            f"page(s) {page_spec(overprinted)} draw their letters twice (bold by "
            "double printing, read as 'HHEELLLLOO'); each letter was read once"
        )
    garbled = garbled_pages(pages, layouts)
    if garbled:
        spec = page_spec(garbled)
        warnings.append(
            f"page(s) {spec} have a garbled text layer (letters that form no words, or glyphs "
            f"without a character); to read them with OCR instead, give ocr_pages '{spec}' "
            "in metadata.csv"
        )
    if progress:
        progress(1.0, "done")
    return PdfText(pages, tuple(warnings), tuple(layouts), tuple(overprinted))


def read_metadata_csv(path: Path) -> tuple[list[tuple[str, dict[str, str]]], list[IngestMessage]]:
    """Rows of ``metadata.csv`` as (file, fields) in file order, plus problems found."""
    messages: list[IngestMessage] = []
    try:
        text, warning = decode_text(path.read_bytes())
    except (OSError, IngestError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else exc
        return [], [IngestMessage(path.name, "error", f"unreadable: {reason}")]
    if warning:
        messages.append(IngestMessage(path.name, "warning", warning))
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "file" not in [f.strip().lower() for f in reader.fieldnames]:
        return [], [*messages, IngestMessage(path.name, "error", "has no 'file' column; ignored")]
    rows: list[tuple[str, dict[str, str]]] = []
    seen: set[str] = set()
    for line, row in enumerate(reader, start=2):
        clean = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        name = clean.pop("file", "")
        if not name:
            messages.append(IngestMessage(path.name, "warning", f"row {line} has no file; ignored"))
            continue
        if name in seen:
            messages.append(
                IngestMessage(path.name, "warning", f"row {line} repeats file {name!r}; ignored")
            )
            continue
        seen.add(name)
        wanted = (*METADATA_FIELDS, *READ_OPTION_FIELDS)
        rows.append((name, {k: v for k, v in clean.items() if k in wanted and v}))
    return rows, messages


def list_order(folder: Path, metadata_rows: list[tuple[str, dict[str, str]]]) -> list[Path]:
    """Document files in list order: ``metadata.csv`` rows first, then the rest by name."""
    files = {
        p.name: p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in DOC_SUFFIXES
    }
    ordered = [files.pop(name) for name, _ in metadata_rows if name in files]
    return ordered + [files[name] for name in sorted(files)]


def unread_files(folder: Path) -> list[str]:
    """The files in ``folder`` that are not documents ragdash reads (``.html``, ``.docx``, …),
    by name: what a folder that gives no document holds instead. ``metadata.csv``, a
    ``cases.json`` and hidden files are not counted::

        >>> import tempfile; folder = Path(tempfile.mkdtemp())
        >>> for name in ("b.docx", "a.html", "notes.md", "cases.json", ".DS_Store"):
        ...     _ = (folder / name).write_text("x")
        >>> unread_files(folder)
        ['a.html', 'b.docx']
    """
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    known = {METADATA_FILE, "cases.json"}
    return [p.name for p in entries if p.is_file() and not p.name.startswith(".")
            and p.name not in known and p.suffix.lower() not in DOC_SUFFIXES]  # fmt: skip


#: Set to 1 to follow symbolic links in a docs folder — only to files inside the folder.
FOLLOW_LINKS_ENV = "RAGDASH_FOLLOW_SYMLINKS"


def link_refusal(path: Path, folder: Path) -> str | None:
    """Why a symbolic link in the docs folder is not read, or None to read the file.

    A docs folder is a place users drop files into; a link planted there (``notes.md`` →
    ``/etc/passwd``) must not show server files on Explore. Links are skipped unless
    ``RAGDASH_FOLLOW_SYMLINKS=1``, and even then never followed outside the folder."""
    if not path.is_symlink():
        return None
    if os.environ.get(FOLLOW_LINKS_ENV) != "1":
        return (
            f"is a symbolic link: not followed (set {FOLLOW_LINKS_ENV}=1 to follow links "
            "inside the folder); file skipped"
        )
    target = path.resolve()
    if not target.is_relative_to(folder.resolve()):
        return "is a symbolic link to a file outside the docs folder: not followed; file skipped"
    return None


def _ocr_option(overrides: dict[str, str]) -> OcrSettings:
    """The ``ocr`` column of a PDF's ``metadata.csv`` row as OCR settings."""
    mode = overrides.get("ocr", "").strip().lower() or DEFAULT_OCR.mode
    try:
        pages = parse_page_list(overrides.get("ocr_pages", ""))  # garbled pages to OCR
        return OcrSettings(dpi=DEFAULT_OCR.dpi, lang=DEFAULT_OCR.lang, mode=mode, pages=pages)
    except SettingsError as exc:
        raise IngestError(f"metadata.csv: {exc}") from None


#: The warning for a document without an ``updated`` date (one line for a folder of them).
UNDATED = "has no 'updated' date; treated as the oldest"


def load_document(
    path: Path,
    overrides: dict[str, str],
    order: int,
    max_pages: int = MAX_PDF_PAGES,
    progress: Progress | None = None,
    cache: PdfCache | None = None,
) -> tuple[Document, list[str]]:
    """Load one file into a :class:`Document`; returns it with its warnings.

    Raises :class:`IngestError` if the file cannot be used at all.
    """
    warnings: list[str] = []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot be read ({exc.strerror or exc})") from None
    if path.suffix.lower() == PDF_SUFFIX:
        pdf = read_pdf(data, max_pages, progress, cache, _ocr_option(overrides))
        meta: dict[str, str] = {}
        pages, kind = pdf.pages, "pdf"
        table_pages = pdf.table_pages
        layouts = pdf.layouts or None
        warnings.extend(pdf.warnings)
    else:
        if not data.strip():
            raise IngestError("is empty")
        text, warning = decode_text(data)
        if warning:
            warnings.append(warning)
        meta, body = split_front_matter(text)
        if not body.strip():
            raise IngestError("has front matter but no text")
        pages, kind, table_pages, layouts = (body,), "text", None, None
    meta.update(overrides)
    doc_id = meta.get("id", "").strip() or path.stem
    updated = None
    if meta.get("updated"):
        try:
            updated = parse_date(meta["updated"])
        except IngestError as exc:
            warnings.append(f"{exc}; treated as undated (oldest)")
    else:
        warnings.append(UNDATED)
    status = meta.get("status", "current").strip().lower() or "current"
    if status not in STATUSES:
        warnings.append(f"status {status!r} is not one of {', '.join(STATUSES)}; using 'current'")
        status = "current"
    subject = meta.get("subject", "").strip() or doc_id
    return Document(
        doc_id,
        subject,
        updated,
        status,
        path.name,
        kind,
        tuple(pages),
        order,
        table_pages,
        layouts,
    ), warnings


def load_folder(
    folder: str | Path,
    max_pages: int = MAX_PDF_PAGES,
    progress: Progress | None = None,
    cache: PdfCache | None = None,
    page_progress: Progress | None = None,
) -> Corpus:
    """Load every ``.txt``, ``.md`` and ``.pdf`` file of ``folder`` into a :class:`Corpus`.

    Files that fail are left out with an error message; duplicate IDs keep the first file in
    list order. ``progress(fraction, file_name)`` is called before each file, and
    ``page_progress`` within each PDF as :func:`read_pdf` calls it (pages read, OCR, or
    "done (parsed before…)" for a cache hit).
    Raises :class:`IngestError` only if the folder itself is missing.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise IngestError(f"docs folder {str(folder)!r} does not exist or is not a folder")
    messages: list[IngestMessage] = []
    metadata_rows: list[tuple[str, dict[str, str]]] = []
    refused = link_refusal(folder / METADATA_FILE, folder)  # the same rule as documents
    if refused:
        messages.append(IngestMessage(METADATA_FILE, "warning", refused))
    elif (folder / METADATA_FILE).is_file():
        metadata_rows, messages = read_metadata_csv(folder / METADATA_FILE)
    overrides = dict(metadata_rows)
    paths = []
    for path in list_order(folder, metadata_rows):
        refused = link_refusal(path, folder)
        if refused:
            messages.append(IngestMessage(path.name, "warning", refused))
        else:
            paths.append(path)
    for name in overrides:
        if not (folder / name).is_file():
            messages.append(
                IngestMessage(METADATA_FILE, "warning", f"lists {name!r}, no such file")
            )
    documents: list[Document] = []
    owner: dict[str, str] = {}
    undated: list[str] = []
    for index, path in enumerate(paths):
        if progress:
            progress(index / max(len(paths), 1), path.name)
        try:
            doc, warnings = load_document(
                path, overrides.get(path.name, {}), len(documents), max_pages, page_progress,
                cache=cache,
            )
        except IngestError as exc:
            messages.append(IngestMessage(path.name, "error", f"{exc}; file skipped"))
            continue
        if doc.doc_id in owner:
            messages.append(
                IngestMessage(
                    path.name,
                    "error",
                    f"duplicate id {doc.doc_id!r} (already used by {owner[doc.doc_id]}); "
                    "file skipped — give it another id in its front matter or metadata.csv",
                )
            )
            continue
        owner[doc.doc_id] = path.name
        documents.append(doc)
        if UNDATED in warnings:
            undated.append(path.name)
        messages.extend(IngestMessage(path.name, "warning", w) for w in warnings if w != UNDATED)
    if len(undated) == 1:
        messages.append(IngestMessage(undated[0], "warning", UNDATED))
    elif undated:  # a folder of undated files is one line, not one per file
        messages.append(IngestMessage(
            f"{len(undated)} files", "warning",
            f"have no 'updated' date; treated as the oldest: {shortened(undated, 5)}",
        ))  # fmt: skip
    if progress:
        progress(1.0, "done")
    return Corpus(tuple(documents), tuple(messages))
