"""The ``http`` retriever's transport: POST a query to a team's search service, read hits.

The request and answer follow ragdash retriever schema v1 (see :mod:`ragdash.retrieval.hits`)::

    POST http://127.0.0.1:8000/search
    Content-Type: application/json
    X-Ragdash-Schema: 1

    {"query": "return policy days", "top_k": 5}

Other shapes send what their service expects (:func:`request_body`): ``elasticsearch`` /
``opensearch`` a real ``_search`` body, ``{"query": {"multi_match": {"query": Q, "fields":
[TEXT_FIELD]}}, "size": K}``; ``chroma`` ``{"query_embeddings": [VECTOR], "n_results": K,
"include": [...]}`` — a Chroma server (API v2, ``/api/v2/tenants/T/databases/D/collections/
ID/query``) does not embed query texts, so ragdash embeds the query with the embedder the
operator names (``--model`` / ``--embeddings-url``, as ``dense`` does; the default
all-MiniLM-L6-v2 is also Chroma's default embedding function); and a ``body_template`` JSON
file replaces the body, its ``"{query}"`` / ``"{k}"`` placeholders filled in on the parsed
JSON (never by pasting text into JSON, so a query holding quotes or braces cannot change the
body's structure). A 400 or 422 answer names the body as the likely cause, and the fields
the service said it wanted (:func:`wanted_fields`: field names only, never its text).

The service is untrusted: it may be slow, broken, or hostile. Why each rule:

* **timeout** is a *total* deadline per attempt — connecting, TLS, sending and every read
  of the answer together (:class:`_Deadline`): a per-read timeout lets a service that sends
  one byte a second hold a case for minutes;
* **retries** (extra attempts after a refused connection, a timeout or a 5xx answer, with a
  short pause): a flaky service should cost one slow case, not hang a whole run;
* an answer is at most :data:`MAX_ANSWER_BYTES` (refused from its Content-Length before it
  is read, or when reading passes the cap), nested at most :data:`MAX_DEPTH` deep (checked
  before it is parsed) and holds no integer longer than :data:`MAX_DIGITS` digits (Python
  refuses to convert 4,300 or more, with a ``ValueError``);
* redirects are followed (at most :data:`MAX_REDIRECTS`) only within the same scheme, host
  and port: a service must not send ragdash's queries, or its token, somewhere else;
* an error answer shows its **status only** (``answered HTTP 403 Forbidden``, the standard
  reason): an error page may hold a secret (a stack trace, a connection string), so no body
  — nor a status line or reason the service wrote — is ever shown;
* a **4xx** answer or junk is never retried — asking again gets the same answer;
* every failure raises :class:`ragdash.errors.RetrieverError` naming the URL (password and
  query string hidden) and what happened, e.g. ``http://127.0.0.1:8000/search: timed out
  after 2 s (2 attempts)``, so a run reports it for that case and goes on;
* **nothing is cached** here: every call asks the service (a re-indexed service must be seen
  at once); callers that cache (the dashboard) never cache a failure;
* a token comes from the environment variable named by ``auth_env`` and is sent as the
  ``Authorization`` header; it is never part of the spec, a label or a link;
* ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``NO_PROXY`` from the environment are honoured (an
  ``http://`` proxy); loopback addresses never go through a proxy.
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import os
import re
import select
import socket
import ssl
import time
import urllib.request
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

import numpy as np

from ragdash.errors import RetrieverError, RetrieverUnreachable
from ragdash.retrieval.hits import SCHEMA_VERSION, Hit, parse_hits
from ragdash.retrieval.spec import SEARCH_BODY_SHAPES, RetrieverSpec, redact_url

__all__ = ["MAX_ANSWER_BYTES", "MAX_DEPTH", "MAX_DIGITS", "MAX_REDIRECTS", "MAX_TEMPLATE_BYTES",
           "HttpBackend", "fill_template", "json_depth", "load_template",
           "needs_embedder", "request_body", "wanted_fields"]  # fmt: skip

#: A bigger answer is refused (a service sending a whole index by mistake).
MAX_ANSWER_BYTES = 20 * 1024 * 1024
#: Deeper nesting is refused before parsing (an Elasticsearch answer is about 5 deep).
MAX_DEPTH = 64
#: A longer integer is refused: no score, page or id needs it, and Python refuses to convert
#: 4,300 digits or more.
MAX_DIGITS = 30
#: Same-origin redirects followed per attempt.
MAX_REDIRECTS = 3
#: Pause before retry n: RETRY_PAUSE * n seconds.
RETRY_PAUSE = 0.2
#: A bigger body template file is refused (a request body is a few hundred bytes).
MAX_TEMPLATE_BYTES = 64 * 1024
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_CHUNK = 64 * 1024
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """How deeply ``text`` (JSON) nests arrays and objects, counted without parsing it (a
    parser recurses, so deep input must be refused first)::

        >>> json_depth('{"a": [1, {"b": "[[[", "c": "\\\\"}]}')
        3

    Escaped backslashes and quotes are dropped, then every other ``"`` opens a string: what
    lies between is text, whatever brackets it holds (string operations, no Python loop).
    """
    bare = text.replace("\\\\", "").replace('\\"', "")
    brackets = _NOT_BRACKET.sub("", "".join(bare.split('"')[::2]))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps, dtype=np.int64).max())


class _Deadline:
    """The end of one attempt; :meth:`left` raises TimeoutError once it has passed."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        return remaining


