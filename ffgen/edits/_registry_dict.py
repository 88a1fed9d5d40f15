"""The literal ``{"key": value, ...}`` registries: find one, read an entry, append, remove."""

from __future__ import annotations

import libcst as cst

from . import _module, _sequence
from .base import EditFailure


def require_dict(tree: cst.Module, name: str, *, how_to_fix: str) -> cst.Dict:
    value = _module.assigned_value(tree, name)
    if not isinstance(value, cst.Dict):
        raise EditFailure(f"no `{name} = {{...}}` dict literal found; {how_to_fix}")
    return value


def keys(registry: cst.Dict) -> list[str | None]:
    return [
        _module.string_value(e.key) if isinstance(e, cst.DictElement) else None
        for e in registry.elements
    ]


def entry_value(registry: cst.Dict, key: str) -> cst.BaseExpression | None:
    found = keys(registry)
    if key not in found:
        return None
    element = registry.elements[found.index(key)]
    assert isinstance(element, cst.DictElement)
    return element.value


def check_value(
    tree: cst.Module, name: str, key: str, value: cst.BaseExpression, wanted: str
) -> None:
    """A key that maps elsewhere is a conflict: never overwrite someone's registration."""
    have = _module.string_value(value)
    if have is None:
        have = tree.code_for_node(value)
    if have != wanted:
        raise EditFailure(
            f'`"{key}"` in `{name}` already maps to `{have}`, not `{wanted}`; '
            "pick another key or remove the existing entry first"
        )


def append(tree: cst.Module, registry: cst.Dict, key: str, value: cst.BaseExpression) -> cst.Module:
    """Add ``"key": value`` as the last entry (registries are in chronological order)."""
    siblings = [e.key for e in registry.elements if isinstance(e, cst.DictElement)]
    element = cst.DictElement(key=_module.string_like(siblings, key), value=value)
    new = _sequence.insert(registry, len(registry.elements), element)
    return _module.replace(tree, registry, new)


def remove(tree: cst.Module, registry: cst.Dict, key: str) -> cst.Module:
    index = keys(registry).index(key)
    return _module.replace(tree, registry, _sequence.remove(registry, index))
