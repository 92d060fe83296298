"""``python -m benchmarks.fitted_cases``: do the special cases issue 44 names as fitted to one
observation help on development sets they were not tuned on?

* ``--bars``: where the dark-bar lightness limit (``ScanSettings.bar_light``, set on one tax
  table) acts — every page of :mod:`benchmarks.realscans`' stretches of the three sets drawn
  at 200 dpi, the dark areas inverted as bars with the limit and without it (1.0); the
  pages where they differ are listed (seconds a page);
* ``--near-born``: the born-digital decisions of the three sets judged with furniture's
  ``near_place`` at 4 pt (the exact-place tolerance: the 30 pt OCR tolerance off), as
  ``tests/test_realpdfs.py`` judges them (minutes);
* ``--scans FILE ...``: the files' stretches read as scans under the scanner noise (draw 0,
  as ``realscans --ablate``), OCR'd in this process once with dust removal
  (``ScanSettings.speck_size``) and once without; each reading judged with ``near_place`` at
  30 and 4 pt. Prints the cases passing as scans each way (Tesseract: many minutes)::

    RAGDASH_SHARED=../shared python -m benchmarks.fitted_cases --bars
    RAGDASH_SHARED=../shared python -m benchmarks.fitted_cases --near-born
    RAGDASH_SHARED=../shared python -m benchmarks.fitted_cases --scans \\
        icdar2013-eu-001.pdf icdar2013-us-019.pdf icdar2013-eu-012.pdf
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def bars() -> None:
    import numpy as np
    import pdfplumber

    from benchmarks import realscans as rs
    from ragdash.ingestion.ocr_prep import _light_on_dark
    from ragdash.ingestion.scan.settings import ScanSettings

    off = ScanSettings(bar_light=1.0)
    shared = rs.shared_dir()
    assert shared is not None
    for folder, entries in rs.real_sets(shared):
        acted, pages = [], 0
        for name in dict.fromkeys(e["file"] for e in entries):
            path = folder / name
            same = [e for e in entries if e["file"] == name]
            with pdfplumber.open(path) as pdf:
                for run in rs._stretches(path, same):
                    for n in run:
                        page = pdf.pages[n - 1]
                        px = np.asarray(page.to_image(resolution=200).original.convert("L"))
                        page.close()
                        pages += 1
                        kept = len(_light_on_dark(px, 200 / 72)[1])
                        every = len(_light_on_dark(px, 200 / 72, off)[1])
                        if kept != every:
                            acted.append(f"{name} p{n}: {every} bars without the limit, {kept} "
                                         "with it")  # fmt: skip
        print(f"{folder.name}: {pages} pages; the limit acts on {len(acted)}", flush=True)
        for line in acted:
            print("   ", line, flush=True)


def near_born() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import realpdfs as sets

    from ragdash.ingestion.furniture import find_furniture
    from ragdash.ingestion.joins import join_tables
    from ragdash.ingestion.pdf_layout import LayoutSettings

    settings = LayoutSettings(near_place=4.0)

    def tables_of(name: str, pages: tuple[int, ...]) -> Any:
        layouts = sets.layouts_of(name, pages)
        return join_tables(layouts, find_furniture(layouts, settings))

    sets.tables_of = tables_of
    for name in sets.SETS:
        if sets.present(name):
            report = sets.table_report([sets.judge(e) for e in sets.truth(name)])
            print(f"{name} near_place=4: {report.splitlines()[-1]}", flush=True)


def scans(files: Sequence[str]) -> None:
    import benchmarks.realscans as rs
    import ragdash.ingestion.ocr_prep as prep
    import ragdash.ingestion.segmentation as seg
    from ragdash.ingestion.furniture import find_furniture
    from ragdash.ingestion.ingest import _parse_pdf
    from ragdash.ingestion.pdf_layout import LayoutSettings
    from ragdash.ingestion.scans import OcrSettings

    plan = rs._plan(None, files)
    print(f"{len(plan.stretches)} stretches, {len(plan.cases)} cases, "
          f"{sum(plan.born_pass)} pass born-digital", flush=True)  # fmt: skip

    def read_all(label: str) -> list[Any]:
        docs: list[Any] = []
        started = time.monotonic()
        for k, (_path, _run, doc_id, _set) in enumerate(plan.stretches):
            data, dpi, how = rs._scan_pdf(plan, k, 0, "scanner", 0)
            # in this process (no child, no time budget), so the switch below holds
            parsed = _parse_pdf(data, 10_000, None, OcrSettings(dpi=dpi))
            docs.append(rs._document(doc_id, parsed.layouts, len(docs)))
            print(f"{label}: {doc_id} ({how}) {time.monotonic() - started:.0f} s", flush=True)
        return docs

    def passing(docs: list[Any], near: float) -> int:
        chosen = LayoutSettings(near_place=near)

        def furniture(
            layouts: Sequence[Any], settings: LayoutSettings = chosen
        ) -> dict[int, frozenset[int]]:
            return find_furniture(layouts, chosen)

        seg.find_furniture = furniture
        try:
            fresh = [rs._document(d.doc_id, d.layouts, n) for n, d in enumerate(docs)]
            return sum(rs._scan_verdicts(plan, fresh))
        finally:
            seg.find_furniture = find_furniture

    removed = read_all("dust removed")
    print(f"dust removed, near_place 30: {passing(removed, 30.0)}", flush=True)
    print(f"dust removed, near_place 4: {passing(removed, 4.0)}", flush=True)
    real = prep.remove_specks

    def no_dust_removal(pixels: Any, px_per_pt: float, scan: Any = None) -> Any:
        return pixels

    prep.remove_specks = no_dust_removal
    try:
        kept = read_all("dust kept")
    finally:
        prep.remove_specks = real
    print(f"dust kept, near_place 30: {passing(kept, 30.0)}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bars", action="store_true")
    parser.add_argument("--near-born", action="store_true")
    parser.add_argument("--scans", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    if args.bars:
        bars()
    if args.near_born:
        near_born()
    if args.scans:
        scans(args.scans)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
