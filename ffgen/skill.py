"""``ffgen skill``: write the agent skill that drives ffgen into a checkout.

The skill (``.agents/skills/ffgen/SKILL.md``, the place Flow-Factory keeps its agent skills)
tells a coding agent to classify with ffgen's flags, plan and generate with ``ffgen new``, edit
only the objective block, and check with ``ffgen verify`` and the generated suite. Its facts
(the seven properties and their values, the sound defaults, the contracts, which answers give
which family, the file paths) are computed from :mod:`ffgen.classify.rules`,
:mod:`ffgen.classify.interview`
and :mod:`ffgen.checkout.layout` here, so the skill cannot describe an ffgen that no longer exists.

Same stages as ``new``: facts -> plan (one owned file, in memory) -> render -> apply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path

from rich.console import Console

from ffgen import errors
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
from ffgen.generate.plan import Plan, owned_file

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
    """One owned file: created, identical, or (edited by hand) a conflict unless ``force``."""
    return Plan(key="ffgen", changes=(owned_file(view, SKILL_PATH, render_skill(), force),))


def skill_json(root: Path, plan: Plan, dry_run: bool) -> dict[str, object]:
    from ffgen.output import files_json

    return {
        "command": "skill",
        "checkout": str(root),
        "dry_run": dry_run,
        "files": files_json(plan),
    }


def run_skill(
    checkout: Path | None,
    *,
    dry_run: bool,
    force: bool,
    fmt: str,
    console: Console | None = None,
) -> int:
    from ffgen.output import output_console
    from ffgen.write.journal import holding

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not valid; choose text or json")
    console = console or output_console()
    root = find_root(checkout)
    with holding(root, writes=not dry_run):
        plan = plan_skill(CheckoutView(root), force=force)
        return _show_and_write(console, root, plan, dry_run=dry_run, fmt=fmt)


def _show_and_write(console: Console, root: Path, plan, *, dry_run: bool, fmt: str) -> int:
    from ffgen.output import show_changes
    from ffgen.write.apply import apply_plan

    if fmt == "text":
        console.print(f"[bold]ffgen skill[/bold]{' (dry run)' if dry_run else ''}")
        show_changes(console, plan, diffs=dry_run)
    if plan.conflicts:
        if fmt == "json":  # documented: the plan, written false
            print(json.dumps(skill_json(root, plan, dry_run), indent=2))
        raise RefusedError(
            f"{SKILL_PATH} differs from what ffgen would write (edited by hand?); nothing was "
            "written: re-run with --force to overwrite it"
        )
    written = () if dry_run else apply_plan(root, plan)
    if fmt == "json":
        # Plain print, not rich: on a terminal rich would colour and wrap the JSON.
        print(json.dumps(skill_json(root, plan, dry_run), indent=2))
    elif not dry_run:
        console.print(f"{len(written)} file(s) written under {root}")
    return EXIT_OK
