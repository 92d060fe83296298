"""Stop asking a retriever that cannot be reached: :class:`FailureBreaker`.

Why: a dead service used to cost every case its full timeout and retries (70 s for an
ablation's 304 rows) and ended in 304 identical error rows. After ``max_failures``
connection failures *in a row* (:class:`ragdash.errors.RetrieverUnreachable`: refused, timed
out, unreachable — not a junk answer or a 4xx, which are the service answering), every
later call fails at once, without asking, with one message naming the cause::

    stopped after 3 connection failures in a row: http://127.0.0.1:9/search: connection
    refused (is the service running?) (1 attempt)

so the run still finishes with a row per case, and the error summary shows the cause once.
A Python or LangChain callable that raises on a query
(:class:`ragdash.errors.RetrieverRaised`) counts the same way. A call that gets an answer
resets the count. ``max_failures`` 0 never stops.
"""

from __future__ import annotations

from typing import Any

from ragdash.errors import RetrieverError, RetrieverRaised, RetrieverUnreachable
from ragdash.retrieval.hits import Retrieval, Retriever
from ragdash.retrieval.ranking import RankedPassage
from ragdash.settings import Fixes

__all__ = ["DEFAULT_MAX_FAILURES", "FailureBreaker"]

#: Connection failures in a row after which a run stops asking (``--max-failures``).
DEFAULT_MAX_FAILURES = 3


class FailureBreaker:
    """``retriever`` behind the rule above; everything else is passed through."""

    def __init__(self, retriever: Retriever, max_failures: int = DEFAULT_MAX_FAILURES) -> None:
        self.retriever = retriever
        self.max_failures = max_failures
        self.in_a_row = 0
        self.stopped = ""  # the message every later call fails with

    def __getattr__(self, name: str) -> Any:  # spec, corpus, index, ...
        return getattr(self.retriever, name)

    def retrieve(self, query: str, fixes: Fixes, k: int | None = None) -> Retrieval:
        if self.stopped:
            raise RetrieverError(self.stopped)
        try:
            result = self.retriever.retrieve(query, fixes, k)  # type: ignore[arg-type]
        except (RetrieverUnreachable, RetrieverRaised) as exc:
            # a team's callable that raises is as down as a service that is not there
            what = "connection failure" if isinstance(exc, RetrieverUnreachable) else "failure"
            self.in_a_row += 1
            if self.max_failures and self.in_a_row >= self.max_failures:
                self.stopped = (
                    f"stopped after {self.in_a_row} {what}"
                    f"{'s' if self.in_a_row > 1 else ''} in a row: {exc}"
                )
            raise
        except RetrieverError:
            self.in_a_row = 0  # it answered, badly: not the outage this rule is for
            raise
        self.in_a_row = 0
        return result

    def top(self, query: str, fixes: Fixes, k: int) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes, k).ranked)

    def search(self, query: str, fixes: Fixes) -> list[RankedPassage]:
        return list(self.retrieve(query, fixes).ranked)
