"""Shared trainer helpers."""

from .dpo_objective import dpo_objective
from .flow_matching import (
    build_noised_output_state,
    flow_matching_per_sample_loss,
    sample_offline_timesteps,
    validate_preference_component_times,
    validate_preference_output_states,
)
from .forward_kwargs import (
    reference_forward_kwargs,
    replay_forward_kwargs,
    training_forward_kwargs,
)
from .offline_batch import (
    bind_output_forward_context,
    bind_prepared_condition_output,
    move_condition_to_device,
)
from .state_validation import (
    require_component_sigmas,
    require_latent_state,
    require_velocity_state,
    state_batch_size,
)

__all__ = [
    "bind_output_forward_context",
    "bind_prepared_condition_output",
    "build_noised_output_state",
    "dpo_objective",
    "flow_matching_per_sample_loss",
    "move_condition_to_device",
    "reference_forward_kwargs",
    "replay_forward_kwargs",
    "require_component_sigmas",
    "require_latent_state",
    "require_velocity_state",
    "sample_offline_timesteps",
    "state_batch_size",
    "training_forward_kwargs",
    "validate_preference_component_times",
    "validate_preference_output_states",
]
