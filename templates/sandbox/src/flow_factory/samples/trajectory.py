"""Trajectory state types: latent states, component times, noised states, step outputs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class LatentState:
    """Named latent components (the toy model has one: ``latent`` of shape ``(B, 8)``)."""

    components: Mapping[str, torch.Tensor]
    active_masks: Mapping[str, torch.Tensor] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.components, Mapping) or not self.components:
            raise TypeError(f"LatentState needs a non-empty mapping, got {self.components!r}")
        self.components = dict(self.components)

    @property
    def component_names(self) -> tuple[str, ...]:
        """Component names in insertion order."""
        return tuple(self.components)

    @property
    def batch_size(self) -> int:
        """Leading dimension shared by all components."""
        return int(next(iter(self.components.values())).shape[0])

    def map(self, fn: Any) -> LatentState:
        """Apply ``fn`` to every component tensor."""
        return LatentState({k: fn(v) for k, v in self.components.items()}, self.active_masks)

    def detach(self) -> LatentState:
        """Detached copy."""
        return self.map(lambda t: t.detach())

    def to(self, device: Any) -> LatentState:
        """Copy on ``device``."""
        return self.map(lambda t: t.to(device))

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.components[name]


@dataclass
class ComponentTimes:
    """Current and next time per item, ``(B,)`` floats in [0, 1]; ``sigma == timestep``."""

    timestep: torch.Tensor
    next_timestep: torch.Tensor | None = None
    sigma: torch.Tensor | None = None
    next_sigma: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.sigma is None:
            self.sigma = self.timestep
        if self.next_sigma is None and self.next_timestep is not None:
            self.next_sigma = self.next_timestep


@dataclass
class NoisedState:
    """Forward-process output: noised ``state``, ``target_velocity`` and the ``noise`` used."""

    state: LatentState
    target_velocity: LatentState
    noise: LatentState


@dataclass
class MultiModalStepOutput:
    """One denoising step's outputs; fields not requested stay None."""

    next_state: LatentState | None = None
    log_prob: torch.Tensor | None = None
    mean: LatentState | None = None
    std: torch.Tensor | None = None
    velocity: LatentState | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplayStep:
    """One stored rollout transition: ``state`` at ``times`` -> ``next_state``, rollout log-prob."""

    state: LatentState
    times: ComponentTimes
    next_state: LatentState
    log_prob: torch.Tensor | None


__all__ = ["ComponentTimes", "LatentState", "MultiModalStepOutput", "NoisedState", "ReplayStep"]
