"""The package's shape, checked: the core never imports Streamlit, no module imports one
that imports it back (directly or through others), and every module declares ``__all__``
or is a page script."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ragdash"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (imports made only for
    type hints are not dependencies: they never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imports_of(path: Path) -> set[str]:
    """Every ragdash module ``path`` imports, at module level or inside a function (but not
    under ``if TYPE_CHECKING:``)."""
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found.update(n for n in names if n in MODULES)
            if node.module in MODULES:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
    return found


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for name, path in MODULES.items():
        graph.add_node(name)
        for target in imports_of(path):
            # a package's __init__ re-exporting its modules is not a cycle of ideas
            if target != name and not name.startswith(target + ".") or name == "ragdash":
                graph.add_edge(name, target)
    return graph


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    graph.remove_node("ragdash")  # the public API re-exports; nothing in the package uses it
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles}"


def test_the_core_never_imports_streamlit():
    offenders = []
    for name, path in MODULES.items():
        if name.startswith("ragdash.ui"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            roots = []
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                roots = [node.module.split(".")[0]]
            if "streamlit" in roots:
                offenders.append(name)
    assert offenders == []


@pytest.mark.parametrize("stage", ["ingestion", "retrieval", "checks", "storage", "ui"])
def test_the_folders_show_the_pipeline_stages(stage):
    assert (PACKAGE / stage / "__init__.py").is_file()
    doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text()))
    assert doc, f"ragdash/{stage}/__init__.py says what the stage is"


def test_the_public_api_is_small_and_importable():
    import ragdash

    assert set(ragdash.__all__) >= {"load_folder", "CorpusIndex", "Fixes", "Case", "check_case",
                                    "load_cases", "RagdashError"}  # fmt: skip
    assert all(hasattr(ragdash, name) for name in ragdash.__all__)


def test_every_error_ragdash_raises_on_purpose_sits_under_one_root():
    import ragdash.errors as errors

    classes = [getattr(errors, n) for n in errors.__all__]
    assert all(issubclass(c, errors.RagdashError) for c in classes)
    defined_elsewhere = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            is_error = isinstance(node, ast.ClassDef) and node.name.endswith("Error")
            if is_error and name != "ragdash.errors":
                defined_elsewhere.append(f"{name}.{node.name}")
    assert defined_elsewhere == []


def _contracts() -> list[dict]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["tool"]["importlinter"]["contracts"]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` (import-linter, the authority on the layers) on the package under
    ``root`` with ``root``'s pyproject.toml."""
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--config", str(root / "pyproject.toml"), "--no-cache"],
        capture_output=True, text=True, cwd=root, timeout=120,
        env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip


def test_the_import_contracts_hold():
    """The layers (base <- ingestion <- retrieval <- checks <- storage <- ui <- cli), the base
    importing nothing above it, the pages never importing the CLI, the package never importing
    the benchmarks and the core never importing Streamlit — as import-linter reads the imports
    (relative ones, those inside functions and those made only for type hints included)."""
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_module_sits_in_a_layer():
    """A module outside every layer would be free of the rule: each top-level module and
    package of ragdash is named in the layers contract."""
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    named = {m.strip() for layer in layers["layers"] for m in layer.replace("|", ":").split(":")}
    top = {".".join(name.split(".")[:2]) for name in MODULES} - {"ragdash"}
    assert top - named == set()


