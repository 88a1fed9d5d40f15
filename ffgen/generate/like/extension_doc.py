"""A ``--like`` copy of a strict extension documents being one, as verify's FF305 requires.

GRPO-Guard, DPPO and TDM-R1 inherit another algorithm's trainer; the checkout sanctions them by
name (its algorithm skill lists them) and documents them in its guide, so their own docstrings
need not say so. Their copy has a new key, which no list names: FF305 then asks the copy's class
docstring to say it is a strict extension of the parent and why ``BaseTrainer`` plus shared
helpers is not enough. The copy's class docstring gets that paragraph in front of the source's
own text; a docstring that already documents it is left as it is.
"""

from __future__ import annotations

import ast
import re
import textwrap

from ffgen.verify.extensions import documents_extension

WIDTH = 100
INDENT = "    "
_OPENING = re.compile(r"[rRuU]?(\"\"\"|''')")


def documented_extension(text: str, cls: str, source_key: str, source_trainer: str,
                         key: str) -> str:
    """``text`` (the copied trainer module) with class ``cls`` documenting the extension of
    the trainer it inherits (unchanged where it inherits none, or documents it already)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return text
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    parent = _parent_trainer(node) if node is not None else None
    if node is None or parent is None or documents_extension(ast.get_docstring(node), "", parent):
        return text
    why = _paragraphs(cls, parent, source_key, source_trainer, key)
    lines = text.splitlines(keepends=True)
    first = node.body[0]
    if first.lineno == node.lineno:
        return text  # ``class X(Y): ...`` on one line: nowhere to put a docstring
    if _is_docstring(first):
        line = lines[first.lineno - 1]
        opening = _OPENING.match(line, first.col_offset)
        if opening is not None:  # the paragraphs go right after the opening quotes
            at = opening.end()
            lines[first.lineno - 1] = f"{line[:at]}{why}\n\n{INDENT}{line[at:].lstrip()}"
            return "".join(lines)
        del lines[first.lineno - 1 : first.end_lineno]  # a one-quoted docstring: rewritten
        own = (ast.get_docstring(node) or "").replace("\\", "\\\\").replace('"""', '\\"""')
        why += "\n\n" + _wrapped(own)
    lines.insert(first.lineno - 1, f'{INDENT}"""{why}\n{INDENT}"""\n')
    return "".join(lines)


def parent_trainer(text: str, cls: str) -> str:
    """The trainer class ``cls`` of module ``text`` extends ("" for none)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return ""
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    return (_parent_trainer(node) or "") if node is not None else ""


def _parent_trainer(node: ast.ClassDef) -> str | None:
    """The first base that is another trainer (named ``...Trainer``, not ``BaseTrainer``)."""
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("Trainer") and name != "BaseTrainer":
            return name
    return None


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, str)


def _paragraphs(cls: str, parent: str, source_key: str, source_trainer: str, key: str) -> str:
    """The summary line (no indent: it follows the quotes) and the reason, wrapped."""
    head = f"{cls}: a strict extension of ``{parent}``, as ``{source_key}`` is."
    why = (
        f"Why not ``BaseTrainer`` plus shared helpers: ``ffgen new {key} --like {source_key}`` "
        f"copied ``{source_trainer}``, which extends ``{parent}`` and overrides only what makes "
        f"it ``{source_key}``; the copy keeps that design, so everything it does not override "
        f"stays ``{parent}``'s rather than a re-derivation of that pipeline."
    )
    return f"{head}\n\n{_wrapped(why)}"


def _wrapped(text: str) -> str:
    return "\n".join(
        textwrap.fill(part, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT,
                      break_on_hyphens=False)
        if part.strip() else ""
        for part in text.split("\n")
    )
