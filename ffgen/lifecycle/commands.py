"""The lifecycle commands after ``new``: list, remove, update and check.

Each one is thin: find the checkout, ask the planning module (:mod:`ffgen.lifecycle.status`,
:mod:`ffgen.lifecycle.remove`, :mod:`ffgen.lifecycle.update`) for a pure result, show it, hand
writes to :func:`ffgen.write.apply.apply_plan`, and map the outcome to an exit code.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ffgen.checkout.view import CheckoutView, find_root
from ffgen.errors import EXIT_OK, EXIT_REFUSED, RefusedError, UsageError
from ffgen.generate.plan import Plan
from ffgen.output import files_json, print_plain_json, show_changes
from ffgen.write.journal import holding

TEXT_JSON = ("text", "json")


def _check_format(fmt: str, allowed: tuple[str, ...]) -> None:
    if fmt not in allowed:
        raise UsageError(f"--format {fmt!r} is not valid; choose {' or '.join(allowed)}")


def _console() -> Console:
    from ffgen.output import output_console

    return output_console()


# -- list ----------------------------------------------------------------------------------


def run_list(checkout: Path | None, fmt: str, console: Console | None = None) -> int:
    from ffgen.lifecycle.status import checkout_states

    _check_format(fmt, TEXT_JSON)
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=False):
        states = checkout_states(CheckoutView(root))
    if fmt == "json":
        print_plain_json({"algorithms": [s.as_dict() for s in states]})
        return EXIT_OK
    rows = [("key", "contract", "paradigm", "category", "ffgen", "files")]
    rows += [
        (
            st.key,
            (st.contract or "?").removesuffix("_EXECUTION_CONTRACT"),
            st.paradigm or "?",
            st.category or "?",
            "generated" if st.generated else "hand-written",
            st.state,
        )
        for st in states
    ]
    # Plain aligned columns: nothing is truncated, whatever the width (pipes, CI logs).
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for number, row in enumerate(rows):
        line = "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        console.print(f"[bold]{line}[/bold]" if number == 0 else line, highlight=False)
    return EXIT_OK


# -- remove --------------------------------------------------------------------------------


def run_remove(
    checkout: Path | None,
    key: str,
    *,
    dry_run: bool,
    force: bool,
    fmt: str,
    console: Console | None = None,
) -> int:
    from ffgen.lifecycle.remove import plan_remove

    _check_format(fmt, TEXT_JSON)
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        plan = plan_remove(CheckoutView(root), key, force=force)
        return _show_and_apply(console, root, plan, "remove", dry_run=dry_run, fmt=fmt)


def _show_and_apply(
    console: Console, root: Path, plan: Plan, verb: str, *, dry_run: bool, fmt: str, extra=None
) -> int:
    """Show the plan, write it; JSON only once the outcome is known (a refusal prints none)."""
    if fmt == "text":
        console.print(f"[bold]{plan.key}[/bold]: {verb}{' (dry run)' if dry_run else ''}")
        show_changes(console, plan, diffs=dry_run)
    if not dry_run:
        from ffgen.write.apply import apply_plan

        written = apply_plan(root, plan)
        if fmt == "text":
            console.print(f"{len(written)} file(s) changed under {root}")
    if fmt == "json":
        print_plain_json({"algorithm": plan.key, "command": verb, "dry_run": dry_run,
                          "written": not dry_run, "files": files_json(plan), **(extra or {})})
    return EXIT_OK


# -- update --------------------------------------------------------------------------------


def run_update(
    checkout: Path | None,
    key: str,
    *,
    dry_run: bool,
    conflict: str,
    fmt: str,
    console: Console | None = None,
) -> int:
    from ffgen.lifecycle.update import CONFLICT_MODES

    _check_format(fmt, TEXT_JSON)
    if conflict not in CONFLICT_MODES:
        raise UsageError(f"--conflict {conflict!r} is not valid; choose inline or refuse")
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        return _update(console, root, key, dry_run=dry_run, conflict=conflict, fmt=fmt)


def _update(console: Console, root: Path, key: str, *, dry_run: bool, conflict: str,
            fmt: str) -> int:
    from ffgen.lifecycle.update import plan_update

    result = plan_update(CheckoutView(root), key)
    hunks = [c.describe() for c in result.conflicts]
    if hunks and conflict == "refuse":
        if fmt == "json":  # the same shape as a plan that was applied, with written false
            print_plain_json({"algorithm": key, "command": "update", "dry_run": dry_run,
                                  "written": False, "files": files_json(result.plan),
                                  "conflicts": hunks})
        raise RefusedError(
            f"{len(hunks)} conflict(s) between your edits and the new templates, nothing "
            f"written: {'; '.join(hunks)}; resolve them by hand or re-run with --conflict inline"
        )
    code = _show_and_apply(
        console, root, result.plan, "update", dry_run=dry_run, fmt=fmt,
        extra={"conflicts": hunks},
    )
    if hunks:
        where = ", ".join(dict.fromkeys(c.path for c in result.conflicts))
        verb = "would be written" if dry_run else "written"
        if fmt == "text":
            console.print(
                f"[bold red]{len(hunks)} conflict(s)[/bold red] {verb} as markers in {where}: "
                "resolve them, then run `ffgen verify`"
            )
        return EXIT_REFUSED
    return code


# -- check ---------------------------------------------------------------------------------


def run_check(checkout: Path | None, fmt: str, console: Console | None = None) -> int:
    from ffgen.lifecycle.status import checkout_states

    _check_format(fmt, ("text", "json", "github"))
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=False):
        states = [s for s in checkout_states(CheckoutView(root)) if s.generated]
    problems = [(s, _problem(s)) for s in states if _problem(s)]
    if fmt == "json":
        print_plain_json({
            "ok": not problems,
            "algorithms": [
                {"key": s.key, "behind": list(s.behind),
                 "missing_entries": list(s.missing_entries), "ok": not _problem(s)}
                for s in states
            ],
        })
    elif fmt == "github":
        for s, problem in problems:
            print(f"::error file=.ffgen/answers/{s.key}.yml,title=ffgen check::{problem}")
    else:
        for s in states:
            problem = _problem(s)
            mark = "[red]FAIL[/red]" if problem else "[green]ok[/green]  "
            console.print(f"{mark} {s.key}" + (f": {problem}" if problem else ""))
        if not states:
            console.print("no generated algorithms in this checkout")
    return EXIT_REFUSED if problems else EXIT_OK


def _problem(s) -> str:
    parts = []
    if s.behind:
        parts.append(f"behind the current templates ({', '.join(s.behind)}): run "
                     f"`ffgen update {s.key}`")
    if s.missing_entries:
        parts.append(f"registry entries missing in {', '.join(s.missing_entries)}: run "
                     f"`ffgen update {s.key}`")
    return "; ".join(parts)
