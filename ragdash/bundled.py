"""The bundled samples: five documents (one a PDF), their metadata and the proof-check
cases. They live at the top of the checkout (``sample_docs/``) and ship inside the wheel as
``ragdash/samples/`` (pyproject maps the one to the other), so that an installed ragdash has
them wherever it runs — the dashboard's default docs folder, the Guided tour's corpus, and
``--docs samples`` / ``--cases samples`` on the command line.

``samples`` is a reserved word where a docs folder or a cases file is expected: it always
names the bundled samples, never a folder of that name in the working folder (write
``./samples`` for that)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLES", "SAMPLES_CASES", "SAMPLES_WORD", "cases_path", "docs_path", "file_path"]

_HERE = Path(__file__).resolve().parent


def _samples_folder() -> Path:
    """Installed, the samples are package data beside this file; in a checkout (or an
    editable install) they are the top-level ``sample_docs/``."""
    installed = _HERE / "samples"
    return installed if installed.is_dir() else _HERE.parent / "sample_docs"


#: The bundled samples folder: ``ragdash/samples`` installed, ``sample_docs`` in a checkout.
SAMPLES = _samples_folder()
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


def file_path(text: str | Path) -> Path:
    """The file ``text`` names: ``samples/NAME`` is the bundled sample ``NAME`` when there is
    no such file here (a local ``samples/NAME`` wins), so the README's
    ``ragdash inspect samples/plans.pdf`` works installed and in a checkout alike::

    >>> file_path("samples/plans.pdf") == SAMPLES / "plans.pdf"
    True
    >>> file_path("reports/plans.pdf")
    PosixPath('reports/plans.pdf')
    """
    path = Path(text)
    if path.exists() or len(path.parts) != 2 or path.parts[0] != SAMPLES_WORD:
        return path
    bundled = SAMPLES / path.parts[1]
    return bundled if bundled.is_file() else path