@pytest.mark.parametrize(
    ("module", "line", "shown"),
    [
        ("case.py", "from ragdash.retrieval.ranking import RankedPassage",
         "ragdash.case -> ragdash.retrieval.ranking"),
        ("case.py", "if TYPE_CHECKING:\n    from ragdash.retrieval.ranking import RankedPassage",
         "ragdash.case -> ragdash.retrieval.ranking"),
        ("ui/serve.py", "from ..cli import common", "ragdash.ui.serve -> ragdash.cli.common"),
        ("ingestion/ingest.py", "import benchmarks.bench",
         "ragdash.ingestion.ingest -> benchmarks"),
    ],
)  # fmt: skip
def test_the_import_contracts_catch_a_wrong_import(tmp_path, module, line, shown):
    """The contracts are live: an upward import (plain, for type hints only, relative) or one
    of the benchmarks, added to a copy of the package, breaks them, named file and line."""
    shutil.copytree(PACKAGE, tmp_path / "ragdash", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "benchmarks" / "bench.py").write_text("", encoding="utf-8")
    target = tmp_path / "ragdash" / module
    source = target.read_text(encoding="utf-8")
    extra = "from typing import TYPE_CHECKING\n" if "TYPE_CHECKING" in line else ""
    target.write_text(f"{source}\n{extra}{line}\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert shown in result.stdout, result.stdout


def test_benchmarks_live_outside_the_package():
    """The package never imports the benchmarks (they are not installed with it)."""
    offenders = [
        f"{name} imports {target}"
        for name, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom | ast.Import)
        for target in ([node.module or ""] if isinstance(node, ast.ImportFrom)
                       else [a.name for a in node.names])
        if target.split(".")[0] == "benchmarks"
    ]
    assert offenders == []
    assert not (PACKAGE / "bench.py").exists() and (ROOT / "benchmarks" / "bench.py").is_file()


def test_every_module_says_what_it_exports():
    """Each module (pages and entry scripts aside) declares ``__all__``, and every name in it
    exists: the public surface of a module is written down, as RapidFuzz does."""
    missing, dangling = [], []
    for name, path in MODULES.items():
        if ".pages." in name or ".entry" in name or name.endswith("__main__"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = [
            node.value for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        if not declared:
            if path.name != "__init__.py":
                missing.append(name)
            continue
        defined = {n.id for node in ast.walk(tree) for n in [node] if isinstance(n, ast.Name)}
        defined |= {
            getattr(node, "name", None) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        }
        defined |= {a.asname or a.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import | ast.ImportFrom) for a in node.names}
        for value in declared[0].elts if isinstance(declared[0], ast.List | ast.Tuple) else []:
            if isinstance(value, ast.Constant) and value.value not in defined:
                dangling.append(f"{name}.{value.value}")
    assert missing == [] and dangling == [], (missing, dangling)


def _doc_table_rows() -> list[tuple[list[str], str]]:
    """docs/architecture.md's module table: per row, the folders of its *where* cell
    (``ragdash/ui/``) and the whole row's text."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = []
    for line in doc.splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 3 and "`ragdash/" in cells[2]:
            rows.append((re.findall(r"`(ragdash/[^`]*)`", cells[2]), line))
    return rows


def undocumented_modules(rows: list[tuple[list[str], str]]) -> list[str]:
    """Module files under ragdash/ that docs/architecture.md does not list: a file is listed
    when a row's *where* cell names it (``ragdash/frames.py``), or names its folder
    (``ragdash/ui/``, the nearest one) and the row names the module relative to that folder
    in backticks (``triage/report`` for ``ragdash/ui/triage/report.py``, ``triage`` for its
    package ``ragdash/ui/triage/__init__.py``)."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "__init__.py" and path.parent != PACKAGE:
            rel = rel.removesuffix("__init__.py")
        if any(rel in where for where, _ in rows):
            continue
        folders = [(f, line) for where, line in rows for f in where
                   if f.endswith("/") and rel.startswith(f)]  # fmt: skip
        if not folders:
            missing.append(rel)
            continue
        folder, line = max(folders, key=lambda pair: len(pair[0]))
        if f"`{rel.removeprefix(folder).removesuffix('.py').rstrip('/')}`" not in line:
            missing.append(rel)
    return missing


def test_the_architecture_page_lists_every_module_and_public_name():
    """docs/architecture.md lists every module of the package in its layer's row, and names
    every public name of ``ragdash.__all__`` in its public-API section."""
    import ragdash

    assert undocumented_modules(_doc_table_rows()) == []
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    api = doc.split("## The public Python API", 1)[1].split("\n## ", 1)[0]
    assert [n for n in ragdash.__all__ if f"`{n}`" not in api] == []


def test_a_module_missing_from_the_architecture_page_is_named():
    """The listing rule is live: a row without ``scan_grid`` leaves that module unlisted."""
    rows = [(where, line.replace("`scan_grid`", "scan grid")) for where, line in _doc_table_rows()]
    assert undocumented_modules(rows) == ["ragdash/ingestion/scan_grid.py"]
