"""The view's state and its URL form, so a link reproduces the exact view.

URL parameters (all optional; ``st.query_params`` is string-valued):
``q`` query · ``fault`` none|ocr|typo · ``rate`` 0-1 · ``seed`` int · ``fixes`` all|none|a,b
· ``threshold`` 0-100 · ``fuzzyrule`` ratio|es-auto|typos-5-9 (left out when ``ratio``) ·
``k`` top-k · ``ocrmap`` e.g. ``0=o,1=i`` · ``protect`` tokens the OCR fix never rewrites,
e.g. ``sha1,t1d`` · ``expect`` expected document id · ``evidence`` evidence strings separated
by ``;`` · ``retriever`` bm25|http|python (left out for seed) with ``k1``/``b`` (bm25).

What a link never carries: a ``python`` callable or an ``http`` URL. Those run the team's
code or send queries to a host, so only whoever started the dashboard names them
(``ragdash dashboard --retriever …``, :mod:`ragdash.retrieval.options`); a link saying
``retriever=python`` or ``retriever=http`` means *the one the dashboard was started with*,
and opens on the seed scorer, saying why, on a dashboard started without one. A ``url`` or
``callable`` parameter is ignored with a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ragdash.errors import SettingsError
from ragdash.retrieval.spec import DEFAULT_B, DEFAULT_K1, OPERATOR_KINDS, RetrieverSpec
from ragdash.settings import (
    DEFAULT_FUZZY_RULE,
    DEFAULT_OCR_MAP,
    DEFAULT_THRESHOLD,
    FUZZY_RULES,
    Fixes,
    format_ocr_map,
    parse_ocr_map,
    parse_protected,
    split_fix_names,
)

__all__ = [
    "DEFAULT_TOP_K",
    "FAULTS",
    "MAX_TOP_K",
    "ViewState",
    "from_params",
    "retriever_from_params",
    "retriever_params",
    "split_evidence",
]

FAULTS = ("none", "ocr", "typo")
#: What a link without ``k`` means — the same top-k a fresh app opens with (a case's default
#: ``top_k``, the first case's when it leaves it out), so a link and the app agree.
DEFAULT_TOP_K = 1
MAX_TOP_K = 20


@dataclass(frozen=True)
class ViewState:
    """Everything a shared link must restore."""

    q: str = ""
    fault: str = "none"
    rate: float = 0.15
    seed: int = 0
    fixes: Fixes = field(default_factory=Fixes)
    k: int = DEFAULT_TOP_K
    expect: str = ""
    evidence: tuple[str, ...] = ()
    retriever: RetrieverSpec = field(default_factory=RetrieverSpec)

    def to_params(self) -> dict[str, str]:
        """URL parameters, leaving out the ones at their defaults."""
        params = {"q": self.q, "fixes": self.fixes.names}
        if self.fault != "none":
            params.update(fault=self.fault, rate=f"{self.rate:g}", seed=str(self.seed))
        if self.fixes.threshold != DEFAULT_THRESHOLD:
            params["threshold"] = f"{self.fixes.threshold:g}"
        if self.fixes.fuzzy_rule != DEFAULT_FUZZY_RULE:
            params["fuzzyrule"] = self.fixes.fuzzy_rule
        if self.fixes.ocr_map != DEFAULT_OCR_MAP:
            params["ocrmap"] = format_ocr_map(self.fixes.ocr_map).replace(" ", "")
        if self.fixes.protected:
            params["protect"] = ",".join(self.fixes.protected)
        if self.k != DEFAULT_TOP_K:
            params["k"] = str(self.k)
        if self.expect:
            params["expect"] = self.expect
        if self.evidence:
            params["evidence"] = ";".join(self.evidence)
        params.update(retriever_params(self.retriever))
        return params


def split_evidence(text: str) -> tuple[str, ...]:
    """Evidence strings typed as ``30 days; refund`` (``;`` or new lines between them)."""
    return tuple(part.strip() for part in text.replace("\n", ";").split(";") if part.strip())


def _ocr_map_param(text: str, default: tuple, problems: list[str]) -> tuple:
    """The link's OCR map, a bad entry dropped on its own (``0=o,9=xx`` keeps ``0=o``); the
    default map when no entry is good."""
    good: set[tuple[str, str]] = set()
    bad = 0
    for entry in re.split(r"[,;\s]+", text.strip()):
        if not entry:
            continue
        try:
            good.update(parse_ocr_map(entry))
        except SettingsError as exc:
            bad += 1
            problems.append(f"ocrmap: {exc}; that entry is ignored")
    if bad and not good:
        return default
    return tuple(sorted(good))


def from_params(
    params: Mapping[str, str],
    default: ViewState | None = None,
    operator: RetrieverSpec | None = None,
) -> tuple[ViewState, list[str]]:
    """Read a view from URL parameters; bad values fall back to defaults with a message.
    ``operator`` is the retriever the dashboard was started with (the only external one a
    link may select)."""
    view = default or ViewState()
    problems: list[str] = []
    changes: dict[str, object] = {}
    if "q" in params:
        changes["q"] = params["q"]
    fault = params.get("fault", view.fault)
    if fault in FAULTS:
        changes["fault"] = fault
    else:
        problems.append(f"fault={fault!r} is not one of {', '.join(FAULTS)}")

    def number(name: str, low: float, high: float, cast: type) -> None:
        if name not in params:
            return
        try:
            value = cast(params[name])
        except ValueError:
            problems.append(f"{name}={params[name]!r} is not a number")
            return
        if not low <= value <= high:
            problems.append(f"{name}={params[name]!r} is outside {low:g}-{high:g}")
            return
        changes[name] = value

    number("rate", 0.0, 1.0, float)
    number("seed", 0, 10**9, int)
    number("k", 1, MAX_TOP_K, int)
    settings: dict[str, object] = {
        "threshold": view.fixes.threshold,
        "ocr_map": view.fixes.ocr_map,
        "fuzzy_rule": view.fixes.fuzzy_rule,
        "protected": view.fixes.protected,
    }
    if "threshold" in params:
        try:
            settings["threshold"] = Fixes(threshold=float(params["threshold"])).threshold
        except (ValueError, SettingsError):
            problems.append(f"threshold={params['threshold']!r} must be a number 0-100")
    if "fuzzyrule" in params:
        if params["fuzzyrule"] in FUZZY_RULES:
            settings["fuzzy_rule"] = params["fuzzyrule"]
        else:
            problems.append(
                f"fuzzyrule={params['fuzzyrule']!r} is not one of {', '.join(FUZZY_RULES)}"
            )
    if "ocrmap" in params:
        settings["ocr_map"] = _ocr_map_param(params["ocrmap"], view.fixes.ocr_map, problems)
    if "protect" in params:
        try:
            settings["protected"] = parse_protected(params["protect"])
        except SettingsError as exc:
            problems.append(f"protect: {exc}")
    names, unknown = split_fix_names(params.get("fixes", view.fixes.names))
    if unknown:  # drop only the bad names: fixes=fuzzy,bogus keeps fuzzy on
        problems.append(f"fixes: unknown fix {', '.join(map(repr, unknown))} ignored")
    changes["fixes"] = Fixes(**dict.fromkeys(names, True), **settings)  # type: ignore[arg-type]
    if "expect" in params:
        changes["expect"] = params["expect"].strip()
    if "evidence" in params:
        changes["evidence"] = split_evidence(params["evidence"])
    changes["retriever"], more = retriever_from_params(params, view.retriever, operator)
    problems.extend(more)
    return replace(view, **changes), problems  # type: ignore[arg-type]


def retriever_params(spec: RetrieverSpec) -> dict[str, str]:
    """The link form of a retriever: its kind, and bm25's settings (see the module
    docstring: never a callable or a URL)."""
    if spec.kind == "seed":
        return {}
    params = {"retriever": spec.kind}
    if spec.kind == "bm25":
        if spec.k1 != DEFAULT_K1:
            params["k1"] = f"{spec.k1:g}"
        if spec.b != DEFAULT_B:
            params["b"] = f"{spec.b:g}"
    return params


def retriever_from_params(
    params: Mapping[str, str], default: RetrieverSpec, operator: RetrieverSpec | None = None
) -> tuple[RetrieverSpec, list[str]]:
    """The retriever a link names (``default`` when it names none); what cannot be used is
    reported and the seed scorer used instead. An external kind is ``operator`` — the
    retriever the dashboard was started with — or nothing."""
    problems = [
        f"{name}: a link never names a {what}; whoever starts the dashboard does "
        f"(ragdash dashboard --retriever {kind} --{name} …)"
        for name, what, kind in (("url", "service URL", "http"),
                                 ("callable", "Python function", "python"))
        if name in params
    ]  # fmt: skip
    if "retriever" not in params:
        return default, problems
    kind = params["retriever"]
    if kind in OPERATOR_KINDS:
        if operator is not None and operator.kind == kind:
            return operator, problems
        what = {"http": "an HTTP service", "python": "a Python function",
                "langchain": "a LangChain retriever", "dense": "a dense (embedding) model",
                "hybrid": "a hybrid (bm25 + dense) retriever"}[kind]  # fmt: skip
        return RetrieverSpec(), [*problems, (
            f"retriever={kind}: this dashboard was started without {what}, so the builtin "
            "scorer is used (only whoever starts it names one)"
        )]  # fmt: skip
    settings: dict[str, object] = {"kind": kind}
    if kind == "bm25":
        for name in ("k1", "b"):
            if name in params:
                try:
                    settings[name] = float(params[name])
                except ValueError:
                    return RetrieverSpec("bm25"), [f"{name}={params[name]!r} is not a number"]
    try:
        return RetrieverSpec(**settings), problems  # type: ignore[arg-type]
    except SettingsError as exc:
        return RetrieverSpec(), [*problems, f"retriever: {exc}"]
