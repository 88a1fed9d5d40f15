"""Where an algorithm's code still reads a hyperparameter ``param remove`` would take away.

A read is ``<x>.training_args.NAME`` (``self.``, ``trainer.``, ``self.config.``, ...), a read of
``NAME`` through a local name bound only to such an expression (``args = self.training_args``,
as the generated trainers write it) or through a name ``training_args``, and
``getattr(<those>, "NAME")`` without a default. Guarded reads (a ``getattr`` default) cannot
fail and do not count. Every Python file of the tree as the removal would leave it is read, so a
generated file the removal re-renders (the arguments test) no longer counts, and one the user
edited (the trainer, the per-algorithm test) does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ARGS_ATTR = "training_args"


@dataclass(frozen=True, slots=True)
class FieldRead:
    """One read of a field: where, and which field."""

    path: str
    line: int
    name: str

    def describe(self) -> str:
        return f"{self.path}:{self.line} still reads training_args.{self.name}"


def field_reads(texts: Mapping[str, str], names: Iterable[str]) -> list[FieldRead]:
    """Every read of ``names`` in the Python files ``texts`` (path -> text), in path order."""
    wanted = frozenset(names)
    found: list[FieldRead] = []
    for path in sorted(texts):
        if not path.endswith(".py") or not wanted:
            continue
        try:
            tree = ast.parse(texts[path])
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            continue  # ``update``'s own checks name a file that does not parse
        for line, name in _reads(tree, wanted):
            found.append(FieldRead(path, line, name))
    return found


def _reads(tree: ast.Module, wanted: frozenset[str]) -> list[tuple[int, str]]:
    scopes: list[ast.AST] = [tree, *(n for n in ast.walk(tree)
                                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]
    out: set[tuple[int, str]] = set()
    for scope in scopes:
        aliases = _aliases(scope)
        for node in _own_nodes(scope):
            name = _read_name(node, aliases)
            if name in wanted:
                out.add((node.lineno, name))
    return sorted(out)


def _own_nodes(scope: ast.AST) -> Iterable[ast.AST]:
    """The nodes of ``scope`` outside the functions nested in it (each is a scope of its own)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))


def _is_args(expr: ast.AST, aliases: frozenset[str]) -> bool:
    if isinstance(expr, ast.Attribute):
        return expr.attr == ARGS_ATTR
    return isinstance(expr, ast.Name) and (expr.id == ARGS_ATTR or expr.id in aliases)


def _aliases(scope: ast.AST) -> frozenset[str]:
    """Local names every binding of which (in this scope) is the training arguments."""
    bound: dict[str, int] = {}
    stores: dict[str, int] = {}
    aliases: frozenset[str] = frozenset()
    for _ in range(2):  # an alias of an alias
        bound.clear()
        stores.clear()
        for node in _own_nodes(scope):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and _is_args(node.value, aliases):
                bound[node.targets[0].id] = bound.get(node.targets[0].id, 0) + 1
        aliases = frozenset(n for n, k in bound.items() if k == stores.get(n))
    return aliases


def _read_name(node: ast.AST, aliases: frozenset[str]) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr if _is_args(node.value, aliases) else None
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr":
        if len(node.args) == 2 and not node.keywords and _is_args(node.args[0], aliases):
            key = node.args[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return key.value
    return None
