"""The checkout's names: modules, what they define and import, and the symbols and classes
names resolve to."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Iterator, Mapping

PACKAGE = "flow_factory"


@dataclasses.dataclass(frozen=True, slots=True)
class Module:
    """One module as conformance reads it: its definitions and imports."""
    dotted: str
    path: str | None  # None: a namespace package (a folder without __init__.py)
    is_package: bool
    tree: ast.Module | None  # None: namespace package, or a file that does not parse
    defs: Mapping[str, ast.stmt]  # top-level def / class / assignment
    imports: Mapping[str, tuple[str, str | None]]  # local -> (absolute module, name | None)
    stars: tuple[str, ...]  # absolute modules star-imported
    open_ended: bool  # module __getattr__ or unparsable: names we cannot see may exist


@dataclasses.dataclass(frozen=True, slots=True)
class Symbol:
    """What a name resolves to: a module, class, function or value, or nothing."""
    kind: str  # "module" | "class" | "function" | "value" | "external" | "missing"
    module: str  # the defining module (for "missing": the module that lacks it)
    name: str | None  # None for a module
    node: ast.stmt | None = None

    @property
    def qualified(self) -> str:
        return self.module if self.name is None else f"{self.module}.{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class ClassRef:
    """A class of the checkout or of a rendered file, with the module that defines it."""
    module: str
    name: str
    node: ast.ClassDef
    path: str

    @property
    def key(self) -> tuple[str, str, int]:
        return self.module, self.name, self.node.lineno


@dataclasses.dataclass(frozen=True, slots=True)
class Opaque:
    """A base class we cannot read; ``open`` when it may define any member."""

    label: str
    open: bool


def in_package(dotted: str) -> bool:
    return dotted == PACKAGE or dotted.startswith(PACKAGE + ".")


def dotted_of(path: str) -> str | None:
    """``src/flow_factory/a/b.py`` -> ``flow_factory.a.b``; None outside the package."""
    if not (path.startswith(f"src/{PACKAGE}/") and path.endswith(".py")):
        return None
    dotted = path[len("src/") : -len(".py")].replace("/", ".")
    return dotted.removesuffix(".__init__")


def absolute_module(importer: str | None, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute module an ImportFrom names; None when relative outside a known package."""
    if node.level == 0:
        return node.module
    if importer is None:
        return None
    parts = importer.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level - 1 > len(parts):
        return None
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def import_table(
    nodes: Iterable[ast.AST], importer: str | None, is_package: bool
) -> tuple[dict[str, tuple[str, str | None]], list[str], list[tuple[ast.ImportFrom, str]]]:
    """(local name -> (module, name)), star-imported modules, and each ImportFrom with its
    absolute module, from the import statements among ``nodes``."""
    table: dict[str, tuple[str, str | None]] = {}
    stars: list[str] = []
    froms: list[tuple[ast.ImportFrom, str]] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    table[alias.asname] = (alias.name, None)
                else:
                    head = alias.name.split(".")[0]
                    table[head] = (head, None)
        elif isinstance(node, ast.ImportFrom):
            module = absolute_module(importer, is_package, node)
            if module is None:
                continue
            froms.append((node, module))
            for alias in node.names:
                if alias.name == "*":
                    stars.append(module)
                else:
                    table[alias.asname or alias.name] = (module, alias.name)
    return table, stars, froms


def top_level(tree: ast.AST) -> Iterator[ast.stmt]:
    """Module-level statements, looking inside if/try/with blocks but not into defs."""
    pending = list(getattr(tree, "body", []))
    while pending:
        node = pending.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                pending.extend(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)


def definitions(tree: ast.Module) -> dict[str, ast.stmt]:
    defs: dict[str, ast.stmt] = {}
    for node in top_level(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.setdefault(node.name, node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in target_names(target):
                    defs.setdefault(name, node)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            defs.setdefault(node.target.id, node)
    return defs


def target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
