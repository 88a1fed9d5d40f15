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

"""Trajectory state types: latent states, component times, noised states, step outputs.

Every type is keyed by trajectory component (the toy model has one, ``latent``) and checks its
fields on construction the way Flow-Factory's do: plain string-keyed tensor mappings, one
component order shared by every field, one batch size, boolean active masks that broadcast onto
their component.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch


# ---------------------------------------------------------------------------------- checks
def _validate_component_mapping(
    values: Mapping[str, torch.Tensor], identifier: str
) -> dict[str, torch.Tensor]:
    """A non-empty ``{name: tensor}`` mapping with non-empty string names, copied to a dict."""
    if not isinstance(values, Mapping):
        raise TypeError(
            f"expected Mapping[str, torch.Tensor] for {identifier}, "
            f"received {type(values).__name__}"
        )
    copied: dict[str, torch.Tensor] = {}
    for name, value in values.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"expected non-empty string component names for {identifier}, "
                             f"received {name!r}")
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"expected torch.Tensor for {identifier}[{name!r}], "
                            f"received {type(value).__name__}")
        copied[name] = value
    if not copied:
        raise ValueError(f"expected at least one component for {identifier}, received no keys")
    return copied


def _require_component_order(
    received: tuple[str, ...], expected: tuple[str, ...], identifier: str
) -> None:
    if received != expected:
        raise ValueError(f"expected {identifier} component order {expected}, received {received}")


def _batch_size_of(state: LatentState, identifier: str) -> int:
    """Leading dimension of the state's first component."""
    name = state.component_names[0]
    first = state.components[name]
    if first.ndim < 1:
        raise ValueError(f"expected batched tensor for {identifier}[{name!r}], "
                         f"received shape {tuple(first.shape)}")
    return int(first.shape[0])


def _require_component_batch_size(
    values: Mapping[str, torch.Tensor], batch_size: int, identifier: str
) -> None:
    for name, value in values.items():
        if value.ndim < 1 or value.shape[0] != batch_size:
            raise ValueError(f"expected {identifier}[{name!r}] to use batch size {batch_size}, "
                             f"received shape {tuple(value.shape)}")


def _require_scalar_per_sample(
    values: Mapping[str, torch.Tensor], batch_size: int, identifier: str
) -> None:
    """Exactly shape ``(B,)`` per component (log-probabilities)."""
    for name, value in values.items():
        if tuple(value.shape) != (batch_size,):
            raise ValueError(f"expected {identifier}[{name!r}] shape {(batch_size,)}, "
                             f"received {tuple(value.shape)}")


def _require_scalar_like_per_sample(
    values: Mapping[str, torch.Tensor], batch_size: int, identifier: str
) -> None:
    """One value per sample, in any broadcast shape ``(B, 1, ..., 1)`` (step statistics)."""
    _require_component_batch_size(values, batch_size, identifier)
    for name, value in values.items():
        if value.numel() != batch_size:
            raise ValueError(f"expected {identifier}[{name!r}] to hold exactly one value per "
                             f"sample, received shape {tuple(value.shape)}")


def _require_scalar_or_batched(
    values: Mapping[str, torch.Tensor], batch_size: int, identifier: str
) -> None:
    """A 0-dim coordinate shared by the batch, or one with the batch as leading dimension."""
    for name, value in values.items():
        if value.ndim and value.shape[0] != batch_size:
            raise ValueError(f"expected {identifier}[{name!r}] to be a 0-dim scalar or use "
                             f"batch size {batch_size}, received shape {tuple(value.shape)}")


def _broadcasts_to(mask: torch.Tensor, target_shape: tuple[int, ...]) -> bool:
    """Same rank, and every mask dimension is 1 or the target's."""
    if mask.ndim != len(target_shape):
        return False
    return all(m in (1, t) for m, t in zip(mask.shape, target_shape, strict=True))


