"""What moved between two saved runs, why where it can be known, and the CI gate over it.

A diff answers the triage question "is it right now, and what else moved?": the cases that
went pass→fail and fail→pass, rank changes of the expected document, the metric deltas —
and per changed case the reason in words, from what the two runs recorded:

* **a fix changed** — which fixes were turned on or off (or a setting such as the OCR map),
  and, when the newer run recorded its ablation, which of them alone repairs the case;
* **the corpus changed** — which documents were added, removed or changed (per-document
  fingerprints), naming the case's expected and first-ranked documents when they are among
  them;
* **the retriever changed** — its label before and after;
* **the case changed** — its query, expected document, evidence or top-k.

On the bundled testbed, no fixes then all fixes::

    >>> d = diff_runs(no_fixes, all_fixes)                        # doctest: +SKIP
    >>> [(c.case, c.change) for c in d.changes]                   # doctest: +SKIP
    [('stale-version', 'fail→pass'), ('ocr-noise', 'fail→pass'), ...]
    >>> d.changes[0].reasons[0]                                   # doctest: +SKIP
    'fixes turned on: recency, status, …; recency alone repairs it (ablation)'

:func:`gate` is ``ragdash check --baseline … --fail-on regression``: the list of reasons to
fail a pipeline (empty: pass).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragdash.checks.snapshot import CaseResult, SavedRun
from ragdash.errors import SettingsError
from ragdash.settings import FIX_NAMES

__all__ = [
    "FAIL_ON",
    "METRIC_KEYS",
    "CaseChange",
    "CorpusChange",
    "MetricDelta",
    "RunDiff",
    "diff_record",
    "diff_runs",
    "diff_text",
    "gate",
    "parse_min_metric",
]

FAIL_ON = ("failure", "regression", "nothing")
#: The metrics of a run (``Metrics.to_dict`` keys) and how they are shown.
METRIC_KEYS = {
    "hit_at_k": "hit@k",
    "recall_at_k_docs": "recall@k docs",
    "recall_at_k_evidence": "recall@k evidence",
    "mrr": "MRR",
    "ndcg_at_k": "nDCG@k",
}
_ALIASES = {
    "hit": "hit_at_k", "hit@k": "hit_at_k", "recall": "recall_at_k_docs",
    "recall@k": "recall_at_k_docs", "recall_docs": "recall_at_k_docs",
    "recall@k docs": "recall_at_k_docs", "recall_evidence": "recall_at_k_evidence",
    "recall@k evidence": "recall_at_k_evidence", "evidence": "recall_at_k_evidence",
    "ndcg": "ndcg_at_k", "ndcg@k": "ndcg_at_k",
}  # fmt: skip

FIXED, BROKE = "fail→pass", "pass→fail"


@dataclass(frozen=True)
class CorpusChange:
    """Documents added, removed and changed between the two runs' corpora."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    reordered: bool = False  # the same documents in another list order (ties can move)

    @property
    def any(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.reordered)

    def phrase(self) -> str:
        parts = [f"{what}: {', '.join(ids)}" for what, ids in
                 (("added", self.added), ("removed", self.removed), ("changed", self.changed))
                 if ids]  # fmt: skip
        if self.reordered:
            parts.append("list order changed")
        return "; ".join(parts) or "no document changed"

    def touching(self, doc_id: str) -> str:
        """How ``doc_id`` changed ("" when it did not)."""
        for what, ids in (("added", self.added), ("removed", self.removed),
                          ("changed", self.changed)):  # fmt: skip
            if doc_id in ids:
                return what
        return ""


@dataclass(frozen=True)
class CaseChange:
    """One case whose verdict, diagnosis or expected-document rank moved (or that exists
    in one run only: ``change`` is ``new case`` / ``case removed``)."""

    case: str
    change: str  # fail→pass, pass→fail, diagnosis, rank, new case, case removed
    before: str  # "fail (ranking), rank 2"
    after: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class MetricDelta:
    metric: str  # Metrics.to_dict key
    before: float | None
    after: float | None

    @property
    def name(self) -> str:
        return METRIC_KEYS.get(self.metric, self.metric)

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


