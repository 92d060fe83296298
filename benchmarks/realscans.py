"""``python -m benchmarks.realscans`` (or ``python -m benchmarks.scanbench --real``): the
real PDFs of the development sets as scans — how much of the born-digital pass rate OCR keeps.

The synthetic benchmark (:mod:`benchmarks.scanbench`) draws short known text in clean
columns; real documents have shaded rows, rotated headers, small print and dense tables.
Here every stretch of pages a ``truth.json`` decision needs (two pages either side, as
``tests/realpdfs.py`` opens them) of ``../shared/realpdfs`` and ``../shared/realpdfs2``
(or ``$RAGDASH_SHARED/realpdfs*``) is:

* read **born-digital** (pdfplumber's page model, as the real-PDF tests do), and
* drawn to greyscale images at 150/200/300 dpi with mild blur, dust and a 0.4° skew, wrapped
  as an **image-only PDF** and read back through :func:`ragdash.ingestion.ingest.read_pdf`
  (the bounded parse child, Tesseract OCR, its time limit included),

and the same proof cases run on both — for each decision, one case per row either side of
the break and, for a join, one case needing both rows — with the tables fix (born-digital)
and the OCR + tables fixes (scans). The figure that matters is the scan pass rate over the
born-digital one (target: at least 90% at 200 dpi).

Files whose text is in a script Tesseract has no language data for here (the Traditional
Chinese tables of ``realpdfs2``: only ``eng`` is installed) are reported on their own line
and left out of the ratio: no pre-processing makes ``eng`` read Chinese.

Nothing is copied into the repository; the PDFs are read where they are.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DPIS",
    "RealScanResult",
    "main",
    "real_sets",
    "run_realscans",
    "scan_images",
    "shared_dir",
]

DPIS = (150, 200, 300)
#: Pages either side of a decision's break that are opened (as tests/realpdfs.py does).
WINDOW = 2


def shared_dir() -> Path | None:
    """The folder holding ``realpdfs/`` and ``realpdfs2/``: ``$RAGDASH_SHARED``, else
    ``../shared`` beside the repository (where CI has it); None when neither exists."""
    env = os.environ.get("RAGDASH_SHARED", "").strip()
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1].parent / "shared")
    for folder in candidates:
        if (folder / "realpdfs" / "truth.json").is_file():
            return folder
    return None


def real_sets(shared: Path) -> list[tuple[Path, list[dict]]]:
    """Each development set found under ``shared``: its folder and its truth entries."""
    sets = []
    for name in ("realpdfs", "realpdfs2"):
        truth = shared / name / "truth.json"
        if truth.is_file():
            sets.append((truth.parent, json.loads(truth.read_text(encoding="utf-8"))))
    return sets


def _stretches(path: Path, entries: list[dict]) -> list[tuple[int, ...]]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        total = len(pdf.pages)
    wanted: set[int] = set()
    for e in entries:
        a, b = e["pages"]
        wanted |= set(range(max(1, a - WINDOW), min(total, b + WINDOW) + 1))
    runs: list[list[int]] = []
    for page in sorted(wanted):
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    return [tuple(r) for r in runs]


def scan_images(
    path: Path, pages: Sequence[int], dpi: int, *, blur: float = 0.5, dust: float = 0.00015,
    skew: float = 0.4, seed: int = 0,
) -> list[Any]:
    """Pages of the PDF at ``path`` as a photocopy: greyscale at ``dpi``, rotated by
    ``skew`` degrees (alternating sign), blurred (radius in pixels at 300 dpi, scaled) and
    dusted (that share of pixels set black)."""
    import numpy as np
    import pdfplumber
    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    images = []
    with pdfplumber.open(path) as pdf:
        for n in pages:
            page = pdf.pages[n - 1]
            image = page.to_image(resolution=dpi).original.convert("L")
            page.close()
            angle = skew * (1 if rng.random() < 0.5 else -1)
            image = image.rotate(angle, resample=Image.BICUBIC, expand=False, fillcolor=255)
            image = image.filter(ImageFilter.GaussianBlur(blur * dpi / 300))
            pixels = np.asarray(image, dtype=np.uint8).copy()
            specks = np.random.default_rng(rng.randrange(2**31)).random(pixels.shape) < dust
            pixels[specks] = 0
            images.append(Image.fromarray(pixels))
    return images


def _cjk_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum("\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in letters) / len(
        letters
    )


@dataclass(frozen=True)
class RealScanResult:
    """One resolution's row: cases passing born-digital and as scans, over all files and
    over the files OCR has language data for; pages refused; seconds per OCR'd page."""

    dpi: int
    cases: int
    born: int
    scanned: int
    cases_readable: int
    born_readable: int
    scanned_readable: int
    pages: int
    refused: tuple[str, ...] = ()
    seconds_per_page: float = 0.0
    per_file: dict[str, tuple[int, int, int]] = field(default_factory=dict, hash=False)

    @property
    def ratio(self) -> float:
        """Scan pass rate over born-digital pass rate, readable files only."""
        return self.scanned_readable / self.born_readable if self.born_readable else 0.0


