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

"""Diffusion-DPO objective on per-sample flow-matching losses."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def dpo_objective(
    policy_chosen_loss: torch.Tensor,
    policy_rejected_loss: torch.Tensor,
    reference_chosen_loss: torch.Tensor,
    reference_rejected_loss: torch.Tensor,
    beta: float,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``-logsigmoid(-0.5 * beta * ((pc - rc) - (pr - rr))).mean()`` and implicit-reward metrics.

    Inputs are ``(B,)`` floats of equal shape, dtype and device; ``beta`` finite > 0.
    """
    losses = (policy_chosen_loss, policy_rejected_loss, reference_chosen_loss,
              reference_rejected_loss)
    first = losses[0]
    for tensor in losses:
        if not isinstance(tensor, torch.Tensor) or tensor.dim() != 1:
            shape = getattr(tensor, "shape", tensor)
            raise ValueError(f"dpo_objective expects (B,) tensors, got {shape}")
        if (tensor.shape, tensor.dtype, tensor.device) != (first.shape, first.dtype, first.device):
            raise ValueError(
                "dpo_objective inputs must share shape/dtype/device, got "
                f"{[(tuple(t.shape), t.dtype, str(t.device)) for t in losses]}"
            )
    if not torch.is_floating_point(first):
        raise TypeError(f"dpo_objective expects float tensors, got {first.dtype}")
    if isinstance(beta, bool) or not math.isfinite(float(beta)) or float(beta) <= 0:
        raise ValueError(f"beta must be finite > 0, got {beta!r}")
    chosen_diff = policy_chosen_loss - reference_chosen_loss
    rejected_diff = policy_rejected_loss - reference_rejected_loss
    loss = -F.logsigmoid(-0.5 * float(beta) * (chosen_diff - rejected_diff)).mean()
    # Per-sample implicit rewards, as the real objective returns them (callers reduce).
    reward_chosen = (-0.5 * float(beta) * chosen_diff).detach()
    reward_rejected = (-0.5 * float(beta) * rejected_diff).detach()
    metrics = {
        "implicit_reward_chosen": reward_chosen,
        "implicit_reward_rejected": reward_rejected,
        "implicit_accuracy": (reward_chosen > reward_rejected).float().mean(),
    }
    return loss, metrics


__all__ = ["dpo_objective"]
