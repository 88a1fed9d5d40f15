"""The points check-templates checks: every legal classification, its result, and the report.

The stages are listed in :mod:`ffgen.quality.check_templates`'s docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

STAGES = (
    "render",
    "compile",
    "plan",
    "conformance",
    "write",
    "verify",
    "ruff-format",
    "ruff-check",
    "suite",
)
NAME = "my-algo"
MODEL_TYPE = "toy"
RECORD_TYPE = "PairRecord"
ROLES = ("generator", "critic")


@dataclass(frozen=True)
class Failure:
    stage: str
    detail: str  # one line


@dataclass
class PointResult:
    """One legal point: where it stands after each stage (filled in as the stages run)."""

    index: int
    label: str
    family: str
    answers: dict[str, object]
    passed: list[str] = field(default_factory=list)
    failure: Failure | None = None
    rendered: tuple[str, ...] = ()  # rendered .py files, relative to the point's copy
    edited: tuple[str, ...] = ()  # .py files the plan edits or creates besides those
    tests: tuple[str, ...] = ()  # the generated suite's files
    suite: bool = False  # chosen to run the generated suite
    # what the suite can see of the point: its written files but ffgen's record ("": unknown)
    files_digest: str = ""

    @property
    def id(self) -> str:
        return point_id(self.index)

    def status(self, stage: str, skipped: dict[str, str]) -> str:
        if stage in self.passed:
            return "passed"
        if self.failure is not None and self.failure.stage == stage:
            return "failed"
        if stage in skipped and self.failure is None and (stage != "suite" or self.suite):
            return "skipped"
        return "not run"

    def as_dict(self, skipped: dict[str, str]) -> dict[str, object]:
        failure = self.failure
        return {
            "id": self.id,
            "index": self.index,
            "label": self.label,
            "family": self.family,
            "answers": self.answers,
            "suite": self.suite,
            "stages": {s: self.status(s, skipped) for s in STAGES},
            "failure": {"stage": failure.stage, "detail": failure.detail} if failure else None,
        }


@dataclass(frozen=True)
class Illegal:
    count: int
    problems: tuple[tuple[str, str], ...]  # (label, what is wrong with its refusal)


@dataclass(frozen=True)
class CheckReport:
    points: tuple[PointResult, ...]
    illegal: Illegal
    skipped: dict[str, str]  # stage -> why it did not run
    full: bool
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)  # phase -> wall seconds

    @property
    def first_failure(self) -> PointResult | None:
        return next((p for p in self.points if p.failure is not None), None)

    @property
    def ok(self) -> bool:
        return self.first_failure is None and not self.illegal.problems

    def counts(self, stage: str) -> dict[str, int]:
        out = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
        for p in self.points:
            out[p.status(stage, self.skipped)] += 1
        return out


def point_id(index: int) -> str:
    return f"p{index:03d}"


# -- the points ----------------------------------------------------------------------------------


def legal_points() -> list:
    """The points to check: every legal classification, in enumeration order."""
    return _enumerate()


def _enumerate() -> list:
    from ffgen.classify.rules import legal_classifications

    return list(
        legal_classifications(model_types=(MODEL_TYPE,), record_type=RECORD_TYPE, roles=ROLES)
    )


def label(c) -> str:
    a = c.answers
    return "/".join(
        (
            c.family.value,
            f"{a.acquisition.value}+{a.feedback.value}",
            a.paradigm.value,
            a.dynamics.value,
            str(a.supervision),
            a.state.value,
            a.ownership.value,
            a.finetune_type.value,
        )
    )


def answers_dict(c) -> dict[str, object]:
    a = c.answers
    return {
        "acquisition": a.acquisition.value,
        "feedback": a.feedback.value,
        "paradigm": a.paradigm.value,
        "dynamics": a.dynamics.value,
        "supervision": str(a.supervision),
        "state": a.state.value,
        "ownership": a.ownership.value,
        "roles": list(a.roles),
        "model_type": a.model_type,
        "finetune_type": a.finetune_type.value,
        "category": c.category,
        "contract": c.contract.value,
    }


def check_illegal() -> Illegal:
    """Every combination of the answers that is not a legal point must be refused by classify,
    with a one-line reason; and every combination classify accepts must be a legal point."""
    from ffgen.classify.rules import answer_combinations, classify
    from ffgen.errors import FfgenError

    known = {c.answers for c in _enumerate()}
    count, problems = 0, []
    for answers in answer_combinations((MODEL_TYPE,), RECORD_TYPE, ROLES):
        a = answers
        values = (
            a.acquisition,
            a.feedback,
            a.paradigm,
            a.dynamics,
            a.supervision,
            a.state,
            a.ownership,
            a.finetune_type,
        )
        name = "/".join(str(getattr(v, "value", v)) for v in values)
        try:
            classify(answers)
        except FfgenError as exc:
            count += 1
            if not exc.message.strip() or "\n" in exc.message:
                problems.append((name, f"refused without a one-line reason: {exc.message!r}"))
            continue
        if answers not in known:
            problems.append((name, "classify accepts it but legal_classifications misses it"))
    return Illegal(count, tuple(problems))


def suite_subset(points: Sequence) -> set[int]:
    """Indexes of the representative subset (see the module docstring)."""

    def values(c) -> set[tuple[str, str]]:
        a = c.answers
        return {
            ("family", c.family.value),
            ("dynamics", a.dynamics.value),
            ("state", a.state.value),
            ("ownership", a.ownership.value),
            ("finetune", a.finetune_type.value),
        }

    wanted = set().union(*(values(c) for c in points)) if points else set()
    chosen: set[int] = set()
    while wanted:
        best = max(range(len(points)), key=lambda i: (len(values(points[i]) & wanted), -i))
        chosen.add(best)
        wanted -= values(points[best])
    return chosen
