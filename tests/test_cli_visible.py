"""The CLI shows names and messages from files as they are stored, not as a terminal would
draw them (issue 24 #9): a right-to-left override (U+202E) or a zero-width space in a file
name prints as ``⟨U+202E⟩`` / ``⟨U+200B⟩``, and a run name holding a newline stays in its
row of ``runs list`` (``⟨U+000A⟩``) instead of faking a second row. JSON stays exact."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from conftest import SAMPLE_CASES, SAMPLE_DOCS, doc_text

from ragdash.cli import main

ROOT = Path(__file__).resolve().parent.parent
RLO, ZWSP = "\u202e", "\u200b"
INVISIBLE = (RLO, ZWSP, "\x1b")


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_name_with_an_override_prints_as_code_points(capsys, tmp_path):
    (tmp_path / "good.md").write_text(doc_text("Stock sync every 15 minutes.", id="good"))
    (tmp_path / f"{RLO}fdp{ZWSP}.pdf").write_bytes(b"not a pdf \x1b[2J")
    code, out, err = run_main(capsys, "query", "--docs", str(tmp_path), "sync")
    assert code == 0
    assert "⟨U+202E⟩fdp⟨U+200B⟩.pdf: error: is not a PDF" in err
    assert not [c for c in INVISIBLE if c in out + err]


def test_a_file_name_with_a_newline_is_one_warning_line(capsys, tmp_path):
    (tmp_path / "good.md").write_text(doc_text("Stock sync every 15 minutes.", id="good"))
    (tmp_path / "two\nlines.pdf").write_bytes(b"not a pdf")
    code, _, err = run_main(capsys, "query", "--docs", str(tmp_path), "sync")
    assert code == 0
    (line,) = [x for x in err.splitlines() if "lines.pdf" in x]
    assert line.startswith("ragdash: two⟨U+000A⟩lines.pdf: error: is not a PDF")


def test_a_run_name_with_a_newline_stays_on_its_row(capsys, tmp_path):
    library = str(tmp_path / "library.sqlite")
    name = f"nightly\n#9  2099-01-01  forged {RLO}nur"
    code, _, _ = run_main(
        capsys, "check", "--docs", str(SAMPLE_DOCS), "--cases", str(SAMPLE_CASES),
        "--save-run", "--run-name", name, "--library", library,
    )  # fmt: skip
    assert code in (0, 1)
    code, out, err = run_main(capsys, "runs", "list", "--library", library)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2, lines  # the header and the one run
    assert "nightly⟨U+000A⟩#9  2099-01-01  forged ⟨U+202E⟩nur" in lines[1]
    assert not [c for c in INVISIBLE if c in out + err]
    code, out, _ = run_main(capsys, "runs", "show", "1", "--library", library)
    assert code == 0 and not [c for c in INVISIBLE if c in out]
    # JSON is for programs: the name comes back exactly as saved
    code, out, _ = run_main(capsys, "runs", "list", "--json", "--library", library)
    assert json.loads(out)[0]["name"] == name


def test_the_cli_prints_through_say_or_emit_only():
    """Every print of the CLI (ragdash/cli/) goes through :func:`ragdash.cli.common.say`
    (human text, shown) or :func:`ragdash.cli.common.emit` (JSON, exact): a bare ``print``
    would show names raw."""
    sources = sorted((ROOT / "ragdash" / "cli").glob("*.py"))
    bare = []
    for source in sources:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        owner = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for inner in ast.walk(node):
                    owner.setdefault(inner, node.name)
        bare += [
            f"{source.name}:{node.lineno} in {owner.get(node)}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
            and owner.get(node) not in {"say", "emit"}
        ]
    assert sources and bare == []
