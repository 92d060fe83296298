"""ragdash's benchmarks, kept apart from the package (as bm25s keeps its own): they time the
core against peers measured in the same run (:mod:`benchmarks.bench`), the dashboard's
reruns (:mod:`benchmarks.dashboard`) and OCR of generated scans (:mod:`benchmarks.scanbench`).
Run them from a checkout: ``python -m benchmarks.bench --quick``. Nothing in ``ragdash``
imports them."""
