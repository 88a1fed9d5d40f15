"""Prepared model conditions: the condition plus contexts produced once per batch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PreparedConditionState:
    """``condition`` (model inputs), ``forward_context`` (extra forward kwargs), ``output_context``.

    The toy model prepares nothing, so :meth:`identity` is what it returns.
    """

    condition: Mapping[str, Any]
    forward_context: Mapping[str, Any] = field(default_factory=dict)
    output_context: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def identity(cls, condition: Mapping[str, Any]) -> PreparedConditionState:
        """Wrap ``condition`` with empty contexts."""
        if not isinstance(condition, Mapping):
            raise TypeError(f"condition must be a mapping, got {type(condition).__name__}")
        return cls(condition=dict(condition))

    def model_forward_condition(self) -> dict[str, Any]:
        """Condition merged with the forward context; colliding keys are an error."""
        clashes = sorted(set(self.condition) & set(self.forward_context))
        if clashes:
            raise ValueError(f"forward_context keys collide with condition keys: {clashes}")
        return {**self.condition, **self.forward_context}


__all__ = ["PreparedConditionState"]
