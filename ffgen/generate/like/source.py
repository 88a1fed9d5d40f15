"""The algorithm a ``--like`` / ``--extends`` run starts from, read statically from its code.

Its classes come from verify's index (registries resolved through imports and re-exports); its
classification from what the code fixes: the execution contract and paradigm its trainer
declares (through the MRO), the trainable roles its arguments declare, the snapshots it reads,
the supervision its loader asks for, whether it validates structured states; and from its own
example config the model and finetune type. A source ffgen generated carries its exact answers
in its record, and those win.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ffgen.checkout import layout
from ffgen.checkout.view import CheckoutView
from ffgen.classify import interview
from ffgen.classify.model import (
    Acquisition,
    Answers,
    Dynamics,
    Feedback,
    Ownership,
    Paradigm,
    State,
    Supervision,
    SupervisionKind,
)
from ffgen.errors import RefusedError, UsageError
from ffgen.verify.catalogue import CONTRACT_CONSTANTS, PARADIGMS
from ffgen.verify.examples import Example, load_examples
from ffgen.verify.facts import Algorithm, Facts, build_facts
from ffgen.verify.index import CheckoutIndex, ClassInfo

LIKE, EXTENDS = "like", "extends"
SNAPSHOT_CALLS = ("use_ref_parameters", "use_named_parameters", "add_named_parameters")
STRUCTURED_MARKERS = ("_validate_structured_state", "require_latent_state")
SUPERVISION_TYPES = {
    "demonstration": SupervisionKind.DEMONSTRATIONS,
    "preference": SupervisionKind.PREFERENCE_PAIRS,
}


@dataclass(frozen=True)
class SourceClass:
    name: str
    module: str  # dotted
    path: str  # relative to the checkout root

    @property
    def package(self) -> str:
        return self.module.rpartition(".")[0]


@dataclass(frozen=True)
class SourceAlgorithm:
    key: str
    mode: str  # like | extends
    trainer: SourceClass
    args: SourceClass
    args_keys: tuple[str, ...]  # every registry key of the args class (aliases share one)
    answers: Answers  # what the code fixes, plus the example's model and finetune type
    reasons: dict[str, str]  # property -> why the code fixes it (for a conflicting flag)
    examples: tuple[Example, ...]  # the source's own example configs
    generated: bool  # ffgen generated it (its record's answers were used)
    # its trainer's objective is a family template's (generated from the templates, or a copy /
    # extension of such a one), so a copy's suite checks the family's objective invariants
    template_objective: bool = False
    # top-level classes of the source modules that belong to other algorithms
    neighbours: frozenset[str] = field(default_factory=frozenset)
    objective_hook: str = ""  # the method an ``--extends`` child overrides
    # what the arguments class defines itself (a ``--param`` of the copy must not clash)
    args_members: frozenset[str] = field(default_factory=frozenset)


def read_source(view: CheckoutView, key: str, mode: str) -> SourceAlgorithm:
    """The algorithm ``key`` of the checkout, or a one-line refusal naming the known keys."""
    facts = build_facts(CheckoutIndex(view))
    alg = facts.algorithm(key)
    if alg is None:
        known = ", ".join(sorted(a.key for a in facts.algorithms))
        raise UsageError(f"--{mode} {key!r} is not an algorithm of this checkout; known: {known}")
    trainer, args = _classes(alg, mode)
    if trainer.path == args.path:
        raise RefusedError(
            f"--{mode} {key}: {trainer.name} and {args.name} live in one module ({trainer.path}); "
            "ffgen copies a trainer module and an arguments module"
        )
    record, template_objective = _record_answers(view, key)
    answers, reasons = _from_code(facts, alg)
    if record is not None:
        answers = record
    examples = tuple(
        e for e in load_examples(view) if isinstance(e.data, dict) and e.trainer_type == key
    )
    return SourceAlgorithm(
        key=key,
        mode=mode,
        trainer=trainer,
        args=args,
        args_keys=facts.keys_for_args(alg.args_cls),
        answers=answers,
        reasons=reasons,
        examples=examples,
        generated=record is not None,
        template_objective=template_objective,
        neighbours=_neighbours(facts, alg),
        objective_hook=_objective_hook(facts, alg.trainer_cls, answers),
        args_members=frozenset((*alg.args_cls.assigns, *alg.args_cls.methods)),
    )


def _classes(alg: Algorithm, mode: str) -> tuple[SourceClass, SourceClass]:
    for cls, what in ((alg.trainer_cls, "trainer"), (alg.args_cls, "arguments")):
        if cls is None or not cls.path.startswith(f"{layout.PKG}/"):
            raise RefusedError(
                f"--{mode} {alg.key}: its {what} class does not resolve to a module of this "
                "checkout; fix its registry entry first (`ffgen verify` names it)"
            )
    t, a = alg.trainer_cls, alg.args_cls
    return SourceClass(t.name, t.module, t.path), SourceClass(a.name, a.module, a.path)


def _record_answers(view: CheckoutView, key: str) -> tuple[Answers | None, bool]:
    """The answers of a source ffgen generated (None for another), and whether its objective is
    a family template's (a copy of a hand-written trainer keeps that trainer's)."""
    from ffgen.store.read import flags_from, read_record

    record = read_record(view, key)
    if record is None:
        return None, False
    answers = interview.from_flags(flags_from(record)).with_(category=None)
    return answers, record.source is None or record.source.kind == "generated"


def _from_code(facts: Facts, alg: Algorithm) -> tuple[Answers, dict[str, str]]:
    """The classification the code fixes, with the reason per property."""
    t = alg.trainer_cls
    contract = facts.contract(t).value
    if contract not in CONTRACT_CONSTANTS:
        raise RefusedError(
            f"{alg.key}: {t.name} declares no execution contract ffgen can read; "
            "declare `execution_contract = <CONSTANT>` first"
        )
    paradigm = facts.paradigm(t)
    if paradigm not in PARADIGMS:
        raise RefusedError(f"{alg.key}: {t.name} declares no paradigm; declare one first")
    acquisition, feedback = CONTRACT_CONSTANTS[contract]
    said = f"{t.name} declares {contract}"
    reasons = {
        "acquisition": said,
        "feedback": said,
        "paradigm": f"{t.name} declares paradigm {paradigm!r}",
    }
    answers = Answers(
        acquisition=Acquisition(acquisition),
        feedback=Feedback(feedback),
        paradigm=Paradigm(paradigm),
        dynamics=Dynamics.SDE if paradigm == "coupled" else None,
        supervision=_supervision(facts, t, acquisition, reasons),
        state=_state(facts, t, reasons),
    )
    if paradigm == "coupled":
        reasons["dynamics"] = f"{t.name} is coupled: it replays SDE transition densities"
    return _ownership(facts, alg, answers, reasons), reasons


def _own_nodes(facts: Facts, cls: ClassInfo):
    for owner in facts.own_classes(cls):
        for fn in owner.methods.values():
            yield from ast.walk(fn)


def _supervision(facts: Facts, t: ClassInfo, acquisition: str, reasons: dict) -> Supervision:
    if acquisition == "generation":
        reasons["supervision"] = f"{t.name} generates its samples from prompts"
        return Supervision(SupervisionKind.PROMPTS)
    for node in _own_nodes(facts, t):
        if isinstance(node, ast.keyword) and node.arg == "supervision_type":
            value = node.value.value if isinstance(node.value, ast.Constant) else None
            if value in SUPERVISION_TYPES:
                reasons["supervision"] = f"{t.name}'s loader reads {value!r} batches"
                return Supervision(SUPERVISION_TYPES[value])
    reasons["supervision"] = f"{t.name} trains on dataset demonstrations"
    return Supervision(SupervisionKind.DEMONSTRATIONS)


def _state(facts: Facts, t: ClassInfo, reasons: dict) -> State:
    for node in _own_nodes(facts, t):
        name = getattr(node, "attr", None) or getattr(node, "id", None)
        if name in STRUCTURED_MARKERS:
            reasons["state"] = f"{t.name} validates structured states ({name})"
            return State.STRUCTURED
    reasons["state"] = f"{t.name} trains a single-component (legacy) state"
    return State.LEGACY


def _ownership(facts: Facts, alg: Algorithm, a: Answers, reasons: dict) -> Answers:
    roles, _ = facts.roles(alg.args_cls)
    if roles and len(roles) >= 2:
        reasons["ownership"] = reasons["roles"] = (
            f"{alg.args_cls.name} declares the trainable roles {', '.join(roles)}"
        )
        return a.with_(ownership=Ownership.MULTI_ROLE, roles=tuple(roles))
    reads = next(
        (
            n.attr
            for n in _own_nodes(facts, alg.trainer_cls)
            if isinstance(n, ast.Attribute) and n.attr in SNAPSHOT_CALLS
        ),
        None,
    )
    if reads is None and _requires_reference(facts, alg.args_cls):
        reads = "requires_ref_model"
    needs = a.paradigm is Paradigm.DISTILLATION or a.supervision.kind is (
        SupervisionKind.PREFERENCE_PAIRS
    )
    if reads is None and not needs:
        reasons["ownership"] = f"{alg.trainer_cls.name} trains one policy and reads no snapshot"
        return a.with_(ownership=Ownership.SINGLE)
    reasons["ownership"] = f"{alg.trainer_cls.name} compares against a frozen snapshot" + (
        f" ({reads})" if reads else ""
    )
    return a.with_(ownership=Ownership.SNAPSHOTS)


def _requires_reference(facts: Facts, args_cls: ClassInfo) -> bool:
    owner = facts.own_method(args_cls, "requires_ref_model")
    if owner is None:
        return False
    body = ast.walk(owner.methods["requires_ref_model"])
    returns = [n for n in body if isinstance(n, ast.Return)]
    return any(isinstance(r.value, ast.Constant) and r.value.value is True for r in returns)


def preferred(examples: tuple[Example, ...]) -> list[Example]:
    """Examples in the order one is chosen: ``default.yaml`` first, then by path."""
    return sorted(examples, key=lambda e: (not e.path.endswith("/default.yaml"), e.path))


def _neighbours(facts: Facts, alg: Algorithm) -> frozenset[str]:
    """Classes of the source's modules that belong to other algorithms: imported, not copied."""
    modules = {alg.trainer_cls.module, alg.args_cls.module}
    out = set()
    for other in facts.algorithms:
        for cls in (other.trainer_cls, other.args_cls):
            if cls is not None and cls.module in modules:
                out.add(cls.name)
    return frozenset(out - {alg.trainer_cls.name, alg.args_cls.name})


def _objective_hook(facts: Facts, t: ClassInfo, a: Answers) -> str:
    """What an ``--extends`` child overrides: the objective when the parent has one method for
    it, else the hook its contract selects."""
    if facts.own_method(t, "_objective_loss") is not None:
        return "_objective_loss"
    return "optimize_batch" if a.acquisition is Acquisition.DATASET else "optimize"
