"""``python -m benchmarks.realscans`` (or ``python -m benchmarks.scanbench --real``): the
real PDFs of the development sets as scans — how much of the born-digital pass rate OCR keeps.

The synthetic benchmark (:mod:`benchmarks.scanbench`) draws short known text in clean
columns; real documents have shaded rows, rotated headers, small print and dense tables.
Here every stretch of pages a ``truth.json`` decision needs (two pages either side, as
``tests/realpdfs.py`` opens them) of the development sets ``../shared/realpdfs``,
``realpdfs2`` and ``realpdfs3`` (or ``$RAGDASH_SHARED/realpdfs*``) is:

* read **born-digital** (pdfplumber's page model, as the real-PDF tests do), and
* drawn as one scanner would read it (:func:`scanner_images`, the default ``--noise-model
  scanner``: per document a resolution of 150–300 dpi, a JPEG quality, blur, skew, uneven
  light and specks of several sizes, all drawn from a seed — the same in every process), or
  as the photocopy of earlier rounds (``--noise-model photocopy``: greyscale at 150/200/300
  dpi, mild blur, one-pixel dust, a 0.4° skew), wrapped as an **image-only PDF** and read
  back through :func:`ragdash.ingestion.ingest.read_pdf` (the bounded parse child,
  Tesseract OCR, its time limit included),

and the same proof cases run on both — for each decision, one case per row either side of
the break and, for a join, one case needing both rows — with the tables fix (born-digital)
and the OCR + tables fixes (scans). The figure that matters is the scan pass rate over the
born-digital one (target: at least 90% at 200 dpi).

Files whose text is in a script Tesseract has no language data for here (the Traditional
Chinese tables of ``realpdfs2``: only ``eng`` is installed) are reported on their own line
and left out of the ratio: no pre-processing makes ``eng`` read Chinese.

``--ablate`` reads each page once and repairs Tesseract's readings with every scan pass
on, then with each pass switched off in turn
(:data:`ragdash.ingestion.scan.settings.PASSES`): per development set, what each pass
gains (cases that pass only with it) and loses (cases that pass only without it).

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
    "NOISE_MODELS",
    "AblationRow",
    "RealScanResult",
    "ScannerDraw",
    "image_pdf_bytes",
    "main",
    "real_sets",
    "run_ablation",
    "run_realscans",
    "scan_images",
    "scanner_draw",
    "scanner_images",
    "shared_dir",
]

DPIS = (150, 200, 300)
#: The development sets, in the order they arrived.
SETS = ("realpdfs", "realpdfs2", "realpdfs3")
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
    for name in SETS:
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


#: What a real scanner varies from one document to the next, and the ranges drawn from
#: (:func:`scanner_images`): resolution, JPEG quality, blur (a radius in pixels at 300 dpi),
#: skew (degrees), how much darker one edge of the page is lit than the other, and specks
#: per page, each of one to four pixels across at 300 dpi.
SCANNER_DPIS = (150, 200, 250, 300)
SCANNER_JPEG = (35, 90)
SCANNER_BLUR = (0.3, 1.2)
SCANNER_SKEW = (0.0, 1.5)
SCANNER_LIGHT = (0.0, 0.3)
SCANNER_SPECKS = (30, 400)
SCANNER_SPECK_SIZES = (1, 2, 3, 4)
#: The noise models: the first is the default.
NOISE_MODELS = ("scanner", "photocopy")


@dataclass(frozen=True)
class ScannerDraw:
    """One document's scanner: what :func:`scanner_images` drew for it (same seed, same
    draw, in every process: :class:`random.Random` and numpy's generator, no hash)."""

    dpi: int
    jpeg: int
    blur: float
    skew: float
    light: float
    specks: int

    def label(self) -> str:
        return (f"{self.dpi} dpi, JPEG q{self.jpeg}, blur {self.blur:.2f} px, "
                f"skew {self.skew:+.2f}°, light -{self.light:.0%}, {self.specks} specks")


def scanner_draw(seed: int) -> ScannerDraw:
    """The scanner of one document, drawn from the ranges above.

    >>> scanner_draw(7) == scanner_draw(7), scanner_draw(7) == scanner_draw(8)
    (True, False)
    >>> 150 <= scanner_draw(3).dpi <= 300
    True
    """
    rng = random.Random(seed)
    return ScannerDraw(
        rng.choice(SCANNER_DPIS),
        rng.randint(*SCANNER_JPEG),
        round(rng.uniform(*SCANNER_BLUR), 3),
        round(rng.uniform(*SCANNER_SKEW) * rng.choice((-1, 1)), 3),
        round(rng.uniform(*SCANNER_LIGHT), 3),
        rng.randint(*SCANNER_SPECKS),
    )


