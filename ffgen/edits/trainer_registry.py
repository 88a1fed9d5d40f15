"""Register a trainer's lazy dotted path in ``trainers/registry.py`` (``_TRAINER_REGISTRY``)."""

from __future__ import annotations

import libcst as cst

from ffgen.checkout import layout

from . import _module, _registry_dict
from .base import EditResult, run_edit

REGISTRY = "_TRAINER_REGISTRY"
_FIX = "add the entry by hand or restore the registry"


def add_trainer_registry_entry(
    code: str, *, key: str, dotted_path: str, path: str = layout.TRAINER_REGISTRY
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        registry = _registry_dict.require_dict(tree, REGISTRY, how_to_fix=_FIX)
        value = _registry_dict.entry_value(registry, key)
        if value is not None:
            _registry_dict.check_value(tree, REGISTRY, key, value, dotted_path)
            return tree
        values = [e.value for e in registry.elements if isinstance(e, cst.DictElement)]
        return _registry_dict.append(tree, registry, key, _module.string_like(values, dotted_path))

    return run_edit(code, path, edit)


def remove_trainer_registry_entry(
    code: str, *, key: str, dotted_path: str, path: str = layout.TRAINER_REGISTRY
) -> EditResult:
    def edit(tree: cst.Module) -> cst.Module:
        registry = _registry_dict.require_dict(tree, REGISTRY, how_to_fix=_FIX)
        value = _registry_dict.entry_value(registry, key)
        if value is None:
            return tree
        _registry_dict.check_value(tree, REGISTRY, key, value, dotted_path)
        return _registry_dict.remove(tree, registry, key)

    return run_edit(code, path, edit)
