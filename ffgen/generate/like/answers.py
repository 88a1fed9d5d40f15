"""A ``--like`` / ``--extends`` run's answers: what the source's code fixes, under the free flags.

A flag that says what the code says is fine; one that contradicts it is refused, naming the
property, both values and where the code fixes it. The example choices (model type, finetune
type) and the category stay free: the example is chosen among the source's own, and a copy's
imports are re-based to any category folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from ffgen.checkout import layout
from ffgen.classify import interview
from ffgen.classify.model import Answers, Dynamics, FinetuneType
from ffgen.classify.params import ParamSet
from ffgen.errors import UsageError
from ffgen.generate.like.source import SourceAlgorithm, preferred
from ffgen.verify.catalogue import SDE_DYNAMICS
from ffgen.verify.examples import Example

FIXED = ("acquisition", "feedback", "paradigm", "supervision", "state", "ownership", "roles")


def _text(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ",".join(f"{v[0]}={v[1]}" if isinstance(v, tuple) else str(v) for v in value)
    return str(value)


def _reason(source: SourceAlgorithm, prop: str, fixed: object) -> str:
    if prop == "direction":
        return f"its objective has {'the direction ' + str(fixed) if fixed else 'no direction'}"
    if source.generated:
        return f"{source.key} was generated with {interview.flag_name(prop)} {_text(fixed)}"
    return source.reasons.get(prop, f"{source.key}'s code fixes {prop}={_text(fixed)}")


def _fixed_props(source: SourceAlgorithm) -> tuple[str, ...]:
    """A generated source fixes every recorded answer; a hand-written one what its code says
    (dynamics only when coupled)."""
    # A record's direction is its objective's: a copy keeps the source's (a hand-written one
    # has none), so a --direction flag that differs is refused rather than ignored.
    if source.generated:
        return (*FIXED, "dynamics", "role_cadence", "direction")
    return (*FIXED, "dynamics", "direction") if "dynamics" in source.reasons else (
        *FIXED, "direction")


def like_answers(source: SourceAlgorithm, flags: Mapping[str, str | None]) -> Answers:
    """The source's answers, with the free flags applied; a contradicting flag is refused."""
    given = interview.from_flags(dict(flags))
    a = source.answers
    for prop in _fixed_props(source):
        value, fixed = getattr(given, prop), getattr(a, prop)
        if value in (None, ()) or value == fixed:
            continue
        raise UsageError(
            f"{interview.flag_name(prop)} {_text(value)} conflicts with --{source.mode} "
            f"{source.key}: {_reason(source, prop, fixed)} ({prop}={_text(fixed)}); drop the "
            "flag, or start from the family templates without --like"
        )
    example = _chosen_example(source, given)
    model = _section(example, "model")
    finetune = str(model.get("finetune_type", "lora")).lower() if example else None
    return a.with_(
        params=copy_params(source, given.params),
        dynamics=given.dynamics or a.dynamics or _example_dynamics(example),
        role_cadence=given.role_cadence or a.role_cadence,
        category=given.category or category_of(source),
        model_type=given.model_type or _model_type(model) or a.model_type,
        finetune_type=given.finetune_type or _finetune(finetune) or a.finetune_type,
    )


def copy_params(source: SourceAlgorithm, given: ParamSet | None) -> ParamSet | None:
    """The source's own params (a generated source's, already fields of the copy), then the
    ``--param`` ones the copy adds; one that is not the source's but whose name the copied
    class already has is refused. (A replay gives the source's own again: they are kept.)"""
    own = source.answers.params.items if source.answers.params else ()
    added = []
    for p in given.items if given else ():
        if p in own:
            continue
        if any(o.name == p.name for o in own) or p.name in source.args_members:
            raise UsageError(
                f"--param {p.name!r}: {source.args.name}, which --{source.mode} {source.key} "
                f"copies, already has {p.name!r}; choose another name"
            )
        added.append(p)
    items = (*own, *added)
    return ParamSet(items) if items else None


def category_of(source: SourceAlgorithm) -> str:
    return layout.trainer_category(source.trainer.module) or "rl"


def _section(example: Example | None, name: str) -> dict:
    value = example.data.get(name) if example is not None else None
    return value if isinstance(value, dict) else {}


def _model_type(model: dict) -> str | None:
    return str(model["model_type"]) if model.get("model_type") else None


def _finetune(text: str | None) -> FinetuneType | None:
    return FinetuneType(text) if text in ("lora", "full") else None


def _example_dynamics(example: Example | None) -> Dynamics:
    dynamics = _section(example, "scheduler").get("dynamics_type")
    return Dynamics.SDE if dynamics in SDE_DYNAMICS else Dynamics.ANY


def _chosen_example(source: SourceAlgorithm, given: Answers) -> Example | None:
    """The first of the source's examples that fits the model / finetune flags given; None
    when none does: the copy's example then starts from the checkout's example for that model
    type (:func:`example_note` says so)."""
    if not source.examples:
        return None
    return source_example(source, given.model_type, given.finetune_type)


def example_note(source: SourceAlgorithm, model_type: str, finetune: object,
                 base_example: str) -> str | None:
    """One line when the source has examples but none for the chosen model / finetune type."""
    if not source.examples or source_example(source, model_type, finetune) is not None:
        return None
    have = ", ".join(e.path for e in preferred(source.examples))
    start = (f"the checkout's {model_type} example {base_example}" if base_example
             else f"ffgen's {model_type} example for its family")
    return (f"--{source.mode} {source.key} has no example config for model type {model_type!r} "
            f"with finetune type {_text(finetune)!r} (it has {have}); the copy's example starts "
            f"from {start}")


def _fits(example: Example, model_type: str | None, finetune: object) -> bool:
    model = _section(example, "model")
    ft = str(model.get("finetune_type", "lora")).lower()
    same_model = model_type is None or str(model.get("model_type")) == model_type
    return same_model and (finetune is None or ft == _text(finetune))


def source_example(
    source: SourceAlgorithm, model_type: str | None, finetune: object
) -> Example | None:
    """The source example the copy's example derives from (None: the template's example)."""
    fitting = [e for e in preferred(source.examples) if _fits(e, model_type, finetune)]
    return fitting[0] if fitting else None