def scanner_images(path: Path, pages: Sequence[int], seed: int) -> tuple[ScannerDraw, list[Any]]:
    """Pages of the PDF at ``path`` as one scanner reads them (:func:`scanner_draw`): its
    resolution, its skew (each page within a tenth of a degree of it, as sheets feed),
    uneven light (the paper darker towards one edge, the direction drawn per page), its
    blur, and specks of dust of one to four pixels across (at 300 dpi, scaled), dark and
    of several greys; the JPEG quality is applied when the pages are saved as a PDF
    (:func:`image_pdf_bytes`)."""
    import numpy as np
    import pdfplumber
    from PIL import Image, ImageFilter

    draw = scanner_draw(seed)
    rng = random.Random(seed + 1)
    images = []
    with pdfplumber.open(path) as pdf:
        for n in pages:
            page = pdf.pages[n - 1]
            image = page.to_image(resolution=draw.dpi).original.convert("L")
            page.close()
            angle = draw.skew + rng.uniform(-0.1, 0.1)
            image = image.rotate(angle, resample=Image.BICUBIC, expand=False, fillcolor=255)
            image = image.filter(ImageFilter.GaussianBlur(draw.blur * draw.dpi / 300))
            pixels = np.asarray(image, dtype=np.float32)
            tall, wide = pixels.shape
            noise = np.random.default_rng(rng.randrange(2**31))
            # uneven light: the page lit less towards one edge (a linear falloff)
            direction = rng.uniform(0, 2 * np.pi)
            ys, xs = np.mgrid[0:tall, 0:wide]
            along = (xs / wide - 0.5) * np.cos(direction) + (ys / tall - 0.5) * np.sin(direction)
            along = (along - along.min()) / max(float(np.ptp(along)), 1e-9)
            pixels *= 1.0 - draw.light * along
            # specks: dark spots of several sizes and greys
            for _ in range(draw.specks):
                size = rng.choice(SCANNER_SPECK_SIZES) * draw.dpi / 300
                r = max(0.5, size / 2)
                cy, cx = noise.uniform(0, tall), noise.uniform(0, wide)
                y0, y1 = max(0, int(cy - r)), min(tall, int(np.ceil(cy + r)) + 1)
                x0, x1 = max(0, int(cx - r)), min(wide, int(np.ceil(cx + r)) + 1)
                yy, xx = np.mgrid[y0:y1, x0:x1]
                spot = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2 <= r * r
                pixels[y0:y1, x0:x1][spot] = np.minimum(
                    pixels[y0:y1, x0:x1][spot], noise.uniform(0, 90))
            images.append(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)))
    return draw, images


def image_pdf_bytes(images: Sequence[Any], dpi: int, jpeg: int = 75) -> bytes:
    """``images`` as an image-only PDF at ``dpi``, each page JPEG-compressed at quality
    ``jpeg`` (PIL writes greyscale pages as JPEG, as scanners do)."""
    buffer = io.BytesIO()
    images[0].save(buffer, "PDF", resolution=float(dpi), save_all=True,
                   append_images=list(images[1:]), quality=jpeg)  # fmt: skip
    return buffer.getvalue()


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


@dataclass
class _Plan:
    """What a run reads: the stretches of pages (file, pages, document id, set), the cases
    with their file, which files are in a script Tesseract cannot read here, and the
    born-digital verdict of each case (tables fix)."""

    stretches: list[tuple[Path, tuple[int, ...], str, str]]
    cases: list[tuple[str, Any]]
    set_of: dict[str, str]
    unreadable: set[str]
    born_pass: list[bool]


def _passes(index: Any, case: Any, fixes: Any) -> bool:
    from ragdash.checks.proof import check_case
    from ragdash.errors import QueryError

    try:
        return check_case(index, case, fixes).passed
    except QueryError:  # a row of punctuation only: no words to ask with
        return False


