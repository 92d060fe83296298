"""Stored files and caches are data, never code: the package source holds no call that
could run code from bytes it reads (unpickling, ``marshal``, ``shelve``, ``eval``/``exec``,
imports by a computed name, ``yaml.load``, ``np.load`` that allows pickles, ``torch.load``,
a Streamlit cache persisted to disk as pickles) — except the few uses listed below, each
with the reason it is safe. A new use fails here until it is justified in the list."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ragdash"

#: Calls that run code from data (or import by name), by the dotted name they are called with.
RISKY_CALLS = {
    "pickle.load", "pickle.loads", "pickle.Unpickler", "_pickle.loads", "cPickle.loads",
    "marshal.load", "marshal.loads", "shelve.open", "dill.load", "dill.loads",
    "cloudpickle.load", "cloudpickle.loads", "joblib.load", "torch.load",
    "pd.read_pickle", "pandas.read_pickle", "yaml.load", "yaml.unsafe_load", "yaml.full_load",
    "eval", "exec", "compile", "__import__", "importlib.import_module", "importlib.__import__",
    "runpy.run_path", "runpy.run_module", "numpy.lib.format.read_array",
}  # fmt: skip
RISKY_MODULES = {"pickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}

#: (file, call) → why it is safe. Keep each reason true; stale entries fail the last test.
ALLOWED = {
    ("ragdash/__init__.py", "importlib.import_module"):
        "a public name's module, looked up in the constant table _HOMES of that file (any "
        "other name raises AttributeError): the names come from ragdash's source, never data",
    ("ragdash/ingestion/bounded.py", "pickle.loads"):
        "the answer of ragdash's own parse child (a subprocess it spawned, talking over a pipe "
        "only the two of them hold); nothing read from disk or the network",
    ("ragdash/ingestion/parse_child.py", "pickle.loads"):
        "the request its parent ragdash process sent over the child's stdin pipe",
    ("ragdash/retrieval/python_retriever.py", "importlib.import_module"):
        "import_named: the Python function or LangChain object named by the operator who starts "
        "ragdash (CLI flag or environment), never by a page visitor or a link",
}  # fmt: skip


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def _false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def uses(path: Path) -> list[tuple[str, int]]:
    """(call, line) of every risky call or import in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module in RISKY_MODULES:
            found += [(f"{node.module}.{a.name}", node.lineno) for a in node.names
                      if "load" in a.name or a.name in ("Unpickler", "open")]  # fmt: skip
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        keywords = {k.arg: k.value for k in node.keywords}
        if name in RISKY_CALLS:
            found.append((name, node.lineno))
        elif name in ("np.load", "numpy.load"):
            # a pickle inside an .npy runs code unless allow_pickle=False is given explicitly
            if not _false(keywords.get("allow_pickle", ast.Constant(None))):
                found.append((f"{name} without allow_pickle=False", node.lineno))
        elif name.endswith(("cache_data", "cache_resource")) and "persist" in keywords:
            found.append((f"{name}(persist=...): pickles on disk", node.lineno))
    return found


def all_uses() -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, line in uses(path):
            out.setdefault((path.relative_to(ROOT).as_posix(), name), []).append(line)
    return out


def test_the_package_never_unpickles_evals_or_imports_what_it_reads():
    unjustified = [
        f"{file}:{lines[0]}: {name}" for (file, name), lines in all_uses().items()
        if (file, name) not in ALLOWED
    ]  # fmt: skip
    assert unjustified == [], "code that could run stored data:\n" + "\n".join(unjustified)


def test_the_scan_sees_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import pickle, numpy as np, yaml\nfrom marshal import loads\n"
        "pickle.load(f)\nnp.load(p)\nnp.load(p, allow_pickle=True)\n"
        "np.load(p, mmap_mode='r', allow_pickle=False)\nyaml.load(s)\nyaml.safe_load(s)\n"
        "eval(s)\n__import__(m)\nst.cache_data(persist='disk')\n"
    )
    assert [name for name, _ in uses(sample)] == [
        "marshal.loads", "pickle.load", "np.load without allow_pickle=False",
        "np.load without allow_pickle=False", "yaml.load", "eval", "__import__",
        "st.cache_data(persist=...): pickles on disk",
    ]  # fmt: skip


def test_every_allowed_use_still_exists():
    assert sorted(set(ALLOWED) - set(all_uses())) == []
