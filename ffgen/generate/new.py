"""The ``new`` command's core: request in, stages run in order, plan shown, exit code out."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ffgen.checkout.facts import CheckoutFacts, read_facts
from ffgen.checkout.hints import CheckoutHints, answers_on_record, read_hints
from ffgen.checkout.view import CheckoutView, find_root
from ffgen.classify import interview
from ffgen.classify.model import Answers, Classification
from ffgen.classify.names import (
    KNOWN_ACRONYMS,
    AlgorithmNames,
    acronyms_in,
    check_record_type,
    parse_name,
)
from ffgen.classify.rules import classify
from ffgen.errors import UsageError
from ffgen.generate.context import build_context
from ffgen.generate.param_code import check_params
from ffgen.generate.plan import Plan, build_plan, check_plan_verifies, docs_inner
from ffgen.output import escape, files_json, show_changes

if TYPE_CHECKING:
    from rich.console import Console  # output_console may give a PlainConsole (same output)


@dataclasses.dataclass(frozen=True, slots=True)
class NewRequest:
    """What ``ffgen new`` was asked for: NAME, the flags and the options."""
    name: str
    class_name: str | None
    checkout: Path | None
    flags: Mapping[str, str | None]
    interactive: bool
    dry_run: bool
    force: bool
    fmt: str
    answers_file: Path | None = None  # a record to replay (``--answers``)
    like: str | None = None  # ``--like KEY``: start from a copy of KEY (ffgen.generate.like)
    extends: str | None = None  # ``--extends KEY``: subclass KEY's trainer


def prepare_new(
    req: NewRequest,
    console: Console,
    root: Path | None = None,
    sources: interview.Sources | None = None,
) -> tuple[Path, Plan, Classification]:
    """Every stage up to the plan: nothing is written (``root``: the checkout, when found;
    ``sources``: filled with how each answer was resolved)."""
    if req.fmt not in ("text", "json"):
        raise UsageError(f"--format {req.fmt!r} is not valid; choose text or json")
    req = with_recorded_answers(req)
    parse_name(req.name, req.class_name)  # a bad NAME is refused before the checkout is read
    root = root or find_root(req.checkout)
    view = CheckoutView(root)
    facts = read_facts(view)
    names = checkout_names(view, facts, req.name, req.class_name)
    hints = read_hints(view)
    like = _like_source(view, req, facts, console, sources)
    answers = like[1] if like else gather_answers(
        req, facts, console, most_used_model_type(hints), sources
    )
    classification = classify(answers)
    supervision = classification.answers.supervision
    check_record_type(names, supervision.record_type if supervision else None)
    check_example_choices(classification, facts)
    ctx = build_context(names, classification, hints)
    check_params(view, ctx)
    inputs = _like_inputs(view, like, ctx, console if req.fmt == "text" else None)
    plan = build_plan(
        view, facts, names, classification, inputs.ctx if inputs else ctx, force=req.force,
        source=inputs.source if inputs else None, copied=inputs.files if inputs else None,
    )
    check_plan_verifies(view, plan)
    return root, plan, classification


def _like_source(view, req: NewRequest, facts: CheckoutFacts, console: Console, sources):
    """``--like`` / ``--extends``: the source and the answers its code fixes (else None)."""
    if not req.like and not req.extends:
        return None  # without the flags the like package (and its imports) is never loaded
    from ffgen.generate.like.inputs import like_answers_for, requested_source, source_line

    source = requested_source(view, req.like, req.extends)
    if source is None:
        return None
    answers = like_answers_for(source, req.flags, facts.model_types, sources)
    if req.fmt == "text":
        console.print(f"[dim]{escape(source_line(source, answers))}[/dim]", highlight=False)
    return source, answers


def _like_inputs(view, like, ctx, console: Console | None):
    """The copy's inputs; on a text run, one line where the example starts elsewhere."""
    if not like:
        return None
    from ffgen.generate.like.answers import example_note
    from ffgen.generate.like.inputs import like_inputs

    note = example_note(like[0], ctx.model_type, ctx.finetune_type, ctx.base_example)
    if note and console is not None:
        console.print(f"[dim]{escape(note)}[/dim]", highlight=False)
    return like_inputs(view, like[0], ctx)


def conflict_message(view: CheckoutView, plan: Plan) -> str:
    """Why nothing was written. A re-run on an algorithm ffgen generated points to ``update``
    while the user's edits are in the way (``--force`` would wipe them)."""
    from ffgen.store.read import read_record

    paths = ", ".join(c.path for c in plan.conflicts)
    record = read_record(view, plan.key)
    if record is None:
        return (f"{len(plan.conflicts)} file(s) differ from what ffgen would write ({paths}); "
                "nothing was written: re-run with --force to overwrite")
    edited = [c.path for c in plan.conflicts if _edited(record, c)]
    if not edited:
        return (f"{plan.key} was generated by ffgen and its files are as it wrote them, but "
                f"today's render differs ({paths}); nothing was written: `ffgen update "
                f"{plan.key}` brings them up to date, `--force` re-generates them from these flags")
    return (f"{plan.key} was generated by ffgen and you edited {', '.join(edited)} since; "
            f"nothing was written: run `ffgen update {plan.key}` to bring in today's templates "
            f"and keep your edits{_answers_note(record, plan)}")


def _edited(record, change) -> bool:
    """A conflicting file the user changed since ffgen wrote it (the docs section included)."""
    from ffgen.store.records import sha256

    recorded = record.file(change.path)
    if recorded is not None:
        return change.old is not None and sha256(change.old) != recorded.sha256
    docs = record.docs
    if docs is None or change.path != docs.path or change.old is None:
        return False
    inner = docs_inner(change.old, record.key, change.path)
    if inner is None:
        return False
    return change.old[inner[0] : inner[1]] != docs.section.strip() + "\n"