def _plan(shared: Path | None, files: Sequence[str]) -> _Plan:
    from ragdash.ingestion.documents import Corpus
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.settings import Fixes

    shared = shared or shared_dir()
    if shared is None:
        raise SystemExit("no development sets: set RAGDASH_SHARED or put ../shared beside the repo")
    stretches: list[tuple[Path, tuple[int, ...], str, str]] = []
    all_entries: list[tuple[dict, str]] = []
    unreadable: set[str] = set()
    set_of: dict[str, str] = {}
    born_docs = []
    for folder, entries in real_sets(shared):
        for name in dict.fromkeys(e["file"] for e in entries):
            if files and name not in files:
                continue
            set_of[name] = folder.name
            path = folder / name
            same = [e for e in entries if e["file"] == name]
            for run in _stretches(path, same):
                doc_id = f"{name.removesuffix('.pdf')}-p{run[0]}-{run[-1]}"
                stretches.append((path, run, doc_id, folder.name))
                layouts = _born_layouts(path, run)
                born_docs.append(_document(doc_id, layouts, len(born_docs)))
                if _cjk_share(" ".join(x.plain for x in layouts)) > 0.3:
                    unreadable.add(name)
            for e in same:
                run_id = next(d for p, r, d, _s in stretches if p == path and r[0] <= e["pages"][0]
                              and e["pages"][1] <= r[-1])  # fmt: skip
                all_entries.append((e, run_id))
    cases = []
    for entry, doc_id in all_entries:
        cases.extend((entry["file"], c) for c in _cases([entry], lambda _e, d=doc_id: d))
    born_index = CorpusIndex(Corpus(tuple(born_docs)))
    tables = Fixes().with_only(["tables"])
    born_pass = [_passes(born_index, c, tables) for _, c in cases]
    return _Plan(stretches, cases, set_of, unreadable, born_pass)


def _scan_verdicts(plan: _Plan, scan_docs: Sequence[Any]) -> list[bool]:
    """Each case's verdict on the scanned documents (OCR + tables fixes)."""
    from ragdash.ingestion.documents import Corpus
    from ragdash.retrieval.index import CorpusIndex
    from ragdash.settings import Fixes

    if not scan_docs:
        return [False for _ in plan.cases]
    index = CorpusIndex(Corpus(tuple(scan_docs)))
    both = Fixes().with_only(["ocr", "tables"])
    ids = {d.doc_id for d in scan_docs}
    return [c.expected_id in ids and _passes(index, c, both) for _, c in plan.cases]


def _result(plan: _Plan, dpi: int, scan_pass: list[bool], pages: int, refused: list[str],
            seconds: float) -> RealScanResult:  # fmt: skip
    cases, born_pass = plan.cases, plan.born_pass
    per_file: dict[str, list[int]] = {}
    for (name, _), b, s in zip(cases, born_pass, scan_pass, strict=True):
        row = per_file.setdefault(name, [0, 0, 0])
        row[0] += 1
        row[1] += b
        row[2] += s
    readable = [n for n, _ in enumerate(cases) if cases[n][0] not in plan.unreadable]
    return RealScanResult(
        dpi, len(cases), sum(born_pass), sum(scan_pass), len(readable),
        sum(born_pass[n] for n in readable),
        sum(scan_pass[n] and born_pass[n] for n in readable),
        pages, tuple(refused), seconds / max(pages, 1),
        {k: tuple(v) for k, v in per_file.items()},  # type: ignore[misc]
    )  # fmt: skip


def _scan_pdf(plan: _Plan, k: int, dpi: int, model: str, noise: int) -> tuple[bytes, int, str]:
    """Stretch ``k`` as an image-only PDF: its bytes, resolution and how it was scanned."""
    path, run, _doc_id, _set = plan.stretches[k]
    if model == "scanner":
        draw, images = scanner_images(path, run, seed=k + noise)
        data = image_pdf_bytes(images, draw.dpi, draw.jpeg)
        return data, draw.dpi, draw.label()
    images = scan_images(path, run, dpi, seed=dpi * 1000 + k + noise)
    return image_pdf_bytes(images, dpi), dpi, f"{dpi} dpi photocopy"


