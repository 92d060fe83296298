"""The package's shape, checked: the core never imports Streamlit, no module imports one
that imports it back (directly or through others), and every module declares ``__all__``
or is a page script."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ragdash"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path) -> set[str]:
    """Every ragdash module ``path`` imports, at module level or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
