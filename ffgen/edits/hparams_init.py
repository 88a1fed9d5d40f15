"""Re-export a training-arguments class from ``hparams/__init__.py``.

The name joins the parenthesised ``from .training_args import (...)`` block in isort order and
goes into ``__all__`` before ``"TeacherConfig"`` (fallback: after the last ``*TrainingArguments``).
"""

from __future__ import annotations

import libcst as cst

from ffgen.checkout import layout

from . import _imports, _module
from .args_init import SUFFIX
from .base import EditFailure, EditResult, run_edit

SOURCE = "training_args"
CONFIG_ANCHOR = "TeacherConfig"


def add_hparams_reexport(
    code: str, *, class_name: str, path: str = layout.HPARAMS_INIT
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        block = _require_block(tree)
        _module.require_all(tree)
        if not _imports.check_binding(tree, SOURCE, class_name):
            tree = _imports.add_name(tree, block.node, class_name)
        names = _module.all_names(_module.require_all(tree))
        return _module.add_to_all(tree, class_name, all_position(names))

    return run_edit(code, path, edit)


def _require_block(tree: cst.Module) -> _imports.FromImport:
    for imp in _imports.sibling_imports(tree):
        if imp.module == SOURCE and imp.names():
            return imp
    raise EditFailure(
        f"no `from .{SOURCE} import (...)` block found; add the re-export by hand or restore it"
    )


def all_position(names: list[str | None]) -> int:
    """Before ``TeacherConfig``; else after the last ``*TrainingArguments``; else at the end."""
    if CONFIG_ANCHOR in names:
        return names.index(CONFIG_ANCHOR)
    ours = [i for i, name in enumerate(names) if name and name.endswith(SUFFIX)]
    return ours[-1] + 1 if ours else len(names)


def remove_hparams_reexport(
    code: str, *, class_name: str, path: str = layout.HPARAMS_INIT
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        tree = _module.remove_from_all(tree, class_name)
        return _imports.remove_import(tree, SOURCE, class_name)

    return run_edit(code, path, edit)
