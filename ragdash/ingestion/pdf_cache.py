"""Parsed PDFs kept on disk, one file per PDF content hash, so that a restart or a
re-upload of the same bytes never parses the PDF again.

The cache key is the SHA-256 of the file's bytes plus :data:`PARSER_VERSION` (and a hash of
the parsing modules' source); changing how pages are parsed (lines, tables, letter-spacing
repair) means bumping the version, which leaves every old entry unused.

An entry is data, never code: a workspace may be shared, and whoever can write into its
``cache/pdf/`` folder must not be able to run anything in the next reader. (Entries used
to be pickles, and a planted ``*.pickle`` ran ``os.system`` on the next load.) So an entry is
gzip-compressed JSON::

    {"format": "ragdash-pdf-cache", "version": 2, "source": <the PDF's SHA-256>,
     "variant": <OCR settings>, "sha256": <SHA-256 of the payload text>}\\n<payload JSON>

and the payload is rebuilt into the parse's frozen dataclasses by :func:`decode`, which
knows a fixed list of classes and checks every field's type: a name in the file never
selects code to run. A damaged, foreign (another PDF's, another format's), oversized or
wrongly typed entry is ignored — never half-loaded — and the PDF is parsed again. Old
``*.pickle`` entries are never opened (nor deleted: ragdash did not write them in this
format; remove them by hand if you like).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import inspect
import json
import math
import zlib
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from ragdash.atomic import atomic_write

__all__ = ["CACHE_FORMAT", "CACHE_VERSION", "PARSER_VERSION", "PdfCache", "decode", "encode"]

#: Bump whenever :mod:`ragdash.ingestion.pdf_layout` or ``read_pdf`` change what they give.
PARSER_VERSION = "layout-14"
CACHE_FORMAT = "ragdash-pdf-cache"
#: Bumped when the layout of an entry (header or payload encoding) changes. 2: an OCR'd
#: page keeps its :class:`~ragdash.ingestion.ocr_prep.OcrQuality`. 3: and its language.
#: 4: and the ruling lines found in its image.
CACHE_VERSION = 4
#: An entry bigger than this once decompressed is ignored (a planted gzip bomb reads no
#: further); a 500-page PDF's parse is a few megabytes.
MAX_ENTRY_BYTES = 64 * 1024 * 1024


@functools.cache
def parser_digest() -> str:
    """A short hash of the parsing code itself, so an edit that forgets to bump
    :data:`PARSER_VERSION` still never serves a stale parse."""
    from ragdash.ingestion import (
        letterspacing,
        ocr_prep,
        pdf_layout,
        scan_grid,
        scan_marks,
        scans,
        textlayer,
    )

    digest = hashlib.sha256()
    for module in (pdf_layout, letterspacing, scans, scan_grid, scan_marks, ocr_prep, textlayer):
        digest.update(Path(inspect.getfile(module)).read_bytes())
    return digest.hexdigest()[:12]


# --- the payload: a fixed schema of frozen dataclasses --------------------------------------
#
# A field's type is one of: str, int, float (an int is kept an int), bool; a class name of
# the schema; ("seq", t) a tuple of t; ("fixed", t1, t2, ...) a tuple of exactly those;
# ("opt", t) t or None.

_FLOAT4 = ("fixed", float, float, float, float)


@functools.cache
def _schema() -> dict[str, tuple[type, dict[str, Any]]]:
    from ragdash.ingestion.ocr_prep import OcrQuality
    from ragdash.ingestion.pdf_layout import Line, PageLayout, TableRegion
    from ragdash.ingestion.pdf_text import PdfText
    from ragdash.ingestion.scans import OcrPage, OcrWord

    specs: dict[type, dict[str, Any]] = {
        PdfText: {"pages": ("seq", str), "warnings": ("seq", str),
                  "layouts": ("seq", "PageLayout"),
                  "overprinted": ("seq", int)},
        PageLayout: {"page": int, "lines": ("seq", "Line"), "tables": ("seq", "TableRegion"),
                     "width": float, "height": float, "letter_spaced": ("seq", str),
                     "ocr": ("opt", "OcrPage")},
        Line: {"text": str, "x0": float, "top": float, "x1": float, "bottom": float,
               "segments": ("seq", ("fixed", float, float, str)), "upright": bool},
        TableRegion: {"bbox": _FLOAT4, "method": str, "rows": ("seq", ("seq", str)),
                      "header_rows": int, "row_text": ("seq", str), "lines": ("seq", int),
                      "anchors": ("seq", float), "title": str, "weak": bool,
                      "edges": ("seq", float)},
        OcrPage: {"page": int, "dpi": float, "words": ("seq", "OcrWord"), "width": float,
                  "height": float, "engine": str, "quality": ("opt", "OcrQuality"),
                  "lang": str, "rules": ("seq", _FLOAT4)},
        OcrQuality: {"uncovered": float, "regions": ("seq", _FLOAT4), "confidence": float,
                     "dictionary": float, "turn": float, "inked": float},
        OcrWord: {"text": str, "x0": float, "top": float, "x1": float, "bottom": float,
                  "conf": float, "block": int, "line": int},
    }  # fmt: skip
    for cls, spec in specs.items():  # the schema must name every field, no more
        if [f.name for f in fields(cls)] != list(spec):
            raise AssertionError(f"pdf_cache schema of {cls.__name__} is out of date")
    return {cls.__name__: (cls, spec) for cls, spec in specs.items()}


class _Bad(ValueError):
    """An entry that does not fit the schema."""


def encode(value: Any) -> Any:
    """``value`` (a parse: dataclasses of the schema, tuples, str, numbers, bool, None) as
    JSON-ready data; a dataclass becomes ``{"@": class name, field: value, ...}``."""
    if is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if name not in _schema():
            raise TypeError(f"{name} is not part of the PDF cache schema")
        out = {"@": name}
        out.update((f.name, encode(getattr(value, f.name))) for f in fields(value))
        return out
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return {"@float": repr(value)}  # inf and nan: JSON has no literal for them
        return value
    raise TypeError(f"{type(value).__name__} cannot be cached")


def decode(data: Any, kind: Any = "PdfText") -> Any:
    """The value ``data`` (from :func:`encode`) holds, checked against ``kind``; raises
    ``ValueError`` for anything that does not fit (and builds nothing but the schema's
    classes, tuples, strings, numbers and bools)."""
    return _decoder(kind)(data)


def _float(data: Any) -> Any:
    if type(data) in (float, int):
        return data
    if isinstance(data, dict) and set(data) == {"@float"} and data["@float"] in _SPECIAL:
        return float(data["@float"])
    raise _Bad("expected a number")


_SPECIAL = ("inf", "-inf", "nan")


def _exactly(kind: type) -> Any:
    def check(data: Any) -> Any:
        if type(data) is not kind:  # bool is no int here, nor int a bool
            raise _Bad(f"expected {kind.__name__}")
        return data

    return check


@functools.cache
def _decoder(kind: Any) -> Any:
    """A function that checks and builds one ``kind`` (made once per kind: a 300-page parse
    has some 100,000 values to check)."""
    if kind is float:
        return _float
    if kind in (str, int, bool):
        return _exactly(kind)
    if isinstance(kind, str):
        cls, spec = _schema()[kind]
        keys = {"@", *spec}
        parts = [(name, _decoder(sub)) for name, sub in spec.items()]

        def build(data: Any) -> Any:
            if type(data) is not dict or data.get("@") != kind or data.keys() != keys:
                raise _Bad(f"expected a {kind}")
            return cls(**{name: part(data[name]) for name, part in parts})

        return build
    if kind[0] == "opt":
        inner = _decoder(kind[1])
        return lambda data: None if data is None else inner(data)
    if kind[0] == "seq":
        item = _decoder(kind[1])

        def sequence(data: Any) -> tuple[Any, ...]:
            if type(data) is not list:
                raise _Bad("expected a list")
            return tuple(map(item, data))

        return sequence
    items = [_decoder(sub) for sub in kind[1:]]

    def fixed(data: Any) -> tuple[Any, ...]:
        if type(data) is not list or len(data) != len(items):
            raise _Bad(f"expected a list of {len(items)}")
        return tuple(part(v) for part, v in zip(items, data, strict=True))

    return fixed


class PdfCache:
    """Parsed PDFs (:class:`ragdash.ingestion.ingest.PdfText`) under ``folder``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def path(self, data: bytes, variant: str = "") -> Path:
        """``variant`` names settings that change the parse (the OCR settings)."""
        digest = hashlib.sha256(data).hexdigest()
        suffix = f"-{variant}" if variant else ""
        return self.folder / f"{digest}-{PARSER_VERSION}-{parser_digest()}{suffix}.json.gz"

    def get(self, data: bytes, variant: str = "") -> Any | None:
        """The cached parse of ``data``, or None (no entry, or one that is damaged, foreign,
        of another format or oversized: the caller parses again and replaces it)."""
        path = self.path(data, variant)
        if path.is_symlink() or not path.is_file():
            return None
        try:
            with gzip.open(path, "rb") as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
            if len(raw) > MAX_ENTRY_BYTES:
                return None
            head, _, payload = raw.partition(b"\n")
            header = json.loads(head)
            expected = {
                "format": CACHE_FORMAT, "version": CACHE_VERSION,
                "source": hashlib.sha256(data).hexdigest(), "variant": variant,
                "sha256": hashlib.sha256(payload).hexdigest(),
            }  # fmt: skip
            if header != expected:
                return None
            return decode(json.loads(payload))
        except (OSError, EOFError, zlib.error, ValueError, RecursionError, TypeError):
            return None  # damaged or foreign: parse again (json's errors are ValueErrors)

    def put(self, data: bytes, parsed: Any, variant: str = "") -> None:
        """Store a parse (best effort: a cache that cannot be written is no error)."""
        try:
            payload = json.dumps(
                encode(parsed), ensure_ascii=True, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
            header = {
                "format": CACHE_FORMAT, "version": CACHE_VERSION,
                "source": hashlib.sha256(data).hexdigest(), "variant": variant,
                "sha256": hashlib.sha256(payload).hexdigest(),
            }  # fmt: skip
            body = json.dumps(header).encode("ascii") + b"\n" + payload
            if len(body) > MAX_ENTRY_BYTES:
                return
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path(data, variant), gzip.compress(body, compresslevel=6, mtime=0))
        except (OSError, TypeError, ValueError, RecursionError):
            pass
