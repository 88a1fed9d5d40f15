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
