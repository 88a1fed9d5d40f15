"""What commands print: one line per planned file, unified diffs, and plain JSON for machines."""

from __future__ import annotations

import json

from rich.console import Console

from ffgen.generate.plan import Plan, Status

_STYLE = {
    Status.CREATE: "green",
    Status.UPDATE: "yellow",
    Status.IDENTICAL: "dim",
    Status.CONFLICT: "bold red",
    Status.DELETE: "red",
    Status.KEPT: "cyan",
}


def output_console() -> Console:
    """Lines wrap at words to a terminal's width; piped output keeps one record per line."""
    import sys

    return Console(highlight=False, soft_wrap=not sys.stdout.isatty())


def show_changes(console: Console, plan: Plan, *, diffs: bool) -> None:
    """One line per file (status, path, the reason where there is one), then the diffs."""
    for change in plan.changes:
        style = _STYLE[change.status]
        note = f" [dim]({change.note})[/dim]" if change.note else ""
        console.print(f"  [{style}]{change.status.value:<9}[/{style}] {change.path}{note}")
    if diffs:
        shown = (Status.CREATE, Status.UPDATE, Status.CONFLICT, Status.DELETE)
        for change in plan.changes:
            if change.status in shown:
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


def show_conflicts(console: Console, conflicts) -> None:
    """Each conflicting hunk in the layout ``--conflict inline`` writes, under the file and lines
    of each side. ``conflicts``: ``update``'s ``FileConflict`` values (path, conflict)."""
    from rich.text import Text

    for fc in conflicts:
        console.print(Text.assemble(("CONFLICT", "bold red"), f" {fc.path}: ",
                                    fc.conflict.describe()))
        console.print(_hunk_text(fc.conflict), soft_wrap=True, end="")


def _hunk_text(c):
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
    text.append(f"{THEIRS_MARK} theirs (today's templates)\n", "bold")
    return text


def _joined(lines) -> str:
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def print_plain_json(data: object) -> None:
    """JSON for machines: plain text on stdout (rich would colour and wrap it on a terminal)."""
    print(json.dumps(data, indent=2))


def files_json(plan: Plan) -> list[dict[str, str]]:
    return [
        {"path": ch.path, "status": ch.status.value, "note": ch.note, "diff": ch.diff()}
        for ch in plan.changes
    ]
