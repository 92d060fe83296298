"""A small real BM25 search service for the tests: what a team would run.

It indexes passages exported by ``ragdash passages`` (JSON records) with the ``bm25s``
library and answers ragdash retriever schema v1 on ``POST /search`` over HTTP on
127.0.0.1 (a free port). Other paths misbehave on purpose, as real services do:

``/slow`` sleeps before answering · ``/junk`` answers HTML · ``/object`` answers a JSON
object without ``results`` · ``/no-text`` hits without ``text`` · ``/unknown`` answers ids
the corpus does not have · ``/flaky`` answers 500 on every other request · ``/forbidden``
answers 403 · ``/es`` answers in Elasticsearch's shape · ``/dies`` stops the whole server
after ``die_after`` answers (later requests find nothing listening).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import bm25s
from quiet_server import QuietServer

from ragdash.text import tokenize


def indexed_text(record: dict[str, Any]) -> str:
    """What the service indexes: the passage text and the OCR readings `ragdash passages`
    lists for damaged words no document spells (as a team would index a keywords field)."""
    readings = record.get("metadata", {}).get("ocr_readings", [])
    return " ".join([record["text"], *readings])


class Bm25Service:
    def __init__(self, records: Sequence[dict[str, Any]], *, slow: float = 1.0, die_after: int = 3):
        self.records = list(records)
        self.model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        self.model.index([tokenize(indexed_text(r)) for r in self.records], show_progress=False)
        self.slow = slow
        self.die_after = die_after
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with service.lock:
                    service.requests.append((self.path, body, dict(self.headers)))
                    count = sum(p == self.path for p, _, _ in service.requests)
                service.answer(self, body, count)

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def search(self, query: str, top_k: int) -> list[dict[str, Any]]:
        known = [t for t in dict.fromkeys(tokenize(query)) if t in self.model.vocab_dict]
        scores = self.model.get_scores(known) if known else [0.0] * len(self.records)
        order = sorted(range(len(self.records)), key=lambda i: (-round(float(scores[i]), 5), i))
        return [
            {
                "id": self.records[i]["doc_id"],
                "text": self.records[i]["text"],
                "score": round(float(scores[i]), 6),
                "page": self.records[i]["page_start"],
            }
            for i in order[:top_k]
        ]

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], count: int) -> None:
        path = handler.path
        hits = self.search(body["query"], body["top_k"])
        if path == "/slow":
            time.sleep(self.slow)
        if path == "/junk":
            return self.send(handler, 200, b"<html>Bad gateway</html>", "text/html")
        if path == "/object":
            return self.json(handler, {"documents": hits})
        if path == "/no-text":
            return self.json(handler, [{"id": h["id"], "score": h["score"]} for h in hits])
        if path == "/unknown":
            return self.json(handler, [{**h, "id": "chunk-" + h["id"]} for h in hits])
        if path == "/flaky" and count % 2 == 1:
            return self.send(handler, 500, b"database is warming up", "text/plain")
        if path == "/forbidden":
            return self.send(handler, 403, b"no token", "text/plain")
        if path == "/es":
            es = [{"_id": h["id"], "_score": h["score"], "_source": {"text": h["text"]}}
                  for h in hits]  # fmt: skip
            return self.json(handler, {"took": 1, "hits": {"hits": es}})
        if path == "/dies" and count >= self.die_after:
            self.stop()  # nothing listens any more; this request's answer still goes out
            return self.json(handler, hits)
        return self.json(handler, {"results": hits, "schema_version": 1})

    def json(self, handler: BaseHTTPRequestHandler, data: object) -> None:
        self.send(handler, 200, json.dumps(data).encode(), "application/json")

    def send(self, handler: BaseHTTPRequestHandler, code: int, body: bytes, kind: str) -> None:
        handler.send_response(code)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def running(records: Sequence[dict[str, Any]], **settings: Any) -> Iterator[Bm25Service]:
    service = Bm25Service(records, **settings)
    service.thread.start()
    try:
        yield service
    finally:
        if service.thread.is_alive():
            service.stop()
