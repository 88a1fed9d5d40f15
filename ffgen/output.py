"""What commands print: one line per planned file, unified diffs, and plain JSON for machines."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING

from ffgen.generate.plan import Plan, Status

if TYPE_CHECKING:
    from rich.console import Console

_STYLE = {
    Status.CREATE: "green",
    Status.UPDATE: "yellow",
    Status.IDENTICAL: "dim",
    Status.CONFLICT: "bold red",
    Status.DELETE: "red",
    Status.KEPT: "cyan",
}


def output_console() -> Console:
    """Lines wrap at words to a terminal's width; piped output keeps one record per line.

    Piped, the console is a :class:`PlainConsole`: the same bytes, without importing rich."""
    if _plain_output():
        return PlainConsole()  # type: ignore[return-value]  (prints as this Console would)
    from rich.console import Console

    return Console(highlight=False, soft_wrap=not sys.stdout.isatty())


def _plain_output() -> bool:
    """Whether rich would print plain text: no terminal, and nothing that makes rich treat the
    stream as one (its ``FORCE_COLOR`` and ``TTY_COMPATIBLE``) or print elsewhere (Jupyter)."""
    import builtins
    import os

    if "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return False
    if hasattr(builtins, "get_ipython"):
        return False
    try:
        return not sys.stdout.isatty()
    except ValueError:  # a closed stream: rich prints nothing to a terminal either
        return True


# Markup the commands print (style tags around their own words), rich's own patterns for a tag
# and an emoji code, and the characters rich changes (control codes it strips, tabs it expands).
_STYLES = frozenset({"dim", "bold", "green", "yellow", "red", "cyan", "bold red", "bold cyan"})
_TAG = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")
_EMOJI = re.compile(r"(:(\S*?)(?:(?:\-)(emoji|text))?:)")
_CHANGED = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


class PlainConsole:
    """Prints what ``Console(highlight=False, soft_wrap=True)`` prints to a stream that is not a
    terminal: each line whole, the markup's tags gone. ``new`` prints a dozen such lines, and
    importing rich for them cost a twentieth of its run. Anything this does not know to print
    exactly as rich does (another argument, a ``Text``, an emoji code, a ``[`` that is not one of
    the known tags, a control character) goes to a real rich Console, made on first use."""

    def __init__(self) -> None:
        self._rich = None

    def print(self, *objects, sep: str = " ", end: str = "\n", highlight=None, soft_wrap=None,
              **options) -> None:
        text = _plain(objects[0]) if len(objects) == 1 and not options else None
        if text is None or highlight or soft_wrap is False:
            kwargs = {"highlight": highlight, "soft_wrap": soft_wrap, **options}
            self.rich.print(*objects, sep=sep, end=end, **kwargs)
            return
        stream = sys.stdout
        try:
            stream.write(text + end)
            stream.flush()
        except BrokenPipeError:
            self.rich.on_broken_pipe()  # as rich handles it

    @property
    def rich(self):
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(highlight=False, soft_wrap=True)
        return self._rich

    def __getattr__(self, name: str):  # e.g. ``input`` for a prompt: rich's own
        if name.startswith("_"):  # (``_rich`` itself, before ``__init__`` ran: a copy)
            raise AttributeError(name)
        return getattr(self.rich, name)


def escape(value: object) -> str:
    """``value`` as text rich prints as it is: a ``[`` that would open or close a style tag is
    escaped. Names and paths come from the user and the checkout (a registry key ``[/x]``, a
    folder ``co[/x]``), and rich refuses a closing tag it did not open with a traceback. Text
    without ``[`` needs no escaping, so rich is imported only for text that has one."""
    text = str(value)
    if "[" not in text:
        return text
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _plain(obj: object) -> str | None:
    """``obj``'s markup without its tags, or None where rich would print something else."""
    if not isinstance(obj, str) or _CHANGED.search(obj) or _EMOJI.search(obj):
        return None
    opened: list[str] = []
    for match in _TAG.finditer(obj):
        tag = match.group(3)
        name = tag.removeprefix("/")
        if match.group(2) or name not in _STYLES:
            return None  # an escape, or a tag not known to be a plain style
        if tag.startswith("/"):
            if not opened or opened.pop() != name:
                return None  # rich closes (or refuses) otherwise
        else:
            opened.append(name)
    text = _TAG.sub("", obj)
    return None if "[" in text else text


# ffgen's own records (answers, compressed renders): a line each, never a diff (a base is
# hundreds of lines of base85 no one reads).
RECORD_DIR = ".ffgen/"


def is_record(path: str) -> bool:
    return path.startswith(RECORD_DIR)


def record_size(change) -> int:
    """The record file's size in bytes after the change (before it, for a deletion)."""
    text = change.old if change.status is Status.DELETE else change.new
    return len((text or "").encode("utf-8"))


def _size_text(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def show_changes(console: Console, plan: Plan, *, diffs: bool) -> None:
    """One line per file (status, path, the reason where there is one; a record's size), then
    the diffs of everything but the records."""
    for change in plan.changes:
        style = _STYLE[change.status]
        notes = [change.note] if change.note else []
        if is_record(change.path):
            notes.append(f"ffgen record, {_size_text(record_size(change))}")
        note = f" [dim]({escape('; '.join(notes))})[/dim]" if notes else ""
        console.print(f"  [{style}]{change.status.value:<9}[/{style}] {escape(change.path)}{note}")
    if diffs:
        shown = (Status.CREATE, Status.UPDATE, Status.CONFLICT, Status.DELETE)
        for change in plan.changes:
            if change.status in shown and not is_record(change.path):
                print_diff(console, change.diff())


_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def print_diff(console: Console, diff: str) -> None:
    """A unified diff exactly as it is: coloured on a terminal, never wrapped or cut at the
    console's width (a CI log must show every line whole)."""
    from rich.text import Text

    text = Text()
    for line in diff.splitlines(keepends=True):
        style = next((s for head, s in _DIFF_STYLES if line.startswith(head)), "")
        text.append(line, style=style)
    console.print(text, soft_wrap=True, end="")


def show_conflicts(console: Console, conflicts, theirs: str = "today's templates") -> None:
    """Each conflicting hunk in the layout ``--conflict inline`` writes, under the file and lines
    of each side. ``conflicts``: ``update``'s ``FileConflict`` values (path, conflict)."""
    from rich.text import Text

    for fc in conflicts:
        console.print(Text.assemble(("CONFLICT", "bold red"), f" {fc.path}: ",
                                    fc.conflict.describe()))
        console.print(_hunk_text(fc.conflict, theirs), soft_wrap=True, end="")


def _hunk_text(c, theirs: str):
    """Plain ``Text`` (never parsed as markup: the lines are the user's code)."""
    from rich.text import Text

    from ffgen.lifecycle.merge3 import BASE_MARK, OURS_MARK, SEP_MARK, THEIRS_MARK

    text = Text()
    text.append(f"{OURS_MARK} ours (your file)\n", "bold")
    text.append(_joined(c.ours), "green")
    text.append(f"{BASE_MARK} base (what ffgen wrote)\n", "bold")
    text.append(_joined(c.base), "dim")
    text.append(f"{SEP_MARK}\n", "bold")
    text.append(_joined(c.theirs), "yellow")
    text.append(f"{THEIRS_MARK} theirs ({theirs})\n", "bold")
    return text


def _joined(lines) -> str:
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def print_plain_json(data: object) -> None:
    """JSON for machines: plain text on stdout (rich would colour and wrap it on a terminal)."""
    print(json.dumps(data, indent=2))


def files_json(plan: Plan) -> list[dict[str, object]]:
    """Each file's change; an ffgen record's as its size instead of its diff."""
    return [
        {"path": ch.path, "status": ch.status.value, "note": ch.note, "diff": "",
         "size": record_size(ch)}
        if is_record(ch.path) else
        {"path": ch.path, "status": ch.status.value, "note": ch.note, "diff": ch.diff()}
        for ch in plan.changes
    ]
