"""The lifecycle commands after ``new``: list, remove, update and check.

Each one is thin: find the checkout, ask the planning module (:mod:`ffgen.lifecycle.status`,
:mod:`ffgen.lifecycle.remove`, :mod:`ffgen.lifecycle.update`) for a pure result, show it, hand
writes to :func:`ffgen.write.apply.apply_plan`, and map the outcome to an exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from ffgen.checkout.view import CheckoutView, find_root
from ffgen.errors import EXIT_OK, EXIT_REFUSED, RefusedError, UsageError
from ffgen.generate.plan import Plan
from ffgen.output import escape, files_json, print_plain_json, show_changes, show_conflicts
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
        line = escape(line)  # keys and categories are the checkout's (a key `[/x]`)
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
    keep_edited: bool = False,
) -> int:
    from ffgen.lifecycle.remove import plan_remove, uses_text

    _check_format(fmt, TEXT_JSON)
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        view = CheckoutView(root)
        removal = plan_remove(view, key, force=force, keep_edited=keep_edited)
        copies = _copies_of(view, key)
        code = _show_and_apply(console, root, removal.plan, "remove", dry_run=dry_run, fmt=fmt,
                               extra={"still_used": list(removal.still_used)})
    if removal.still_used and fmt == "text":
        refs = removal.still_used
        console.print(
            f"[yellow]--force: {key} is still used ({len(refs)} reference(s)):[/yellow] "
            f"{escape(uses_text(refs, 5))} (what breaks without it, `ffgen verify` and "
            "`ffgen check` report)", highlight=False)
    for copy in copies:
        print(f"note: {copy} was copied from {key} (--like); the copy stays and is yours now: "
              "`ffgen check` no longer compares it with its source", file=sys.stderr)
    return code


def _copies_of(view: CheckoutView, key: str) -> list[str]:
    """The ``--like`` copies of ``key`` (a damaged record is not this command's business)."""
    from ffgen.store.read import read_record, record_paths

    out = []
    for path in record_paths(view):
        try:
            record = read_record(view, Path(path).stem)
        except RefusedError:
            continue
        source = record.source if record is not None else None
        if source is not None and source.key == key and source.mode == "like":
            out.append(record.key)
    return out


def _show_and_apply(
    console: Console, root: Path, plan: Plan, verb: str, *, dry_run: bool, fmt: str, extra=None
) -> int:
    """Show the plan, write it; JSON only once the outcome is known (a refusal prints none)."""
    if fmt == "text":
        console.print(f"[bold]{plan.key}[/bold]: {verb}{' (dry run)' if dry_run else ''}")
        show_changes(console, plan, diffs=dry_run)
    written = []
    if not dry_run:
        from ffgen.write.apply import apply_plan

        written = apply_plan(root, plan)
        if fmt == "text":
            console.print(f"{len(written)} file(s) changed under {escape(root)}")
    if fmt == "json":  # written: a file changed (not on a dry run, nor when all was up to date)
        print_plain_json({"algorithm": plan.key, "command": verb, "dry_run": dry_run,
                          "written": bool(written), "files": files_json(plan),
                          **(extra or {})})
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
    from_source: bool = False,
) -> int:
    from ffgen.lifecycle.update import CONFLICT_MODES

    _check_format(fmt, TEXT_JSON)
    if conflict not in CONFLICT_MODES:
        raise UsageError(f"--conflict {conflict!r} is not valid; choose inline or refuse")
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        return _update(console, root, key, dry_run=dry_run, conflict=conflict, fmt=fmt,
                       from_source=from_source)


def _theirs(view: CheckoutView, key: str) -> str:
    """What ``--from-source`` merges in: the source's code as it is now, through the templates."""
    from ffgen.store.read import read_record

    record = read_record(view, key)
    source = record.source.key if record is not None and record.source is not None else "source"
    return f"{source}'s current code and today's templates"


def _update(console: Console, root: Path, key: str, *, dry_run: bool, conflict: str,
            fmt: str, from_source: bool = False) -> int:
    from ffgen.lifecycle.update import conflicts_json, plan_update

    view = CheckoutView(root)
    result = plan_update(view, key, from_source=from_source)
    conflicts = result.conflicts
    where = ", ".join(dict.fromkeys(c.path for c in conflicts))
    theirs = _theirs(view, key) if from_source else "today's templates"
    if conflicts and conflict == "refuse":
        if fmt == "json":  # the same shape as a plan that was applied, with written false
            print_plain_json({"algorithm": key, "command": "update", "dry_run": dry_run,
                              "written": False, "files": files_json(result.plan),
                              "conflicts": conflicts_json(conflicts)})
        else:
            show_conflicts(console, conflicts, theirs)
        raise RefusedError(
            f"{len(conflicts)} conflict(s) between your edits and {theirs} in {where}, "
            "nothing written: resolve them by hand or re-run with --conflict inline"
        )
    code = _show_and_apply(
        console, root, result.plan, "update", dry_run=dry_run, fmt=fmt,
        extra={"conflicts": conflicts_json(conflicts)},
    )
    if not conflicts:
        return code
    if fmt == "text":
        show_conflicts(console, conflicts, theirs)
        verb = "would be written" if dry_run else "written"
        console.print(
            f"[bold red]{len(conflicts)} conflict(s)[/bold red] {verb} as markers in "
            f"{escape(where)}: "
            "resolve them, then run `ffgen check`"
        )
    return EXIT_REFUSED


