"""The ``new`` command's core: request in, stages run in order, plan shown, exit code out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from ffgen.checkout.facts import CheckoutFacts, read_facts
from ffgen.checkout.hints import CheckoutHints, read_hints
from ffgen.checkout.view import CheckoutView, find_root
from ffgen.classify import interview
from ffgen.classify.model import Answers, Classification
from ffgen.classify.names import check_record_type, parse_name
from ffgen.classify.rules import classify
from ffgen.errors import EXIT_OK, RefusedError, UsageError
from ffgen.generate.context import build_context
from ffgen.generate.plan import Plan, build_plan, check_plan_verifies
from ffgen.output import files_json, output_console, print_plain_json, show_changes
from ffgen.write.apply import apply_plan
from ffgen.write.journal import holding


@dataclass(frozen=True)
class NewRequest:
    name: str
    class_name: str | None
    checkout: Path | None
    flags: Mapping[str, str | None]
    interactive: bool
    dry_run: bool
    force: bool
    fmt: str
    answers_file: Path | None = None  # a record to replay (``--answers``)


def prepare_new(
    req: NewRequest, console: Console, root: Path | None = None
) -> tuple[Path, Plan, Classification]:
    """Every stage up to the plan: nothing is written (``root``: the checkout, when found)."""
    if req.fmt not in ("text", "json"):
        raise UsageError(f"--format {req.fmt!r} is not valid; choose text or json")
    req = with_recorded_answers(req)
    names = parse_name(req.name, req.class_name)
    root = root or find_root(req.checkout)
    view = CheckoutView(root)
    facts = read_facts(view)
    hints = read_hints(view)
    answers = gather_answers(req, facts, console, most_used_model_type(hints))
    classification = classify(answers)
    supervision = classification.answers.supervision
    check_record_type(names, supervision.record_type if supervision else None)
    check_example_choices(classification, facts)
    ctx = build_context(names, classification, hints)
    plan = build_plan(view, facts, names, classification, ctx, force=req.force)
    check_plan_verifies(view, plan)
    return root, plan, classification


def run_new(req: NewRequest, console: Console | None = None) -> int:
    console = console or output_console()
    if req.fmt not in ("text", "json"):
        raise UsageError(f"--format {req.fmt!r} is not valid; choose text or json")
    root = find_root(req.checkout)
    # The lock is held from before the checkout is read until the command ends, so a second
    # ffgen never plans against a tree this one is writing (a dry run only settles a journal).
    with holding(root, writes=not req.dry_run):
        _, plan, classification = prepare_new(req, console, root)
        return _show_and_write_new(req, console, root, plan, classification)


def _show_and_write_new(
    req: NewRequest, console: Console, root: Path, plan: Plan, classification: Classification
) -> int:
    """The plan, then the writes; JSON is printed once the outcome is known (none on a
    refusal, ``written: false`` for a plan with conflicts, as documented)."""
    if req.fmt == "text":
        show_plan(console, plan, classification, diffs=req.dry_run)
    if plan.conflicts:
        if req.fmt == "json":
            print_plain_json(
                {**plan_json(plan, classification), "dry_run": req.dry_run, "written": False}
            )
        paths = ", ".join(c.path for c in plan.conflicts)
        raise RefusedError(
            f"{len(plan.conflicts)} file(s) differ from what ffgen would write ({paths}); "
            "nothing was written: re-run with --force to overwrite"
        )
    written = () if req.dry_run else apply_plan(root, plan)
    if req.fmt == "json":
        print_plain_json(
            {**plan_json(plan, classification), "dry_run": req.dry_run, "written": not req.dry_run}
        )
    elif not req.dry_run:
        console.print(f"{len(written)} file(s) written under {root}")
    return EXIT_OK


def with_recorded_answers(req: NewRequest) -> NewRequest:
    """``--answers FILE``: the record's answers, under any flag given on the command line.

    The recorded class stem only applies to the recorded name; another NAME derives its own.
    """
    if req.answers_file is None:
        return req
    from dataclasses import replace

    from ffgen.lifecycle.replay import flags_from, load_answers_file

    record = load_answers_file(req.answers_file)
    flags = flags_from(record) | {k: v for k, v in req.flags.items() if v is not None}
    class_name = req.class_name
    if class_name is None and req.name == record.answers["name"]:
        class_name = record.answers.get("class_name")
    return replace(req, flags=flags, class_name=class_name, interactive=False)


def most_used_model_type(hints: CheckoutHints) -> str | None:
    """The model type most of the checkout's example configs train (ties: first by name)."""
    counts = Counter(e.model_type for e in hints.examples if e.model_type)
    if not counts:
        return None
    return min(counts, key=lambda m: (-counts[m], m))


def gather_answers(
    req: NewRequest, facts: CheckoutFacts, console: Console, model_default: str | None = None
) -> Answers:
    answers = interview.from_flags(dict(req.flags))
    if not req.interactive:
        answers, notes = interview.complete_non_interactive(answers, facts.model_types)
        if req.fmt == "text":  # JSON output stays machine-readable
            for note in notes:
                console.print(f"[dim]forced: {note}[/dim]")
        return answers
    from rich.prompt import Prompt
    from rich.text import Text

    def ask(question: interview.Question, default: object) -> str:
        # soft_wrap=False: rich wraps long explanations at word boundaries, to the terminal.
        line = Text.assemble((question.prop, "bold"), ": ", question.explanation)
        console.print(line, soft_wrap=False)
        if len(question.choices) <= MANY_CHOICES:
            return Prompt.ask(f"  {'|'.join(question.choices)}", default=default, console=console)
        for number, choice in enumerate(question.choices, start=1):
            console.print(f"  {number:>2}. {choice}", highlight=False)
        reply = Prompt.ask("  number or name", default=default, console=console)
        return choice_for(reply, question.choices)

    return interview.interview(answers, facts.model_types, ask, console.print, model_default)


MANY_CHOICES = 5  # more than this and a question lists its choices numbered, one per line


def choice_for(reply: str, choices: tuple[str, ...]) -> str:
    """A numbered list takes the number or the name; anything else is checked by the caller."""
    text = reply.strip()
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1]
    return text


def check_example_choices(c: Classification, facts: CheckoutFacts) -> None:
    a = c.answers
    if facts.model_types and a.model_type not in facts.model_types:
        raise UsageError(
            f"--model-type {a.model_type!r} is not a model type of this checkout; choose one of "
            f"{', '.join(facts.model_types)}"
        )
    interview.check_category(c.category)


def show_plan(console: Console, plan: Plan, c: Classification, *, diffs: bool) -> None:
    a = c.answers
    console.print(
        f"[bold]{plan.key}[/bold]: {c.contract.value} ({a.acquisition.value} + "
        f"{a.feedback.value}), {a.paradigm.value}, family {c.family.value}, "
        f"trainers/{c.category}/"
    )
    show_changes(console, plan, diffs=diffs)


def plan_json(plan: Plan, c: Classification) -> dict[str, object]:
    return {
        "algorithm": plan.key,
        "contract": c.contract.value,
        "family": c.family.value,
        "category": c.category,
        "files": files_json(plan),
    }


