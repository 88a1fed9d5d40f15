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

"""Flow-GRPO (arXiv 2505.05470): PPO-style clipped likelihood ratios over stored SDE rollouts.

Each cycle rolls prompts out with the SDE sampler, keeping the log-density of every transition
the scheduler trains on; rewards become group-relative advantages (``prepare_feedback``). Each
kept transition is then replayed under the current weights, one accumulation microstep per
transition, minimising ``-min(A * r, A * clip(r, 1 + lo, 1 + hi))`` with ``r`` the ratio of new
to rollout density and ``A`` the advantage clamped to ``adv_clip_range``; with ``kl_beta > 0``,
plus ``kl_beta`` times the mean squared gap to the frozen reference (on velocities, or on the
transitions' means).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from ...samples import BaseSample, LatentState, MultiModalStepOutput, ReplayStep
from ...utils.trajectory_collector import compute_trajectory_indices
from ..abc import BaseTrainer
from ..common.forward_kwargs import reference_forward_kwargs, replay_forward_kwargs

# The output field the KL compares, per ``kl_type``.
_KL_FIELD = {"v-based": "velocity", "x-based": "next_state_mean"}


class GRPOTrainer(BaseTrainer):
    """Online GRPO on a coupled (SDE) sampler; the execution contract is the base's (online)."""

    paradigm = "coupled"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Auto gradient accumulation counts one microstep per replayed transition.
        self.num_train_timesteps = self.adapter.scheduler.num_sde_steps

    @property
    def enable_kl_loss(self) -> bool:
        """Whether the loss carries the KL to the frozen reference."""
        return self.training_args.kl_beta > 0.0

    def sample(self) -> list[BaseSample]:
        """Rollouts with the log-density of each kept transition; rewards go to the buffer."""
        kept = compute_trajectory_indices(
            train_timestep_indices=self.adapter.get_train_step_indices(),
            num_inference_steps=self.training_args.num_inference_steps,
        )
        return self.generate_samples(
            reward_buffer=self.reward_buffer, compute_log_prob=True, trajectory_indices=kept
        )

    def optimize(self, samples: list[BaseSample]) -> None:
        """Replay every trained transition of every batch; the optimizer steps on sync."""
        args = self.training_args
        positions = [int(i) for i in self.adapter.get_train_step_indices()]
        for inner_epoch in range(int(args.num_inner_epochs)):
            order = self._order_samples_for_optimize(samples, inner_epoch)
            self.adapter.train()
            for batch in self._iter_prefetched_batches(order, int(args.per_device_batch_size)):
                low, high = args.adv_clip_range
                advantage = torch.clamp(batch["advantage"], low, high)
                for position in positions:
                    with self.accumulate_gradients():
                        self._train_on_transition(batch, position, advantage)

    # ------------------------------------------------------------------ one transition
    def _train_on_transition(
        self, batch: Mapping[str, Any], position: int, advantage: torch.Tensor
    ) -> None:
        args = self.training_args
        transition = self.adapter.get_replay_step(batch, position)
        old_log_prob = _rollout_log_prob(transition, position)
        with self.autocast():
            policy = self._replay(batch, transition)
        ratio = torch.exp(policy.log_prob.float() - old_log_prob.float())
        lo, hi = args.clip_range
        advantage = advantage.to(ratio.device, ratio.dtype)
        # PPO's pessimistic bound: the smaller of the plain and the clipped objective.
        objective = torch.minimum(advantage * ratio, advantage * ratio.clamp(1.0 + lo, 1.0 + hi))
        policy_loss = objective.mean().neg()
        loss = policy_loss
        metrics = {
            "policy_loss": policy_loss,
            "ratio": ratio.mean(),
            "clip_frac_low": (ratio < 1.0 + lo).float().mean(),
            "clip_frac_high": (ratio > 1.0 + hi).float().mean(),
        }
        metrics["clip_frac_total"] = metrics["clip_frac_low"] + metrics["clip_frac_high"]
        if self.enable_kl_loss:
            kl_div = self._reference_gap(batch, transition, policy)
            loss = loss + args.kl_beta * kl_div
            metrics["kl_div"] = kl_div
            metrics["kl_loss"] = args.kl_beta * kl_div
        self.accelerator.backward(loss)
        self._loss_info["loss"].append(loss.detach())
        for name, value in metrics.items():
            self._loss_info[name].append(value.detach())
        if self.accelerator.sync_gradients:
            self._loss_info = self._apply_optimizer_step(self._loss_info)

    def _replay(self, batch: Mapping[str, Any], transition: ReplayStep) -> MultiModalStepOutput:
        """The stored transition's log-density (and outputs) under the trained weights."""
        return self.adapter.forward_state(
            batch=batch,
            state=transition.state,
            times=transition.times,
            next_state=transition.next_state,
            compute_log_prob=True,
            return_fields=("log_prob", "next_state_mean", "velocity"),
            noise_level=self.adapter.scheduler.noise_level,
            **_without(replay_forward_kwargs(self, batch), _FORWARD_OWN_KEYS),
        )

    def _reference_gap(
        self, batch: Mapping[str, Any], transition: ReplayStep, policy: MultiModalStepOutput
    ) -> torch.Tensor:
        """Batch mean of the per-sample squared gap to the reference, in ``kl_type`` space.

        Only the reference forward is gradient-free: the gap must stay differentiable in the
        policy's output.
        """
        field = _KL_FIELD[self.training_args.kl_type]
        with torch.no_grad(), self.adapter.use_ref_parameters(), self.autocast():
            reference = self.adapter.forward_state(
                batch=batch,
                state=transition.state,
                times=transition.times,
                next_state=transition.next_state,
                compute_log_prob=False,
                return_fields=(field,),
                noise_level=self.adapter.scheduler.noise_level,
                **_without(reference_forward_kwargs(self, batch), _FORWARD_OWN_KEYS),
            )
        ours, theirs = _state_field(policy, field), _state_field(reference, field)
        gaps = {
            name: (ours.components[name] - theirs.components[name]) ** 2
            for name in self.adapter.trajectory_component_order
        }
        return self.adapter.reduce_latent_values(gaps, state=transition.state).mean()


# Keys the replay passes itself; a training argument of the same name must not collide.
_FORWARD_OWN_KEYS = ("batch", "state", "times", "next_state", "compute_log_prob",
                     "return_fields", "noise_level")


def _without(kwargs: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if k not in keys}


def _rollout_log_prob(transition: ReplayStep, position: int) -> torch.Tensor:
    """The rollout's ``(B,)`` log-density of the transition, which the ratio divides by."""
    stored = transition.log_prob
    batch_size = next(iter(transition.state.components.values())).shape[0]
    if not isinstance(stored, torch.Tensor) or stored.shape != (batch_size,):
        got = tuple(stored.shape) if isinstance(stored, torch.Tensor) else type(stored).__name__
        raise ValueError(
            f"GRPO replays need the rollout's log_prob of shape ({batch_size},) at step "
            f"{position}, got {got}; sample with compute_log_prob=True"
        )
    return stored


def _state_field(output: MultiModalStepOutput, field: str) -> LatentState:
    value = getattr(output, field)
    if not isinstance(value, LatentState):
        raise TypeError(f"GRPO's KL needs the forward's {field!r}, got {type(value).__name__}")
    return value


__all__ = ["GRPOTrainer"]
