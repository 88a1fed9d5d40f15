"""Symbol-aware renames for copying an algorithm: identifiers, keys in strings, relative imports.

Only what is bound to the source algorithm changes. An identifier is renamed when it *is* one of
the source's names (a libcst ``Name`` node equal to it), never when it merely contains it; a
registry key is renamed in a string that is exactly the key, and where the key stands as a whole
token (not next to a letter, digit, ``_``, ``-``, ``.`` or ``/``), so ``grpo`` never touches
``grpo-guard``, ``grpo_advantages`` or ``trainers.rl.grpo``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.helpers import get_full_name_for_node

_TOKEN_EDGE = r"A-Za-z0-9_\-./"
_WORD_EDGE = r"A-Za-z0-9_"


@dataclass(frozen=True)
class Renames:
    """What changes in a copy: identifiers, registry keys, and absolute module paths."""

    names: Mapping[str, str]  # identifier -> identifier (the classes, exact match)
    keys: Mapping[str, str]  # registry key -> new key
    modules: Mapping[str, str]  # absolute dotted module -> absolute dotted module
    source_package: str  # package the source module's relative imports start from
    target_package: str  # package the copy's relative imports start from

    def text(self, raw: str) -> str:
        """Keys as whole tokens and names as whole words inside prose (strings, comments)."""
        for old, new in self.keys.items():
            raw = re.sub(rf"(?<![{_TOKEN_EDGE}]){re.escape(old)}(?![{_TOKEN_EDGE}])", new, raw)
        for old, new in self.names.items():
            raw = re.sub(rf"(?<![{_WORD_EDGE}]){re.escape(old)}(?![{_WORD_EDGE}])", new, raw)
        return raw


def absolute_module(package: str, level: int, module: str | None) -> str:
    """Where ``from <level dots><module> import`` points, seen from ``package``."""
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base)


def relative_to(package: str, target: str) -> tuple[int, str | None]:
    """``(level, module)`` of a relative import of ``target`` from ``package``."""
    pkg, tgt = package.split("."), target.split(".")
    common = 0
    while common < min(len(pkg), len(tgt)) and pkg[common] == tgt[common]:
        common += 1
    rest = ".".join(tgt[common:])
    return len(pkg) - common + 1, rest or None


def module_node(dotted: str | None) -> cst.Attribute | cst.Name | None:
    if not dotted:
        return None
    node = cst.parse_expression(dotted)
    assert isinstance(node, cst.Attribute | cst.Name)
    return node


class RenameTransformer(cst.CSTTransformer):
    """Applies :class:`Renames` to one statement (or a whole module)."""

    def __init__(self, renames: Renames) -> None:
        super().__init__()
        self.renames = renames
        self._members: set[int] = set()  # ``x.Name`` and ``f(Name=...)``: not the class

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._members.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._members.add(id(node.keyword))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        new = self.renames.names.get(updated.value)
        if new is None or id(original) in self._members:
            return updated
        return updated.with_changes(value=new)

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.SimpleString:
        value = updated.evaluated_value
        if isinstance(value, str) and value in self.renames.keys:
            quote = updated.quote
            prefix = updated.prefix
            return updated.with_changes(value=f"{prefix}{quote}{self.renames.keys[value]}{quote}")
        return updated.with_changes(value=self.renames.text(updated.value))

    def leave_FormattedStringText(
        self, original: cst.FormattedStringText, updated: cst.FormattedStringText
    ) -> cst.FormattedStringText:
        return updated.with_changes(value=self.renames.text(updated.value))

    def leave_Comment(self, original: cst.Comment, updated: cst.Comment) -> cst.Comment:
        return updated.with_changes(value=self.renames.text(updated.value))

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        level = len(updated.relative)
        module = get_full_name_for_node(updated.module) if updated.module else None
        where = absolute_module(self.renames.source_package, level, module)
        target = self.renames.modules.get(where, where)
        if level == 0:
            if target == where:
                return updated
            return updated.with_changes(module=module_node(target))
        new_level, new_module = relative_to(self.renames.target_package, target)
        return updated.with_changes(
            relative=[cst.Dot() for _ in range(new_level)], module=module_node(new_module)
        )


def rename(node: cst.CSTNode, renames: Renames) -> cst.CSTNode:
    return node.visit(RenameTransformer(renames))