def run_realscans(
    dpis: Sequence[int] = DPIS,
    shared: Path | None = None,
    say: Callable[[str], None] = lambda _m: None,
    files: Sequence[str] = (),
    noise: int = 0,
    model: str = "scanner",
) -> list[RealScanResult]:
    """Run the benchmark; ``files`` limits it to those file names (all when empty).
    ``noise`` picks another draw of the noise (0: the documented one): the pass rate moves
    by a few cases from one draw to another, so one draw is no verdict. With the
    ``scanner`` model each document has its own resolution (150–300 dpi): ``dpis`` is not
    used and the one row has ``dpi`` 0."""
    from ragdash.errors import IngestError
    from ragdash.ingestion.ingest import read_pdf
    from ragdash.ingestion.scans import OcrSettings

    if model not in NOISE_MODELS:
        raise SystemExit(f"noise model {model!r} is not one of {', '.join(NOISE_MODELS)}")
    plan = _plan(shared, files)
    results = []
    for dpi in (0,) if model == "scanner" else dpis:
        scan_docs = []
        refused = []
        pages = 0
        started = time.monotonic()
        for k, (_path, run, doc_id, _set) in enumerate(plan.stretches):
            data, read_dpi, how = _scan_pdf(plan, k, dpi, model, noise)
            try:
                parsed = read_pdf(data, ocr=OcrSettings(dpi=read_dpi))
            except IngestError as exc:
                refused.append(f"{doc_id} ({len(run)} pages): {exc}")
                say(f"{doc_id} ({how}): refused: {exc}")
                continue
            pages += len(run)
            scan_docs.append(_document(doc_id, parsed.layouts, len(scan_docs)))
            say(f"{doc_id} ({how}): {len(run)} page(s) read, "
                f"{time.monotonic() - started:.0f} s so far")  # fmt: skip
        seconds = time.monotonic() - started
        results.append(_result(plan, dpi, _scan_verdicts(plan, scan_docs), pages, refused,
                               seconds))  # fmt: skip
        say(f"{dpi or 'scanner'} done in {seconds:.0f} s")
    return results


@dataclass(frozen=True)
class AblationRow:
    """One development set under ``--ablate``: cases (Latin script), how many pass
    born-digital and as scans with every pass on, and per pass switched off what it gained
    (cases passing only with it) and lost (cases passing only without it)."""

    name: str
    cases: int
    born: int
    scanned: int
    gains: dict[str, int] = field(default_factory=dict, hash=False)
    losses: dict[str, int] = field(default_factory=dict, hash=False)


def run_ablation(
    shared: Path | None = None,
    say: Callable[[str], None] = lambda _m: None,
    files: Sequence[str] = (),
    noise: int = 0,
    model: str = "scanner",
    dpi: int = 200,
    only: Sequence[str] = (),
) -> list[AblationRow]:
    """Each scan pass's gain and loss per development set: every page is read by Tesseract
    once (:func:`~ragdash.ingestion.scan.page.first_readings`), then repaired with all
    passes and with each switched off (:func:`~ragdash.ingestion.scan.page.finish_page`,
    the crops a pass reads again looked up when read before:
    :func:`~ragdash.ingestion.scan.tesseract.same_pixels_read_once`). Pages are read as
    :func:`ragdash.ingestion.ingest.read_pdf` reads an image-only PDF, in this process.
    Files in a script Tesseract cannot read here are left out. ``only`` names the passes
    switched off (all of them when empty): one pass measured costs one repair a page."""
    import pdfplumber

    from ragdash.ingestion.scan.lines import ocr_layout
    from ragdash.ingestion.scan.page import finish_page, first_readings
    from ragdash.ingestion.scan.settings import DEFAULT_SCAN, PASSES
    from ragdash.ingestion.scan.tesseract import render_for_ocr, same_pixels_read_once

    unknown = [p for p in only if p not in PASSES]
    if unknown:
        raise SystemExit(f"scan pass {unknown[0]!r} is not one of {', '.join(PASSES)}")
    plan = _plan(shared, files)
    measured = tuple(only) or PASSES
    variants = {"all": DEFAULT_SCAN, **{p: DEFAULT_SCAN.without(p) for p in measured}}
    docs: dict[str, list[Any]] = {v: [] for v in variants}
    started = time.monotonic()
    for k, (path, run, doc_id, _set) in enumerate(plan.stretches):
        if path.name in plan.unreadable:
            continue
        data, read_dpi, how = _scan_pdf(plan, k, dpi, model, noise)
        layouts: dict[str, list[Any]] = {v: [] for v in variants}
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for number, page in enumerate(pdf.pages, start=1):
                image, resolution = render_for_ocr(page, read_dpi)
                page.close()
                with same_pixels_read_once():
                    first = first_readings(image, resolution, number)
                    for v, scan in variants.items():
                        layouts[v].append(ocr_layout(finish_page(first, scan)))
        for v in variants:
            docs[v].append(_document(doc_id, layouts[v], len(docs[v])))
        say(f"{doc_id} ({how}): {len(run)} page(s), {time.monotonic() - started:.0f} s so far")
    verdicts = {v: _scan_verdicts(plan, docs[v]) for v in variants}
    rows = []
    for name in [*SETS, "all sets"]:
        keep = [n for n, (file, _c) in enumerate(plan.cases)
                if file not in plan.unreadable
                and (name == "all sets" or plan.set_of.get(file) == name)]  # fmt: skip
        if not keep:
            continue
        on = verdicts["all"]
        rows.append(AblationRow(
            name, len(keep), sum(plan.born_pass[n] for n in keep), sum(on[n] for n in keep),
            {p: sum(on[n] and not verdicts[p][n] for n in keep) for p in measured},
            {p: sum(verdicts[p][n] and not on[n] for n in keep) for p in measured},
        ))  # fmt: skip
    return rows


