"""Put a rendered Python module in the checkout's style (:mod:`ffgen.checkout.style`).

The templates are written once, with builtin generics (``dict[str, Any]``, ``X | None``) and no
header. For a checkout that spells generics the ``typing`` way, every annotation is rewritten
(``Dict[str, Any]``, ``Optional[X]``, ``Union[A, B]``) and the names it needs join the module's
``from typing import`` line, sorted as isort sorts them; expressions that run (``isinstance(x,
tuple | list)``) are left alone. The checkout's licence header goes first.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache

from ffgen.checkout.style import TYPING, TYPING_ALIASES, CodeStyle, annotation_nodes

LINE_LENGTH = 100
_TYPING_LINE = re.compile(r"^from typing import ([^\n()]+)\n", re.MULTILINE)
_NEWLINE = re.compile(rb"\n")


def restyle(text: str, style: CodeStyle) -> str:
    if style.generics == TYPING:
        text = typing_generics(text)
    if style.header and not text.startswith(style.header):
        text = f"{style.header}\n{text}"
    return text


@lru_cache(maxsize=32)  # a pure function of the text; the files of one run repeat across runs
def typing_generics(text: str) -> str:
    """``text`` with its annotations' builtin generics spelled the ``typing`` way.

    Each annotation's source is rewritten in place (``ast`` gives its span), so everything else,
    formatting and comments included, stays byte for byte."""
    source = text.encode("utf-8")
    lines = _line_starts(source)
    rewriter = _Rewriter(source, lines)
    found = annotation_nodes(ast.parse(text))
    edits = [(*_span(ann, lines), rewriter.rewrite(ann)) for ann in found]
    for start, stop, new in sorted(edits, reverse=True):
        source = source[:start] + new.encode("utf-8") + source[stop:]
    code = source.decode("utf-8")
    return _with_typing_import(code, rewriter.used) if rewriter.used else code


def _line_starts(source: bytes) -> list[int]:
    return [0, *(match.end() for match in _NEWLINE.finditer(source))]


def _span(node: ast.expr, lines: list[int]) -> tuple[int, int]:
    """Byte offsets of ``node`` (``ast`` columns count UTF-8 bytes)."""
    start = lines[node.lineno - 1] + node.col_offset
    return start, lines[node.end_lineno - 1] + node.end_col_offset


class _Rewriter:
    """The new source of an annotation; notes the ``typing`` names it used."""

    def __init__(self, source: bytes, lines: list[int]) -> None:
        self.source = source
        self.lines = lines
        self.used: set[str] = set()

    def rewrite(self, node: ast.expr) -> str:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union(node)
        start, stop = _span(node, self.lines)
        edits = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                edits.append((*_span(child, self.lines), self._child(node, child)))
        text = self.source[start:stop]
        for child_start, child_stop, new in sorted(edits, reverse=True):
            text = text[: child_start - start] + new.encode() + text[child_stop - start :]
        return text.decode("utf-8")

    def _child(self, parent: ast.expr, child: ast.expr) -> str:
        alias = isinstance(parent, ast.Subscript) and child is parent.value
        if alias and isinstance(child, ast.Name) and child.id in TYPING_ALIASES:
            self.used.add(TYPING_ALIASES[child.id])
            return TYPING_ALIASES[child.id]
        return self.rewrite(child)

    def _union(self, node: ast.BinOp) -> str:
        members = _union_members(node)
        plain = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
        if len(plain) == 1 < len(members):
            self.used.add("Optional")
            return f"Optional[{self.rewrite(plain[0])}]"
        self.used.add("Union")
        return f"Union[{', '.join(self.rewrite(m) for m in members)}]"


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_union_members(node.left), *_union_members(node.right)]
    return [node]


def _with_typing_import(code: str, names: set[str]) -> str:
    """``names`` added to the module's ``from typing import`` line, or a new line in the
    standard-library import block."""
    match = _TYPING_LINE.search(code)
    if match is not None:
        have = {n.strip() for n in match.group(1).split(",") if n.strip()}
        line = typing_import(have | names)
        return code[: match.start()] + line + code[match.end() :]
    return _insert_import(code, typing_import(names))


def typing_import(names: set[str]) -> str:
    """One ``from typing import`` statement, names in isort's order, wrapped as black wraps."""
    ordered = sorted(names, key=lambda n: (not n.isupper(), not n[:1].isupper(), n.lower()))
    line = f"from typing import {', '.join(ordered)}\n"
    if len(line) - 1 <= LINE_LENGTH:
        return line
    return "from typing import (\n" + "".join(f"    {n},\n" for n in ordered) + ")\n"


def _insert_import(code: str, line: str) -> str:
    """Put ``line`` where isort would: among the ``from`` imports of the standard-library block
    (by module name), or as a block of its own after the docstring and ``__future__``."""
    lines = code.splitlines(keepends=True)
    block = _stdlib_block(lines)
    if block is None:
        at = _after_preamble(lines)
        # isort's spacing: two blank lines before a definition, one before other code
        follows = lines[at] if at < len(lines) else ""
        gap = "\n\n" if follows.startswith(("def ", "class ", "async def ", "@")) else "\n"
        return "".join([*lines[:at], line, gap, *lines[at:]])
    start, stop = block
    at = stop
    for index in range(start, stop):
        text = lines[index]
        if text.startswith("from ") and text.split()[1] > "typing":
            at = index
            break
    return "".join([*lines[:at], line, *lines[at:]])


def _stdlib_block(lines: list[str]) -> tuple[int, int] | None:
    """(first, past-last) line of the first import block of standard-library modules."""
    for index, text in enumerate(lines):
        if not text.startswith(("import ", "from ")) or "__future__" in text:
            continue
        top = text.split()[1].split(".")[0]
        if top not in sys.stdlib_module_names:
            return None
        stop = index
        while stop < len(lines) and lines[stop].strip():
            stop += 1
        return index, stop
    return None


def _after_preamble(lines: list[str]) -> int:
    """The line after the module docstring and ``from __future__`` import, and their blank."""
    tree = ast.parse("".join(lines))
    at = 0
    for node in tree.body:
        is_doc = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (is_doc or future):
            break
        at = node.end_lineno or at
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at
