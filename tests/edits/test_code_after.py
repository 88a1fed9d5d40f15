"""``code_after`` writes out only what an edit replaced, and falls back to the whole module
wherever the place of the replaced statements is not certain."""

import libcst as cst
import pytest

from ffgen.edits.base import code_after  # the function itself (conftest wraps base's)

SOURCE = '''"""Doc."""

import a  # first
from b import c

X = {"k": 1}


def f():
    return X
'''


def _edited(text, change):
    old = cst.parse_module(text)
    body = list(old.body)
    change(body)
    return old, old.with_changes(body=body)


@pytest.mark.parametrize("change", [
    lambda body: body.__setitem__(3, cst.parse_statement('X = {"k": 2}\n')),  # one replaced
    lambda body: body.insert(0, cst.parse_statement("import z\n")),  # before the first
    lambda body: body.append(cst.parse_statement("Y = 1\n")),  # after the last
    lambda body: body.insert(2, cst.parse_statement("import m\n")),  # between two
    lambda body: body.__delitem__(1),  # one removed
    lambda body: body.__setitem__(slice(1, 3), [cst.parse_statement("import q\n")]),
])
def test_the_spliced_text_is_the_whole_module_s(change):
    old, new = _edited(SOURCE, change)
    assert code_after(old, new, SOURCE) == new.code


def test_a_piece_found_twice_or_not_at_all_writes_the_whole_module(monkeypatch):
    twice = SOURCE + 'X = {"k": 1}\n'  # the replaced statement's text occurs twice
    old, new = _edited(twice, lambda body: body.__setitem__(3, cst.parse_statement("X = 3\n")))
    written = []
    monkeypatch.setattr(cst.Module, "code", property(lambda m: written.append(m) or
                                                     m.code_for_node(m)))
    assert code_after(old, new, twice) == new.code_for_node(new)
    assert written == [new]  # the fallback, not a splice at the first occurrence
    no_newline = SOURCE.rstrip("\n")
    old, new = _edited(no_newline, lambda body: body.append(cst.parse_statement("Y = 1\n")))
    assert code_after(old, new, no_newline) == new.code_for_node(new)


def test_an_unchanged_tree_gives_the_text_back():
    old = cst.parse_module(SOURCE)
    assert code_after(old, old, SOURCE) is SOURCE