class _DeadlineReader(io.RawIOBase):
    """A socket's bytes, each read waiting only for what is left of the deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.left())
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """What http.client sees as its socket: sends and reads bounded by one deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self.raw = sock
        self._deadline = deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self.raw, self._deadline))

    def sendall(self, data: bytes) -> None:
        self.raw.settimeout(self._deadline.left())  # since 3.5: the total for all of data
        self.raw.sendall(data)

    def close(self) -> None:
        """Nothing: http.client closes its socket while the answer is still being read
        (a real socket counts its open files); :func:`_connection`'s caller closes it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def _connection(
    parts: SplitResult, deadline: _Deadline, proxy: SplitResult | None, opened: list
) -> http.client.HTTPConnection:
    """A connection to ``parts``' host (through ``proxy`` when given) whose every step —
    connect, proxy tunnel, TLS handshake, send, read — ends by ``deadline``; the sockets it
    opens are added to ``opened``, for the caller to close."""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    # both hosts were checked when the spec and the proxy were read
    target = (proxy.hostname or "", proxy.port or 80) if proxy else (parts.hostname or "", port)

    def create(address: tuple, timeout: Any = None, source: Any = None) -> Any:
        sock = socket.create_connection(address, deadline.left(), source)
        opened.append(sock)
        return _DeadlineSocket(sock, deadline)

    if parts.scheme == "https":
        context = ssl.create_default_context()

        class Tls(http.client.HTTPSConnection):
            def connect(self) -> None:
                http.client.HTTPConnection.connect(self)  # TCP, and the proxy's tunnel
                raw = cast(_DeadlineSocket, self.sock).raw  # made by create() below
                tls = context.wrap_socket(raw, server_hostname=parts.hostname,
                                          do_handshake_on_connect=False)  # fmt: skip
                opened.append(tls)
                _handshake(tls, deadline)
                self.sock = _DeadlineSocket(tls, deadline)

        conn: http.client.HTTPConnection = Tls(*target, context=context)
    else:
        conn = http.client.HTTPConnection(*target)
    conn._create_connection = create  # type: ignore[attr-defined]
    if proxy and parts.scheme == "https":
        conn.set_tunnel(parts.hostname or "", port, headers=_proxy_headers(proxy))
    return conn


def _handshake(tls: ssl.SSLSocket, deadline: _Deadline) -> None:
    """The TLS handshake, bounded by ``deadline`` in all (not per read)."""
    tls.setblocking(False)
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            ready = select.select([tls], [], [], deadline.left())[0]
        except ssl.SSLWantWriteError:
            ready = select.select([], [tls], [], deadline.left())[1]
        if not ready:
            raise TimeoutError("TLS handshake")
    tls.setblocking(True)


def _proxy(parts: SplitResult) -> SplitResult | None:
    """The environment's proxy for ``parts`` (None for loopback, ``NO_PROXY`` hosts, or
    none set)."""
    host = parts.hostname or ""
    if host in _LOOPBACK or urllib.request.proxy_bypass(host):
        return None
    found = urllib.request.getproxies().get(parts.scheme)
    if not found:
        return None
    proxy = urlsplit(found if "://" in found else "http://" + found)
    if proxy.scheme != "http" or not proxy.hostname:
        raise RetrieverError(
            f"{redact_url(parts.geturl())}: the {parts.scheme} proxy from the environment "
            "must be an http:// URL"
        )
    return proxy


def _proxy_headers(proxy: SplitResult) -> dict[str, str]:
    if not proxy.username:
        return {}
    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return {"Proxy-Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}


def _status(code: int) -> str:
    """``HTTP 403 Forbidden``: the standard reason, never the one the service wrote."""
    try:
        return f"HTTP {code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def _origin(parts: SplitResult) -> tuple[str, str, int]:
    return (parts.scheme, (parts.hostname or "").lower(),
            parts.port or (443 if parts.scheme == "https" else 80))  # fmt: skip


def _shown_origin(location: str) -> str:
    """``ftp://files.example``: where a redirect points, without path, query or password."""
    try:
        parts = urlsplit(location)
        port = f":{parts.port}" if parts.port else ""
        text = f"{parts.scheme}://{parts.hostname or ''}{port}" if parts.scheme else "?"
    except ValueError:
        text = "?"
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text[:80] + ("…" if len(text) > 80 else "")


