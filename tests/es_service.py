"""A strict local emulation of Elasticsearch's ``_search`` on 127.0.0.1, for the tests.

It indexes passages exported by ``ragdash passages`` (each record is a document's
``_source``: ``doc_id``, ``text``, ``page_start``, ...; ``_id`` is the passage id, as a
chunked index has) and answers ``POST /<index>/_search`` the way a real cluster does —
including refusing what a real cluster refuses, with its 400 ``parsing_exception``:

* a body that is not a JSON object, or a top-level key ``_search`` does not know
  (``top_k``: "Unknown key for a VALUE_NUMBER in [top_k].");
* a ``query`` that is not an object (``{"query": "text"}``: "[query] query malformed, no
  start_object after query name"), or an object naming no or several query types, or an
  unknown query type;
* a ``size`` that is not a whole number (``"5"`` is accepted as ES coerces numeric strings;
  ``true``, ``5.5``, ``"five"``, a list → 400), or a negative one.

``multi_match`` (``query`` + ``fields``) and ``match`` are implemented by simple term
scoring (Lucene BM25 through ``bm25s``) over the listed ``_source`` fields; ``size``
defaults to 10 as in Elasticsearch.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import bm25s
from quiet_server import QuietServer

from ragdash.text import tokenize

#: Top-level keys a ``_search`` body may have (a subset of Elasticsearch's, enough to test).
KNOWN_KEYS = {"query", "size", "from", "_source", "min_score", "track_total_hits", "sort",
              "timeout", "highlight", "explain"}  # fmt: skip
QUERY_TYPES = {"multi_match", "match"}


class BadRequest(Exception):
    pass


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "VALUE_BOOLEAN"
    if isinstance(value, int | float):
        return "VALUE_NUMBER"
    if isinstance(value, str):
        return "VALUE_STRING"
    if isinstance(value, list):
        return "START_ARRAY"
    if value is None:
        return "VALUE_NULL"
    return "START_OBJECT"


class EsService:
    def __init__(self, records: Sequence[dict[str, Any]]) -> None:
        self.records = list(records)
        self.requests: list[tuple[str, Any]] = []
        self.indexes: dict[str, Any] = {}
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                service.handle(self, raw)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def model(self, fields: tuple[str, ...]) -> Any:
        if fields not in self.indexes:
            model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
            texts = [" ".join(str(r.get(f, "")) for f in fields) for r in self.records]
            model.index([tokenize(t) or ["\x00"] for t in texts], show_progress=False)
            self.indexes[fields] = model
        return self.indexes[fields]

    def handle(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        if not handler.path.split("?")[0].endswith("/_search"):
            return self.send(handler, 404, {"error": "no handler found", "status": 404})
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.error(handler, "json_parse_exception", "Unexpected character")
        self.requests.append((handler.path, body))
        try:
            answer = self.search(body)
        except BadRequest as exc:
            return self.error(handler, "parsing_exception", str(exc))
        return self.send(handler, 200, answer)

    def search(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise BadRequest("request body must be an object")
        for key, value in body.items():
            if key not in KNOWN_KEYS:
                raise BadRequest(f"Unknown key for a {_json_kind(value)} in [{key}].")
        size = body.get("size", 10)
        if isinstance(size, str) and size.strip().isdigit():
            size = int(size)
        if isinstance(size, bool) or not isinstance(size, int):
            raise BadRequest(f"[size] failed to parse field: {size!r} is not an integer")
        if size < 0:
            raise BadRequest(f"[size] parameter cannot be negative, found [{size}]")
        query = body.get("query", {"match_all": {}})
        if not isinstance(query, dict):
            raise BadRequest("[query] query malformed, no start_object after query name")
        if len(query) != 1:
            raise BadRequest("[query] query malformed: expected exactly one query type")
        ((kind, clause),) = query.items()
        if kind not in QUERY_TYPES:
            raise BadRequest(f"unknown query [{kind}]")
        text, fields = self.clause(kind, clause)
        model = self.model(fields)
        known = [t for t in dict.fromkeys(tokenize(text)) if t in model.vocab_dict]
        scores = model.get_scores(known) if known else [0.0] * len(self.records)
        order = sorted(range(len(self.records)), key=lambda i: (-round(float(scores[i]), 5), i))
        hits = [
            {"_index": "passages", "_id": self.records[i].get("id", str(i)),
             "_score": round(float(scores[i]), 6), "_source": self.records[i]}
            for i in order if scores[i] > 0
        ][:size]  # fmt: skip
        return {
            "took": 1,
            "timed_out": False,
            "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
            "hits": {"total": {"value": len(hits), "relation": "eq"},
                     "max_score": hits[0]["_score"] if hits else None, "hits": hits},
        }  # fmt: skip

    def clause(self, kind: str, clause: Any) -> tuple[str, tuple[str, ...]]:
        if not isinstance(clause, dict):
            raise BadRequest(f"[{kind}] query malformed, no start_object after query name")
        if kind == "multi_match":
            unknown = set(clause) - {"query", "fields", "type", "operator"}
            if unknown:
                raise BadRequest(f"[multi_match] query does not support [{sorted(unknown)[0]}]")
            text, fields = clause.get("query"), clause.get("fields", ["*"])
            if not isinstance(text, str):
                raise BadRequest("[multi_match] requires query value")
            if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
                raise BadRequest("[multi_match] fields must be an array of strings")
            return text, tuple(f for f in fields if f != "*") or ("text",)
        if len(clause) != 1:
            raise BadRequest("[match] query doesn't support multiple fields")
        ((field, value),) = clause.items()
        if isinstance(value, dict):
            value = value.get("query")
        if not isinstance(value, str):
            raise BadRequest("[match] requires query value")
        return value, (field,)

    def error(self, handler: BaseHTTPRequestHandler, kind: str, reason: str) -> None:
        cause = {"type": kind, "reason": reason}
        self.send(handler, 400, {"error": {"root_cause": [cause], **cause}, "status": 400})

    def send(self, handler: BaseHTTPRequestHandler, code: int, data: object) -> None:
        body = json.dumps(data).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


@contextmanager
def running_es(records: Sequence[dict[str, Any]]) -> Iterator[EsService]:
    service = EsService(records)
    service.thread.start()
    try:
        yield service
    finally:
        service.server.shutdown()
        service.server.server_close()
