"""Helpers shared by multi-role distillation trainers (minimal sandbox versions).

Role phases go through the trainer's ``RoleOptimizationCoordinator`` under
``adapter.use_component_variant(role)``; each role owns its parameters and optimizer groups.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from ...samples import BaseSample, LatentState


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


def role_repeat_progress(trainer: Any, *, role_name: str, repeats: int) -> range:
    """Iteration range of a repeated phase."""
    if repeats < 1:
        raise ValueError(f"{role_name} repeats must be >= 1, got {repeats}")
    return range(int(repeats))


def as_role_microbatches(
    samples: Sequence[BaseSample],
    *,
    batch_size: int,
    accumulation_steps: int,
    algorithm_name: str,
) -> list[Any]:
    """Stack samples into microbatches; the count must divide by ``accumulation_steps``."""
    batches = [
        BaseSample.stack(list(samples[i : i + batch_size]))
        for i in range(0, len(samples), batch_size)
    ]
    if len(batches) % max(1, accumulation_steps):
        raise ValueError(
            f"{algorithm_name}: {len(batches)} microbatches do not divide by "
            f"gradient_accumulation_steps={accumulation_steps}"
        )
    return batches


def generate_one_rollout_batch(
    trainer: Any,
    *,
    reward_buffer: Any = None,
    compute_log_prob: bool = False,
    trajectory_indices: Sequence[int] | None = None,
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
    adapter: Any,
    batch: Any,
    state: LatentState,
    times: Any,
    *,
    role_name: str,
    autocast: Callable[[], Any],
    forward_kwargs: dict[str, Any],
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
    """Detached copy of a latent state."""
    return state.detach()


def require_velocity(output: Any, *, algorithm_name: str, role_name: str) -> LatentState:
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
