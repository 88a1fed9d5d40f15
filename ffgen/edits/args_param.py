"""Add or remove one hyperparameter in a generated arguments class (``ffgen param``).

The field goes after the class's last field, its checks at the end of ``__post_init__``, and
``import math`` before the first import when the checks need it: where the templates put them,
so on an unedited module the edit gives exactly the template's render. On a module the user
edited, the same text lands in the same places, whatever else changed around it. Both edits are
idempotent; a missing anchor (the class, ``__post_init__``) is a one-line failure naming it.
"""

from __future__ import annotations

import textwrap
from typing import Protocol

import libcst as cst

from . import _module
from .base import EditFailure, EditResult, run_edit


class ParamText(Protocol):
    """What the edit inserts (``ffgen.generate.param_code.ParamView`` has it)."""

    name: str
    field: str
    checks: str
    uses_math: bool


def add_param(code: str, param: ParamText, *, class_name: str, path: str) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        cls = _require_class(tree, class_name, param.name)
        body = list(cls.body.body)
        if _field_index(body, param.name) is None:
            body.insert(_after_last_field(body), _statements(param.field)[0])
        body = _with_checks(body, class_name, param)
        tree = _module.replace(tree, cls, cls.with_changes(body=cls.body.with_changes(body=body)))
        if param.uses_math and _math_import(tree) is None:
            math_import = _statements("import math")[0]
            tree = _module.insert_statement(tree, _first_import(tree), math_import)
        return tree

    return run_edit(code, path, edit)


def remove_param(code: str, param: ParamText, *, class_name: str, path: str) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        cls = _require_class(tree, class_name, param.name)
        body = list(cls.body.body)
        index = _field_index(body, param.name)
        if index is not None:
            body.pop(index)
        body = _without_checks(body, class_name, param)
        new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
        if _module.uses_attribute(new_cls, "self", param.name):
            raise EditFailure(
                f"{class_name} still reads self.{param.name} (checks you changed, or code of "
                "your own); remove those lines by hand, then re-run"
            )
        tree = _module.replace(tree, cls, new_cls)
        math_at = _math_import(tree)
        if param.uses_math and math_at is not None and not _module.uses_attribute(tree, "math"):
            tree = _module.remove_statement(tree, math_at)
        return tree

    return run_edit(code, path, edit)


# -- the anchors ---------------------------------------------------------------------------------


def _require_class(tree: cst.Module, class_name: str, name: str) -> cst.ClassDef:
    found = _module.top_level_class(tree, class_name)
    if found is not None:
        return found
    raise EditFailure(
        f"no class {class_name} found; restore it, or edit the field {name!r} by hand"
    )


def _post_init_index(body: list, class_name: str, name: str) -> int:
    for index, statement in enumerate(body):
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__post_init__":
            return index
    raise EditFailure(
        f"{class_name} has no __post_init__; restore it, or edit the checks of {name!r} by hand"
    )


def _field_index(body: list, name: str) -> int | None:
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                target = getattr(small, "target", None)
                if isinstance(small, cst.AnnAssign) and isinstance(target, cst.Name):
                    if target.value == name:
                        return index
    return None


def _after_last_field(body: list) -> int:
    """Just after the last annotated field before the first method (the class's field block)."""
    last = 0
    for index, statement in enumerate(body):
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            break
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(small, cst.AnnAssign) for small in statement.body
        ):
            last = index + 1
    return last


# -- the checks in __post_init__ -----------------------------------------------------------------


def _with_checks(body: list, class_name: str, param: ParamText) -> list:
    index = _post_init_index(body, class_name, param.name)
    func = body[index]
    checks = _statements(param.checks)
    statements = list(func.body.body)
    if _run_at(statements, checks) is None:
        statements += checks
        body[index] = func.with_changes(body=func.body.with_changes(body=statements))
    return body


def _without_checks(body: list, class_name: str, param: ParamText) -> list:
    index = _post_init_index(body, class_name, param.name)
    func = body[index]
    checks = _statements(param.checks)
    statements = list(func.body.body)
    start = _run_at(statements, checks)
    if start is not None:
        del statements[start : start + len(checks)]
        body[index] = func.with_changes(body=func.body.with_changes(body=statements))
    return body


def _run_at(statements: list, run: list) -> int | None:
    """Where ``run`` appears as consecutive statements (blank lines and comments above them
    aside), or None."""
    bare = [_bare(s) for s in run]
    for start in range(len(statements) - len(run) + 1):
        window = statements[start : start + len(run)]
        if all(_bare(s).deep_equals(r) for s, r in zip(window, bare, strict=True)):
            return start
    return None


def _bare(statement: cst.CSTNode) -> cst.CSTNode:
    return statement.with_changes(leading_lines=())


def _statements(code: str) -> list:
    return list(cst.parse_module(textwrap.dedent(code).strip("\n") + "\n").body)


# -- reads and imports -------------------------------------------------------------------------


def _math_import(tree: cst.Module) -> int | None:
    """The index of a plain ``import math`` line, or None."""
    for index, statement in enumerate(tree.body):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Import) and len(small.names) == 1:
                alias = small.names[0]
                if alias.asname is None and getattr(alias.name, "value", None) == "math":
                    return index
    return None


def _first_import(tree: cst.Module) -> int:
    """The first import after any ``from __future__``: where ``import math`` sorts first."""
    for index, statement in enumerate(tree.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        small = statement.body[0] if statement.body else None
        if isinstance(small, cst.Import):
            return index
        if isinstance(small, cst.ImportFrom) and getattr(small.module, "value", "") != "__future__":
            return index
    return 0
