"""``ffgen skill``: write the agent skill that drives ffgen into a checkout.

The skill (``.agents/skills/ffgen/SKILL.md``, the place Flow-Factory keeps its agent skills)
tells a coding agent to classify with ffgen's flags, plan and generate with ``ffgen new``, edit
only the objective block, and check with ``ffgen verify`` and the generated suite. Its facts
(the seven properties and their values, the sound defaults, the contracts, which answers give
which family, the file paths) are computed from :mod:`ffgen.classify.rules`,
:mod:`ffgen.classify.interview`
and :mod:`ffgen.checkout.layout` here, so the skill cannot describe an ffgen that no longer exists.

It also points ``AGENTS.md`` (where the checkout routes agent work) at the skill, in one marked
block (:mod:`ffgen.agents_md`); ``ffgen skill --remove`` takes both out again.

Same stages as ``new``: facts -> plan (in memory) -> render -> apply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path

from rich.console import Console

from ffgen import agents_md, errors
from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView, find_root
from ffgen.classify.model import Acquisition, Family, Feedback, SupervisionKind
from ffgen.classify.rules import (
    QUESTION_ORDER,
    SOUND_DEFAULTS,
    contract_for,
    default_category,
    legal_classifications,
)
from ffgen.errors import EXIT_OK, RefusedError, UsageError
from ffgen.generate import render
from ffgen.generate.plan import FileChange, Plan, Status, owned_file

SKILL_PATH = ".agents/skills/ffgen/SKILL.md"
SKILL_TEMPLATE = "skill/SKILL.md.jinja"
# The markers every generated trainer puts around its objective (templates/algorithm/families).
OBJECTIVE_BEGIN = "# --- objective: edit here"
OBJECTIVE_END = "# --- objective: end"
FORMATS = ("text", "json")


@dataclass(frozen=True)
class Property:
    """One classification property as the skill lists it."""

    name: str
    flag: str
    values: tuple[str, ...]
    default: str  # what --yes takes when nothing forces the value ("" when there is none)
    explanation: str


@dataclass(frozen=True)
class ContractRow:
    acquisition: str
    feedback: str
    contract: str  # "" when no contract covers the composition
    category: str
    refusal: str  # why it is refused, when it is


@dataclass(frozen=True)
class FamilyRow:
    family: str
    values: tuple[tuple[str, ...], ...]  # per property of QUESTION_ORDER: its legal values


@dataclass(frozen=True)
class SkillContext:
    """What the skill template sees (``render.render`` takes any object with ``as_dict``)."""

    properties: tuple[Property, ...]
    finetune: Property
    contracts: tuple[ContractRow, ...]
    families: tuple[FamilyRow, ...]
    trainer_path: str
    test_paths: tuple[str, str]
    args_path: str
    objective_begin: str
    objective_end: str
    exit_ok: int
    exit_refused: int
    exit_usage: int

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _value(value: object) -> str:
    return str(getattr(value, "value", value))


def properties() -> tuple[Property, ...]:
    """The seven properties, in the order ffgen asks them."""
    from ffgen.classify.interview import QUESTIONS, flag_name

    return tuple(_property(QUESTIONS[name], flag_name(name)) for name in QUESTION_ORDER)


def _property(question, flag: str) -> Property:
    default = SOUND_DEFAULTS.get(question.prop)
    return Property(
        name=question.prop,
        flag=flag,
        values=question.choices,
        default="" if default is None else _value(default),
        explanation=question.explanation,
    )


def contract_rows() -> tuple[ContractRow, ...]:
    """Every acquisition + feedback pair: its contract and default category, or the refusal."""
    rows = []
    for acq in Acquisition:
        for fb in Feedback:
            try:
                contract = contract_for(acq, fb)
            except RefusedError as exc:
                rows.append(ContractRow(acq.value, fb.value, "", "", exc.message))
                continue
            rows.append(
                ContractRow(acq.value, fb.value, contract.value, default_category(contract), "")
            )
    return tuple(rows)


def family_rows() -> tuple[FamilyRow, ...]:
    """For each family, the values of each property that classify into it (all legal points)."""
    seen: dict[str, list[list[str]]] = {}
    for c in legal_classifications():
        cells = seen.setdefault(c.family.value, [[] for _ in QUESTION_ORDER])
        for cell, prop in zip(cells, QUESTION_ORDER, strict=True):
            value = _answer_text(getattr(c.answers, prop))
            if value not in cell:
                cell.append(value)
    order = [f.value for f in Family if f.value in seen]
    return tuple(FamilyRow(f, tuple(tuple(cell) for cell in seen[f])) for f in order)


def _answer_text(value: object) -> str:
    kind = getattr(value, "kind", None)
    if kind is SupervisionKind.RECORD:
        return "record:<TypeName>"  # the type name is the user's
    return _value(value)


def skill_context() -> SkillContext:
    from ffgen.classify.interview import QUESTIONS, flag_name

    return SkillContext(
        properties=properties(),
        finetune=_property(QUESTIONS["finetune_type"], flag_name("finetune_type")),
        contracts=contract_rows(),
        families=family_rows(),
        trainer_path=layout.trainer_module_path("<category>", "<module>"),
        test_paths=(layout.test_path("<module>"), layout.args_test_path("<module>")),
        args_path=layout.args_module_path("<module>"),
        objective_begin=OBJECTIVE_BEGIN,
        objective_end=OBJECTIVE_END,
        exit_ok=errors.EXIT_OK,
        exit_refused=errors.EXIT_REFUSED,
        exit_usage=errors.EXIT_USAGE,
    )


def render_skill() -> str:
    return render.render(SKILL_TEMPLATE, skill_context())


def plan_skill(view: CheckoutView, *, force: bool) -> Plan:
    """The skill file (owned: created, identical, or edited by hand a conflict unless
    ``force``) and its pointer in ``AGENTS.md``."""
    changes = (owned_file(view, SKILL_PATH, render_skill(), force), _pointer(view, force))
    return Plan(key="ffgen", changes=changes)


def _pointer(view: CheckoutView, force: bool) -> FileChange:
    old = view.read(agents_md.AGENTS_PATH)
    new = agents_md.with_block(old, SKILL_PATH)
    if old is None:
        return FileChange(agents_md.AGENTS_PATH, Status.CREATE, None, new)
    if old == new:
        return FileChange(agents_md.AGENTS_PATH, Status.IDENTICAL, old, new)
    # A block someone edited is theirs until --force; adding a missing one is not a conflict.
    edited = agents_md.has_block(old) and not force
    return FileChange(agents_md.AGENTS_PATH, Status.CONFLICT if edited else Status.UPDATE, old, new)


def plan_skill_removal(view: CheckoutView, *, force: bool) -> Plan:
    """``--remove``: the skill file goes (edited by hand: a conflict unless ``force``) and the
    pointer comes out of ``AGENTS.md`` (the file goes too when ffgen created it for it)."""
    changes = []
    skill = view.read(SKILL_PATH)
    if skill is not None:
        status = Status.DELETE if skill == render_skill() or force else Status.CONFLICT
        changes.append(FileChange(SKILL_PATH, status, skill, ""))
    guide = view.read(agents_md.AGENTS_PATH)
    if guide is not None and agents_md.has_block(guide):
        left = agents_md.without_block(guide)
        status = Status.DELETE if left is None else Status.UPDATE
        changes.append(FileChange(agents_md.AGENTS_PATH, status, guide, left or ""))
    return Plan(key="ffgen", changes=tuple(changes))


def skill_json(root: Path, plan: Plan, dry_run: bool, remove: bool = False) -> dict[str, object]:
    from ffgen.output import files_json

    return {
        "command": "skill",
        "checkout": str(root),
        "dry_run": dry_run,
        "remove": remove,
        "files": files_json(plan),
    }


def run_skill(
    checkout: Path | None,
    *,
    dry_run: bool,
    force: bool,
    fmt: str,
    console: Console | None = None,
    remove: bool = False,
) -> int:
    from ffgen.output import output_console
    from ffgen.write.journal import holding

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not valid; choose text or json")
    console = console or output_console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        view = CheckoutView(root)
        plan = plan_skill_removal(view, force=force) if remove else plan_skill(view, force=force)
        return _show_and_write(console, root, plan, dry_run=dry_run, fmt=fmt, remove=remove)


def _show_and_write(
    console: Console, root: Path, plan, *, dry_run: bool, fmt: str, remove: bool
) -> int:
    from ffgen.output import show_changes
    from ffgen.write.apply import apply_plan

    if fmt == "text":
        title = "ffgen skill --remove" if remove else "ffgen skill"
        console.print(f"[bold]{title}[/bold]{' (dry run)' if dry_run else ''}")
        show_changes(console, plan, diffs=dry_run)
    if plan.conflicts:
        if fmt == "json":  # documented: the plan, written false
            print(json.dumps(skill_json(root, plan, dry_run, remove), indent=2))
        paths = ", ".join(c.path for c in plan.conflicts)
        if remove:
            raise RefusedError(
                f"{paths} was edited by hand; nothing was removed: re-run with --remove --force "
                "to delete it anyway"
            )
        raise RefusedError(
            f"{paths} differs from what ffgen would write (edited by hand?); nothing was "
            "written: re-run with --force to overwrite it"
        )
    written = () if dry_run else apply_plan(root, plan)
    if fmt == "json":
        # Plain print, not rich: on a terminal rich would colour and wrap the JSON.
        print(json.dumps(skill_json(root, plan, dry_run, remove), indent=2))
    elif not dry_run:
        from ffgen.output import escape

        console.print(f"{len(written)} file(s) written under {escape(root)}")
    return EXIT_OK
