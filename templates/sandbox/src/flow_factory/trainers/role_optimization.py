"""Per-role optimisation plans and a small coordinator (multi-role training is minimal here).

The sandbox keeps one optimizer over the live trainable weights; a role other than the primary
trains its own weight snapshot via ``adapter.use_component_variant`` (see ``BaseAdapter``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass(frozen=True)
class RolePhase:
    """Update ``role_name`` ``repeats`` times in a row."""

    role_name: str
    repeats: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.role_name, str) or not self.role_name:
            raise ValueError(f"RolePhase.role_name must be a non-empty str, got {self.role_name!r}")
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise ValueError(f"RolePhase.repeats must be an int >= 1, got {self.repeats!r}")


@dataclass(frozen=True)
class RoleUpdatePlan:
    """Ordered, non-empty phases of one training step."""

    phases: tuple[RolePhase, ...]

    def __post_init__(self) -> None:
        if not self.phases or not all(isinstance(p, RolePhase) for p in self.phases):
            raise ValueError(
                f"RoleUpdatePlan needs a non-empty tuple of RolePhase, got {self.phases!r}"
            )

    @property
    def role_names(self) -> tuple[str, ...]:
        """Distinct roles in first-appearance order."""
        return tuple(dict.fromkeys(p.role_name for p in self.phases))


@dataclass(frozen=True)
class RoleOptimizerConfig:
    """Optimizer settings of one role."""

    role_name: str
    learning_rate: float
    adam_betas: tuple[float, float] = (0.9, 0.999)
    adam_weight_decay: float = 1e-4
    adam_epsilon: float = 1e-8
    max_grad_norm: float = 1.0
    update_frequency: int = 1


@dataclass
class OptimizationRole:
    """Runtime bookkeeping of one role."""

    name: str
    last_grad_norm: float | None = None
    steps: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class RoleOptimizationCoordinator:
    """Phases, microbatches and optimizer steps per role (one optimizer step per phase)."""

    def __init__(
        self,
        *,
        accelerator: Any,
        model_bundle: Any,
        optimizer: Any,
        roles: Sequence[str],
        max_grad_norm: float = 1.0,
    ) -> None:
        self.accelerator = accelerator
        self.model_bundle = model_bundle
        self.optimizer = optimizer
        self.roles = {name: OptimizationRole(name) for name in roles}
        self.max_grad_norm = float(max_grad_norm)
        self.active_role_name: str | None = None

    @contextlib.contextmanager
    def phase(self, role_name: str) -> Iterator[OptimizationRole]:
        """Make ``role_name`` active for the ``with`` body."""
        if role_name not in self.roles:
            raise KeyError(f"unknown role {role_name!r}; roles: {list(self.roles)}")
        previous, self.active_role_name = self.active_role_name, role_name
        try:
            yield self.roles[role_name]
        finally:
            self.active_role_name = previous

    def microbatch(self) -> Any:
        """``accelerator.accumulate(model_bundle)``."""
        return self.accelerator.accumulate(self.model_bundle)

    def backward(self, loss: torch.Tensor) -> None:
        """``accelerator.backward(loss)``."""
        self.accelerator.backward(loss)

    def finish_microbatch(self) -> bool:
        """On a sync boundary: clip, step, zero grads for the active role; True if stepped."""
        if not self.accelerator.sync_gradients:
            return False
        params = [p for p in self.model_bundle.parameters() if p.requires_grad]
        grad_norm = torch.nn.utils.clip_grad_norm_(params, self.max_grad_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        role = self.roles[self.active_role_name or next(iter(self.roles))]
        role.last_grad_norm, role.steps = float(grad_norm), role.steps + 1
        return True

    def state_dict(self) -> dict[str, Any]:
        """Role step counters."""
        return {name: {"steps": r.steps} for name, r in self.roles.items()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore role step counters."""
        self.validate_state_dict(state)
        for name, values in state.items():
            self.roles[name].steps = int(values["steps"])

    def validate_state_dict(self, state: Any) -> None:
        """Roles must match."""
        if not isinstance(state, dict) or sorted(state) != sorted(self.roles):
            raise ValueError(f"role state must cover roles {sorted(self.roles)}, got {state!r}")


__all__ = [
    "OptimizationRole",
    "RoleOptimizationCoordinator",
    "RoleOptimizerConfig",
    "RolePhase",
    "RoleUpdatePlan",
]