def ablation_markdown(rows: Sequence[AblationRow]) -> str:
    """The docs' ablation table: a row per pass, per set ``+gain / -loss``."""
    from ragdash.ingestion.scan.settings import PASSES

    head = "| pass switched off | " + " | ".join(r.name for r in rows) + " |"
    rule = "|---|" + "---:|" * len(rows)
    total = "| (all passes on: scan pass / born-digital pass / cases) | " + " | ".join(
        f"{r.scanned} / {r.born} / {r.cases}" for r in rows) + " |"
    body = [
        f"| `{p}` | " + " | ".join(f"+{r.gains[p]} / -{r.losses[p]}" for r in rows) + " |"
        for p in PASSES if rows and p in rows[0].gains
    ]
    return "\n".join([head, rule, total, *body])


def table_markdown(results: Sequence[RealScanResult], unreadable: str = "") -> str:
    """The docs' table: one row per resolution (``varied`` for the scanner model)."""
    head = (
        "| scan dpi | pages | cases | born-digital pass | scan pass | scan pass where "
        "born-digital passes (Latin script) | of born-digital | refused | s / page |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    rows = [
        f"| {r.dpi or '150–300'} | {r.pages} | {r.cases} | {r.born}/{r.cases} | "
        f"{r.scanned}/{r.cases} | {r.scanned_readable}/{r.born_readable} | {r.ratio:.0%} | "
        f"{len(r.refused)} | {r.seconds_per_page:.1f} |"
        for r in results
    ]
    return "\n".join([head, *rows])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.realscans", allow_abbrev=False,
        description="Render the real development PDFs as scans, OCR them and compare the "
        "proof-check pass rate with the born-digital files.",
    )
    parser.add_argument("--dpi", type=int, action="append",
                        help="a scan resolution (repeat; the photocopy model only)")  # fmt: skip
    parser.add_argument("--file", action="append", default=[], help="only this PDF (repeat)")
    parser.add_argument(
        "--noise", type=int, default=0,
        help="another draw of the noise (default 0, the documented draw)",
    )
    parser.add_argument(
        "--noise-model", choices=NOISE_MODELS, default=NOISE_MODELS[0],
        help="scanner: per document 150-300 dpi, JPEG, blur, skew, uneven light, specks of "
        "several sizes (default); photocopy: the fixed blur and one-pixel dust of earlier rounds",
    )
    parser.add_argument(
        "--ablate", action="store_true",
        help="per development set, what each scan pass gains and loses (each switched off in "
        "turn; every page read by Tesseract once)",
    )
    parser.add_argument(
        "--only", action="append", default=[], metavar="PASS",
        help="with --ablate: switch off only this pass (repeat; default every pass)",
    )
    args = parser.parse_args(argv)
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    if args.ablate:
        rows = run_ablation(say=say, files=args.file, noise=args.noise, model=args.noise_model,
                            dpi=(args.dpi or [200])[0], only=args.only)  # fmt: skip
        print(ablation_markdown(rows))
        return 0
    results = run_realscans(
        tuple(args.dpi or DPIS), say=say, files=args.file, noise=args.noise,
        model=args.noise_model,
    )
    print(table_markdown(results))
    for r in results:
        print(f"\n{r.dpi or 'scanner (150-300)'} dpi, per file (cases, born-digital pass, "
              "scan pass):")  # fmt: skip
        for name, (n, b, s) in r.per_file.items():
            print(f"  {name}: {n} cases, born-digital {b}, scan {s}")
        for line in r.refused:
            print(f"  refused: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
