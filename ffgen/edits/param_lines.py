"""Add or remove one hyperparameter's line in the example config and in the docs section.

Line edits, the counterpart of :mod:`ffgen.edits.args_param`: the example's ``train:`` block gets
``  NAME: VALUE`` after its last key, the docs section's parameter table gets the param's row
after its last row; both are where the templates render them. Idempotent; a missing anchor raises
:class:`EditFailure` with a one-line reason.
"""

from __future__ import annotations

import re

from .base import EditFailure

TABLE_HEADING = "**Parameters**"


def add_train_key(text: str, name: str, value: str) -> str:
    lines = text.splitlines(keepends=True)
    start, stop, indent = _train_block(lines, name)
    if _key_line(lines, start, stop, indent, name) is not None:
        return text  # already set: the user's value stays
    last = max(i for i in range(start, stop) if _is_content(lines[i]))
    lines.insert(last + 1, f"{indent}{name}: {value}\n")
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    return "".join(lines)


def remove_train_key(text: str, name: str) -> str:
    lines = text.splitlines(keepends=True)
    start, stop, indent = _train_block(lines, name)
    at = _key_line(lines, start, stop, indent, name)
    if at is None:
        return text
    end = at + 1  # the key's own continuation lines (a nested block) go with it
    while end < stop and (_indent_of(lines[end]) > len(indent) or not lines[end].strip()):
        end += 1
    while end > at + 1 and not lines[end - 1].strip():
        end -= 1  # blank lines after the value belong to what follows
    del lines[at:end]
    return "".join(lines)


def _train_block(lines: list[str], name: str) -> tuple[int, int, str]:
    """The ``train:`` block's first and past-the-end line, and its keys' indent."""
    head = next((i for i, line in enumerate(lines) if re.match(r"^train:\s*(#.*)?$", line)), None)
    if head is None:
        raise EditFailure(
            f"no top-level `train:` block; add or remove `{name}:` under `train:` by hand"
        )
    stop = head + 1
    while stop < len(lines) and (not lines[stop].strip() or lines[stop][0] in " \t#"):
        stop += 1
    keys = [line for line in lines[head + 1 : stop] if _is_content(line)]
    if not keys:
        raise EditFailure(f"the `train:` block is empty; add `{name}:` under it by hand")
    return head + 1, stop, " " * _indent_of(keys[0])


def _key_line(lines: list[str], start: int, stop: int, indent: str, name: str) -> int | None:
    pattern = re.compile(rf"^{indent}{re.escape(name)}\s*:")
    return next((i for i in range(start, stop) if pattern.match(lines[i])), None)


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#") and line[0] in " \t"


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


# -- the docs section ------------------------------------------------------------------------


TABLE_HEAD = ("| Field | Default | Meaning |\n", "|---|---|---|\n")


def add_doc_row(section: str, name: str, row: str) -> str:
    lines = section.splitlines(keepends=True)
    if _table_lines(lines) is None and _heading(lines) is not None:
        return _with_new_table(lines, row)  # a copy's section: its own fields have no table
    first, last = _table(lines, name)
    if _row_index(lines, first, last, name) is not None:
        return section
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    lines.insert(last + 1, row + "\n")
    return "".join(lines)


def remove_doc_row(section: str, name: str) -> str:
    lines = section.splitlines(keepends=True)
    first, last = _table(lines, name)
    at = _row_index(lines, first, last, name)
    if at is None:
        return section
    del lines[at]
    emptied = last - first == 2 and tuple(lines[first : first + 2]) == TABLE_HEAD
    if emptied and first > 0 and not lines[first - 1].strip():
        del lines[first - 1 : first + 2]  # its last row: the table goes, as a render without
    return "".join(lines)


def _heading(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if line.startswith(TABLE_HEADING)), None)


def _table_lines(lines: list[str]) -> int | None:
    heading = _heading(lines)
    start = heading + 1 if heading is not None else len(lines)
    return next((i for i in range(start, len(lines)) if lines[i].startswith("|")), None)


def _with_new_table(lines: list[str], row: str) -> str:
    """The table (head and ``row``) after the paragraph the parameters heading opens, where the
    docs template renders it for a copy with params."""
    end = _heading(lines) or 0
    while end < len(lines) and lines[end].strip():
        end += 1
    if end and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    lines[end:end] = ["\n", *TABLE_HEAD, row + "\n"]
    return "".join(lines)


def _table(lines: list[str], name: str) -> tuple[int, int]:
    """The first and last line of the table under the parameters heading."""
    heading = next((i for i, line in enumerate(lines) if line.startswith(TABLE_HEADING)), None)
    start = heading + 1 if heading is not None else len(lines)
    first = next((i for i in range(start, len(lines)) if lines[i].startswith("|")), None)
    if first is None:
        raise EditFailure(
            f"no parameter table under {TABLE_HEADING}; edit the row of `{name}` by hand"
        )
    last = first
    while last + 1 < len(lines) and lines[last + 1].startswith("|"):
        last += 1
    return first, last


def _row_index(lines: list[str], first: int, last: int, name: str) -> int | None:
    return next(
        (i for i in range(first, last + 1) if lines[i].startswith(f"| `{name}` |")), None
    )
