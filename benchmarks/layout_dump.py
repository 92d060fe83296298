"""``python -m benchmarks.layout_dump``: a fingerprint of what the layout and join code makes of
the development sets, to show that a refactor changed nothing.

Every page a ``truth.json`` decision of ``../shared/realpdfs``, ``realpdfs2`` and
``realpdfs3`` needs (two pages either side, as ``tests/test_realpdfs.py`` reads them): its
lines and table regions, then each file's joined tables and the judged decisions. With
``--scans``, four noisy page images as well (scanner and photocopy noise of
:mod:`benchmarks.realscans`), read by :func:`~ragdash.ingestion.scan.page.read_page_image`
and laid out by :func:`~ragdash.ingestion.scan.lines.ocr_layout` (minutes: Tesseract).
Prints the SHA-256 of the dump and its length; ``--out FILE`` keeps the dump to diff::

    RAGDASH_SHARED=../shared python -m benchmarks.layout_dump [--scans] [--out dump.txt]

Run it on the tree before a change and after it: the same hash is the same result.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (file under the shared folder, pages, noise model, seed) of the ``--scans`` pages.
SCAN_PAGES = (
    ("realpdfs/m27.pdf", (2,), "scanner", 0),
    ("realpdfs3/icdar2013-us-019.pdf", (2,), "scanner", 2),
    ("realpdfs/eu-017.pdf", (1,), "photocopy", 1),
    ("realpdfs2/rid-01.pdf", (1,), "scanner", 5),
)


def layout_lines() -> list[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    import realpdfs as sets  # tests/realpdfs.py: the sets' pages and judge

    out = []
    entries = sets.truth()
    for name in dict.fromkeys(e["file"] for e in entries):
        pages = sets.pages_for(name, [e for e in entries if e["file"] == name])
        for layout in sets.layouts_of(name, pages):
            out.append(f"{name} p{layout.page} lines={layout.lines!r}")
            out.append(f"{name} p{layout.page} tables={layout.tables!r}")
        tables, decisions = sets.tables_of(name, pages)
        out.append(f"{name} joined={tables!r} decisions={decisions!r}")
    out.append(sets.table_report([sets.judge(e) for e in entries]))
    return out


def scan_lines(shared: Path) -> list[str]:
    from benchmarks.realscans import scan_images, scanner_images
    from ragdash.ingestion.scan.lines import ocr_layout
    from ragdash.ingestion.scan.page import read_page_image

    out = []
    for rel, pages, model, seed in SCAN_PAGES:
        if model == "scanner":
            draw, images = scanner_images(shared / rel, pages, seed)
            dpi = draw.dpi
        else:
            dpi, images = 200, scan_images(shared / rel, pages, 200, seed=seed)
        for n, image in zip(pages, images, strict=True):
            page = read_page_image(image, dpi, n)
            out.append(
                f"{rel} p{n} {model} dpi={dpi} words={page.words!r} "
                f"quality={page.quality!r} rules={page.rules!r} lang={page.lang}"
            )
            layout = ocr_layout(page)
            out.append(f"{rel} p{n} layout lines={layout.lines!r} tables={layout.tables!r}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.realscans import shared_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", action="store_true", help="also four OCR'd noisy pages")
    parser.add_argument("--out", type=Path, help="write the dump here")
    args = parser.parse_args(argv)
    shared = shared_dir()
    if shared is None:
        raise SystemExit("no development sets: set RAGDASH_SHARED or put ../shared beside it")
    lines = scan_lines(shared) if args.scans else layout_lines()
    text = "\n".join(lines)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(f"{'scans' if args.scans else 'layouts'}: sha256 "
          f"{hashlib.sha256(text.encode()).hexdigest()} ({len(text)} characters)")  # fmt: skip
    if not args.scans:
        print(lines[-1].splitlines()[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