def _document(doc_id: str, layouts: Sequence[Any], order: int) -> Any:
    from dataclasses import replace

    from ragdash.ingestion.documents import Document

    layouts = tuple(replace(x, page=n) for n, x in enumerate(layouts, 1))
    return Document(
        doc_id, doc_id, None, "current", f"{doc_id}.pdf", "pdf",
        tuple(x.plain for x in layouts), order, tuple(x.text for x in layouts), layouts,
    )  # fmt: skip


def _born_layouts(path: Path, pages: Sequence[int]) -> list[Any]:
    import pdfplumber

    from ragdash.ingestion.pdf_layout import page_layout

    out = []
    with pdfplumber.open(path) as pdf:
        for n in pages:
            page = pdf.pages[n - 1]
            out.append(page_layout(page, n))
            page.close()
    return out


def _cases(entries: list[dict], doc_of: Callable[[dict], str]) -> list[Any]:
    from ragdash.case import Case

    cases = []
    for entry in entries:
        doc_id = doc_of(entry)
        name = f"{entry['file'].removesuffix('.pdf')}-p{entry['pages'][0]}-{entry['pages'][1]}"
        head = entry["header"][0] if entry.get("header") else ""
        before, after = entry["row_before"], entry["row_after"]
        if entry["join"]:
            cases.append(
                Case(f"{name}-across", f"{head} {before} {after}", doc_id, (before, after), 1)
            )
        for side, row in (("before", before), ("after", after)):
            cases.append(Case(f"{name}-{side}", f"{head} {row}", doc_id, (row,), 1))
    return cases