def _answers_note(record, plan: Plan) -> str:
    """Flags that differ from the recorded answers: ``update`` keeps the recorded ones."""
    from ffgen.store.records import parse_record

    change = next((c for c in plan.changes if c.path == record.path), None)
    if change is None:
        return ""
    new = parse_record(change.new, change.path).answers
    differ = [f"{k} {record.answers.get(k)} -> {new.get(k)}"
              for k in dict.fromkeys([*record.answers, *new])
              if record.answers.get(k) != new.get(k)]
    if not differ:
        return ""
    return (f" (your flags differ from the recorded answers: {', '.join(differ)}; update keeps "
            "the recorded ones)")


def with_recorded_answers(req: NewRequest) -> NewRequest:
    """``--answers FILE``: the record's answers, under any flag given on the command line.

    The recorded class stem only applies to the recorded name; another NAME derives its own.
    """
    if req.answers_file is None:
        return req
    from ffgen.store.read import flags_from, load_answers_file

    record = load_answers_file(req.answers_file)
    flags = flags_from(record) | {k: v for k, v in req.flags.items() if v is not None}
    class_name = req.class_name
    if class_name is None and req.name == record.answers["name"]:
        class_name = record.answers.get("class_name")
    from ffgen.generate.like.provenance import recorded_start

    start = recorded_start(req.answers_file)
    if start is not None and req.like is None and req.extends is None:
        req = replace(req, **{start[0]: start[1]})  # the record started from a source
    return replace(req, flags=flags, class_name=class_name, interactive=False)


def checkout_names(
    view: CheckoutView, facts: CheckoutFacts, name: str, class_name: str | None
) -> AlgorithmNames:
    """NAME's spellings in this checkout: its stem keeps the acronyms the checkout's own class
    names spell in capitals; a re-run keeps the stem its record holds (an older ffgen may have
    derived another)."""
    if class_name is None:
        recorded = answers_on_record(view, parse_name(name).key).get("class_name")
        class_name = recorded if isinstance(recorded, str) else None
    acronyms = KNOWN_ACRONYMS | acronyms_in(facts.class_names)
    return parse_name(name, class_name, acronyms)


def most_used_model_type(hints: CheckoutHints) -> str | None:
    """The model type most of the checkout's example configs train (ties: first by name)."""
    counts = Counter(e.model_type for e in hints.examples if e.model_type)
    if not counts:
        return None
    return min(counts, key=lambda m: (-counts[m], m))


def gather_answers(
    req: NewRequest,
    facts: CheckoutFacts,
    console: Console,
    model_default: str | None = None,
    sources: interview.Sources | None = None,
) -> Answers:
    """The answers from the flags, completed without questions or by asking on a terminal
    (``sources``: filled with how each answer was resolved)."""
    answers = interview.from_flags(dict(req.flags))
    if not req.interactive:
        answers, notes = interview.complete_non_interactive(answers, facts.model_types, sources)
        if req.fmt == "text":  # JSON output stays machine-readable
            for note in notes:
                console.print(f"[dim]forced: {escape(note)}[/dim]")
        return answers
    return interview.interview(
        answers, facts.model_types, _asker(console), console.print, model_default, sources
    )


def _asker(console: Console):
    """``ask(question, default) -> str`` on the terminal: Enter gives "" (the interview then
    takes the default, or asks again where there is none); end of input is a usage error."""
    from rich.prompt import Prompt
    from rich.text import Text

    def ask(question: interview.Question, default: object) -> str:
        # soft_wrap=False: rich wraps long explanations at word boundaries, to the terminal.
        line = Text.assemble((question.prop, "bold"), ": ", question.explanation)
        console.print(line, soft_wrap=False)
        many = len(question.choices) > MANY_CHOICES
        for number, choice in enumerate(question.choices if many else (), start=1):
            console.print(f"  {number:>2}. {escape(choice)}", highlight=False)
        label = "number or name" if many else "|".join(question.choices)
        shown = f" ({default})" if default not in (None, "") else ""
        prompt = Text.assemble(f"  {label}", (shown, "bold cyan"))
        try:
            reply = Prompt.ask(prompt, console=console)
        except EOFError:
            raise UsageError(f"no answer for {question.prop} (end of input); nothing was "
                             "written") from None
        return choice_for(reply, question.choices) if many else reply

    return ask


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


def plan_json(
    plan: Plan, c: Classification, sources: interview.Sources | None = None
) -> dict[str, object]:
    return {
        "algorithm": plan.key,
        "contract": c.contract.value,
        "family": c.family.value,
        "category": c.category,
        "answers": answers_json(c, sources or {}),
        "files": files_json(plan),
        **_source_json(plan),
    }


def _source_json(plan: Plan) -> dict[str, object]:
    src = plan.source
    if src is None:
        return {}
    keys = ("key", "mode", "kind", "trainer_class", "args_class")
    return {"source": {k: getattr(src, k) for k in keys}}


def answers_json(c: Classification, sources: interview.Sources) -> dict[str, object]:
    """Every resolved answer as its flag takes it, and where it came from: given (a flag, a
    record's answer or a typed reply), forced (the only legal value) or defaulted."""
    from ffgen.store.records import flag_text

    out: dict[str, object] = {}
    for name in (f.name for f in dataclasses.fields(c.answers)):
        value = c.category if name == "category" else getattr(c.answers, name)
        if value in (None, ()):
            continue
        how = sources.get(name, interview.DEFAULTED)
        out[name] = {"value": flag_text(value), "source": how}
    return out


