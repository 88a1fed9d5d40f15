"""Helpers shared by multi-role distillation trainers (minimal sandbox versions).

Multi-role training is later work: these helpers run one optimizer over the live weights and
swap role weights through ``adapter.use_component_variant``; they are exercised only lightly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    work_items: Iterable[Any],
    loss_fn: Callable[[Any], tuple[torch.Tensor, dict[str, Any]]],
) -> dict[str, list[Any]]:
    """One phase: each item is a microbatch of ``role_name``; returns the collected metrics."""
    coordinator = trainer.role_optimization
    metrics: dict[str, list[Any]] = {}
    with coordinator.phase(role_name), trainer.adapter.use_component_variant(role_name):
        for item in work_items:
            with coordinator.microbatch():
                loss, info = loss_fn(item)
                coordinator.backward(loss)
                for key, value in {"loss": loss.detach(), **info}.items():
                    metrics.setdefault(key, []).append(value)
                stepped = coordinator.finish_microbatch()
            if stepped and role_name == trainer._trainable_roles()[0]:
                trainer.step += 1
    return metrics


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
