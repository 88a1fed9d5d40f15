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

"""Role plans and the coordinator that updates several live roles through one optimizer.

Every trainable role owns its own parameters (its component variant) and its own optimizer
groups, tagged ``role_name``. A ``phase(role)`` window performs exactly one optimizer step and
touches only that role's groups; the other roles' gradients must stay ``None`` meanwhile.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

RoleName = str
_STATE_KEYS = {"version", "role_steps", "optimizer_group_roles", "active_phase"}
_STATE_VERSION = 3


def _positive(value: object, field_name: str, role_name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"role {role_name!r}: {field_name} must be a number, got {value!r}")
    if not math.isfinite(float(value)) or value <= 0:
        raise ValueError(f"role {role_name!r}: {field_name} must be finite > 0, got {value!r}")


@dataclass(frozen=True)
class RolePhase:
    """Update ``role_name`` ``repeats`` times in a row (one optimizer step each)."""

    role_name: RoleName
    repeats: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.role_name, str) or not self.role_name:
            raise ValueError(f"RolePhase.role_name must be a non-empty str, got {self.role_name!r}")
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise ValueError(
                f"RolePhase({self.role_name!r}).repeats must be an int >= 1, got {self.repeats!r}"
            )


@dataclass(frozen=True)
class RoleUpdatePlan:
    """Ordered, non-empty phases of one training step."""

    phases: tuple[RolePhase, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.phases, tuple) or not self.phases:
            raise ValueError(
                f"RoleUpdatePlan needs a non-empty tuple of phases, got {self.phases!r}"
            )
        bad = [p for p in self.phases if not isinstance(p, RolePhase)]
        if bad:
            raise TypeError(f"RoleUpdatePlan phases must be RolePhase values, got {bad!r}")


@dataclass(frozen=True)
class RoleOptimizerConfig:
    """One role's learning rate, moments, clip norm and update cadence."""

    role_name: RoleName
    learning_rate: float
    adam_betas: tuple[float, float]
    adam_weight_decay: float
    adam_epsilon: float
    max_grad_norm: float
    update_frequency: int = 1

    def __post_init__(self) -> None:
        _positive(self.learning_rate, "learning_rate", self.role_name)
        _positive(self.adam_epsilon, "adam_epsilon", self.role_name)
        _positive(self.max_grad_norm, "max_grad_norm", self.role_name)
        if len(tuple(self.adam_betas)) != 2 or not all(0 <= b < 1 for b in self.adam_betas):
            raise ValueError(
                f"role {self.role_name!r}: adam_betas must be two values in [0, 1), "
                f"got {self.adam_betas!r}"
            )
        if self.adam_weight_decay < 0:
            raise ValueError(
                f"role {self.role_name!r}: adam_weight_decay must be >= 0, "
                f"got {self.adam_weight_decay!r}"
            )


@dataclass
class OptimizationRole:
    """What one role owns in the optimizer, and its local counters."""

    config: RoleOptimizerConfig
    parameters: tuple[torch.nn.Parameter, ...]
    optimizer_group_ids: tuple[int, ...]
    step: int = 0
    scheduler: Any | None = None
    last_grad_norm: float | None = None