def run_realscans(
    dpis: Sequence[int] = DPIS,
    shared: Path | None = None,
    say: Callable[[str], None] = lambda _m: None,
    files: Sequence[str] = (),
    noise: int = 0,
) -> list[RealScanResult]:
    """Run the benchmark; ``files`` limits it to those file names (all when empty).
    ``noise`` picks another draw of the blur, dust and skew (0: the documented one): the
    pass rate moves by a few cases from one draw to another, so one draw is no verdict."""
    from ragdash.checks.proof import check_case
    from ragdash.errors import IngestError, QueryError
    from ragdash.ingestion.documents import Corpus
    from ragdash.ingestion.ingest import read_pdf
    from ragdash.ingestion.scans import OcrSettings
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.settings import Fixes

    shared = shared or shared_dir()
    if shared is None:
        raise SystemExit("no development sets: set RAGDASH_SHARED or put ../shared beside the repo")
    stretches: list[tuple[Path, tuple[int, ...], str]] = []
    all_entries: list[tuple[dict, str]] = []
    unreadable: set[str] = set()
    born_docs = []
    for folder, entries in real_sets(shared):
        for name in dict.fromkeys(e["file"] for e in entries):
            if files and name not in files:
                continue
            path = folder / name
            same = [e for e in entries if e["file"] == name]
            runs = _stretches(path, same)
            for run in runs:
                doc_id = f"{name.removesuffix('.pdf')}-p{run[0]}-{run[-1]}"
                stretches.append((path, run, doc_id))
                layouts = _born_layouts(path, run)
                born_docs.append(_document(doc_id, layouts, len(born_docs)))
                if _cjk_share(" ".join(x.plain for x in layouts)) > 0.3:
                    unreadable.add(name)
            for e in same:
                run_id = next(d for p, r, d in stretches if p == path and r[0] <= e["pages"][0]
                              and e["pages"][1] <= r[-1])  # fmt: skip
                all_entries.append((e, run_id))

    def cases_of() -> list[Any]:
        out = []
        for entry, doc_id in all_entries:
            out.extend((entry["file"], c) for c in _cases([entry], lambda _e, d=doc_id: d))
        return out

    cases = cases_of()
    born_index = CorpusIndex(Corpus(tuple(born_docs)))
    tables = Fixes().with_only(["tables"])

    def passes(index: Any, case: Any, fixes: Any) -> bool:
        try:
            return check_case(index, case, fixes).passed
        except QueryError:  # a row of punctuation only: no words to ask with
            return False

    born_pass = [passes(born_index, c, tables) for _, c in cases]
    results = []
    for dpi in dpis:
        scan_docs = []
        refused = []
        pages = 0
        started = time.monotonic()
        for k, (path, run, doc_id) in enumerate(stretches):
            images = scan_images(path, run, dpi, seed=dpi * 1000 + k + noise)
            buffer = io.BytesIO()
            images[0].save(buffer, "PDF", resolution=float(dpi), save_all=True,
                           append_images=images[1:])  # fmt: skip
            del images
            try:
                parsed = read_pdf(buffer.getvalue(), ocr=OcrSettings(dpi=dpi))
            except IngestError as exc:
                refused.append(f"{doc_id} ({len(run)} pages): {exc}")
                say(f"{dpi} dpi {doc_id}: refused: {exc}")
                continue
            pages += len(run)
            scan_docs.append(_document(doc_id, parsed.layouts, len(scan_docs)))
            say(f"{dpi} dpi {doc_id}: {len(run)} page(s) read, "
                f"{time.monotonic() - started:.0f} s so far")  # fmt: skip
        seconds = time.monotonic() - started
        scan_index = CorpusIndex(Corpus(tuple(scan_docs))) if scan_docs else None
        both = Fixes().with_only(["ocr", "tables"])
        scan_pass = [
            bool(scan_index) and any(d.doc_id == c.expected_id for d in scan_docs)
            and passes(scan_index, c, both)
            for _, c in cases
        ]
        per_file: dict[str, list[int]] = {}
        for (name, _), b, s in zip(cases, born_pass, scan_pass, strict=True):
            row = per_file.setdefault(name, [0, 0, 0])
            row[0] += 1
            row[1] += b
            row[2] += s
        readable = [n for n, _ in enumerate(cases) if cases[n][0] not in unreadable]
        results.append(RealScanResult(
            dpi, len(cases), sum(born_pass), sum(scan_pass), len(readable),
            sum(born_pass[n] for n in readable),
            sum(scan_pass[n] and born_pass[n] for n in readable),
            pages, tuple(refused), seconds / max(pages, 1),
            {k: tuple(v) for k, v in per_file.items()},
        ))  # fmt: skip
        say(f"{dpi} dpi done in {seconds:.0f} s")
    return results


def table_markdown(results: Sequence[RealScanResult], unreadable: str = "") -> str:
    """The docs' table: one row per resolution."""
    head = (
        "| scan dpi | pages | cases | born-digital pass | scan pass | scan pass where "
        "born-digital passes (Latin script) | of born-digital | refused | s / page |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    rows = [
        f"| {r.dpi} | {r.pages} | {r.cases} | {r.born}/{r.cases} | {r.scanned}/{r.cases} | "
        f"{r.scanned_readable}/{r.born_readable} | {r.ratio:.0%} | {len(r.refused)} | "
        f"{r.seconds_per_page:.1f} |"
        for r in results
    ]
    return "\n".join([head, *rows])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.realscans", allow_abbrev=False,
        description="Render the real development PDFs as scans, OCR them and compare the "
        "proof-check pass rate with the born-digital files.",
    )
    parser.add_argument("--dpi", type=int, action="append", help="a scan resolution (repeat)")
    parser.add_argument("--file", action="append", default=[], help="only this PDF (repeat)")
    parser.add_argument(
        "--noise", type=int, default=0,
        help="another draw of the blur, dust and skew (default 0, the documented draw)",
    )
    args = parser.parse_args(argv)
    results = run_realscans(
        tuple(args.dpi or DPIS), say=lambda m: print(m, file=sys.stderr), files=args.file,
        noise=args.noise,
    )
    print(table_markdown(results))
    for r in results:
        print(f"\n{r.dpi} dpi, per file (cases, born-digital pass, scan pass):")
        for name, (n, b, s) in r.per_file.items():
            print(f"  {name}: {n} cases, born-digital {b}, scan {s}")
        for line in r.refused:
            print(f"  refused: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
