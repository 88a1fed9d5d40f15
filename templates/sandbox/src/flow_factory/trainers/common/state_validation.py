"""Runtime checks on latent states and step outputs (errors name the offending source)."""

from __future__ import annotations

from typing import Any

import torch

from ...samples import ComponentTimes, LatentState


def require_latent_state(trainer: Any, state: Any, identifier: str) -> LatentState:
    """``state`` must be a ``LatentState`` of tensors sharing one batch size."""
    if not isinstance(state, LatentState):
        raise TypeError(f"{identifier} must be a LatentState, got {type(state).__name__}")
    sizes = {int(t.shape[0]) for t in state.components.values()}
    if len(sizes) != 1:
        raise ValueError(f"{identifier} components disagree on batch size: {sorted(sizes)}")
    return state


def state_batch_size(trainer: Any, state: Any, identifier: str = "latent state") -> int:
    """Batch size of a validated latent state."""
    return require_latent_state(trainer, state, identifier).batch_size


def require_velocity_state(
    trainer: Any, output: Any, source: str, expected_state: LatentState
) -> LatentState:
    """The step output's velocity, with the components and shapes of ``expected_state``."""
    velocity = getattr(output, "velocity", None)
    require_latent_state(trainer, velocity, f"{source} velocity")
    if velocity.component_names != expected_state.component_names:
        raise ValueError(
            f"{source} velocity components {velocity.component_names} differ from the state's "
            f"{expected_state.component_names}"
        )
    for name, tensor in velocity.components.items():
        expected = expected_state.components[name].shape
        if tensor.shape != expected:
            raise ValueError(
                f"{source} velocity {name!r} has shape {tuple(tensor.shape)}, "
                f"expected {tuple(expected)}"
            )
        if not torch.is_floating_point(tensor):
            raise TypeError(f"{source} velocity {name!r} must be floating point")
    return velocity


def require_component_sigmas(trainer: Any, times: Any) -> torch.Tensor:
    """``times.sigma`` as a ``(B,)`` tensor."""
    if not isinstance(times, ComponentTimes) or times.sigma is None:
        raise TypeError(f"expected ComponentTimes with sigma, got {times!r}")
    return times.sigma


__all__ = [
    "require_component_sigmas",
    "require_latent_state",
    "require_velocity_state",
    "state_batch_size",
]
