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

"""Runtime checks on latent states and step outputs against the adapter's component order.

Every check is exact: a state carries precisely ``trainer.adapter.trajectory_component_order``,
in that order (not a subset, not a superset).
"""

from __future__ import annotations

from typing import Any

import torch

from ...samples import ComponentTimes, LatentState, MultiModalStepOutput


def require_component_sigmas(trainer: Any, times: ComponentTimes) -> dict[str, torch.Tensor]:
    """``times.sigma`` as a ``{component: sigma}`` dict in the adapter's component order."""
    expected = trainer.adapter.trajectory_component_order
    if not isinstance(times, ComponentTimes):
        raise TypeError(f"expected ComponentTimes for {type(trainer).__name__} times, "
                        f"received {type(times).__name__}")
    received = None if times.sigma is None else tuple(times.sigma)
    if received != expected:
        raise ValueError(f"expected component sigmas in order {expected} for "
                         f"{type(trainer).__name__}, received {received}")
    return dict(times.sigma)


def require_latent_state(trainer: Any, state: Any, identifier: str) -> LatentState:
    """``state`` itself, once it is a ``LatentState`` in exactly the adapter's order."""
    if not isinstance(state, LatentState):
        raise TypeError(f"expected LatentState for {identifier} on {type(trainer).__name__}, "
                        f"received {type(state).__name__}")
    expected = trainer.adapter.trajectory_component_order
    if state.component_names != expected:
        raise ValueError(f"expected {identifier} on {type(trainer).__name__} in component order "
                         f"{expected}, received {state.component_names}")
    return state


def state_batch_size(trainer: Any, state: LatentState, identifier: str = "latent state") -> int:
    """Leading dimension of the validated state's primary (first) component, shape ``(B, ...)``."""
    primary = trainer.adapter.trajectory_component_order[0]
    component = require_latent_state(trainer, state, identifier).components[primary]
    if component.ndim < 2:
        raise ValueError(
            f"expected {identifier} component {primary!r} on {type(trainer).__name__} to be a "
            f"batched tensor with shape (B, ...), received shape {tuple(component.shape)}"
        )
    return int(component.shape[0])


def require_velocity_state(
    trainer: Any, output: MultiModalStepOutput, source: str, expected_state: LatentState
) -> LatentState:
    """The output's velocity: the adapter's components, each with the shape and device of
    ``expected_state``'s, floating point, all in one dtype."""
    expected = trainer.adapter.trajectory_component_order
    owner = type(trainer).__name__
    reference = require_latent_state(trainer, expected_state, f"{source} forward state")
    velocity = getattr(output, "velocity", None)
    received = velocity.component_names if isinstance(velocity, LatentState) else None
    if received != expected:
        raise ValueError(f"expected {source} velocity for {owner} in component order "
                         f"{expected}, received {received}; request 'velocity' through "
                         "return_fields")
    primary_dtype = velocity.components[expected[0]].dtype
    for name in expected:
        tensor, like = velocity.components[name], reference.components[name]
        prefix = f"expected {source} velocity component {name!r} for {owner}"
        if tensor.shape != like.shape:
            raise ValueError(f"{prefix} to match its forward state shape {tuple(like.shape)}, "
                             f"received shape {tuple(tensor.shape)}")
        if tensor.device != like.device:
            raise ValueError(f"{prefix} on the forward state device {like.device}, "
                             f"received {tensor.device}")
        if not tensor.is_floating_point():
            raise ValueError(f"{prefix} to be a floating point tensor, received {tensor.dtype}")
        if tensor.dtype != primary_dtype:
            raise ValueError(f"{prefix} to share the dtype of component {expected[0]!r} "
                             f"({primary_dtype}), received {tensor.dtype}")
    return velocity


__all__ = [
    "require_component_sigmas",
    "require_latent_state",
    "require_velocity_state",
    "state_batch_size",
]