# -- check ---------------------------------------------------------------------------------


def run_check(checkout: Path | None, fmt: str, console: Console | None = None) -> int:
    from ffgen.lifecycle.status import checkout_states

    _check_format(fmt, ("text", "json", "github"))
    console = console or _console()
    root = find_root(checkout)
    with holding(root, writes=False):
        view = CheckoutView(root)
        states = [s for s in checkout_states(view) if s.generated]
        errors = _verify_errors(view, {s.key for s in states})
    found = {s.key: _problem(s, errors, root) for s in states}
    problems = [(s, found[s.key]) for s in states if found[s.key]]
    if fmt == "json":
        rows = [_check_json(s, errors, found[s.key]) for s in states]
        print_plain_json({"ok": not problems, "algorithms": rows})
    elif fmt == "github":
        for s, problem in problems:
            print(_github_line(s, problem, errors))
    else:
        for s in states:
            problem = found[s.key]
            mark = "[red]FAIL[/red]" if problem else "[green]ok[/green]  "
            console.print(f"{mark} {escape(s.key)}" + (f": {escape(problem)}" if problem else ""))
        if not states:
            console.print("no generated algorithms in this checkout")
    return EXIT_REFUSED if problems else EXIT_OK


def _verify_errors(view: CheckoutView, keys: set[str]) -> dict[str, list]:
    """verify's errors about the generated algorithms, by key: an algorithm whose files all
    match their record can still be wrong after a hand edit elsewhere (a trainer reading an
    argument its class no longer defines), and check is the one gate a user runs."""
    from ffgen.errors import FfgenError
    from ffgen.verify.engine import run_verify

    if not keys:
        return {}
    try:
        report = run_verify(view)
    except FfgenError:  # no readable registries: the states above already say what is wrong
        return {}
    out: dict[str, list] = {}
    for f in report.errors:
        if f.algorithm in keys:
            out.setdefault(f.algorithm, []).append(f)
    return out


def _check_json(s, errors: dict[str, list], problem: str) -> dict[str, object]:
    return {"key": s.key, "behind": list(s.behind), "missing_entries": list(s.missing_entries),
            "moved_entries": list(s.moved_entries),
            "deleted": [f.path for f in s.files if f.state == "missing"],
            "broken": [b.as_dict() for b in s.broken],
            "source_changed": list(s.source_changed),
            "verify_errors": [f.as_dict() for f in errors.get(s.key, ())],
            "ok": not problem}


def _github_line(s, problem: str, errors: dict[str, list]) -> str:
    """An annotation on the broken file (or the first verify error) itself where there is one,
    else on the record."""
    where = f"file=.ffgen/answers/{s.key}.yml"
    if s.broken:
        where = f"file={s.broken[0].path},line={s.broken[0].line}"
    elif errors.get(s.key) and not (s.behind or s.missing_entries or s.moved_entries
                                    or s.source_changed):
        where = f"file={errors[s.key][0].path},line={errors[s.key][0].line}"
    return f"::error {where},title=ffgen check::{problem}"


def _restore_command(key: str, root: Path) -> str:
    """``new`` replaying the algorithm's record over its files, from where the user is."""
    import os
    import shlex

    record = os.path.relpath(root / ".ffgen" / "answers" / f"{key}.yml")
    here = root.resolve() == Path.cwd().resolve()
    where = "" if here else f" --checkout {shlex.quote(str(root))}"
    return f"ffgen new {key} --answers {shlex.quote(record)} --force{where}"


def _problem(s, errors: dict[str, list], root: Path) -> str:
    """One line: what is wrong and what to do. A broken file comes first and alone: until it
    reads again, ``update`` would only refuse, so it is the one thing to do."""
    if s.broken:
        found = "; ".join(b.describe() for b in s.broken)
        return f"{found}; then run `ffgen check` again"
    parts = []
    deleted = [f.path for f in s.files if f.state == "missing"]
    if deleted:
        # update keeps a deletion (as copier does), so it is not the fix to name here
        parts.append(f"deleted by hand: {', '.join(deleted)}; restore from version control, or "
                     f"run `{_restore_command(s.key, root)}` (it also rewrites files you edited)")
    if s.behind:
        parts.append(f"behind the current templates ({', '.join(s.behind)}): run "
                     f"`ffgen update {s.key}`")
    if s.missing_entries:
        parts.append(f"registry entries missing in {', '.join(s.missing_entries)}: run "
                     f"`ffgen update {s.key}`")
    if s.moved_entries:
        parts.append(
            f"{'; '.join(s.moved_entries)}: a module renamed or moved by hand, which ffgen "
            "cannot follow; move the module and these entries back to the names ffgen wrote, "
            "then run `ffgen check` again"
        )
    if s.source_changed:
        parts.append(f"its source changed since the copy ({', '.join(s.source_changed)}): run "
                     f"`ffgen update {s.key} --from-source`")
    if errors.get(s.key):
        first = errors[s.key][0]
        more = f" (and {len(errors[s.key]) - 1} more)" if len(errors[s.key]) > 1 else ""
        parts.append(f"verify {first.rule_id} at {first.location}: {first.message}{more}; "
                     f"fix: {first.fix}")
    return "; ".join(parts)
