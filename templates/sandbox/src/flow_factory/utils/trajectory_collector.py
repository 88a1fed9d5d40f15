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

"""Which rollout trajectory positions a trainer keeps (sandbox miniature)."""

from __future__ import annotations

import torch


def compute_trajectory_indices(
    train_timestep_indices: list[int] | torch.Tensor,
    num_inference_steps: int,
    include_initial: bool = True,
) -> list[int]:
    """Trajectory positions replaying ``train_timestep_indices`` needs: ``i`` and ``i + 1`` each.

    Args:
        train_timestep_indices: Rollout step positions training replays (ints or a tensor).
        num_inference_steps: Steps of one rollout (the trajectory has one more position).
        include_initial: Also keep position 0, the initial noise.

    Returns:
        Sorted, unique positions in ``[0, num_inference_steps]``.
    """
    steps = int(num_inference_steps)
    kept = {0} if include_initial else set()
    for raw in train_timestep_indices:
        index = int(raw)
        if not 0 <= index < steps:
            raise ValueError(f"train step index {index} is outside [0, {steps})")
        kept.update((index, index + 1))
    return sorted(kept)


__all__ = ["compute_trajectory_indices"]
