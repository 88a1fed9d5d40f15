"""Checkpointable runtime state: progress counters plus named children."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..execution import TrainingProgress


class TrainerRuntimeState:
    """Holds ``progress`` and the registered checkpoint children (``state_dict`` owners)."""

    def __init__(self, declared_children: tuple[str, ...] = ()) -> None:
        self.progress = TrainingProgress()
        self.declared_children = tuple(declared_children)
        self.children: dict[str, Any] = {}

    def register_child(self, name: str, child: Any) -> None:
        """Register a declared child once."""
        if name not in self.declared_children:
            raise ValueError(
                f"runtime child {name!r} is not declared; declared: {list(self.declared_children)}"
            )
        if name in self.children:
            raise ValueError(f"runtime child {name!r} is already registered")
        for method in ("state_dict", "load_state_dict", "validate_state_dict"):
            if not callable(getattr(child, method, None)):
                raise TypeError(f"runtime child {name!r} must define {method}()")
        self.children[name] = child

    def missing_children(self) -> list[str]:
        """Declared but unregistered names."""
        return [n for n in self.declared_children if n not in self.children]


class CallbackRuntimeChild:
    """Child built from ``state_dict`` / ``load_state_dict`` callables."""

    def __init__(self, get_state: Callable[[], Any], set_state: Callable[[Any], None]) -> None:
        self._get, self._set = get_state, set_state

    def state_dict(self) -> Any:
        """Current state."""
        return self._get()

    def load_state_dict(self, state: Any) -> None:
        """Restore state (validated first)."""
        self.validate_state_dict(state)
        self._set(state)

    def validate_state_dict(self, state: Any) -> None:
        """Reject a missing state."""
        if state is None:
            raise ValueError("runtime child state is missing")


__all__ = ["CallbackRuntimeChild", "TrainerRuntimeState"]