@dataclass(frozen=True)
class RunDiff:
    """Run ``a`` (before) against run ``b`` (after)."""

    a: SavedRun
    b: SavedRun
    changes: tuple[CaseChange, ...]
    metrics: tuple[MetricDelta, ...]
    corpus: CorpusChange
    turned_on: tuple[str, ...]
    turned_off: tuple[str, ...]
    settings_changed: bool  # the labels differ beyond which fixes are on
    retriever_changed: bool

    @property
    def fixed(self) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changes if c.change == FIXED)

    @property
    def broke(self) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changes if c.change == BROKE)

    def regressions(self, margin: float = 0.0) -> list[str]:
        """Cases that passed before and fail now, and metrics that dropped by more than
        ``margin``, each in words."""
        found = [f"case {c.case!r} passed in {self.a.ref} and fails now: {c.after}"
                 for c in self.broke]  # fmt: skip
        if self.a.metric_k != self.b.metric_k:
            found.append(
                f"the metrics cannot be compared: k={self.a.metric_k} in {self.a.ref}, "
                f"k={self.b.metric_k} now (give --metrics-k {self.a.metric_k})"
            )
            return found
        for m in self.metrics:
            if m.delta is not None and -m.delta > margin + 1e-9:
                found.append(f"{m.name} dropped from {m.before:.3f} to {m.after:.3f} "
                             f"(more than the margin {margin:g})")  # fmt: skip
        return found


def _outcome(c: CaseResult | None) -> str:
    if c is None:
        return "-"
    rank = f"rank {c.rank}" if c.rank is not None else "not in top k"
    return f"{c.verdict} ({c.diagnosis}), {rank}"


def _corpus_change(a: SavedRun, b: SavedRun) -> CorpusChange:
    before = {d.doc_id: d.fingerprint for d in a.documents}
    after = {d.doc_id: d.fingerprint for d in b.documents}
    added = tuple(d for d in after if d not in before)
    removed = tuple(d for d in before if d not in after)
    changed = tuple(d for d in after if d in before and before[d] != after[d])
    common_a = [d for d in before if d in after]
    common_b = [d for d in after if d in before]
    reordered = common_a != common_b
    same_prints = not (added or removed or changed or reordered)
    if same_prints and a.corpus_fingerprint != b.corpus_fingerprint:
        reordered = True  # same content per document, another order or position
    return CorpusChange(added, removed, changed, reordered)


def _fix_reason(diff: RunDiff, name: str, change: str) -> str | None:
    if not (diff.turned_on or diff.turned_off or diff.settings_changed):
        return None
    parts = []
    if diff.turned_on:
        parts.append(f"fixes turned on: {', '.join(diff.turned_on)}")
    if diff.turned_off:
        parts.append(f"fixes turned off: {', '.join(diff.turned_off)}")
    if diff.settings_changed and not parts:
        parts.append(f"fix settings changed: {diff.a.fixes_label} → {diff.b.fixes_label}")
    text = "; ".join(parts)
    if change == FIXED and diff.turned_on:
        cells = diff.b.ablation_of(name)
        alone = [f for f in diff.turned_on if cells.get(f) == "pass"]
        needed = [f for f in diff.turned_on if cells.get(f"all-but-{f}") not in (None, "pass")]
        if alone:
            each = "" if len(alone) == 1 else "each of "
            text += f" — {each}{', '.join(alone)} alone repairs it (ablation)"
        elif needed:
            text += f" — it fails without {', '.join(needed)} (ablation)"
    elif change == BROKE and diff.turned_off:
        cells = diff.a.ablation_of(name)
        needed = [f for f in diff.turned_off if cells.get(f"all-but-{f}") not in (None, "pass")]
        alone = [f for f in diff.turned_off if cells.get(f) == "pass"]
        if needed:
            text += f" — it fails without {', '.join(needed)} (ablation of {diff.a.ref})"
        elif alone:
            text += f" — {', '.join(alone)} alone repaired it (ablation of {diff.a.ref})"
    return f"a fix changed: {text}"


