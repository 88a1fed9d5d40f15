"""``_module.replace`` is libcst's ``deep_replace``, cheaper: the same tree for every target, and
no whole-module visit for the top-level ones the edits change."""

from __future__ import annotations

import libcst as cst
import pytest

from ffgen.edits import _module

SOURCE = '''"""doc"""
from a import (b,
    c)
import d; X: dict = {"k": 1}
REGISTRY = {
    "x": "m.X",  # keep me
}
__all__ = ["X"]


class Args:
    field: int = 1

    def method(self):
        return {"inner": 2}
'''


def _targets(tree: cst.Module) -> dict[str, cst.CSTNode]:
    line = tree.body[2]
    method = tree.body[5].body.body[1]
    return {
        "statement": tree.body[1],
        "small statement": line.body[0],
        "annotated value": line.body[1].value,
        "assigned value": tree.body[3].body[0].value,
        "class": tree.body[5],
        "deep (method's return value)": method.body.body[0].body[0].value,
    }


def _new_for(node: cst.CSTNode) -> cst.CSTNode:
    if isinstance(node, cst.Dict):
        return node.with_changes(elements=[*node.elements, cst.DictElement(
            cst.SimpleString('"added"'), cst.Integer("3"))])
    if isinstance(node, cst.ClassDef):
        return node.with_changes(name=cst.Name("Renamed"))
    if isinstance(node, cst.Import):
        return cst.Import(names=[cst.ImportAlias(cst.Name("e"))])
    return cst.parse_statement("import z\n")


@pytest.mark.parametrize("what", list(_targets(cst.parse_module(SOURCE))))
def test_replace_gives_deep_replace_s_tree(what):
    tree = cst.parse_module(SOURCE)
    old = _targets(tree)[what]
    new = _new_for(old)
    assert _module.replace(tree, old, new).code == tree.deep_replace(old, new).code
    assert _module.replace(tree, old, new).code != SOURCE


def test_top_level_targets_need_no_whole_module_visit(monkeypatch):
    tree = cst.parse_module(SOURCE)
    targets = _targets(tree)
    del targets["deep (method's return value)"]

    def visit_everything(*_):
        raise AssertionError("deep_replace used for a top-level target")

    monkeypatch.setattr(cst.Module, "deep_replace", visit_everything)
    for old in targets.values():
        _module.replace(tree, old, _new_for(old))
