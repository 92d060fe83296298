"""The OCR tab of a scanned document on the Documents page: where the OCR damage comes from.

The page image (large: the OCR text beside it is what to compare it with) with the words
Tesseract was unsure of boxed (red), the words the OCR fix would rewrite boxed (blue) and the
inked areas where OCR found no word boxed (orange, :class:`~ragdash.ingestion.ocr_prep.
OcrQuality`) — a shaded row Tesseract lost has no low-confidence word to show it, only ink
without words; the OCR text beside it; the OCR fix's rewrites and the OCR
signals of this document; and, when the user pastes the clean text of the page, the OCR map
entries its errors call for (:func:`ragdash.checks.ocr_learn.learn_ocr_map`)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from ragdash.checks.ocr_learn import learn_ocr_map
from ragdash.checks.ocr_signals import ocr_signals
from ragdash.checks.rewrites import rewrite_budget
from ragdash.errors import IngestError
from ragdash.ingestion.documents import Document
from ragdash.ingestion.inspection import where_on_page
from ragdash.ingestion.scans import LOW_CONFIDENCE, OcrPage, language_name, render_ocr_page
from ragdash.retrieval.index import CorpusIndex
from ragdash.text import more_note, tokenize
from ragdash.ui.context import source_path
from ragdash.ui.render import text_block
from ragdash.ui.state import VIEW_KEY
from ragdash.ui.text import code, grid, label, literal

__all__ = ["CONFUSIONS_SHOWN", "has_ocr", "render_scan_view"]

#: Character confusions shown in the table of what a clean text taught, most frequent first.
CONFUSIONS_SHOWN = 20


def has_ocr(doc: Document) -> bool:
    """True when some page of ``doc`` was read by OCR."""
    return any(getattr(layout, "ocr", None) is not None for layout in doc.layouts or ())


@st.cache_data(show_spinner=False, max_entries=32)
def _image(path: str, mtime_ns: int, ocr: OcrPage, rewritten: tuple[str, ...]):
    with open(path, "rb") as handle:
        return render_ocr_page(handle.read(), ocr, resolution=150, rewritten=rewritten)


def render_scan_view(doc: Document, index: CorpusIndex, key: str) -> None:
    """The OCR tab of ``doc`` (``key`` makes its widget keys unique on the page)."""
    scanned = [layout.ocr for layout in doc.layouts or () if getattr(layout, "ocr", None)]
    if not scanned:
        return
    numbers = [ocr.page for ocr in scanned]
    number = numbers[0]
    if len(numbers) > 1:
        number = st.select_slider("Scanned page", numbers, key=f"scan_page_{key}")
    ocr = scanned[numbers.index(number)]
    text = doc.pages[number - 1]
    low = ocr.low_confidence()
    fixes = replace(st.session_state[VIEW_KEY].fixes, ocr=True)
    budget = rewrite_budget(index, fixes)
    tokens = set(tokenize(text))
    rewrites = [r for r in budget.rewrites if r.raw in tokens]
    quality = ocr.quality
    c = [*st.columns(3), *st.columns(2)]  # five in a row cut their labels at 800 px
    c[0].metric("Words read", len(ocr.words))
    c[1].metric("Confidence", f"{ocr.mean_confidence:.0f}%", help="Tesseract's mean, 0–100")
    c[2].metric(f"Under {LOW_CONFIDENCE:.0f}%", len(low), help="words boxed in red")
    c[3].metric("Fix rewrites", len(rewrites), help="words the OCR fix rewrites, boxed in blue")
    c[4].metric(
        "Ink without words",
        f"{quality.uncovered:.0%}" if quality else "—",
        help="share of the page's text-like inked area that no recognised word covers "
        "(boxed in orange); rules and specks of dust are not counted",
    )
    if quality and quality.missed_text:
        st.warning(
            f"OCR may have missed text on page {number:d}: about {quality.uncovered:.0%} of the "
            f"inked area has no words ({len(quality.regions):d} area(s) boxed in orange). A "
            "cleaner or higher-resolution scan, or OCR of the original, may read them."
        )
    # The page image as wide as the tab, the OCR text under it (beside it, in a third of
    # the width, the image was a thumbnail next to a long, narrow column of text).
    left, right = st.container(), st.container()
    path = source_path(doc.source)
    with left:
        if path is None:
            st.info("The source file is no longer on disk.")
        else:
            try:
                image = _image(
                    str(path), path.stat().st_mtime_ns, ocr, tuple(r.raw for r in rewrites)
                )
            except IngestError as exc:
                st.error(literal(str(exc)))
            else:
                st.image(
                    image,
                    width="stretch",
                    caption=(
                        f"Page {number}, read at {ocr.dpi:.0f} dpi: red boxes are words "
                        f"Tesseract was less than {LOW_CONFIDENCE:.0f}% sure of, blue boxes "
                        "words the OCR fix would rewrite, orange boxes inked areas where OCR "
                        "found no word"
                    ),
                )
    with right:
        read_in = f", read as {language_name(ocr.lang)}" if ocr.lang else ""
        st.caption(f"OCR text of page {number:d} ({label(ocr.engine + read_in)})")
        text_block(text or "(OCR found no words)")
    if quality and quality.regions:
        st.markdown("**Inked areas where OCR found no word** (orange boxes)")
        area = max(ocr.width * ocr.height, 1.0)
        st.dataframe(
            grid(pd.DataFrame(
                [{"page": number, "where": where_on_page(box, ocr.width, ocr.height),
                  "size": f"{(box[2] - box[0]) * (box[3] - box[1]) / area:.1%} of the page"}
                 for box in quality.regions]  # fmt: skip
            )),
            hide_index=True,
            width="stretch",
            height=min(36 * (len(quality.regions) + 1), 220),
        )
    if low:
        st.markdown("**Low-confidence words**")
        st.dataframe(
            grid(pd.DataFrame(
                [{"word": w.text, "confidence": f"{w.conf:.0f}%",
                  "where": where_on_page((w.x0, w.top, w.x1, w.bottom), ocr.width, ocr.height)}
                 for w in sorted(low, key=lambda w: w.conf)]  # fmt: skip
            )),
            hide_index=True,
            width="stretch",
            height=min(36 * (len(low) + 1), 260),
        )
    _rewrites(rewrites)
    _signals(doc, index)
    _learn(text, key, fixes.protected)


def _rewrites(rewrites: list) -> None:
    st.markdown("**Words the OCR fix would rewrite on this page**")
    if not rewrites:
        st.caption(
            "None: no word on this page has a digit misread for a letter that the corpus "
            "can confirm (the OCR fix only undoes digit-for-letter errors)."
        )
        return
    st.dataframe(
        grid(pd.DataFrame([{"token": r.raw, "read as": r.word, "why": r.note} for r in rewrites])),
        hide_index=True,
        width="stretch",
    )


def _signals(doc: Document, index: CorpusIndex) -> None:
    current = st.session_state[VIEW_KEY].fixes.ocr_map
    mine = [s for s in ocr_signals(index.corpus, current) if s.doc_id == doc.doc_id]
    st.markdown("**OCR signals mined from this document**")
    if not mine:
        st.caption("None: no token here has a digit inside a word the corpus spells otherwise.")
        return
    st.dataframe(
        grid(pd.DataFrame(
            [
                {
                    "token": s.token,
                    "count": s.count,
                    "could be": s.proposed,
                    "seen elsewhere": s.seen,
                    "substitution": ", ".join(f"{d}={x}" for d, x in s.substitutions.items()),
                    "in the map": "yes" if s.covered else "no",
                }
                for s in mine
            ]
        )),
        hide_index=True,
        width="stretch",
    )


def _learn(text: str, key: str, protected: tuple[str, ...]) -> None:
    with st.expander("Learn OCR map entries from this page's clean text"):
        clean = st.text_area(
            "Paste the clean text of this page (the original it was printed from)",
            key=f"scan_clean_{key}",
            height=120,
        )
        if not clean.strip():
            st.caption(
                "The OCR text is aligned to it character by character; every digit read "
                "where the clean text has a letter is a proposed map entry, never one that "
                "would rewrite a code the clean text spells with that digit."
            )
            return
        learned = learn_ocr_map([(text, clean)], protected)
        st.caption(
            f"{learned.characters:d} characters aligned, {learned.errors:d} edit(s): character "
            f"error rate {learned.error_rate:.1%}"
        )
        if learned.mismatch:
            st.warning(literal(learned.mismatch[:1].upper() + learned.mismatch[1:]))
        elif learned.proposals:
            st.success(f"Proposed OCR map entries: {literal(learned.ocr_map)}")
        else:
            st.info("No map entry proposed: OCR read no digit for a letter on this page.")
        for p in learned.refused:
            st.warning(f"Not proposed: {code(p.entry)} — {literal(p.refused)}")
        if learned.confusions:
            st.dataframe(
                grid(pd.DataFrame(
                    [
                        {
                            "clean": c.truth or "(added)",
                            "read as": c.read or "(dropped)",
                            "count": c.count,
                            "examples": ", ".join(c.examples),
                        }
                        for c in learned.confusions[:CONFUSIONS_SHOWN]
                    ]
                )),
                hide_index=True,
                width="stretch",
            )
            if len(learned.confusions) > CONFUSIONS_SHOWN:
                st.caption(
                    f"The {CONFUSIONS_SHOWN:d} most frequent confusions"
                    f"{literal(more_note(CONFUSIONS_SHOWN, len(learned.confusions)))} seen less "
                    "often."
                )
