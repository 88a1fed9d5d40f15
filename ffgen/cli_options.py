"""The flags of ``ffgen new``: one ``Annotated`` alias per option, so the command's signature
reads as the list of its questions (see :mod:`ffgen.classify` for what each answer means)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


def _opt(metavar: str, help_text: str, *names: str):
    return typer.Option(*names, metavar=metavar, help=help_text)


# The seven classification questions and the other answers, one flag each (see ffgen.classify).
_Text = str | None
_Acquisition = Annotated[
    _Text, _opt("generation|dataset", "Generated samples or a finite dataset.")
]
_Feedback = Annotated[
    _Text, _opt("runtime_reward|none", "Whether a runtime reward scores samples.")
]
_Paradigm = Annotated[
    _Text, _opt("coupled|decoupled|distillation", "How the objective uses samples.")
]
_Dynamics = Annotated[_Text, _opt("sde|ode|any", "Sampler dynamics the objective needs.")]
_Supervision = Annotated[
    _Text,
    _opt(
        "prompts|demonstrations|preference_pairs|record:<TypeName>[(field:type,...)]",
        "What supervises the objective.",
    ),
]
_State = Annotated[_Text, _opt("legacy|structured", "Single- or multi-component latent state.")]
_Ownership = Annotated[_Text, _opt("single|multi_role|snapshots", "Who owns trainable weights.")]
_Direction = Annotated[
    _Text,
    _opt(
        "FIELD|none",
        "The record's bool field saying whether a row is desirable (needs snapshots).",
    ),
]
_Roles = Annotated[_Text, _opt("A,B", "Role names for multi_role.")]
_Cadence = Annotated[
    _Text,
    _opt(
        "ROLE=N[,ROLE=N]",
        "Optimizer steps per training step of a non-primary role (multi_role distillation).",
    ),
]
_ModelType = Annotated[_Text, _opt("TYPE", "Model type for the example config.")]
_Finetune = Annotated[_Text, _opt("lora|full", "Fine-tuning of the example config.")]
_Category = Annotated[_Text, _opt("DIR", "Trainer folder (default from answers).")]
_ClassName = Annotated[_Text, _opt("STEM", "Class stem, e.g. GRPOX for acronyms.")]
_PARAM_SPEC = "NAME:TYPE=DEFAULT[:CONSTRAINT[:HELP]]"
_Param = Annotated[
    list[str] | None,
    _opt(
        _PARAM_SPEC,
        "A hyperparameter of the arguments class (repeatable); TYPE float|int|bool|str, "
        "CONSTRAINT >=X, >X, <=X, <X, 'in (A, B]' or a|b; HELP the field's help text.",
        "--param",
    ),
]
_Like = Annotated[
    _Text, _opt("KEY", "Start from a copy of the checkout's algorithm KEY.", "--like")
]
_Extends = Annotated[
    _Text, _opt("KEY", "Subclass KEY's trainer (sanctioned parents only).", "--extends")
]
_Yes = Annotated[bool, typer.Option("--yes", "-y", help="Never ask; take sound defaults.")]
_DryRun = Annotated[bool, typer.Option("--dry-run", help="Show the plan and diffs; write nothing.")]
_Force = Annotated[bool, typer.Option("--force", help="Overwrite conflicting files.")]
_Answers = Annotated[
    Path | None, _opt("FILE", "Replay a record (.ffgen/answers/KEY.yml).", "--answers")
]
_Format = Annotated[str, _opt("text|json", "Plan output.", "--format")]
_Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks.")]
_NAME_HELP = "Algorithm name, e.g. my-algo (registry key)."

# ``new``'s answers to the classification and its other questions, handed on as NewRequest.flags
CLASSIFY_FLAGS = (
    "acquisition", "feedback", "paradigm", "dynamics", "supervision", "state", "ownership",
    "roles", "role_cadence", "model_type", "finetune_type", "category", "direction",
)


def new_code(*, name: str, param: list[str] | None, yes: bool, answers: Path | None,
             like: str | None, extends: str | None, class_name: str | None,
             checkout: Path | None, dry_run: bool, force: bool, fmt: str, debug: bool,
             **flags: str | None) -> int:
    """``ffgen new``, from the keyword arguments of its typer command."""
    from ffgen.classify.params import params_text
    from ffgen.errors import FfgenError
    from ffgen.generate.new import NewRequest
    from ffgen.lifecycle.new import run_new
    from ffgen.stdout_guard import print_error

    if set(flags) != set(CLASSIFY_FLAGS):  # a flag added to the command but not here
        raise TypeError(f"new: unexpected options {sorted(set(flags) ^ set(CLASSIFY_FLAGS))}")
    stdin = sys.stdin
    request = NewRequest(
        name=name, class_name=class_name, checkout=checkout,
        flags={**flags, "params": params_text(param)},
        interactive=not yes and answers is None and stdin is not None and not stdin.closed
        and stdin.isatty(),
        dry_run=dry_run, force=force, fmt=fmt, answers_file=answers, like=like, extends=extends,
    )
    try:
        return run_new(request)
    except FfgenError as exc:
        if debug:
            raise
        return print_error(exc)
