"""Offline flow-matching helpers: timestep sampling, noising, per-sample loss, pair checks."""

from __future__ import annotations

from typing import Any

import torch

from ...samples import ComponentTimes, LatentState, NoisedState


def shift_timesteps(t: torch.Tensor, shift: float) -> torch.Tensor:
    """SD3-style shift ``s t / (1 + (s - 1) t)`` (identity for ``s == 1``)."""
    return t if shift == 1.0 else shift * t / (1.0 + (shift - 1.0) * t)


def draw_timesteps(
    strategy: str,
    shape: tuple[int, ...],
    *,
    timestep_range: tuple[float, float],
    time_shift: float = 1.0,
    logit_mean: float = 0.0,
    logit_std: float = 1.0,
    device: Any = "cpu",
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Timesteps in ``timestep_range``: ``uniform`` or ``logit_normal`` then shifted."""
    lo, hi = float(timestep_range[0]), float(timestep_range[1])
    if strategy == "uniform":
        unit = torch.rand(shape, generator=generator)
    elif strategy == "logit_normal":
        unit = torch.sigmoid(logit_mean + logit_std * torch.randn(shape, generator=generator))
    else:
        raise ValueError(
            f"time sampling strategy must be uniform or logit_normal, got {strategy!r}"
        )
    return shift_timesteps(lo + (hi - lo) * unit, float(time_shift)).to(device)


def sample_offline_timesteps(
    training_args: Any,
    *,
    batch_size: int,
    device: Any,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """``(num_train_timesteps, batch_size)`` timesteps in [0, 1] from the offline args fields."""
    return draw_timesteps(
        training_args.weighting_scheme,
        (int(training_args.num_train_timesteps), int(batch_size)),
        timestep_range=training_args.timestep_range,
        time_shift=float(training_args.time_shift),
        logit_mean=float(training_args.logit_mean),
        logit_std=float(training_args.logit_std),
        device=device,
        generator=generator,
    )


def build_noised_output_state(
    adapter: Any,
    clean_state: LatentState,
    primary_timesteps: torch.Tensor,
    *,
    batch: Any,
    generator: torch.Generator | None = None,
    noise: LatentState | None = None,
) -> tuple[ComponentTimes, NoisedState]:
    """Component times for ``primary_timesteps`` ``(B,)``, then fresh or the given ``noise``."""
    times = adapter.build_training_component_times(primary_timesteps, batch=batch)
    if noise is None:
        noised = adapter.add_forward_process_noise(clean_state, times, generator=generator)
    else:
        noised = adapter.apply_forward_process_noise(clean_state, times, noise)
    return times, noised


def flow_matching_per_sample_loss(
    adapter: Any, predicted_velocity: LatentState, noised: NoisedState
) -> torch.Tensor:
    """Squared velocity error reduced per sample -> ``(B,)`` fp32."""
    values = LatentState(
        {
            name: (predicted_velocity.components[name].float() - target.float()) ** 2
            for name, target in noised.target_velocity.components.items()
        }
    )
    return adapter.reduce_flow_matching_objective_values(values, state=noised.state).float()


def validate_preference_output_states(chosen: Any, rejected: Any) -> None:
    """Chosen and rejected encodings must share components and shapes."""
    a, b = chosen.clean_state, rejected.clean_state
    if a.component_names != b.component_names:
        raise ValueError(f"preference arms differ in components: {a.component_names} vs "
                         f"{b.component_names}")
    for name in a.component_names:
        if a.components[name].shape != b.components[name].shape:
            raise ValueError(
                f"preference arms differ in {name!r} shape: "
                f"{tuple(a.components[name].shape)} vs {tuple(b.components[name].shape)}"
            )


def validate_preference_component_times(chosen: ComponentTimes, rejected: ComponentTimes) -> None:
    """Both arms must be noised at identical times."""
    if not torch.equal(chosen.timestep, rejected.timestep):
        raise ValueError("preference arms must share timesteps, got different ones")


__all__ = [
    "build_noised_output_state",
    "draw_timesteps",
    "flow_matching_per_sample_loss",
    "sample_offline_timesteps",
    "shift_timesteps",
    "validate_preference_component_times",
    "validate_preference_output_states",
]
