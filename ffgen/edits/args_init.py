"""Re-export a training-arguments class from ``hparams/training_args/__init__.py``.

The import joins the sorted ``from .<module> import`` lines; the name goes into ``__all__`` after
the last ``*TrainingArguments`` entry (before ``"TeacherConfig"`` in the reference layout).
"""

from __future__ import annotations

import libcst as cst

from ffgen.checkout import layout

from . import _imports, _module
from .base import EditResult, run_edit

SUFFIX = "TrainingArguments"
CONFIG_ANCHOR = "TeacherConfig"


def add_args_init_export(
    code: str, *, module: str, class_name: str, path: str = layout.ARGS_INIT
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        _module.require_all(tree)
        tree = _imports.ensure_import(tree, module, class_name)
        names = _module.all_names(_module.require_all(tree))
        return _module.add_to_all(tree, class_name, all_position(names))

    return run_edit(code, path, edit)


def all_position(names: list[str | None]) -> int:
    """After the last ``*TrainingArguments``; else before ``TeacherConfig``; else at the end."""
    ours = [i for i, name in enumerate(names) if name and name.endswith(SUFFIX)]
    if ours:
        return ours[-1] + 1
    if CONFIG_ANCHOR in names:
        return names.index(CONFIG_ANCHOR)
    return len(names)


def remove_args_init_export(
    code: str, *, module: str, class_name: str, path: str = layout.ARGS_INIT
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        tree = _module.remove_from_all(tree, class_name)
        return _imports.remove_import(tree, module, class_name)

    return run_edit(code, path, edit)
