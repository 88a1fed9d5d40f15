"""What one conformance miss is, and the line it refuses with."""

from __future__ import annotations

import dataclasses

HINT = "this checkout's Flow-Factory differs from ffgen's templates"


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """One thing a rendered file uses that the checkout does not have (or has differently)."""

    path: str  # the rendered file, relative to the checkout root
    line: int
    member: str  # what was used, e.g. ``BaseAdapter.add_named_parameters``
    problem: str  # e.g. "takes no `source`"
    instead: str  # what the checkout has, e.g. "this checkout has add_named_parameters(...)"

    @property
    def message(self) -> str:
        return f"{self.path}: `{self.member}` {self.problem} ({self.instead}); {HINT}"
