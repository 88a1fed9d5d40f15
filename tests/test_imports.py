"""The import graph of ``ffgen/`` shows the pipeline with data flowing down: no import circles,
nothing in ``generate/`` importing ``lifecycle/`` or ``write/``, and no private CPython module.

Read with ``ast``, every import counts, a function's lazy one included (it runs as surely, only
later); only those under ``if TYPE_CHECKING:`` do not. Importing ``a.b.c`` imports the packages
``a.b`` and ``a`` first, so it is an edge to each of them too: a package whose ``__init__`` imports
its own modules is in a circle with every one of them that imports a sibling.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ffgen"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING"


def imported_names(tree: ast.Module, name: str, is_package: bool) -> list[str]:
    """Every module name ``tree`` imports (absolute), ``from x import y`` giving ``x.y`` too."""
    found: list[str] = []
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            found += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return found


def _runtime_nodes(node: ast.AST):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of ``root``'s package it imports (their packages included)."""
    paths = {module_name(p, root): p for p in root.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = set()
        for imported in imported_names(tree, name, path.name == "__init__.py"):
            parts = imported.split(".")
            prefixes = (".".join(parts[:n]) for n in range(2, len(parts) + 1))
            targets |= {p for p in prefixes if p in paths and p != name}
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while component[-1:] != [v]:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_ffgen_has_no_import_circles():
    assert circles(import_graph(PACKAGE)) == []


def test_generate_imports_neither_lifecycle_nor_write():
    upward = sorted(
        f"{m} -> {t}" for m, targets in import_graph(PACKAGE).items() for t in targets
        if m.startswith("ffgen.generate") and t.startswith(("ffgen.lifecycle", "ffgen.write"))
    )
    assert upward == []


def test_no_module_imports_a_private_cpython_module():
    private = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name in imported_names(tree, module_name(path, PACKAGE), path.name == "__init__.py"):
            top = name.split(".")[0]
            if top.startswith("_") and top != "__future__" and top in sys.stdlib_module_names:
                private.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert private == []


def test_the_graph_sees_lazy_imports_and_package_circles(tmp_path):
    """The checks above can fail: a lazy import back, and a package that imports its module."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def f():\n    import pkg.a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from pkg import a\n")
    (pkg / "sub" / "__init__.py").write_text("from .one import y\n")
    (pkg / "sub" / "one.py").write_text("from . import two\n")
    (pkg / "sub" / "two.py").write_text("")
    graph = import_graph(pkg)
    assert circles(graph) == [["pkg.a", "pkg.b"], ["pkg.sub", "pkg.sub.one"]]
    assert graph["pkg.c"] == set()
