"""The values verify produces: one :class:`Finding` per problem, collected in a :class:`Report`."""

from __future__ import annotations

import dataclasses

ERROR = "error"
WARNING = "warning"


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """One problem: where it is, what is wrong (one line) and how to fix it (one line)."""

    rule_id: str
    severity: str  # "error" | "warning"
    path: str  # relative to the checkout root
    line: int
    algorithm: str | None  # registry key, or None for checkout-wide findings
    message: str
    fix: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def as_dict(self) -> dict[str, object]:
        return {
            "rule_id": self.rule_id,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "algorithm": self.algorithm,
            "message": self.message,
            "fix": self.fix,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Report:
    """Everything one verify run found, after accepted exceptions were applied."""

    findings: tuple[Finding, ...]
    algorithms: tuple[str, ...]
    suppressed: tuple[Finding, ...] = ()

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == WARNING)

    @property
    def ok(self) -> bool:
        return not self.errors

    def rule_ids(self) -> set[str]:
        return {f.rule_id for f in self.findings}


def introduced_errors(before: Report, after: Report) -> tuple[Finding, ...]:
    """Errors in ``after`` that ``before`` did not have (compared without line numbers, which
    shift when a plan edits a file). ``ffgen new`` refuses a plan when this is non-empty."""
    seen = {(f.rule_id, f.algorithm, f.path, f.message) for f in before.errors}
    return tuple(f for f in after.errors if (f.rule_id, f.algorithm, f.path, f.message) not in seen)
