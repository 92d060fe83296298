"""A search service on 127.0.0.1 that answers the way a broken or hostile one does, one
behaviour per path (a real HTTP server on a free port, for ragdash's http retriever):

``/drip`` a good answer sent one byte every ``drip`` seconds (headers included) ·
``/huge-number`` a score of 5,000 digits · ``/deep`` JSON nested 100,000 deep ·
``/oversize`` 21 MB with no Content-Length · ``/claims-huge`` a Content-Length of 1 TB ·
``/redirect-other`` 302 to ``other`` (another port: another origin) · ``/redirect-ftp`` 302 to
ftp:// · ``/redirect-same`` 307 to ``/search`` on itself · ``/secret`` 500 whose reason phrase
and body hold ``db_password=`` · ``/search`` a good answer (``{"results": [...]}``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler

from quiet_server import QuietServer

__all__ = ["SECRET", "HostileService", "hostile_service"]

SECRET = "db_password=hunter2"
GOOD = [{"id": "inventory", "text": "Warehouse sync runs nightly.", "score": 2.5, "page": 1}]


class HostileService:
    def __init__(self, drip: float = 0.2, other: str = "") -> None:
        self.drip = drip
        self.other = other
        self.requests: list[str] = []
        self.stop = threading.Event()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                service.requests.append(self.path)
                with suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                    service.answer(self)

            def do_GET(self) -> None:  # noqa: N802 - a POST redirected as a GET lands here
                service.requests.append(self.path)
                service.send(self, 200, json.dumps({"results": GOOD}).encode())

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path
        good = json.dumps({"results": GOOD}).encode()
        if path == "/drip":
            head = (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n" % len(good))  # fmt: skip
            for byte in head + good:
                if self.stop.wait(self.drip):
                    return
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
            return None
        if path == "/huge-number":
            hit = '{"id": "inventory", "text": "t", "score": ' + "7" * 5000 + "}"
            return self.send(h, 200, ('{"results": [' + hit + "]}").encode())
        if path == "/deep":
            return self.send(h, 200, b"[" * 100_000 + b"]" * 100_000)
        if path == "/oversize":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.end_headers()
            block = b" " * 2**20
            for _ in range(21):
                h.wfile.write(block)
            return None
        if path == "/claims-huge":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(10**12))
            h.end_headers()
            h.wfile.write(good)
            return None
        if path == "/redirect-other":
            return self.send(h, 302, b"", location=self.other)
        if path == "/redirect-ftp":
            return self.send(h, 302, b"", location="ftp://files.example/pub/search")
        if path == "/redirect-same":
            return self.send(h, 307, b"", location="/search")
        if path == "/secret":
            h.send_response(500, f"Internal error {SECRET}")
            body = f"Traceback ... connect({SECRET}@db.internal)".encode()
            h.send_header("Content-Type", "text/plain")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return None
        return self.send(h, 200, good)

    def send(self, h: BaseHTTPRequestHandler, code: int, body: bytes, location: str = "") -> None:
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        if location:
            h.send_header("Location", location)
        h.end_headers()
        h.wfile.write(body)


@contextmanager
def hostile_service(**settings: object) -> Iterator[HostileService]:
    service = HostileService(**settings)  # type: ignore[arg-type]
    service.thread.start()
    try:
        yield service
    finally:
        service.stop.set()
        service.server.shutdown()
        service.server.server_close()
