"""Re-export a trainer from its category package ``trainers/<category>/__init__.py``.

Only categories that already re-export trainers (``offline`` in the reference) take the edit: the
import joins the sorted ``from .<module> import`` lines and ``__all__`` stays sorted. A
docstring-only ``__init__.py`` (``rl``, ``distillation``) is skipped.
"""

from __future__ import annotations

import libcst as cst

from . import _imports, _module, _order
from .base import EditResult, EditSkipped, run_edit


def add_category_reexport(code: str, *, module: str, class_name: str, path: str) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        _require_reexports(tree)
        tree = _add_import(tree, module, class_name)
        sequence = _module.all_sequence(tree)
        if sequence is None:
            return tree
        keys = [_key(name) for name in _module.all_names(sequence)]
        at = _order.position(keys, _order.name_key(class_name))
        return _module.add_to_all(tree, class_name, at)

    return run_edit(code, path, edit)


def _key(name: str | None) -> str | None:
    return _order.name_key(name) if name else None


def _require_reexports(tree: cst.Module) -> None:
    if not _imports.sibling_imports(tree) and _module.all_sequence(tree) is None:
        raise EditSkipped(
            "the category package does not re-export its trainers (no `from .x import` lines, "
            "no `__all__`); nothing to add"
        )


def _add_import(tree: cst.Module, module: str, class_name: str) -> cst.Module:
    if _imports.sibling_imports(tree) or _imports.check_binding(tree, module, class_name):
        return _imports.ensure_import(tree, module, class_name)
    # Only an `__all__` so far: the first import goes right above it.
    index = next(i for i, s in enumerate(tree.body) if _assigns_all(s))
    tree = _module.insert_statement(tree, index, _imports.import_line(module, class_name))
    body = list(tree.body)
    body[index + 1] = body[index + 1].with_changes(leading_lines=[cst.EmptyLine()])
    return tree.with_changes(body=body)


def _assigns_all(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(_module.value_if_assigns(s, _module.ALL) is not None for s in statement.body)


def remove_category_reexport(code: str, *, module: str, class_name: str, path: str) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        _require_reexports(tree)
        tree = _module.remove_from_all(tree, class_name)
        return _remove_import(tree, module, class_name)

    return run_edit(code, path, edit)


def _remove_import(tree: cst.Module, module: str, class_name: str) -> cst.Module:
    """Like :func:`_imports.remove_import`; when the last sibling import goes and ``__all__``
    followed it, ``__all__`` gets back the lines that stood above the import, undoing the blank
    line :func:`_add_import` put between them."""
    siblings = _imports.sibling_imports(tree)
    removed = _imports.remove_import(tree, module, class_name)
    if len(siblings) != 1 or len(removed.body) != len(tree.body) - 1:
        return removed
    index = siblings[0].body_index
    if index >= len(removed.body) or not _assigns_all(removed.body[index]):
        return removed
    if any(line.comment is not None for line in tree.body[index + 1].leading_lines):
        return removed
    body = list(removed.body)
    body[index] = body[index].with_changes(leading_lines=tree.body[index].leading_lines)
    return removed.with_changes(body=body)
