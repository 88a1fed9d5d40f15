"""``ffgen new``: prepare the plan (:mod:`ffgen.generate.new`) under the checkout's lock, show
it, and hand it to the writer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ffgen.checkout.view import CheckoutView, find_root
from ffgen.classify import interview
from ffgen.classify.model import Classification
from ffgen.errors import EXIT_OK, RefusedError, UsageError
from ffgen.generate.changes import Plan
from ffgen.generate.new import NewRequest, conflict_message, plan_json, prepare_new, show_plan
from ffgen.output import escape, output_console, print_plain_json
from ffgen.write.apply import apply_plan
from ffgen.write.journal import holding

if TYPE_CHECKING:
    from rich.console import Console  # output_console may give a PlainConsole (same output)


def run_new(req: NewRequest, console: Console | None = None) -> int:
    console = console or output_console()
    if req.fmt not in ("text", "json"):
        raise UsageError(f"--format {req.fmt!r} is not valid; choose text or json")
    root = find_root(req.checkout)
    # The lock is held from before the checkout is read until the command ends, so a second
    # ffgen never plans against a tree this one is writing (a dry run only settles a journal).
    with holding(root, writes=not req.dry_run):
        sources: interview.Sources = {}
        _, plan, classification = prepare_new(req, console, root, sources)
        # Made before the writes, so a JSON run cannot fail after them; a text run needs none
        # of it (every file's diff included).
        data = plan_json(plan, classification, sources) if req.fmt == "json" else {}
        return _show_and_write_new(req, console, root, plan, classification, data)


def _show_and_write_new(
    req: NewRequest,
    console: Console,
    root: Path,
    plan: Plan,
    classification: Classification,
    data: dict[str, object],
) -> int:
    """The plan, then the writes; JSON (``data``) is printed once the outcome is known (none
    on a refusal, ``written: false`` for a plan with conflicts, as documented)."""
    if req.fmt == "text":
        show_plan(console, plan, classification, diffs=req.dry_run)
    if plan.conflicts:
        if req.fmt == "json":
            print_plain_json({**data, "dry_run": req.dry_run, "written": False})
        raise RefusedError(conflict_message(CheckoutView(root), plan))
    written = () if req.dry_run else apply_plan(root, plan)
    steps = None
    if not req.dry_run:
        from ffgen.generate.next_steps import next_steps

        steps = next_steps(root, plan, classification.category)
    if req.fmt == "json":
        extra = {"next": steps.as_dict()} if steps is not None else {}
        print_plain_json({**data, "dry_run": req.dry_run, "written": not req.dry_run, **extra})
    elif steps is not None:
        console.print(f"{len(written)} file(s) written under {escape(root)}")
        for line in steps.lines():
            console.print(escape(line), highlight=False)
    return EXIT_OK