def _validate_active_mask(
    mask: torch.Tensor, target_shape: tuple[int, ...], identifier: str
) -> torch.Tensor:
    """A boolean mask broadcastable onto the component it covers."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(
            f"expected torch.Tensor or None for {identifier}, received {type(mask).__name__}"
        )
    if mask.dtype is not torch.bool:
        raise TypeError(f"expected {identifier} dtype torch.bool, received {mask.dtype}")
    if not _broadcasts_to(mask, target_shape):
        raise ValueError(f"expected {identifier} broadcastable to the latent state shape "
                         f"{tuple(target_shape)}, received shape {tuple(mask.shape)}")
    return mask


# ---------------------------------------------------------------------------------- types
@dataclass
class LatentState:
    """Batched latents by component, plus optional boolean masks of the active elements.

    ``active_masks``, when given, names every component in the same order.
    """

    components: Mapping[str, torch.Tensor]
    active_masks: Mapping[str, torch.Tensor] | None = None

    def __post_init__(self) -> None:
        self.components = _validate_component_mapping(self.components, "LatentState.components")
        if self.active_masks is None:
            return
        masks = _validate_component_mapping(self.active_masks, "LatentState.active_masks")
        _require_component_order(tuple(masks), self.component_names, "LatentState.active_masks")
        batch_size = _batch_size_of(self, "LatentState.components")
        for name, mask in masks.items():
            identifier = f"LatentState.active_masks[{name!r}]"
            if mask.ndim < 1 or mask.shape[0] != batch_size:
                raise ValueError(f"expected {identifier} to use batch size {batch_size}, "
                                 f"received shape {tuple(mask.shape)}")
            _validate_active_mask(mask, tuple(self.components[name].shape), identifier)
        self.active_masks = masks

    @property
    def component_names(self) -> tuple[str, ...]:
        """Component names in state order."""
        return tuple(self.components)


@dataclass
class ComponentTimes:
    """Current and next scheduler coordinates by component (``sigma``s optional).

    Every given mapping names the components in ``timestep``'s order.
    """

    timestep: Mapping[str, torch.Tensor]
    next_timestep: Mapping[str, torch.Tensor]
    sigma: Mapping[str, torch.Tensor] | None = None
    next_sigma: Mapping[str, torch.Tensor] | None = None

    def __post_init__(self) -> None:
        self.timestep = _validate_component_mapping(self.timestep, "ComponentTimes.timestep")
        self.next_timestep = _validate_component_mapping(
            self.next_timestep, "ComponentTimes.next_timestep"
        )
        expected = tuple(self.timestep)
        _require_component_order(tuple(self.next_timestep), expected, "next_timestep")
        for field_name in ("sigma", "next_sigma"):
            values = getattr(self, field_name)
            if values is None:
                continue
            checked = _validate_component_mapping(values, f"ComponentTimes.{field_name}")
            _require_component_order(tuple(checked), expected, field_name)
            setattr(self, field_name, checked)


@dataclass
class ReplayStep:
    """One stored rollout transition ``state`` -> ``next_state`` at ``times``, with the rollout's
    joint (``(B,)``) and per-component log-probabilities when they were kept."""

    state: LatentState
    next_state: LatentState
    times: ComponentTimes
    log_prob: torch.Tensor | None = None
    component_log_probs: Mapping[str, torch.Tensor] | None = None

    def __post_init__(self) -> None:
        if self.component_log_probs is not None:
            self.component_log_probs = _validate_component_mapping(
                self.component_log_probs, "ReplayStep.component_log_probs"
            )
        expected = self.state.component_names
        batch_size = _batch_size_of(self.state, "ReplayStep.state")
        _require_component_batch_size(self.state.components, batch_size, "ReplayStep.state")
        _require_component_order(
            self.next_state.component_names, expected, "ReplayStep.next_state"
        )
        _require_component_batch_size(
            self.next_state.components, batch_size, "ReplayStep.next_state"
        )
        self._check_times(expected, batch_size)
        self._check_log_probs(expected, batch_size)

    def _check_times(self, expected: tuple[str, ...], batch_size: int) -> None:
        for field_name in ("timestep", "next_timestep", "sigma", "next_sigma"):
            values = getattr(self.times, field_name)
            if values is None:
                continue
            identifier = f"ReplayStep.times.{field_name}"
            _require_component_order(tuple(values), expected, identifier)
            _require_scalar_or_batched(values, batch_size, identifier)

    def _check_log_probs(self, expected: tuple[str, ...], batch_size: int) -> None:
        if self.log_prob is not None:
            if not isinstance(self.log_prob, torch.Tensor):
                raise TypeError("expected torch.Tensor or None for ReplayStep.log_prob, "
                                f"received {type(self.log_prob).__name__}")
            if tuple(self.log_prob.shape) != (batch_size,):
                raise ValueError(f"expected ReplayStep.log_prob shape {(batch_size,)}, "
                                 f"received {tuple(self.log_prob.shape)}")
        if self.component_log_probs is not None:
            identifier = "ReplayStep.component_log_probs"
            _require_component_order(tuple(self.component_log_probs), expected, identifier)
            _require_scalar_per_sample(self.component_log_probs, batch_size, identifier)


@dataclass
class NoisedState:
    """Forward-process output: the noised ``state``, its ``target_velocity`` and the ``noise``."""

    state: LatentState
    target_velocity: LatentState
    noise: LatentState


@dataclass
class MultiModalStepOutput:
    """One denoising step's outputs by component; fields that were not requested stay None.

    The first latent state present (else the first statistic mapping) fixes the component order
    and batch size every other field must use.
    """

    next_state: LatentState | None = None
    next_state_mean: LatentState | None = None
    std_dev_t: Mapping[str, torch.Tensor] | None = None
    dt: Mapping[str, torch.Tensor] | None = None
    log_prob: torch.Tensor | None = None
    component_log_probs: Mapping[str, torch.Tensor] | None = None
    velocity: LatentState | None = None

    def __post_init__(self) -> None:
        for field_name in ("std_dev_t", "dt", "component_log_probs"):
            values = getattr(self, field_name)
            if values is not None:
                identifier = f"MultiModalStepOutput.{field_name}"
                setattr(self, field_name, _validate_component_mapping(values, identifier))
        reference = self._reference_contract()
        if reference is None:
            return
        expected, batch_size = reference
        for field_name in ("next_state", "next_state_mean", "velocity"):
            state = getattr(self, field_name)
            if state is not None:
                identifier = f"MultiModalStepOutput.{field_name}"
                _require_component_order(state.component_names, expected, identifier)
                _require_component_batch_size(state.components, batch_size, identifier)
        for field_name in ("std_dev_t", "dt"):
            values = getattr(self, field_name)
            if values is not None:
                identifier = f"MultiModalStepOutput.{field_name}"
                _require_component_order(tuple(values), expected, identifier)
                _require_scalar_like_per_sample(values, batch_size, identifier)
        if self.component_log_probs is not None:
            identifier = "MultiModalStepOutput.component_log_probs"
            _require_component_order(tuple(self.component_log_probs), expected, identifier)
            _require_scalar_per_sample(self.component_log_probs, batch_size, identifier)

    def _reference_contract(self) -> tuple[tuple[str, ...], int] | None:
        """Component order and batch size the fields must share (None: nothing to check)."""
        for field_name in ("next_state", "next_state_mean", "velocity"):
            state = getattr(self, field_name)
            if state is not None:
                identifier = f"MultiModalStepOutput.{field_name}"
                return state.component_names, _batch_size_of(state, identifier)
        for field_name in ("std_dev_t", "dt", "component_log_probs"):
            values = getattr(self, field_name)
            if values is None:
                continue
            name = next(iter(values))
            if values[name].ndim < 1:
                raise ValueError(f"expected batched tensor for MultiModalStepOutput.{field_name}"
                                 f"[{name!r}], received shape {tuple(values[name].shape)}")
            return tuple(values), int(values[name].shape[0])
        return None


__all__ = ["ComponentTimes", "LatentState", "MultiModalStepOutput", "NoisedState", "ReplayStep"]
