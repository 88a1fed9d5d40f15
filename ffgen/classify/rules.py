"""Classify a new algorithm: seven answers -> execution contract, family and category.

Pure functions over frozen values; nothing here reads the checkout or the terminal.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Iterator
from enum import Enum

from ffgen.classify.model import (
    RESERVED_ROLES,
    ROLE_RE,
    Acquisition,
    Answers,
    Classification,
    Contract,
    Dynamics,
    Family,
    Feedback,
    FinetuneType,
    Ownership,
    Paradigm,
    State,
    Supervision,
    SupervisionKind,
)
from ffgen.classify.record_fields import direction_fields
from ffgen.errors import FfgenError, RefusedError, UsageError

# Each entry: (property, condition on answers so far, forced value, reason). The interactive
# classifier skips a forced question and says why; --yes fills it; a contradicting flag is an error.


def forced_value(prop: str, a: Answers) -> tuple[object, str] | None:
    """The only legal value of ``prop`` given the other answers, with the reason, if forced."""
    acq, fb, par = a.acquisition, a.feedback, a.paradigm
    kind = a.supervision.kind if a.supervision else None
    if prop == "acquisition":
        if par is Paradigm.COUPLED or par is Paradigm.DISTILLATION:
            return Acquisition.GENERATION, f"{par.value} objectives train on generated samples"
        if kind is SupervisionKind.PROMPTS:
            return Acquisition.GENERATION, "prompt supervision means samples are generated"
        if kind is not None:
            return Acquisition.DATASET, f"{kind.value} supervision comes from a finite dataset"
        if fb is Feedback.RUNTIME_REWARD:
            return Acquisition.GENERATION, "runtime rewards score generated samples"
    if prop == "feedback":
        if acq is Acquisition.DATASET:
            return Feedback.NONE, "dataset acquisition has no runtime reward (offline contract)"
        if par is Paradigm.COUPLED:
            return (
                Feedback.RUNTIME_REWARD,
                "coupled objectives weight likelihood ratios by advantages",
            )
        if par is Paradigm.DISTILLATION:
            return Feedback.NONE, "distillation learns from a teacher, not from rewards"
    if prop == "paradigm":
        if acq is Acquisition.DATASET:
            return Paradigm.DECOUPLED, "dataset objectives are decoupled from the sampler"
        if acq is Acquisition.GENERATION and fb is Feedback.NONE:
            return Paradigm.DISTILLATION, "generation without feedback learns from a teacher"
    if prop == "dynamics" and par is Paradigm.COUPLED:
        return Dynamics.SDE, "coupled objectives need SDE transition densities"
    if prop == "supervision" and acq is Acquisition.GENERATION:
        return Supervision(SupervisionKind.PROMPTS), "generated acquisition is driven by prompts"
    if prop == "ownership" and has_direction(a):
        return Ownership.SNAPSHOTS, (
            f"the record's direction ({a.direction}) is scored against a frozen reference"
        )
    if prop == "ownership" and (
        kind is SupervisionKind.PREFERENCE_PAIRS or par is Paradigm.DISTILLATION
    ):
        what = "a frozen reference" if par is not Paradigm.DISTILLATION else "a frozen teacher"
        return Ownership.SNAPSHOTS, f"the objective compares against {what} (a temporal snapshot)"
    return None


# Defaults that are sound when nothing forces a value; properties absent here have none.
SOUND_DEFAULTS: dict[str, object] = {
    "dynamics": Dynamics.ANY,
    "state": State.LEGACY,
    "ownership": Ownership.SINGLE,
    "finetune_type": FinetuneType.LORA,
}

QUESTION_ORDER = (
    "acquisition",
    "feedback",
    "paradigm",
    "dynamics",
    "supervision",
    "state",
    "ownership",
)


def fill_forced(a: Answers) -> tuple[Answers, tuple[str, ...]]:
    """Fill every forced, unanswered property; return the answers and one note per fill."""
    notes: list[str] = []
    changed = True
    while changed:
        changed = False
        for prop in QUESTION_ORDER:
            if getattr(a, prop) is None:
                forced = forced_value(prop, a)
                if forced is not None:
                    a = a.with_(**{prop: forced[0]})
                    notes.append(f"{prop} = {_text(forced[0])} ({forced[1]})")
                    changed = True
    return a, tuple(notes)


def fill_defaults(a: Answers) -> Answers:
    """Fill sound defaults for what is still open (used by --yes)."""
    for prop, value in SOUND_DEFAULTS.items():
        if getattr(a, prop) is None:
            a = a.with_(**{prop: value})
    return a


def _text(value: object) -> str:
    return value.value if isinstance(value, Enum) else str(value)


# --- cross-answer rules --------------------------------------------------------------------------


def check_rules(a: Answers) -> None:
    """Refuse a composition no rule allows, naming the conflicting answers and the way out."""
    acq, fb, par, dyn = a.acquisition, a.feedback, a.paradigm, a.dynamics
    kind = a.supervision.kind if a.supervision else None
    if acq is Acquisition.DATASET and fb is Feedback.RUNTIME_REWARD:
        raise RefusedError(
            "acquisition=dataset with feedback=runtime_reward: no execution contract covers this "
            "composition; it needs a new execution-contract/driver design in Flow-Factory, not a "
            "trainer (use feedback=none for dataset training, or generation for runtime rewards)"
        )
    if par is Paradigm.COUPLED:
        if acq is not Acquisition.GENERATION:
            raise RefusedError(
                "paradigm=coupled needs acquisition=generation: coupled objectives replay the "
                "sampler's own trajectories; use paradigm=decoupled for dataset training"
            )
        if dyn is not Dynamics.SDE:
            raise RefusedError(
                f"paradigm=coupled needs dynamics=sde (got {dyn.value if dyn else 'none'}): "
                "likelihood ratios need SDE transition densities; pass --dynamics sde"
            )
        if fb is not Feedback.RUNTIME_REWARD:
            raise RefusedError(
                "paradigm=coupled needs feedback=runtime_reward: its objective weights likelihood "
                "ratios by advantages; use paradigm=distillation for reward-free generation"
            )
    if par is Paradigm.DISTILLATION and (
        acq is Acquisition.DATASET or fb is Feedback.RUNTIME_REWARD
    ):
        raise RefusedError(
            "paradigm=distillation needs acquisition=generation and feedback=none "
            "(the ONLINE_NO_FEEDBACK contract): the student learns from a teacher on its own "
            "samples; use paradigm=decoupled for dataset or reward training"
        )
    if acq is Acquisition.GENERATION and fb is Feedback.NONE and par is Paradigm.DECOUPLED:
        raise RefusedError(
            "paradigm=decoupled with generation and feedback=none has no training signal; "
            "use paradigm=distillation (teacher) or feedback=runtime_reward"
        )
    if acq is Acquisition.DATASET and kind is SupervisionKind.PROMPTS:
        raise RefusedError(
            "acquisition=dataset needs dataset supervision (demonstrations, preference_pairs or "
            "record:<TypeName>), not prompts"
        )
    if acq is Acquisition.GENERATION and kind not in (None, SupervisionKind.PROMPTS):
        raise RefusedError(
            f"supervision={kind.value} comes from a dataset; use acquisition=dataset, or "
            "supervision=prompts for generated acquisition"
        )
    _check_ownership(a, kind)


def has_direction(a: Answers) -> bool:
    """Whether the answers name a record field as the direction (``--direction``)."""
    return a.direction not in (None, "none")


def _check_direction(a: Answers, kind: SupervisionKind | None) -> None:
    if not has_direction(a):
        return
    if kind is not SupervisionKind.RECORD:
        raise UsageError(
            f"--direction {a.direction} names a field of a record; it applies only to "
            "--supervision record:<TypeName>(<field>:bool); drop --direction"
        )
    fields = dict(a.supervision.fields)
    if fields.get(a.direction) != "bool":
        choices = direction_fields(a.supervision.fields)
        have = f"bool fields: {', '.join(choices)}" if choices else "declare one"
        raise UsageError(
            f"--direction {a.direction}: the record {a.supervision.record_type} has no bool "
            f"field of that name ({have}, e.g. record:{a.supervision.record_type}(label:bool))"
        )
    if a.ownership is not Ownership.SNAPSHOTS:
        raise RefusedError(
            f"--direction {a.direction} needs --ownership snapshots: the default objective scores "
            "each record against a frozen reference (KTO-like); without one an undesirable "
            "record's error would be pushed up without bound"
        )


def _check_ownership(a: Answers, kind: SupervisionKind | None) -> None:
    _check_direction(a, kind)  # a record's direction needs the frozen reference
    own = a.ownership
    needs_snapshot = kind is SupervisionKind.PREFERENCE_PAIRS or a.paradigm is Paradigm.DISTILLATION
    if needs_snapshot and own is Ownership.SINGLE:
        raise RefusedError(
            "ownership=single cannot hold the frozen reference/teacher this objective compares "
            "against; use ownership=snapshots"
        )
    if own is Ownership.MULTI_ROLE:
        roles = a.roles
        if len(roles) < 2 or len(set(roles)) != len(roles):
            raise UsageError(
                f"ownership=multi_role needs at least two distinct role names (got "
                f"{','.join(roles) or 'none'}); pass --roles generator,fake"
            )
        bad = [r for r in roles if not ROLE_RE.match(r) or keyword.iskeyword(r)]
        if bad:
            raise UsageError(
                f"--roles: {bad[0]!r} is not a valid role name; use lowercase identifiers"
            )
        reserved = [r for r in roles if r in RESERVED_ROLES]
        if reserved:
            raise UsageError(
                f"--roles: {reserved[0]!r} is reserved (Flow-Factory's key for an optimizer "
                "entry without a role); name the role after what it does, e.g. generator,critic"
            )
        check_role_cadence(roles, a.role_cadence)
        if a.role_cadence and a.paradigm is not Paradigm.DISTILLATION:
            raise UsageError(
                "--role-cadence sets how often the critics of the multi-role distillation "
                "objective step; with paradigm="
                f"{a.paradigm.value if a.paradigm else 'none'} only the primary role trains, "
                "so drop --role-cadence"
            )
    elif a.roles:
        raise UsageError("--roles only applies to --ownership multi_role; drop --roles")
    elif a.role_cadence:
        raise UsageError("--role-cadence only applies to --ownership multi_role; drop it")


def parse_role_cadence(text: str) -> tuple[tuple[str, int], ...]:
    """``fake=5,critic=2`` -> ``(("fake", 5), ("critic", 2))``; bad syntax is a usage error."""
    pairs: list[tuple[str, int]] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        role, sep, count = (x.strip() for x in item.partition("="))
        if not sep or not role or not re.fullmatch(r"[0-9]+", count):
            raise UsageError(
                f"--role-cadence {item!r} is not role=N with a positive integer N; e.g. "
                "--role-cadence fake_score=5"
            )
        pairs.append((role, int(count)))
    return tuple(pairs)


def check_role_cadence(roles: tuple[str, ...], cadence: tuple[tuple[str, int], ...]) -> None:
    """Each cadence names a declared, non-primary role once, with a positive integer."""
    seen: set[str] = set()
    for role, count in cadence:
        if role not in roles:
            raise UsageError(
                f"--role-cadence {role}={count}: {role!r} is not a declared role "
                f"({','.join(roles)}); name one of --roles"
            )
        if role == roles[0]:
            raise UsageError(
                f"--role-cadence {role}={count}: {role!r} is the primary role, which steps once "
                "per training step (its steps are train.step); set the other roles' cadence"
            )
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise UsageError(
                f"--role-cadence {role}={count}: the cadence must be a positive integer "
                "(optimizer steps of the role per training step)"
            )
        if role in seen:
            raise UsageError(f"--role-cadence names {role!r} twice; give each role once")
        seen.add(role)


def role_cadences(a: Answers) -> tuple[tuple[str, int], ...]:
    """Every declared role with its cadence (1 unless ``role_cadence`` says otherwise)."""
    given = dict(a.role_cadence)
    return tuple((role, given.get(role, 1)) for role in a.roles)


def contract_for(acq: Acquisition, fb: Feedback) -> Contract:
    if acq is Acquisition.GENERATION:
        return Contract.ONLINE if fb is Feedback.RUNTIME_REWARD else Contract.ONLINE_NO_FEEDBACK
    if fb is Feedback.NONE:
        return Contract.OFFLINE
    raise RefusedError(  # check_rules reports this first; kept for callers that skip it
        "acquisition=dataset with feedback=runtime_reward: no execution contract covers it"
    )


def family_for(a: Answers) -> Family:
    if a.acquisition is Acquisition.DATASET:
        return {
            SupervisionKind.DEMONSTRATIONS: Family.SFT,
            SupervisionKind.PREFERENCE_PAIRS: Family.OFFLINE_DPO,
            SupervisionKind.RECORD: Family.RECORD,
        }[a.supervision.kind]
    if a.feedback is Feedback.RUNTIME_REWARD:
        return Family.GRPO if a.paradigm is Paradigm.COUPLED else Family.AWM
    if a.ownership is Ownership.MULTI_ROLE:
        return Family.DMD
    return Family.OPD


def default_category(contract: Contract) -> str:
    return {
        Contract.ONLINE: "rl",
        Contract.ONLINE_NO_FEEDBACK: "distillation",
        Contract.OFFLINE: "offline",
    }[contract]


REQUIRED = (*QUESTION_ORDER, "model_type", "finetune_type")


def classify(a: Answers) -> Classification:
    """Turn complete answers into a classification, or refuse with the reason."""
    missing = [p for p in REQUIRED if getattr(a, p) is None]
    if missing:
        raise UsageError(f"missing answer for --{missing[0].replace('_', '-')}")
    check_rules(a)
    contract = contract_for(a.acquisition, a.feedback)
    category = a.category or default_category(contract)
    return Classification(answers=a, contract=contract, family=family_for(a), category=category)


def answer_combinations(
    model_types: tuple[str, ...] = ("toy",),
    record_type: str = "PairRecord",
    roles: tuple[str, ...] = ("generator", "critic"),
) -> Iterator[Answers]:
    """Every combination of the answers' values, legal or not (for whole-matrix checks)."""
    supervisions = (
        *(Supervision(k) for k in SupervisionKind if k is not SupervisionKind.RECORD),
        Supervision(SupervisionKind.RECORD, record_type),
    )
    axes = (Acquisition, Feedback, Paradigm, Dynamics, supervisions, State, Ownership)
    for acq, fb, par, dyn, sup, st, own in itertools.product(*axes):
        for model_type, ft in itertools.product(model_types, FinetuneType):
            multi = own is Ownership.MULTI_ROLE
            yield Answers(
                acquisition=acq,
                feedback=fb,
                paradigm=par,
                dynamics=dyn,
                supervision=sup,
                state=st,
                ownership=own,
                roles=roles if multi else (),
                model_type=model_type,
                finetune_type=ft,
            )


def legal_classifications(
    model_types: tuple[str, ...] = ("toy",),
    record_type: str = "PairRecord",
    roles: tuple[str, ...] = ("generator", "critic"),
) -> Iterator[Classification]:
    """Every classification the rules allow, over all axes (for whole-matrix checks)."""
    for answers in answer_combinations(model_types, record_type, roles):
        try:
            yield classify(answers)
        except FfgenError:
            continue
