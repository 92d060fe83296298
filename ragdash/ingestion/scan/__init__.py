"""The scan passes, by concern: Tesseract's calls (:mod:`.tesseract`), words into lines and
cells (:mod:`.lines`), figure repairs (:mod:`.figures`), code repairs (:mod:`.codes`), the
page's language (:mod:`.language`), and the reading of one page image that runs them in
order (:mod:`.page`). :mod:`ragdash.ingestion.scans` is the entry point the rest of ragdash
uses (OCR settings, which pages are read, the page image with its boxes)."""