def _reasons(diff: RunDiff, old: CaseResult | None, new: CaseResult | None, change: str):
    reasons = []
    if old is not None and new is not None and old.definition != new.definition:
        what = [n for n, x, y in (("query", old.query, new.query),
                                  ("expected document", old.expected_id, new.expected_id),
                                  ("evidence", old.evidence, new.evidence),
                                  ("top-k", old.top_k, new.top_k)) if x != y]  # fmt: skip
        reasons.append(f"the case changed: its {', '.join(what)}")
    fix = _fix_reason(diff, (new or old).name, change)  # type: ignore[union-attr]
    if fix:
        reasons.append(fix)
    if diff.corpus.any:
        named = []
        roles: dict[str, str] = {}
        for case in (old, new):
            if case is None:
                continue
            roles.setdefault(case.expected_id, "the expected document")
        if old is not None and old.first_id:
            roles.setdefault(old.first_id, "ranked first before")
        if new is not None and new.first_id:
            roles.setdefault(new.first_id, "ranked first now")
        for doc, role in roles.items():
            how = diff.corpus.touching(doc)
            if how:
                named.append(f"{doc} ({role}) was {how}")
        if named:
            reasons.append(f"the corpus changed: {'; '.join(named)}")
        else:
            reasons.append(f"the corpus changed ({diff.corpus.phrase()}); not this case's "
                           "expected or first-ranked document")  # fmt: skip
    if diff.retriever_changed:
        reasons.append(
            f"the retriever changed: {diff.a.retriever_label} → {diff.b.retriever_label}"
        )
    if not reasons:
        reasons.append("nothing the runs recorded changed (case, fixes, corpus, retriever): "
                       "the retriever answered differently (a service that changed, or "
                       "a ranking that is not deterministic)")  # fmt: skip
    return tuple(reasons)


def diff_runs(a: SavedRun, b: SavedRun) -> RunDiff:
    """Run ``a`` (before) against ``b`` (after)."""
    fa, fb = a.settings, b.settings
    on_a, on_b = set(fa.enabled), set(fb.enabled)
    turned_on = tuple(f for f in FIX_NAMES if f in on_b - on_a)
    turned_off = tuple(f for f in FIX_NAMES if f in on_a - on_b)
    same_fixes = fb.with_only(fa.enabled).label == fa.label
    diff = RunDiff(
        a, b, (), (), _corpus_change(a, b), turned_on, turned_off,
        settings_changed=not same_fixes,
        retriever_changed=a.retriever_label != b.retriever_label,
    )  # fmt: skip
    changes = []
    names = [c.name for c in b.cases] + [c.name for c in a.cases if b.case(c.name) is None]
    for name in names:
        old, new = a.case(name), b.case(name)
        if old is None:
            change = "new case"
        elif new is None:
            change = "case removed"
        elif old.passed != new.passed:
            change = FIXED if new.passed else BROKE
        elif old.diagnosis != new.diagnosis:
            change = "diagnosis"
        elif old.rank != new.rank:
            change = "rank"
        else:
            continue
        changes.append(CaseChange(name, change, _outcome(old), _outcome(new),
                                  _reasons(diff, old, new, change)))  # fmt: skip
    ma, mb = a.metric_values, b.metric_values
    deltas = tuple(MetricDelta(key, ma.get(key), mb.get(key)) for key in METRIC_KEYS)
    order = {FIXED: 1, BROKE: 0}
    changes.sort(key=lambda c: order.get(c.change, 2))  # regressions first, stable otherwise
    return RunDiff(
        a, b, tuple(changes), deltas, diff.corpus, turned_on, turned_off,
        diff.settings_changed, diff.retriever_changed,
    )  # fmt: skip


def _row_table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
                     for r in rows)  # fmt: skip


def diff_text(diff: RunDiff) -> str:
    """The diff as the CLI prints it."""
    a, b = diff.a, diff.b
    lines = [
        f"before: {a.ref} at {a.at} — {a.retriever_label}; fixes {a.fixes_label}; corpus "
        f"{a.corpus_fingerprint}; {a.passed}/{a.total} passed",
        f"after:  {b.ref} at {b.at} — {b.retriever_label}; fixes {b.fixes_label}; corpus "
        f"{b.corpus_fingerprint}; {b.passed}/{b.total} passed",
    ]
    if a.corpus_fingerprint != b.corpus_fingerprint:
        lines.append(f"corpus: {diff.corpus.phrase()}")
    counts: dict[str, int] = {}
    for c in diff.changes:
        counts[c.change] = counts.get(c.change, 0) + 1
    summary = ", ".join(f"{n} {what}" for what, n in counts.items()) or "no case changed"
    lines.append(f"\n{summary}")
    for c in diff.changes:
        lines.append(f"\n{c.change:<10} {c.case}: {c.before} → {c.after}")
        lines.extend(f"           because {r}" for r in c.reasons)
    rows = [("metric", "before", "after", "delta")]
    for m in diff.metrics:
        fmt = (lambda v: "-" if v is None else f"{v:.3f}")  # noqa: E731
        delta = "-" if m.delta is None else f"{m.delta:+.3f}"
        rows.append((m.name, fmt(m.before), fmt(m.after), delta))
    k = f"k={b.metric_k}" if a.metric_k == b.metric_k else f"k={a.metric_k} → k={b.metric_k}"
    lines.append(f"\nmetrics at {k}:")
    lines.append(_row_table(rows))
    return "\n".join(lines)


