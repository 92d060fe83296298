"""The bundled samples: five documents, their metadata, the proof-check cases and a PDF,
shipped inside the package (``ragdash/samples``) so that an installed ragdash has them
wherever it runs — the dashboard's default docs folder, the Guided tour's corpus, and
``--docs samples`` / ``--cases samples`` on the command line.

``samples`` is a reserved word where a docs folder or a cases file is expected: it always
names the bundled samples, never a folder of that name in the working folder (write
``./samples`` for that). Before, the samples were a checkout folder (``sample_docs``) that
``pip install`` did not ship: outside the checkout every default and the tour failed."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLES", "SAMPLES_CASES", "SAMPLES_WORD", "cases_path", "docs_path"]

#: The bundled samples folder (package data).
SAMPLES = Path(__file__).resolve().parent / "samples"
#: The bundled cases (the ones the samples are built to show).
SAMPLES_CASES = SAMPLES / "cases.json"
#: The word that names them on the command line, in ``RAGDASH_DOCS`` and in ``--docs``.
SAMPLES_WORD = "samples"


def docs_path(text: str | Path) -> Path:
    """The docs folder ``text`` names: the bundled samples for ``samples``, else the path::

    >>> docs_path("samples") == SAMPLES, docs_path("./samples") == SAMPLES
    (True, False)
    """
    return SAMPLES if isinstance(text, str) and text == SAMPLES_WORD else Path(text)


def cases_path(text: str | Path) -> Path:
    """The cases file ``text`` names: the bundled ``cases.json`` for ``samples``, else the
    path."""
    return SAMPLES_CASES if isinstance(text, str) and text == SAMPLES_WORD else Path(text)
