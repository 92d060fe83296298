"""The ``http`` retriever's transport: POST a query to a team's search service, read hits.

The request and answer follow ragdash retriever schema v1 (see :mod:`ragdash.retrieval.hits`)::

    POST http://127.0.0.1:8000/search
    Content-Type: application/json
    X-Ragdash-Schema: 1

    {"query": "return policy days", "top_k": 5}

Why each rule:

* **timeout** (seconds, per attempt — for connecting and for each read) and **retries**
  (extra attempts after a refused connection, a timeout or a 5xx answer, with a short
  pause): a flaky service should cost one slow case, not hang a whole run;
* a **4xx** answer or junk is never retried — asking again gets the same answer;
* every failure raises :class:`ragdash.errors.RetrieverError` naming the URL (password and
  query string hidden) and what happened, e.g. ``http://127.0.0.1:8000/search: timed out
  after 2 s (2 attempts)``, so a run reports it for that case and goes on;
* **nothing is cached** here: every call asks the service (a re-indexed service must be seen
  at once); callers that cache (the dashboard) never cache a failure;
* a token comes from the environment variable named by ``auth_env`` and is sent as the
  ``Authorization`` header; it is never part of the spec, a label or a link;
* loopback addresses bypass any ``HTTP_PROXY`` from the environment.
"""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from ragdash.errors import RetrieverError
from ragdash.retrieval.hits import SCHEMA_VERSION, Hit, parse_hits
from ragdash.retrieval.spec import RetrieverSpec

__all__ = ["MAX_ANSWER_BYTES", "HttpBackend"]

#: A bigger answer is refused (a service sending a whole index by mistake).
MAX_ANSWER_BYTES = 20 * 1024 * 1024
#: Pause before retry n: RETRY_PAUSE * n seconds.
RETRY_PAUSE = 0.2
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class HttpBackend:
    """Calls one service; :meth:`fetch` is the whole contract (query, k → hits)."""

    def __init__(self, spec: RetrieverSpec) -> None:
        if spec.kind != "http":
            raise ValueError(f"HttpBackend needs an http spec, not {spec.kind!r}")
        self.spec = spec
        self.name = spec.safe_url
        host = urlsplit(spec.url).hostname or ""
        handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    def headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "ragdash",
            "X-Ragdash-Schema": str(SCHEMA_VERSION),
        }
        if self.spec.auth_env:
            token = os.environ.get(self.spec.auth_env)
            if not token:
                raise RetrieverError(
                    f"{self.name}: environment variable {self.spec.auth_env} (the service's "
                    "Authorization header) is not set"
                )
            headers["Authorization"] = token
        return headers

    def fetch(self, query: str, k: int) -> list[Hit]:
        """The service's top ``k`` hits for ``query``. Raises :class:`RetrieverError`."""
        body = json.dumps({"query": query, "top_k": k}).encode("utf-8")
        answer = self._post(body)
        return parse_hits(answer, self.spec.response_shape, self.name, k)

    def _post(self, body: bytes) -> Any:
        attempts = 1 + self.spec.retries
        failure = ""
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                time.sleep(RETRY_PAUSE * (attempt - 1))
            request = urllib.request.Request(
                self.spec.url, data=body, headers=self.headers(), method="POST"
            )
            try:
                with self._opener.open(request, timeout=self.spec.timeout) as response:
                    raw = response.read(MAX_ANSWER_BYTES + 1)
                    kind = response.headers.get_content_type()
            except urllib.error.HTTPError as exc:
                detail = _snippet(exc.read(300) if exc.fp else b"")
                failure = f"answered HTTP {exc.code} {exc.reason}" + (
                    f": {detail}" if detail else ""
                )
                if exc.code < 500:
                    raise RetrieverError(f"{self.name}: {failure}") from None
                continue
            except TimeoutError:
                failure = f"timed out after {self.spec.timeout:g} s"
                continue
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, TimeoutError):
                    failure = f"timed out after {self.spec.timeout:g} s"
                elif isinstance(reason, ConnectionRefusedError):
                    failure = "connection refused (is the service running?)"
                else:
                    failure = f"cannot be reached ({reason})"
                continue
            except (http.client.HTTPException, ConnectionError, OSError) as exc:
                failure = f"dropped the connection ({type(exc).__name__}: {exc or 'no detail'})"
                continue
            return self._decode(raw, kind)
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        raise RetrieverError(f"{self.name}: {failure} ({tries})")

    def _decode(self, raw: bytes, content_type: str) -> Any:
        if len(raw) > MAX_ANSWER_BYTES:
            raise RetrieverError(
                f"{self.name}: the answer is larger than {MAX_ANSWER_BYTES // 2**20} MB"
            )
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RetrieverError(
                f"{self.name}: the answer is not JSON ({content_type}: {_snippet(raw)!r})"
            ) from None


def _snippet(raw: bytes, limit: int = 80) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return text[:limit] + ("…" if len(text) > limit else "")
