"""What every edit transform returns, and the one runner that turns a pure tree edit into it.

A transform is ``code in -> EditResult out``; it never touches disk. Problems the user can fix are
raised inside the edit as :class:`EditFailure` (or :class:`EditSkipped` for "not applicable") and
come back as a result with a one-line reason naming the file, never as an exception.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal

import libcst as cst

from ffgen.errors import TOO_DEEP

Status = Literal["changed", "unchanged", "skipped", "failed"]


@dataclasses.dataclass(frozen=True, slots=True)
class EditResult:
    """Outcome of one edit. ``code`` is the new text when changed, the original text otherwise."""

    status: Status
    code: str
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("changed", "unchanged", "skipped")


class EditFailure(Exception):
    """A missing anchor or a conflict; the message says what and what to do (no path prefix)."""


class EditSkipped(Exception):
    """The file does not take this kind of edit; the message says why (no path prefix)."""


TreeEdit = Callable[[cst.Module], cst.Module]


def run_edit(code: str, path: str, edit: TreeEdit) -> EditResult:
    """Parse ``code``, apply ``edit`` and classify the outcome; ``path`` only labels reasons."""
    if too_deep(code):
        return EditResult("failed", code, f"{path}: {TOO_DEEP}; simplify it and re-run")
    try:
        tree = cst.parse_module(code)
    except cst.ParserSyntaxError as err:
        where = f"line {err.raw_line}, column {err.raw_column}"
        return EditResult(
            "failed", code, f"{path}: does not parse as Python ({where}); fix it and re-run"
        )
    except (RecursionError, MemoryError):
        return EditResult("failed", code, f"{path}: {TOO_DEEP}; simplify it and re-run")
    try:
        new_code = edit(tree).code
    except RecursionError:
        return EditResult("failed", code, f"{path}: {TOO_DEEP}; simplify it and re-run")
    except EditFailure as err:
        return EditResult("failed", code, f"{path}: {err}")
    except EditSkipped as err:
        return EditResult("skipped", code, f"{path}: {err}")
    if new_code == code:
        # Compare text, not trees: a re-run must hand back the very same bytes.
        return EditResult("unchanged", code)
    return _checked(code, new_code, path)


MAX_DEPTH = 100  # syntax nesting; Flow-Factory's modules stay under 30
MAX_SIZE = 4 * 1024 * 1024


def too_deep(code: str) -> bool:
    """Whether ``code`` is too big or nested too deeply to hand to libcst, whose parser takes
    minutes on one expression of thousands of terms. Measured on CPython's own parse, without
    recursion. (Code that does not parse is libcst's to report.)"""
    import ast

    if len(code) > MAX_SIZE:
        return True
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    except (RecursionError, MemoryError, ValueError):
        return True
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def parse_guarded(code: str, path: str) -> cst.Module:
    """``cst.parse_module`` after :func:`too_deep`'s guard (a refusal naming ``path``)."""
    from ffgen.errors import RefusedError

    if too_deep(code):
        raise RefusedError(f"{path}: {TOO_DEEP}; simplify it and re-run")
    return cst.parse_module(code)


def _checked(code: str, new_code: str, path: str) -> EditResult:
    # A safety net against an edit bug: never hand the planner text that no longer parses.
    # CPython's own parser is the judge (what runs the file), and several times faster than
    # parsing the result with libcst again.
    import ast

    try:
        ast.parse(new_code, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return EditResult("failed", code, f"{path}: ffgen produced unparsable code; edit by hand")
    return EditResult("changed", new_code)
