"""Register a training-arguments class in ``hparams/training_args/_registry.py``.

Adds ``from .<module> import <Class>`` among the sorted sibling imports and ``"key": Class,`` as
the last entry of ``_TRAINING_ARGS_REGISTRY``; the inverse removes both (the import only when no
other key still maps to the class, as ``grpo`` and ``grpo-guard`` share one).
"""

from __future__ import annotations

import libcst as cst

from ffgen.checkout import layout

from . import _imports, _registry_dict
from .base import EditResult, run_edit

REGISTRY = "_TRAINING_ARGS_REGISTRY"
_FIX = "add the entry by hand or restore the registry"


def add_args_registry_entry(
    code: str, *, key: str, module: str, class_name: str, path: str = layout.ARGS_REGISTRY
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        registry = _registry_dict.require_dict(tree, REGISTRY, how_to_fix=_FIX)
        value = _registry_dict.entry_value(registry, key)
        if value is not None:
            _registry_dict.check_value(tree, REGISTRY, key, value, class_name)
        tree = _imports.ensure_import(tree, module, class_name)
        if value is None:
            registry = _registry_dict.require_dict(tree, REGISTRY, how_to_fix=_FIX)
            tree = _registry_dict.append(tree, registry, key, cst.Name(class_name))
        return tree

    return run_edit(code, path, edit)


def remove_args_registry_entry(
    code: str, *, key: str, module: str, class_name: str, path: str = layout.ARGS_REGISTRY
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        registry = _registry_dict.require_dict(tree, REGISTRY, how_to_fix=_FIX)
        value = _registry_dict.entry_value(registry, key)
        if value is not None:
            _registry_dict.check_value(tree, REGISTRY, key, value, class_name)
            tree = _registry_dict.remove(tree, registry, key)
        return _imports.remove_import(tree, module, class_name)

    return run_edit(code, path, edit)