class RoleOptimizationCoordinator:
    """Exclusive, sequential role phases on one physical optimizer."""

    def __init__(
        self,
        accelerator: Any,
        model_bundle: Any,
        optimizer: Any,
        roles: Mapping[RoleName, OptimizationRole],
    ) -> None:
        self.accelerator = accelerator
        self.model_bundle = model_bundle
        self.optimizer = optimizer
        self.roles = dict(roles)
        self._optimizer_group_roles = self._validate_ownership()
        self._active_role_name: RoleName | None = None
        self._microbatch_open = False
        self._microbatch_finished = False
        self._microbatch_backward_count = 0
        self._phase_step_count = 0

    @property
    def active_role_name(self) -> RoleName:
        """The role of the open phase."""
        if self._active_role_name is None:
            raise RuntimeError("no role phase is open")
        return self._active_role_name

    @contextlib.contextmanager
    def phase(self, role_name: RoleName) -> Iterator[OptimizationRole]:
        """One role-local accumulation window: exactly one optimizer step inside."""
        if role_name not in self.roles:
            raise KeyError(f"unknown role {role_name!r}; roles: {list(self.roles)}")
        if self._active_role_name is not None:
            raise RuntimeError(
                f"cannot open phase {role_name!r}: phase {self._active_role_name!r} is still open"
            )
        stale = self._parameters_with_grad()
        if stale:
            raise RuntimeError(f"phase {role_name!r} opened with pending gradients of {stale}")
        self._active_role_name, self._phase_step_count = role_name, 0
        failed = False
        try:
            yield self.roles[role_name]
        except BaseException:
            failed = True
            raise
        finally:
            steps, self._active_role_name, self._phase_step_count = (
                self._phase_step_count, None, 0)
            if not failed and steps != 1:
                raise RuntimeError(
                    f"phase {role_name!r} must take exactly one optimizer step, took {steps}: "
                    "give it gradient_accumulation_steps microbatches"
                )

    @contextlib.contextmanager
    def microbatch(self) -> Iterator[OptimizationRole]:
        """One microbatch of the active role, inside ``accelerator.accumulate``."""
        role_name = self.active_role_name
        if self._microbatch_open:
            raise RuntimeError(f"nested microbatch in phase {role_name!r}")
        if self._phase_step_count:
            raise RuntimeError(f"phase {role_name!r} already stepped; no further microbatches")
        with self.accelerator.accumulate(self.model_bundle):
            self._microbatch_open, self._microbatch_finished = True, False
            self._microbatch_backward_count = 0
            failed = False
            try:
                yield self.roles[role_name]
            except BaseException:
                failed = True
                raise
            finally:
                finished = self._microbatch_finished
                self._microbatch_open = self._microbatch_finished = False
                if not failed and not finished:
                    raise RuntimeError(
                        f"microbatch of {role_name!r} ended without finish_microbatch()"
                    )

    def backward(self, loss: torch.Tensor) -> None:
        """Backpropagate the active role's scalar loss (once per microbatch)."""
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"loss must be a torch.Tensor, got {type(loss).__name__}")
        role_name = self.active_role_name
        if not self._microbatch_open or self._microbatch_backward_count:
            raise RuntimeError(f"backward of {role_name!r} needs an open microbatch, once")
        if loss.numel() != 1:
            raise ValueError(f"role {role_name!r} needs a scalar tensor loss, got {loss!r}")
        self.accelerator.backward(loss)
        self._microbatch_backward_count = 1

    def finish_microbatch(self) -> bool:
        """Close the microbatch; on a sync boundary clip and step only the active role."""
        role_name = self.active_role_name
        if not self._microbatch_open or self._microbatch_backward_count != 1:
            raise RuntimeError(f"finish_microbatch of {role_name!r} needs one backward first")
        self._microbatch_finished = True
        if not self.accelerator.sync_gradients:
            return False
        role = self.roles[role_name]
        others = [n for n, r in self.roles.items()
                  if n != role_name and any(p.grad is not None for p in r.parameters)]
        if others:
            raise RuntimeError(f"roles {others} have gradients while {role_name!r} is active")
        grad_norm = torch.nn.utils.clip_grad_norm_(role.parameters, role.config.max_grad_norm)
        role.last_grad_norm = float(grad_norm)
        with self._active_groups_only(role):
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self._phase_step_count = 1
        role.step += 1
        return True

    @contextlib.contextmanager
    def _active_groups_only(self, role: OptimizationRole) -> Iterator[None]:
        # Empty the other roles' groups for the step: weight decay and moments of an inactive
        # role must not move.
        hidden = {}
        for group_id, group in enumerate(self.optimizer.param_groups):
            if group_id not in role.optimizer_group_ids:
                hidden[group_id], group["params"] = group["params"], []
        try:
            yield
        finally:
            for group_id, params in hidden.items():
                self.optimizer.param_groups[group_id]["params"] = params

    def state_dict(self) -> dict[str, Any]:
        """Role step counters and group ownership (closed phases only)."""
        if self._active_role_name is not None or self._microbatch_open:
            raise RuntimeError("state_dict needs a closed phase")
        self._validate_no_pending_gradients("state_dict")
        return {
            "version": _STATE_VERSION,
            "role_steps": {name: role.step for name, role in self.roles.items()},
            "optimizer_group_roles": self._optimizer_group_roles,
            "active_phase": None,
        }

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore role step counters after checking the layout matches."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"state_dict must be a Mapping, got {type(state_dict).__name__}")
        if set(state_dict) != _STATE_KEYS:
            raise ValueError(f"coordinator state must have keys {sorted(_STATE_KEYS)}")
        if state_dict["version"] != _STATE_VERSION or state_dict["active_phase"] is not None:
            raise ValueError("coordinator state has another version or an open phase")
        if tuple(state_dict["optimizer_group_roles"]) != self._optimizer_group_roles:
            raise ValueError(
                f"optimizer group roles differ: checkpoint {state_dict['optimizer_group_roles']}, "
                f"trainer {self._optimizer_group_roles}"
            )
        steps = state_dict["role_steps"]
        if tuple(steps) != tuple(self.roles):
            raise ValueError(f"role_steps cover {tuple(steps)}, expected {tuple(self.roles)}")
        self._validate_no_pending_gradients("load_state_dict")
        for name, step in steps.items():
            if isinstance(step, bool) or not isinstance(step, int) or step < 0:
                raise ValueError(f"role {name!r} step must be an int >= 0, got {step!r}")
            self.roles[name].step = step

    def _parameters_with_grad(self) -> tuple[str, ...]:
        return tuple(name for name, role in self.roles.items()
                     if any(p.grad is not None for p in role.parameters))

    def _validate_no_pending_gradients(self, operation: str) -> None:
        pending = self._parameters_with_grad()
        if pending:
            raise RuntimeError(f"{operation} with pending gradients of roles {pending}")

    def _validate_ownership(self) -> tuple[RoleName, ...]:
        """Disjoint parameters per role; every optimizer group owned by exactly one role."""
        if not self.roles:
            raise ValueError("the coordinator needs at least one role")
        owners: dict[int, str] = {}
        group_owner: dict[int, str] = {}
        for name, role in self.roles.items():
            if name != role.config.role_name or not role.parameters:
                raise ValueError(f"role {name!r} has a mismatched config or no parameters")
            for p in role.parameters:
                if id(p) in owners:
                    raise ValueError(f"roles {owners[id(p)]!r} and {name!r} share a parameter")
                owners[id(p)] = name
            for group_id in role.optimizer_group_ids:
                if group_id in group_owner:
                    raise ValueError(f"optimizer group {group_id} has two owners")
                group_owner[group_id] = name
        groups = self.optimizer.param_groups
        if sorted(group_owner) != list(range(len(groups))):
            raise ValueError(f"roles own groups {sorted(group_owner)} of {len(groups)}")
        for group_id, group in enumerate(groups):
            if group.get("role_name") != group_owner[group_id]:
                raise ValueError(
                    f"optimizer group {group_id} is tagged {group.get('role_name')!r}, owned by "
                    f"{group_owner[group_id]!r}"
                )
        return tuple(group_owner[i] for i in range(len(groups)))


__all__ = [
    "OptimizationRole",
    "RoleOptimizationCoordinator",
    "RoleOptimizerConfig",
    "RolePhase",
    "RoleUpdatePlan",
]
