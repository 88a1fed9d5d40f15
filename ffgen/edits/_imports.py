"""Module-level ``from . import`` statements: who binds which name, and adding/removing one."""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.helpers import get_full_name_for_node

from . import _module, _order, _sequence
from .base import EditFailure


@dataclasses.dataclass(frozen=True, slots=True)
class FromImport:
    """One top-level ``from <dots><module> import ...`` and where it sits in the module body."""

    body_index: int
    node: cst.ImportFrom
    level: int
    module: str | None

    @property
    def origin(self) -> str:
        return "." * self.level + (self.module or "")

    def names(self) -> list[tuple[str, str]]:
        """``(bound name, imported name)`` pairs; empty for ``import *``."""
        if isinstance(self.node.names, cst.ImportStar):
            return []
        pairs = []
        for alias in self.node.names:
            imported = get_full_name_for_node(alias.name) or ""
            bound = get_full_name_for_node(alias.asname.name) if alias.asname else imported
            pairs.append((bound or imported, imported))
        return pairs


def from_imports(tree: cst.Module) -> list[FromImport]:
    found = []
    for index, statement in enumerate(tree.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom):
                module = get_full_name_for_node(small.module) if small.module else None
                found.append(FromImport(index, small, len(small.relative), module))
    return found


def sibling_imports(tree: cst.Module) -> list[FromImport]:
    """The ``from .<module> import`` lines (one dot, a module name) that new ones join."""
    return [imp for imp in from_imports(tree) if imp.level == 1 and imp.module]


def binding(tree: cst.Module, name: str) -> tuple[FromImport, str] | None:
    """Which from-import binds ``name`` (and under which imported name)."""
    for imp in from_imports(tree):
        for bound, imported in imp.names():
            if bound == name:
                return imp, imported
    return None


def check_binding(tree: cst.Module, module: str, name: str) -> bool:
    """True when ``from .<module> import <name>`` is there; a clash is an :class:`EditFailure`."""
    found = binding(tree, name)
    if found is None:
        return False
    imp, imported = found
    if imp.level == 1 and imp.module == module and imported == name:
        return True
    raise EditFailure(
        f"`{name}` is already imported from `{imp.origin}`, not `.{module}`; "
        "pick another class name or resolve the clash by hand"
    )


def ensure_import(tree: cst.Module, module: str, name: str) -> cst.Module:
    """Add ``from .<module> import <name>`` in module order among the sibling imports."""
    if check_binding(tree, module, name):
        return tree
    siblings = sibling_imports(tree)
    same = [imp for imp in siblings if imp.module == module and imp.names()]
    if same:
        return add_name(tree, same[0].node, name)
    if not siblings:
        raise EditFailure(
            f"no `from .<module> import ...` lines found to place `from .{module} import {name}` "
            "among; add the import by hand"
        )
    return insert_import(tree, siblings, module, name)


def insert_import(
    tree: cst.Module, siblings: list[FromImport], module: str, name: str
) -> cst.Module:
    statement = import_line(module, name)
    keys = [_order.module_key(imp.module or "") for imp in siblings]
    at = _order.position(keys, _order.module_key(module))
    if at == 0:
        return _module.insert_statement(tree, siblings[0].body_index, statement)
    return _module.insert_statement_after(tree, siblings[at - 1].body_index, statement)


def import_line(module: str, name: str) -> cst.SimpleStatementLine:
    node = cst.ImportFrom(
        module=cst.Name(module),
        names=[cst.ImportAlias(name=cst.Name(name))],
        relative=[cst.Dot()],
    )
    return cst.SimpleStatementLine(body=[node])


def add_name(tree: cst.Module, node: cst.ImportFrom, name: str) -> cst.Module:
    """Add ``name`` to an existing from-import in isort order."""
    assert not isinstance(node.names, cst.ImportStar)
    keys = [_order.name_key(get_full_name_for_node(a.name) or "") for a in node.names]
    at = _order.position(keys, _order.name_key(name))
    alias = cst.ImportAlias(name=cst.Name(name))
    return _module.replace(tree, node, _sequence.insert(node, at, alias))


def remove_import(tree: cst.Module, module: str, name: str) -> cst.Module:
    """Drop ``name`` from ``from .<module> import`` unless the module still uses it."""
    found = binding(tree, name)
    if found is None or _module.uses_name(tree, name):
        return tree
    imp, imported = found
    if imp.level != 1 or imp.module != module or imported != name:
        return tree
    names = [bound for bound, _ in imp.names()]
    if len(names) > 1:
        node = _sequence.remove(imp.node, names.index(name))
        return _module.replace(tree, imp.node, node)
    return _remove_small_statement(tree, imp)


def _remove_small_statement(tree: cst.Module, imp: FromImport) -> cst.Module:
    statement = tree.body[imp.body_index]
    assert isinstance(statement, cst.SimpleStatementLine)
    rest = [small for small in statement.body if small is not imp.node]
    if not rest:
        return _module.remove_statement(tree, imp.body_index)
    # `a; b` on one line: keep the others and drop the now-dangling semicolon.
    rest[-1] = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return _module.replace(tree, statement, statement.with_changes(body=rest))
