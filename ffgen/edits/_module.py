"""Finding and replacing things at module level: assignments, strings, statements, ``__all__``."""

from __future__ import annotations

from typing import cast

import libcst as cst

from . import _sequence
from .base import EditFailure

ALL = "__all__"


def assigned_value(tree: cst.Module, name: str) -> cst.BaseExpression | None:
    """The value of the last module-level ``name = ...`` / ``name: T = ...`` (the one that wins)."""
    found = None
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = value_if_assigns(small, name)
            found = value if value is not None else found
    return found


def top_level_class(tree: cst.Module, name: str) -> cst.ClassDef | None:
    """The module-level ``class name`` (the first, as the edits take it), or None."""
    for statement in tree.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == name:
            return statement
    return None


def value_if_assigns(small: cst.BaseSmallStatement, name: str) -> cst.BaseExpression | None:
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
        if any(isinstance(t, cst.Name) and t.value == name for t in targets):
            return small.value
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        if isinstance(small.target, cst.Name) and small.target.value == name:
            return small.value
    return None


def replace(tree: cst.Module, old: cst.CSTNode, new: cst.CSTNode) -> cst.Module:
    """``tree.deep_replace(old, new)`` (``old`` found by identity). Every edit here changes a
    top-level statement, one of its small statements or the value one of those binds: those are
    rebuilt along their path, since libcst's visit of the whole module costs more than parsing
    it; anything deeper falls back to the full visit."""
    body = list(tree.body)
    for index, statement in enumerate(body):
        changed = _replaced_in(statement, old, new)
        if changed is not None:
            body[index] = changed
            return tree.with_changes(body=body)
    return cast(cst.Module, tree.deep_replace(old, new))


def _replaced_in(statement: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode):
    if statement is old:
        return new
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    for index, small in enumerate(statement.body):
        if small is old:
            inner = new
        elif isinstance(small, cst.Assign | cst.AnnAssign) and small.value is old:
            inner = small.with_changes(value=new)
        else:
            continue
        return statement.with_changes(body=[*statement.body[:index], inner,
                                            *statement.body[index + 1:]])
    return None


def string_value(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def string_like(siblings: list[cst.CSTNode], text: str) -> cst.SimpleString:
    """A string literal quoted the way the existing ones are (double quotes when unsure)."""
    quote = '"'
    for node in siblings:
        if isinstance(node, cst.SimpleString):
            quote = "'" if node.value.lstrip("rRbBuU").startswith("'") else '"'
            break
    if quote in text or "\\" in text or "\n" in text:
        raise EditFailure(f"cannot write {text!r} as a plain string literal; use a simpler name")
    return cst.SimpleString(f"{quote}{text}{quote}")


def insert_statement(
    tree: cst.Module, index: int, statement: cst.SimpleStatementLine
) -> cst.Module:
    """Insert at ``index``; the new line takes over the blank/comment lines above it so a group
    stays visually one block."""
    body = list(tree.body)
    if index < len(body):
        follower = body[index]
        statement = statement.with_changes(leading_lines=follower.leading_lines)
        body[index] = follower.with_changes(leading_lines=())
    body.insert(index, statement)
    return tree.with_changes(body=body)


def insert_statement_after(
    tree: cst.Module, index: int, statement: cst.SimpleStatementLine
) -> cst.Module:
    """Insert directly after ``body[index]``; blank/comment lines above the next one stay there."""
    body = list(tree.body)
    body.insert(index + 1, statement.with_changes(leading_lines=()))
    return tree.with_changes(body=body)


def remove_statement(tree: cst.Module, index: int) -> cst.Module:
    """Drop ``body[index]``; its leading lines go to the next statement (undoing the inserts)."""
    body = list(tree.body)
    gone = body.pop(index)
    if gone.leading_lines and index < len(body):
        follower = body[index]
        kept = follower.leading_lines
        if all(line.comment is None for line in kept):
            kept = ()
        leading = [*gone.leading_lines, *kept]
        body[index] = follower.with_changes(leading_lines=leading)
    return tree.with_changes(body=body)


def all_sequence(tree: cst.Module) -> cst.List | cst.Tuple | None:
    """The ``__all__`` literal, ``None`` when the module has no ``__all__``."""
    value = assigned_value(tree, ALL)
    if value is None:
        return None
    if not isinstance(value, cst.List | cst.Tuple):
        raise EditFailure("`__all__` is not a list or tuple literal; edit it by hand")
    return value


def require_all(tree: cst.Module) -> cst.List | cst.Tuple:
    found = all_sequence(tree)
    if found is None:
        raise EditFailure("no `__all__ = [...]` list found; add the name by hand or restore it")
    return found


def all_names(sequence: cst.List | cst.Tuple) -> list[str | None]:
    return [string_value(element.value) for element in sequence.elements]


def add_to_all(tree: cst.Module, name: str, index: int) -> cst.Module:
    sequence = require_all(tree)
    if name in all_names(sequence):
        return tree
    values = [element.value for element in sequence.elements]
    element = cst.Element(value=string_like(values, name))
    return replace(tree, sequence, _sequence.insert(sequence, index, element))


def remove_from_all(tree: cst.Module, name: str) -> cst.Module:
    sequence = all_sequence(tree)
    if sequence is None or name not in all_names(sequence):
        return tree
    index = all_names(sequence).index(name)
    return replace(tree, sequence, _sequence.remove(sequence, index))


def uses_name(tree: cst.Module, name: str) -> bool:
    """True when ``name`` is referenced anywhere other than in an import statement."""
    finder = _NameUse(name)
    tree.visit(finder)
    return finder.used


class _NameUse(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.used = False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.used = self.used or node.value == self.name


def uses_attribute(node: cst.CSTNode, owner: str, attr: str | None = None) -> bool:
    """True when ``owner.attr`` (any attribute of ``owner`` when ``attr`` is None) appears
    anywhere in ``node``."""
    finder = _AttributeUse(owner, attr)
    node.visit(finder)
    return finder.found


class _AttributeUse(cst.CSTVisitor):
    def __init__(self, owner: str, attr: str | None) -> None:
        super().__init__()
        self.owner, self.attr, self.found = owner, attr, False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        value = node.value
        if isinstance(value, cst.Name) and value.value == self.owner:
            if self.attr is None or node.attr.value == self.attr:
                self.found = True
