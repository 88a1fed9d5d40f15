# Copyright 2026 The ffgen authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Checkpointable runtime state: progress counters plus named children."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..execution import TrainingProgress


class TrainerRuntimeState:
    """Holds ``progress`` and the attached checkpoint children (``state_dict`` owners).

    The sandbox keeps the real names (``attach_child``, ``child_names``, ``pending_child_names``,
    ``progress``); the trainer reads the attached children through ``_children``.
    """

    def __init__(
        self,
        progress: TrainingProgress | None = None,
        *,
        child_names: tuple[str, ...] = (),
        identity: Any = None,
    ) -> None:
        self.progress = TrainingProgress() if progress is None else progress
        self._child_names = tuple(child_names)
        self._identity = identity
        self._children: dict[str, Any] = {}

    @property
    def progress(self) -> TrainingProgress:
        """The current counters."""
        return self._progress

    @progress.setter
    def progress(self, progress: TrainingProgress) -> None:
        if not isinstance(progress, TrainingProgress):
            raise TypeError(f"progress must be a TrainingProgress, got {type(progress).__name__}")
        self._progress = progress

    @property
    def child_names(self) -> tuple[str, ...]:
        """The declared child names, in order."""
        return self._child_names

    @property
    def pending_child_names(self) -> tuple[str, ...]:
        """Declared names no child is attached to yet."""
        return tuple(n for n in self._child_names if n not in self._children)

    @property
    def identity(self) -> Any:
        """What the run is (the sandbox records whatever it is given)."""
        return self._identity

    def attach_child(self, name: str, child: Any) -> None:
        """Attach the child of a declared name, once."""
        if name not in self._child_names:
            raise ValueError(
                f"runtime child {name!r} is not declared; declared: {list(self._child_names)}"
            )
        if name in self._children:
            raise ValueError(f"runtime child {name!r} is already attached")
        for method in ("state_dict", "load_state_dict", "validate_state_dict"):
            if not callable(getattr(child, method, None)):
                raise TypeError(f"runtime child {name!r} must define {method}()")
        self._children[name] = child


class _CallbackRuntimeChild:
    """Child built from ``state_dict`` / ``load_state_dict`` callables (sandbox plumbing)."""

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


__all__ = ["TrainerRuntimeState"]
