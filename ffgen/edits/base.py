"""What every edit transform returns, and the one runner that turns a pure tree edit into it.

A transform is ``code in -> EditResult out``; it never touches disk. Problems the user can fix are
raised inside the edit as :class:`EditFailure` (or :class:`EditSkipped` for "not applicable") and
come back as a result with a one-line reason naming the file, never as an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import libcst as cst

from ffgen.errors import TOO_DEEP
from ffgen.record import record

Status = Literal["changed", "unchanged", "skipped", "failed"]


@record
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
        new_code = code_after(tree, edit(tree), code)
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


def code_after(old: cst.Module, new: cst.Module, text: str) -> str:
    """``new.code`` for ``new``, an edit of ``old`` (parsed from ``text``), made by writing out
    only the top-level statements the edit replaced: an edit keeps every other node as it was
    (the same object), and writing out a whole module again cost as much as parsing it.

    The replaced statements of ``old`` write out as a piece of ``text`` (libcst gives back
    exactly what it parsed). Where that piece occurs once in ``text``, it is the place; anywhere
    it does not (or the module's header, footer or layout changed), the whole module is written
    out as before."""
    if new is old:
        return text
    same_frame = (
        new.header is old.header and new.footer is old.footer
        and new.default_indent == old.default_indent
        and new.default_newline == old.default_newline
        and new.has_trailing_newline and old.has_trailing_newline
    )
    span = _replaced_span(old.body, new.body) if same_frame else None
    if span is None:
        return new.code
    start, old_end, new_end = span
    piece = "".join(old.code_for_node(s) for s in old.body[start:old_end])
    at = text.find(piece) if piece else -1
    if at < 0 or text.find(piece, at + 1) >= 0:  # not found, or not once (overlaps too)
        return new.code
    replacement = "".join(new.code_for_node(s) for s in new.body[start:new_end])
    return text[:at] + replacement + text[at + len(piece):]


def _replaced_span(old: tuple, new: tuple) -> tuple[int, int, int] | None:
    """(start, old end, new end): ``old[start:old end]`` became ``new[start:new end]``, every
    statement around it the very same object; widened by a neighbour when nothing of ``old``
    was replaced (an insertion), so the piece to find is never empty."""
    start = 0
    while start < len(old) and start < len(new) and old[start] is new[start]:
        start += 1
    old_end, new_end = len(old), len(new)
    while old_end > start and new_end > start and old[old_end - 1] is new[new_end - 1]:
        old_end, new_end = old_end - 1, new_end - 1
    if old_end == start:
        if start > 0:
            start -= 1
        elif old_end < len(old):
            old_end, new_end = old_end + 1, new_end + 1
        else:
            return None  # an empty module: nothing to anchor on
    return start, old_end, new_end


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
