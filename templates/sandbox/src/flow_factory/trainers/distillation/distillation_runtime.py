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

"""Helpers shared by multi-role distillation trainers (minimal sandbox versions).

Role phases go through the trainer's ``RoleOptimizationCoordinator`` under
``adapter.use_component_variant(role)``; each role owns its parameters and optimizer groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal

import torch

from ...models.abc import BaseAdapter
from ...samples import (
    BaseSample,
    ComponentTimes,
    LatentState,
    MultiModalStepOutput,
    StackedSampleBatch,
)


def reject_training_rewards(trainer: Any, *, algorithm_name: str) -> None:
    """``_init_reward_model`` replacement for no-feedback trainers: rewards are refused."""
    if list(getattr(trainer.config, "reward_args", [])):
        raise ValueError(f"{algorithm_name} does not accept training rewards")
    trainer.reward_buffer = None
    trainer.advantage_processor = None


def run_role_phase(
    trainer: Any,
    role_name: str,
    work_items: Sequence[Any],
    loss_fn: Callable[[Any], torch.Tensor],
) -> None:
    """One exclusive phase of ``role_name``: one microbatch (one backward) per work item, all
    under the role's component variant; exactly one optimizer step for the phase."""
    if not work_items:
        raise ValueError(f"{role_name} phase needs at least one work item, got none")
    coordinator = trainer.role_optimization
    with coordinator.phase(role_name), trainer.adapter.use_component_variant(role_name):
        for item in work_items:
            with coordinator.microbatch():
                loss = loss_fn(item)
                record_distillation_metric(trainer, f"train/{role_name}_loss", loss)
                with trainer.adapter.use_component_variant(role_name):
                    coordinator.backward(loss)
                trainer._finish_role_microbatch()
    grad_norm = coordinator.roles[role_name].last_grad_norm
    if grad_norm is not None:
        record_distillation_metric(trainer, f"train/{role_name}_grad_norm", grad_norm)


def role_repeat_progress(trainer: Any, *, role_name: str, repeats: int) -> Iterator[int]:
    """The repeat indices of a repeated phase (the real one wraps them in a progress bar)."""
    if repeats < 1:
        raise ValueError(f"{role_name} repeats must be >= 1, got {repeats}")
    return iter(range(int(repeats)))


def as_role_microbatches(
    samples: Sequence[Any],
    *,
    batch_size: int,
    accumulation_steps: int,
    algorithm_name: str,
) -> list[list[Any]]:
    """Exactly ``accumulation_steps`` lists of ``batch_size`` samples (unstacked), from one flat
    batch or a sequence of batches."""
    for name, value in (("per_device_batch_size", batch_size),
                        ("gradient_accumulation_steps", accumulation_steps)):
        if type(value) is not int or value < 1:
            raise ValueError(f"{algorithm_name} expected {name} >= 1 as an int, "
                             f"received {type(value).__name__}: {value!r}")
    if not samples:
        raise ValueError(f"{algorithm_name} optimize expected a non-empty sample collection")
    nested = isinstance(samples[0], (list, tuple))
    microbatches = [list(batch) for batch in samples] if nested else [list(samples)]
    if len(microbatches) != accumulation_steps:
        raise ValueError(f"{algorithm_name} optimize expected {accumulation_steps} role "
                         f"microbatches matching gradient_accumulation_steps, "
                         f"received {len(microbatches)}")
    for index, microbatch in enumerate(microbatches):
        if len(microbatch) != batch_size:
            raise ValueError(f"{algorithm_name} optimize expected microbatch index {index} to "
                             f"have per_device_batch_size={batch_size} samples, "
                             f"received {len(microbatch)}")
    return microbatches


def generate_one_rollout_batch(
    trainer: Any,
    *,
    reward_buffer: Any = None,
    compute_log_prob: bool = False,
    trajectory_indices: list[int] | None = None,
    algorithm_name: str,
) -> list[BaseSample]:
    """One prompt batch of rollouts under no_grad."""
    trainer.adapter.rollout()
    with torch.no_grad(), trainer.autocast():
        return trainer.sample_batch(
            trainer._next_prompt_batch(),
            reward_buffer=reward_buffer,
            compute_log_prob=compute_log_prob,
            trajectory_indices=trajectory_indices,
        )


def run_distillation_training_step(trainer: Any) -> None:
    """Sample (in ``sampling_context``), then ``optimize``; no feedback."""
    with trainer.sampling_context():
        samples = trainer.sample()
    trainer.optimize(samples)


def query_score_velocity(
    adapter: BaseAdapter,
    batch: StackedSampleBatch,
    state: LatentState,
    times: ComponentTimes,
    *,
    role_name: Literal["reference", "fake", "surrogate"],
    autocast: Callable[[], AbstractContextManager[Any]],
    forward_kwargs: dict[str, object],
    algorithm_name: str,
) -> LatentState:
    """Velocity of role ``role_name`` at ``(state, times)``."""
    with adapter.use_component_variant(role_name), autocast():
        output = adapter.forward_state(
            batch=batch, state=state, times=times, return_fields=("velocity",), **forward_kwargs
        )
    return require_velocity(output, algorithm_name=algorithm_name, role_name=role_name)


def record_distillation_metric(trainer: Any, name: str, value: Any) -> None:
    """Append a detached metric value to the trainer's open ``_loss_info`` window."""
    metrics = trainer.__dict__.setdefault("_loss_info", {})
    metrics.setdefault(name, []).append(value.detach() if isinstance(value, torch.Tensor) else value)


def detach_state(state: LatentState) -> LatentState:
    """The state with every component detached (active masks kept)."""
    if not isinstance(state, LatentState):
        raise TypeError(f"expected LatentState for detach_state, received {type(state).__name__}")
    detached = {name: value.detach() for name, value in state.components.items()}
    return LatentState(detached, active_masks=state.active_masks)


def require_velocity(
    output: MultiModalStepOutput, *, algorithm_name: str, role_name: str
) -> LatentState:
    """The output's velocity ``LatentState`` or a ``ValueError`` naming the algorithm and role."""
    velocity = getattr(output, "velocity", None)
    if not isinstance(velocity, LatentState):
        raise ValueError(
            f"{algorithm_name} {role_name} returned no velocity, got {type(velocity).__name__}"
        )
    return velocity


__all__ = [
    "as_role_microbatches",
    "detach_state",
    "generate_one_rollout_batch",
    "query_score_velocity",
    "record_distillation_metric",
    "reject_training_rewards",
    "require_velocity",
    "role_repeat_progress",
    "run_distillation_training_step",
    "run_role_phase",
]
