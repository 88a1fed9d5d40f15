"""The values classification works on: the answers' enums, the answers and the classification.

Frozen values only; the rules that relate them are in :mod:`ffgen.classify.rules`.
"""

from __future__ import annotations

import builtins
import dataclasses
import keyword
import re
from dataclasses import replace
from enum import Enum

from ffgen.classify.params import ParamSet
from ffgen.classify.record_fields import RECORD_RE, fields_text, parse_fields
from ffgen.errors import UsageError


class Acquisition(str, Enum):
    GENERATION = "generation"
    DATASET = "dataset"


class Feedback(str, Enum):
    RUNTIME_REWARD = "runtime_reward"
    NONE = "none"


class Paradigm(str, Enum):
    COUPLED = "coupled"
    DECOUPLED = "decoupled"
    DISTILLATION = "distillation"


class Dynamics(str, Enum):
    SDE = "sde"
    ODE = "ode"
    ANY = "any"


class SupervisionKind(str, Enum):
    PROMPTS = "prompts"
    DEMONSTRATIONS = "demonstrations"
    PREFERENCE_PAIRS = "preference_pairs"
    RECORD = "record"


class State(str, Enum):
    LEGACY = "legacy"
    STRUCTURED = "structured"


class Ownership(str, Enum):
    SINGLE = "single"
    MULTI_ROLE = "multi_role"
    SNAPSHOTS = "snapshots"


class FinetuneType(str, Enum):
    LORA = "lora"
    FULL = "full"


class Contract(str, Enum):
    """The three execution-contract constants a checkout defines (values are their names)."""

    ONLINE = "ONLINE_EXECUTION_CONTRACT"
    ONLINE_NO_FEEDBACK = "ONLINE_NO_FEEDBACK_EXECUTION_CONTRACT"
    OFFLINE = "OFFLINE_EXECUTION_CONTRACT"


class Family(str, Enum):
    """Which default objective the trainer template implements."""

    SFT = "sft"  # dataset + demonstrations: supervised flow matching
    OFFLINE_DPO = "offline_dpo"  # dataset + preference pairs: Diffusion-DPO
    RECORD = "record"  # dataset + typed record: SFT objective over a new record type
    GRPO = "grpo"  # generation + reward + coupled: clipped likelihood ratio
    AWM = "awm"  # generation + reward + decoupled: advantage-weighted flow matching
    OPD = "opd"  # generation + none + distillation: on-policy distillation
    DMD = "dmd"  # OPD's answers with multi_role: a generator against a trained fake-score critic


RECORD_TYPE_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
ROLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# Role names the framework gives a meaning of its own: ``default`` is its key for an optimizer
# entry without a role, so a role of that name would be mistaken for it.
RESERVED_ROLES = ("default",)
# Names the generated trainer module of the record family binds itself (its imports): a record
# class of one of these names would replace the import, and the trainer would inherit from the
# record or build the wrong batch. ``tests/core/test_classify.py`` renders the module and checks
# this list against it. Python's builtins and keywords are refused as well.
GENERATED_MODULE_NAMES = frozenset({
    "Any", "BaseTrainer", "ClassVar", "DataLoader", "DecodedMedia", "DemonstrationOutputBatch",
    "ExecutionContract", "LatentState", "Literal", "Mapping", "MappingProxyType", "MediaAsset",
    "OfflineBatch",
})


@dataclasses.dataclass(frozen=True, slots=True)
class Supervision:
    """What a dataset algorithm learns from, with its record type (and the record's declared
    fields, ``record:Judged(label:bool)``) when it is one."""
    kind: SupervisionKind
    record_type: str | None = None
    fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Supervision:
        text = text.strip()
        if text.startswith("record:"):
            return cls._parse_record(text)
        try:
            kind = SupervisionKind(text)
        except ValueError:
            raise UsageError(
                f"--supervision {text!r} is not valid; choose prompts, demonstrations, "
                "preference_pairs or record:<TypeName>"
            ) from None
        if kind is SupervisionKind.RECORD:
            raise UsageError("--supervision record needs a type name: record:<TypeName>")
        return cls(kind)

    @classmethod
    def _parse_record(cls, text: str) -> Supervision:
        match = RECORD_RE.match(text)
        name = match.group(1).strip() if match else ""
        if not RECORD_TYPE_RE.match(name) or keyword.iskeyword(name):
            raise UsageError(
                f"--supervision {text!r}: the record type must be a CamelCase Python class "
                "name, e.g. record:CaptionEditRecord or record:Judged(label:bool)"
            )
        # The record's batch view is ``<TypeName>Batch``: neither may shadow a module name.
        if {name, f"{name}Batch"} & GENERATED_MODULE_NAMES or hasattr(builtins, name):
            raise UsageError(
                f"--supervision {text!r}: {name} (or {name}Batch) is a name the generated "
                "trainer module already uses (an import or a builtin), and the record class "
                "would shadow it; choose another type name, e.g. record:CaptionEditRecord"
            )
        fields = parse_fields(match.group(2), text) if match.group(2) is not None else ()
        return cls(SupervisionKind.RECORD, name, fields)

    def __str__(self) -> str:
        if self.kind is SupervisionKind.RECORD:
            return f"record:{self.record_type}{fields_text(self.fields)}"
        return self.kind.value


@dataclasses.dataclass(frozen=True, slots=True)
class Answers:
    """The seven properties plus the example-config choices; ``None`` = not answered yet."""

    acquisition: Acquisition | None = None
    feedback: Feedback | None = None
    paradigm: Paradigm | None = None
    dynamics: Dynamics | None = None
    supervision: Supervision | None = None
    state: State | None = None
    ownership: Ownership | None = None
    roles: tuple[str, ...] = ()
    model_type: str | None = None
    finetune_type: FinetuneType | None = None
    category: str | None = None
    # multi_role only: (role, optimizer steps per training step) for roles not on the default 1
    role_cadence: tuple[tuple[str, int], ...] = ()
    # hyperparameters the arguments class adds (``--param``); None: none
    params: ParamSet | None = None
    # record only: the ``bool`` field of the record that says whether a row is desirable
    # (``--direction``); None or "none": the record has no direction
    direction: str | None = None

    def with_(self, **changes: object) -> Answers:
        return replace(self, **changes)


@dataclasses.dataclass(frozen=True, slots=True)
class Classification:
    """Complete, consistent answers and everything derived from them."""

    answers: Answers
    contract: Contract
    family: Family
    category: str

    @property
    def acquisition(self) -> Acquisition:
        return self.answers.acquisition  # type: ignore[return-value]

    @property
    def feedback(self) -> Feedback:
        return self.answers.feedback  # type: ignore[return-value]


# --- forced answers ------------------------------------------------------------------------------