def diff_record(diff: RunDiff) -> dict:
    """The diff as JSON (``ragdash diff --json``, ``check --baseline … --json``)."""
    return {
        "before": diff.a.ref,
        "after": diff.b.ref,
        "changes": [{"case": c.case, "change": c.change, "before": c.before, "after": c.after,
                     "reasons": list(c.reasons)} for c in diff.changes],
        "metrics": [{"metric": m.metric, "before": m.before, "after": m.after, "delta": m.delta}
                    for m in diff.metrics],
        "corpus": {"added": list(diff.corpus.added), "removed": list(diff.corpus.removed),
                   "changed": list(diff.corpus.changed), "reordered": diff.corpus.reordered},
        "fixes": {"before": diff.a.fixes_label, "after": diff.b.fixes_label,
                  "turned_on": list(diff.turned_on), "turned_off": list(diff.turned_off)},
        "retriever": {"before": diff.a.retriever_label, "after": diff.b.retriever_label},
    }  # fmt: skip


def parse_min_metric(text: str) -> tuple[str, float]:
    """``mrr=0.8`` → (``mrr``, 0.8); the name may be any alias (``hit@k``, ``ndcg``).
    Raises :class:`SettingsError` naming the bad part."""
    name, sep, value = text.partition("=")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if not sep or key not in METRIC_KEYS:
        raise SettingsError(f"--min-metric {text!r}: give METRIC=VALUE with METRIC one of "
                            f"{', '.join(METRIC_KEYS)}")  # fmt: skip
    try:
        number = float(value)
    except ValueError:
        raise SettingsError(f"--min-metric {text!r}: {value.strip()!r} is not a number") from None
    if not math.isfinite(number) or not 0 <= number <= 1:
        raise SettingsError(f"--min-metric {text!r}: the value must be between 0 and 1")
    return key, number


def gate(
    run: SavedRun,
    diff: RunDiff | None = None,
    *,
    fail_on: str = "failure",
    margin: float = 0.0,
    min_pass_rate: float | None = None,
    min_metrics: Mapping[str, float] | None = None,
) -> list[str]:
    """Why ``run`` should fail a pipeline, in words (empty: it passes).

    ``fail_on``: ``failure`` — any case fails; ``regression`` — a case that passed in the
    baseline (``diff.a``) fails now, or a metric dropped by more than ``margin``;
    ``nothing`` — only the thresholds count. ``min_pass_rate`` (0-1) and ``min_metrics``
    (``{"mrr": 0.8}``) apply in every mode."""
    if fail_on not in FAIL_ON:
        raise SettingsError(f"--fail-on {fail_on!r}: choose from {', '.join(FAIL_ON)}")
    reasons: list[str] = []
    if fail_on == "failure":
        reasons += [f"case {c.name!r} fails ({c.diagnosis})" for c in run.cases if not c.passed]
    elif fail_on == "regression":
        if diff is None:
            raise SettingsError("--fail-on regression needs a baseline (--baseline RUN_OR_FILE)")
        reasons += diff.regressions(margin)
    if min_pass_rate is not None and run.pass_rate + 1e-9 < min_pass_rate:
        reasons.append(f"pass rate {run.pass_rate:.3f} ({run.passed}/{run.total}) is below "
                       f"--min-pass-rate {min_pass_rate:g}")  # fmt: skip
    values = run.metric_values
    for key, floor in (min_metrics or {}).items():
        value = values.get(key)
        if value is None or value + 1e-9 < floor:
            shown = "missing" if value is None else f"{value:.3f}"
            reasons.append(f"{METRIC_KEYS[key]} {shown} is below --min-metric {key}={floor:g}")
    return reasons
