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


def print_plain_json(data: object) -> None:
    """JSON for machines: plain text on stdout (rich would colour and wrap it on a terminal)."""
    print(json.dumps(data, indent=2))


def files_json(plan: Plan) -> list[dict[str, str]]:
    return [
        {"path": ch.path, "status": ch.status.value, "note": ch.note, "diff": ch.diff()}
        for ch in plan.changes
    ]