def load_template(path: str) -> Any:
    """The parsed JSON of a body template file. Raises :class:`RetrieverError` naming the
    file and the problem (missing, too big, not JSON, no ``{query}`` placeholder)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TEMPLATE_BYTES + 1)
    except OSError as exc:
        raise RetrieverError(f"body template {path}: cannot be read ({exc.strerror})") from None
    if len(raw) > MAX_TEMPLATE_BYTES:
        raise RetrieverError(f"body template {path}: over {MAX_TEMPLATE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
        if json_depth(text) > MAX_DEPTH:
            raise ValueError(f"nested over {MAX_DEPTH} deep")
        template = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise RetrieverError(f"body template {path}: not JSON ({exc})") from None
    if "{query}" not in json.dumps(template, ensure_ascii=False):
        raise RetrieverError(f'body template {path}: has no "{{query}}" placeholder')
    return template


def fill_template(template: Any, query: str, k: int) -> Any:
    """``template`` with each string ``"{k}"`` replaced by the number ``k``, each string
    ``"{query}"`` by the query, and ``{query}``/``{k}`` inside longer strings by their text —
    on the parsed structure, so the query is JSON-escaped when the body is written::

        >>> fill_template({"q": {"match": {"text": "{query}"}}, "size": "{k}"}, 'a" b', 3)
        {'q': {'match': {'text': 'a" b'}}, 'size': 3}

    Filled in one pass: placeholders in the query itself stay as typed (two ``replace``
    calls once turned ``acme-{query}`` holding the query ``x {k}`` into ``acme-x 3``)::

        >>> fill_template("acme-{query}", "x {k}", 3)
        'acme-x {k}'
    """
    if isinstance(template, dict):
        return {key: fill_template(value, query, k) for key, value in template.items()}
    if isinstance(template, list):
        return [fill_template(value, query, k) for value in template]
    if isinstance(template, str):
        if template == "{k}":
            return k
        if template == "{query}":
            return query
        values = {"{query}": query, "{k}": str(k)}
        return _PLACEHOLDER.sub(lambda m: values[m.group(0)], template)
    return template


_PLACEHOLDER = re.compile(r"\{query\}|\{k\}")


#: What a Chroma query asks for besides the ids (its server leaves out nothing by default,
#: but an older one left out documents unless asked).
CHROMA_INCLUDE = ("documents", "metadatas", "distances")


def request_body(
    spec: RetrieverSpec, query: str, k: int, template: Any = None,
    embedding: list[float] | None = None,
) -> Any:  # fmt: skip
    """What is POSTed for ``query``: the template filled in, else the shape's own body
    (``chroma``: the query's ``embedding``, which the caller computed)::

        >>> request_body(RetrieverSpec("http", url="http://h/q", shape="chroma"), "q", 3,
        ...              embedding=[0.6, 0.8])
        {'query_embeddings': [[0.6, 0.8]], 'n_results': 3, 'include': ['documents', \
'metadatas', 'distances']}
    """
    if template is not None:
        return fill_template(template, query, k)
    if spec.shape in SEARCH_BODY_SHAPES:
        return {"query": {"multi_match": {"query": query, "fields": [spec.search_field]}},
                "size": k}  # fmt: skip
    if spec.shape == "chroma":
        if embedding is None:
            raise ValueError("a chroma body needs the query's embedding")
        return {"query_embeddings": [list(embedding)], "n_results": k,
                "include": list(CHROMA_INCLUDE)}  # fmt: skip
    return {"query": query, "top_k": k}


#: Bytes of a refused request's answer read to find the fields the service wanted.
MAX_REFUSAL_BYTES = 4096
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_SERDE = re.compile(r"missing field `([A-Za-z_][A-Za-z0-9_]{0,63})`")
_DIMENSION = re.compile(r"dimension of (\d{1,6}), got (\d{1,6})")


def wanted_fields(raw: bytes) -> tuple[tuple[str, ...], tuple[int, int] | None]:
    """What a 400/422 answer says the request lacked: field names (a Rust/serde ``missing
    field `x``` as a Chroma server writes it, or a FastAPI/pydantic ``detail`` entry of type
    ``missing``) and, from a Chroma dimension error, (dimensions wanted, dimensions sent).
    Only names and numbers are taken: an error answer may hold secrets, so its text is
    never shown::

        >>> wanted_fields(b'{"error": "ChromaError", "message": "Failed to deserialize the '
        ...               b'JSON body: missing field `query_embeddings` at line 1 column 38"}')
        (('query_embeddings',), None)
        >>> wanted_fields(b'{"detail": [{"type": "missing", "loc": ["body", "top_k"]}]}')
        (('top_k',), None)
    """
    try:
        text = raw[:MAX_REFUSAL_BYTES].decode("utf-8")
        answer = json.loads(text) if json_depth(text) <= MAX_DEPTH else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return (), None
    names: list[str] = []
    dimension = None
    strings = [v for v in answer.values() if isinstance(v, str)] if isinstance(answer, dict) else []
    for value in strings:
        names += _SERDE.findall(value)
        found = _DIMENSION.search(value)
        if found:
            dimension = (int(found.group(1)), int(found.group(2)))
    detail = answer.get("detail") if isinstance(answer, dict) else None
    for entry in detail if isinstance(detail, list) else ():
        if isinstance(entry, dict) and str(entry.get("type", "")).endswith("missing"):
            where = entry.get("loc")
            if isinstance(where, list) and where and isinstance(where[-1], str):
                names.append(where[-1])
    return tuple(n for n in dict.fromkeys(names) if _NAME.match(n))[:3], dimension


def needs_embedder(spec: RetrieverSpec) -> bool:
    """True when ragdash embeds the query itself: ``http`` with ``--shape chroma`` and no
    body template."""
    return spec.kind == "http" and spec.shape == "chroma" and not spec.body_template


class _Retry(Exception):  # noqa: N818 - not an error ragdash raises: "try again, because…"
    """A failure worth another attempt (timeout, refused or dropped connection, 5xx)."""
class HttpBackend:
    """Calls one service; :meth:`fetch` is the whole contract (query, k → hits)."""

    def __init__(self, spec: RetrieverSpec, embedder: Any = None) -> None:
        """``embedder`` (``encode(texts)`` → rows, and a ``label``) embeds the query of a
        ``chroma`` body: a Chroma server does not embed query texts. ``make_retriever``
        loads it from the spec's ``--model`` / ``--embeddings-url`` when the retriever is
        made, so a missing model is reported before any case runs."""
        if spec.kind != "http":
            raise ValueError(f"HttpBackend needs an http spec, not {spec.kind!r}")
        self.spec = spec
        self.name = spec.safe_url
        self.template = load_template(spec.body_template) if spec.body_template else None
        if needs_embedder(spec) and embedder is None:
            raise ValueError("an http chroma backend needs the embedder of its queries")
        self.embedder = embedder if needs_embedder(spec) else None
        self._vectors: dict[str, list[float]] = {}

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
        body = request_body(self.spec, query, k, self.template, self._embedding(query))
        answer = self._post(json.dumps(body).encode("utf-8"))
        return parse_hits(answer, self.spec.response_shape, self.name, k)

    def _embedding(self, query: str) -> list[float] | None:
        """The query's embedding for a ``chroma`` body (None for other shapes), once per
        query text."""
        if self.embedder is None:
            return None
        if query not in self._vectors:
            if len(self._vectors) >= 4096:
                self._vectors.clear()
            self._vectors[query] = [float(x) for x in self.embedder.encode([query])[0]]
        return self._vectors[query]

    def _refused(self, code: int, raw: bytes) -> RetrieverError:
        """A 400/422 answer: the body is the likely cause; the fields the service wanted
        (:func:`wanted_fields`) are named, and for ``chroma`` what ragdash embedded with."""
        names, dimension = wanted_fields(raw)
        wants = f"; it wants {', '.join(f'`{n}`' for n in names)}" if names else ""
        text = (f"{self.name}: the service refused the request body ({_status(code)}{wants}): "
                "check --shape / --body-template")  # fmt: skip
        if self.embedder is not None:
            sent = dimension[1] if dimension else len(next(iter(self._vectors.values()), []))
            text += (
                f" (ragdash sent query_embeddings of {sent} numbers from "
                f"{self.embedder.label}"
                + (f"; the collection holds {dimension[0]}-number embeddings" if dimension
                   else "")
                + ": query with the embedding model the collection was built with, "
                "--model / --embeddings-url)"
            )  # fmt: skip
        return RetrieverError(text)

    def _post(self, body: bytes) -> Any:
        attempts = 1 + self.spec.retries
        failure = ""
        headers = self.headers()
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                time.sleep(RETRY_PAUSE * (attempt - 1))
            try:
                raw, kind = self._attempt(body, headers, _Deadline(self.spec.timeout))
            except _Retry as retry:
                failure = str(retry)
                continue
            return self._decode(raw, kind)
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        if failure.startswith("answered HTTP 5"):  # it answers: not a connection failure
            raise RetrieverError(f"{self.name}: {failure} ({tries})")
        raise RetrieverUnreachable(f"{self.name}: {failure} ({tries})")

    def _attempt(self, body: bytes, headers: dict[str, str], deadline: _Deadline):
        """One attempt, redirects included, within ``deadline``: the answer's bytes and
        content type. Raises :class:`_Retry` or :class:`RetrieverError`."""
        url = self.spec.url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                answer = self._exchange(url, body, headers, deadline)
            except TimeoutError:
                raise _Retry(f"timed out after {self.spec.timeout:g} s") from None
            except ConnectionRefusedError:
                raise _Retry("connection refused (is the service running?)") from None
            except socket.gaierror as exc:
                raise _Retry(f"cannot be reached ({exc.strerror or 'unknown host'})") from None
            except ssl.SSLError as exc:
                raise _Retry(f"cannot be reached (TLS: {exc.reason or 'failed'})") from None
            except http.client.HTTPException as exc:
                # its text may quote what the service sent (a status line): the type only
                raise _Retry(f"dropped the connection ({type(exc).__name__})") from None
            except OSError as exc:
                if deadline.end <= time.monotonic():
                    raise _Retry(f"timed out after {self.spec.timeout:g} s") from None
                raise _Retry(
                    f"dropped the connection ({type(exc).__name__}: "
                    f"{exc.strerror or 'no detail'})"
                ) from None
            if isinstance(answer, str):  # a same-origin redirect: ask there
                url = answer
                continue
            return answer
        raise RetrieverError(f"{self.name}: more than {MAX_REDIRECTS} redirects")

    def _exchange(self, url: str, body: bytes, headers: dict[str, str], deadline: _Deadline):
        """POST ``body`` to ``url``: (bytes, content type), or the URL a same-origin
        redirect names."""
        parts = urlsplit(url)
        proxy = _proxy(parts)
        opened: list[socket.socket] = []
        conn = _connection(parts, deadline, proxy, opened)
        target = url if proxy and parts.scheme == "http" else (parts.path or "/") + (
            f"?{parts.query}" if parts.query else "")  # fmt: skip
        sent = dict(headers)
        if proxy and parts.scheme == "http":
            sent.update(_proxy_headers(proxy))
        try:
            conn.request("POST", target, body=body, headers=sent)
            response = conn.getresponse()
            code = response.status
            if 300 <= code < 400:
                return self._redirect(url, code, response.getheader("Location"))
            if code >= 400 or code < 200:
                failure = f"answered {_status(code)}"
                if code >= 500:
                    raise _Retry(failure)
                if code in (400, 422):
                    raise self._refused(code, response.read(MAX_REFUSAL_BYTES))
                raise RetrieverError(f"{self.name}: {failure}")
            kind = response.headers.get_content_type()
            length = response.getheader("Content-Length", "")
            if length.isdigit() and len(length) < 20 and int(length) > MAX_ANSWER_BYTES:
                self._too_big()
            raw = bytearray()
            while chunk := response.read(min(_CHUNK, MAX_ANSWER_BYTES + 1 - len(raw))):
                raw += chunk
                if len(raw) > MAX_ANSWER_BYTES:
                    self._too_big()
            return bytes(raw), kind
        finally:
            conn.close()
            for sock in reversed(opened):
                sock.close()

    def _redirect(self, url: str, code: int, location: str | None) -> str:
        if not location:
            raise RetrieverError(f"{self.name}: answered {_status(code)} without a Location")
        try:
            target = urljoin(url, location.strip())
            same = _origin(urlsplit(target)) == _origin(urlsplit(url))
        except ValueError:
            same, target = False, location
        if not same:
            raise RetrieverError(
                f"{self.name}: answered {_status(code)}, a redirect to "
                f"{_shown_origin(target)} — only redirects within {_shown_origin(url)} are "
                "followed (give the service's own URL)"
            )
        return target

    def _too_big(self) -> None:
        raise RetrieverError(
            f"{self.name}: the answer is larger than {MAX_ANSWER_BYTES // 2**20} MB"
        )

    def _decode(self, raw: bytes, content_type: str) -> Any:
        not_json = RetrieverError(
            f"{self.name}: the answer is not JSON ({content_type}, {len(raw):,} bytes)"
        )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise not_json from None
        if json_depth(text) > MAX_DEPTH:
            raise RetrieverError(f"{self.name}: the answer is nested more than {MAX_DEPTH} "
                                 "levels deep")  # fmt: skip

        def whole(digits: str) -> int:
            if len(digits.lstrip("-")) > MAX_DIGITS:
                raise RetrieverError(
                    f"{self.name}: the answer holds a number of {len(digits):,} digits (at "
                    f"most {MAX_DIGITS} are read)"
                )
            return int(digits)

        try:
            return json.loads(text, parse_int=whole)
        except (ValueError, RecursionError):
            raise not_json from None
