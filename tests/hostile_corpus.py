"""A docs folder with a payload in every field a user or a file controls — body text, front
matter, metadata.csv cells (a PDF's id among them), file names, case fields — and the URL
parameters to open it with. Shared by tests/test_app_text.py (AppTest, every page) and
tests/test_browser_hostile.py (Chromium, every page).

Every payload is something Streamlit's Markdown would turn into markup if it were shown as it
is: an image from another host, a link, colored text, an icon, a formula, a bare URL, an HTML
tag with a handler, a right-to-left override."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from conftest import write_docs

#: The host every payload points at; a request to it means a payload became markup.
EVIL_HOST = "evil.example"
#: A one-line payload with every kind of markup (the image is what would load from outside).
PAYLOAD = (
    f"![x](http://{EVIL_HOST}/img.png) [sign in](http://{EVIL_HOST}/login) :red[ALERT] "
    f":material/home: $x^2$ **bold** www.{EVIL_HOST} <img src=x onerror=alert(9)> "
    "\u202eevil\u202c"
)
#: The same with blank lines: a new paragraph (a heading, an image block) after them.
BLANK_LINE_PAYLOAD = f"note\n\n# Heading\n\n![x](http://{EVIL_HOST}/blank.png)"
RLO = "\u202e"
RLO_SHOWN = "⟨U+202E⟩"

#: The file names (an upload could carry these too; the folder loader reads them as they are).
HOSTILE_FILE = f"[f](http:{EVIL_HOST}) :red[file] $x$ {RLO}dm.md"
META_FILE = "meta-target.md"
PDF_FILE = "hostile.pdf"

FRONT_MATTER_ID = "fm :red[ID] ![i](http://evil.example/fm.png)"
META_ID = f"meta\n\n![x](http://{EVIL_HOST}/meta.png) :blue[meta]"
PDF_ID = f"pdf\n\n[click](http://{EVIL_HOST}/pdf) :red[pdf] {RLO}fdp"
CASE_NAME = f"case ![c](http://{EVIL_HOST}/case.png) :red[case] {RLO}esac"
WORD = "zephyrine"


def _metadata_csv() -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["file", "id", "subject", "updated", "status"])
    writer.writerow([META_FILE, META_ID, PAYLOAD, "2025-01-01", "current"])
    writer.writerow([PDF_FILE, PDF_ID, f"pdf subject {PAYLOAD}", "2025-02-01", "current"])
    return out.getvalue()


def write_hostile_docs(folder: Path) -> Path:
    """The hostile docs folder (see the module docstring)."""
    cases = {
        "cases": [
            {
                "name": CASE_NAME,
                "kind": "corrupted",
                "query": f"{WORD} maintenance {PAYLOAD}",
                "expected_id": FRONT_MATTER_ID,
                "evidence": [PAYLOAD],
                "note": PAYLOAD,
            }
        ]
    }
    return write_docs(
        folder,
        {
            "hostile.md": (
                f"---\nid: {FRONT_MATTER_ID}\nsubject: {PAYLOAD}\nupdated: 2025-01-01\n---\n"
                f"{WORD} maintenance notes.\n{PAYLOAD}\n{BLANK_LINE_PAYLOAD}\n"
                "<script>alert('xss')</script>\n"
                "<style>body{background:red !important} *{display:none}</style>\n"
            ),
            HOSTILE_FILE: f"{WORD} file name note. {PAYLOAD}\n",
            META_FILE: f"{WORD} metadata target. {PAYLOAD}\n",
            PDF_FILE: [[f"{WORD} pdf page one.", PAYLOAD[:90]], ["second page"]],
            "metadata.csv": _metadata_csv(),
            "cases.json": json.dumps(cases),
        },
    )


def hostile_params() -> dict[str, str]:
    """URL parameters that carry payloads: the query, the expected document, the evidence,
    the corpus hash."""
    return {
        "q": f"{WORD} {PAYLOAD}",
        "expect": BLANK_LINE_PAYLOAD,
        "evidence": PAYLOAD,
        "corpus": f"abc\n\n![x](http://{EVIL_HOST}/corpus.png) :red[corpus]",
        "fixes": "none",
    }
