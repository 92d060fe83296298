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


#: The layers, lowest first. A module may import modules of its own layer or of layers below,
#: never above: base (settings, errors, the text tokenizer, the case model) <- ingestion <-
#: retrieval <- checks <- storage <- the interfaces (CLI, pages, the public API).
LAYERS = (
    ("base", ("ragdash.settings", "ragdash.errors", "ragdash.text", "ragdash.case",
              "ragdash.atomic", "ragdash.version", "ragdash.bundled", "ragdash.visible",
              "ragdash.csv_safe")),
    ("ingestion", ("ragdash.ingestion",)),
    ("retrieval", ("ragdash.retrieval",)),
    ("checks", ("ragdash.checks",)),
    ("storage", ("ragdash.storage",)),
    ("interfaces", ("ragdash.frames", "ragdash.cli", "ragdash.ui", "ragdash.__main__", "ragdash")),
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the most specific prefix naming ``module``."""
    best, best_len = None, -1
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best is not None, f"{module} belongs to no layer: add it to LAYERS"
    return best


def test_every_module_sits_in_a_layer():
    for name in MODULES:
        layer_of(name)


def test_layers_import_only_downwards():
    """The pipeline's stages run one way: nothing imports a layer above its own."""
    upward = []
    for name, path in MODULES.items():
        mine = layer_of(name)
        for target in imports_of(path):
            theirs = layer_of(target)
            if theirs > mine:
                upward.append(f"{name} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert upward == [], "\n".join(upward)


def test_the_layer_rule_catches_an_upward_import(tmp_path):
    """The rule is live: an ingestion module importing the ranking code is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("from ragdash.retrieval.ranking import rank\n", encoding="utf-8")
    assert layer_of("ragdash.retrieval.ranking") > layer_of("ragdash.ingestion.ingest")
    assert "ragdash.retrieval.ranking" in imports_of(bad)


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
