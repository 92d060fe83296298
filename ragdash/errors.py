"""One error root for everything ragdash refuses, so a caller (the CLI, a page, a library
user) needs one ``except RagdashError`` to show the message and lose nothing.

Every subclass's message names the thing at fault and the problem in plain words, e.g.
``IngestError("plans.pdf: encrypted PDF (a password is needed)")``. Classes that reject a
bad *value* also derive from ``ValueError``, so ``except ValueError`` keeps working for
callers that expect Python's convention.
"""

from __future__ import annotations

__all__ = [
    "CaseFileError",
    "IngestCancelled",
    "IndexFileError",
    "IngestError",
    "LibraryError",
    "OcrUnavailable",
    "QueryError",
    "RagdashError",
    "RetrieverError",
    "RetrieverUnreachable",
    "RunError",
    "SettingsError",
    "WorkspaceError",
]


class RagdashError(Exception):
    """Root of every error ragdash raises on purpose; the message is meant for the user."""


class SettingsError(RagdashError, ValueError):
    """Fix settings that cannot be used (a threshold out of range, an unknown fuzzy rule, a
    malformed OCR map); the message names the bad value."""


class QueryError(RagdashError, ValueError):
    """A query that cannot be run; the message says why."""


class IngestError(RagdashError):
    """A file that cannot be loaded; the message names the problem in plain words."""


class IndexFileError(RagdashError):
    """A saved index that cannot be used — missing, corrupt, stale (the docs changed) or
    written by another ragdash version; the message names the file and says to rebuild."""


class IngestCancelled(IngestError):
    """Raised by a progress callback to stop reading a file; nothing was kept."""

    def __init__(self, message: str = "was cancelled before it was fully read") -> None:
        super().__init__(message)


class OcrUnavailable(IngestError):
    """OCR was needed (a scanned page) and Tesseract cannot run here; the message says how
    to install it."""


class CaseFileError(RagdashError, ValueError):
    """A case file that cannot be used; the message names the file and the problem."""


class LibraryError(RagdashError):
    """The case library cannot be used or changed; the message names the file and why.
    Nothing was written."""


class WorkspaceError(RagdashError, ValueError):
    """A workspace operation that was refused; the message says why. Nothing was changed."""


class RetrieverError(RagdashError):
    """A retriever that cannot be set up or did not answer usably (a service that is down,
    times out or returns junk; a callable that cannot be imported or raises). The message
    names the retriever (its URL or ``package.module:function``) and what went wrong, e.g.
    ``http://127.0.0.1:8000/search: timed out after 2 s (2 attempts)``."""



class RetrieverUnreachable(RetrieverError):
    """The retriever could not be reached at all, after its retries (refused, timed out,
    unknown host, dropped connection): a run stops asking after a few of these in a row
    (:mod:`ragdash.retrieval.breaker`) instead of waiting out every case."""


class RetrieverRaised(RetrieverError):
    """A team's callable (python search function, factory search, LangChain ``invoke``)
    raised on a query: like an unreachable service, a run stops calling it after a few of
    these in a row (``--max-failures``), instead of failing every case the same way."""


def unreachable_cause(exc: BaseException) -> bool:
    """``exc`` (raised by a team's code) says a connection failed: ``ConnectionError``,
    ``TimeoutError``, an ``OSError``, or a client library's ``…ConnectError`` /
    ``…ConnectionError`` / ``…Timeout``.

    >>> unreachable_cause(ConnectionRefusedError(111, "refused")), unreachable_cause(KeyError())
    (True, False)
    """
    if isinstance(exc, ConnectionError | TimeoutError | OSError):
        return True
    names = [t.__name__ for t in type(exc).__mro__]
    return any("Connect" in n or "Timeout" in n for n in names)


class RunError(RagdashError, ValueError):
    """A saved run that cannot be found or read (an id not in the library, a run file that
    is not one); the message names the run or the file and the problem."""
